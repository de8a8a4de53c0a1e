// The Node side of `wave-scope install-hooks`: reads every file an install or uninstall touches,
// asks the pure planner (planner/enforce/hookInstaller.ts) what each becomes, and returns the whole
// plan before anything is written, so a refusal anywhere leaves everything untouched and a dry run
// can show every file's text before and after. Applying the plan writes atomically (temporary file,
// fsync, rename), replaces a link rather than writing through it, and keeps each file's mode.
import { accessSync, constants, existsSync, lstatSync, mkdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { runGit } from './git';
import { writeFileAtomicSync } from './atomicFile';
import {
  AGENT_CLIS,
  CHAINED_SUFFIX,
  commandFor,
  HOOK_REGISTRATIONS,
  HookConfigError,
  planPreCommitInstall,
  planPreCommitRemoval,
  planSettingsInstall,
  planSettingsRemoval,
  preCommitHookPath,
  shellQuote,
} from '../planner/enforce/hookInstaller';
import type { AgentCli, ExistingHook, HookPlan, HookRegistration, HookStep } from '../planner/enforce/hookInstaller';
import { renderLauncher } from '../planner/enforce/launcherConfig';
import { LAUNCHER_FILE_NAME } from '../planner/plan/stateDirNames';

/** One file an install or uninstall changes. */
export interface PlannedChange {
  /** Absolute path. */
  readonly path: string;
  /** Which part of the installation the file belongs to. */
  readonly component: AgentCli | 'git' | 'launcher';
  readonly action: 'create' | 'modify' | 'delete' | 'rename';
  /** The whole text before (null: no such file, or not text, such as a binary hook). */
  readonly before: string | null;
  /** The whole text after (null: deleted, or moved away by a rename). */
  readonly after: string | null;
  /** Where a rename moves the file to. */
  readonly renameTo?: string;
  /** Keep the file's current mode (true), or create it with `mode`. */
  readonly keepMode?: boolean;
  readonly mode?: number;
}

/** Something that stops the whole plan (nothing is written). */
export interface PlanProblem {
  readonly component: AgentCli | 'git' | 'launcher';
  readonly path: string;
  readonly reason:
    | 'bad-settings'
    | 'settings-is-link'
    | 'outside-repository'
    | 'chained-exists'
    | 'chained-orphan'
    | 'wrapper-edited'
    | 'block-edited'
    | 'hook-not-a-file'
    | 'hooks-outside-repository';
  /** For `bad-settings`: what is wrong; for `hooks-outside-repository`: where core.hooksPath is set. */
  readonly detail?: string;
  /** For `chained-*`: the hook the saved one belongs to. */
  readonly hook?: string;
  /** For `wrapper-edited`: the saved hook the wrapper runs, when it is there. */
  readonly saved?: string;
}

/** Which agent CLIs a repository uses, and what says so. */
export interface DetectedCli {
  readonly agentCli: AgentCli;
  /** Repository-relative paths whose presence says the repository uses it. */
  readonly evidence: readonly string[];
}

/** The whole plan of one install-hooks run: what `--dry-run --json` prints. */
export interface InstallPlan {
  readonly version: 1;
  readonly mode: 'install' | 'uninstall';
  /** The coordinator's checkout (canonical). */
  readonly repository: string;
  /** The launcher the installed commands run. */
  readonly launcher: string;
  readonly detected: readonly DetectedCli[];
  readonly selected: { readonly agentClis: readonly AgentCli[]; readonly git: boolean };
  readonly changes: readonly PlannedChange[];
  readonly problems: readonly PlanProblem[];
  /** Notes for a person (e.g. a CLI that was not recorded). */
  readonly notes: readonly string[];
}

/** What says a repository uses each agent CLI: its project directory, or the instruction file it reads. */
const EVIDENCE: Readonly<Record<AgentCli, readonly string[]>> = {
  claude: ['.claude', 'CLAUDE.md', '.mcp.json'],
  codex: ['.codex', 'AGENTS.md'],
  cursor: ['.cursor', '.cursorrules'],
  gemini: ['.gemini', 'GEMINI.md'],
};

export function detectAgentClis(root: string): DetectedCli[] {
  return AGENT_CLIS.map((agentCli) => ({ agentCli, evidence: EVIDENCE[agentCli].filter((path) => existsSync(join(root, path))) })).filter(
    (detected) => detected.evidence.length > 0,
  );
}

function readText(path: string): string | undefined {
  return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
}

/** What is at a hook's path; `runByGit`: git runs the file itself (not husky's, which runs it through sh). */
function existingHook(path: string, runByGit: boolean): ExistingHook {
  let stats;
  try {
    stats = lstatSync(path);
  } catch {
    return { kind: 'absent' };
  }
  if (stats.isSymbolicLink()) return { kind: 'link' };
  if (!stats.isFile()) return { kind: 'other' };
  return { kind: 'file', bytes: readFileSync(path), ...(runByGit && !isExecutable(path) ? { skippedByGit: true } : {}) };
}

/** Whether this user may execute the file: the test git makes before it runs a hook. */
function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function textOf(hook: ExistingHook): string | null {
  if (hook.kind !== 'file') return null;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(hook.bytes);
  } catch {
    return null;
  }
}

