// `wave-scope hook pre-dispatch` (Claude Code PreToolUse, matcher Agent|Task) and `wave-scope hook
// subagent-start` (SubagentStart). The decision is src/planner/dispatch/dispatchDecision.ts; this file
// reads what it needs, holds the ledger lock around the read-modify-write cycle, reads the transcript
// outside the lock when the decision asks for it, appends one event per decision and answers.
//
// Fail open, every path logged: whatever this file cannot do (an unreadable payload, a lock it cannot
// have, an exception) allows the dispatch and leaves an event saying which row of the matrix decided.
// It is loaded only for these two hooks (dist/dispatch.js): the write gate's bundle never parses it.
import type { CliIo } from '../cliIo';
import { printLine, reportNote } from '../cliIo';
import { dispatchMessages as say } from '../messages';
import { appendEvent } from '../../node/eventLog';
import { acquireLedgerLock, LOCK_BUDGET_MS, writeLedger } from '../../node/dispatchLedgerStore';
import { ledgerLocation, readLedger } from '../../node/ledgerFile';
import type { LedgerLocation } from '../../node/ledgerFile';
import type * as Git from '../../node/git';
import { probeTranscript, readLeadingUserTexts } from '../../node/transcriptLines';
import { COORDINATOR_ID } from '../../planner/plan/agentId';
import { decideDispatch, withCoordinatorWitnesses } from '../../planner/dispatch/dispatchDecision';
import type { CoordinatorCollision, DispatchVerdict, MatrixRow } from '../../planner/dispatch/dispatchDecision';
import { scopeCheckedEvent, subagentBindingEvent } from '../../planner/dispatch/dispatchEvents';
import type { CycleFacts } from '../../planner/dispatch/dispatchEvents';
import { isDispatchTool, parseDispatchPayload, parseSubagentStartPayload } from '../../planner/dispatch/dispatchRequest';
import type { DispatchRequest } from '../../planner/dispatch/dispatchRequest';
import { analyseDispatchScope, hasScope } from '../../planner/dispatch/dispatchScope';
import type { DispatchScope } from '../../planner/dispatch/dispatchScope';
import type { Liveness } from '../../planner/dispatch/liveness';
import { entriesLikeSeveral } from '../../planner/dispatch/promptScope';
import { allRecords } from '../../planner/dispatch/sessionLedger';
import type { LedgerRead } from '../../planner/dispatch/sessionLedger';
import { recordBinding, resolveSubagentScope, subagentTranscriptPaths } from '../../planner/dispatch/subagentBinding';
import { formatHookReply } from '../../planner/enforce/hookPayloads';
import { foldCase } from '../../planner/scope/scopeEntry';
import { CompiledEntries } from '../../planner/scope/scopeAlgebra';
import type { HookVerdict } from '../../planner/enforce/hookPayloads';
import { directoryProbe, locateDispatchRoot, pathProbe, readActiveWave } from './dispatchContext';
import type { ActiveWave, DispatchRoot } from './dispatchContext';

/** Set to `off` (or `0`, `false`) to switch the guard off: reference row 1, an allow with no output. */
export const DISPATCH_GUARD_ENV = 'WAVE_SCOPE_DISPATCH_GUARD';

/** How many times the cycle may step out of the lock to read the transcript before unknowns count as in flight. */
const MAX_PROBE_ROUNDS = 3;

/** Overlaps a deny reason lists before it says how many more there are. */
const MAX_DENY_LINES = 10;

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function disabled(env: Readonly<Record<string, string | undefined>>): boolean {
  const raw = env[DISPATCH_GUARD_ENV]?.trim();
  const value = raw === undefined ? undefined : foldCase(raw);
  return value === 'off' || value === '0' || value === 'false';
}

function countRecords(ledger: LedgerRead): number {
  return ledger.kind === 'ok' ? allRecords(ledger.ledger).length : 0;
}

/** Where an event goes when nothing better is known: the project directory Claude Code names, else the cwd. */
function fallbackRoot(io: CliIo, cwd?: string): string {
  try {
    return locateDispatchRoot(cwd ?? io.env.CLAUDE_PROJECT_DIR ?? io.cwd, io.env).root;
  } catch {
    return io.cwd;
  }
}

function reply(io: CliIo, verdict: HookVerdict): void {
  io.writeStdout(formatHookReply('claude', verdict));
}

