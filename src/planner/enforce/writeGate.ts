// The write gate as one call: from a parsed hook payload to a decision, reading only the handful of
// small files the decision needs (no repository scan, no process spawn). The file system reaches it
// through `WriteGateHost`; `src/node/hookFileSystem.ts` has the Node implementation.
//
// Which waves govern a write. Not only the innermost repository around the payload's `cwd`: an agent
// that can plant a `.git` and a manifest in its own scope would otherwise choose its own rules. Every
// repository around the session's project root (`CLAUDE_PROJECT_DIR` and its equivalents), around
// `cwd`, and around every place the write lands, up to `/`, is looked at, and every wave found there
// decides; the strictest answer stands. So a manifest nested inside another checkout can only add
// restrictions, and the wave that binds the session (the project root's, else the outermost found)
// is the one whose per-agent scopes apply.
//
// Whose scope applies. `WAVE_SCOPE_AGENT` names an agent: its own scope file. A Claude Code subagent
// (`agent_id`): the dispatch the ledger ties it to (docs/hooks.md, "Each subagent in its own scope"),
// which can only narrow the wave's union. Anyone else: the wave's `allowedPaths`.
//
// The backstop's hooks (src/planner/backstop/shellCheck.ts) judge a shell call's changes by the same
// functions (`governingWaves`, `gateRulesAt`, `decideUnderRules`), so the two never disagree about which
// wave and which scope govern a path.
import type { SubagentScope } from '../dispatch/subagentBinding';
import type { WriteRequest } from './hookPayloads';
import { locateRepositories, ownFilesBelow } from './repoLocation';
import type { LocateFileSystem, RepoLocation } from './repoLocation';
import { hooksDirectories, scanGitConfig } from './gitConfig';
import { isAgentId } from '../plan/agentId';
import { CONTROL_STATE } from '../plan/controlState';
import { processLocalSessionIds } from '../plan/sessionBinding';
import { relativeAgentScopePath, relativeWaveDirPath, relativeWaveSidecarPath } from '../plan/declarationPaths';
import { resolveStateDir } from '../plan/stateDir';
import type { StateDirFs } from '../plan/stateDir';
import { FILESCOPES_DIR_NAME, MANIFEST_FILE_NAME, ORCHESTRATOR_DIR_NAME } from '../plan/stateDirNames';
import { expandTestSiblings } from '../scope/testSiblings';
import type { TestSiblingOptions } from '../scope/testSiblings';
import type { WaveRival } from '../scope/testSiblings';
import { decideWrite, literalEntriesOverlap, provenIgnoringCase } from './writeDecision';
import type { AgentScopeState, ManifestState, WriteDecision, WriteDecisionInput } from './writeDecision';
import { locateDestinations, memoizedTargetFileSystem, resolveWriteDestinations } from './writeTarget';
import type { FileSystemFolding, ResolvedWriteTarget, TargetFileSystem, WriteDestinations } from './writeTarget';

/** What the gate asks about a subagent's write: which dispatch it belongs to (src/node/subagentScope.ts answers). */
export interface SubagentScopeQuery {
  /** The coordinator's checkout, where `.orchestrator/` (and the session's ledger) lives. */
  readonly root: string;
  /** The payload's `session_id` (a subagent's hooks carry the session's own id). */
  readonly sessionId?: string;
  /** The payload's `agent_id`. */
  readonly agentId?: string;
  /** The payload's `transcript_path` (the session's transcript); the ledger's is used when absent. */
  readonly transcriptPath?: string;
  /**
   * Asked where no wave of the session is in force (whether the subagent was dispatched in one): nothing
   * is counted, so a checkout without any plan gains no files.
   */
  readonly uncounted?: boolean;
}

export interface WriteGateHost {
  readonly targetFs: TargetFileSystem;
  readonly locateFs: LocateFileSystem;
  /** Canonical path of an existing directory; throws when it does not exist. */
  canonicalDirectory(path: string): string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The directory the hook process runs in (used when the payload names no cwd). */
  readonly processCwd: string;
  readonly platform: 'posix' | 'win32';
  /** The home directory (`~` in Codex paths and in git config values), when there is one. */
  readonly homeDir?: string;
  /** What the file system folds when it compares names (writeTarget.ts, defaultFolding). */
  readonly folding?: FileSystemFolding;
  /**
   * The dispatch a subagent's write belongs to (src/node/subagentScope.ts, `readSubagentScope`). Without
   * it a subagent is held to the wave's union. Must not throw (a failure answers `union`).
   */
  subagentScope?(query: SubagentScopeQuery): SubagentScope;
}

/** The agent a process was started as (`WAVE_SCOPE_AGENT`, trimmed), or undefined when it names none. */
export function namedAgentOf(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const named = env.WAVE_SCOPE_AGENT?.trim();
  return named === undefined || named === '' ? undefined : named;
}

