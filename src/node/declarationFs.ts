// Node implementation of DeclarationFs: atomic writes (src/node/atomicFile.ts: temp file, fsync, rename),
// directory fsyncs batched until the writer's next commit point (`sync`), so renames and removals
// are durable in order; confined to one state directory, refusing to follow a symbolic link anywhere
// at or beneath it. The confinement checks are exported for the other files kept beside the state
// directory (the dispatch ledger), so every writer refuses a planted link the same way, and so are
// directories held open (openRealDirectory), for a writer of many files into one directory (sync's staged
// writes) to check the way there once and write through it. The same checks run ahead, without writing
// (inspectWritePaths, findInTheWay), so a writer refuses such a link before its first write.
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, statSync, unlinkSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fsyncQuietly, writeFileAtomicSync } from './atomicFile';
import { nodeLocateFileSystem } from './hookFileSystem';
import { ownFilesBelow } from '../planner/enforce/repoLocation';
import type { DeclarationFs, InTheWay } from '../planner/plan/declarationStore';

function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null ? (error as { code?: string }).code : undefined;
}

/** The path (or one of its parents) does not exist, or a parent is a file. */
function isMissing(error: unknown): boolean {
  const code = errorCode(error);
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** A write or removal that would leave the confinement root or pass through a symbolic link. */
export class UnsafePathError extends Error {
  constructor(
    readonly reason: InTheWay['found'],
    readonly path: string,
    message: string,
  ) {
    super(message);
    this.name = 'UnsafePathError';
  }
}

/** Anything but a regular file where one is read: a directory, a FIFO, a socket, a device. */
export class NotARegularFileError extends Error {
  readonly code = 'ENOTREGULAR';
  constructor(readonly path: string) {
    super(`${path} is not a regular file`);
    this.name = 'NotARegularFileError';
  }
}

/**
 * The bytes of the regular file at `path` (a link followed); undefined when it (or a parent) does not exist.
 * Anything but a regular file throws NotARegularFileError, without waiting: opening a FIFO for reading
 * blocks until someone writes it (and SIGTERM cannot end a process while that open is in the kernel), so it
 * is opened non-blocking and looked at before anything is read.
 */
export function readRegularFileIfExists(path: string): Buffer | undefined {
  let descriptor: number;
  try {
    descriptor = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    if (isMissing(error)) return undefined;
    // A socket cannot be opened at all.
    if (errorCode(error) === 'ENXIO') throw new NotARegularFileError(path);
    throw error;
  }
  try {
    if (!fstatSync(descriptor).isFile()) throw new NotARegularFileError(path);
    return readFileSync(descriptor);
  } finally {
    closeSync(descriptor);
  }
}

/** Reads a text file (UTF-8); undefined when it (or a parent) does not exist; see readRegularFileIfExists. */
export function readTextIfExists(path: string): string | undefined {
  return readRegularFileIfExists(path)?.toString('utf8');
}

/**
 * Where `path` lies below the confinement root, as path segments; throws when it is not strictly inside it
 * (the root itself included).
 */
function segmentsBelowRoot(root: string, path: string): string[] {
  const target = resolve(path);
  const rel = relative(root, target);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) {
    throw new UnsafePathError('outside-root', target, `refusing to touch ${target}: it is not inside ${root}`);
  }
  return rel.split(sep);
}

/**
 * Checks that every directory below `root` down to `path`'s parent is a real directory (not a link), and
 * throws an UnsafePathError when one is not, or when `path` is not inside `root`. The root itself is the
 * caller's explicit choice and may be reached through a link. Missing directories are created when
 * `create` is set; otherwise a missing one returns false.
 */
export function ensureRealParents(root: string, path: string, create: boolean): boolean {
  root = resolve(root);
  const segments = segmentsBelowRoot(root, path);
  try {
    if (!statSync(root).isDirectory()) throw new UnsafePathError('not-a-directory', root, `${root} is not a directory`);
  } catch (error) {
    if (errorCode(error) !== 'ENOENT') throw error;
    if (!create) return false;
    mkdirSync(root, { recursive: true });
  }
  let current = root;
  for (const segment of segments.slice(0, -1)) {
    current = resolve(current, segment);
    // A missing entry is an answer, not an error: asked without a throw (each thrown ENOENT builds a stack).
    const stat = lstatSync(current, { throwIfNoEntry: false });
    if (stat === undefined) {
      if (!create) return false;
      mkdirSync(current);
      continue;
    }
    if (stat.isSymbolicLink()) throw new UnsafePathError('symlink', current, `refusing to write through the symbolic link ${current}`);
    if (!stat.isDirectory()) throw new UnsafePathError('not-a-directory', current, `${current} is not a directory`);
  }
  return true;
}

