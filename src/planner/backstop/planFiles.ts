// The plan files of a state directory, watched by the backstop for a dispatched agent: the manifest and
// the declarations (per-agent files and the aggregate) of the wave it reads, the hook launcher, and what
// the commit guard reads besides (the session record, the aggregates of earlier waves). The state directory is
// git-ignored, so no snapshot of the work tree sees it, yet a dispatched agent's shell can rewrite its
// own scope file (`sed -i`) and then write with its edit tools whatever it gave itself.
//
// A change is seen without reading a byte, nearly always: every plan file is fingerprinted from `lstat`
// (type, device, inode, link count, size, mtime and ctime in nanoseconds). Wave Scope's writers replace a
// file by a rename (a new inode); any write in place changes ctime, which no process can set back, except
// within the file system's timestamp granularity: a write of the same size landing in the same clock tick
// as the last one keeps both times (a tick on Linux before 6.13, a second or two on some file systems).
// So a file whose times are that recent when it is looked at is fingerprinted by its content's hash too,
// and so is it at every later look while the fingerprint it is compared with has one (git's "racily
// clean" entries, for the same reason). Two equal fingerprints then mean the same file, untouched. The
// directories on the way are fingerprinted by type and identity only (their times move with every rename
// inside them), and nothing below a directory that is not a real one is looked at: the readers refuse a
// plan reached through a link (docs/hooks.md, "Control files are read only as Wave Scope writes them"),
// and so does this check.
import { filescopesPath, manifestPath, waveDirPath, waveOfSidecarName, waveSidecarPath } from '../plan/declarationPaths';
import { LAUNCHER_FILE_NAME, SESSION_FILE_NAME } from '../plan/stateDirNames';

/** What one plan path is, by absolute path: its fingerprint (see `planFingerprint`). Absent paths have no key. */
export type PlanFingerprints = ReadonlyMap<string, string>;

/** One path to fingerprint, in the order the host visits them (a directory before what lies in it). */
export interface PlanFileEntry {
  /** Absolute. */
  readonly path: string;
  /** A directory on the way: fingerprinted by type and identity only. */
  readonly directory: boolean;
  /**
   * Also fingerprint entries of this directory: every one (`true`: the wave's per-agent files), or only the
   * aggregates of the waves before `aggregatesBefore` (`filescopes/`: the earlier waves the commit guard
   * counts). See `listsName`.
   */
  readonly list?: boolean | { readonly aggregatesBefore: number };
}

/** Whether `entry` (a directory) has its entry `name` fingerprinted. */
export function listsName(entry: PlanFileEntry, name: string): boolean {
  if (entry.list === undefined || entry.list === false) return false;
  if (entry.list === true) return true;
  const wave = waveOfSidecarName(name);
  return wave !== undefined && wave < entry.list.aggregatesBefore;
}

/** The plan files of the state directories that govern one caller. */
export interface PlanFileRequest {
  readonly entries: readonly PlanFileEntry[];
}

/** One governing state directory: its checkout, the directory, and the wave its manifest names (when it can be read). */
export interface PlanSource {
  /** Canonical coordinator checkout the state directory belongs to. */
  readonly root: string;
  /** Absolute state directory. */
  readonly stateDir: string;
  readonly wave?: number;
}

function join(parent: string, name: string): string {
  return parent === '/' ? `/${name}` : `${parent}/${name}`;
}

/**
 * The paths to fingerprint for `sources`: each directory from the checkout down to the state directory,
 * the manifest, the hook launcher, the session record, `filescopes/` (listed for the aggregates of the waves
 * before the one the manifest names), and for that wave `filescopes/wave-<N>/` (listed) and
 * `filescopes/wave-<N>.scopes.json`.
 */
export function planFileRequest(sources: readonly PlanSource[]): PlanFileRequest {
  const entries: PlanFileEntry[] = [];
  const seen = new Set<string>();
  const add = (entry: PlanFileEntry) => {
    if (seen.has(entry.path)) return;
    seen.add(entry.path);
    entries.push(entry);
  };
  for (const source of sources) {
    const base = source.root.endsWith('/') ? source.root : `${source.root}/`;
    if (source.stateDir.startsWith(base)) {
      let walked = source.root;
      for (const segment of source.stateDir.slice(base.length).split('/').filter((part) => part !== '')) {
        walked = join(walked, segment);
        add({ path: walked, directory: true });
      }
    } else {
      add({ path: source.stateDir, directory: true });
    }
    add({ path: manifestPath(source.stateDir), directory: false });
    // The hook launcher every installed hook runs: rewritten by a shell, it would decide every later call.
    add({ path: join(source.stateDir, LAUNCHER_FILE_NAME), directory: false });
    // The commit guard lets a commit carry what the aggregates of this session's earlier waves declared
    // (those written since the session record's start): rewritten by a shell, either would widen it.
    add({ path: join(source.stateDir, SESSION_FILE_NAME), directory: false });
    const earlier = source.wave !== undefined && source.wave > 1 ? { list: { aggregatesBefore: source.wave } } : {};
    add({ path: filescopesPath(source.stateDir), directory: true, ...earlier });
    if (source.wave !== undefined) {
      add({ path: waveDirPath(source.stateDir, source.wave), directory: true, list: true });
      add({ path: waveSidecarPath(source.stateDir, source.wave), directory: false });
    }
  }
  return { entries };
}

/** What `lstat` says of a path, as the fingerprint needs it. */
export interface PlanFileStat {
  readonly type: 'file' | 'directory' | 'link' | 'other';
  readonly dev: bigint | number;
  readonly ino: bigint | number;
  readonly nlink: bigint | number;
  readonly size: bigint | number;
  readonly mtimeNs: bigint | number;
  readonly ctimeNs: bigint | number;
}

