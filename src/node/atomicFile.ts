// The one atomic writer for every file the CLI and the hooks own: declarations, manifests, the dispatch
// ledger, the backstop's records, hook settings, this clone's sync state. A temporary file beside the
// target (created exclusively), written, fsynced, renamed over the target, and the directory fsynced
// unless the caller makes its directories durable itself (DeclarationFs batches them until its next
// commit point) or accepts losing the rename, never the content, to a power cut. A command that knows,
// while it waits on something else, which of these files it is about to write may have their temporary
// files made ahead (TemporaryFileReserve: sync, while git fetches): the write then only fills one and
// renames it, since creating a file is the step that costs the most when the disk is busy.
//
// Why not write-file-atomic here: it loads node:crypto and worker_threads (through signal-exit and its
// temp-name hash), which every hook call would pay for before deciding anything, and it follows a link
// at the target, where a planted link must be replaced instead. The one caller that keeps it is the
// extension's draft store (src/extension/draftStore.ts): it writes asynchronously from the extension
// host, which must not block on an fsync, and write-file-atomic's queued asynchronous write is made for
// exactly that.
import { closeSync, constants, fchmodSync, fstatSync, fsyncSync, lstatSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

export interface AtomicWriteOptions {
  /** The file's mode, exactly (not masked by the umask). Default 0o644. */
  mode?: number;
  /** fsync the data before the rename. Default true; false only for caches, where a torn or lost file is a miss. */
  fsync?: boolean;
  /** fsync the directory after the rename. Default true. */
  syncDirectory?: boolean;
  /** Temporary files made ahead: one made for this path (with this mode) is filled instead of creating one. */
  reserve?: TemporaryFileReserve;
  /**
   * Called once the new content is written and fsynced, right before the rename that puts it in place: the
   * last moment to check that the target still holds what the caller expects. Returning false gives the
   * write up (the temporary file removed, the target untouched) and makes writeFileAtomicSync return false.
   */
  beforeRename?: () => boolean;
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

/**
 * A name beside `path` for a temporary file, to be created exclusively: `<path>.<pid>.<stamp>.tmp`, the stamp
 * being the time in base 36 (eight digits until 2059) then six random base-36 digits. The one definition of
 * these names; parseTemporaryFileName reads one back.
 */
function temporaryPathFor(path: string): string {
  // O_EXCL makes the name safe to guess; it only has to be unlikely to be taken (node:crypto would cost
  // the hook bundle a module load on every write). The random digits are padded because Math.random's base
  // 36 can be shorter than six digits, and the name's exact shape is what parseTemporaryFileName relies on.
  const random = Math.random().toString(36).slice(2, 2 + TEMPORARY_RANDOM_DIGITS).padEnd(TEMPORARY_RANDOM_DIGITS, '0');
  return `${path}.${process.pid}.${Date.now().toString(36)}${random}.tmp`;
}

const TEMPORARY_RANDOM_DIGITS = 6;

// temporaryPathFor's name, anchored: the target's base name, the pid (no leading zero), and the stamp, which
// is the time's eight or nine base-36 digits followed by the six random ones.
const TEMPORARY_FILE_NAME = new RegExp(`^(.+)\\.([1-9][0-9]{0,9})\\.([0-9a-z]{${8 + TEMPORARY_RANDOM_DIGITS},${9 + TEMPORARY_RANDOM_DIGITS}})\\.tmp$`);

/**
 * What a directory entry's name says when temporaryPathFor made it: the base name of the file it was made
 * for, and the id of the process that made it. Undefined for any other name.
 */
export function parseTemporaryFileName(name: string): { target: string; pid: number } | undefined {
  const match = TEMPORARY_FILE_NAME.exec(name);
  if (match === null) return undefined;
  return { target: match[1] as string, pid: Number(match[2]) };
}

/**
 * Replaces `path` with `text` (UTF-8, or the bytes given) atomically: a reader sees the old file or the new one, never a mix. A link at
 * the path is replaced, never written through. Throws on failure, leaving no temporary file behind. True
 * when written; false only when `beforeRename` gave the write up.
 */
export function writeFileAtomicSync(path: string, text: string | Uint8Array, options: AtomicWriteOptions = {}): boolean {
  const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : Buffer.from(text);
  const mode = options.mode ?? 0o644;
  const reserved = options.reserve?.take(path, mode);
  const temporary = (reserved !== undefined && isStillReserved(reserved) ? fillTemporaryFile(reserved, bytes) : undefined) ?? createTemporaryFile(path, bytes, mode);
  try {
    if (options.fsync !== false) fsyncSync(temporary.descriptor);
  } catch (error) {
    closeSync(temporary.descriptor);
    unlinkSync(temporary.path);
    throw error;
  }
  closeSync(temporary.descriptor);
  let proceed: boolean;
  try {
    proceed = options.beforeRename?.() ?? true;
  } catch (error) {
    unlinkSync(temporary.path);
    throw error;
  }
  if (!proceed) {
    unlinkSync(temporary.path);
    return false;
  }
  try {
    renameSync(temporary.path, path);
  } catch (error) {
    unlinkSync(temporary.path);
    throw error;
  }
  if (options.syncDirectory === false) return true;
  const directory = openSync(dirname(path), constants.O_RDONLY);
  try {
    fsyncSync(directory);
  } finally {
    closeSync(directory);
  }
  return true;
}

/**
 * Empty temporary files made ahead of the writes that will fill them, by target: each is created as
 * createTemporaryFile creates one (beside its target, exclusively, with exactly its mode) and held open.
 * writeFileAtomicSync given the reserve takes one for its path, checks it is still the empty file it made
 * under the same name (else it is left and a new one created), fills and renames it. `discard` closes and
 * removes those not taken.
 */
export class TemporaryFileReserve {
  private readonly files = new Map<string, Array<TemporaryFile & { mode: number }>>();

  /** Makes `count` temporary files for `path`; stops quietly at the first that cannot be made (a reserve is only a head start). */
  reserve(path: string, count = 1, mode = 0o644): void {
    const made = this.files.get(path) ?? [];
    this.files.set(path, made);
    try {
      for (let index = 0; index < count; index += 1) made.push({ ...createTemporaryFile(path, EMPTY, mode), mode });
    } catch {
      // As many as could be made.
    }
  }

  /** One made for `path` with `mode`, taken: no other write fills it. */
  take(path: string, mode: number): TemporaryFile | undefined {
    const made = this.files.get(path) ?? [];
    const index = made.findIndex((file) => file.mode === mode);
    if (index === -1) return undefined;
    const [file] = made.splice(index, 1);
    return file;
  }

  discard(): void {
    for (const made of this.files.values()) for (const file of made.splice(0)) removeTemporaryFile(file);
  }
}

const EMPTY = new Uint8Array(0);

/**
 * Whether `reserved` is still what the reserve made, the one plain file of its name, empty: writeFileAtomicSync
 * renames it by that name with no later check. When it is not, it is given up: one of ours that was linked
 * elsewhere or written to since is closed and its name removed; a file put in its place is left alone.
 */
function isStillReserved(reserved: TemporaryFile): boolean {
  try {
    const open = fstatSync(reserved.descriptor);
    const named = lstatSync(reserved.path);
    const ours = named.isFile() && named.ino === open.ino && named.dev === open.dev;
    if (ours && named.nlink === 1 && open.size === 0) return true;
    if (ours) removeTemporaryFile(reserved);
    else closeSync(reserved.descriptor);
    return false;
  } catch {
    removeTemporaryFile(reserved);
    return false;
  }
}

/**
 * An empty temporary file made ahead (TemporaryFileReserve, or a caller's own) holding `bytes`; undefined,
 * with the file closed and removed, when it cannot be written.
 */
export function fillTemporaryFile(file: TemporaryFile, bytes: Uint8Array): TemporaryFile | undefined {
  try {
    let offset = 0;
    while (offset < bytes.length) offset += writeSync(file.descriptor, bytes, offset, bytes.length - offset, offset);
    return file;
  } catch {
    removeTemporaryFile(file);
    return undefined;
  }
}

/** Closes a temporary file and removes it (quietly: it may be closed or gone already). */
export function removeTemporaryFile(file: TemporaryFile): void {
  try {
    closeSync(file.descriptor);
  } catch {
    // Already closed.
  }
  try {
    unlinkSync(file.path);
  } catch {
    // Already gone.
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
