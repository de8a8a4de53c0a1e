// The backstop's own files: turn records and hook snapshots (atomic: temp file, fsync, rename, through
// real directories only; a snapshot is read back only as the hook left it) and the telemetry log (one
// `write` per record on a descriptor opened with O_APPEND, so records of hooks running at the same time
// never interleave).
import { isAscii } from 'node:buffer';
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, writeSync } from 'node:fs';
import type { BigIntStats } from 'node:fs';
import { dirname } from 'node:path';
import { writeFileAtomicSync } from './atomicFile';
import { ensureRealParents, UnsafePathError } from './declarationFs';
import { openOwnFile } from './hookFileSystem';
import { hasContentHash, listsName, planFingerprint, unreadableFingerprint } from '../planner/backstop/planFiles';
import { asciiLowerCase } from '../planner/scope/scopeEntry';
import type { PlanFileRequest, PlanFileStat, PlanFingerprints } from '../planner/backstop/planFiles';

/**
 * Atomically replaces `path` (below `root`) with `text`, creating the directories between them and
 * following no link among them (ensureRealParents). A turn can write `.orchestrator/`, which no snapshot
 * looks at: a link planted there would otherwise have a turn record written over a file elsewhere (a
 * person's file in the work tree), after the turn was checked. Throws an UnsafePathError then. (A link at
 * `path` itself is replaced, not followed.)
 */
export function writeFileBelow(root: string, path: string, text: string): void {
  try {
    ensureRealParents(root, path, true);
  } catch (error) {
    // Worded as a turn's warning reads it: what stands on the way.
    if (!(error instanceof UnsafePathError) || (error.reason !== 'symlink' && error.reason !== 'not-a-directory')) throw error;
    throw new UnsafePathError(error.reason, error.path, `${error.path} is a link or not a directory, so nothing is written through it`);
  }
  writeFileAtomicSync(path, text);
}

/**
 * The text of a file the backstop saved below `root` (`.orchestrator/backstop/hooks/`), or undefined
 * when there is none. Read as Wave Scope's own files are (hookFileSystem.ts, openOwnFile): a regular file
 * with one link, reached from `root` through real directories; a saved snapshot an agent could rewrite
 * through another name could hide what it changed, so anything else throws a ControlFileError naming
 * it. No size cap: a saved index listing is as large as the repository's index. That listing is
 * megabytes of (nearly always) ASCII: decoding bytes that are all ASCII as Latin-1 gives the same string
 * as UTF-8 for a fraction of the time; anything else is decoded as UTF-8.
 */
export function readSavedText(root: string, path: string): string | undefined {
  const opened = openOwnFile(root, path);
  if (opened === undefined) return undefined;
  try {
    const bytes = readFileSync(opened.descriptor);
    return bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8');
  } finally {
    closeSync(opened.descriptor);
  }
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

function typeOf(stats: BigIntStats): PlanFileStat['type'] {
  if (stats.isFile()) return 'file';
  if (stats.isDirectory()) return 'directory';
  if (stats.isSymbolicLink()) return 'link';
  return 'other';
}

/**
 * How recent a file's modification or change time must be, when it is looked at, for a later write of
 * the same size to leave both as they are: the coarsest timestamp granularity of the file systems a
 * checkout is likely on (FAT's two seconds; HFS+ and ext3 keep one, Linux before 6.13 a clock tick).
 */
export const RACY_WINDOW_NS = 2_000_000_000n;

function fileStat(stats: BigIntStats): PlanFileStat {
  return { type: typeOf(stats), dev: stats.dev, ino: stats.ino, nlink: stats.nlink, size: stats.size, mtimeNs: stats.mtimeNs, ctimeNs: stats.ctimeNs };
}

/**
 * The regular file at `path` (never through a link), read whole and hashed, with its `fstat` taken after
 * the read: a write landing after the read changes either the times that stat shows or, within their
 * tick, the hash the next look takes. Undefined when it cannot be opened as a regular file (then `lstat`
 * alone says what it is).
 */
function hashedFile(path: string): { stats: BigIntStats; contentHash: string } | undefined {
  let descriptor: number;
  try {
    descriptor = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | (constants.O_NOFOLLOW ?? 0));
  } catch {
    return undefined;
  }
  try {
    if (!fstatSync(descriptor).isFile()) return undefined;
    const contentHash = createHash('sha256').update(readFileSync(descriptor)).digest('hex');
    return { stats: fstatSync(descriptor, { bigint: true }), contentHash };
  } finally {
    closeSync(descriptor);
  }
}

/**
 * The fingerprints of the plan files `request` names (planFiles.ts), from `lstat`; a file is also opened
 * and hashed when its times are within RACY_WINDOW_NS of this look (or after it), or when its fingerprint
 * in `previous` (what the result will be compared with) holds a hash. A path below a directory that is not
 * a real one (a link, a file, nothing) is not looked at, as the readers refuse a plan reached that way;
 * the directories marked `list` that are real have the entries it names fingerprinted too (`listsName`).
 */