/**
 * The fingerprint of one path: a directory by type and identity, anything else by every field, and by
 * `contentHash` (a hex SHA-256 of what the file holds) when it is given.
 */
export function planFingerprint(stat: PlanFileStat, directory: boolean, contentHash?: string): string {
  const identity = `${stat.dev}:${stat.ino}`;
  if (directory && stat.type === 'directory') return `directory ${identity}`;
  const fields = `${stat.type} ${identity} ${stat.nlink} ${stat.size} ${stat.mtimeNs} ${stat.ctimeNs}`;
  return contentHash === undefined ? fields : `${fields}${CONTENT_HASH_MARK}${contentHash}`;
}

const CONTENT_HASH_MARK = ' sha256:';

/**
 * The request that looks at exactly the paths `fingerprints` holds again, each as it was looked at: a
 * directory on the way by identity (a fingerprint of two fields, `directory <identity>`), anything else by
 * every field, however its type has changed since; a directory before what lies in it. For a caller that
 * has fingerprints to compare with but no sources left to ask them of (the plan's manifest gone).
 */
export function planFileRequestOf(fingerprints: PlanFingerprints): PlanFileRequest {
  const asDirectory = (fingerprint: string) => fingerprint.startsWith('directory ') && fingerprint.split(' ').length === 2;
  return { entries: [...fingerprints.keys()].sort().map((path) => ({ path, directory: asDirectory(fingerprints.get(path) as string) })) };
}

/** Whether `fingerprint` holds its file's content hash (the file's times were recent when it was taken). */
export function hasContentHash(fingerprint: string | undefined): boolean {
  return fingerprint !== undefined && fingerprint.includes(CONTENT_HASH_MARK);
}

/**
 * Whether two fingerprints of one path say the file is untouched. Both with a content hash, or both
 * without: exactly equal. One with and one without (a snapshot saved by a version that hashed nothing):
 * by everything but the hash, as that version compared.
 */
export function samePlanFile(before: string, after: string): boolean {
  if (before === after) return true;
  if (hasContentHash(before) === hasContentHash(after)) return false;
  const fields = (fingerprint: string) => {
    const mark = fingerprint.indexOf(CONTENT_HASH_MARK);
    return mark === -1 ? fingerprint : fingerprint.slice(0, mark);
  };
  return fields(before) === fields(after);
}

/** The fingerprint of a path that exists but whose `lstat` failed (the code stands in for the rest). */
export function unreadableFingerprint(code: string): string {
  return `unreadable ${code}`;
}

/**
 * How a plan path changed: `created`, `deleted`, `modified` (written in place, or touched), `replaced`
 * (another file or directory under the name: a rename over it, a copy moved in), `linked` (a symbolic
 * link now stands there, or the file gained a second name).
 */
export type PlanChangeKind = 'created' | 'deleted' | 'modified' | 'replaced' | 'linked';

export interface PlanFileChange {
  /** Absolute. */
  readonly path: string;
  readonly kind: PlanChangeKind;
}

interface Parsed {
  readonly type: string;
  readonly identity: string;
  readonly nlink?: number;
}

function parse(fingerprint: string): Parsed {
  const [type = '', identity = '', nlink] = fingerprint.split(' ');
  return { type, identity, ...(nlink !== undefined ? { nlink: Number(nlink) } : {}) };
}

function kindOf(before: string, after: string): PlanChangeKind {
  const was = parse(before);
  const now = parse(after);
  if (now.type === 'link' && was.type !== 'link') return 'linked';
  if (now.type === 'file' && (now.nlink ?? 1) > 1 && (was.type !== 'file' || (was.nlink ?? 1) <= 1)) return 'linked';
  if (now.type !== was.type || now.identity !== was.identity) return 'replaced';
  return 'modified';
}

function isBelow(path: string, directory: string): boolean {
  return path.startsWith(directory === '/' ? '/' : `${directory}/`);
}

/**
 * Every plan path of `request` whose fingerprint differs between `before` and `after`, in the request's
 * order (a listed directory's entries after it, sorted). A path below a changed directory is not named
 * again: the directory's change says it. Paths `before` holds that the request no longer watches (the
 * manifest now names another wave) are not compared; the manifest's own change says that.
 */
export function comparePlanFiles(request: PlanFileRequest, before: PlanFingerprints, after: PlanFingerprints): PlanFileChange[] {
  const changes: PlanFileChange[] = [];
  const changedDirectories: string[] = [];
  const compare = (path: string, directory: boolean) => {
    if (changedDirectories.some((changed) => isBelow(path, changed))) return;
    const was = before.get(path);
    const now = after.get(path);
    if (was === now || (was !== undefined && now !== undefined && samePlanFile(was, now))) return;
    const kind: PlanChangeKind = was === undefined ? (parse(now as string).type === 'link' ? 'linked' : 'created') : now === undefined ? 'deleted' : kindOf(was, now);
    changes.push({ path, kind });
    if (directory) changedDirectories.push(path);
  };
  for (const entry of request.entries) {
    compare(entry.path, entry.directory);
    if (entry.list === undefined || entry.list === false) continue;
    const inside = new Set<string>();
    for (const map of [before, after]) {
      for (const path of map.keys()) {
        if (!isBelow(path, entry.path)) continue;
        const name = path.slice(entry.path.length + 1);
        if (!name.includes('/') && listsName(entry, name)) inside.add(path);
      }
    }
    for (const path of [...inside].sort()) compare(path, false);
  }
  return changes;
}

/** A plan path as a reply names it: relative to `root` when it lies below it, else absolute. */
export function planPathForReport(path: string, root: string): string {
  const base = root.endsWith('/') ? root : `${root}/`;
  return path.startsWith(base) ? path.slice(base.length) : path;
}