/** Where `path` really is: its nearest existing ancestor resolved (links and all), the rest appended. */
function realLocation(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    const parent = dirname(path);
    return parent === path ? path : join(realLocation(parent), basename(path));
  }
}

/** Whether `path` really lies inside `root`, a file not yet created included (its directory may be a link). */
function within(root: string, path: string): boolean {
  const r = realLocation(root);
  const p = realLocation(path);
  return p === r || p.startsWith(`${r}/`);
}

/** Where git runs hooks from for this checkout, as git itself says, and where core.hooksPath was set when it was. */
export function gitHooksDirectory(topLevel: string): { dir: string; origin?: string } {
  let dir = runGit(topLevel, ['rev-parse', '--path-format=absolute', '--git-path', 'hooks']).trim();
  if (!dir.startsWith('/')) dir = join(topLevel, dir);
  try {
    const line = runGit(topLevel, ['config', '--show-scope', '--show-origin', '--get', 'core.hooksPath']).trim();
    const [scope, origin] = line.split('\t');
    return { dir, origin: `${origin ?? '?'} (${scope ?? '?'} scope)` };
  } catch {
    return { dir };
  }
}

/**
 * The hooks directories of the other worktrees, when git runs hooks from inside the work tree (a relative
 * core.hooksPath such as `.githooks` or husky's `.husky/_`): git resolves that path in each worktree, so
 * each linked worktree runs its own copy, which an install here does not reach. Empty otherwise.
 */
export function otherWorktreesHooks(writeRoot: string, commonDir: string): string[] {
  const here = gitHooksDirectory(writeRoot).dir;
  if (within(commonDir, here) || !within(writeRoot, here)) return [];
  const inside = relative(realpathSync(writeRoot), here);
  const worktrees = runGit(writeRoot, ['worktree', 'list', '--porcelain', '-z'])
    .split('\0')
    .filter((line) => line.startsWith('worktree '))
    .map((line) => line.slice('worktree '.length));
  return worktrees.filter((worktree) => !within(writeRoot, worktree)).map((worktree) => join(worktree, inside));
}

export interface PlanOptions {
  /** The coordinator's checkout (canonical). */
  readonly root: string;
  /** The checkout install-hooks runs in (its git hooks are edited). */
  readonly writeRoot: string;
  readonly commonDir: string;
  /** The state directory's name (`.claude`). */
  readonly stateName: string;
  readonly agentClis: readonly AgentCli[];
  readonly git: boolean;
  readonly uninstall: boolean;
  /** Remove the launcher too (an uninstall of everything). */
  readonly removeLauncher: boolean;
  readonly globalHooks: boolean;
  /** The launcher bundle's text (unrendered), or undefined when uninstalling. */
  readonly launcherTemplate?: string;
  /** `dist/cli.js` files to record in the launcher. */
  readonly recorded: readonly string[];
  readonly notes?: readonly string[];
}

