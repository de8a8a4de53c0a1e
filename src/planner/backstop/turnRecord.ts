// The turn record: what `wave-scope run` learned about one agent's turn, kept so that a later
// `wave-scope commit` commits exactly that turn's in-scope changes (and refuses a failed turn), and so
// that a person can read what happened. One file per agent and wave, the latest turn, written
// atomically at the start of the turn (`running`) and at its end (`finished`):
//
//   <repository>/.orchestrator/backstop/turns/wave<N>/<agent>.json
//
// The record lives in a directory a turn can write (unless confined), so nothing in it is trusted
// beyond what it can only narrow: `commit` re-checks every path against the agent's scope file and
// against the content the record says the turn left.
import { isAgentId } from '../plan/agentId';
import { isWaveNumber } from '../plan/declarationPaths';
import type { ViolationKind } from '../enforce/writeDecision';
import type { PlanChangeKind } from './planFiles';
import type { HeadState } from './gitOutput';
import { ORCHESTRATOR_DIR_NAME } from '../plan/stateDirNames';
import type { ChangeKind } from './snapshotDiff';

/** How the turn's command ended. */
export type CommandExit =
  | { readonly code: number }
  | { readonly signal: string }
  /** It could not be started (not found, not executable). */
  | { readonly error: string };

/** One change of the turn as recorded. */
export interface RecordedChange {
  readonly path: string;
  readonly kind: ChangeKind;
  readonly before?: string;
  readonly after?: string;
  readonly renamedFrom?: string;
  readonly renamedTo?: string;
  /** Set when the change is outside the scope: why. */
  readonly violation?: ViolationKind;
}

/** One commit the turn made, with the paths of it that lie outside the scope. */
export interface RecordedCommit {
  readonly hash: string;
  readonly subject: string;
  readonly outOfScope: readonly string[];
}

/** The verdict of the backstop on the turn. */
export type TurnVerdict =
  /** Every change (and every commit of the turn) lies in the scope. */
  | 'in-scope'
  /** Something lies outside: the turn failed, nothing of it is committed. */
  | 'out-of-scope'
  /** The check itself could not run (git failed after the command): the turn counts as failed. */
  | 'unchecked';

export interface TurnRecord {
  readonly version: 1;
  /** The turn's id: its start time and the supervising process. */
  readonly turn: string;
  readonly wave: number;
  readonly agent: string;
  readonly status: 'running' | 'finished';
  readonly startedAt: string;
  readonly finishedAt?: string;
  /** The program the turn ran (its arguments are not recorded). */
  readonly program: string;
  readonly confined: boolean;
  /** Absolute state directory and scope file the turn was judged by. */
  readonly stateDir: string;
  readonly scopeFile: string;
  /** Why the scope file could not be used, when it could not (the turn then allows nothing). */
  readonly scopeProblem?: string;
  readonly headBefore: HeadState;
  readonly headAfter?: HeadState;
  readonly exit?: CommandExit;
  readonly verdict?: TurnVerdict;
  /** Set for an `unchecked` turn: what failed. */
  readonly checkProblem?: string;
  readonly changes?: readonly RecordedChange[];
  /** Plan files (the manifest, the wave's declarations) that changed during the turn: each fails it. Paths relative to the work tree when inside it. */
  readonly planChanges?: ReadonlyArray<{ readonly path: string; readonly kind: PlanChangeKind }>;
  readonly commits?: readonly RecordedCommit[];
  /** True when HEAD had moved and was put back (a failed turn only). */
  readonly headRestored?: boolean;
  /** The commit made of the turn's changes, when one was. */
  readonly committed?: { readonly commit: string; readonly paths: readonly string[] };
}

/** `.orchestrator/backstop/turns/wave<N>/<agent>.json` under `root`. Throws for a bad wave or agent id. */
export function turnRecordPath(root: string, wave: number, agent: string): string {
  if (!isWaveNumber(wave)) throw new Error(`wave must be a positive integer, got ${String(wave)}`);
  if (!isAgentId(agent)) throw new Error(`agent id ${JSON.stringify(agent)} cannot name a file`);
  const base = root === '/' ? '' : root;
  // `wave<N>`, not the declarations' `wave-<N>`: a record of what happened, not a declaration.
  return `${base}/${ORCHESTRATOR_DIR_NAME}/backstop/turns/wave${wave}/${agent}.json`;
}

/** A turn id: sortable by start time, unique per supervising process. */
export function newTurnId(now: Date, pid: number): string {
  return `${now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}-${pid}`;
}

export function formatTurnRecord(record: TurnRecord): string {
  return `${JSON.stringify(record, null, 2)}\n`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isHead(value: unknown): value is HeadState {
  return isObject(value) && (value.ref === undefined || typeof value.ref === 'string') && (value.commit === undefined || typeof value.commit === 'string');
}

const KINDS = new Set(['created', 'modified', 'deleted']);

function isChange(value: unknown): value is RecordedChange {
  if (!isObject(value) || typeof value.path !== 'string' || !KINDS.has(value.kind as string)) return false;
  return ['before', 'after', 'renamedFrom', 'renamedTo', 'violation'].every((key) => value[key] === undefined || typeof value[key] === 'string');
}

/** Reads a turn record; undefined when the text is not one (a damaged record is never acted on). */
export function parseTurnRecord(text: string): TurnRecord | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(parsed) || parsed.version !== 1) return undefined;
  const record = parsed;
  if (typeof record.turn !== 'string' || !isWaveNumber(record.wave) || typeof record.agent !== 'string' || !isAgentId(record.agent)) return undefined;
  if (record.status !== 'running' && record.status !== 'finished') return undefined;
  if (typeof record.stateDir !== 'string' || typeof record.scopeFile !== 'string' || !isHead(record.headBefore)) return undefined;
  if (record.headAfter !== undefined && !isHead(record.headAfter)) return undefined;
  if (record.verdict !== undefined && !['in-scope', 'out-of-scope', 'unchecked'].includes(record.verdict as string)) return undefined;
  if (record.changes !== undefined && !(Array.isArray(record.changes) && record.changes.every(isChange))) return undefined;
  if (record.committed !== undefined && !(isObject(record.committed) && typeof record.committed.commit === 'string')) return undefined;
  return record as unknown as TurnRecord;
}
