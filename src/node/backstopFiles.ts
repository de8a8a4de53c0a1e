// The backstop's own files: turn records and hook snapshots (atomic: temp file, fsync, rename) and the
// telemetry log (one `write` per record on a descriptor opened with O_APPEND, so records of hooks
// running at the same time never interleave).
import { isAscii } from 'node:buffer';
import { closeSync, lstatSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { writeFileAtomicSync } from './atomicFile';

/**
 * Atomically replaces `path` with `text`, creating its directory (temporary file created exclusively,
 * fsync, rename, directory fsync: src/node/atomicFile.ts).
 */
export function writeFileAtomically(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileAtomicSync(path, text);
}

/** A directory on the way to a file the backstop writes is a link or not a directory. */
export class LinkOnTheWayError extends Error {
  constructor(readonly path: string) {
    super(`${path} is a link or not a directory, so nothing is written through it`);
    this.name = 'LinkOnTheWayError';
  }
}

/**
 * Atomically replaces `path` (below `root`) with `text`, creating the directories between them and
 * following no link among them. A turn can write `.orchestrator/`, which no snapshot looks at: a link
 * planted there would otherwise have a turn record written over a file elsewhere (a person's file in
 * the work tree), after the turn was checked. Throws LinkOnTheWayError then. (A link at `path` itself
 * is replaced, not followed.)
 */
export function writeFileBelow(root: string, path: string, text: string): void {
  const base = root.endsWith('/') ? root : `${root}/`;
  if (!path.startsWith(base)) throw new Error(`${path} is not below ${root}`);
  let directory = base.slice(0, -1);
  for (const part of dirname(path).slice(base.length).split('/')) {
    if (part === '') continue;
    directory = `${directory}/${part}`;
    try {
      mkdirSync(directory);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (!lstatSync(directory).isDirectory()) throw new LinkOnTheWayError(directory);
  }
  writeFileAtomicSync(path, text);
}

/**
 * The text of a file the backstop saved, or undefined when there is none. A saved index listing is
 * megabytes of (nearly always) ASCII: decoding bytes that are all ASCII as Latin-1 gives the same
 * string as UTF-8 for a fraction of the time; anything else is decoded as UTF-8.
 */
export function readSavedText(path: string): string | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw error;
  }
  return bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8');
}

/** Appends one line (a newline is added) to `path` with a single write, creating its directory. */
export function appendLine(path: string, line: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const fd = openSync(path, 'a');
  try {
    writeSync(fd, Buffer.from(`${line}\n`, 'utf8'));
  } finally {
    closeSync(fd);
  }
}