/** The warnings an allowed dispatch carries (shown to the user as a systemMessage). */
function warningsOf(
  scope: DispatchScope,
  root: string,
  verdict: DispatchVerdict | undefined,
  location: LedgerLocation | undefined,
  cycle: CycleFacts | undefined,
  writeProblem: string | undefined,
): string[] {
  const warnings: string[] = [];
  const several = scope.prompt.kind === 'block' ? entriesLikeSeveral(scope.prompt.entries, pathProbe(root)) : [];
  if (several.length > 0) warnings.push(say.warnSeveralOnALine(several));
  const { declared } = scope;
  if (declared.kind === 'matched' && scope.mismatch !== undefined) warnings.push(say.warnMismatch(declared.agent.id, scope.mismatch.missing, scope.mismatch.extra));
  if (declared.kind === 'conflict') warnings.push(say.warnConflict(declared.agents.map((agent) => agent.id)));
  if (declared.kind === 'unknown') warnings.push(say.warnUnknownAgent(declared.ids, declared.digests));
  if (scope.digestConsistent === false && scope.instructedDigest !== undefined && scope.scopeDigest !== undefined) {
    warnings.push(say.warnDigestInconsistent(scope.instructedDigest, scope.scopeDigest));
  }
  if (verdict?.selfHealed !== undefined && location !== undefined) warnings.push(say.warnSelfHealed(location.ledgerPath, verdict.selfHealed));
  if (verdict?.notEvaluable !== undefined) warnings.push(say.warnNotEvaluable(verdict.notEvaluable));
  if (cycle?.lock === 'unlocked' && location !== undefined) warnings.push(say.warnUnlocked(location.lockPath, LOCK_BUDGET_MS));
  if (writeProblem !== undefined && location !== undefined) warnings.push(say.warnWriteFailed(location.ledgerPath, writeProblem));
  return warnings;
}

function allowWith(warnings: readonly string[]): HookVerdict {
  return warnings.length === 0 ? { decision: 'allow' } : { decision: 'warn', message: [say.warnHeader, ...warnings.map((line) => `- ${line}`)].join('\n') };
}

/** Row 11c: the dispatch claims files the plan gives the coordinator itself. */
function coordinatorDenyReason(collisions: readonly CoordinatorCollision[], wave: ActiveWave): string {
  const shown = collisions.slice(0, MAX_DENY_LINES);
  const more = collisions.length - shown.length;
  return [
    say.coordinatorDenyHeader(wave.wave ?? null),
    ...shown.map((collision) => say.coordinatorDenyCollision(collision.entries[0], collision.entries[1], collision.witness)),
    ...(more > 0 ? [say.denyMore(more)] : []),
    say.coordinatorDenyAdvice(wave.wave ?? null),
  ].join('\n');
}

function denyReason(verdict: DispatchVerdict, wave: ActiveWave, location: LedgerLocation): string {
  if (verdict.row === '11c') return coordinatorDenyReason(verdict.coordinatorCollisions ?? [], wave);
  const partners = [...new Set(verdict.collisions.map((collision) => collision.partner.record.id))];
  // The first few overlaps say what to do; a hundred more would only bury it.
  const shown = verdict.collisions.slice(0, MAX_DENY_LINES);
  const lines = shown.map((collision) => {
    const { record } = collision.partner;
    return say.denyCollision(
      { id: record.id, desc: record.desc, ...(record.bound !== undefined ? { agentId: record.bound.agentId } : {}) },
      collision.entries[0],
      collision.entries[1],
      collision.witness,
      collision.liveness.evidence,
      record.at,
    );
  });
  const more = verdict.collisions.length - shown.length;
  return [say.denyHeader(partners.length), ...lines, ...(more > 0 ? [say.denyMore(more)] : []), say.denyAdvice(partners, wave.wave ?? null), ...(verdict.staleLooking ? [say.staleHint(location.ledgerPath)] : [])].join('\n');
}

interface CycleResult {
  readonly verdict: DispatchVerdict;
  readonly cycle: CycleFacts;
  readonly writeProblem?: string;
}

/**
 * The locked read-modify-write cycle, stepping out of the lock to read the transcript when asked. git (a
 * process spawn, and the modules that spawn it) is loaded only once a collision needs witnesses.
 */