/**
 * Whether a regular file is at `path` (false when nothing is); throws an UnsafePathError when a link or
 * anything but a regular file is there, which a write or a removal must not replace. `shown`: the path
 * to name in that error, when `path` reaches the file another way (through a held directory).
 */
export function isReplaceableFile(path: string, shown = path): boolean {
  return replaceableFileStat(path, shown) !== undefined;
}

/** isReplaceableFile, answering with the regular file's lstat (undefined when nothing is there). */
function replaceableFileStat(path: string, shown: string): Stats | undefined {
  const stat = lstatSync(path, { throwIfNoEntry: false });
  if (stat === undefined) return undefined;
  if (stat.isSymbolicLink()) throw new UnsafePathError('symlink', shown, `refusing to replace the symbolic link ${shown}`);
  if (!stat.isFile()) throw new UnsafePathError('not-a-file', shown, `${shown} is not a regular file`);
  return stat;
}

/** What stands at, and on the way to, the files a confined writer is about to write or remove (inspectWritePaths). */
export interface WritePathsInspection {
  /**
   * The first entry nodeDeclarationFs would refuse (as ensureRealParents and isReplaceableFile throw it): a
   * symbolic link, or anything but a directory, on the way below the root; a link, or anything but a regular
   * file, at a path.
   */
  unsafe?: UnsafePathError;
  /** Whether a regular file at one of the paths (looked at before `unsafe` was found) has another name too: a hard link. */
  shared: boolean;
}

/**
 * What nodeDeclarationFs(root) would find writing or removing each of `paths`, looked at without writing
 * anything: the way to each directory holding one of `paths` once, then one lstat per path that can exist
 * (nothing is asked in a missing directory). A missing entry is no problem: the writer makes it. `paths`
 * name files, absolute and normalised (as join makes them), none ending in `.` or `..`.
 */
export function inspectWritePaths(root: string, paths: readonly string[]): WritePathsInspection {
  // Whether each directory holding one of the paths is there (checked on its way from the root once).
  const directories = new Map<string, boolean>();
  let shared = false;
  try {
    for (const path of paths) {
      const directory = dirname(path);
      let there = directories.get(directory);
      if (there === undefined) {
        there = ensureRealParents(root, path, false);
        directories.set(directory, there);
      }
      if (there && (replaceableFileStat(path, path)?.nlink ?? 1) > 1) shared = true;
    }
  } catch (error) {
    if (error instanceof UnsafePathError) return { unsafe: error, shared };
    throw error;
  }
  return { shared };
}

/** A directory held open (openRealDirectory). */
export interface HeldDirectory {
  /** A path that names the held directory itself, whatever its own path names since. */
  readonly path: string;
  close(): void;
}

// Linux names every open descriptor by a path: /proc/self/fd/<n> is the very file or directory it holds.
const DESCRIPTOR_PATHS = '/proc/self/fd';

/**
 * The directory `directory` inside `root`, opened one segment at a time from `root`, each through the
 * descriptor of the one before and never through a link: the directory ensureRealParents checks, held, so
 * that writes through its `path` reach it with no time between the check and the write, and with one check
 * for all of them. Throws UnsafePathError, as ensureRealParents does, for a link or anything but a
 * directory on the way. Undefined where a descriptor cannot be named by a path (any platform but Linux, or
 * no /proc) and when a directory on the way is missing: the caller then checks the path itself.
 */
