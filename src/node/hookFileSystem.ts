// Node implementations of the small file-system interfaces the write gate and the commit guard take.
// Kept apart from git.ts so the hook bundle loads `node:fs` and nothing that spawns processes.
//
// Control files (manifests, scope files, git's pointers and config) are read defensively: an agent
// that can put something where one is expected must not be able to hang the hook (a FIFO waits for a
// writer until the agent CLI's timeout, which most CLIs read as "no decision"), make it read for a
// minute (a link to /dev/zero), or make a broken file read as "no file" (a link that leads nowhere).
// Only a regular file under a size cap, read within a time budget, is read; anything else throws, and
// the gate's catch denies.
import { closeSync, constants, fstatSync, lstatSync, openSync, readlinkSync, readSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import type { LocateFileSystem } from '../planner/enforce/repoLocation';
import type { TargetFileSystem } from '../planner/enforce/writeTarget';

/** The largest control file read (a manifest of thousands of entries is a few hundred KiB). */
export const MAX_CONTROL_FILE_BYTES = 8 * 1024 * 1024;
/** The longest one control file may take to read. */
export const CONTROL_READ_BUDGET_MS = 2000;

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/**
 * lstat, or undefined when nothing is at `path` (or a parent is missing or not a directory); without an
 * exception for a missing entry (exceptions cost more than the system call on this path).
 */
export function lstatQuiet(path: string) {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

function statQuiet(path: string) {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (isMissing(error) || code === 'ELOOP') return undefined;
    throw error;
  }
}

function parentOf(path: string): string {
  const cut = path.lastIndexOf('/');
  return cut <= 0 ? '/' : path.slice(0, cut);
}

/** Why a control file cannot be read safely. */
export class ControlFileError extends Error {
  constructor(
    readonly path: string,
    readonly reason: 'dangling-link' | 'not-a-file' | 'too-large' | 'too-slow',
    message: string,
  ) {
    super(message);
    this.name = 'ControlFileError';
  }
}

/**
 * The text of a control file, or undefined when nothing is there (and nothing pretends to be: a link
 * at the path, or as its directory, that leads nowhere is an error, not an absence).
 */
export function readControlFile(path: string, options: { maxBytes?: number; budgetMs?: number; now?: () => number } = {}): string | undefined {
  const maxBytes = options.maxBytes ?? MAX_CONTROL_FILE_BYTES;
  const budget = options.budgetMs ?? CONTROL_READ_BUDGET_MS;
  const now = options.now ?? Date.now;
  const entry = lstatQuiet(path);
  if (entry === undefined) {
    const parent = lstatQuiet(parentOf(path));
    if (parent !== undefined && parent.isSymbolicLink() && statQuiet(parentOf(path)) === undefined) {
      throw new ControlFileError(path, 'dangling-link', `${parentOf(path)} is a symbolic link that leads nowhere, so ${path} cannot be read`);
    }
    return undefined;
  }
  if (entry.isSymbolicLink() && statQuiet(path) === undefined) {
    throw new ControlFileError(path, 'dangling-link', `${path} is a symbolic link that leads nowhere`);
  }
  const started = now();
  // O_NONBLOCK: a FIFO put there after the check above still opens at once instead of waiting for a writer.
  const descriptor = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | (constants.O_NOCTTY ?? 0));
  try {
    const stats = fstatSync(descriptor);
    if (!stats.isFile()) throw new ControlFileError(path, 'not-a-file', `${path} is not a regular file`);
    if (stats.size > maxBytes) throw new ControlFileError(path, 'too-large', `${path} is larger than ${maxBytes} bytes`);
    const buffer = Buffer.allocUnsafe(Math.min(Math.max(stats.size, 0), maxBytes) + 1);
    let length = 0;
    for (;;) {
      if (now() - started > budget) throw new ControlFileError(path, 'too-slow', `${path} took longer than ${budget} ms to read`);
      if (length >= buffer.length) throw new ControlFileError(path, 'too-large', `${path} grew past ${maxBytes} bytes while being read`);
      const read = readSync(descriptor, buffer, length, buffer.length - length, null);
      if (read === 0) break;
      length += read;
      if (length > maxBytes) throw new ControlFileError(path, 'too-large', `${path} is larger than ${maxBytes} bytes`);
    }
    return buffer.toString('utf8', 0, length);
  } finally {
    closeSync(descriptor);
  }
}

/**
 * The real file system for target resolution. A missing entry (or a dangling link) is `undefined`;
 * every other error (permission denied, a name too long, an I/O error) is thrown, so the hook's
 * catch denies.
 */
export const nodeTargetFileSystem: TargetFileSystem = {
  realpath(path) {
    const stats = lstatQuiet(path);
    if (stats === undefined) return undefined;
    if (stats.isSymbolicLink() && statQuiet(path) === undefined) return undefined;
    // realpath(3): kernel semantics for every component (Node's JS realpathSync folds `..` lexically first).
    return realpathSync.native(path);
  },
  readlink(path) {
    const stats = lstatQuiet(path);
    if (stats === undefined || !stats.isSymbolicLink()) return undefined;
    return readlinkSync(path);
  },
};

export const nodeLocateFileSystem: LocateFileSystem = {
  kind(path) {
    const stats = statQuiet(path);
    if (stats === undefined) return undefined;
    if (stats.isDirectory()) return 'dir';
    return stats.isFile() ? 'file' : 'other';
  },
  readText: (path) => readControlFile(path),
};

/** The canonical form of an existing directory (the payload's cwd, the checkout root), as the kernel resolves it. */
export function canonicalDirectory(path: string): string {
  return realpathSync.native(path);
}

/** The user's home directory (`$HOME`, else the password database), for `~` in paths; undefined when there is none. */
export function homeDirectory(): string | undefined {
  try {
    const home = homedir();
    return home.startsWith('/') ? home : undefined;
  } catch {
    return undefined;
  }
}
