// The backstop's own files: turn records and hook snapshots (atomic: temp file, fsync, rename) and the
// telemetry log (one `write` per record on a descriptor opened with O_APPEND, so records of hooks
// running at the same time never interleave).
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import writeFileAtomic from 'write-file-atomic';

/** Atomically replaces `path` with `text`, creating its directory. */
export function writeFileAtomically(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileAtomic.sync(path, text, { fsync: true });
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
