// The one atomic writer for every file the CLI and the hooks own: declarations, manifests, the dispatch
// ledger, the backstop's records, hook settings, this clone's sync state. A temporary file beside the
// target (created exclusively), written, fsynced, renamed over the target, and the directory fsynced
// unless the caller makes its directories durable itself (DeclarationFs batches them until its next
// commit point) or accepts losing the rename, never the content, to a power cut. The plan-tree cache,
// which sync writes while its own files are made durable, has the same writer on libuv's pool, without an
// fsync (writeCacheFileAtomic).
//
// Why not write-file-atomic here: it loads node:crypto and worker_threads (through signal-exit and its
// temp-name hash), which every hook call would pay for before deciding anything, and it follows a link
// at the target, where a planted link must be replaced instead. The one caller that keeps it is the
// extension's draft store (src/extension/draftStore.ts): it writes asynchronously from the extension
// host, which must not block on an fsync, and write-file-atomic's queued asynchronous write is made for
// exactly that.
import { closeSync, constants, fchmodSync, fstatSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { open, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';

export interface AtomicWriteOptions {
  /** The file's mode, exactly (not masked by the umask). Default 0o644. */
  mode?: number;
  /** fsync the data before the rename. Default true; false only for caches, where a torn or lost file is a miss. */
  fsync?: boolean;
  /** fsync the directory after the rename. Default true. */
  syncDirectory?: boolean;
}

/** A temporary file made by createTemporaryFile: its name, and its descriptor, open for reading and writing. */
export interface TemporaryFile {
  path: string;
  descriptor: number;
}

/**
 * Creates a new file beside `path` (exclusively, with exactly `mode`) holding `bytes`, and returns it still
 * open, to be fsynced and renamed over `path` by the caller. Throws on failure, leaving nothing behind.
 */
export function createTemporaryFile(path: string, bytes: Uint8Array, mode = 0o644): TemporaryFile {
  const temporary = temporaryPathFor(path);
  // Readable too, so a caller holding it open can check later that it still holds these bytes.
  const descriptor = openSync(temporary, constants.O_RDWR | constants.O_CREAT | constants.O_EXCL, mode);
  try {
    // The mode exactly as asked (open's is masked by the umask): a 0600 file stays 0600, a 0644 one 0644.
    // Changed only when the umask took something away: a chmod is a metadata change of its own, which on a
    // busy journal costs more than creating the file did, while fstat only reads.
    if ((fstatSync(descriptor).mode & 0o7777) !== mode) fchmodSync(descriptor, mode);
    let offset = 0;
    while (offset < bytes.length) offset += writeSync(descriptor, bytes, offset);
  } catch (error) {
    closeSync(descriptor);
    unlinkSync(temporary);
    throw error;
  }
  return { path: temporary, descriptor };
}

/** A name beside `path` for a temporary file, to be created exclusively. */
function temporaryPathFor(path: string): string {
  // O_EXCL makes the name safe to guess; it only has to be unlikely to be taken (node:crypto would cost
  // the hook bundle a module load on every write).
  return `${path}.${process.pid}.${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}.tmp`;
}

/**
 * writeFileAtomicSync without an fsync, on libuv's pool, for a cache (a torn or lost file is a miss): a
 * temporary file created exclusively beside `path` with exactly 0644 when the umask allows it, written,
 * renamed over `path` (a link there is replaced, not followed). Leaves no temporary file behind on failure.
 */
export async function writeCacheFileAtomic(path: string, text: string): Promise<void> {
  const temporary = temporaryPathFor(path);
  const file = await open(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o644);
  try {
    try {
      await file.writeFile(text, 'utf8');
    } finally {
      await file.close();
    }
    await rename(temporary, path);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
}

/**
 * Replaces `path` with `text` atomically: a reader sees the old file or the new one, never a mix. A link at
 * the path is replaced, never written through. Throws on failure, leaving no temporary file behind.
 */
export function writeFileAtomicSync(path: string, text: string, options: AtomicWriteOptions = {}): void {
  const temporary = createTemporaryFile(path, Buffer.from(text, 'utf8'), options.mode ?? 0o644);
  try {
    if (options.fsync !== false) fsyncSync(temporary.descriptor);
  } catch (error) {
    closeSync(temporary.descriptor);
    unlinkSync(temporary.path);
    throw error;
  }
  closeSync(temporary.descriptor);
  try {
    renameSync(temporary.path, path);
  } catch (error) {
    unlinkSync(temporary.path);
    throw error;
  }
  if (options.syncDirectory === false) return;
  const directory = openSync(dirname(path), constants.O_RDONLY);
  try {
    fsyncSync(directory);
  } finally {
    closeSync(directory);
  }
}

/**
 * fsyncs a file or a directory, opened read-only. False when the platform refuses (Windows cannot open or
 * fsync a directory; a rename there is atomic all the same): the caller decides whether that matters.
 */
export function fsyncQuietly(path: string): boolean {
  let descriptor: number | undefined;
  try {
    descriptor = openSync(path, 'r');
    fsyncSync(descriptor);
    return true;
  } catch {
    return false;
  } finally {
    if (descriptor !== undefined) closeSync(descriptor);
  }
}
