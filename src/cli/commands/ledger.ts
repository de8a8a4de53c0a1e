// `wave-scope ledger show` and `wave-scope ledger reset`: the dispatch ledger for a person debugging a
// denial (docs/hooks.md, "Debugging the dispatch guard"). show probes the session transcript once for
// every record; reset removes this session's file only, under the lock, never another session's.
import { join, relative, sep } from 'node:path';
import type { CliIo } from '../cliIo';
import { printLine, reportError, reportNote, reportWarning } from '../cliIo';
import { parseCommandLine, reportBadArguments } from '../commandLine';
import { dispatchMessages as say } from '../messages';
import { acquireLedgerLock, removeLedger } from '../../node/dispatchLedgerStore';
import { ledgerLocation, readLedger } from '../../node/ledgerFile';
import type { LedgerLocation } from '../../node/ledgerFile';
import { appendEvent } from '../../node/eventLog';
import { probeTranscript } from '../../node/transcriptLines';
import { ledgerResetEvent } from '../../planner/dispatch/dispatchEvents';
import type { Liveness } from '../../planner/dispatch/liveness';
import { allRecords, recordKey, sanitizeSessionId } from '../../planner/dispatch/sessionLedger';
import { ORCHESTRATOR_DIR_NAME } from '../../planner/plan/stateDirNames';
import type { LedgerRead } from '../../planner/dispatch/sessionLedger';
import { locateDispatchRoot, sessionOf } from './dispatchContext';
import { ledgersIn } from './ledgerFiles';

/** Version of the `ledger show --json` document. */
export const LEDGER_VIEW_VERSION = 1;

function shown(root: string, path: string): string {
  return relative(root, path).split(sep).join('/');
}

/** One ledger, as `ledger show --json` prints it. */
function ledgerView(root: string, location: LedgerLocation, read: LedgerRead, current: boolean, now: number): Record<string, unknown> {
  const base = { path: shown(root, location.ledgerPath), session: sanitizeSessionId(location.sessionId), current };
  if (read.kind === 'absent') return { ...base, found: false, problem: null, waveKey: null, updated: null, transcriptPath: null, records: [] };
  if (read.kind === 'corrupt') return { ...base, found: true, problem: read.problem, waveKey: null, updated: null, transcriptPath: null, records: [] };
  const { ledger } = read;
  const placed = allRecords(ledger);
  const targets = placed.map(({ record }) => ({ key: recordKey(record), desc: record.desc, at: record.at, ...(record.useId !== undefined ? { useId: record.useId } : {}) }));
  const liveness: Map<string, Liveness> = probeTranscript(ledger.transcriptPath, targets, undefined, now).liveness;
  return {
    ...base,
    found: true,
    problem: null,
    waveKey: ledger.waveKey,
    updated: ledger.updated,
    transcriptPath: ledger.transcriptPath ?? null,
    records: placed.map(({ waveKey, record }) => ({ waveKey, ...record, liveness: liveness.get(recordKey(record)) ?? null })),
  };
}

function printView(io: CliIo, view: Record<string, unknown>): void {
  if (view.found === false) {
    printLine(io, say.ledgerNone(view.path as string));
    return;
  }
  if (typeof view.problem === 'string') {
    reportWarning(io, say.ledgerCorrupt(view.path as string, view.problem));
    return;
  }
  printLine(io, say.ledgerHeader(view.path as string, view.waveKey as string, view.updated as string));
  for (const record of view.records as Array<Record<string, unknown>>) {
    const liveness = record.liveness as Liveness | null;
    const state = liveness === null ? 'unknown' : liveness.inFlight ? 'in flight' : liveness.ttlExpired ? 'presumed finished (TTL)' : 'finished';
    const bound = (record.bound as { agentId?: string } | undefined)?.agentId;
    printLine(io, say.ledgerRecord(record.waveKey as string, record.id as string, state, liveness?.evidence ?? 'no-transcript', liveness?.since ?? (record.at as string), (record.files as string[]).length, bound));
  }
}

export async function runLedger(args: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === undefined || sub === '--help' || sub === '-h') {
    printLine(io, say.ledgerUsage);
    return sub === undefined ? 1 : 0;
  }
  if (sub !== 'show' && sub !== 'reset') {
    reportBadArguments(io, 'ledger', say.unknownLedgerSubcommand(sub));
    return 1;
  }
  const commandLine = parseCommandLine(
    `ledger ${sub}`,
    rest,
    { session: { type: 'string' }, json: { type: 'boolean', default: false } },
    { io, usage: say.ledgerUsage, badArgumentsExit: 1 },
  );
  if ('exitCode' in commandLine) return commandLine.exitCode;
  const { values } = commandLine;
  if (sub === 'reset' && values.json) {
    reportBadArguments(io, 'ledger reset', say.ledgerJsonOnlyWithShow);
    return 1;
  }
  const session = sessionOf(values.session, io.env);
  const { root } = locateDispatchRoot(io.cwd, io.env);
  const now = Date.now();

  if (sub === 'show') {
    const locations = session !== undefined ? [ledgerLocation(root, session)] : ledgersIn(root);
    const views = locations.map((location) => ledgerView(root, location, readLedger(location), session !== undefined, now));
    if (values.json === true) {
      printLine(io, JSON.stringify({ version: LEDGER_VIEW_VERSION, root, session: session === undefined ? null : sanitizeSessionId(session), ledgers: views }, null, 2));
      return 0;
    }
    if (views.length === 0) printLine(io, say.ledgerNoneAtAll(join(root, ORCHESTRATOR_DIR_NAME)));
    for (const view of views) printView(io, view);
    return 0;
  }

  if (session === undefined) {
    reportError(io, say.ledgerNeedsSession);
    return 1;
  }
  const location = ledgerLocation(root, session);
  const lock = acquireLedgerLock(location);
  try {
    if (!lock.held) {
      reportError(io, say.ledgerResetLocked(location.lockPath));
      appendEvent(root, ledgerResetEvent({ now, sessionId: session, outcome: 'locked', records: 0 }));
      return 1;
    }
    const read = readLedger(location);
    const records = read.kind === 'ok' ? allRecords(read.ledger).length : 0;
    let removed: boolean;
    try {
      removed = removeLedger(location);
    } catch (error) {
      reportError(io, (error as Error).message);
      return 2;
    }
    appendEvent(root, ledgerResetEvent({ now, sessionId: session, outcome: removed ? 'removed' : 'absent', records }));
    if (removed) reportNote(io, say.ledgerResetDone(shown(root, location.ledgerPath), records));
    else reportNote(io, say.ledgerResetAbsent(shown(root, location.ledgerPath)));
    return 0;
  } finally {
    lock.release();
  }
}