/**
 * A dispatched agent that no wave of its session governs: its plan was taken away (a shell can move the
 * manifest, or rewrite the session it names, and with it every check), or the agent runs where no plan ever
 * was. Nothing can say what it may write, so it may write nothing: the gate fails closed. `named`: started
 * as an agent of a wave (`WAVE_SCOPE_AGENT`); `dispatched`: a subagent the session's ledger ties to a
 * dispatch made in `wave`.
 */
export type NoPlanDecision =
  | { readonly decision: 'deny-no-plan'; readonly via: 'named'; readonly agent: string }
  | { readonly decision: 'deny-no-plan'; readonly via: 'dispatched'; readonly agent: string; readonly wave: number };

/** Everything the gate found on its way to the decision; the CLI turns it into a reply. */
export interface WriteGateResult {
  readonly decision: WriteDecision | NoPlanDecision;
  readonly location?: RepoLocation;
  /** The state directory whose manifest decided (absolute), when one did. */
  readonly stateDir?: string;
  /** Whose scope the deciding wave applied. */
  readonly scopeSource?: ScopeSource;
  /** What the subagent binding answered, when the caller is a subagent. */
  readonly subagent?: SubagentScope;
}

/** The environment variables agent CLIs set to the session's project directory in a hook. */
export const PROJECT_DIR_VARIABLES: readonly string[] = ['CLAUDE_PROJECT_DIR', 'GEMINI_PROJECT_DIR', 'CURSOR_PROJECT_DIR', 'CODEX_PROJECT_DIR'];

function joinPath(base: string, rest: string): string {
  return base === '/' ? `/${rest}` : `${base}/${rest}`;
}

function parentOf(path: string): string {
  const cut = path.lastIndexOf('/');
  return cut <= 0 ? '/' : path.slice(0, cut);
}

interface FoundManifest {
  readonly state: ManifestState;
  readonly stateDir?: string;
}

/**
 * The manifest that decides for this process, through the declarations' state-dir resolution (the
 * first candidate not provably another session's). A manifest that exists but cannot be used decides,
 * and decides deny, whatever session it names: its binding cannot be trusted when the rest is broken.
 * It is read as Wave Scope's own files are (`readOwnFile`): one reached through a link, or with a
 * second name, cannot be used.
 */
export function findManifest(root: string, ownIds: ReadonlySet<string>, fs: LocateFileSystem): FoundManifest {
  const resolution = resolveStateDir(root, ownIds, ownFilesBelow(root, fs));
  if (!resolution.found) return { state: { kind: 'missing' } };
  const { stateDir, manifestPath: path } = resolution;
  if (resolution.problem !== undefined || resolution.manifest === undefined) {
    const problems = resolution.problem?.errors ?? [resolution.problem?.message ?? 'is not a wave manifest'];
    return { stateDir, state: { kind: 'invalid', path, problems } };
  }
  return { stateDir, state: { kind: 'loaded', path, manifest: resolution.manifest, session: resolution.session } };
}

function readJson(path: string, fs: StateDirFs): { text?: string; value?: unknown; problem?: string } {
  let text: string | undefined;
  try {
    text = fs.readText(path);
  } catch (error) {
    return { problem: `cannot be read: ${(error as Error).message}` };
  }
  if (text === undefined) return {};
  try {
    return { text, value: JSON.parse(text) as unknown };
  } catch {
    return { text, problem: 'is not valid JSON' };
  }
}

/**
 * Reads one agent's own scope file, trusted only as far as the wave's aggregate backs it: the
 * aggregate `wave-<N>.scopes.json` must exist and hold a record for this agent with exactly these
 * entries (docs/file-formats.md: a reader trusts no per-agent file without its aggregate). Any
 * problem makes it `unusable` (no scope, no write). The hooks pass a reader of Wave Scope's own files
 * (`ownFilesBelow`), so a scope file or aggregate reached through a link, or with a second name, is a
 * problem too.
 */