/** The command that names the launcher for one agent CLI (Claude Code's survives a moved checkout). */
export function launcherReference(agentCli: AgentCli, stateName: string, launcherPath: string): string {
  return agentCli === 'claude' ? `"$CLAUDE_PROJECT_DIR"/${shellQuote(`${stateName}/${LAUNCHER_FILE_NAME}`)}` : shellQuote(launcherPath);
}

function hookChanges(plan: HookPlan, before: Map<string, ExistingHook>, component: 'git'): { changes: PlannedChange[]; problem?: PlanProblem } {
  if (plan.kind === 'refused') {
    if (plan.reason === 'not-a-file') return { changes: [], problem: { component, path: plan.path, reason: 'hook-not-a-file', hook: plan.path } };
    if (plan.reason === 'block-edited') return { changes: [], problem: { component, path: plan.path, reason: plan.reason } };
    if (plan.reason === 'wrapper-edited') {
      const saved = `${plan.path}${CHAINED_SUFFIX}`;
      return { changes: [], problem: { component, path: plan.path, reason: plan.reason, ...((before.get(saved)?.kind ?? 'absent') !== 'absent' ? { saved } : {}) } };
    }
    return { changes: [], problem: { component, path: plan.path, reason: plan.reason, hook: plan.path.slice(0, -CHAINED_SUFFIX.length) } };
  }
  const changes: PlannedChange[] = [];
  for (const step of plan.steps as HookStep[]) {
    if (step.kind === 'write') {
      const existing = before.get(step.path) ?? { kind: 'absent' as const };
      // A path a rename earlier in this plan moved away from is created afresh.
      const moved = changes.some((change) => change.action === 'rename' && change.path === step.path);
      const present = existing.kind !== 'absent' && !moved;
      changes.push({
        path: step.path,
        component,
        action: present ? 'modify' : 'create',
        before: present ? textOf(existing) : null,
        after: step.text,
        ...(present && step.keepMode ? { keepMode: true } : { mode: 0o755 }),
      });
    } else if (step.kind === 'rename') {
      changes.push({ path: step.from, component, action: 'rename', before: textOf(before.get(step.from) ?? { kind: 'absent' }), after: null, renameTo: step.to });
    } else {
      changes.push({ path: step.path, component, action: 'delete', before: textOf(before.get(step.path) ?? { kind: 'absent' }), after: null });
    }
  }
  return { changes };
}

