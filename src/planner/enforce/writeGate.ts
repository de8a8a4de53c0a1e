// The write gate as one call: from a parsed hook payload to a decision, reading only the handful of
// small files the decision needs (no repository scan, no process spawn). The file system reaches it
// through `WriteGateHost`; `src/node/hookFileSystem.ts` has the Node implementation.
import type { WriteRequest } from './hookPayloads';
import { locateRepository } from './repoLocation';
import type { LocateFileSystem, RepoLocation } from './repoLocation';
import { isAgentId } from '../plan/agentId';
import { processLocalSessionIds } from '../plan/sessionBinding';
import { readCoreConfig } from './repoLocation';
import { HOOK_SETTINGS_FILES } from '../plan/controlState';
import { relativeAgentScopePath, relativeWaveDirPath } from '../plan/declarationPaths';
import { FILESCOPES_DIR_NAME, LAUNCHER_FILE_NAME, MANIFEST_FILE_NAME, resolveStateDir, STATE_DIR_NAMES } from '../plan/stateDir';
import { expandTestSiblings } from '../scope/testSiblings';
import { decideWrite } from './writeDecision';
import type { AgentScopeState, ManifestState, WriteDecision } from './writeDecision';
import { resolveWriteTarget } from './writeTarget';
import type { TargetFileSystem } from './writeTarget';


export interface WriteGateHost {
  readonly targetFs: TargetFileSystem;
  readonly locateFs: LocateFileSystem;
  /** Canonical path of an existing directory; throws when it does not exist. */
  canonicalDirectory(path: string): string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The directory the hook process runs in (used when the payload names no cwd). */
  readonly processCwd: string;
  readonly platform: 'posix' | 'win32';
}

/** Everything the gate found on its way to the decision; the CLI turns it into a reply. */
export interface WriteGateResult {
  readonly decision: WriteDecision;
  readonly location?: RepoLocation;
  /** The state directory whose manifest decided (absolute), when one did. */
  readonly stateDir?: string;
}

