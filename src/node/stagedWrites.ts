// Writes prepared ahead of the safe chain, so that fsyncing them runs in parallel instead of one after
// another. The chain (writeWavePlan) makes each file durable before its rename: written one by one, a
// wave of 64 agents waits for 64 fsyncs in a row, the larger part of a sync's time on a real disk. Before
// the chain runs, `stageWrites` looks at each file the chain is about to ask for:
// - a file that already holds exactly its text (a plain file of its own, see isIntact) is held open and
//   fsynced, so a follower bringing in a plan that changed in a few agents rewrites only those files;
// - any other is written into a temporary file beside its target and fsynced.
// A target may be asked for with several texts in turn (the manifest's skeleton, then the manifest): each
// is staged, and each write takes the one holding its text.
// The fsyncs run together on libuv's pool, each started as soon as its file is made: the first files are on
// their way to disk while the next are made (and, for a caller that hands them over as they are computed,
// while the costliest text, the manifest's, is still being computed). When the chain then asks to write one of these files with
// exactly that text, the file is checked again at that moment: a file in place that is still the same
// file with the same bytes is left alone, a staged file is renamed into place. Both are as durable as a
// rewrite (the data fsynced, the directory at the next commit point), behind the same confinement checks
// (on Linux made once per target directory, which is then held open and written through: see
// openRealDirectory), in the chain's own order of renames and directory fsyncs, with the waiting done up
// front. A write the stage does not hold (other text, another path, a file that changed since) goes through
// the wrapped file system as usual, and `discard` removes whatever was staged and not used.
//
// Creating the files is the part of staging that depends most on the disk (on the VM of docs/sync.md, 66
// new files took from 2 ms to 40 ms, minute by minute). A caller that knows, before it knows their texts,
// that it is about to write files into a state directory makes them ahead, empty (makeSpareFiles: sync,
// while git fetches the plan); stageWrites then fills those instead of creating files. A spare lies in the
// state directory's filescopes/ rather than beside its target, and is renamed into place across directories
// of the same file system, just as atomically; the target's directory is fsynced at the chain's commit point
// as for any other write.
import { closeSync, constants, fstatSync, fsync, lstatSync, openSync, readFileSync, readSync, renameSync, rmdirSync, unlinkSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { createTemporaryFile, fillTemporaryFile, removeTemporaryFile, TemporaryFileReserve } from './atomicFile';
import type { TemporaryFile } from './atomicFile';
import { ensureRealParents, isReplaceableFile, layeredDeclarationFs, openRealDirectory } from './declarationFs';
import type { HeldDirectory } from './declarationFs';
import type { DeclarationFile, DeclarationFs } from '../planner/plan/declarationStore';

/** A file held open since staging: a temporary file, or a target found already holding its text. */
interface HeldFile {
  /** The name it was opened by. */
  path: string;
  bytes: Buffer;
  descriptor: number;
  /** True for the target itself (found holding its text), which is never removed; false for a temporary file. */
  inPlace: boolean;
}

/** A DeclarationFs over the staged files; `used` and `skipped` list, in order, the writes it took on itself. */
export interface StagedDeclarationFs extends DeclarationFs {
  /** Paths written by renaming a staged file into place. */
  readonly used: readonly string[];
  /** Paths left alone because they already held exactly the text to be written. */
  readonly skipped: readonly string[];
  /** Removes every staged file not used, and the directories staging made that are still empty. */
  discard(): void;
}

function fsyncAsync(descriptor: number): Promise<boolean> {
  return new Promise((settle) => fsync(descriptor, (error) => settle(error === null)));
}

/** The directories from `root` down to `path`'s parent that do not exist yet, outermost first. */
function missingParents(root: string, path: string): string[] {
  const missing: string[] = [];
  for (let directory = dirname(path); directory.length > root.length && directory.startsWith(root); directory = dirname(directory)) {
    let found;
    try {
      found = lstatSync(directory, { throwIfNoEntry: false }) !== undefined;
    } catch {
      found = false;
    }
    if (found) break;
    missing.unshift(directory);
  }
  return missing;
}

/**
 * Whether the held file is still the one named by its path (or `namedAs`, the same name reached through a
 * held directory), a regular file with that one name, holding exactly its bytes. A symbolic link, or a file
 * hard-linked elsewhere, may be changed through another name by whoever can write that name: such a file
 * never passes, so it is rewritten (replacing the link).
 */
function isIntact(held: HeldFile, namedAs = held.path): boolean {
  try {
    const open = fstatSync(held.descriptor);
    const named = lstatSync(namedAs);
    if (!named.isFile() || named.ino !== open.ino || named.dev !== open.dev || named.nlink !== 1 || open.size !== held.bytes.length) return false;
    const read = Buffer.alloc(held.bytes.length);
    let length = 0;
    while (length < read.length) {
      const count = readSync(held.descriptor, read, length, read.length - length, length);
      if (count === 0) break;
      length += count;
    }
    return length === read.length && read.equals(held.bytes);
  } catch {
    return false;
  }
}

/** The file at `target`, held open, when it already holds exactly `bytes`; undefined otherwise. */
function holdIfUnchanged(target: string, bytes: Buffer): HeldFile | undefined {
  // Not through a link at the target (where the platform can refuse one), and never waiting on a FIFO
  // swapped in since the caller's lstat; isIntact checks again by name.
  const descriptor = openSync(target, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  const held = { path: target, bytes, descriptor, inPlace: true };
  if (isIntact(held)) return held;
  closeSync(descriptor);
  return undefined;
}

/** Empty temporary files made ahead (makeSpareFiles), for stageWrites to fill. */
export interface SpareFiles {
  /** One of them, taken: no one else fills it. Undefined when none is left. */
  take(): TemporaryFile | undefined;
  /** Closes and removes those not taken, and the directories made for them while they are empty. */
  discard(): void;
}

/** The target name every spare is made for (`staged.<pid>.<stamp>.tmp`, see createTemporaryFile); no file of that name is ever written. */
export const SPARE_FILE_NAME = 'staged';

/**
 * The most spares made at once, whatever `count` asks. The count is a guess from the plan this clone saw last
 * (largestWaveWrite over its plan-tree cache), and both are someone else's to choose: anyone who can push
 * the plan ref can publish a wave listing 200,000 agent files, and an agent's shell can edit the cache.
 * Unbounded, a red-team review's sync made 19,977 files at once and held each open, up to the open-file
 * limit, and a kill left them all behind. 256 covers a wave of 254 agents in full (its files, the aggregate,
 * the manifest), four times the 64-agent wave of the benchmark (66 files), beyond any wave a person
 * reviews; a larger wave gets this head start and creates the rest as it writes them, as without spares.
 */
export const MAX_SPARE_FILES = 256;

/**
 * How many spares may be made for `count`: at most MAX_SPARE_FILES, and at most a quarter of the process's
 * limit on open files (`openFiles`, when known). Each spare is held open until staging fills it, and the
 * sync also holds every staged file, git's pipes and the pool's descriptors meanwhile: spares taking more
 * than a quarter would make a sync of a large wave fail for descriptors it needs for its own writes.
 */
export function spareFileBound(count: number, openFiles: number | undefined): number {
  const bound = openFiles === undefined ? MAX_SPARE_FILES : Math.min(MAX_SPARE_FILES, Math.floor(openFiles / 4));
  return Math.max(0, Math.min(count, bound));
}

/**
 * The soft limit on open files of this process, from /proc/self/limits (Linux; one small read, about 20 µs
 * once the process has read a file, made while git fetches); undefined where it cannot be read (another
 * system: MAX_SPARE_FILES alone bounds the spares there) or is unlimited.
 */
export function openFileLimit(limitsPath = '/proc/self/limits'): number | undefined {
  try {
    const match = /^Max open files\s+(\d+)\s/m.exec(readFileSync(limitsPath, 'latin1'));
    return match === null ? undefined : Number(match[1]);
  } catch {
    return undefined;
  }
}

/**
 * Makes `count` empty temporary files in `directory` (inside `root`, created with its missing parents, with
 * no link on the way), each created exclusively and held open; never more than spareFileBound allows.
 * Stops short, quietly, at the first that cannot be made: a spare is only ever a head start.
 */
export function makeSpareFiles(root: string, directory: string, count: number): SpareFiles {
  count = spareFileBound(count, count > 0 ? openFileLimit() : undefined);
  root = resolve(root);
  const name = join(resolve(directory), SPARE_FILE_NAME);
  const reserve = new TemporaryFileReserve();
  const createdDirectories = missingParents(root, name);
  try {
    if (count > 0 && ensureRealParents(root, name, true)) reserve.reserve(name, count, SPARE_MODE);
  } catch {
    // None made: a link or a file on the way.
  }
  return {
    take: () => reserve.take(name, SPARE_MODE),
    discard() {
      reserve.discard();
      removeEmptyDirectories(createdDirectories);
    },
  };
}

// The mode of every file the chain writes (DeclarationFs.writeAtomic: writeFileAtomicSync's default).
const SPARE_MODE = 0o644;

/** A spare (taken from `spares`) holding `bytes`, or undefined when there is none or it cannot be written. */
function fillSpare(spares: SpareFiles | undefined, bytes: Buffer): TemporaryFile | undefined {
  const spare = spares?.take();
  // Checked, as every staged file is, when it is renamed into place (isIntact).
  return spare === undefined ? undefined : fillTemporaryFile(spare, bytes);
}

/** Removes the directories, innermost first, that are empty; the others stay. */
function removeEmptyDirectories(outermostFirst: readonly string[]): void {
  for (const directory of [...outermostFirst].reverse()) {
    try {
      rmdirSync(directory);
    } catch {
      // Not empty (something was written into it) or already gone: it stays as it is.
    }
  }
}

/** Whether every directory from `root` down to `path`'s parent exists and is a real directory. */
function hasRealParents(root: string, path: string): boolean {
  try {
    return ensureRealParents(root, path, false);
  } catch {
    return false;
  }
}

/**
 * Stages `files` (paths inside `root`) for the chain about to run over `fs`, and returns the file system the
 * chain should write through. A file that cannot be staged (a link in the way, a disk error) is simply not
 * staged: its write then goes through `fs`, which refuses or fails it where the chain can report it. A file
 * to be created is filled into one of `spares` (makeSpareFiles) while any is left.
 */
export async function stageWrites(fs: DeclarationFs, root: string, files: Iterable<DeclarationFile>, spares?: SpareFiles): Promise<StagedDeclarationFs> {
  root = resolve(root);
  // The files staged for each target, one per text.
  const held = new Map<string, HeldFile[]>();
  const createdDirectories: string[] = [];
  // Each file's fsync starts on libuv's pool as soon as it is staged, while the next ones are made.
  const pending: Array<{ target: string; file: HeldFile; durable: Promise<boolean> }> = [];
  const stage = (target: string, file: HeldFile) => pending.push({ target, file, durable: fsyncAsync(file.descriptor) });
  const seen = new Map<string, Buffer[]>();
  // Directories found real all the way down from `root`, checked once each: a wave's agents share one. That
  // is enough to look for files in place (they are only read here, and checked again when written); a
  // temporary file is created only behind checks made for it.
  const checkedDirectories = new Set<string>();
  for (const { path, text } of files) {
    const target = resolve(path);
    const bytes = Buffer.from(text, 'utf8');
    const texts = seen.get(target) ?? [];
    if (texts.some((other) => other.equals(bytes))) continue;
    seen.set(target, [...texts, bytes]);
    try {
      const directory = dirname(target);
      if (!checkedDirectories.has(directory)) {
        // Recorded before they are made, so a walk stopped half-way by a link still has its directories removed.
        createdDirectories.push(...missingParents(root, target).filter((missing) => !createdDirectories.includes(missing)));
        ensureRealParents(root, target, true);
        checkedDirectories.add(directory);
      }
      // Only the first text asked for can be found in place: the target changes once it is written. Nothing
      // is looked for in a directory staging has just made.
      const madeHere = createdDirectories.includes(directory);
      const found = texts.length === 0 && !madeHere && isReplaceableFile(target) ? holdIfUnchanged(target, bytes) : undefined;
      if (found !== undefined) stage(target, found);
      else {
        // A spare was made ahead; a file created here is made with no link on the way at the moment of its
        // creation, and not in a directory gone since (which is not made again here). Either is checked
        // again when it is renamed into place.
        const spare = fillSpare(spares, bytes);
        if (spare === undefined && !ensureRealParents(root, target, false)) continue;
        const temporary = spare ?? createTemporaryFile(target, bytes);
        stage(target, { path: temporary.path, bytes, descriptor: temporary.descriptor, inPlace: false });
      }
    } catch {
      // Not staged: the chain's write of it goes through `fs`.
    }
  }
  const durable = await Promise.all(pending.map((staged) => staged.durable));
  pending.forEach(({ target, file }, index) => {
    if (durable[index]) held.set(target, [...(held.get(target) ?? []), file]);
    else release(file);
  });
  /** The file staged for `target` with exactly `bytes`, taken off the stage. */
  const take = (target: string, bytes: Buffer): HeldFile | undefined => {
    const staged = held.get(target) ?? [];
    const index = staged.findIndex((file) => file.bytes.equals(bytes));
    if (index === -1) return undefined;
    const [file] = staged.splice(index, 1);
    if (staged.length === 0) held.delete(target);
    return file;
  };

  // The target directories, each held open once it is first written into (openRealDirectory): a write into
  // it then reaches the directory that was checked, with no walk of its path per file.
  const directories = new Map<string, HeldDirectory>();
  /**
   * `target` reached through its held directory; undefined where none can be held, and the caller checks
   * the path itself. Throws, as ensureRealParents does, for a link on the way.
   */
  const throughHeldDirectory = (target: string): string | undefined => {
    const directory = dirname(target);
    let held = directories.get(directory);
    if (held === undefined) {
      held = openRealDirectory(root, directory);
      if (held !== undefined) directories.set(directory, held);
    }
    return held === undefined ? undefined : join(held.path, basename(target));
  };
  /** Where to rename a staged file for `target`: through its held directory, or the path itself (checked now). */
  const destinationOf = (target: string): string => {
    const reached = throughHeldDirectory(target);
    if (reached !== undefined) return reached;
    ensureRealParents(root, target, true);
    return target;
  };
  /** Whether the file found in place at `target` is still there as it was, in a directory with no link on the way. */
  const isStillInPlace = (target: string, file: HeldFile): boolean => {
    let reached: string | undefined;
    try {
      reached = throughHeldDirectory(target);
    } catch {
      return false;
    }
    if (reached === undefined && !hasRealParents(root, target)) return false;
    return isIntact(file, reached);
  };

  const used: string[] = [];
  const skipped: string[] = [];
  const layered = layeredDeclarationFs(fs, (path, text) => {
    const target = resolve(path);
    const bytes = Buffer.from(text, 'utf8');
    const file = take(target, bytes);
    if (file === undefined) return 'pass';
    if (file.inPlace) {
      const unchanged = isStillInPlace(target, file);
      release(file);
      if (!unchanged) return 'pass';
      skipped.push(path);
      return 'done';
    }
    // The checks every write makes: no link on the way (through the held directory: checked as it was
    // opened, and no path can change which directory it is since), nothing but a file replaced.
    let destination: string;
    try {
      destination = destinationOf(target);
      isReplaceableFile(destination, target);
    } catch (error) {
      release(file);
      throw error;
    }
    if (!isIntact(file)) {
      release(file);
      return 'pass';
    }
    closeSync(file.descriptor);
    try {
      renameSync(file.path, destination);
    } catch (error) {
      unlinkSync(file.path);
      // A spare on another file system than its target (a mount inside the state directory): written as usual.
      if ((error as { code?: string }).code === 'EXDEV') return 'pass';
      throw error;
    }
    used.push(path);
    return 'done';
  });
  return {
    ...layered,
    used,
    skipped,
    discard() {
      for (const staged of held.values()) for (const file of staged) release(file);
      held.clear();
      for (const directory of directories.values()) directory.close();
      directories.clear();
      removeEmptyDirectories(createdDirectories);
    },
  };
}

/** Closes a held file, and removes it when it is a temporary one (a file found in place is the target itself). */
function release(file: HeldFile): void {
  if (!file.inPlace) return removeTemporaryFile(file);
  try {
    closeSync(file.descriptor);
  } catch {
    // Already closed.
  }
}
