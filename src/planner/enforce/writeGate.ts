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
import type { WriteRequest } from './hookPayloads';
import { locateRepositories } from './repoLocation';
import type { LocateFileSystem, RepoLocation } from './repoLocation';
import { hooksDirectories, scanGitConfig } from './gitConfig';
import { isAgentId } from '../plan/agentId';
import { CONTROL_STATE } from '../plan/controlState';
import { processLocalSessionIds } from '../plan/sessionBinding';
import { relativeAgentScopePath, relativeWaveDirPath, relativeWaveSidecarPath } from '../plan/declarationPaths';
import { FILESCOPES_DIR_NAME, MANIFEST_FILE_NAME, resolveStateDir } from '../plan/stateDir';
import { expandTestSiblings } from '../scope/testSiblings';
import { decideWrite } from './writeDecision';
import type { AgentScopeState, ManifestState, WriteDecision } from './writeDecision';
import { locateDestinations, memoizedTargetFileSystem, resolveWriteDestinations } from './writeTarget';
import type { FileSystemFolding, TargetFileSystem, WriteDestinations } from './writeTarget';

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
}

/** Everything the gate found on its way to the decision; the CLI turns it into a reply. */
export interface WriteGateResult {
  readonly decision: WriteDecision;
  readonly location?: RepoLocation;
  /** The state directory whose manifest decided (absolute), when one did. */
  readonly stateDir?: string;
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
 */
export function findManifest(root: string, ownIds: ReadonlySet<string>, fs: LocateFileSystem): FoundManifest {
  const resolution = resolveStateDir(root, ownIds, fs);
  if (!resolution.found) return { state: { kind: 'missing' } };
  const { stateDir, manifestPath: path } = resolution;
  if (resolution.problem !== undefined || resolution.manifest === undefined) {
    const problems = resolution.problem?.errors ?? [resolution.problem?.message ?? 'is not a wave manifest'];
    return { stateDir, state: { kind: 'invalid', path, problems } };
  }
  return { stateDir, state: { kind: 'loaded', path, manifest: resolution.manifest, session: resolution.session } };
}

function readJson(path: string, fs: LocateFileSystem): { text?: string; value?: unknown; problem?: string } {
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
 * problem makes it `unusable` (no scope, no write).
 */
export function readAgentScope(stateDir: string, wave: number, agent: string, fs: LocateFileSystem): AgentScopeState {
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
  const sidecarPath = joinPath(stateDir, relativeWaveSidecarPath(wave));
  const sidecar = readJson(sidecarPath, fs);
  const unbacked = (why: string): AgentScopeState => ({ kind: 'unusable', agent, path, problem: `is not backed by the wave's aggregate ${sidecarPath}, which ${why}` });
  if (sidecar.problem !== undefined) return unbacked(sidecar.problem);
  if (sidecar.text === undefined) return unbacked('does not exist (the declaration is incomplete or was removed)');
  if (!Array.isArray(sidecar.value)) return unbacked('is not a JSON array of {"id", "files"} records');
  const records = (sidecar.value as unknown[]).filter(
    (record): record is { id: string; files: unknown } => typeof record === 'object' && record !== null && (record as { id?: unknown }).id === agent,
  );
  if (records.length !== 1) return unbacked(records.length === 0 ? 'declares no such agent' : 'declares this agent more than once');
  if (JSON.stringify(records[0]?.files) !== JSON.stringify(entries)) return unbacked("declares different entries for this agent");
  return { kind: 'loaded', agent, path, entries };
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

/** One wave that governs this write, with the checkout its relative grants apply to. */
interface Governor {
  readonly manifestRoot: string;
  readonly location: RepoLocation;
  readonly found: FoundManifest;
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

/**
 * Every wave that governs the write, the binding one first. For each manifest root, the relative
 * grants apply to the checkout the caller works in when it shares that manifest (an isolated agent's
 * worktree), else to the innermost checkout around a destination that shares it, else to the
 * project root's.
 */
function governors(request: WriteRequest, cwdChain: readonly RepoLocation[], destinations: readonly WriteDestinations[], ownIds: ReadonlySet<string>, host: WriteGateHost): Governor[] {
  const projectRoots = [...PROJECT_DIR_VARIABLES.map((name) => host.env[name]), ...request.workspaceRoots]
    .map((path) => canonicalOrUndefined(path, host))
    .filter((path): path is string => path !== undefined);
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

  const found: Governor[] = [];
  for (const root of ordered) {
    const manifest = findManifest(root, ownIds, host.locateFs);
    if (manifest.state.kind === 'missing') continue;
    const location = pick(root);
    if (location !== undefined) found.push({ manifestRoot: root, location, found: manifest });
  }
  return found;
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

const SEVERITY: Record<WriteDecision['decision'], number> = { allow: 0, warn: 1, deny: 2, 'deny-invalid-manifest': 3 };

/** Decides one parsed pre-tool call. Throws only on an unexpected I/O failure (the caller denies). */
export function runWriteGate(request: WriteRequest, given: WriteGateHost): WriteGateResult {
  if (!request.writes) return { decision: { decision: 'allow', because: 'not-a-write' } };
  // One decision asks about the same directories many times; within it the answers do not change.
  const kinds = new Map<string, ReturnType<LocateFileSystem['kind']>>();
  const host: WriteGateHost = {
    ...given,
    targetFs: memoizedTargetFileSystem(given.targetFs),
    locateFs: {
      kind(path) {
        if (!kinds.has(path)) kinds.set(path, given.locateFs.kind(path));
        return kinds.get(path);
      },
      readText: (path) => given.locateFs.readText(path),
    },
  };
  const cwd = host.canonicalDirectory(request.cwd ?? host.processCwd);
  const ownIds = processLocalSessionIds({ payloadSessionIds: [...request.sessionIds], env: host.env });
  const destinations = request.targets.map((raw) =>
    resolveWriteDestinations(raw, { cwd, platform: host.platform, readings: request.readings, ...(host.homeDir !== undefined ? { homeDir: host.homeDir } : {}), fs: host.targetFs }),
  );
  const cwdChain = locateRepositories(cwd, host.locateFs);
  const waves = governors(request, cwdChain, destinations, ownIds, host);
  if (waves.length === 0) return { decision: { decision: 'allow', because: 'no-manifest' } };

  const agentName = host.env.WAVE_SCOPE_AGENT?.trim();
  const named = agentName !== undefined && agentName !== '';
  const innermost = cwdChain[0];
  const dispatchedAgent = request.agentId !== undefined || named || innermost?.linkedWorktree === true;

  let strictest: WriteGateResult | undefined;
  for (const [index, wave] of waves.entries()) {
    const result = decideAt(wave, destinations, { dispatchedAgent, agentName: index === 0 && named ? agentName : undefined }, host);
    if (strictest === undefined || SEVERITY[result.decision.decision] > SEVERITY[strictest.decision.decision]) strictest = result;
  }
  return strictest as WriteGateResult;
}

/** Decides against one wave. */
function decideAt(
  wave: Governor,
  destinations: readonly WriteDestinations[],
  caller: { dispatchedAgent: boolean; agentName: string | undefined },
  host: WriteGateHost,
): WriteGateResult {
  const { location, found, manifestRoot } = wave;
  const config = scanGitConfig({
    commonDir: location.commonDir,
    gitDir: location.gitDir,
    env: host.env,
    ...(host.homeDir !== undefined ? { homeDir: host.homeDir } : {}),
    fs: host.locateFs,
  });
  const ignoreCase = config.ignoreCase;
  const locate = { ignoreCase, ...(host.folding !== undefined ? { folding: host.folding } : {}) };
  const targets = destinations.flatMap((destination) => locateDestinations(destination, location.writeRoot, locate));

  let agentScope: AgentScopeState | undefined;
  if (caller.agentName !== undefined && found.state.kind === 'loaded' && found.stateDir !== undefined) {
    agentScope = readAgentScope(found.stateDir, found.state.manifest.wave, caller.agentName, host.locateFs);
  }
  const role = found.state.kind === 'loaded' ? found.state.manifest.role : undefined;
  const roots = [manifestRoot, location.writeRoot];
  const hooksDirs = hooksDirectories(config.hooksPaths, roots, host.homeDir);
  const controlPaths = caller.dispatchedAgent
    ? resolvedControlPaths(roots, [location.gitDir, location.commonDir, ...hooksDirs, ...config.files], host)
    : [];
  const coordinatorPaths =
    found.stateDir !== undefined ? resolvedPaths([joinPath(found.stateDir, MANIFEST_FILE_NAME), joinPath(found.stateDir, FILESCOPES_DIR_NAME)], host) : [];
  const decision = decideWrite({
    targets,
    manifest: found.state,
    ...(agentScope !== undefined ? { agentScope } : {}),
    // The agent's own scope gets the same test siblings the wave's union gave it.
    ...(role !== undefined ? { expandEntries: (entries: readonly string[]) => expandTestSiblings(entries, { role }) } : {}),
    dispatchedAgent: caller.dispatchedAgent,
    controlPaths,
    coordinatorPaths,
    writeRoot: location.writeRoot,
    ignoreCase,
  });
  return { decision, location, ...(found.stateDir !== undefined ? { stateDir: found.stateDir } : {}) };
}