export function readAgentScope(stateDir: string, wave: number, agent: string, fs: StateDirFs): AgentScopeState {
  // Agent ids become file names: only a valid id is looked up, so `WAVE_SCOPE_AGENT=../x` cannot pick a file.
  if (!isAgentId(agent)) {
    return { kind: 'unusable', agent, path: joinPath(stateDir, relativeWaveDirPath(wave)), problem: 'WAVE_SCOPE_AGENT is not a plain agent id' };
  }
  const path = joinPath(stateDir, relativeAgentScopePath(wave, agent));
  const own = readJson(path, fs);
  if (own.problem !== undefined) return { kind: 'unusable', agent, path, problem: own.problem };
  if (own.text === undefined) return { kind: 'unusable', agent, path, problem: 'does not exist' };
  const entries = own.value;
  if (!Array.isArray(entries) || !entries.every((entry) => typeof entry === 'string')) {
    return { kind: 'unusable', agent, path, problem: 'is not a JSON array of path strings' };
  }
  const aggregate = readAggregate(stateDir, wave, fs);
  const unbacked = (why: string): AgentScopeState => ({ kind: 'unusable', agent, path, problem: `is not backed by the wave's aggregate ${aggregate.path}, which ${why}` });
  if ('why' in aggregate) return unbacked(aggregate.why);
  // One pass: the agent's own record, and the other agents, which decide which of its test siblings are its
  // own. A record that cannot be read could claim any of them, so the scope is refused rather than judged
  // without it.
  const declared: unknown[] = [];
  const rivals: WaveRival[] = [];
  let unreadable = false;
  for (const record of aggregate.records) {
    const { id, files } = (typeof record === 'object' && record !== null ? record : {}) as { id?: unknown; files?: unknown };
    if (id === agent) {
      declared.push(files);
      continue;
    }
    const rival = aggregateRecord(record);
    if (rival === undefined) unreadable = true;
    else rivals.push(rival);
  }
  if (declared.length !== 1) return unbacked(declared.length === 0 ? 'declares no such agent' : 'declares this agent more than once');
  if (JSON.stringify(declared[0]) !== JSON.stringify(entries)) return unbacked("declares different entries for this agent");
  if (unreadable) return unbacked('holds a record that is not {"id", "files"}');
  return { kind: 'loaded', agent, path, entries, rivals };
}

/** One record of an aggregate as an agent and its entries; undefined when it is not `{"id", "files"}`. */
function aggregateRecord(record: unknown): WaveRival | undefined {
  const { id, files } = (typeof record === 'object' && record !== null ? record : {}) as { id?: unknown; files?: unknown };
  return typeof id === 'string' && Array.isArray(files) && files.every((file) => typeof file === 'string') ? { agent: id, entries: files } : undefined;
}

/** The records of a wave's aggregate (`wave-<N>.scopes.json`) as JSON values, or why there are none. */
function readAggregate(stateDir: string, wave: number, fs: StateDirFs): { path: string; records: unknown[] } | { path: string; why: string } {
  const path = joinPath(stateDir, relativeWaveSidecarPath(wave));
  const sidecar = readJson(path, fs);
  if (sidecar.problem !== undefined) return { path, why: sidecar.problem };
  if (sidecar.text === undefined) return { path, why: 'does not exist (the declaration is incomplete or was removed)' };
  if (!Array.isArray(sidecar.value)) return { path, why: 'is not a JSON array of {"id", "files"} records' };
  return { path, records: sidecar.value };
}

/**
 * The scope of a subagent bound only to its dispatch claim: the claim's entries, with as rivals for its test
 * siblings every declared agent of the wave and the session's other dispatches of the wave (`peers`), except
 * those a literal entry of the claim overlaps: a claim handed an agent's own files works for that agent, and
 * a dispatch overlapping it is a retry of the same work or one the guard judged finished. Without a readable
 * aggregate the claim has no scope: a record that cannot be read could claim any sibling.
 */
function claimScope(stateDir: string, wave: number, subagent: SubagentScope & { kind: 'bound' }, ledgerDir: string, fs: StateDirFs): AgentScopeState {
  const agent = subagent.placed.record.id;
  const aggregate = readAggregate(stateDir, wave, fs);
  const refused = (why: string): AgentScopeState => ({ kind: 'unusable', agent, path: ledgerDir, problem: `cannot be judged against the wave's agents: its aggregate ${aggregate.path} ${why}` });
  if ('why' in aggregate) return refused(aggregate.why);
  const declared = aggregate.records.map(aggregateRecord);
  if (declared.includes(undefined)) return refused('holds a record that is not {"id", "files"}');
  const overlapsClaim = (rival: WaveRival) => rival.entries.some((entry) => subagent.files.some((claimed) => literalEntriesOverlap(entry, claimed)));
  const rivals = [...(declared as WaveRival[]), ...subagent.peers].filter((rival) => !overlapsClaim(rival));
  return { kind: 'loaded', agent, path: ledgerDir, entries: subagent.files, origin: 'dispatch', rivals };
}

/** The deepest existing directory on the way to each destination: where the repositories around it are looked for. */
function existingDirectoriesOf(destinations: readonly WriteDestinations[], fs: TargetFileSystem): string[] {
  const dirs = new Set<string>();
  for (const destination of destinations) {
    if (destination.kind === 'invalid') continue;
    for (const path of [...destination.paths, ...destination.spelled]) {
      let dir = parentOf(path);
      for (let depth = 0; depth < 4096; depth += 1) {
        const real = fs.realpath(dir);
        if (real !== undefined) {
          dirs.add(real);
          break;
        }
        if (dir === '/') break;
        dir = parentOf(dir);
      }
    }
  }
  return [...dirs];
}

