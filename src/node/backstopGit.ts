// The Node side of the backstop's `SnapshotHost`: git as a child process, and the work tree read
// with synchronous system calls. Direct `child_process.spawn` rather than simple-git: both run the
// same git commands, and bench/backstopSnapshot.ts measures them against each other on the same
// repository (docs/hooks.md quotes the numbers).
import { spawn } from 'node:child_process';
import { closeSync, fstatSync, lstatSync, openSync, readdirSync, readlinkSync, readSync, realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { createHash } from 'node:crypto';
import type { Hash } from 'node:crypto';
import type { ObjectFormat, SnapshotHost, WorkTreeState } from '../planner/backstop/snapshot';
import { fileStatKey } from '../planner/backstop/gitOutput';
import { scanGitConfig } from '../planner/enforce/gitConfig';
import { readTextIfExists } from './declarationFs';
import { gitEnvironment } from './git';
import { nodeLocateFileSystem } from './hookFileSystem';

/** git failed: its exit status and what it said. */
export class GitCommandError extends Error {
  constructor(
    readonly args: readonly string[],
    readonly exitCode: number | null,
    readonly stderr: string,
  ) {
    super(`git ${args.join(' ')} failed (${exitCode === null ? 'killed' : `exit ${exitCode}`}): ${stderr.trim() || 'no message'}`);
    this.name = 'GitCommandError';
  }
}

/**
 * Every git call of the backstop runs with `core.fsmonitor` off: a config a turn could write (a
 * repository it planted where `run` is later started, found by red-team review, 2026-12-06) names a
 * program there that git would run for any status.
 */
const PINNED_CONFIG = ['-c', 'core.fsmonitor=false'];

/**
 * Runs git in `cwd` with `args`, feeding `input` on stdin; resolves with stdout as UTF-8. (git.ts's
 * `runGitAsync` runs git through execFile, which cannot feed stdin; the backstop's scoped commit
 * (`--pathspec-from-file=-`) and its commit listing (`diff-tree --stdin`) need it.)
 */
export function spawnGit(cwd: string, args: readonly string[], options: { input?: string; env?: NodeJS.ProcessEnv } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', [...PINNED_CONFIG, ...args], {
      cwd,
      env: gitEnvironment(options.env),
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout?.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(Buffer.concat(out).toString('utf8'));
      else reject(new GitCommandError(args, code, Buffer.concat(err).toString('utf8')));
    });
    if (options.input !== undefined && child.stdin !== null) {
      child.stdin.on('error', () => undefined);
      child.stdin.end(options.input);
    }
  });
}

/** Files up to this size are read in one call; larger ones are hashed in chunks of this size. */
const CHUNK = 8 * 1024 * 1024;

function blobHash(format: ObjectFormat, size: number): Hash {
  return createHash(format === 'sha256' ? 'sha256' : 'sha1').update(`blob ${size}\0`);
}

/** The blob id of the file at `path`, and its stat as an index entry records it (fileStatKey), of the file read. */
function hashFile(path: string, format: ObjectFormat): { oid: string; statKey: string } {
  const fd = openSync(path, 'r');
  try {
    const stats = fstatSync(fd, { bigint: true });
    const size = Number(stats.size);
    const statKey = fileStatKey({ ctimeSeconds: stats.ctimeNs / 1_000_000_000n, mtimeSeconds: stats.mtimeNs / 1_000_000_000n, ino: stats.ino, size: stats.size });
    const hash = blobHash(format, size);
    const buffer = Buffer.allocUnsafe(Math.min(Math.max(size, 1), CHUNK));
    let remaining = size;
    while (remaining > 0) {
      const read = readSync(fd, buffer, 0, Math.min(buffer.length, remaining), null);
      if (read === 0) break;
      hash.update(buffer.subarray(0, read));
      remaining -= read;
    }
    return { oid: hash.digest('hex'), statKey };
  } finally {
    closeSync(fd);
  }
}

function statText(stats: { size: number; mtimeMs: number; ino: number }): string {
  return `${stats.size}:${stats.mtimeMs}:${stats.ino}`;
}

