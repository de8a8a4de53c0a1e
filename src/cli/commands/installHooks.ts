// `wave-scope install-hooks`: merges the write gate into each agent CLI's project hook file, the
// SessionStart hook beside it, and the commit guard into git's pre-commit hook (every checkout's own, where
// linked worktrees each run a copy of their own), through one launcher under the state directory
// (docs/hooks.md explains the launcher). The whole plan is made before the
// first write (src/node/hookInstall.ts), so a file that cannot be edited without loss leaves everything
// untouched; `--dry-run --json` prints that plan, every file's text before and after, for a preview.
// `--confirmed-plan` takes that plan back once a person has confirmed it: the run plans again and goes on
// only when every file still holds what the confirmed plan read and the plan is the same. Each write,
// removal and rename checks its file again right before it (applyHookInstall).
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { printLine, reportError, reportNote, reportWarning } from '../cliIo';
import type { CliIo } from '../cliIo';
import { HOOK_TARGET_FLAGS, parseCommandLine } from '../commandLine';
import { installHooksMessages as say } from '../messages';
import { AGENT_CLIS, GIT_BLOCK_BEGIN, GIT_BLOCK_END } from '../../planner/enforce/hookInstaller';
import type { AgentCli } from '../../planner/enforce/hookInstaller';
import { canonicalDirectory, nodeLocateFileSystem } from '../../node/hookFileSystem';
import { applyHookInstall, compareWithConfirmed, detectAgentClis, parseConfirmedPlan, planHookInstall } from '../../node/hookInstall';
import type { InstallPlan, PlannedChange, PlanProblem, WorktreeHook } from '../../node/hookInstall';
import { locateRepository } from '../../planner/enforce/repoLocation';
import { processLocalSessionIds } from '../../planner/plan/sessionBinding';
import { resolveStateDir } from '../../planner/plan/stateDir';

declare const __WAVE_SCOPE_LAUNCHER__: string | undefined;

/** The launcher bundle esbuild.mjs embedded in this CLI (undefined when running from source). */
function launcherTemplate(): string | undefined {
  return typeof __WAVE_SCOPE_LAUNCHER__ === 'string' ? __WAVE_SCOPE_LAUNCHER__ : undefined;
}

/** The CLI bundle running now: dist/cli.js beside the running dist/cli.js or dist/hook.js. */
function runningCliPath(): string | undefined {
  const script = process.argv[1];
  if (script === undefined) return undefined;
  const name = basename(script);
  if (name !== 'cli.js' && name !== 'hook.js') return undefined;
  const cli = join(dirname(realpathSync(script)), 'cli.js');
  return existsSync(cli) ? cli : undefined;
}

/** A global npm install of wave-scope, found without running npm: `<prefix>/lib/node_modules/wave-scope/dist/cli.js`. */
function globalInstallPath(env: NodeJS.ProcessEnv): string | undefined {
  const prefixes = [env.NPM_CONFIG_PREFIX, env.npm_config_prefix, dirname(dirname(process.execPath))].filter((prefix): prefix is string => prefix !== undefined && prefix !== '');
  for (const prefix of prefixes) {
    const cli = join(prefix, 'lib', 'node_modules', 'wave-scope', 'dist', 'cli.js');
    if (existsSync(cli)) return realpathSync(cli);
  }
  return undefined;
}

function within(root: string, path: string): boolean {
  return path === root || path.startsWith(`${root}/`);
}

function problemLine(problem: PlanProblem, mode: InstallPlan['mode']): string {
  switch (problem.reason) {
    case 'bad-settings':
      return say.badSettings(problem.path, problem.detail ?? '');
    case 'settings-is-link':
      return say.settingsIsLink(problem.path);
    case 'outside-repository':
      return say.fileOutsideRepository(problem.path, mode);
    case 'chained-exists':
      return mode === 'install' ? say.chainedExists(problem.path, problem.hook ?? '') : say.chainedInTheWay(problem.path, problem.hook ?? '');
    case 'wrapper-edited':
      return say.wrapperEdited(problem.path, problem.saved, mode);
    case 'block-edited':
      return say.blockEdited(problem.path, GIT_BLOCK_BEGIN, GIT_BLOCK_END, mode);
    case 'hook-not-a-file':
      return say.hookNotAFile(problem.path);
    case 'hooks-outside-repository':
      return say.hooksOutsideRepository(problem.path, problem.detail ?? '');
  }
}

function changeLine(change: PlannedChange, done: boolean): string {
  if (change.action === 'rename') return done ? say.renamed(change.path, change.renameTo ?? '') : say.wouldRename(change.path, change.renameTo ?? '');
  if (change.action === 'link') return done ? say.saved(change.path, change.linkTo ?? '') : say.wouldSave(change.path, change.linkTo ?? '');
  if (change.action === 'delete' && change.leftover === true) return done ? say.removedLeftover(change.path) : say.wouldRemoveLeftover(change.path);
  if (change.action === 'delete') return done ? say.removed(change.path) : say.wouldRemove(change.path);
  if (change.action === 'create') return done ? say.created(change.path) : say.wouldCreate(change.path);
  return done ? say.wrote(change.path) : say.wouldWrite(change.path);
}

/**
 * What a person should know about the checkouts whose pre-commit hook this run leaves alone, about a hook file
 * git tracks that an install changes (the guard in it is an uncommitted change an agent's `git add -A` stages),
 * and about a checkout where husky has not generated the hook git runs (so the guard there does not run yet).
 */