/** Who is calling, as the gate reads it from a hook payload (the backstop's hooks read the same fields). */
export interface GateCaller {
  /** The payload's working directory, canonical (the hook process's own when the payload names none). */
  readonly cwd: string;
  /** Session ids the payload carries. */
  readonly sessionIds: readonly string[];
  /** The payload's `agent_id`: present only inside a subagent. */
  readonly agentId?: string;
  /** The payload's `transcript_path` (the session's transcript), for the subagent binding. */
  readonly transcriptPath?: string;
  /** Cursor's `workspace_roots`. */
  readonly workspaceRoots: readonly string[];
}

/** One wave that governs a write, with the checkout its relative grants apply to. */
export interface GoverningWave {
  /** Canonical coordinator checkout whose state directories hold this wave. */
  readonly manifestRoot: string;
  /** The checkout the wave's relative grants apply to (`location.writeRoot`). */
  readonly location: RepoLocation;
  readonly manifest: ManifestState;
  /** The state directory whose manifest this is (absolute). */
  readonly stateDir?: string;
  /** True for the one wave that binds the session (its per-agent scopes apply). */
  readonly binding: boolean;
}

/** Whether a string names an absolute directory that exists, canonical. */
function canonicalOrUndefined(path: string | undefined, host: WriteGateHost): string | undefined {
  if (path === undefined || !path.startsWith('/')) return undefined;
  try {
    return host.canonicalDirectory(path);
  } catch {
    return undefined;
  }
}

/** The session's project roots, canonical: the agent CLIs' project directory variables and Cursor's `workspace_roots`. */
function projectRootsOf(caller: GateCaller, host: WriteGateHost): string[] {
  return [...PROJECT_DIR_VARIABLES.map((name) => host.env[name]), ...caller.workspaceRoots]
    .map((path) => canonicalOrUndefined(path, host))
    .filter((path): path is string => path !== undefined);
}

/** One target's destinations under several bases, as one: every place it may land; invalid when any reading is. */
function mergedDestinations(readings: readonly WriteDestinations[]): WriteDestinations {
  const invalid = readings.find((reading) => reading.kind === 'invalid');
  if (invalid !== undefined || readings.length === 1) return invalid ?? (readings[0] as WriteDestinations);
  const resolved = readings as ReadonlyArray<Extract<WriteDestinations, { kind: 'resolved' }>>;
  return {
    kind: 'resolved',
    raw: resolved[0]?.raw ?? '',
    spelled: [...new Set(resolved.flatMap((reading) => reading.spelled))],
    paths: [...new Set(resolved.flatMap((reading) => reading.paths))],
  };
}

/**
 * Every wave that governs a write by `caller` landing at `destinations` (none, for a check of the
 * caller's own checkout), the binding one first, and the repositories around `cwd`. For each manifest
 * root, the relative grants apply to the checkout the caller works in when it shares that manifest
 * (an isolated agent's worktree), else to the innermost checkout around a destination that shares
 * it, else to the project root's. The backstop's hooks call this too, so the two never disagree
 * about which waves govern a path.
 */
