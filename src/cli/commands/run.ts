// `wave-scope run --wave N --agent ID [--state-dir DIR] [--commit] [--confine] -- <command> [args...]`:
// one agent turn under the backstop (src/planner/backstop/turn.ts), optionally confined by bubblewrap
// (src/planner/backstop/confinement.ts). Exit codes: docs/cli.md.
import { mkdirSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { tmpdir, homedir } from 'node:os';
import type { CliIo } from '../cliIo';
import { reportError, reportNote, reportWarning } from '../cliIo';
import { parseCommandLine, parseWave, readArguments, reportBadArguments, UsageProblem } from '../commandLine';
import { backstopMessages, declarationMessages } from '../messages';
import { agentIdProblem } from '../../planner/plan/declarationPaths';
import { ScopeEntryError, compileScopeEntry } from '../../planner/scope/scopeEntry';
import { bubblewrapArguments, planConfinement } from '../../planner/backstop/confinement';
import { isWithin } from '../../planner/enforce/writeTarget';
import { ORCHESTRATOR_DIR_NAME } from '../../planner/plan/stateDirNames';
import { commandSucceeded, runTurn } from '../../planner/backstop/turn';
import type { TurnOutcome } from '../../planner/backstop/turn';
import { MAX_TURN_COMMITS } from '../../planner/backstop/turnCommits';
import { planFileRequest, planPathForReport } from '../../planner/backstop/planFiles';
import { formatTurnRecord, newTurnId, turnRecordPath } from '../../planner/backstop/turnRecord';
import type { CommandExit } from '../../planner/backstop/turnRecord';
import { nodeSnapshotHost } from '../../node/backstopGit';
import { fingerprintPlanFiles, gitDirectoriesBelow, reportedRepositoryPath, writeFileBelow } from '../../node/backstopFiles';
import type { FoundRepository } from '../../node/backstopFiles';
import { probeBubblewrap } from '../../node/bubblewrap';
import { listRepositoryFiles } from '../../node/git';
import { nodeLocateFileSystem, nodeTargetFileSystem } from '../../node/hookFileSystem';
import { findExecutable, runTurnProcess } from '../../node/turnProcess';
import { locateTurnRepository, readTurnContext, watchedIgnoredEntries } from './turnContext';
import type { TurnContext } from './turnContext';

/** Exit codes of `run` (docs/cli.md). */
export const RUN_EXIT = { ok: 0, commandFailed: 1, usage: 2, outOfScope: 3, commitFailed: 4 } as const;

const OPTIONS = {
  wave: { type: 'string' },
  agent: { type: 'string' },
  'state-dir': { type: 'string' },
  commit: { type: 'boolean' },
  confine: { type: 'boolean' },
  writable: { type: 'string', multiple: true },
  'watch-ignored': { type: 'string', multiple: true },
} as const;

export interface TurnTarget {
  wave: number;
  agent: string;
}

/** Reads and checks `--wave` and `--agent` (an `ERROR:` line and the usage hint when either is wrong). */
export function waveAndAgent(command: string, values: { wave?: string; agent?: string }, io: CliIo): Promise<TurnTarget | undefined> {
  return readArguments(io, command, () => {
    const wave = parseWave(values.wave);
    if (values.agent === undefined) throw new UsageProblem(declarationMessages.missingOption('--agent'));
    const problem = agentIdProblem(values.agent);
    if (problem !== undefined) throw new UsageProblem(problem);
    return { wave, agent: values.agent };
  });
}

function commandOutcome(exit: CommandExit): number {
  return commandSucceeded(exit) ? RUN_EXIT.ok : 'error' in exit ? RUN_EXIT.usage : RUN_EXIT.commandFailed;
}

function shortHash(commit: string | undefined): string {
  return commit === undefined ? '(no commit)' : commit.slice(0, 12);
}

/** Prints what the turn came to and returns the exit code. */
function report(outcome: TurnOutcome, context: TurnContext, program: string, recordPath: string, io: CliIo): number {
  reportNote(io, backstopMessages.commandEnded(program, outcome.exit));
  const { record } = outcome;
  if (outcome.verdict === 'unchecked') {
    reportError(io, backstopMessages.turnUnchecked(outcome.checkProblem ?? 'unknown failure'));
    reportNote(io, backstopMessages.turnRecord(recordPath));
    return RUN_EXIT.usage;
  }
  if (outcome.verdict === 'out-of-scope') {
    if (outcome.violations.length > 0) {
      reportError(io, backstopMessages.turnOutOfScope(record.agent, record.wave, outcome.violations.length));
      for (const violation of outcome.violations) reportNote(io, backstopMessages.violationLine(violation.change, violation.kind, violation.contestedBy));
    }
    for (const path of outcome.planted ?? []) reportWarning(io, backstopMessages.plantedRepository(path));
    if (outcome.planChanges.length > 0) {
      reportError(io, backstopMessages.turnPlanChanged);
      for (const change of outcome.planChanges) reportNote(io, backstopMessages.turnPlanLine(planPathForReport(change.path, context.writeRoot), change.kind));
    }
    if (outcome.commitViolations.length > 0) {
      reportError(io, backstopMessages.commitsOutOfScope);
      for (const violation of outcome.commitViolations) {
        reportNote(io, backstopMessages.commitLine(violation.commit.hash, violation.commit.subject, violation.paths));
      }
    }
    if (outcome.rewound === true) {
      const afterRef = outcome.diff?.headAfter.ref;
      if (afterRef !== record.headBefore.ref) reportError(io, backstopMessages.turnSwitchedBranch(record.headBefore.ref ?? 'a detached HEAD', afterRef ?? 'a detached HEAD'));
      else reportError(io, backstopMessages.turnRewound(shortHash(record.headBefore.commit), shortHash(outcome.diff?.headAfter.commit)));
    }
    if (outcome.commitsTruncated) reportError(io, backstopMessages.commitsTruncated(MAX_TURN_COMMITS));
    const against = context.agentScope.kind === 'loaded' ? `agent "${record.agent}", ${context.agentScope.path}` : `agent "${record.agent}"`;
    reportNote(io, backstopMessages.allowedLine(against, context.scopeEntries));
    if (outcome.restore !== undefined) {
      if ('error' in outcome.restore) reportError(io, backstopMessages.headRestoreFailed(outcome.restore.error));
      else reportNote(io, backstopMessages.headRestored(shortHash(record.headBefore.commit), shortHash(outcome.diff?.headAfter.commit)));
    }
    reportNote(io, backstopMessages.nothingCommitted);
    reportNote(io, backstopMessages.turnRecord(recordPath));
    return RUN_EXIT.outOfScope;
  }
  reportNote(io, backstopMessages.turnInScope(record.agent, record.wave, record.changes?.length ?? 0));
  let code = commandOutcome(outcome.exit);
  const commit = outcome.commit;
  if (commit !== undefined) {
    if (commit.kind === 'committed') reportNote(io, backstopMessages.committed(commit.commit, commit.selection.paths.length));
    else if (commit.kind === 'nothing') reportNote(io, backstopMessages.nothingToCommit);
    else {
      reportError(io, backstopMessages.commitFailed(commit.message));
      code = RUN_EXIT.commitFailed;
    }
    if (commit.selection !== undefined && commit.selection.drifted.length > 0) reportWarning(io, backstopMessages.drifted(commit.selection.drifted));
  } else if (code !== RUN_EXIT.ok && (record.changes?.length ?? 0) > 0) {
    reportNote(io, backstopMessages.notCommittedCommandFailed);
  }
  reportNote(io, backstopMessages.turnRecord(recordPath));
  return code;
}

function confinementEnv(env: NodeJS.ProcessEnv): { temp: string[]; cache: string[] } {
  const temp = [...new Set([env.TMPDIR, tmpdir(), '/tmp'].filter((dir): dir is string => dir !== undefined && dir !== ''))];
  const home = env.HOME ?? homedir();
  const cache = [env.XDG_CACHE_HOME !== undefined && env.XDG_CACHE_HOME !== '' ? env.XDG_CACHE_HOME : join(home, '.cache')];
  return { temp, cache };
}

export async function runRun(args: string[], io: CliIo): Promise<number> {
  const separator = args.indexOf('--');
  const own = separator === -1 ? args : args.slice(0, separator);
  const command = separator === -1 ? [] : args.slice(separator + 1);
  const parsed = parseCommandLine('run', own, OPTIONS, { io, usage: backstopMessages.runUsage, badArgumentsExit: RUN_EXIT.usage });
  if ('exitCode' in parsed) return parsed.exitCode;
  const { values } = parsed;
  const target = await waveAndAgent('run', values, io);
  if (target === undefined) return RUN_EXIT.usage;
  if (command.length === 0) {
    reportBadArguments(io, 'run', backstopMessages.missingCommand);
    return RUN_EXIT.usage;
  }
  if ((values.writable ?? []).length > 0 && values.confine !== true) {
    reportBadArguments(io, 'run', backstopMessages.writableNeedsConfine);
    return RUN_EXIT.usage;
  }
  const program = command[0] as string;
  if (findExecutable(program, io.env) === undefined) {
    reportError(io, backstopMessages.commandEnded(program, { error: 'not found, or not executable' }));
    return RUN_EXIT.usage;
  }

  const location = locateTurnRepository(io.cwd);
  const forwardInterrupt = process.stdin.isTTY !== true;
  if (location === undefined) {
    if (values.confine === true) {
      reportError(io, backstopMessages.confineNeedsRepository);
      return RUN_EXIT.usage;
    }
    reportWarning(io, backstopMessages.offRepository(io.cwd));
    const env = { ...io.env, WAVE_SCOPE_WAVE: String(target.wave), WAVE_SCOPE_AGENT: target.agent };
    const exit = await runTurnProcess({ argv: command, env, cwd: io.cwd, forwardInterrupt });
    reportNote(io, backstopMessages.commandEnded(program, exit));
    return commandOutcome(exit);
  }

  const context = readTurnContext({ location, cwd: io.cwd, env: io.env, ...target, ...(values['state-dir'] !== undefined ? { stateDir: values['state-dir'] } : {}) });
  let watchIgnored: string[];
  try {
    watchIgnored = watchedIgnoredEntries(values['watch-ignored'] ?? [], io.env, context.writeRoot);
  } catch (error) {
    if (!(error instanceof ScopeEntryError)) throw error;
    reportError(io, backstopMessages.badWatchIgnored(error.entry, error.message));
    return RUN_EXIT.usage;
  }
  if (context.agentScope.kind === 'unusable') {
    reportWarning(io, backstopMessages.noScope(target.agent, context.agentScope.path, context.agentScope.problem));
  } else if (context.agentScope.entries.length === 0) {
    reportWarning(io, backstopMessages.emptyScope(target.agent, context.agentScope.path));
  }

  let bubblewrap: { executable: string; args: string[]; seccomp: Uint8Array } | undefined;
  // Confined, the turn can write only these inside the repository (where a planted repository would be),
  // and the repositories already there.
  let confinedSearch: { grantedPaths: string[]; before: FoundRepository[] } | undefined;
  if (values.confine === true) {
    const probe = probeBubblewrap(io.env);
    if (!probe.ok) {
      reportError(io, backstopMessages.confineUnavailable(probe.detail));
      return RUN_EXIT.usage;
    }
    const requested = (values.writable ?? []).map((path) => (isAbsolute(path) ? path : resolve(io.cwd, path)));
    for (const path of requested) {
      const real = nodeTargetFileSystem.realpath(path) ?? path;
      if (real === context.writeRoot || real.startsWith(`${context.writeRoot}/`)) {
        reportError(io, backstopMessages.writableInsideRepository(path));
        return RUN_EXIT.usage;
      }
    }
    // The hooks inside the sandbox keep their state and telemetry here; the directories must exist to be bound.
    for (const root of new Set([context.writeRoot, context.manifestRoot])) {
      for (const dir of ['metrics', 'backstop/hooks']) mkdirSync(join(root, ORCHESTRATOR_DIR_NAME, dir), { recursive: true });
    }
    let files: string[] | undefined;
    const { temp, cache } = confinementEnv(io.env);
    const plan = planConfinement({
      writeRoot: context.writeRoot,
      manifestRoot: context.manifestRoot,
      entries: context.scopeEntries,
      filesMatching: (entry) => {
        files ??= listRepositoryFiles(context.writeRoot, { includeUntracked: true });
        const compiled = compileScopeEntry(entry, { ignoreCase: context.ignoreCase });
        return files.filter((file) => compiled.matches(file));
      },
      tempDirs: temp,
      cacheDirs: cache,
      requested,
      controlPaths: context.judge.controlPaths,
      fs: {
        kind: (path) => nodeLocateFileSystem.kind(path),
        realpath: (path) => nodeTargetFileSystem.realpath(path),
      },
    });
    const unusable = plan.notes.filter((note) => note.kind === 'linked-orchestrator');
    if (unusable.length > 0) {
      for (const note of unusable) reportError(io, backstopMessages.confinementNote(note));
      return RUN_EXIT.usage;
    }
    for (const note of plan.notes) reportNote(io, backstopMessages.confinementNote(note));
    reportNote(io, backstopMessages.confined(plan.writable.length));
    const grantedPaths = plan.writable.filter((grant) => grant.reason === 'scope').map((grant) => grant.path);
    confinedSearch = { grantedPaths, before: gitDirectoriesBelow(context.writeRoot, grantedPaths) };
    // The repositories already inside granted directories (a submodule's gitfile, a nested checkout) stay
    // read-only: the search after the turn compares only where they are, not what they say (a submodule's
    // gitfile pointed at a git directory the turn planted ran its program for the next git status).
    const existing = confinedSearch.before.filter((found) => found.kind !== 'link');
    const confined = { ...plan, protected: [...plan.protected, ...existing.map((found) => join(context.writeRoot, found.path))] };
    bubblewrap = { executable: probe.executable, args: bubblewrapArguments(confined, { cwd: io.cwd }), seccomp: probe.seccomp };
  }

  const turn = newTurnId(new Date(), process.pid);
  const recordPath = turnRecordPath(context.writeRoot, target.wave, target.agent);
  const env: NodeJS.ProcessEnv = {
    ...io.env,
    WAVE_SCOPE_WAVE: String(target.wave),
    WAVE_SCOPE_AGENT: target.agent,
    WAVE_SCOPE_STATE_DIR: context.stateDir,
    WAVE_SCOPE_TURN: turn,
    ...(watchIgnored.length > 0 ? { WAVE_SCOPE_WATCH_IGNORED: watchIgnored.join(':') } : {}),
  };
  let outcome: TurnOutcome;
  try {
    outcome = await runTurn(
      {
        turn,
        wave: target.wave,
        agent: target.agent,
        program,
        confined: bubblewrap !== undefined,
        stateDir: context.stateDir,
        scopeFile: context.agentScope.path,
        ...(context.agentScope.kind === 'unusable' ? { scopeProblem: context.agentScope.problem } : {}),
        judge: context.judge,
        exclude: context.exclude,
        watchIgnored,
        ignoreCase: context.ignoreCase,
        commit: values.commit === true,
        planFiles: planFileRequest([{ root: context.manifestRoot, stateDir: context.stateDir, wave: target.wave }]),
        ...(confinedSearch !== undefined ? { repositoriesBefore: confinedSearch.before.map(reportedRepositoryPath), readWithoutGit: (path: string) => confinedSearch.grantedPaths.some((dir) => isWithin(dir, `${context.writeRoot}/${path}`, context.ignoreCase)) } : {}),
      },
      {
        snapshot: nodeSnapshotHost(context.writeRoot, { gitDir: context.location.gitDir, commonDir: context.location.commonDir }),
        planFiles: fingerprintPlanFiles,
        runCommand: () => runTurnProcess({ argv: command, env, cwd: io.cwd, forwardInterrupt, ...(bubblewrap !== undefined ? { bubblewrap } : {}) }),
        writeRecord: async (record) => writeFileBelow(context.writeRoot, recordPath, formatTurnRecord(record)),
        now: () => new Date(),
        ...(confinedSearch !== undefined ? { nestedRepositories: () => gitDirectoriesBelow(context.writeRoot, confinedSearch.grantedPaths).map(reportedRepositoryPath) } : {}),
      },
    );
  } catch (error) {
    reportError(io, backstopMessages.turnNotStarted(error instanceof Error ? error.message : String(error)));
    return RUN_EXIT.usage;
  }
  if (outcome.recordProblem !== undefined) reportWarning(io, backstopMessages.recordNotWritten(recordPath, outcome.recordProblem));
  return report(outcome, context, program, recordPath, io);
}