/** What one path of the work tree holds, hashed as git would hash it as a blob (no clean filters). */
export function inspectWorkTreePath(root: string, path: string, format: ObjectFormat): WorkTreeState {
  const absolute = path.startsWith('/') ? path : `${root}/${path.replace(/\/$/, '')}`;
  let stats;
  try {
    stats = lstatSync(absolute, { throwIfNoEntry: false });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOTDIR' || code === 'ENOENT') return { kind: 'missing' };
    return { kind: 'unreadable', stat: `lstat ${code ?? 'failed'}` };
  }
  if (stats === undefined) return { kind: 'missing' };
  try {
    if (stats.isSymbolicLink()) {
      const target = readlinkSync(absolute, { encoding: 'buffer' });
      return { kind: 'symlink', oid: blobHash(format, target.length).update(target).digest('hex') };
    }
    if (stats.isDirectory()) return { kind: 'directory' };
    if (!stats.isFile()) return { kind: 'unreadable', stat: `special ${statText(stats)}` };
    // git records a file as executable when its owner may execute it.
    return { kind: 'file', executable: (stats.mode & 0o100) !== 0, ...hashFile(absolute, format) };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { kind: 'missing' };
    return { kind: 'unreadable', stat: statText(stats) };
  }
}

/**
 * git's files that change what git ignores or runs, for a snapshot to watch: the shared config, this
 * work tree's own config (`config.worktree` in its git dir, read when `extensions.worktreeConfig` is
 * on), the shared `info/exclude` and `info/attributes` (whose filters decide what git's status calls
 * clean), every file of the hooks directory; named as under `.git/` of the work tree.
 */
export function gitControlFiles(commonDir: string, gitDir: string = commonDir): Array<{ name: string; path: string }> {
  const files = [
    { name: '.git/config', path: `${commonDir}/config` },
    { name: '.git/config.worktree', path: `${gitDir}/config.worktree` },
    { name: '.git/info/exclude', path: `${commonDir}/info/exclude` },
    { name: '.git/info/attributes', path: `${commonDir}/info/attributes` },
    // Where git finds the common directory from this git directory (a linked work tree's); none in a main one.
    { name: '.git/commondir', path: `${gitDir}/commondir` },
  ];
  let hooks: string[] = [];
  try {
    hooks = readdirSync(`${commonDir}/hooks`).sort();
  } catch {
    // No hooks directory: nothing to watch there (one created by the turn is a new file below).
  }
  for (const name of hooks) files.push({ name: `.git/hooks/${name}`, path: `${commonDir}/hooks/${name}` });
  return files;
}

/**
 * Every other file git reads its configuration or its ignore rules from for this repository, as a snapshot
 * watches them: the system and global config files (`~/.gitconfig`, `$XDG_CONFIG_HOME/git/config`, those
 * `GIT_CONFIG_GLOBAL`/`GIT_CONFIG_SYSTEM` name, /etc/gitconfig), every file a config includes
 * (`include.path`, `includeIf`, whatever its condition), and the global excludes file at its default place
 * (`$XDG_CONFIG_HOME/git/ignore`). An agent's shell outside `--confine` can write them, and a filter defined
 * there, named by a new `.gitattributes` of the agent's scope, ran during the snapshot's status and wrote
 * unseen (found by red-team review, 2026-12-06), as a global excludes file hid a new file. Named under
 * `.git/` (control state): a file of the common directory by its path there, any other as
 * `.git/<outside> <absolute path>`. Those `already` lists are left out. Throws when a config cannot be
 * parsed (git could not either).
 */