export function governingWaves(
  caller: GateCaller,
  destinations: readonly WriteDestinations[],
  host: WriteGateHost,
  /** projectRootsOf(caller, host), when the caller has them already. */
  projectRoots: readonly string[] = projectRootsOf(caller, host),
): { readonly cwdChain: readonly RepoLocation[]; readonly waves: readonly GoverningWave[] } {
  const ownIds = processLocalSessionIds({ payloadSessionIds: [...caller.sessionIds], env: host.env });
  const cwdChain = locateRepositories(caller.cwd, host.locateFs);
  const projectChains = [...new Set(projectRoots)].map((root) => locateRepositories(root, host.locateFs));
  const targetChains = existingDirectoriesOf(destinations, host.targetFs).map((dir) => locateRepositories(dir, host.locateFs));

  const realRoot = new Map<string, string>();
  const manifestRootOf = (location: RepoLocation) => {
    let root = realRoot.get(location.manifestRoot);
    if (root === undefined) {
      root = host.targetFs.realpath(location.manifestRoot) ?? location.manifestRoot;
      realRoot.set(location.manifestRoot, root);
    }
    return root;
  };
  const pick = (root: string): RepoLocation | undefined =>
    cwdChain.find((location) => manifestRootOf(location) === root) ??
    targetChains.flatMap((chain) => chain).find((location) => manifestRootOf(location) === root) ??
    projectChains.flatMap((chain) => chain).find((location) => manifestRootOf(location) === root);

  // The binding wave first: the project root's (innermost outward), else the outermost around cwd,
  // else the outermost around a destination. The rest follow in no particular order of precedence:
  // each of them can only refuse.
  const ordered: string[] = [];
  const add = (root: string) => {
    if (!ordered.includes(root)) ordered.push(root);
  };
  for (const chain of projectChains) for (const location of chain) add(manifestRootOf(location));
  for (const location of [...cwdChain].reverse()) add(manifestRootOf(location));
  for (const chain of targetChains) for (const location of [...chain].reverse()) add(manifestRootOf(location));

  // A process started as an agent of a wave (WAVE_SCOPE_AGENT) is held to the wave it finds whatever session
  // the manifest names: the binding keeps one coordinator's wave off a peer coordinator's session, but an
  // agent CLI that `run` starts has a session of its own, which the coordinator's manifest never names, and
  // a manifest rewritten with another id would otherwise set the agent free.
  const namedAgent = namedAgentOf(host.env) !== undefined;
  const waves: GoverningWave[] = [];
  for (const root of ordered) {
    const found = findManifest(root, ownIds, host.locateFs);
    if (found.state.kind === 'missing') continue;
    const location = pick(root);
    if (location === undefined) continue;
    const manifest: ManifestState = namedAgent && found.state.kind === 'loaded' && found.state.session === 'foreign' ? { ...found.state, session: 'unknown' } : found.state;
    waves.push({ manifestRoot: root, location, manifest, ...(found.stateDir !== undefined ? { stateDir: found.stateDir } : {}), binding: waves.length === 0 });
  }
  return { cwdChain, waves };
}

/** Where each control path of a root really leads, when a link is on its way (both ends are control state). */
function resolvedControlPaths(roots: readonly string[], extra: readonly string[], host: WriteGateHost): string[] {
  const paths = new Set<string>(extra);
  const literal = CONTROL_STATE.map((control) => control.entry.replace(/\/+$/, '')).filter((entry) => !/[*?[\]{}]/.test(entry));
  for (const root of new Set(roots)) {
    // Entries under a first segment that is not there (no entry, no link) cannot lead anywhere else.
    const present = new Map<string, boolean>();
    for (const entry of new Set(literal)) {
      paths.add(joinPath(root, entry));
      const first = entry.split('/')[0] as string;
      if (!present.has(first)) {
        const path = joinPath(root, first);
        present.set(first, host.targetFs.realpath(path) !== undefined || host.targetFs.readlink(path) !== undefined);
      }
      if (present.get(first) !== true) continue;
      const resolved = resolveWriteDestinations(entry, { cwd: root, readings: [{ dotDot: 'kernel', expandTilde: false }], fs: host.targetFs });
      if (resolved.kind === 'resolved') for (const path of resolved.paths) paths.add(path);
    }
  }
  for (const path of extra) {
    const resolved = resolveWriteDestinations(path, { readings: [{ dotDot: 'kernel', expandTilde: false }], fs: host.targetFs });
    if (resolved.kind === 'resolved') for (const real of resolved.paths) paths.add(real);
  }
  return [...paths];
}

/** The destinations of a list of absolute paths, links followed, the paths themselves kept. */
function resolvedPaths(paths: readonly string[], host: WriteGateHost): string[] {
  const all = new Set<string>(paths);
  for (const path of paths) {
    const resolved = resolveWriteDestinations(path, { readings: [{ dotDot: 'kernel', expandTilde: false }], fs: host.targetFs });
    if (resolved.kind === 'resolved') for (const real of resolved.paths) all.add(real);
  }
  return [...all];
}

/** The control state of one checkout for a dispatched agent, and whether its repository folds case. */
export interface CheckoutControl {
  /**
   * Canonical absolute control paths beyond the catalogue's repository-relative entries: git's
   * directories, every hooks directory git may run, every config file git may read, and where each
   * catalogue path of both roots really leads.
   */
  readonly controlPaths: readonly string[];
  /** `core.ignorecase` is surely true (GitConfigScan.ignoreCase): what lets a write in folds case. */
  readonly ignoreCase: boolean;
  /** `core.ignorecase` may be true (GitConfigScan.mayIgnoreCase): what refuses a write folds case. */
  readonly mayIgnoreCase: boolean;
}

/**
 * Reads git's configuration for `location` (without git) and computes the control paths of the
 * checkout and its coordinator's (`manifestRoot`). `dispatchedAgent: false` skips the link
 * resolution (the coordinator has no control-file restriction). The gate, `wave-scope run` and the
 * backstop's hooks all take their control paths from here.
 */