/** Plans one install or uninstall. Reads files and asks git; writes nothing. */
export function planHookInstall(options: PlanOptions): InstallPlan {
  const launcherPath = join(options.root, options.stateName, LAUNCHER_FILE_NAME);
  const changes: PlannedChange[] = [];
  const problems: PlanProblem[] = [];

  const launcherChanges: PlannedChange[] = [];
  const launcherBefore = readText(launcherPath);
  if (!options.uninstall && options.launcherTemplate !== undefined) {
    const text = renderLauncher(options.launcherTemplate, { version: 1, recorded: options.recorded });
    if (text !== launcherBefore) {
      launcherChanges.push({ path: launcherPath, component: 'launcher', action: launcherBefore === undefined ? 'create' : 'modify', before: launcherBefore ?? null, after: text, mode: 0o755 });
    }
  } else if (options.uninstall && options.removeLauncher && launcherBefore !== undefined) {
    launcherChanges.push({ path: launcherPath, component: 'launcher', action: 'delete', before: launcherBefore, after: null });
  }
  // The launcher goes first on install (no command may point at a launcher that is not there yet)
  // and last on uninstall (no command is left pointing at one that is gone).
  // A state directory linked elsewhere would carry our files into every repository sharing it, and the
  // launcher there would take the link's parent for its repository.
  if (!options.uninstall && launcherChanges.length > 0 && !within(options.root, launcherPath)) {
    problems.push({ component: 'launcher', path: launcherPath, reason: 'outside-repository' });
  }
  if (!options.uninstall) changes.push(...launcherChanges);

  const files = new Map<string, HookRegistration[]>();
  for (const registration of HOOK_REGISTRATIONS) {
    if (!options.agentClis.includes(registration.agentCli)) continue;
    files.set(registration.configFile, [...(files.get(registration.configFile) ?? []), registration]);
  }
  for (const [file, registrations] of files) {
    const path = join(options.root, file);
    const component = (registrations[0] as HookRegistration).agentCli;
    try {
      if (lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink() === true) {
        problems.push({ component, path, reason: 'settings-is-link' });
        continue;
      }
      if (!options.uninstall && !within(options.root, path)) {
        problems.push({ component, path, reason: 'outside-repository' });
        continue;
      }
      const before = readText(path);
      const plan = options.uninstall
        ? planSettingsRemoval(before, path, (registrations[0] as HookRegistration).layout)
        : planSettingsInstall(before, path, registrations, (registration) => commandFor(registration, launcherReference(registration.agentCli, options.stateName, launcherPath)));
      if (plan.kind === 'write') {
        changes.push({ path, component, action: before === undefined ? 'create' : 'modify', before: before ?? null, after: plan.text, ...(before === undefined ? { mode: 0o644 } : { keepMode: true }) });
      } else if (plan.kind === 'delete') {
        changes.push({ path, component, action: 'delete', before: before ?? null, after: null });
      }
    } catch (error) {
      const detail = error instanceof HookConfigError || error instanceof SyntaxError ? error.message : String(error);
      problems.push({ component, path, reason: 'bad-settings', detail });
    }
  }

  if (options.git) {
    const hooks = gitHooksDirectory(options.writeRoot);
    const outside = !within(options.writeRoot, hooks.dir) && !within(options.commonDir, hooks.dir) && !within(options.root, hooks.dir);
    const hookFile = preCommitHookPath(hooks.dir);
    if (outside && !options.globalHooks) {
      problems.push({ component: 'git', path: hooks.dir, reason: 'hooks-outside-repository', detail: hooks.origin ?? 'git config' });
    } else {
      const chainedPath = `${hookFile}${CHAINED_SUFFIX}`;
      const existing = existingHook(hookFile, hookFile === join(hooks.dir, 'pre-commit'));
      const chained = existingHook(chainedPath, false);
      const before = new Map<string, ExistingHook>([
        [hookFile, existing],
        [chainedPath, chained],
      ]);
      const plan = options.uninstall
        ? planPreCommitRemoval(hookFile, existing, chained)
        : planPreCommitInstall(hookFile, existing, chained, `node ${shellQuote(launcherPath)} commit-guard`);
      const result = hookChanges(plan, before, 'git');
      changes.push(...result.changes);
      if (result.problem !== undefined) problems.push(result.problem);
    }
  }
  if (options.uninstall) changes.push(...launcherChanges);

  return {
    version: 1,
    mode: options.uninstall ? 'uninstall' : 'install',
    repository: options.root,
    launcher: launcherPath,
    detected: detectAgentClis(options.root),
    selected: { agentClis: [...options.agentClis], git: options.git },
    changes,
    problems,
    notes: [...(options.notes ?? [])],
  };
}

/** Carries out a plan without problems, in order. Returns what was done, one entry per change. */
export function applyHookInstall(plan: InstallPlan): PlannedChange[] {
  if (plan.problems.length > 0) throw new Error('a plan with problems is not applied');
  for (const change of plan.changes) {
    if (change.action === 'create' || change.action === 'modify') {
      mkdirSync(dirname(change.path), { recursive: true });
      const mode = change.keepMode === true ? statSync(change.path).mode & 0o7777 : (change.mode ?? 0o644);
      writeFileAtomicSync(change.path, change.after ?? '', { mode });
    } else if (change.action === 'delete') {
      rmSync(change.path, { force: true });
    } else if (change.renameTo !== undefined) {
      if (lstatSync(change.renameTo, { throwIfNoEntry: false }) !== undefined) throw new Error(`${change.renameTo} appeared while installing; nothing more was changed`);
      renameSync(change.path, change.renameTo);
    }
  }
  return [...plan.changes];
}
