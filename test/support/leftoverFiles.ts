// Temporary files planted exactly as a killed write leaves them (src/node/leftoverTemporaryFiles.ts removes
// them): named by createTemporaryFile itself, then given another process's pid and an old modification time.
import assert from 'node:assert/strict';
import { closeSync, mkdirSync, renameSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { createTemporaryFile } from '../../src/node/atomicFile';

/** A temporary file for `directory/target` as process `pid` would have left it, last modified `ageMs` ago; its path. */
export function plantLeftover(directory: string, target: string, pid: number, ageMs: number, text = '{"partial":'): string {
  mkdirSync(directory, { recursive: true });
  const made = createTemporaryFile(join(directory, target), Buffer.from(text));
  closeSync(made.descriptor);
  const ours = `${join(directory, target)}.${process.pid}.`;
  assert.ok(made.path.startsWith(ours), made.path);
  const path = `${join(directory, target)}.${pid}.${made.path.slice(ours.length)}`;
  renameSync(made.path, path);
  makeOld(path, ageMs);
  return path;
}

/** Sets the file's (or directory's) access and modification times to `ageMs` ago. */
export function makeOld(path: string, ageMs: number): void {
  const when = new Date(Date.now() - ageMs);
  utimesSync(path, when, when);
}
