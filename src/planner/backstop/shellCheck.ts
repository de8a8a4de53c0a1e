// The post-shell check (`wave-scope hook post-bash`, Claude Code's and Codex's `PostToolUse` on
// `Bash`) and the end-of-turn check (`wave-scope hook stop`, `Stop` / `SubagentStop`): the same diff as
// the turn backstop, against the snapshot this session's previous call left, judged by the write
// gate's rules for this caller. `wave-scope hook turn-start` (`UserPromptSubmit`) only takes a new
// baseline, so what a person edits between two turns is never blamed on the agent.
//
// A hook sees the tree after the call and the previous call's snapshot, nothing else: a peer's write
// that lands between two calls shows in this call's window (reference 002, § 2.2). Saved snapshots are
// keyed by both roots, the manifest, the session and the agent, so one caller's calls never move
// another caller's baseline (and so never hide a change from it).
import { createHash } from 'node:crypto';
import { gateRulesAt, governingWaves, isDispatchedAgent, memoizedHost, namedAgentOf } from '../enforce/writeGate';
import type { GateCaller, GateRules, WriteGateHost } from '../enforce/writeGate';
import type { RepoLocation } from '../enforce/repoLocation';
import type { ManifestState } from '../enforce/writeDecision';
import { EVENTS_FILE, ORCHESTRATOR_DIR_NAME } from '../plan/stateDirNames';
import { backstopExclusions, formatSnapshotHeader, parseSnapshotHeader, takeSnapshot } from './snapshot';
import type { Snapshot, SnapshotHost } from './snapshot';
import { comparePlanFiles, planFileRequest, planFileRequestOf } from './planFiles';
import type { PlanFileChange, PlanFileRequest, PlanFingerprints } from './planFiles';
import { diffSnapshots } from './snapshotDiff';
import type { PathChange } from './snapshotDiff';
import { judgeChangesStrictest } from './turnScope';
import type { ChangeJudgement, JudgeContext } from './turnScope';

/** Which of the three backstop hooks runs. */
export type ShellHookName = 'post-bash' | 'stop' | 'turn-start';

/** What the backstop hooks read of a payload (Claude Code and Codex share the shape). */
export interface ObserverPayload {
  /** `hook_event_name` as sent (`PostToolUse`, `Stop`, `SubagentStop`, `UserPromptSubmit`, ...). */
  readonly event?: string;
  readonly cwd?: string;
  readonly sessionIds: readonly string[];
  /** Present only inside a subagent (Claude Code's `agent_id`). */
  readonly agentId?: string;
  /** Claude Code / Codex set it on a Stop hook that runs because an earlier Stop hook blocked. */
  readonly stopHookActive: boolean;
  readonly toolName?: string;
  /** The session's transcript (`transcript_path`), for the subagent binding. */
  readonly transcriptPath?: string;
  /** Cursor's `workspace_roots` (the gate's project roots). */
  readonly workspaceRoots?: readonly string[];
}

/** The payload could not be read: the hook says so to the agent (it cannot vouch for the call). */
export class ObserverPayloadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ObserverPayloadError';
  }
}