export function openRealDirectory(root: string, directory: string): HeldDirectory | undefined {
  if (process.platform !== 'linux') return undefined;
  root = resolve(root);
  const segments = resolve(directory) === root ? [] : segmentsBelowRoot(root, directory);
  let descriptor: number;
  try {
    // The root is the caller's explicit choice and may be reached through a link, as in ensureRealParents.
    descriptor = openSync(root, constants.O_RDONLY | constants.O_DIRECTORY);
  } catch {
    return undefined;
  }
  let current = root;
  try {
    if (statSync(`${DESCRIPTOR_PATHS}/${descriptor}`, { throwIfNoEntry: false })?.isDirectory() !== true) {
      closeSync(descriptor);
      return undefined;
    }
    for (const segment of segments) {
      current = join(current, segment);
      let next: number;
      try {
        next = openSync(`${DESCRIPTOR_PATHS}/${descriptor}/${segment}`, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
      } catch (error) {
        const code = errorCode(error);
        if (code !== 'ELOOP' && code !== 'ENOTDIR') {
          closeSync(descriptor);
          return undefined;
        }
        // Which of the two it is, for the message (a link opened with O_NOFOLLOW fails either way).
        const found = lstatSync(`${DESCRIPTOR_PATHS}/${descriptor}/${segment}`, { throwIfNoEntry: false });
        if (found?.isSymbolicLink() === true) throw new UnsafePathError('symlink', current, `refusing to write through the symbolic link ${current}`);
        throw new UnsafePathError('not-a-directory', current, `${current} is not a directory`);
      }
      closeSync(descriptor);
      descriptor = next;
    }
  } catch (error) {
    closeSync(descriptor);
    throw error;
  }
  const held = descriptor;
  return {
    path: `${DESCRIPTOR_PATHS}/${held}`,
    close: () => closeSync(held),
  };
}

/**
 * nodeDeclarationFs(root), reading the plan's files as the hooks read them (ownFilesBelow): a file
 * that is a symbolic link, lies through one below `root`, or has a second name throws, its message saying
 * which, instead of answering with the text it leads to. For everything that shows a plan on disk or
 * carries it forward (plan show, amend, publish, the planner): what they read is what the hooks would
 * enforce, and never an agent's text reached through a name the agent can write.
 */
export function nodePlanReadingFs(root: string): DeclarationFs {
  const base = resolve(root);
  return { ...nodeDeclarationFs(base), ...ownFilesBelow(base, nodeLocateFileSystem) };
}

/**
 * The file system for declarations confined to `root` (the repository root, or the state directory
 * when it lies outside any repository). Every mutating call checks that its target lies inside `root`
 * and that no directory between `root` and the target (nor the target) is a symbolic link, so a
 * planted link (`.claude` or `filescopes/wave-2` pointing elsewhere) cannot redirect a write.
 */
export function nodeDeclarationFs(root: string): DeclarationFs {
  root = resolve(root);

  // Directories with renames or removals not yet made durable.
  const dirty = new Set<string>();

  return {
    readText: readTextIfExists,
    sync() {
      // A directory that cannot be fsynced (Windows) still had its rename done atomically.
      for (const directory of dirty) fsyncQuietly(directory);
      dirty.clear();
    },
    writeAtomic(path, text) {
      ensureRealParents(root, path, true);
      isReplaceableFile(path);
      writeFileAtomicSync(path, text, { syncDirectory: false });
      dirty.add(dirname(resolve(path)));
    },
    remove(path) {
      if (!ensureRealParents(root, path, false) || !isReplaceableFile(path)) return false;
      unlinkSync(path);
      dirty.add(dirname(resolve(path)));
      return true;
    },
    listDir(path) {
      try {
        return readdirSync(path);
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw error;
      }
    },
    findInTheWay(paths) {
      const { unsafe } = inspectWritePaths(root, paths);
      return unsafe === undefined ? undefined : { path: unsafe.path, found: unsafe.reason };
    },
  };
}

/**
 * A DeclarationFs over `inner` that takes some writes on itself: `write` returns 'done' when it made the
 * write (or found it already made) in a way as durable as `inner.writeAtomic`'s, and 'pass' to hand it to
 * `inner`. The directories of the writes it took are fsynced at the next commit point (`sync`), before
 * `inner`'s own. Reads, listings and removals are `inner`'s.
 */
export function layeredDeclarationFs(inner: DeclarationFs, write: (path: string, text: string) => 'done' | 'pass'): DeclarationFs {
  const directories = new Set<string>();
  return {
    readText: (path) => inner.readText(path),
    listDir: (path) => inner.listDir(path),
    remove: (path) => inner.remove(path),
    findInTheWay: (paths) => inner.findInTheWay?.(paths),
    sync() {
      // A directory that cannot be fsynced (Windows) still had its rename done atomically.
      for (const directory of directories) fsyncQuietly(directory);
      directories.clear();
      inner.sync?.();
    },
    writeAtomic(path, text) {
      if (write(path, text) === 'pass') inner.writeAtomic(path, text);
      else directories.add(dirname(resolve(path)));
    },
  };
}