export function gitConfigFiles(commonDir: string, gitDir: string, env: NodeJS.ProcessEnv, already: ReadonlySet<string>): Array<{ name: string; path: string }> {
  // An empty `env` (a submodule's host) leaves out the system and global files: the repository's own and what they include.
  const home = env.HOME !== undefined && env.HOME !== '' ? env.HOME : undefined;
  const scan = scanGitConfig({ commonDir, gitDir, env, ...(home !== undefined ? { homeDir: home } : {}), fs: { readText: readTextIfExists, realPath: nodeLocateFileSystem.realPath } });
  const xdg = env.XDG_CONFIG_HOME !== undefined && env.XDG_CONFIG_HOME !== '' ? env.XDG_CONFIG_HOME : home !== undefined ? `${home}/.config` : undefined;
  const paths = [...scan.files, ...(xdg !== undefined ? [`${xdg}/git/ignore`] : [])];
  const files: Array<{ name: string; path: string }> = [];
  for (const path of new Set(paths)) {
    if (already.has(path)) continue;
    files.push({ name: path.startsWith(`${commonDir}/`) ? `.git/${path.slice(commonDir.length + 1)}` : `.git/<outside> ${path}`, path });
  }
  return files;
}

/** How recent (ms) an index file's times may be and still be taken by its stat data alone (git's racily clean rule). */
const RACY_INDEX_MS = 2000;

/**
 * What tells one index from another, hex; undefined when there is none. Equal answers mean the same index, so
 * a snapshot reuses the listing it took under it. Not the checksum git keeps in the index's last bytes alone:
 * git verifies that only in `git fsck`, so a turn could rewrite an entry in place and keep the last bytes
 * (found by red-team review, 2026-12-06), and with `index.skipHash` they are zeros. The file's identity and
 * stat data (inode, size, mtime and ctime to the nanosecond: a write moves the ctime, which no process can
 * set back) are taken with them, of the index and of any shared index a split index reads
 * (`sharedindex.<id>`). A file whose times are within two seconds of now, where a write in the same clock
 * tick could keep them, tells nothing: undefined, so no listing is reused to or from it (git's racily clean
 * rule; hashing such a file whole instead gave it another answer once it aged, and a listing taken then was
 * never reused again).
 */
