// The Node side of `wave-scope install-hooks`: reads every file an install or uninstall touches,
// asks the pure planner (planner/enforce/hookInstaller.ts) what each becomes, and returns the whole
// plan before anything is written, so a refusal anywhere leaves everything untouched and a dry run
// can show every file's text before and after. Applying the plan writes atomically (temporary file,
// fsync, rename), replaces a link rather than writing through it, and keeps each file's mode. The plan
// records what each file held when it was read (its state: a digest of its bytes, or of a link's target),
// and the apply makes no write, removal or rename over a file that holds anything else by then: a person,
// an editor or another tool that wrote it in between keeps what they wrote.
import { createHash } from 'node:crypto';
import { accessSync, constants, existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, realpathSync, renameSync, unlinkSync } from 'node:fs';
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

/**
 * What is at a path: nothing, a regular file (the SHA-256 of its bytes), a symbolic link (the SHA-256 of
 * its target) or something else (a directory, a FIFO). Two states are equal when they are the same JSON.
 */
export type FileState =
  | { readonly kind: 'absent' }
  | { readonly kind: 'file'; readonly sha256: string }
  | { readonly kind: 'link'; readonly sha256: string }
  | { readonly kind: 'other' };

function sha256Of(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** What is at `path` now (a link is not followed); a file that cannot be read counts as `other`, never as what was planned. */
export function fileStateOf(path: string): FileState {
  try {
    return readAt(path).state;
  } catch {
    return { kind: 'other' };
  }
}

/** What is at `path`, and the bytes its state was taken from when it is a file: one read serves both. */
function readAt(path: string): { state: FileState; bytes?: Buffer } {
  let stats;
  try {
    stats = lstatSync(path);
  } catch {
    return { state: { kind: 'absent' } };
  }
  if (stats.isSymbolicLink()) return { state: { kind: 'link', sha256: sha256Of(readlinkSync(path, { encoding: 'buffer' })) } };
  if (!stats.isFile()) return { state: { kind: 'other' } };
  // The state is the digest of exactly the bytes the caller plans with, never of a second read.
  const bytes = readFileSync(path);
  return { state: { kind: 'file', sha256: sha256Of(bytes) }, bytes };
}

function sameState(a: FileState, b: FileState): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

const ABSENT: FileState = { kind: 'absent' };

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
  /**
   * What must be at `path` right before this change is made: what the plan read there, or nothing where an
   * earlier change of the plan moved the file away. Anything else stops the apply before this change.
   */
  readonly found: FileState;
  /** Where a rename moves the file to. */
  readonly renameTo?: string;
  /** For a rename: what must be at `renameTo` right before it (nothing, or the wrapper a saved hook replaces). */
  readonly replaces?: FileState;
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
    | 'wrapper-edited'
    | 'block-edited'
    | 'hook-not-a-file'
    | 'hooks-outside-repository';
  /** For `bad-settings`: what is wrong; for `hooks-outside-repository`: where core.hooksPath is set. */
  readonly detail?: string;
  /** For `chained-exists`: the hook the saved one belongs to. */
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

/** A settings file's or the launcher's text (undefined: absent) and the state it was read in (a link is read through). */
function readText(path: string): { text: string | undefined; state: FileState } {
  const { state, bytes } = readAt(path);
  if (state.kind === 'absent') return { text: undefined, state };
  return { text: (bytes ?? readFileSync(path)).toString('utf8'), state };
}

/** What is at a hook's path, and its state; `runByGit`: git runs the file itself (not husky's, which runs it through sh). */
function existingHook(path: string, runByGit: boolean): { hook: ExistingHook; state: FileState } {
  const { state, bytes } = readAt(path);
  if (state.kind === 'absent') return { hook: { kind: 'absent' }, state };
  if (state.kind === 'link') return { hook: { kind: 'link' }, state };
  if (bytes === undefined) return { hook: { kind: 'other' }, state };
  return { hook: { kind: 'file', bytes, ...(runByGit && !isExecutable(path) ? { skippedByGit: true } : {}) }, state };
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

function hookChanges(plan: HookPlan, before: Map<string, ExistingHook>, states: Map<string, FileState>, component: 'git'): { changes: PlannedChange[]; problem?: PlanProblem } {
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
  // What each path holds right before each step: as read, until a rename of this plan moves it.
  const now = new Map(states);
  const stateAt = (path: string) => now.get(path) ?? ABSENT;
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
        found: stateAt(step.path),
        ...(present && step.keepMode ? { keepMode: true } : { mode: 0o755 }),
      });
      now.set(step.path, { kind: 'file', sha256: sha256Of(Buffer.from(step.text, 'utf8')) });
    } else if (step.kind === 'rename') {
      changes.push({
        path: step.from,
        component,
        action: 'rename',
        before: textOf(before.get(step.from) ?? { kind: 'absent' }),
        after: null,
        found: stateAt(step.from),
        renameTo: step.to,
        replaces: stateAt(step.to),
      });
      now.set(step.to, stateAt(step.from));
      now.set(step.from, ABSENT);
    } else {
      changes.push({ path: step.path, component, action: 'delete', before: textOf(before.get(step.path) ?? { kind: 'absent' }), after: null, found: stateAt(step.path) });
      now.set(step.path, ABSENT);
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
  const { text: launcherBefore, state: launcherState } = readText(launcherPath);
  if (!options.uninstall && options.launcherTemplate !== undefined) {
    const text = renderLauncher(options.launcherTemplate, { version: 1, recorded: options.recorded });
    if (text !== launcherBefore) {
      launcherChanges.push({ path: launcherPath, component: 'launcher', action: launcherBefore === undefined ? 'create' : 'modify', before: launcherBefore ?? null, after: text, found: launcherState, mode: 0o755 });
    }
  } else if (options.uninstall && options.removeLauncher && launcherBefore !== undefined) {
    launcherChanges.push({ path: launcherPath, component: 'launcher', action: 'delete', before: launcherBefore, after: null, found: launcherState });
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
      const { text: before, state } = readText(path);
      const plan = options.uninstall
        ? planSettingsRemoval(before, path, (registrations[0] as HookRegistration).layout)
        : planSettingsInstall(before, path, registrations, (registration) => commandFor(registration, launcherReference(registration.agentCli, options.stateName, launcherPath)));
      if (plan.kind === 'write') {
        changes.push({ path, component, action: before === undefined ? 'create' : 'modify', before: before ?? null, after: plan.text, found: state, ...(before === undefined ? { mode: 0o644 } : { keepMode: true }) });
      } else if (plan.kind === 'delete') {
        changes.push({ path, component, action: 'delete', before: before ?? null, after: null, found: state });
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
      const { hook: existing, state: existingState } = existingHook(hookFile, hookFile === join(hooks.dir, 'pre-commit'));
      const { hook: chained, state: chainedState } = existingHook(chainedPath, false);
      const before = new Map<string, ExistingHook>([
        [hookFile, existing],
        [chainedPath, chained],
      ]);
      const states = new Map<string, FileState>([
        [hookFile, existingState],
        [chainedPath, chainedState],
      ]);
      const plan = options.uninstall
        ? planPreCommitRemoval(hookFile, existing, chained)
        : planPreCommitInstall(hookFile, existing, chained, `node ${shellQuote(launcherPath)} commit-guard`);
      const result = hookChanges(plan, before, states, 'git');
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

/** What applyHookInstall did: every change it made, and where it stopped when a file no longer held what the plan read. */
export interface AppliedInstall {
  /** The changes made, in order. */
  readonly applied: readonly PlannedChange[];
  /** The file that held something else than the plan read (nothing was written from there on). */
  readonly stoppedAt?: string;
}

/**
 * What each file the plan touches must hold before its first change: the state the plan read it in. A
 * rename's target counts too (it must still be absent, or still be the wrapper a saved hook replaces).
 */
export function expectedStates(changes: readonly PlannedChange[]): Map<string, FileState> {
  const expected = new Map<string, FileState>();
  for (const change of changes) {
    if (!expected.has(change.path)) expected.set(change.path, change.found);
    if (change.renameTo !== undefined && !expected.has(change.renameTo)) expected.set(change.renameTo, change.replaces ?? ABSENT);
  }
  return expected;
}

/** The files of `expected` that hold something else now, in order. */
export function changedFiles(expected: ReadonlyMap<string, FileState>): string[] {
  return [...expected].filter(([path, state]) => !sameState(fileStateOf(path), state)).map(([path]) => path);
}

/**
 * Carries out a plan without problems, in order. Every file is checked first (each must still hold what the
 * plan read), then each change is made only after checking again, right before it, the file it writes,
 * removes or renames (and a rename's target): a write checks once its new content is written and fsynced,
 * right before the rename that puts it in place. At the first file that holds anything else, nothing more is
 * done: the result says which file, and which changes were made before it.
 */
export function applyHookInstall(plan: InstallPlan): AppliedInstall {
  if (plan.problems.length > 0) throw new Error('a plan with problems is not applied');
  const first = changedFiles(expectedStates(plan.changes))[0];
  if (first !== undefined) return { applied: [], stoppedAt: first };
  const applied: PlannedChange[] = [];
  const holds = (path: string, state: FileState) => sameState(fileStateOf(path), state);
  for (const change of plan.changes) {
    if (!holds(change.path, change.found)) return { applied, stoppedAt: change.path };
    if (change.action === 'create' || change.action === 'modify') {
      mkdirSync(dirname(change.path), { recursive: true });
      const current = change.keepMode === true ? lstatSync(change.path, { throwIfNoEntry: false }) : undefined;
      if (change.keepMode === true && current === undefined) return { applied, stoppedAt: change.path };
      const mode = current !== undefined ? current.mode & 0o7777 : (change.mode ?? 0o644);
      if (!writeFileAtomicSync(change.path, change.after ?? '', { mode, beforeRename: () => holds(change.path, change.found) })) return { applied, stoppedAt: change.path };
    } else if (change.action === 'delete') {
      unlinkSync(change.path);
    } else if (change.renameTo !== undefined) {
      if (!holds(change.renameTo, change.replaces ?? ABSENT)) return { applied, stoppedAt: change.renameTo };
      renameSync(change.path, change.renameTo);
    }
    applied.push(change);
  }
  return { applied };
}

/** The part of a change that decides what is written: two plans that agree on these for every change do the same. */
function decisive(change: PlannedChange): unknown[] {
  return [change.path, change.action, change.found, change.after, change.renameTo ?? null, change.replaces ?? null, change.keepMode ?? false, change.mode ?? null];
}

/**
 * Which files a plan confirmed by a person (the JSON `--plan` printed, shown as a preview) and the plan made
 * now disagree on. `changed`: files that hold something else than when the confirmed plan read them.
 * `differing`: with every file as it was, files the plan now would change otherwise (another install, a
 * launcher of another version, another hooks directory), or the plans' mode or targets differ.
 */
export function compareWithConfirmed(confirmed: InstallPlan, fresh: InstallPlan): { changed: string[]; differing: string[] } {
  const changed = changedFiles(expectedStates(confirmed.changes));
  if (changed.length > 0) return { changed, differing: [] };
  const differing: string[] = [];
  if (confirmed.mode !== fresh.mode || JSON.stringify(confirmed.selected) !== JSON.stringify(fresh.selected)) differing.push(fresh.repository);
  const count = Math.max(confirmed.changes.length, fresh.changes.length);
  for (let index = 0; index < count; index += 1) {
    const a = confirmed.changes[index];
    const b = fresh.changes[index];
    if (a !== undefined && b !== undefined && JSON.stringify(decisive(a)) === JSON.stringify(decisive(b))) continue;
    for (const path of [a?.path, b?.path]) if (path !== undefined && !differing.includes(path)) differing.push(path);
  }
  return { changed: [], differing };
}

/** Reads a plan `--plan` printed, checking the fields the comparison reads. Throws a sentence for a person otherwise. */
export function parseConfirmedPlan(text: string): InstallPlan {
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (error) {
    throw new Error(`it is not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  const plan = value as Partial<InstallPlan> | null;
  if (typeof plan !== 'object' || plan === null || plan.version !== 1 || (plan.mode !== 'install' && plan.mode !== 'uninstall') || !Array.isArray(plan.changes)) {
    throw new Error('it is not a plan printed by "install-hooks --plan" (version 1, mode, changes)');
  }
  const isState = (state: unknown) => typeof state === 'object' && state !== null && typeof (state as { kind?: unknown }).kind === 'string';
  for (const change of plan.changes as unknown[]) {
    const item = change as Partial<PlannedChange> | null;
    if (typeof item !== 'object' || item === null || typeof item.path !== 'string' || typeof item.action !== 'string' || !isState(item.found) || (item.replaces !== undefined && !isState(item.replaces))) {
      throw new Error('a change of it lacks its path, action or the state the file was read in (found)');
    }
  }
  return plan as InstallPlan;
}
