// The dispatch ledgers of every session in one checkout (for `ledger show` without a session, and for
// `amend` when it knows no session id).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ledgerLocation, readLedger } from '../../node/ledgerFile';
import type { LedgerLocation } from '../../node/ledgerFile';
import { LEDGER_FILE_PATTERN, waveOfKey } from '../../planner/dispatch/sessionLedger';
import type { LedgerRead } from '../../planner/dispatch/sessionLedger';
import { ORCHESTRATOR_DIR_NAME } from '../../planner/plan/stateDirNames';

/** Every session's ledger under `root`, by session. */
export function ledgersIn(root: string): LedgerLocation[] {
  let names: string[];
  try {
    names = readdirSync(join(root, ORCHESTRATOR_DIR_NAME));
  } catch {
    return [];
  }
  return names
    .map((name) => LEDGER_FILE_PATTERN.exec(name)?.[1])
    .filter((session): session is string => session !== undefined)
    .sort()
    .map((session) => ledgerLocation(root, session));
}

/** The ledgers, as read, with at least one record dispatched in `wave`, and those that cannot be read (which may have). */
export function ledgersOfWave(root: string, wave: number): Array<{ location: LedgerLocation; read: LedgerRead }> {
  return ledgersIn(root)
    .map((location) => ({ location, read: readLedger(location) }))
    .filter(({ read }) => read.kind === 'corrupt' || (read.kind === 'ok' && Object.keys(read.ledger.waves).some((key) => waveOfKey(key) === wave)));
}