export function readIndexChecksum(gitDir: string, now = Date.now()): string | undefined {
  const digest = createHash('sha256');
  let names: string[];
  try {
    names = ['index', ...readdirSync(gitDir).filter((name) => name.startsWith('sharedindex.')).sort()];
  } catch {
    return undefined;
  }
  for (const name of names) {
    let fd: number | undefined;
    try {
      fd = openSync(`${gitDir}/${name}`, 'r');
      const stats = fstatSync(fd, { bigint: true });
      if (name === 'index' && stats.size < 32n) return undefined;
      digest.update(`${name}\0${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}\0`);
      if (Number(stats.ctimeNs / 1_000_000n) >= now - RACY_INDEX_MS || Number(stats.mtimeNs / 1_000_000n) >= now - RACY_INDEX_MS) return undefined;
      const tail = Buffer.alloc(32);
      readSync(fd, tail, 0, 32, Math.max(0, Number(stats.size) - 32));
      digest.update(tail);
    } catch {
      if (name === 'index') return undefined;
      // A shared index gone meanwhile: the answer differs from one taken with it, so nothing is reused.
      digest.update(`${name}\0gone\0`);
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }
  return digest.digest('hex').slice(0, 40);
}

/**
 * `core.ignorecase` as the repository's own config files set it (the global config, which an agent's shell
 * can write, left out); undefined when they cannot be read (git's own reading then stands).
 */
function repositoryIgnoreCase(commonDir: string, gitDir: string): boolean | undefined {
  try {
    return scanGitConfig({ commonDir, gitDir, env: {}, fs: { readText: readTextIfExists, realPath: nodeLocateFileSystem.realPath } }).ignoreCase;
  } catch {
    return undefined;
  }
}

/**
 * The variables that tie git to one repository (`git rev-parse --local-env-vars` lists them), which git
 * itself clears before it runs in a submodule: a nested repository is found, and snapshotted, as git would
 * find it from its own directory. (GIT_NO_REPLACE_OBJECTS and GIT_GRAFT_FILE are put back by gitEnvironment.)
 */
const REPOSITORY_VARIABLES = [
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_CONFIG',
  'GIT_CONFIG_PARAMETERS',
  'GIT_CONFIG_COUNT',
  'GIT_OBJECT_DIRECTORY',
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_IMPLICIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_REPLACE_REF_BASE',
  'GIT_PREFIX',
  'GIT_INTERNAL_SUPER_PREFIX',
  'GIT_SHALLOW_FILE',
  'GIT_COMMON_DIR',
];

function withoutRepositoryVariables(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const cleared = { ...env };
  for (const name of REPOSITORY_VARIABLES) delete cleared[name];
  return cleared;
}

/**
 * The host of the repository whose work tree is the directory `directory` (below a snapshot's root):
 * undefined when it is not a directory, or git takes it for a directory of the repository around it (an
 * uninitialised submodule); rejects when git fails there (a gitfile that leads nowhere), which the
 * snapshot records as a nested repository it cannot read. Its git and common directory are resolved once,
 * here, and pinned on every later call, as the enclosing repository's are. (`env` is already cleared of
 * git's per-repository variables, as git clears them for a submodule.)
 */
async function nestedSnapshotHost(directory: string, env: NodeJS.ProcessEnv): Promise<SnapshotHost | undefined> {
  const stats = lstatSync(directory, { throwIfNoEntry: false });
  if (stats === undefined || !stats.isDirectory()) return undefined;
  const options = ['--show-prefix', '--absolute-git-dir', '--git-common-dir'];
  let answers = (await spawnGit(directory, ['rev-parse', ...options], { env })).split('\n');
  // A path with a newline in it spans lines (found by red-team review, 2026-12-06): each is asked alone then.
  if (answers.length !== options.length + 1 || directory.includes('\n')) {
    answers = await Promise.all(options.map(async (option) => (await spawnGit(directory, ['rev-parse', option], { env })).replace(/\n$/, '')));
  }
  const [prefix, gitDir, commonDir] = answers;
  // git found the repository around it (no repository of the directory's own): a prefix names where in it.
  if (prefix !== '' || gitDir === undefined || commonDir === undefined) return undefined;
  return nodeSnapshotHost(directory, { env, gitDir, commonDir: resolve(directory, commonDir), ownConfigOnly: true });
}

/** How many entries filesBelow reads before it gives up (the directory is then one git cannot read). */
const MAX_FILES_BELOW = 100_000;

/**
 * Every entry below `directory` (relative to `root`), never through a link, with what it holds. A directory
 * reached through a link (itself, or one above it) is not walked: that throws, and the snapshot records the
 * directory as one it cannot read.
 */
function filesBelow(root: string, directory: string, format: ObjectFormat): Array<{ path: string; state: WorkTreeState }> {
  if (realpathSync(`${root}/${directory}`) !== `${realpathSync(root)}/${directory}`) throw new Error(`${directory} is reached through a link`);
  const found: Array<{ path: string; state: WorkTreeState }> = [];
  const pending = [directory];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const entries = readdirSync(`${root}/${next}`, { withFileTypes: true });
    if (found.length + entries.length > MAX_FILES_BELOW) throw new Error(`more than ${MAX_FILES_BELOW} entries below ${directory}`);
    for (const entry of entries) {
      const path = `${next}/${entry.name}`;
      if (entry.isDirectory()) pending.push(path);
      else found.push({ path, state: inspectWorkTreePath(root, path, format) });
    }
  }
  return found;
}

/**
 * The snapshot host of the work tree whose top level is `root`. With `gitDir`, the index checksum
 * lets a snapshot reuse an earlier listing of an unchanged index (one git process fewer), and every git
 * call about the work tree is told that git directory and work tree (`--git-dir`, `--work-tree`): git
 * otherwise finds its repository anew at each call, and a turn that made `.git` unusable (its HEAD moved
 * aside) had git take the top level for a git directory, reading an index the turn forged there while the
 * one hashed stayed as it was (found by red-team review, 2026-12-06); pinned, such a git fails, and the
 * turn with it. (A nested repository's HEAD is asked in it, `headOf`.) With `commonDir`, the
 * common directory is pinned too (GIT_COMMON_DIR), and git's config (the work tree's own too, with
 * `gitDir`), `info/exclude`, `info/attributes`, `commondir` and hooks are watched, with the work tree's
 * `.git` and every other config file git reads (gitConfigFiles). Its submodules get hosts of their own
 * (`nested`), made the same way; a directory no repository of its own is walked without git (`filesBelow`).
 */
