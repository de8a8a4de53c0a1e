// The Node side of `wave-scope install-hooks`: reads every file an install or uninstall touches,
// asks the pure planner (planner/enforce/hookInstaller.ts) what each becomes, and returns the whole
// plan before anything is written, so a refusal anywhere leaves everything untouched and a dry run
// can show every file's text before and after. Applying the plan writes atomically (temporary file,
// fsync, rename), replaces a link rather than writing through it, and keeps each file's mode. The plan
// records what each file held when it was read (its state: a digest of its bytes, or of a link's target),
// and the apply makes no write, removal or rename over a file that holds anything else by then: a person,
// an editor or another tool that wrote it in between keeps what they wrote. The pre-commit hook is planned
// for every checkout of the repository that runs a hook file of its own (repositoryCheckouts), and the
// temporary files a killed install left beside one are removed as part of the plan (leftoverRemovals).
import { createHash } from 'node:crypto';
import {
  accessSync,
  closeSync,
  constants,
  existsSync,
  fstatSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  symlinkSync,
  unlinkSync,
} from 'node:fs';
import type { BigIntStats } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { runGit } from './git';
import { fsyncQuietly, parseTemporaryFileName, writeFileAtomicSync } from './atomicFile';
import { isProcessGone } from './processes';
import { NotARegularFileError, readRegularFileIfExists } from './declarationFs';
import {
  AGENT_CLIS,
  CHAINED_SUFFIX,
  commandFor,
  HOOK_REGISTRATIONS,
  HookConfigError,
  isWrittenWholeByInstall,
  planPreCommitInstall,
  planPreCommitRemoval,
  planSettingsInstall,
  planSettingsRemoval,
  preCommitHook,
  shellQuote,
  strictUtf8Text,
} from '../planner/enforce/hookInstaller';
import type { AgentCli, ExistingHook, HookPlan, HookRegistration, HookStep } from '../planner/enforce/hookInstaller';
import { renderLauncher } from '../planner/enforce/launcherConfig';
import { LAUNCHER_FILE_NAME } from '../planner/plan/stateDirNames';
import { parseWorktreeList } from '../planner/enforce/worktreeList';

/**
 * What is at a path: nothing, a regular file (the SHA-256 of its bytes), a symbolic link (the SHA-256 of
 * its target) or something else (a directory, a FIFO). Two states are equal when they are the same JSON.
 */
export type FileState =
  | { readonly kind: 'absent' }
  | { readonly kind: 'file'; readonly sha256: string }
  | { readonly kind: 'link'; readonly sha256: string }
  | { readonly kind: 'other' };

const ABSENT: FileState = { kind: 'absent' };

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

/**
 * How a file or link looked when it was read: its identity (device, inode) and what changes with every
 * write, rename over it, chmod or link of it (size, modification and change times, mode). Looked at again
 * with one lstat right before a change, it shows whether the very file that was read is still there,
 * unchanged, without reading it again.
 */
interface Sighting {
  readonly dev: bigint;
  readonly ino: bigint;
  readonly mode: bigint;
  readonly size: bigint;
  readonly mtimeNs: bigint;
  readonly ctimeNs: bigint;
}

function sightingOf(stats: BigIntStats): Sighting {
  return { dev: stats.dev, ino: stats.ino, mode: stats.mode, size: stats.size, mtimeNs: stats.mtimeNs, ctimeNs: stats.ctimeNs };
}

function sameSighting(a: Sighting, b: Sighting): boolean {
  return a.dev === b.dev && a.ino === b.ino && a.mode === b.mode && a.size === b.size && a.mtimeNs === b.mtimeNs && a.ctimeNs === b.ctimeNs;
}

/** What readAt found: the state, and what it was taken from (a file's bytes, a link's target) and how the entry looked then. */
interface Reading {
  readonly state: FileState;
  readonly bytes?: Buffer;
  readonly target?: Buffer;
  /** Absent when nothing is there (or it is neither a file nor a link). */
  readonly sighting?: Sighting;
}

// O_NOFOLLOW: a link put at the path after the lstat is not opened through. O_NONBLOCK: nor does a FIFO put
// there block the open. Both are 0 where the platform has no such flag.
const READ_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/**
 * What is at `path`, and the bytes its state was taken from: one read serves both. A file is read through one
 * descriptor, whose fstat (taken before the read, checked to be the file lstat saw) is its sighting, so the
 * digest, the bytes and the sighting are all of one and the same file.
 */