function stringField(object: Record<string, unknown>, key: string): string | undefined {
  const value = object[key];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/** Reads a PostToolUse / Stop / SubagentStop / UserPromptSubmit payload. Throws ObserverPayloadError. */
export function parseObserverPayload(stdin: string): ObserverPayload {
  let parsed: unknown;
  try {
    parsed = JSON.parse(stdin);
  } catch {
    throw new ObserverPayloadError('The hook payload on stdin is not JSON.');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new ObserverPayloadError('The hook payload is not a JSON object.');
  const payload = parsed as Record<string, unknown>;
  const sessionIds = ['session_id', 'sessionId', 'parent_session_id', 'conversation_id']
    .map((key) => stringField(payload, key))
    .filter((id): id is string => id !== undefined);
  const event = stringField(payload, 'hook_event_name');
  const cwd = stringField(payload, 'cwd');
  const agentId = stringField(payload, 'agent_id');
  const toolName = stringField(payload, 'tool_name');
  const transcriptPath = stringField(payload, 'transcript_path');
  const roots = Array.isArray(payload.workspace_roots) ? payload.workspace_roots.filter((root): root is string => typeof root === 'string' && root.startsWith('/')) : [];
  return {
    ...(event !== undefined ? { event } : {}),
    ...(cwd !== undefined ? { cwd } : {}),
    sessionIds,
    ...(agentId !== undefined ? { agentId } : {}),
    stopHookActive: payload.stop_hook_active === true,
    ...(toolName !== undefined ? { toolName } : {}),
    ...(transcriptPath !== undefined && transcriptPath.startsWith('/') ? { transcriptPath } : {}),
    ...(roots.length > 0 ? { workspaceRoots: roots } : {}),
  };
}

/** Where and by which rules one hook call is checked. */
export type ShellContext =
  | { readonly kind: 'off-repository'; readonly cwd: string }
  /**
   * No wave is active (no manifest), or every active one is provably another session's. `key` is this
   * caller's saved-snapshot key, as a checked call would have it (see `planFilesGone`).
   */
  | {
      readonly kind: 'no-wave';
      readonly because: 'no-manifest' | 'foreign-session';
      readonly location: RepoLocation;
      readonly dispatchedAgent: boolean;
      readonly key: string;
    }
  | {
      readonly kind: 'checked';
      /** The work tree the snapshot is taken of: the checkout the binding wave's grants apply to. */
      readonly location: RepoLocation;
      /** The binding wave's coordinator checkout (its events file lives there). */
      readonly manifestRoot: string;
      /** The binding wave's manifest. */
      readonly manifest: ManifestState;
      readonly stateDir?: string;
      /** The write gate's rules of every wave that governs this caller, the binding one first. */
      readonly judges: readonly JudgeContext[];
      readonly dispatchedAgent: boolean;
      /** The plan files of every governing state directory: a dispatched caller may never change them. */
      readonly planFiles: PlanFileRequest;
      /** The saved-snapshot key of this caller and its coordinator fallback (see `shellStoreKeys`). */
      readonly key: string;
      readonly coordinatorKey: string;
      readonly exclude: (path: string) => boolean;
      readonly ignoreCase: boolean;
      /** The agent whose own scope applies (`WAVE_SCOPE_AGENT`, a bound subagent), when one does. */
      readonly agent?: string;
    };

/**
 * One saved-snapshot key: a digest of the work tree, the session and the agent. Not of the manifest found
 * for the call: that is found from the work tree's `.git`, which a shell can point at a git directory of its
 * own beside a plan of its own, and a key that moved with it had the next call take a new baseline without
 * comparing anything (found by red-team review, 2026-12-06). Kept, the window that moved it is compared
 * with the last call's snapshot, and the `.git` it changed is control state.
 */
export function shellStoreKey(parts: { writeRoot: string; session: string; agent: string }): string {
  const text = [parts.writeRoot, parts.session, parts.agent].join('\0');
  return createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 32);
}

/** `<writeRoot>/.orchestrator/backstop/hooks/<name>`: where the hook keeps the files of `ShellStore`. */
export function shellStorePath(writeRoot: string, name: string): string {
  return `${writeRoot === '/' ? '' : writeRoot}/${ORCHESTRATOR_DIR_NAME}/backstop/hooks/${name}`;
}

/** `<root>/.orchestrator/metrics/events.jsonl` */
export function eventsPath(root: string): string {
  return `${root === '/' ? '' : root}/${EVENTS_FILE}`;
}

/**
 * Resolves where a call is checked and against what, by the write gate's own functions
 * (src/planner/enforce/writeGate.ts): the waves that govern this caller (`governingWaves`: around the
 * project root, around `cwd`), and for each the rules the gate would apply to a write by the same
 * caller (`gateRulesAt`: the agent's own scope for `WAVE_SCOPE_AGENT` or a bound subagent, else the
 * wave's `allowedPaths`; a dispatched agent never changes control state). The snapshot is of the
 * checkout the binding wave's grants apply to. Throws what the gate would throw (the hook blocks).
 */
export function resolveShellContext(payload: ObserverPayload, given: WriteGateHost): ShellContext {
  const host = memoizedHost(given);
  const spelled = payload.cwd ?? host.processCwd;
  const cwd = host.targetFs.realpath(spelled) ?? spelled;
  const caller: GateCaller = {
    cwd,
    sessionIds: payload.sessionIds,
    ...(payload.agentId !== undefined ? { agentId: payload.agentId } : {}),
    ...(payload.transcriptPath !== undefined ? { transcriptPath: payload.transcriptPath } : {}),
    workspaceRoots: payload.workspaceRoots ?? [],
  };
  const { cwdChain, waves } = governingWaves(caller, [], host);
  const own = cwdChain[0];
  const dispatchedAgent = isDispatchedAgent(caller, cwdChain, host.env);
  const session = payload.sessionIds[0] ?? host.env.CLAUDE_CODE_SESSION_ID?.trim() ?? '';
  const keyAt = (location: RepoLocation) => shellStoreKey({ writeRoot: location.writeRoot, session, agent: payload.agentId ?? namedAgentOf(host.env) ?? '' });
  const noWave = (because: 'no-manifest' | 'foreign-session', location: RepoLocation): ShellContext => ({ kind: 'no-wave', because, location, dispatchedAgent, key: keyAt(location) });
  if (waves.length === 0) return own === undefined ? { kind: 'off-repository', cwd } : noWave('no-manifest', own);
  const active = waves.filter((wave) => !(wave.manifest.kind === 'loaded' && wave.manifest.session === 'foreign'));
  const primary = active[0];
  if (primary === undefined) return noWave('foreign-session', own ?? (waves[0] as (typeof waves)[number]).location);
  const { location } = primary;
  // The coordinator's own git commands rewrite git's config and hooks (`git remote add`, a hook
  // installer); for an agent they are control state (and so judged before this exemption).
  const gitFiles = [`${location.writeRoot === '/' ? '' : location.writeRoot}/.git`, location.gitDir, location.commonDir];
  const rules: GateRules[] = waves.map((wave) => gateRulesAt(wave, caller, dispatchedAgent, host));
  const judges: JudgeContext[] = rules.map((rule) => ({ ...rule, coordinatorPaths: [...rule.coordinatorPaths, ...gitFiles] }));
  const binding = rules.find((rule) => rule.wave === primary) as GateRules;
  const agent = binding.agentScope?.agent;
  const manifest = primary.manifest as Exclude<ManifestState, { kind: 'missing' }>;
  const base = { writeRoot: location.writeRoot, session };
  const planSources = active.flatMap((wave) =>
    wave.stateDir === undefined
      ? []
      : [{ root: wave.manifestRoot, stateDir: wave.stateDir, ...(wave.manifest.kind === 'loaded' ? { wave: wave.manifest.manifest.wave } : {}) }],
  );
  return {
    kind: 'checked',
    location,
    manifestRoot: primary.manifestRoot,
    manifest,
    ...(primary.stateDir !== undefined ? { stateDir: primary.stateDir } : {}),
    judges,
    dispatchedAgent,
    planFiles: planFileRequest(planSources),
    key: keyAt(location),
    coordinatorKey: shellStoreKey({ ...base, agent: '' }),
    exclude: backstopExclusions({ writeRoot: location.writeRoot, ...(primary.stateDir !== undefined ? { stateDir: primary.stateDir } : {}), ignoreCase: binding.ignoreCase }),
    ignoreCase: binding.ignoreCase,
    ...(agent !== undefined ? { agent } : {}),
  };
}

/** What the hook keeps between calls: small files by name. */
export interface ShellStore {
  /** The saved text, or undefined when there is none. */
  read(name: string): string | undefined;
  /** Replaces the saved text atomically. */
  write(name: string, text: string): void;
  /** Removes a saved file (a listing no header names any more). */
  remove(name: string): void;
}

/** How the call's window started. */
export type BaselineState =
  /** Compared with this caller's previous call. */
  | 'compared'
  /** A subagent's first call: compared with its coordinator's last call of the session. */
  | 'coordinator'
  /** No previous call: this call only takes the baseline. */
  | 'taken'
  /** The saved snapshot was damaged: nothing could be compared; a new baseline was taken. */
  | 'damaged';

/**
 * The plan files, judged for a dispatched caller only (the coordinator writes the plan): what changed
 * in the window, or `uncompared` when the saved snapshot holds no fingerprints (saved by a version
 * before them); its fingerprints are taken now, for the next call.
 */
export type PlanCheck = { readonly state: 'compared'; readonly changes: readonly PlanFileChange[] } | { readonly state: 'not-judged' } | { readonly state: 'uncompared' };

export interface ShellCheckResult {
  readonly baseline: BaselineState;
  readonly changes: readonly PathChange[];
  readonly plan: PlanCheck;
  /** Absent when nothing was compared (`taken`, `damaged`, `turn-start`). */
  readonly judgement?: ChangeJudgement;
}

// A caller's snapshot is two files: `<key>.snapshot`, the header (rewritten by every call), and
// `<key>.<tag>.index`, the index listing, named by the index checksum it was taken under (or a digest
// of it): a listing never changes under its name, so a header can never be read with the listing of
// another moment, and a call under an unchanged index rewrites only the header.
const headerName = (key: string) => `${key}.snapshot`;
const listingName = (key: string, tag: string) => `${key}.${tag}.index`;
/** The listing's stat data (Snapshot.indexStats), stored beside it: both change with the index only. */
const statsName = (key: string, tag: string) => `${key}.${tag}.stats`;

/**
 * The name a listing is stored under: `c` and what tells its index (SnapshotHost.indexChecksum), or `d` and a
 * digest of the listing itself, which readSaved checks. (Until 2026-12-06 a checksum went unprefixed, and one
 * that began with `d` was checked as a digest: its saved snapshot read as damaged.)
 */
function listingTag(snapshot: Pick<Snapshot, 'indexChecksum' | 'indexListing'>): string {
  return snapshot.indexChecksum !== undefined ? `c${snapshot.indexChecksum}` : `d${createHash('sha256').update(snapshot.indexListing, 'utf8').digest('hex').slice(0, 40)}`;
}

/**
 * The key a nested repository's snapshot (Snapshot.nested) is stored under: the enclosing snapshot's key,
 * `n` and a digest of the nested directory's path, so that it is a file name whatever the path holds.
 */
const nestedKey = (key: string, path: string) => `${key}.n${createHash('sha256').update(path, 'utf8').digest('hex').slice(0, 32)}`;

/** A snapshot as saved: the tag its listing is stored under, and its nested repositories' as saved. */
interface SavedSnapshot {
  readonly snapshot: Snapshot;
  readonly tag: string;
  readonly nested: ReadonlyMap<string, SavedSnapshot>;
}

/**
 * Reads a saved snapshot: undefined when there is none, `damaged` when it cannot be used (it or a nested
 * repository's snapshot the header names).
 */
function readSaved(store: ShellStore, key: string): SavedSnapshot | 'damaged' | undefined {
  const text = store.read(headerName(key));
  if (text === undefined) return undefined;
  const header = parseSnapshotHeader(text);
  if (header === undefined) return 'damaged';
  const listing = store.read(listingName(key, header.listing));
  if (listing === undefined) return 'damaged';
  const { listing: tag, stats, nestedPaths, ...rest } = header;
  // Stat data saved by the version before it is compared by the clock (restatedSince); stat data that the
  // header says was saved and is gone is damage, never a reason to compare by the clock.
  const indexStats = store.read(statsName(key, header.listing));
  if (stats === true && indexStats === undefined) return 'damaged';
  // A listing named by a digest is checked against it; one named by git's index checksum is what git listed under it.
  if (tag.startsWith('d') && listingTag({ indexListing: listing }) !== tag) return 'damaged';
  const nested = new Map<string, SavedSnapshot>();
  for (const path of nestedPaths ?? []) {
    const saved = readSaved(store, nestedKey(key, path));
    if (typeof saved !== 'object') return 'damaged';
    nested.set(path, saved);
  }
  const snapshot: Snapshot = {
    ...rest,
    indexListing: listing,
    ...(indexStats !== undefined ? { indexStats } : {}),
    ...(nestedPaths !== undefined ? { nested: new Map([...nested].map(([path, saved]) => [path, saved.snapshot])) } : {}),
  };
  return { snapshot, tag, nested };
}

/**
 * Saves `current` under `key` over `saved` (what this key held, when it could be read): the listing and its
 * stat data only when the index changed, each nested repository's snapshot under its own key, then the
 * header; then what no header names any more (the old listing, a nested repository gone) is removed.
 */
function saveSnapshot(store: ShellStore, key: string, current: Snapshot, saved: SavedSnapshot | undefined): void {
  const tag = listingTag(current);
  if (saved?.tag !== tag) {
    store.write(listingName(key, tag), current.indexListing);
    if (current.indexStats !== undefined) store.write(statsName(key, tag), current.indexStats);
  }
  for (const [path, nested] of current.nested ?? []) saveSnapshot(store, nestedKey(key, path), nested, saved?.nested.get(path));
  store.write(headerName(key), formatSnapshotHeader(current, tag));
  if (saved !== undefined && saved.tag !== tag) {
    store.remove(listingName(key, saved.tag));
    store.remove(statsName(key, saved.tag));
  }
  for (const path of saved?.nested.keys() ?? []) if (current.nested?.has(path) !== true) forgetStored(store, nestedKey(key, path));
}

/**
 * Removes a saved snapshot's files: what its header names (the listing and its stat data, each nested
 * repository's snapshot, as far as their headers can be read), then the header. A damaged snapshot goes the
 * same way before a new one is saved in its place, so its listing is not left behind under its old name.
 */
function forgetStored(store: ShellStore, key: string): void {
  const text = store.read(headerName(key));
  const header = text === undefined ? undefined : parseSnapshotHeader(text);
  if (header !== undefined) {
    for (const path of header.nestedPaths ?? []) forgetStored(store, nestedKey(key, path));
    store.remove(listingName(key, header.listing));
    store.remove(statsName(key, header.listing));
  }
  store.remove(headerName(key));
}

/**
 * Takes this call's snapshot, compares it with the saved one (when `compare`), saves it for the next
 * call, and judges what changed. The snapshot is saved whatever the verdict: each change is
 * reported once, to the first call that sees it.
 */
export async function checkShellCall(
  context: Extract<ShellContext, { kind: 'checked' }>,
  input: { compare: boolean; watchIgnored: readonly string[] },
  host: { snapshot: SnapshotHost; store: ShellStore; planFiles?: (request: PlanFileRequest, previous?: PlanFingerprints) => PlanFingerprints },
): Promise<ShellCheckResult> {
  const own = readSaved(host.store, context.key);
  const fallback = own === undefined && context.key !== context.coordinatorKey ? readSaved(host.store, context.coordinatorKey) : undefined;
  const saved = own ?? fallback;
  const previous = typeof saved === 'object' ? saved.snapshot : undefined;
  const tree = await takeSnapshot(host.snapshot, {
    exclude: context.exclude,
    watchIgnored: input.watchIgnored,
    ignoreCase: context.ignoreCase,
    ...(previous !== undefined ? { previous } : {}),
  });
  // Every caller's snapshot holds them, the coordinator's too: a subagent's first call compares with it.
  const planFiles = host.planFiles?.(context.planFiles, previous?.planFiles);
  const current: Snapshot = planFiles !== undefined ? { ...tree, planFiles } : tree;
  if (own === 'damaged') forgetStored(host.store, context.key);
  saveSnapshot(host.store, context.key, current, typeof own === 'object' ? own : undefined);
  const notJudged: PlanCheck = { state: 'not-judged' };
  if (!input.compare) return { baseline: 'taken', changes: [], plan: notJudged };
  if (saved === undefined) return { baseline: 'taken', changes: [], plan: notJudged };
  if (saved === 'damaged' || previous === undefined) return { baseline: 'damaged', changes: [], plan: notJudged };
  const diff = diffSnapshots(previous, current, { exclude: context.exclude });
  const plan: PlanCheck =
    !context.dispatchedAgent || planFiles === undefined
      ? notJudged
      : previous.planFiles === undefined
        ? { state: 'uncompared' }
        : { state: 'compared', changes: comparePlanFiles(context.planFiles, previous.planFiles, planFiles) };
  return {
    baseline: own !== undefined ? 'compared' : 'coordinator',
    changes: diff.changes,
    plan,
    judgement: judgeChangesStrictest(diff.changes, context.judges, context.location.writeRoot),
  };
}

/**
 * For a dispatched caller whose call finds no wave to check (no manifest, or one made another session's):
 * how the plan files its own last call fingerprinted have changed since, or undefined when that call held
 * none (it found no plan either, or there was none). Removing the manifest, or rewriting it as another
 * session's, is how a shell would turn every later check off at once, the write gate's too, and the call
 * would otherwise answer nothing; so the plan is compared with what the caller was last held to. The saved
 * tree is left as it is (a call with nothing to judge it against must not move it: once a plan is back, its
 * first call judges the whole window); only the plan's fingerprints are saved anew, so that each change is
 * reported once.
 */
export function planFilesGone(
  context: Extract<ShellContext, { kind: 'no-wave' }>,
  host: { store: ShellStore; planFiles: (request: PlanFileRequest, previous?: PlanFingerprints) => PlanFingerprints },
): PlanFileChange[] | undefined {
  if (!context.dispatchedAgent) return undefined;
  const saved = readSaved(host.store, context.key);
  if (typeof saved !== 'object' || saved.snapshot.planFiles === undefined || saved.snapshot.planFiles.size === 0) return undefined;
  const before = saved.snapshot.planFiles;
  const request = planFileRequestOf(before);
  const now = host.planFiles(request, before);
  const changes = comparePlanFiles(request, before, now);
  if (changes.length > 0) saveSnapshot(host.store, context.key, { ...saved.snapshot, planFiles: now }, saved);
  return changes;
}

/** The telemetry record of one hook call: counts and closed values only, never a path. */
export interface ShellCheckEvent {
  readonly event: 'wave_scope.backstop.shell_checked';
  readonly at: string;
  readonly hook: ShellHookName;
  readonly agent_cli: string;
  readonly wave?: number;
  readonly scope: 'agent' | 'wave' | 'none';
  readonly dispatched: boolean;
  readonly baseline: BaselineState | 'skipped';
  readonly created: number;
  readonly modified: number;
  readonly deleted: number;
  readonly out_of_scope: number;
  /** Plan files a dispatched caller's window changed. */
  readonly plan_changed: number;
  readonly decision: 'allow' | 'warn' | 'block';
  readonly duration_ms: number;
}

/** Builds the telemetry record of one call. */
export function shellCheckEvent(input: {
  at: Date;
  hook: ShellHookName;
  agentCli: string;
  context?: Extract<ShellContext, { kind: 'checked' }>;
  result?: ShellCheckResult;
  decision: 'allow' | 'warn' | 'block';
  durationMs: number;
}): ShellCheckEvent {
  const changes = input.result?.changes ?? [];
  const count = (kind: PathChange['kind']) => changes.filter((change) => change.kind === kind).length;
  const judgement = input.result?.judgement;
  const outOfScope = judgement !== undefined && (judgement.verdict === 'out-of-scope' || judgement.verdict === 'warn') ? judgement.violations.length : judgement?.verdict === 'invalid-manifest' ? changes.length : 0;
  const manifest = input.context?.manifest;
  return {
    event: 'wave_scope.backstop.shell_checked',
    at: input.at.toISOString(),
    hook: input.hook,
    agent_cli: input.agentCli,
    ...(manifest?.kind === 'loaded' ? { wave: manifest.manifest.wave } : {}),
    scope: input.context === undefined ? 'none' : input.context.agent !== undefined ? 'agent' : 'wave',
    dispatched: input.context?.dispatchedAgent ?? false,
    baseline: input.result?.baseline ?? 'skipped',
    created: count('created'),
    modified: count('modified'),
    deleted: count('deleted'),
    out_of_scope: outOfScope,
    plan_changed: input.result?.plan.state === 'compared' ? input.result.plan.changes.length : 0,
    decision: input.decision,
    duration_ms: Math.round(input.durationMs),
  };
}

/** What the hook tells the agent CLI. */
export type ShellVerdict =
  | { readonly decision: 'allow' }
  | { readonly decision: 'warn'; readonly message: string }
  | { readonly decision: 'block'; readonly reason: string };

/**
 * The stdout text answering `verdict` ('' = nothing). Claude Code and Codex read the same shapes:
 * `{"decision": "block", "reason"}` feeds the reason back to the agent after a tool call and keeps a
 * turn from ending at Stop; `{"systemMessage"}` shows a notice. A Stop hook already running because
 * of an earlier block (`stop_hook_active`) only shows the notice, so a change the agent cannot undo
 * never traps it in its turn. At turn start nothing is printed (stdout there becomes prompt context).
 */
export function formatShellReply(hook: ShellHookName, verdict: ShellVerdict, options: { stopHookActive: boolean }): string {
  if (hook === 'turn-start' || verdict.decision === 'allow') return '';
  if (verdict.decision === 'warn') return `${JSON.stringify({ systemMessage: verdict.message })}\n`;
  if (hook === 'stop' && options.stopHookActive) return `${JSON.stringify({ systemMessage: verdict.reason })}\n`;
  return `${JSON.stringify({ decision: 'block', reason: verdict.reason })}\n`;
}