function worktreeNotes(worktree: WorktreeHook, plan: InstallPlan): string[] {
  switch (worktree.status) {
    case 'planned': {
      const hookFile = worktree.hookFile;
      if (plan.mode !== 'install' || hookFile === undefined) return [];
      const notes: string[] = [];
      if (worktree.tracked === true && plan.changes.some((change) => change.path === hookFile && change.leftover !== true)) {
        notes.push(say.trackedHookFile(hookFile, worktree.worktree, relative(worktree.worktree, hookFile)));
      }
      if (worktree.runnerMissing !== undefined) notes.push(say.hookRunnerMissing(worktree.worktree, worktree.runnerMissing, hookFile));
      return notes;
    }
    case 'locked':
      return [say.worktreeLocked(worktree.worktree, worktree.reason ?? '', plan.mode)];
    case 'prunable':
      return plan.mode === 'install' ? [say.worktreeGone(worktree.worktree, worktree.reason ?? '')] : [];
    case 'no-hook-file':
      return [say.worktreeWithoutHookFile(worktree.worktree, worktree.hookFile ?? '')];
    case 'shared':
      return [];
  }
}

function describePlan(io: CliIo, plan: InstallPlan, done: boolean): void {
  for (const change of plan.changes) printLine(io, changeLine(change, done));
  if (plan.changes.length === 0) printLine(io, say.unchanged(plan.repository));
}

export async function runInstallHooks(args: string[], io: CliIo): Promise<number> {
  const parsed = parseCommandLine(
    'install-hooks',
    args,
    {
      ...HOOK_TARGET_FLAGS,
      uninstall: { type: 'boolean' },
      'dry-run': { type: 'boolean' },
      json: { type: 'boolean' },
      plan: { type: 'boolean' },
      'confirmed-plan': { type: 'string' },
      'global-hooks': { type: 'boolean' },
    },
    { io, usage: say.usage, badArgumentsExit: 2 },
  );
  if ('exitCode' in parsed) return parsed.exitCode;
  const flags = parsed.values;
  const json = flags.plan === true || flags.json === true;
  const dryRun = flags.plan === true || flags['dry-run'] === true;
  if (json && !dryRun) {
    reportError(io, say.jsonNeedsDryRun);
    return 2;
  }
  const confirmedSource = flags['confirmed-plan'];
  if (confirmedSource !== undefined && dryRun) {
    reportError(io, say.confirmedPlanNeedsApply);
    return 2;
  }
  let confirmed: InstallPlan | undefined;
  if (confirmedSource !== undefined) {
    try {
      confirmed = parseConfirmedPlan(confirmedSource === '-' ? await io.readStdin() : readFileSync(confirmedSource, 'utf8'));
    } catch (error) {
      reportError(io, say.badConfirmedPlan(confirmedSource, error instanceof Error ? error.message : String(error)));
      return 2;
    }
  }
  const location = locateRepository(canonicalDirectory(io.cwd), nodeLocateFileSystem);
  if (location === undefined) {
    reportError(io, say.notInRepository(io.cwd));
    return 2;
  }
  const root = realpathSync(location.manifestRoot);
  const resolution = resolveStateDir(root, processLocalSessionIds({ env: io.env }), nodeLocateFileSystem);

  const named = AGENT_CLIS.filter((agentCli) => flags[agentCli] === true);
  const explicit = named.length > 0 || flags.git === true;
  const agentClis: AgentCli[] = explicit ? named : detectAgentClis(root).map((detected) => detected.agentCli);
  const git = explicit ? flags.git === true : true;

  const notes: string[] = [];
  const recorded: string[] = [];
  if (flags.uninstall !== true) {
    for (const cli of [runningCliPath(), globalInstallPath(io.env)]) {
      if (cli === undefined || recorded.includes(cli)) continue;
      if (within(root, cli) || within(realpathSync(location.writeRoot), cli)) notes.push(say.launcherInsideRepository(cli));
      else recorded.push(cli);
    }
  }
  const template = launcherTemplate();
  const plan = planHookInstall({
    root,
    writeRoot: location.writeRoot,
    commonDir: location.commonDir,
    stateName: resolution.name,
    agentClis,
    git,
    uninstall: flags.uninstall === true,
    removeLauncher: !explicit,
    globalHooks: flags['global-hooks'] === true,
    ...(template !== undefined ? { launcherTemplate: template } : {}),
    recorded,
    notes,
  });

  const warnings = [...plan.notes, ...plan.worktrees.flatMap((worktree) => worktreeNotes(worktree, plan))];
  if (json) {
    // Each problem also says, in the words the plain output uses, what stopped the run and how to go on.
    const problems = plan.problems.map((problem) => ({ ...problem, message: problemLine(problem, plan.mode) }));
    printLine(io, JSON.stringify({ ...plan, problems, notes: warnings }, null, 2));
    return plan.problems.length > 0 ? 1 : 0;
  }
  for (const note of warnings) reportWarning(io, note);
  if (plan.problems.length > 0) {
    for (const problem of plan.problems) reportError(io, problemLine(problem, plan.mode));
    reportNote(io, say.nothingWritten);
    return 1;
  }
  if (dryRun) {
    describePlan(io, plan, false);
    return 0;
  }
  if (confirmed !== undefined) {
    const { changed, differing } = compareWithConfirmed(confirmed, plan);
    if (changed.length > 0 || differing.length > 0) {
      reportError(io, changed.length > 0 ? say.changedSinceConfirmed(changed) : say.planNotConfirmed(differing));
      reportNote(io, say.nothingWritten);
      return 1;
    }
  }
  const result = applyHookInstall(plan);
  if (result.stoppedAt !== undefined) {
    for (const change of result.applied) printLine(io, changeLine(change, true));
    reportError(io, say.changedSincePlanned(result.stoppedAt, result.applied.map((change) => changeLine(change, true))));
    return 1;
  }
  describePlan(io, plan, true);
  return 0;
}