function readAt(path: string): Reading {
  let stats: BigIntStats | undefined;
  try {
    stats = lstatSync(path, { bigint: true });
  } catch {
    return { state: ABSENT };
  }
  if (stats.isSymbolicLink()) {
    const target = readlinkSync(path, { encoding: 'buffer' });
    // A link's target never changes in place: the same link (same inode, same times) before and after has this target.
    const after = lstatSync(path, { bigint: true, throwIfNoEntry: false });
    if (after === undefined || !sameSighting(sightingOf(stats), sightingOf(after))) return { state: { kind: 'other' } };
    return { state: { kind: 'link', sha256: sha256Of(target) }, target, sighting: sightingOf(stats) };
  }
  if (!stats.isFile()) return { state: { kind: 'other' } };
  const descriptor = openSync(path, READ_FLAGS);
  try {
    const opened = fstatSync(descriptor, { bigint: true });
    // Replaced between the lstat and the open: whatever it is now was not looked at.
    if (!opened.isFile() || opened.dev !== stats.dev || opened.ino !== stats.ino) return { state: { kind: 'other' } };
    // The state is the digest of exactly the bytes the caller plans with, never of a second read.
    const bytes = readFileSync(descriptor);
    return { state: { kind: 'file', sha256: sha256Of(bytes) }, bytes, sighting: sightingOf(opened) };
  } finally {
    closeSync(descriptor);
  }
}

/** Whether what lstat sees at `path` now is still what was sighted (nothing there, when `sighting` is undefined). */
function unchangedSince(path: string, sighting: Sighting | undefined): boolean {
  let now: BigIntStats | undefined;
  try {
    now = lstatSync(path, { bigint: true, throwIfNoEntry: false });
  } catch {
    return false;
  }
  if (sighting === undefined) return now === undefined;
  return now !== undefined && sameSighting(sighting, sightingOf(now));
}