export function checkoutControl(input: { location: RepoLocation; manifestRoot: string; dispatchedAgent: boolean }, host: WriteGateHost): CheckoutControl {
  const { location, manifestRoot } = input;
  const roots = [manifestRoot, location.writeRoot];
  const config = scanGitConfig({
    commonDir: location.commonDir,
    gitDir: location.gitDir,
    env: host.env,
    ...(host.homeDir !== undefined ? { homeDir: host.homeDir } : {}),
    fs: host.locateFs,
    roots,
  });
  // A linked worktree's `commondir` names the coordinator's checkout: where it really leads is control state too.
  const pointers = location.linkedWorktree ? [joinPath(location.gitDir, 'commondir')] : [];
  const controlPaths = input.dispatchedAgent
    ? resolvedControlPaths(roots, [location.gitDir, location.commonDir, ...pointers, ...hooksDirectories(config.hooksPaths, roots, host.homeDir), ...config.files], host)
    : [];
  return { controlPaths, ignoreCase: config.ignoreCase, mayIgnoreCase: config.mayIgnoreCase };
}

/** How the caller's own scope was found, for one wave. */
export type ScopeSource =
  /** The wave's `allowedPaths` (no agent is named). */
  | 'wave'
  /** `WAVE_SCOPE_AGENT`: that agent's own scope file. */
  | 'agent'
  /** A subagent bound to a dispatch that named a declared agent of this wave: that agent's scope file. */
  | 'subagent-agent'
  /** A subagent bound to a dispatch: the dispatch's claim, inside `allowedPaths`. */
  | 'subagent-claim'
  /** A subagent the ledger cannot tie to a dispatch: the wave's `allowedPaths` (the fallback is counted). */
  | 'subagent-union';

/** What one decision reads besides the targets (`decideUnderRules`): the gate's rules for one wave and caller. */
export interface DecisionRules extends Omit<WriteDecisionInput, 'targets' | 'expandEntries'> {
  /** The wave's role: an agent's own scope gets the test siblings the wave's union gave it. */
  readonly role?: string;
}

/** Everything one wave's decision reads besides the targets, and where it came from. */
export interface GateRules extends DecisionRules {
  readonly wave: GoverningWave;
  readonly coordinatorPaths: readonly string[];
  readonly ignoreCase: boolean;
  readonly mayIgnoreCase: boolean;
  readonly scopeSource: ScopeSource;
  /** What the subagent binding answered, when the caller is a subagent of the binding wave. */
  readonly subagent?: SubagentScope;
}

/** Whether the caller is a dispatched agent: a subagent's payload, `WAVE_SCOPE_AGENT`, or a linked worktree. */
export function isDispatchedAgent(caller: GateCaller, cwdChain: readonly RepoLocation[], env: WriteGateHost['env']): boolean {
  return caller.agentId !== undefined || namedAgentOf(env) !== undefined || cwdChain[0]?.linkedWorktree === true;
}

/**
 * The caller's own scope in the binding wave. `WAVE_SCOPE_AGENT` names an agent: its scope file. A
 * subagent (`agent_id`): what the dispatch ledger ties it to (`host.subagentScope`): a dispatch that
 * named a declared agent of this wave, that agent's scope file, exactly as for `WAVE_SCOPE_AGENT`;
 * any other dispatch, its claim, which decideWrite checks against `allowedPaths` too (a binding only
 * narrows: the ledger lies in `.orchestrator/`, control state, but a claim is the coordinator's prose,
 * never a grant); no link, the union.
 */
function ownScope(
  wave: GoverningWave,
  caller: GateCaller,
  host: WriteGateHost,
): { agentScope?: AgentScopeState; scopeSource: ScopeSource; subagent?: SubagentScope } {
  const { manifest, stateDir } = wave;
  if (!wave.binding || manifest.kind !== 'loaded' || manifest.session === 'foreign' || stateDir === undefined) return { scopeSource: 'wave' };
  const files = ownFilesBelow(wave.manifestRoot, host.locateFs);
  const named = namedAgentOf(host.env);
  if (named !== undefined) return { agentScope: readAgentScope(stateDir, manifest.manifest.wave, named, files), scopeSource: 'agent' };
  if (caller.agentId === undefined || host.subagentScope === undefined) return { scopeSource: 'wave' };
  const subagent = host.subagentScope(subagentQuery(wave.manifestRoot, caller));
  if (subagent.kind === 'union') return { scopeSource: 'subagent-union', subagent };
  if (subagent.agent !== undefined && subagent.wave === manifest.manifest.wave) {
    return { agentScope: readAgentScope(stateDir, manifest.manifest.wave, subagent.agent, files), scopeSource: 'subagent-agent', subagent };
  }
  // Where the claim was read: the session's ledger lives there (its file name is the dispatch room's business).
  const ledgerDir = joinPath(wave.manifestRoot, ORCHESTRATOR_DIR_NAME);
  return { agentScope: claimScope(stateDir, manifest.manifest.wave, subagent, ledgerDir, files), scopeSource: 'subagent-claim', subagent };
}