export function fingerprintPlanFiles(request: PlanFileRequest, previous?: PlanFingerprints, options: { now?: () => number } = {}): PlanFingerprints {
  const fingerprints = new Map<string, string>();
  const unusable: string[] = [];
  const racyFrom = BigInt((options.now ?? Date.now)()) * 1_000_000n - RACY_WINDOW_NS;
  const add = (path: string, directory: boolean): BigIntStats | undefined => {
    try {
      const stats = lstatSync(path, { bigint: true, throwIfNoEntry: false });
      if (stats === undefined) return undefined;
      const racy = stats.isFile() && (stats.mtimeNs >= racyFrom || stats.ctimeNs >= racyFrom || hasContentHash(previous?.get(path)));
      const hashed = racy ? hashedFile(path) : undefined;
      fingerprints.set(path, hashed !== undefined ? planFingerprint(fileStat(hashed.stats), directory, hashed.contentHash) : planFingerprint(fileStat(stats), directory));
      return stats;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'failed';
      if (code !== 'ENOENT' && code !== 'ENOTDIR') fingerprints.set(path, unreadableFingerprint(code));
      return undefined;
    }
  };
  for (const entry of request.entries) {
    if (unusable.some((dir) => entry.path.startsWith(`${dir}/`))) continue;
    const stats = add(entry.path, entry.directory);
    if (!entry.directory) continue;
    if (stats === undefined || !stats.isDirectory()) {
      unusable.push(entry.path);
      continue;
    }
    if (entry.list === undefined || entry.list === false) continue;
    let names: string[];
    try {
      names = readdirSync(entry.path);
    } catch (error) {
      fingerprints.set(`${entry.path}/`, unreadableFingerprint((error as NodeJS.ErrnoException).code ?? 'failed'));
      continue;
    }
    for (const name of names) if (listsName(entry, name)) add(`${entry.path}/${name}`, false);
  }
  return fingerprints;
}

/** The most entries `gitDirectoriesBelow` looks at before it gives up (a turn that cannot be checked). */
export const MAX_WALKED_ENTRIES = 1_000_000;

/** A place git would take for a repository, found below a turn's granted directories. */
export interface FoundRepository {
  /** Relative to the write root. */
  readonly path: string;
  /** `git`: an entry named `.git` (a directory or a gitfile); `git-directory`: a directory git takes for a
   * repository's own (it holds `HEAD`, `objects/` and `refs/`, as a bare one does); `link`: a symbolic link
   * to a directory that is one of those or holds a `.git`. */
  readonly kind: 'git' | 'git-directory' | 'link';
}

/** Where a found repository is reported: a git directory by its HEAD (the directory is one a turn may own). */
export function reportedRepositoryPath(found: FoundRepository): string {
  return found.kind === 'git-directory' ? `${found.path}/HEAD` : found.path;
}

/** Whether `entries` (a directory's) are what git takes for a git directory: HEAD, objects/, refs/. */
function looksLikeGitDirectory(entries: ReadonlyArray<{ name: string; isDirectory(): boolean }>): boolean {
  const named = (name: string) => entries.find((entry) => entry.name === name);
  return named('HEAD') !== undefined && named('objects')?.isDirectory() === true && named('refs')?.isDirectory() === true;
}

/** Whether the directory a link leads to is a repository's: it holds a `.git`, or is a git directory. */
function leadsToRepository(path: string): boolean {
  try {
    const entries = readdirSync(path, { withFileTypes: true });
    return entries.some((entry) => entry.name.length === 4 && asciiLowerCase(entry.name) === '.git') || looksLikeGitDirectory(entries);
  } catch {
    return false;
  }
}

/**
 * Every place below the directories `roots` where git would find a repository: an entry named `.git` (in
 * any case: a checkout on a case-insensitive file system reads `.GIT` so), a directory that is a git
 * directory itself (HEAD, objects/, refs/: git takes it for a bare repository when run there), and a link
 * to a directory that is either; paths relative to `writeRoot`, sorted. Links are not followed further and
 * a repository is not looked into. git never lists such an entry (it is where a nested repository starts),
 * so a snapshot cannot see one planted in a granted directory, and its config runs programs for whoever
 * next runs git there (`core.fsmonitor`). Throws past MAX_WALKED_ENTRIES entries.
 */
export function gitDirectoriesBelow(writeRoot: string, roots: readonly string[]): FoundRepository[] {
  const found = new Map<string, FoundRepository['kind']>();
  const pending = [...roots];
  const relative = (path: string) => path.slice(writeRoot.length + 1);
  let walked = 0;
  for (let directory = pending.pop(); directory !== undefined; directory = pending.pop()) {
    let entries;
    try {
      entries = readdirSync(directory, { withFileTypes: true });
    } catch {
      // Gone, or not a directory (a granted file): nothing beneath.
      continue;
    }
    walked += entries.length;
    if (walked > MAX_WALKED_ENTRIES) throw new Error(`more than ${MAX_WALKED_ENTRIES} entries below the granted directories: they could not be searched for planted repositories`);
    if (looksLikeGitDirectory(entries)) {
      found.set(relative(directory), 'git-directory');
      continue;
    }
    for (const entry of entries) {
      const path = `${directory}/${entry.name}`;
      if (entry.name.length === 4 && asciiLowerCase(entry.name) === '.git') found.set(relative(path), 'git');
      else if (entry.isDirectory()) pending.push(path);
      else if (entry.isSymbolicLink() && leadsToRepository(path)) found.set(relative(path), 'link');
    }
  }
  return [...found].map(([path, kind]) => ({ path, kind })).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
