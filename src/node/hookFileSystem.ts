// Node implementations of the small file-system interfaces the write gate and the commit guard take.
// Kept apart from git.ts so the hook bundle loads `node:fs` and nothing that spawns processes.
import { lstatSync, readFileSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import type { LocateFileSystem } from '../planner/enforce/repoLocation';
import type { TargetFileSystem } from '../planner/enforce/writeTarget';

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** lstat without an exception for a missing entry (exceptions cost more than the system call on this path). */
function lstatQuiet(path: string) {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
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
    if (stats.isSymbolicLink()) {
      try {
        if (statSync(path, { throwIfNoEntry: false }) === undefined) return undefined;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (isMissing(error) || code === 'ELOOP') return undefined;
        throw error;
      }
    }
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
    try {
      const stats = statSync(path);
      if (stats.isDirectory()) return 'dir';
      return stats.isFile() ? 'file' : undefined;
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  },
  readText(path) {
    try {
      return readFileSync(path, 'utf8');
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  },
};

/** The canonical form of an existing directory (the payload's cwd, the checkout root). */
export function canonicalDirectory(path: string): string {
  return realpathSync(path);
}
