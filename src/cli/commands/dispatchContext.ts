// Where the dispatch guard's commands find things: the coordinator's checkout (the manifest root; the
// ledger and the events live under it, whichever worktree the call comes from), the active wave, its
// declarations, and the session. Read without spawning git (the hook's no-collision path is a budget).
import { lstatSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { canonicalDirectory, homeDirectory, nodeLocateFileSystem, nodeTargetFileSystem } from '../../node/hookFileSystem';
import { scanGitConfig } from '../../planner/enforce/gitConfig';
import { locateRepository, ownFilesBelow } from '../../planner/enforce/repoLocation';
import type { RepoLocation } from '../../planner/enforce/repoLocation';
import { declaredAgent } from '../../planner/dispatch/dispatchScope';
import type { DeclaredAgent, DeclaredWave } from '../../planner/dispatch/dispatchScope';
import { waveKeyOf } from '../../planner/dispatch/sessionLedger';
import { waveSidecarPath } from '../../planner/plan/declarationPaths';
import { parseWaveSidecar } from '../../planner/plan/declarationStore';
import { processLocalSessionIds, SESSION_ENV_VARIABLE } from '../../planner/plan/sessionBinding';
import { resolveStateDir } from '../../planner/plan/stateDir';
import type { StateDirFs, StateDirResolution } from '../../planner/plan/stateDir';

/** The checkout a dispatch guard command works in. */
export interface DispatchRoot {
  /** Canonical absolute path of the coordinator's checkout (or the directory itself outside git). */
  readonly root: string;
  readonly location?: RepoLocation;
  readonly ignoreCase: boolean;
}

/** The checkout around `cwd` (the payload's, else the process's), without spawning git. */
export function locateDispatchRoot(cwd: string, env: Readonly<Record<string, string | undefined>>): DispatchRoot {
  let start: string;
  try {
    start = canonicalDirectory(cwd);
  } catch {
    start = resolve(env.CLAUDE_PROJECT_DIR ?? cwd);
  }
  let location: RepoLocation | undefined;
  try {
    location = locateRepository(start, nodeLocateFileSystem);
  } catch {
    location = undefined;
  }
  if (location === undefined) return { root: start, ignoreCase: false };
  const root = nodeTargetFileSystem.realpath(location.manifestRoot) ?? location.manifestRoot;
  let ignoreCase = false;
  try {
    // The gate's reading of git's configuration (git's order, includes followed), so both fold alike.
    const home = homeDirectory();
    ignoreCase = scanGitConfig({
      commonDir: location.commonDir,
      gitDir: location.gitDir,
      env,
      ...(home !== undefined ? { homeDir: home } : {}),
      fs: nodeLocateFileSystem,
      roots: [location.writeRoot, root],
    }).ignoreCase;
  } catch {
    // A config git cannot parse either: the dispatch guard fails open, comparing case as written.
    ignoreCase = false;
  }
  return { root, location, ignoreCase };
}

/** The active wave as the guard sees it. */
export interface ActiveWave {
  readonly resolution?: StateDirResolution;
  /** The manifest's wave and role, when a usable manifest exists. */
  readonly wave?: number;
  readonly role?: string;
  readonly waveKey: string;
  readonly declared: DeclaredWave;
}

/** The session id of a command: the payload's, else --session, else CLAUDE_CODE_SESSION_ID. */
export function sessionOf(explicit: string | undefined, env: Readonly<Record<string, string | undefined>>): string | undefined {
  const candidate = explicit?.trim() || env[SESSION_ENV_VARIABLE]?.trim();
  return candidate === undefined || candidate === '' ? undefined : candidate;
}

/**
 * Reads the aggregate of `wave` into declared agents with their digests, through `fs`: the hooks and
 * `digest --verify` read it as Wave Scope's own file (`ownFilesBelow`). Without one, `problem` says why.
 */
export function readDeclaredWave(stateDir: string, wave: number, fs: StateDirFs): DeclaredWave {
  const path = waveSidecarPath(stateDir, wave);
  let text: string | undefined;
  try {
    text = fs.readText(path);
  } catch (error) {
    return { kind: 'none', reason: 'unusable-declaration', problem: `${path} cannot be read: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (text === undefined) return { kind: 'none', reason: 'no-declaration', problem: `${path} does not exist` };
  const records = parseWaveSidecar(text);
  if (records === undefined) return { kind: 'none', reason: 'unusable-declaration', problem: `${path} is not a wave's aggregate (a JSON array of records with "id" and "files")` };
  // Digests are computed only when a prompt's echo line asks for them (declaredAgent). An entry the
  // grammar refuses (a hand-edited aggregate) makes its agent's digest match nothing, and the collision
  // check that compiles it reports row 9.
  const agents: DeclaredAgent[] = records.map((record) => declaredAgent(record.id, record.files));
  return { kind: 'declared', wave, agents };
}

/**
 * The manifest this session resolves to, its wave key and the wave's declarations, read as Wave Scope's
 * own files (one reached through a link, or with a second name, is unusable). Never throws.
 */
export function readActiveWave(root: string, sessionId: string | undefined, env: Readonly<Record<string, string | undefined>>): ActiveWave {
  const ownIds = processLocalSessionIds({ payloadSessionIds: sessionId === undefined ? [] : [sessionId], env });
  const ownFiles = ownFilesBelow(root, nodeLocateFileSystem);
  let resolution: StateDirResolution | undefined;
  try {
    resolution = resolveStateDir(root, ownIds, ownFiles);
  } catch {
    resolution = undefined;
  }
  const manifest = resolution?.manifest;
  if (manifest === undefined || resolution === undefined) {
    return { ...(resolution !== undefined ? { resolution } : {}), waveKey: waveKeyOf(sessionId, undefined, undefined), declared: { kind: 'none', reason: 'no-manifest' } };
  }
  return {
    resolution,
    wave: manifest.wave,
    role: manifest.role,
    waveKey: waveKeyOf(sessionId, manifest.wave, manifest.role),
    declared: readDeclaredWave(resolution.stateDir, manifest.wave, ownFiles),
  };
}

/** A question about what a repository-relative path names on disk; a path that leaves the repository names nothing. */
function repositoryProbe(root: string, ask: (absolute: string) => boolean): (path: string) => boolean {
  return (path) => {
    if (path === '' || isAbsolute(path) || path.split('/').includes('..')) return false;
    try {
      return ask(join(root, path));
    } catch {
      return false;
    }
  };
}

/** Whether a repository-relative path names anything on disk (a link counts as itself). */
export function pathProbe(root: string): (path: string) => boolean {
  return repositoryProbe(root, (absolute) => lstatSync(absolute, { throwIfNoEntry: false }) !== undefined);
}

/** Whether a repository-relative path is an existing directory (a plain entry naming it means all beneath it). */
export function directoryProbe(root: string): (path: string) => boolean {
  return repositoryProbe(root, (absolute) => statSync(absolute, { throwIfNoEntry: false })?.isDirectory() ?? false);
}
