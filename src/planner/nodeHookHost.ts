// Node implementations of the small file-system interfaces the write gate and the commit guard take.
// Kept apart from nodeHost.ts so the hook bundle loads `node:fs` and nothing that spawns processes.
import { lstatSync, readFileSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import type { LocateFileSystem } from './repoLocation';
import type { TargetFileSystem } from './writeTarget';

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/**
 * The real file system for target resolution. A missing entry is `undefined`; every other error
 * (permission denied, a name too long, an I/O error) is thrown, so the hook's catch denies.
 */
export const nodeTargetFileSystem: TargetFileSystem = {
  realpath(path) {
    try {
      return realpathSync(path);
    } catch (error) {
      if (isMissing(error) || (error as NodeJS.ErrnoException).code === 'ELOOP') return undefined;
      throw error;
    }
  },
  readlink(path) {
    try {
      if (!lstatSync(path).isSymbolicLink()) return undefined;
      return readlinkSync(path);
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
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

/** Reads a whole small file; `undefined` only when it does not exist (other errors are thrown). */
export function readTextIfPresent(path: string): string | undefined {
  return nodeLocateFileSystem.readText(path);
}

/** The canonical form of an existing directory (the payload's cwd, the checkout root). */
export function canonicalDirectory(path: string): string {
  return realpathSync(path);
}