export function nodeSnapshotHost(root: string, options: { env?: NodeJS.ProcessEnv; gitDir?: string; commonDir?: string; ownConfigOnly?: boolean } = {}): SnapshotHost {
  const { gitDir, commonDir } = options;
  // The system's attributes file (/etc/gitattributes) is not read either, as the global one is not
  // (PINNED_CHANGE_SETTINGS): an agent's shell that runs as root, as in many containers, can write it
  // (found by red-team review, 2026-12-06).
  //
  // And none of git's per-repository variables (GIT_INDEX_FILE, GIT_DIR, GIT_CONFIG_PARAMETERS, …) comes
  // through: inherited by `run`, or exported by a login profile an agent wrote and an agent CLI's hook shell
  // sources, GIT_INDEX_FILE had git read an index of the agent's while the one fingerprinted stayed as it was
  // (found by red-team review, 2026-12-06).
  const env = { ...withoutRepositoryVariables(options.env ?? process.env), GIT_ATTR_NOSYSTEM: '1' };
  // The common directory too: git follows a `commondir` file in any git directory, which a turn can write
  // (pointing its config, info/exclude, refs and objects at a copy of its own: a fifth review, 2026-12-06).
  const pinnedEnv = commonDir !== undefined ? { ...env, GIT_COMMON_DIR: commonDir } : env;
  // And core.ignoreCase, as the repository's own config says (where `git init` records what the file system
  // does): a global `core.ignorecase=true`, which an agent's shell can write, made git take a new `makefile`
  // beside the tracked `Makefile` for it, so the new file was never listed (a sixth review, 2026-12-06).
  const ignoreCase = gitDir !== undefined && commonDir !== undefined ? repositoryIgnoreCase(commonDir, gitDir) : undefined;
  const pins = ignoreCase === undefined ? [] : ['-c', `core.ignoreCase=${ignoreCase}`];
  return {
    git: (args, gitOptions) =>
      gitDir === undefined
        ? spawnGit(root, args, { ...gitOptions, env })
        : spawnGit(root, [`--git-dir=${gitDir}`, `--work-tree=${root}`, ...pins, ...args], { ...gitOptions, env: pinnedEnv }),
    headOf: async (path) => (await spawnGit(`${root}/${path}`, ['rev-parse', '-q', '--verify', 'HEAD'], { env })).trim() || undefined,
    inspect: async (paths, format) => paths.map((path) => inspectWorkTreePath(root, path, format)),
    ...(gitDir !== undefined ? { indexChecksum: async () => readIndexChecksum(gitDir) } : {}),
    // The work tree's own `.git` too (a directory, or a gitfile naming the git directory): a turn that pointed it
    // at a copy of its own had every later `run` and hook locate another repository, with a plan of the
    // agent's (found by red-team review, 2026-12-06).
    ...(commonDir !== undefined
      ? {
          gitFiles: async () => {
            const own = [{ name: '.git', path: `${root}/.git` }, ...gitControlFiles(commonDir, gitDir)];
            // A submodule's host watches its own repository's config files only: the system and global ones are
            // the checkout's host's to watch, once.
            return [...own, ...gitConfigFiles(commonDir, gitDir ?? commonDir, options.ownConfigOnly === true ? {} : env, new Set(own.map((file) => file.path)))];
          },
        }
      : {}),
    ...(gitDir !== undefined ? { location: JSON.stringify([gitDir, commonDir ?? null]) } : {}),
    nested: (path) => nestedSnapshotHost(`${root}/${path}`, env),
    filesBelow: async (path, format) => filesBelow(root, path, format),
  };
}