function joinPath(base: string, rest: string): string {
  return base === '/' ? `/${rest}` : `${base}/${rest}`;
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

/** Reads one agent's own scope file; any problem makes it `unusable` (no scope = no write). */
export function readAgentScope(stateDir: string, wave: number, agent: string, fs: LocateFileSystem): AgentScopeState {
  // Agent ids become file names: only a valid id is looked up, so `WAVE_SCOPE_AGENT=../x` cannot pick a file.
  if (!isAgentId(agent)) {
    return { kind: 'unusable', agent, path: joinPath(stateDir, relativeWaveDirPath(wave)), problem: 'WAVE_SCOPE_AGENT is not a plain agent id' };
  }
  const path = joinPath(stateDir, relativeAgentScopePath(wave, agent));
  let text: string | undefined;
  try {
    text = fs.readText(path);
  } catch (error) {
    return { kind: 'unusable', agent, path, problem: `cannot be read: ${(error as Error).message}` };
  }
  if (text === undefined) return { kind: 'unusable', agent, path, problem: 'does not exist' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { kind: 'unusable', agent, path, problem: 'is not valid JSON' };
  }
  if (!Array.isArray(parsed) || !parsed.every((entry) => typeof entry === 'string')) {
    return { kind: 'unusable', agent, path, problem: 'is not a JSON array of path strings' };
  }
  return { kind: 'loaded', agent, path, entries: parsed };
}

/**
 * What a dispatched agent may never write, whatever its scope says: in both roots, every candidate
 * manifest, `filescopes/` and hook launcher, the agent CLIs' hook settings, git's own directory
 * (hooks live there) and the configured hooks directory. Each of these either declares the wave or
 * switches its enforcement off.
 */
export function controlPathsOf(roots: readonly string[], extra: readonly string[] = []): string[] {
  const paths: string[] = [];
  for (const root of new Set(roots)) {
    for (const name of STATE_DIR_NAMES) {
      const stateDir = joinPath(root, name);
      paths.push(joinPath(stateDir, MANIFEST_FILE_NAME), joinPath(stateDir, FILESCOPES_DIR_NAME), joinPath(stateDir, LAUNCHER_FILE_NAME));
    }
    for (const file of HOOK_SETTINGS_FILES) paths.push(joinPath(root, file));
    paths.push(joinPath(root, '.git'), joinPath(root, '.husky'));
  }
  return [...paths, ...extra];
}

/**
 * The checkouts a target may belong to when the payload's own checkout has no active wave: the
 * repository around the deepest existing directory on the target's way. An agent started outside a
 * repository (or in another one) that writes into a repository with an active wave is judged by
 * that wave, not waved through.
 */
function targetLocations(request: WriteRequest, cwd: string, host: WriteGateHost): RepoLocation[] {
  const locations: RepoLocation[] = [];
  for (const raw of request.targets) {
    if (typeof raw !== 'string' || raw === '' || raw.includes('\0')) continue;
    const spelled = host.platform === 'win32' ? raw.replace(/\\/g, '/') : raw;
    let dir = spelled.startsWith('/') ? spelled : joinPath(cwd, spelled);
    for (let depth = 0; depth < 4096 && dir !== '/'; depth += 1) {
      const cut = dir.lastIndexOf('/');
      dir = cut <= 0 ? '/' : dir.slice(0, cut);
      const real = host.targetFs.realpath(dir);
      if (real === undefined) continue;
      const location = locateRepository(real, host.locateFs);
      if (location !== undefined && !locations.some((known) => known.writeRoot === location.writeRoot)) locations.push(location);
      break;
    }
  }
  return locations;
}

/** Decides one parsed pre-tool call. Throws only on an unexpected I/O failure (the caller denies). */
export function runWriteGate(request: WriteRequest, host: WriteGateHost): WriteGateResult {
  if (!request.writes) return { decision: { decision: 'allow', because: 'not-a-write' } };
  const cwd = host.canonicalDirectory(request.cwd ?? host.processCwd);
  const ownIds = processLocalSessionIds({ payloadSessionIds: [...request.sessionIds], env: host.env });
  const own = locateRepository(cwd, host.locateFs);
  if (own !== undefined) {
    const result = decideAt(own, request, cwd, ownIds, host);
    if (result !== undefined) return result;
  }
  // No active wave in the payload's own checkout: the checkouts the targets land in may have one.
  for (const location of targetLocations(request, cwd, host)) {
    if (location.writeRoot === own?.writeRoot) continue;
    const result = decideAt(location, request, cwd, ownIds, host);
    if (result !== undefined) return result;
  }
  return { decision: { decision: 'allow', because: 'no-manifest' }, ...(own !== undefined ? { location: own } : {}) };
}

/** Decides against the wave of one checkout; undefined when that checkout has no manifest. */
function decideAt(location: RepoLocation, request: WriteRequest, cwd: string, ownIds: ReadonlySet<string>, host: WriteGateHost): WriteGateResult | undefined {
  const manifestRoot = host.targetFs.realpath(location.manifestRoot) ?? location.manifestRoot;
  const found = findManifest(manifestRoot, ownIds, host.locateFs);
  if (found.state.kind === 'missing') return undefined;

  const core = readCoreConfig(host.locateFs.readText(joinPath(location.commonDir, 'config')));
  const ignoreCase = core.ignoreCase;
  const hooksDir =
    core.hooksPath === undefined || core.hooksPath === '' ? [] : [core.hooksPath.startsWith('/') ? core.hooksPath : joinPath(location.writeRoot, core.hooksPath)];
  const targets = request.targets.map((raw) =>
    resolveWriteTarget(raw, { cwd, writeRoot: location.writeRoot, ignoreCase, platform: host.platform, fs: host.targetFs }),
  );

  const agentName = host.env.WAVE_SCOPE_AGENT?.trim();
  let agentScope: AgentScopeState | undefined;
  if (agentName !== undefined && agentName !== '' && found.state.kind === 'loaded' && found.stateDir !== undefined) {
    agentScope = readAgentScope(found.stateDir, found.state.manifest.wave, agentName, host.locateFs);
  }
  const role = found.state.kind === 'loaded' ? found.state.manifest.role : undefined;
  const decision = decideWrite({
    targets,
    manifest: found.state,
    ...(agentScope !== undefined ? { agentScope } : {}),
    // The agent's own scope gets the same test siblings the wave's union gave it.
    ...(role !== undefined ? { expandEntries: (entries: readonly string[]) => expandTestSiblings(entries, { role }) } : {}),
    dispatchedAgent: request.agentId !== undefined || (agentName !== undefined && agentName !== '') || location.linkedWorktree,
    controlPaths: controlPathsOf([manifestRoot, location.writeRoot], [location.gitDir, location.commonDir, ...hooksDir]),
    ...(found.stateDir !== undefined
      ? { coordinatorPaths: [joinPath(found.stateDir, MANIFEST_FILE_NAME), joinPath(found.stateDir, FILESCOPES_DIR_NAME)] }
      : {}),
    writeRoot: location.writeRoot,
    ignoreCase,
  });
  return { decision, location, ...(found.stateDir !== undefined ? { stateDir: found.stateDir } : {}) };
}