/** The rules one governing wave applies to `caller`. The gate and the backstop's hooks both take them from here. */
export function gateRulesAt(wave: GoverningWave, caller: GateCaller, dispatchedAgent: boolean, host: WriteGateHost): GateRules {
  const { location, manifest, manifestRoot, stateDir } = wave;
  const control = checkoutControl({ location, manifestRoot, dispatchedAgent }, host);
  const own = ownScope(wave, caller, host);
  const role = manifest.kind === 'loaded' ? manifest.manifest.role : undefined;
  const coordinatorPaths = stateDir !== undefined ? resolvedPaths([joinPath(stateDir, MANIFEST_FILE_NAME), joinPath(stateDir, FILESCOPES_DIR_NAME)], host) : [];
  return {
    wave,
    manifest,
    ...(own.agentScope !== undefined ? { agentScope: own.agentScope } : {}),
    ...(role !== undefined ? { role } : {}),
    dispatchedAgent,
    controlPaths: control.controlPaths,
    coordinatorPaths,
    writeRoot: location.writeRoot,
    ignoreCase: control.ignoreCase,
    mayIgnoreCase: control.mayIgnoreCase,
    scopeSource: own.scopeSource,
    ...(own.subagent !== undefined ? { subagent: own.subagent } : {}),
  };
}

/** `decideWrite` for one wave's rules and already-located targets. */
export function decideUnderRules(rules: DecisionRules, targets: readonly ResolvedWriteTarget[]): WriteDecision {
  const { role } = rules;
  return decideWrite({
    targets,
    manifest: rules.manifest,
    ...(rules.agentScope !== undefined ? { agentScope: rules.agentScope } : {}),
    // The agent's own scope gets the same test siblings the wave's union gave it.
    ...(role !== undefined ? { expandEntries: (entries: readonly string[], namedLike?: TestSiblingOptions['namedLike']) => expandTestSiblings(entries, { role, ...(namedLike !== undefined ? { namedLike } : {}) }) } : {}),
    dispatchedAgent: rules.dispatchedAgent,
    controlPaths: rules.controlPaths,
    ...(rules.coordinatorPaths !== undefined ? { coordinatorPaths: rules.coordinatorPaths } : {}),
    writeRoot: rules.writeRoot,
    ...(rules.ignoreCase !== undefined ? { ignoreCase: rules.ignoreCase && provenIgnoringCase(rules.manifest) } : {}),
    ...(rules.mayIgnoreCase !== undefined ? { mayIgnoreCase: rules.mayIgnoreCase } : {}),
  });
}

const SEVERITY: Record<WriteDecision['decision'], number> = { allow: 0, warn: 1, deny: 2, 'deny-invalid-manifest': 3 };

/** Whether `a` is a stricter answer than `b`. */
export function stricter(a: WriteDecision, b: WriteDecision | undefined): boolean {
  return b === undefined || SEVERITY[a.decision] > SEVERITY[b.decision];
}

/** One decision's caller read from a parsed pre-tool payload. */
function callerOf(request: WriteRequest, host: WriteGateHost): GateCaller {
  return {
    cwd: host.canonicalDirectory(request.cwd ?? host.processCwd),
    sessionIds: request.sessionIds,
    ...(request.agentId !== undefined ? { agentId: request.agentId } : {}),
    ...(request.transcriptPath !== undefined ? { transcriptPath: request.transcriptPath } : {}),
    workspaceRoots: request.workspaceRoots,
  };
}

/**
 * The dispatched agent a caller is, when no wave of its session is in force: one started as an agent of a
 * wave (`WAVE_SCOPE_AGENT`), or a subagent the session's ledger in one of `roots` ties to a dispatch made in
 * a wave (the ledger stays where the coordinator's checkout keeps it when a shell moves the manifest away or
 * makes it another session's). Anyone else with no plan is not checked: the coordinator, and a subagent
 * dispatched while no wave was in force.
 */
function unplannedAgent(caller: GateCaller, roots: readonly string[], host: WriteGateHost): NoPlanDecision | undefined {
  const named = namedAgentOf(host.env);
  if (named !== undefined) return { decision: 'deny-no-plan', via: 'named', agent: named };
  if (caller.agentId === undefined || host.subagentScope === undefined) return undefined;
  for (const root of new Set(roots)) {
    const subagent = host.subagentScope({ ...subagentQuery(root, caller), uncounted: true });
    if (subagent.kind === 'bound' && subagent.wave !== undefined) {
      return { decision: 'deny-no-plan', via: 'dispatched', agent: subagent.agent ?? subagent.placed.record.id, wave: subagent.wave };
    }
  }
  return undefined;
}

