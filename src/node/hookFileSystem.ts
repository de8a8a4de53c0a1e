// Node implementations of the small file-system interfaces the write gate and the commit guard take.
// Kept apart from git.ts so the hook bundle loads `node:fs` and nothing that spawns processes.
//
// Control files (manifests, scope files, git's pointers and config) are read defensively: an agent
// that can put something where one is expected must not be able to hang the hook (a FIFO waits for a
// writer until the agent CLI's timeout, which most CLIs read as "no decision"), make it read for a
// minute (a link to /dev/zero), or make a broken file read as "no file" (a link that leads nowhere).
// Only a regular file under a size cap, read within a time budget, is read; anything else throws, and
// the gate's catch denies.
//
// Wave Scope's own control files (a state directory's files, the dispatch ledger, the backstop's saved
// snapshots) are read more strictly still (readOwnControlFile): only as Wave Scope writes them, a
// regular file with one link, reached from the repository root through real directories. A symbolic
// link on the way, or a second name of the file, could lie in an agent's scope, and the agent's allowed
// write there would rewrite the rules it is judged by. git's own files are read as git reads them, links
// followed (readControlFile), with one link when they lie inside the checkout (`singleLink`).
import { closeSync, constants, fstatSync, lstatSync, openSync, readlinkSync, readSync, realpathSync, statSync } from 'node:fs';
import type { Stats } from 'node:fs';
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
export type ControlFileProblem =
  | 'dangling-link'
  | 'not-a-file'
  | 'too-large'
  | 'too-slow'
  /** One of our own files is a symbolic link, or is reached through one below the repository root. */
  | 'linked'
  /** The file has more than one name (a hard link). */
  | 'hard-linked'
  /** One of our own files was asked for outside the root it is read from. */
  | 'outside-root';

/** A control file that cannot be read safely, with the path to name and why. */
export class ControlFileError extends Error {
  constructor(
    readonly path: string,
    readonly reason: ControlFileProblem,
    message: string,
  ) {
    super(message);
    this.name = 'ControlFileError';
  }
}

/** How much of a control file is read, and how long it may take. */
export interface ControlReadOptions {
  maxBytes?: number;
  budgetMs?: number;
  now?: () => number;
  /** Refuse a file with more than one link (git's files inside the checkout). */
  singleLink?: boolean;
}

/**
 * The text of a control file, or undefined when nothing is there (and nothing pretends to be: a link
 * at the path, or as its directory, that leads nowhere is an error, not an absence). Links are
 * followed, as git follows them: for git's own files. Wave Scope's files go through readOwnControlFile.
 */
export function readControlFile(path: string, options: ControlReadOptions = {}): string | undefined {
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
  const started = (options.now ?? Date.now)();
  // O_NONBLOCK: a FIFO put there after the check above still opens at once instead of waiting for a writer.
  const descriptor = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | (constants.O_NOCTTY ?? 0));
  try {
    const stats = checkedStats(descriptor, path, options.singleLink === true);
    return readDescriptor(descriptor, path, stats, started, options);
  } finally {
    closeSync(descriptor);
  }
}

/** One of Wave Scope's own control files, read: its text and when it was last modified. */
export interface OwnControlFile {
  readonly text: string;
  readonly mtimeMs: number;
}

/**
 * One of Wave Scope's own control files below `root` (a state directory's manifest, scope files and
 * aggregates, the session record, the dispatch ledger), or undefined when nothing is there. Read only as
 * Wave Scope writes them: a regular file with one link (every writer replaces the file by a rename),
 * reached from `root` through real directories. `root` itself (the repository root, canonical) may have
 * been reached through a link. Throws a ControlFileError naming the path otherwise: a symbolic link as
 * the file or on the way to it (`linked`), a second name (`hard-linked`), a link that leads nowhere, or
 * what readControlFile refuses. A link on the way that leads to nothing at the path is an absence (a
 * `.claude` shared between repositories holds no plan), since nothing there can decide anything.
 */
export function readOwnControlFile(root: string, path: string, options: Omit<ControlReadOptions, 'singleLink'> = {}): OwnControlFile | undefined {
  const opened = openOwnFile(root, path);
  if (opened === undefined) return undefined;
  const started = (options.now ?? Date.now)();
  try {
    return { text: readDescriptor(opened.descriptor, path, opened.stats, started, options), mtimeMs: opened.stats.mtimeMs };
  } finally {
    closeSync(opened.descriptor);
  }
}

/**
 * Opens one of Wave Scope's own files below `root` for reading, as readOwnControlFile describes; the
 * caller closes the descriptor. Undefined when nothing is there. Exported for files read without the
 * control-file cap (the backstop's saved snapshots).
 */
