// What `wave-scope run` and `wave-scope commit` both need before they judge a turn: the repository,
// the state directory, the agent's own scope file, and the write gate's control paths (its own
// `checkoutControl`), read once and turned into the core's `JudgeContext`.
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { canonicalDirectory, nodeLocateFileSystem, nodeTargetFileSystem } from '../../node/hookFileSystem';
import { nodeWriteGateHost } from '../../node/writeGateHost';
import { locateRepository, ownFilesBelow } from '../../planner/enforce/repoLocation';
import type { RepoLocation } from '../../planner/enforce/repoLocation';
import { checkoutControl, readAgentScope } from '../../planner/enforce/writeGate';
import type { AgentScopeState } from '../../planner/enforce/writeDecision';
import { inspectStateDir, resolveStateDir } from '../../planner/plan/stateDir';
import { processLocalSessionIds } from '../../planner/plan/sessionBinding';
import { normalizeScopeEntry, ScopeEntryError } from '../../planner/scope/scopeEntry';
import { expandTestSiblings } from '../../planner/scope/testSiblings';
import { backstopExclusions } from '../../planner/backstop/snapshot';
import { strictTurnManifest } from '../../planner/backstop/turnScope';
import type { JudgeContext } from '../../planner/backstop/turnScope';

export interface TurnContext {
  readonly location: RepoLocation;
  /** Canonical top level of the work tree the turn runs in. */
  readonly writeRoot: string;
  /** Canonical coordinator checkout. */
  readonly manifestRoot: string;
  /** Absolute state directory. */
  readonly stateDir: string;
  readonly agentScope: AgentScopeState;
  /** The wave's role, when the state directory's manifest is for this wave. */
  readonly role?: string;
  readonly ignoreCase: boolean;
  readonly judge: JudgeContext;
  readonly exclude: (path: string) => boolean;
  /** The scope's entries (test siblings included), normalised; invalid entries left out (they grant nothing). */
  readonly scopeEntries: readonly string[];
}

function canonical(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** The repository around `cwd`, or undefined outside git. Throws when a `.git` file cannot be read as a pointer. */
export function locateTurnRepository(cwd: string): RepoLocation | undefined {
  return locateRepository(canonicalDirectory(cwd), nodeLocateFileSystem);
}

/**
 * Reads everything a turn of `agent` in `wave` is judged by. The manifest it is judged under is
 * always strict (see `strictTurnManifest`); the state directory is `stateDirFlag` (relative to `cwd`),
 * else the one this process resolves to.
 */
export function readTurnContext(input: {
  location: RepoLocation;
  cwd: string;
  env: NodeJS.ProcessEnv;
  wave: number;
  agent: string;
  stateDir?: string;
}): TurnContext {
  const { location } = input;
  const writeRoot = location.writeRoot;
  const manifestRoot = nodeTargetFileSystem.realpath(location.manifestRoot) ?? location.manifestRoot;
  const ownIds = processLocalSessionIds({ env: input.env });
  // Read as the hooks read them: through real directories from the repository root (or from the state
  // directory the person named), one link each, so a link the turn planted cannot widen its own scope.
  const named = input.stateDir !== undefined ? canonical(resolve(input.cwd, input.stateDir)) : undefined;
  const ownFiles = ownFilesBelow(named ?? manifestRoot, nodeLocateFileSystem);
  const resolution = named !== undefined ? inspectStateDir(named, ownIds, ownFiles) : resolveStateDir(manifestRoot, ownIds, ownFiles);
  const stateDir = resolution.stateDir;
  const role = resolution.manifest !== undefined && resolution.manifest.wave === input.wave ? resolution.manifest.role : undefined;
  const agentScope = readAgentScope(stateDir, input.wave, input.agent, ownFiles);
  // A turn's agent is a dispatched agent: the gate's control paths of both checkouts apply.
  const core = checkoutControl({ location, manifestRoot, dispatchedAgent: true }, nodeWriteGateHost({ env: input.env, cwd: input.cwd }));
  const manifest = resolution.manifest !== undefined && resolution.manifest.wave === input.wave ? resolution.manifest : undefined;
  const ownEntries = agentScope.kind === 'loaded' ? agentScope.entries : [];
  const union = manifest?.allowedPaths ?? (role === undefined ? ownEntries : expandTestSiblings(ownEntries, { role }));
  const judge: JudgeContext = {
    manifest: strictTurnManifest(input.wave, agentScope.path, role, union, manifest?.ignoreCase === true),
    agentScope,
    ...(role !== undefined ? { role } : {}),
    dispatchedAgent: true,
    controlPaths: core.controlPaths,
    writeRoot,
    ignoreCase: core.ignoreCase,
    mayIgnoreCase: core.mayIgnoreCase,
  };
  const normalised: string[] = [];
  for (const entry of agentScope.kind === 'loaded' ? agentScope.entries : []) {
    try {
      normalised.push(normalizeScopeEntry(entry, { repoRoot: writeRoot, ignoreCase: core.ignoreCase }));
    } catch (error) {
      if (!(error instanceof ScopeEntryError)) throw error;
    }
  }
  return {
    location,
    writeRoot,
    manifestRoot,
    stateDir,
    agentScope,
    ...(role !== undefined ? { role } : {}),
    ignoreCase: core.ignoreCase,
    judge,
    exclude: backstopExclusions({ writeRoot, stateDir, ignoreCase: core.ignoreCase }),
    scopeEntries: role === undefined ? normalised : expandTestSiblings(normalised, { role }),
  };
}

/** The ignored paths to watch: `--watch-ignored` entries, then WAVE_SCOPE_WATCH_IGNORED (":"-separated). Throws ScopeEntryError. */
export function watchedIgnoredEntries(flags: readonly string[], env: NodeJS.ProcessEnv, root: string): string[] {
  const fromEnv = (env.WAVE_SCOPE_WATCH_IGNORED ?? '').split(':').filter((entry) => entry.trim() !== '');
  return [...new Set([...flags, ...fromEnv].map((entry) => normalizeScopeEntry(entry, { repoRoot: root })))];
}