/** What the subagent binding is asked of `caller`'s dispatch, in the session ledger under `root`. */
function subagentQuery(root: string, caller: GateCaller): SubagentScopeQuery {
  return {
    root,
    ...(caller.sessionIds[0] !== undefined ? { sessionId: caller.sessionIds[0] } : {}),
    ...(caller.agentId !== undefined ? { agentId: caller.agentId } : {}),
    ...(caller.transcriptPath !== undefined ? { transcriptPath: caller.transcriptPath } : {}),
  };
}

/** Decides one parsed pre-tool call. Throws only on an unexpected I/O failure (the caller denies). */
export function runWriteGate(request: WriteRequest, given: WriteGateHost): WriteGateResult {
  if (!request.writes) return { decision: { decision: 'allow', because: 'not-a-write' } };
  const host = memoizedHost(given);
  const caller = callerOf(request, host);
  const projectRoots = projectRootsOf(caller, host);
  const resolveFrom = (raw: unknown, cwd: string) =>
    resolveWriteDestinations(raw, { cwd, platform: host.platform, readings: request.readings, ...(host.homeDir !== undefined ? { homeDir: host.homeDir } : {}), fs: host.targetFs });
  // An MCP server reads a relative path from the project it serves, not from the agent's shell's directory:
  // every such reading is a destination.
  const bases = request.relativeToProject === true ? [...new Set([caller.cwd, ...projectRoots])] : [caller.cwd];
  const destinations = request.targets.map((raw) =>
    bases.length > 1 && typeof raw === 'string' && !raw.startsWith('/') ? mergedDestinations(bases.map((base) => resolveFrom(raw, base))) : resolveFrom(raw, caller.cwd),
  );
  // Where else the tool writes cannot be known before it runs: judged as a target that cannot be resolved,
  // refused by every wave that governs the call (and only by one: with no wave, nothing is checked).
  if (request.reachesUnnamed === true) destinations.push({ kind: 'invalid', raw: request.toolName, problem: 'unknown-reach' });
  const { cwdChain, waves } = governingWaves(caller, destinations, host, projectRoots);
  if (waves.every((wave) => wave.manifest.kind === 'loaded' && wave.manifest.session === 'foreign')) {
    const unplanned = unplannedAgent(caller, [...waves.map((wave) => wave.manifestRoot), ...cwdChain.map((location) => location.manifestRoot), ...projectRoots], host);
    if (unplanned !== undefined) return { decision: unplanned };
    if (waves.length === 0) return { decision: { decision: 'allow', because: 'no-manifest' } };
  }
  const dispatchedAgent = isDispatchedAgent(caller, cwdChain, host.env);

  let strictest: (WriteGateResult & { readonly decision: WriteDecision }) | undefined;
  for (const wave of waves) {
    const rules = gateRulesAt(wave, caller, dispatchedAgent, host);
    // On a file system that folds case, a spelling of the write root in another case is the write root:
    // located inside, the target meets the control-state checks (the grants still compare as git surely does).
    const locate = { ignoreCase: rules.mayIgnoreCase, ...(host.folding !== undefined ? { folding: host.folding } : {}) };
    const targets = destinations.flatMap((destination) => locateDestinations(destination, rules.writeRoot, locate));
    const decision = decideUnderRules(rules, targets);
    if (stricter(decision, strictest?.decision)) {
      strictest = {
        decision,
        location: wave.location,
        ...(wave.stateDir !== undefined ? { stateDir: wave.stateDir } : {}),
        scopeSource: rules.scopeSource,
        ...(rules.subagent !== undefined ? { subagent: rules.subagent } : {}),
      };
    }
  }
  return strictest as WriteGateResult;
}

/** The host with its file-system answers memoised: within one decision they do not change. */
export function memoizedHost(given: WriteGateHost): WriteGateHost {
  const kinds = new Map<string, ReturnType<LocateFileSystem['kind']>>();
  const targetFs = memoizedTargetFileSystem(given.targetFs);
  return {
    ...given,
    targetFs,
    locateFs: {
      kind(path) {
        if (!kinds.has(path)) kinds.set(path, given.locateFs.kind(path));
        return kinds.get(path);
      },
      readText: (path, options) => given.locateFs.readText(path, options),
      readOwnFile: (root, path) => given.locateFs.readOwnFile(root, path),
      // git matches `includeIf "gitdir:"` against real paths (gitConfig.ts), asked through the memoised
      // target file system; one that cannot be had leaves the condition undecided, never the decision failed.
      realPath(path) {
        try {
          return targetFs.realpath(path);
        } catch {
          return undefined;
        }
      },
    },
  };
}