async function runCycle(request: DispatchRequest, scope: DispatchScope, wave: ActiveWave, place: DispatchRoot, location: LedgerLocation, started: number): Promise<CycleResult> {
  const liveness = new Map<string, Liveness>();
  const coordinatorFiles = wave.declared.kind === 'declared' ? wave.declared.agents.find((agent) => agent.id === COORDINATOR_ID)?.files : undefined;
  // Every round decides on the ledger as read then, mostly the same entries: each is compiled once.
  const compiled = new CompiledEntries();
  let rounds = 0;
  let probe: CycleFacts['probe'] = 'none';
  let lockWaitMs = 0;
  let everUnlocked = false;
  let gitFailed = false;
  let git: typeof Git | undefined;
  const knownFiles =
    place.location === undefined
      ? undefined
      : () => {
          try {
            if (git === undefined) throw new Error('git is not loaded');
            return git.listRepositoryFiles(place.root, { includeUntracked: true });
          } catch {
            gitFailed = true;
            return undefined;
          }
        };
  for (;;) {
    const lock = acquireLedgerLock(location);
    lockWaitMs += lock.waitedMs;
    if (!lock.held) everUnlocked = true;
    try {
      const ledger = readLedger(location);
      const now = Date.now();
      const step = decideDispatch({
        request,
        scope,
        waveKey: wave.waveKey,
        ledger,
        now,
        liveness,
        canProbe: rounds < MAX_PROBE_ROUNDS,
        ignoreCase: place.ignoreCase,
        compiled,
        ...(coordinatorFiles !== undefined ? { coordinatorFiles } : {}),
        ...(knownFiles !== undefined ? { knownFiles } : {}),
      });
      if (step.kind === 'probe') {
        lock.release();
        if (knownFiles !== undefined) git ??= await import('../../node/git');
        const outcome = probeTranscript(request.transcriptPath, step.targets, request.useId, Date.now());
        for (const [key, value] of outcome.liveness) liveness.set(key, value);
        probe = outcome.probe;
        rounds += 1;
        if (rounds >= MAX_PROBE_ROUNDS && probe === 'read') probe = 'rounds-exhausted';
        continue;
      }
      let { verdict } = step;
      if (verdict.row === '11c' && knownFiles !== undefined && git === undefined) {
        // Row 11c needs no probe, so git was not loaded when it was decided: load it now, for real witnesses
        // of the pairs already found (the proof is not run again).
        git = await import('../../node/git');
        gitFailed = false;
        verdict = withCoordinatorWitnesses(verdict, knownFiles(), { ignoreCase: place.ignoreCase, compiled });
      }
      let ledgerResult: CycleFacts['ledgerResult'] = verdict.ledger === undefined ? 'not-persisted' : 'recorded';
      let writeProblem: string | undefined;
      // What the file holds now: the ledger as written (the size may have taken its oldest records), else as read.
      let records = countRecords(ledger);
      if (verdict.ledger !== undefined) {
        try {
          records = allRecords(writeLedger(location, verdict.ledger)).length;
        } catch (error) {
          ledgerResult = 'write-failed';
          writeProblem = describe(error);
        }
      }
      return {
        verdict,
        cycle: {
          lock: everUnlocked ? 'unlocked' : 'held',
          lockWaitMs,
          probe,
          ledgerResult,
          ledgerRecords: records,
          durationMs: Date.now() - started,
          gitFailed,
        },
        ...(writeProblem !== undefined ? { writeProblem } : {}),
      };
    } finally {
      lock.release();
    }
  }
}

function wantsHelp(args: readonly string[], io: CliIo): boolean {
  if (!args.includes('--help') && !args.includes('-h')) return false;
  printLine(io, say.hookUsage);
  return true;
}

/** The dispatch guard. Always exits 0; see the header for what it allows. */
export async function runPreDispatch(args: string[], io: CliIo): Promise<number> {
  if (wantsHelp(args, io)) return 0;
  const started = Date.now();
  let root: string | undefined;
  let request: DispatchRequest | undefined;
  let waveNumber: number | null = null;
  let declaredSource: Parameters<typeof scopeCheckedEvent>[0]['declaredSource'] = 'unknown';
  let scope: DispatchScope | undefined;
  const log = (outcome: { decision: 'allow' | 'deny'; row: MatrixRow }, extra: { verdict?: DispatchVerdict; cycle?: CycleFacts } = {}) => {
    const event = scopeCheckedEvent({
      now: Date.now(),
      ...(request !== undefined ? { request } : {}),
      wave: waveNumber,
      declaredSource,
      ...(scope !== undefined ? { scope } : {}),
      outcome,
      ...extra,
      ...(extra.cycle === undefined ? { cycle: { lock: 'none', lockWaitMs: 0, probe: 'none', ledgerResult: 'not-recorded', ledgerRecords: 0, durationMs: Date.now() - started, gitFailed: false } } : {}),
    });
    appendEvent(root ?? fallbackRoot(io, request?.cwd), event);
  };
  try {
    if (disabled(io.env)) {
      log({ decision: 'allow', row: '1' });
      return 0;
    }
    const parsed = parseDispatchPayload(await io.readStdin());
    if ('problem' in parsed) {
      log({ decision: 'allow', row: '3' });
      return 0;
    }
    request = parsed.request;
    if (!isDispatchTool(request.toolName)) {
      log({ decision: 'allow', row: '4' });
      return 0;
    }
    const place = locateDispatchRoot(request.cwd ?? io.cwd, io.env);
    root = place.root;
    const wave = readActiveWave(place.root, request.sessionId, io.env);
    waveNumber = wave.wave ?? null;
    declaredSource = wave.declared.kind === 'declared' ? 'declared' : wave.declared.reason;
    scope = analyseDispatchScope(request, wave.declared, { repoRoot: place.root, ignoreCase: place.ignoreCase, isDirectory: directoryProbe(place.root) });
    const prompt = scope.prompt;
    if (prompt.kind === 'block' && prompt.invalid.length > 0) {
      log({ decision: 'deny', row: '6a' });
      const reason = [say.invalidHeader, ...prompt.invalid.map((entry) => say.invalidLine(entry.line, entry.message)), say.invalidAdvice].join('\n');
      reply(io, { decision: 'deny', reason });
      return 0;
    }
    if (!hasScope(scope)) {
      log({ decision: 'allow', row: prompt.kind === 'marker-absent' ? '5' : '6' });
      reply(io, allowWith(warningsOf(scope, place.root, undefined, undefined, undefined, undefined)));
      return 0;
    }
    const location = ledgerLocation(place.root, request.sessionId);
    const result = await runCycle(request, scope, wave, place, location, started);
    const { verdict } = result;
    log({ decision: verdict.decision, row: verdict.row }, { verdict, cycle: result.cycle });
    if (verdict.decision === 'deny') reply(io, { decision: 'deny', reason: denyReason(verdict, wave, location) });
    else reply(io, allowWith(warningsOf(scope, place.root, verdict, location, result.cycle, result.writeProblem)));
    return 0;
  } catch (error) {
    // Row 12: an unexpected failure allows the dispatch, says so on stderr, and is logged.
    try {
      log({ decision: 'allow', row: '12' });
    } catch {
      // The event is best effort here; the allow is not.
    }
    reportNote(io, say.guardFailed(describe(error)));
    return 0;
  }
}

