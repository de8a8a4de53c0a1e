// Where a session's dispatch ledger lives and how it is read. Apart from the lock and the writer
// (dispatchLedgerStore.ts) because the write gate reads the ledger too, for a subagent's write
// (subagentScope.ts), and its bundle must stay lean: reading needs neither the lock library nor the
// atomic writer. The ledger is control state for a dispatched agent, so it is read as Wave Scope's own
// files are (hookFileSystem.ts, readOwnControlFile): a regular file with one link under the size cap,
// reached from the root through real directories, within the time budget; anything else is `corrupt`.
import { join } from 'node:path';
import { readOwnControlFile } from './hookFileSystem';
import { ledgerLockRelativePath, ledgerRelativePath, parseLedger } from '../planner/dispatch/sessionLedger';
import type { LedgerRead } from '../planner/dispatch/sessionLedger';

/** The ledger's paths for one session. */
export interface LedgerLocation {
  /** Absolute repository root (the coordinator's checkout). */
  readonly root: string;
  readonly sessionId: string | undefined;
  readonly ledgerPath: string;
  readonly lockPath: string;
}

export function ledgerLocation(root: string, sessionId: string | undefined): LedgerLocation {
  return { root, sessionId, ledgerPath: join(root, ledgerRelativePath(sessionId)), lockPath: join(root, ledgerLockRelativePath(sessionId)) };
}

/** Reads the ledger; an unreadable file is `corrupt` (row 7), like a malformed one. */
export function readLedger(location: LedgerLocation): LedgerRead {
  let text: string | undefined;
  try {
    text = readOwnControlFile(location.root, location.ledgerPath)?.text;
  } catch (error) {
    return { kind: 'corrupt', problem: `cannot be read (${(error as Error).message})` };
  }
  return text === undefined ? { kind: 'absent' } : parseLedger(text);
}
