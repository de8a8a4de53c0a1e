// Appending to `.orchestrator/metrics/events.jsonl`: one `write` per record on a descriptor opened with
// O_APPEND, so records of hooks running at the same time never interleave (the kernel positions every
// append at the end; a record is a few hundred bytes, far below what a regular file writes at once).
// Never follows a symbolic link on the way (a planted link cannot turn the append into a write elsewhere),
// and never waits on a FIFO.
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { EVENTS_FILE } from '../planner/plan/stateDirNames';
import { formatEventLine } from '../planner/dispatch/dispatchEvents';

function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null ? (error as { code?: string }).code : undefined;
}

/**
 * Creates every directory of `relativeDir` below `root` that is missing; refuses (throws) when one of
 * them is a symbolic link or not a directory. `root` itself is the caller's choice.
 */
export function ensureRealDirectory(root: string, relativeDir: string): string {
  let current = resolve(root);
  for (const segment of relativeDir.split('/').filter((part) => part !== '' && part !== '.')) {
    if (segment === '..') throw new Error(`refusing ".." in ${relativeDir}`);
    current = join(current, segment);
    try {
      const stats = lstatSync(current);
      if (stats.isSymbolicLink()) throw new Error(`refusing to write through the symbolic link ${current}`);
      if (!stats.isDirectory()) throw new Error(`${current} is not a directory`);
    } catch (error) {
      if (errorCode(error) !== 'ENOENT') throw error;
      try {
        mkdirSync(current);
      } catch (mkdirError) {
        if (errorCode(mkdirError) !== 'EEXIST') throw mkdirError;
      }
    }
  }
  return current;
}

/** Appends one event record under `root`. Returns false (never throws) when it could not be written whole. */
export function appendEvent(root: string, event: Record<string, unknown>): boolean {
  const line = Buffer.from(formatEventLine(event), 'utf8');
  const cut = EVENTS_FILE.lastIndexOf('/');
  let fd: number | undefined;
  try {
    const dir = ensureRealDirectory(root, EVENTS_FILE.slice(0, cut));
    // O_NONBLOCK: a FIFO planted here fails to open (or is refused below) instead of holding the hook until
    // its agent CLI's timeout, which lets the call through unchecked. Writes to a regular file are unaffected.
    fd = openSync(join(dir, EVENTS_FILE.slice(cut + 1)), constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NONBLOCK | (constants.O_NOFOLLOW ?? 0), 0o644);
    if (!fstatSync(fd).isFile()) return false;
    return writeSync(fd, line) === line.length;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) {
      try {
        closeSync(fd);
      } catch {
        // Nothing to do: the record is written or it is not.
      }
    }
  }
}