/** The subagent-start hook: binds the new subagent to its dispatch record. SubagentStart cannot block; always exits 0. */
export async function runSubagentStart(args: string[], io: CliIo): Promise<number> {
  if (wantsHelp(args, io)) return 0;
  let root: string | undefined;
  let sessionId: string | undefined;
  try {
    const parsed = parseSubagentStartPayload(await io.readStdin());
    if ('problem' in parsed) {
      appendEvent(fallbackRoot(io), subagentBindingEvent({ now: Date.now(), outcome: 'union-fallback', reason: 'no-agent-id', lock: 'none', declaredAgent: false }));
      return 0;
    }
    const { request } = parsed;
    sessionId = request.sessionId;
    root = locateDispatchRoot(request.cwd ?? io.cwd, io.env).root;
    const location = ledgerLocation(root, request.sessionId);
    const lock = acquireLedgerLock(location);
    try {
      const ledger = readLedger(location);
      const transcript = request.transcriptPath ?? (ledger.kind === 'ok' ? ledger.ledger.transcriptPath : undefined);
      const paths = transcript === undefined ? [] : subagentTranscriptPaths(transcript, request.agentId);
      const alreadyBound = ledger.kind === 'ok' && allRecords(ledger.ledger).some(({ record }) => record.bound?.agentId === request.agentId);
      const texts = alreadyBound || ledger.kind !== 'ok' ? undefined : readLeadingUserTexts(paths);
      const scope = resolveSubagentScope({ agentId: request.agentId, ledger, leadingTexts: texts });
      const lockState = lock.held ? 'held' : 'unlocked';
      if (scope.kind === 'bound' && scope.via === 'prompt' && ledger.kind === 'ok') {
        writeLedger(location, recordBinding(ledger.ledger, scope.placed, request.agentId, Date.now()));
        appendEvent(root, subagentBindingEvent({ now: Date.now(), sessionId, outcome: 'bound', lock: lockState, declaredAgent: scope.agent !== undefined }));
      } else if (scope.kind === 'bound') {
        appendEvent(root, subagentBindingEvent({ now: Date.now(), sessionId, outcome: 'already-bound', lock: lockState, declaredAgent: scope.agent !== undefined }));
      } else {
        appendEvent(root, subagentBindingEvent({ now: Date.now(), sessionId, outcome: 'union-fallback', reason: scope.reason, lock: lockState, declaredAgent: false }));
      }
    } finally {
      lock.release();
    }
    return 0;
  } catch (error) {
    reportNote(io, say.guardFailed(describe(error)));
    try {
      appendEvent(root ?? fallbackRoot(io), subagentBindingEvent({ now: Date.now(), ...(sessionId !== undefined ? { sessionId } : {}), outcome: 'union-fallback', reason: 'hook-failed', lock: 'none', declaredAgent: false }));
    } catch {
      // Best effort.
    }
    return 0;
  }
}
