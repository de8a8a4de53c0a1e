// Node implementation of DeclarationFs: atomic writes (write-file-atomic: temp file, fsync, rename),
// directory fsyncs batched until the writer's next commit point (`sync`), so renames and removals
// are durable in order; confined to one state directory, refusing to follow a symbolic link anywhere
// at or beneath it.
import { closeSync, fsyncSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, statSync, unlinkSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import type writeFileAtomicModule from 'write-file-atomic';
import type { DeclarationFs } from '../planner/plan/declarationStore';

let writeFileAtomic: typeof writeFileAtomicModule | undefined;

/**
 * write-file-atomic, loaded on the first write. Hooks import this module for its readers and most of them
 * never write a declaration; loading the library (node:crypto and worker_threads come with it) is a
 * measurable part of a hook's start.
 */
function atomicWriter(): typeof writeFileAtomicModule {
  // A plain require, so esbuild still bundles the library (the packaged extension carries no node_modules).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  writeFileAtomic ??= require('write-file-atomic') as typeof writeFileAtomicModule;
  return writeFileAtomic;
}

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
    readonly reason: 'outside-root' | 'symlink' | 'not-a-file' | 'not-a-directory',
    readonly path: string,
    message: string,
  ) {
    super(message);
    this.name = 'UnsafePathError';
  }
}

function fsyncDirectory(directory: string): void {
  let descriptor: number | undefined;
  try {
    descriptor = openSync(directory, 'r');
    fsyncSync(descriptor);
  } catch {
    // Some platforms (Windows) cannot open or fsync a directory; the rename is still atomic there.
  } finally {
    if (descriptor !== undefined) closeSync(descriptor);
  }
}

/** Reads a text file; undefined when it (or a parent) does not exist. */
export function readTextIfExists(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

/**
 * The file system for declarations confined to `root` (the repository root, or the state directory
 * when it lies outside any repository). Every mutating call checks that its target lies inside `root`
 * and that no directory between `root` and the target (nor the target) is a symbolic link, so a
 * planted link (`.claude` or `filescopes/wave-2` pointing elsewhere) cannot redirect a write.
 */
export function nodeDeclarationFs(root: string): DeclarationFs {
  root = resolve(root);

  function segmentsBelowRoot(path: string): string[] {
    const target = resolve(path);
    const rel = relative(root, target);
    if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) {
      throw new UnsafePathError('outside-root', target, `refusing to touch ${target}: it is not inside ${root}`);
    }
    return rel.split(sep);
  }

  /**
   * Checks that every directory below the root down to `path`'s parent is a real directory (not a
   * link). The root itself is the caller's explicit choice and may be reached through a link. Missing
   * directories are created when `create` is set; otherwise a missing one returns false.
   */
  function walkParents(path: string, create: boolean): boolean {
    const segments = segmentsBelowRoot(path);
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
      try {
        const stat = lstatSync(current);
        if (stat.isSymbolicLink()) {
          throw new UnsafePathError('symlink', current, `refusing to write through the symbolic link ${current}`);
        }
        if (!stat.isDirectory()) throw new UnsafePathError('not-a-directory', current, `${current} is not a directory`);
      } catch (error) {
        if (errorCode(error) !== 'ENOENT') throw error;
        if (!create) return false;
        mkdirSync(current);
      }
    }
    return true;
  }

  function checkTarget(path: string): boolean {
    try {
      const stat = lstatSync(path);
      if (stat.isSymbolicLink()) throw new UnsafePathError('symlink', path, `refusing to replace the symbolic link ${path}`);
      if (!stat.isFile()) throw new UnsafePathError('not-a-file', path, `${path} is not a regular file`);
      return true;
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return false;
      throw error;
    }
  }

  // Directories with renames or removals not yet made durable.
  const dirty = new Set<string>();

  return {
    readText: readTextIfExists,
    sync() {
      for (const directory of dirty) fsyncDirectory(directory);
      dirty.clear();
    },
    writeAtomic(path, text) {
      walkParents(path, true);
      checkTarget(path);
      atomicWriter().sync(path, text, { fsync: true });
      dirty.add(dirname(resolve(path)));
    },
    remove(path) {
      if (!walkParents(path, false) || !checkTarget(path)) return false;
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
  };
}