export function openOwnFile(root: string, path: string): { descriptor: number; stats: Stats } | undefined {
  const base = root.endsWith('/') ? root : `${root}/`;
  if (!path.startsWith(base) || path.length === base.length) {
    throw new ControlFileError(path, 'outside-root', `${path} is not below ${root}, where it is read from`);
  }
  const segments = path.slice(base.length).split('/');
  // Segments are walked as spelled: `..` or an empty one would leave the checked way (the paths are joined from checked parts).
  if (segments.some((segment) => segment === '' || segment === '.' || segment === '..')) {
    throw new ControlFileError(path, 'outside-root', `${path} is not a plain path below ${root}, where it is read from`);
  }
  let current = base.slice(0, -1);
  for (let index = 0; index < segments.length; index += 1) {
    current = `${current}/${segments[index] as string}`;
    const entry = lstatQuiet(current);
    if (entry === undefined) return undefined;
    if (entry.isSymbolicLink()) {
      if (statQuiet(current) === undefined) throw new ControlFileError(path, 'dangling-link', `${current} is a symbolic link that leads nowhere, so ${path} cannot be read`);
      // Through a link: nothing at the end decides nothing; anything at the end is refused.
      if (lstatQuiet(path) === undefined) return undefined;
      throw new ControlFileError(path, 'linked', linkedMessage(root, path, current));
    }
    if (index < segments.length - 1 && !entry.isDirectory()) return undefined;
  }
  let descriptor: number | undefined;
  try {
    descriptor = openThroughRealDirectories(base.slice(0, -1), segments, root, path);
  } catch (error) {
    if (isMissing(error)) return undefined;
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw new ControlFileError(path, 'linked', linkedMessage(root, path, path));
    throw error;
  }
  if (descriptor === undefined) return undefined;
  try {
    return { descriptor, stats: checkedStats(descriptor, path, true) };
  } catch (error) {
    closeSync(descriptor);
    throw error;
  }
}

// Linux names every open descriptor by a path: /proc/self/fd/<n>/<name> is <name> inside the very
// directory descriptor <n> holds, whatever its path names by then.
const DESCRIPTOR_PATHS = '/proc/self/fd';
let descriptorPathsWork: boolean | undefined;

/**
 * Opens the file `segments` name below `top` for reading, the file itself never through a link (ELOOP).
 * The walk in openOwnFile looked at each directory on the way by its path, but a directory swapped for a
 * link after that look would be followed by an open of the whole path. So on Linux each directory is
 * opened from the one before by descriptor, never through a link, and the file from the last of them:
 * what is opened lies below directories that are real when it is opened. A directory turned into a link
 * meanwhile is refused as `linked`; one gone, or turned into a file, is an absence, as in the walk.
 * Elsewhere (no /proc) the whole path is opened, only its last segment not followed. Exported for its
 * tests: it looks at nothing before it opens, so what it finds on the way is what a race would leave there.
 */
export function openThroughRealDirectories(top: string, segments: readonly string[], root: string, path: string): number | undefined {
  const fileFlags = constants.O_RDONLY | constants.O_NONBLOCK | (constants.O_NOCTTY ?? 0) | (constants.O_NOFOLLOW ?? 0);
  if (process.platform !== 'linux') return openSync(path, fileFlags);
  // The top (the repository root) may itself have been reached through a link, as in the walk.
  let directory = openSync(top, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    descriptorPathsWork ??= statSync(`${DESCRIPTOR_PATHS}/${directory}`, { throwIfNoEntry: false })?.isDirectory() === true;
    if (!descriptorPathsWork) return openSync(path, fileFlags);
    let reached = top;
    for (const segment of segments.slice(0, -1)) {
      reached = `${reached}/${segment}`;
      let next: number;
      try {
        next = openSync(`${DESCRIPTOR_PATHS}/${directory}/${segment}`, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== 'ENOTDIR' && code !== 'ELOOP') throw error;
        // Linux answers ENOTDIR for a link opened with O_DIRECTORY | O_NOFOLLOW, as for a file: which it is.
        if (lstatQuiet(`${DESCRIPTOR_PATHS}/${directory}/${segment}`)?.isSymbolicLink() === true) {
          throw new ControlFileError(path, 'linked', linkedMessage(root, path, reached));
        }
        return undefined;
      }
      closeSync(directory);
      directory = next;
    }
    return openSync(`${DESCRIPTOR_PATHS}/${directory}/${segments[segments.length - 1] as string}`, fileFlags);
  } finally {
    closeSync(directory);
  }
}

function linkedMessage(root: string, path: string, link: string): string {
  const where = link === path ? `${path} is a symbolic link` : `${path} is reached through the symbolic link ${link}`;
  return `${where}: Wave Scope reads its control files only as regular files reached from ${root} through real directories, as its own writers leave them; remove the link`;
}

/** The open file's stats, refused when it is not a regular file or (with `singleLink`) has another name. */
function checkedStats(descriptor: number, path: string, singleLink: boolean): Stats {
  const stats = fstatSync(descriptor);
  if (!stats.isFile()) throw new ControlFileError(path, 'not-a-file', `${path} is not a regular file`);
  if (singleLink && stats.nlink > 1) {
    throw new ControlFileError(
      path,
      'hard-linked',
      `${path} has ${stats.nlink} links: another name of it could be written without touching this one, so it is read only with one (its writers replace it by a rename, which leaves one). Copy it and move the copy over it to break the link`,
    );
  }
  return stats;
}

/** Reads an open regular file whole, within the size cap and the time budget. */
function readDescriptor(descriptor: number, path: string, stats: Stats, started: number, options: ControlReadOptions): string {
  const maxBytes = options.maxBytes ?? MAX_CONTROL_FILE_BYTES;
  const budget = options.budgetMs ?? CONTROL_READ_BUDGET_MS;
  const now = options.now ?? Date.now;
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
  readText: (path, options) => readControlFile(path, options?.singleLink === true ? { singleLink: true } : {}),
  readOwnFile: (root, path) => readOwnControlFile(root, path)?.text,
  realPath(path) {
    try {
      return realpathSync.native(path);
    } catch {
      return undefined;
    }
  },
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