/** readAt, when `path` holds `state`; undefined when it holds anything else or cannot be read. */
function readHolding(path: string, state: FileState): Reading | undefined {
  try {
    const reading = readAt(path);
    return sameState(reading.state, state) ? reading : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Checks, right before a change, that each of `expected` (a path and the state it must hold) holds it: each is
 * read (a file through one descriptor) and compared with its state; then, all read, each is looked at once
 * more with one lstat, the first path last, so the last calls before the change look at the file it changes.
 * A file replaced or rewritten after it was read shows there as another inode, size, time or mode. What no
 * check sees is a change made between that lstat and the change itself, and an in-place write of the same
 * length within the file system's timestamp granularity of the read (docs/hooks.md, known limits). Returns
 * the readings, in order, or the first path that does not hold its state.
 */
function checkHoldings(expected: ReadonlyArray<readonly [string, FileState]>): { readings: Reading[] } | { stoppedAt: string } {
  const readings: Reading[] = [];
  for (const [path, state] of expected) {
    const reading = readHolding(path, state);
    if (reading === undefined) return { stoppedAt: path };
    readings.push(reading);
  }
  // All are looked at, so the first path is the last; the first of them changed is the one named (a hook
  // replaced after it was read also changes its saved hard link's times, but it is the hook that changed).
  const unchanged = expected.map(() => true);
  for (let index = expected.length - 1; index >= 0; index -= 1) unchanged[index] = unchangedSince((expected[index] as readonly [string, FileState])[0], readings[index]?.sighting);
  const changed = unchanged.indexOf(false);
  return changed === -1 ? { readings } : { stoppedAt: (expected[changed] as readonly [string, FileState])[0] };
}

function sameState(a: FileState, b: FileState): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** One file an install or uninstall changes. */
export interface PlannedChange {
  /** Absolute path. */
  readonly path: string;
  /** Which part of the installation the file belongs to. */
  readonly component: AgentCli | 'git' | 'launcher';
  /** `link`: `path` is left as it is, and `linkTo` made to hold the same (a pre-commit hook saved before it is chained). */
  readonly action: 'create' | 'modify' | 'delete' | 'rename' | 'link';
  /** The whole text before (null: no such file, or not text, such as a binary hook). */
  readonly before: string | null;
  /** The whole text after (null: deleted, or moved away by a rename; a link leaves it as `before`). */
  readonly after: string | null;
  /**
   * What must be at `path` right before this change is made: what the plan read there, or nothing where an
   * earlier change of the plan moved the file away. Anything else stops the apply before this change.
   */
  readonly found: FileState;
  /** Where a rename moves the file to. */
  readonly renameTo?: string;
  /**
   * Where a link makes the file appear as well: a hard link (same bytes, same mode); for a symbolic link a new
   * one with the same target; where the file system has no hard links, a copy with the same bytes and mode.
   */
  readonly linkTo?: string;
  /** For a rename or a link: what must be at `renameTo` / `linkTo` right before it (nothing, or the wrapper a saved hook replaces). */
  readonly replaces?: FileState;
  /**
   * Where what this write or removal replaces is kept as well (the saved copy of a pre-commit hook, or the hook
   * a redundant saved copy duplicates): that file must hold `found` too, right before the change, so the
   * change never takes the last copy of a user's hook.
   */
  readonly keptAt?: string;
  /** Keep the file's current mode (true), or create it with `mode`. */
  readonly keepMode?: boolean;
  readonly mode?: number;
  /** For a removal: the file is a temporary file a killed install-hooks left beside a pre-commit hook (see leftoverRemovals). */
  readonly leftover?: boolean;
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

/**
 * What install-hooks does with one checkout of the repository (the one it runs in, or another worktree) for the
 * commit guard.
 * - `planned`: its pre-commit hook file is planned in this run (its changes, when there are any, are in `changes`);
 * - `shared`: it runs the same hook file as a checkout planned before it here (git's hooks directory is shared);
 * - `locked`: `git worktree lock`ed, so left alone (its directory may be on a disk that is not there);
 * - `prunable`: its directory is gone, so there is nothing to guard (`git worktree prune` forgets it);
 * - `no-hook-file`: an install leaves it alone, because the hook file git runs there is not there (the branch
 *   checked out there has none): creating one would add a file to that checkout.
 */
export interface WorktreeHook {
  /** The checkout's top level. */
  readonly worktree: string;
  /** Whether it is the checkout install-hooks runs in. */
  readonly current: boolean;
  readonly status: 'planned' | 'shared' | 'locked' | 'prunable' | 'no-hook-file';
  /** The pre-commit hook file git runs for commits made there; absent when it could not be asked (its directory is not there). */
  readonly hookFile?: string;
  /** For `planned`: git tracks the hook file in that checkout (`.githooks/pre-commit`, `.husky/pre-commit`), so the guard shows there as an uncommitted change. */
  readonly tracked?: boolean;
  /**
   * For `planned`, with husky's layout: the hook git runs there (`.husky/_/pre-commit`, which husky generates in
   * each checkout, and which runs the hook file) is not there, so git runs no pre-commit hook in that checkout
   * until husky sets it up (its `prepare` script).
   */
  readonly runnerMissing?: string;
  /** For `locked`: the reason given to `git worktree lock` ('' when none); for `prunable`: git's. */
  readonly reason?: string;
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
  /** With git selected: every checkout of the repository and what this run does with its pre-commit hook, the one it runs in first. */
  readonly worktrees: readonly WorktreeHook[];
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

/** A settings file or the launcher that is not a regular file (a FIFO, a directory, a device), which is never read. */
export class NotAFileError extends Error {
  constructor() {
    super('it is not a regular file but a FIFO, a directory, a socket or a device, and install-hooks reads and writes only regular files');
    this.name = 'NotAFileError';
  }
}

/**
 * The bytes of the regular file at `path`, a link followed; undefined when nothing is there. Throws
 * NotAFileError for anything but a regular file (never waiting on a FIFO: readRegularFileIfExists).
 */
function readRegularFile(path: string): Buffer | undefined {
  try {
    return readRegularFileIfExists(path);
  } catch (error) {
    if (error instanceof NotARegularFileError) throw new NotAFileError();
    throw error;
  }
}

/**
 * A settings file's or the launcher's bytes (undefined: absent) and the state they were read in (a link is read
 * through). Throws NotAFileError for anything but a regular file: readAt opens nothing else.
 */
function readBytes(path: string): { bytes: Buffer | undefined; state: FileState } {
  const { state, bytes } = readAt(path);
  if (state.kind === 'absent') return { bytes: undefined, state };
  if (state.kind === 'other') throw new NotAFileError();
  const content = bytes ?? readRegularFile(path);
  // A link that leads nowhere: nothing to read, and nothing a write should go through.
  if (content === undefined) throw new NotAFileError();
  return { bytes: content, state };
}

/** A settings file that is not UTF-8 text: editing it as text would change bytes that are not ours. */
class NotUtf8Error extends Error {
  constructor() {
    super('it is not UTF-8 text, and editing it would replace each byte that is not with U+FFFD; convert it to UTF-8 first');
    this.name = 'NotUtf8Error';
  }
}

/** What is at a hook's path, and its state; `runByGit`: git runs the file itself (not husky's, which runs it through sh). */
function existingHook(path: string, runByGit: boolean): { hook: ExistingHook; state: FileState } {
  const { state, bytes, target, sighting } = readAt(path);
  if (state.kind === 'absent') return { hook: { kind: 'absent' }, state };
  if (state.kind === 'link') return { hook: { kind: 'link', ...(target !== undefined ? { target } : {}) }, state };
  if (bytes === undefined || sighting === undefined) return { hook: { kind: 'other' }, state };
  const mode = Number(sighting.mode & 0o7777n);
  return { hook: { kind: 'file', bytes, mode, ...(runByGit && !isExecutable(path) ? { skippedByGit: true } : {}) }, state };
}

/** Whether this user may execute the file: the test git makes before it runs a hook. */
export function isExecutable(path: string): boolean {
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

/** A checkout of the repository, and where git runs hooks from for commits made in it. */
export interface CheckoutHooks {
  /** Its top level. */
  readonly worktree: string;
  /** Whether it is the checkout asked about (`writeRoot`). */
  readonly current: boolean;
  /** The reason given to `git worktree lock` ('' when none), when it is locked. */
  readonly locked?: string;
  /** git's reason, when it may be pruned (its directory is gone). */
  readonly prunable?: string;
  /** As gitHooksDirectory says from inside it; absent when its directory is not there to ask. */
  readonly hooks?: { readonly dir: string; readonly origin?: string };
}

/**
 * Every checkout of the repository that `writeRoot` belongs to (`git worktree list`; a bare repository's entry,
 * which has no work tree, is left out), `writeRoot` first, each with the hooks directory git names when asked
 * from inside it (`rev-parse --git-path hooks`). That is one shared directory, unless a relative core.hooksPath
 * (a tracked `.githooks`, husky's `.husky/_`) or a worktree's own config gives a checkout a copy of its own.
 * A checkout whose directory is not there (prunable, or locked on a disk that is away) is not asked.
 */
export function repositoryCheckouts(writeRoot: string): CheckoutHooks[] {
  const here = realLocation(writeRoot);
  const listed = parseWorktreeList(worktreeListOutput(writeRoot)).filter((worktree) => !worktree.bare);
  const others: CheckoutHooks[] = [];
  for (const worktree of listed) {
    if (realLocation(worktree.path) === here) continue;
    const flags = { ...(worktree.locked !== undefined ? { locked: worktree.locked } : {}), ...(worktree.prunable !== undefined ? { prunable: worktree.prunable } : {}) };
    let hooks: CheckoutHooks['hooks'];
    if (worktree.prunable === undefined && lstatSync(worktree.path, { throwIfNoEntry: false })?.isDirectory() === true) {
      try {
        hooks = gitHooksDirectory(worktree.path);
      } catch {
        // git cannot answer there (a checkout half removed): as good as not there.
      }
    }
    others.push({ worktree: worktree.path, current: false, ...flags, ...(hooks !== undefined ? { hooks } : {}) });
  }
  return [{ worktree: writeRoot, current: true, hooks: gitHooksDirectory(writeRoot) }, ...others];
}

/**
 * `git worktree list --porcelain -z`; where git is older than 2.36, which has no -z for it, the same list a line
 * a field (a path holding a newline is then misread, and its checkout is as good as not there).
 */
function worktreeListOutput(writeRoot: string): string {
  try {
    return runGit(writeRoot, ['worktree', 'list', '--porcelain', '-z']);
  } catch {
    return runGit(writeRoot, ['worktree', 'list', '--porcelain']).replace(/\n/g, '\0');
  }
}

/** Whether git tracks `file` in the checkout at `worktree` (its index has it); false when git cannot say. */
function isTracked(worktree: string, file: string): boolean {
  if (!within(worktree, file)) return false;
  try {
    const inside = relative(realLocation(worktree), realLocation(file));
    return runGit(worktree, ['ls-files', '-z', '--', `:(literal)${inside}`]) !== '';
  } catch {
    return false;
  }
}

/**
 * How long a temporary file of a pre-commit hook must have gone unchanged before install-hooks removes it
 * while the process named in it may still be running: an install writes and renames its wrapper within a
 * second, so one this old was left by a process that stopped.
 */
export const HOOK_LEFTOVER_MINIMUM_AGE_MS = 5 * 60 * 1000;

// Our wrapper and the hook install-hooks creates are a few hundred bytes; a larger file is not one of them.
const HOOK_LEFTOVER_MAXIMUM_SIZE = 64 * 1024;

/**
 * The removal of each temporary file a killed install-hooks left beside `hookFile` (writeFileAtomicSync names it
 * `pre-commit.<pid>.<stamp>.tmp`; git runs only hooks by their exact names, so nothing runs it, but it stays): a
 * regular file of that exact name holding, whole, a text install-hooks writes on its own (our wrapper, or a hook it
 * created: nothing of a user's), whose process is gone or which has not changed for HOOK_LEFTOVER_MINIMUM_AGE_MS.
 * Removed by mistake (a live install in another process namespace), it would only make that install fail before
 * its rename, writing nothing. A temporary file holding a user's hook with our block in it, or a copy of a hook
 * being saved, is left: it holds someone's text.
 */
function leftoverRemovals(hookFile: string, now: number): PlannedChange[] {
  const directory = dirname(hookFile);
  let names: string[];
  try {
    names = readdirSync(directory).sort();
  } catch {
    return [];
  }
  const removals: PlannedChange[] = [];
  for (const name of names) {
    const made = parseTemporaryFileName(name);
    if (made === undefined || made.target !== basename(hookFile) || made.pid === process.pid) continue;
    const path = join(directory, name);
    try {
      const stats = lstatSync(path, { throwIfNoEntry: false });
      if (stats === undefined || !stats.isFile() || stats.size > HOOK_LEFTOVER_MAXIMUM_SIZE) continue;
      const reading = readAt(path);
      if (reading.state.kind !== 'file' || reading.bytes === undefined || reading.sighting === undefined) continue;
      if (!isWrittenWholeByInstall(reading.bytes)) continue;
      const unchangedFor = now - Number(reading.sighting.mtimeNs / 1_000_000n);
      if (unchangedFor < HOOK_LEFTOVER_MINIMUM_AGE_MS && !isProcessGone(made.pid)) continue;
      removals.push({ path, component: 'git', action: 'delete', before: reading.bytes.toString('utf8'), after: null, found: reading.state, leftover: true });
    } catch {
      // Not to be read: left where it is.
    }
  }
  return removals;
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
        ...(step.keptAt !== undefined ? { keptAt: step.keptAt } : {}),
      });
      now.set(step.path, { kind: 'file', sha256: sha256Of(Buffer.from(step.text, 'utf8')) });
    } else if (step.kind === 'link') {
      const text = textOf(before.get(step.from) ?? { kind: 'absent' });
      changes.push({ path: step.from, component, action: 'link', before: text, after: text, found: stateAt(step.from), linkTo: step.to, replaces: stateAt(step.to) });
      now.set(step.to, stateAt(step.from));
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
      changes.push({
        path: step.path,
        component,
        action: 'delete',
        before: textOf(before.get(step.path) ?? { kind: 'absent' }),
        after: null,
        found: stateAt(step.path),
        ...(step.keptAt !== undefined ? { keptAt: step.keptAt } : {}),
      });
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
  let launcher: ReturnType<typeof readBytes> | undefined;
  try {
    launcher = readBytes(launcherPath);
  } catch (error) {
    if (!(error instanceof NotAFileError)) throw error;
    problems.push({ component: 'launcher', path: launcherPath, reason: 'bad-settings', detail: error.message });
  }
  // The launcher is ours and written whole: one that is not UTF-8 text (someone changed it) is rewritten, its `before` null.
  const launcherPresent = launcher?.bytes !== undefined;
  const launcherBefore = launcher?.bytes === undefined ? undefined : strictUtf8Text(launcher.bytes);
  const launcherState = launcher?.state ?? ABSENT;
  if (launcher !== undefined && !options.uninstall && options.launcherTemplate !== undefined) {
    const text = renderLauncher(options.launcherTemplate, { version: 1, recorded: options.recorded });
    if (text !== launcherBefore) {
      launcherChanges.push({ path: launcherPath, component: 'launcher', action: launcherPresent ? 'modify' : 'create', before: launcherBefore ?? null, after: text, found: launcherState, mode: 0o755 });
    }
  } else if (options.uninstall && options.removeLauncher && launcherPresent) {
    launcherChanges.push({ path: launcherPath, component: 'launcher', action: 'delete', before: launcherBefore ?? null, after: null, found: launcherState });
  }
  // The launcher goes first on install (no command may point at a launcher that is not there yet)
  // and last on uninstall (no command is left pointing at one that is gone).
  // A state directory linked elsewhere would carry our files into every repository sharing it, and the
  // launcher there would take the link's parent for its repository. Uninstalling through it would delete
  // the launcher another repository's installed commands and commit guard run.
  if (launcherChanges.length > 0 && !within(options.root, launcherPath)) {
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
      const inside = within(options.root, path);
      if (!options.uninstall && !inside) {
        problems.push({ component, path, reason: 'outside-repository' });
        continue;
      }
      const { bytes, state } = readBytes(path);
      const text = bytes === undefined ? undefined : strictUtf8Text(bytes);
      // Read lossily only to see whether anything would change: a file that is not UTF-8 is never written.
      const before = text ?? bytes?.toString('utf8');
      const plan = options.uninstall
        ? planSettingsRemoval(before, path, (registrations[0] as HookRegistration).layout)
        : planSettingsInstall(before, path, registrations, (registration) => commandFor(registration, launcherReference(registration.agentCli, options.stateName, launcherPath)));
      if (bytes !== undefined && text === undefined && plan.kind !== 'unchanged') throw new NotUtf8Error();
      // Our entries in a file shared through a linked directory are another repository's gate: an uninstall
      // here would strip it from every repository sharing the file. A shared file holding none of ours (a
      // `.claude` linked to one's dotfiles) has nothing to remove, and is no reason to refuse.
      if (!inside && plan.kind !== 'unchanged') {
        problems.push({ component, path, reason: 'outside-repository' });
        continue;
      }
      if (plan.kind === 'write') {
        changes.push({ path, component, action: before === undefined ? 'create' : 'modify', before: before ?? null, after: plan.text, found: state, ...(before === undefined ? { mode: 0o644 } : { keepMode: true }) });
      } else if (plan.kind === 'delete') {
        changes.push({ path, component, action: 'delete', before: before ?? null, after: null, found: state });
      }
    } catch (error) {
      const detail = error instanceof HookConfigError || error instanceof SyntaxError || error instanceof NotAFileError || error instanceof NotUtf8Error ? error.message : String(error);
      problems.push({ component, path, reason: 'bad-settings', detail });
    }
  }

  const worktrees: WorktreeHook[] = [];
  if (options.git) {
    // Every checkout's own hook file, as git names it from inside it, each planned once: the one install-hooks
    // runs in as it always was, and a linked worktree's copy (a relative core.hooksPath) with the same
    // planning, checks and refusals, except that one locked, gone, or without the hook file is left alone.
    const checkouts = repositoryCheckouts(options.writeRoot);
    const current = checkouts[0] as CheckoutHooks & { hooks: NonNullable<CheckoutHooks['hooks']> };
    const ownCopies = within(options.writeRoot, current.hooks.dir);
    const plannedFiles = new Set<string>();
    const now = Date.now();
    for (const checkout of checkouts) {
      const { worktree } = checkout;
      if (checkout.hooks === undefined) {
        // Not there to ask: it would run a copy of its own only where every checkout does.
        if (ownCopies) {
          worktrees.push(
            checkout.prunable !== undefined || checkout.locked === undefined
              ? { worktree, current: false, status: 'prunable', reason: checkout.prunable ?? 'its directory is not there' }
              : { worktree, current: false, status: 'locked', reason: checkout.locked },
          );
        }
        continue;
      }
      const hooks = checkout.hooks;
      const preCommit = preCommitHook(hooks.dir);
      const hookFile = preCommit.file;
      const key = realLocation(hookFile);
      if (plannedFiles.has(key)) {
        worktrees.push({ worktree, current: checkout.current, status: 'shared', hookFile });
        continue;
      }
      if (!checkout.current && checkout.locked !== undefined) {
        worktrees.push({ worktree, current: false, status: 'locked', hookFile, reason: checkout.locked });
        continue;
      }
      plannedFiles.add(key);
      const outside = !within(worktree, hooks.dir) && !within(options.commonDir, hooks.dir) && !within(options.root, hooks.dir);
      if (outside && !options.globalHooks) {
        problems.push({ component: 'git', path: hooks.dir, reason: 'hooks-outside-repository', detail: hooks.origin ?? 'git config' });
        worktrees.push({ worktree, current: checkout.current, status: 'planned', hookFile });
        continue;
      }
      const chainedPath = `${hookFile}${CHAINED_SUFFIX}`;
      const { hook: existing, state: existingState } = existingHook(hookFile, preCommit.runner === 'git');
      if (!checkout.current && !options.uninstall && existing.kind === 'absent') {
        worktrees.push({ worktree, current: false, status: 'no-hook-file', hookFile });
        continue;
      }
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
        : planPreCommitInstall(hookFile, existing, chained, `node ${shellQuote(launcherPath)} commit-guard`, preCommit.runner);
      const result = hookChanges(plan, before, states, 'git');
      changes.push(...result.changes, ...leftoverRemovals(hookFile, now));
      if (result.problem !== undefined) problems.push(result.problem);
      const runnerMissing = preCommit.runner === 'husky' && lstatSync(preCommit.gitRuns, { throwIfNoEntry: false }) === undefined;
      worktrees.push({ worktree, current: checkout.current, status: 'planned', hookFile, tracked: isTracked(worktree, hookFile), ...(runnerMissing ? { runnerMissing: preCommit.gitRuns } : {}) });
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
    worktrees,
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
 * rename's or a link's target counts too (it must still be absent, or still be the wrapper a saved hook
 * replaces), and so does the file a change's `keptAt` names (it must hold what the change replaces).
 */
export function expectedStates(changes: readonly PlannedChange[]): Map<string, FileState> {
  const expected = new Map<string, FileState>();
  for (const change of changes) {
    if (!expected.has(change.path)) expected.set(change.path, change.found);
    const target = change.renameTo ?? change.linkTo;
    if (target !== undefined && !expected.has(target)) expected.set(target, change.replaces ?? ABSENT);
    if (change.keptAt !== undefined && !expected.has(change.keptAt)) expected.set(change.keptAt, change.found);
  }
  return expected;
}

/** The files of `expected` that hold something else now, in order. */
export function changedFiles(expected: ReadonlyMap<string, FileState>): string[] {
  return [...expected].filter(([path, state]) => !sameState(fileStateOf(path), state)).map(([path]) => path);
}

/** What each change must find right before it is made: its own file, a rename's or link's target, and where `keptAt` says its file is kept. */
function holdingsBefore(change: PlannedChange): Array<[string, FileState]> {
  const target = change.renameTo ?? change.linkTo;
  return [[change.path, change.found], ...(target !== undefined ? [[target, change.replaces ?? ABSENT] as [string, FileState]] : []), ...(change.keptAt !== undefined ? [[change.keptAt, change.found] as [string, FileState]] : [])];
}

// Why link() can fail where a copy still works: no hard links on this file system (FAT, some network and FUSE
// mounts: EPERM, ENOTSUP, EOPNOTSUPP, ENOSYS), fs.protected_hardlinks refusing a link to a file another user
// owns (EPERM), the file's link count at its limit (EMLINK), a different mount (EXDEV, which a hooks
// directory bind-mounted file by file could give).
const NO_HARD_LINK = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EMLINK', 'EXDEV']);

/**
 * Makes `to` hold the same as `from`, as `from` was read (`source`), leaving `from` untouched: a hard link; for
 * a symbolic link, a new one with the very target that was read; where no hard link can be made, a copy of
 * the very bytes that were read, with the same mode, written and fsynced under a temporary name and renamed
 * into place, so it is never seen half written. Each is made only where nothing is (link and symlink refuse
 * an existing name; the copy checks right before its rename). `exists`: something took `to` first; `gone`:
 * `from` is no longer there. The caller makes the directory durable.
 */
function keepSameAt(from: string, to: string, source: Reading): 'made' | 'exists' | 'gone' {
  try {
    if (source.state.kind === 'link' && source.target !== undefined) symlinkSync(source.target, to);
    else linkSync(from, to);
    return 'made';
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    if (code === 'EEXIST') return 'exists';
    if (code === 'ENOENT') return 'gone';
    if (source.state.kind !== 'file' || source.bytes === undefined || source.sighting === undefined || !NO_HARD_LINK.has(code)) throw error;
  }
  // Renamed into place only while nothing is at `to` yet; the caller fsyncs the directory.
  const written = writeFileAtomicSync(to, source.bytes, { mode: Number(source.sighting.mode & 0o7777n), beforeRename: () => unchangedSince(to, undefined), syncDirectory: false });
  return written ? 'made' : 'exists';
}

/**
 * Carries out a plan without problems, in order. Every file is checked first (each must still hold what the
 * plan read), then each change is made only after checking again, right before it, every file it touches or
 * relies on (checkHoldings: each read, then each looked at with one lstat, the last calls before the
 * change): the file it writes, removes, renames or links, a rename's or a link's target, and where `keptAt`
 * says its file is kept. A write checks once its new content is written and fsynced, right before the rename
 * that puts it in place. A link is made durable (its directory fsynced) before the next change, so a power cut
 * never keeps the wrapper that runs the saved hook without the saved hook. At the first file that holds
 * anything else, nothing more is done: the result says which file, and which changes were made before it.
 */
export function applyHookInstall(plan: InstallPlan): AppliedInstall {
  if (plan.problems.length > 0) throw new Error('a plan with problems is not applied');
  const first = changedFiles(expectedStates(plan.changes))[0];
  if (first !== undefined) return { applied: [], stoppedAt: first };
  const applied: PlannedChange[] = [];
  for (const change of plan.changes) {
    const holdings = holdingsBefore(change);
    const checked = checkHoldings(holdings);
    if ('stoppedAt' in checked) return { applied, stoppedAt: checked.stoppedAt };
    if (change.action === 'create' || change.action === 'modify') {
      mkdirSync(dirname(change.path), { recursive: true });
      const current = change.keepMode === true ? lstatSync(change.path, { throwIfNoEntry: false }) : undefined;
      if (change.keepMode === true && current === undefined) return { applied, stoppedAt: change.path };
      const mode = current !== undefined ? current.mode & 0o7777 : (change.mode ?? 0o644);
      let stoppedAt: string | undefined;
      const beforeRename = () => {
        const last = checkHoldings(holdings);
        stoppedAt = 'stoppedAt' in last ? last.stoppedAt : undefined;
        return stoppedAt === undefined;
      };
      if (!writeFileAtomicSync(change.path, change.after ?? '', { mode, beforeRename })) return { applied, stoppedAt: stoppedAt ?? change.path };
    } else if (change.action === 'delete') {
      unlinkSync(change.path);
    } else if (change.action === 'link' && change.linkTo !== undefined) {
      // The copy is made of exactly what was just checked: the target read, or the bytes read, for a copy.
      const made = keepSameAt(change.path, change.linkTo, checked.readings[0] as Reading);
      if (made === 'exists') return { applied, stoppedAt: change.linkTo };
      if (made === 'gone') return { applied, stoppedAt: change.path };
      fsyncQuietly(dirname(change.linkTo));
      applied.push(change);
      // A hard link names whatever the hook's name named at that instant: another writer's file, had one
      // replaced the hook since the check. Then it is left where it is (it may be the only copy of theirs),
      // and the run stops before anything replaces the hook, naming the hook (or the copy, when only it changed).
      if (readHolding(change.linkTo, change.found) === undefined) return { applied, stoppedAt: readHolding(change.path, change.found) === undefined ? change.path : change.linkTo };
      continue;
    } else if (change.renameTo !== undefined) {
      renameSync(change.path, change.renameTo);
    }
    applied.push(change);
  }
  return { applied };
}

/** The part of a change that decides what is written: two plans that agree on these for every change do the same. */
function decisive(change: PlannedChange): unknown[] {
  return [change.path, change.action, change.found, change.after, change.renameTo ?? null, change.linkTo ?? null, change.replaces ?? null, change.keptAt ?? null, change.keepMode ?? false, change.mode ?? null];
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
