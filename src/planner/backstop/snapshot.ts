// A snapshot: the content identity of every file of a work tree, taken the way git itself avoids
// reading files. Two git calls, run at the same time:
//
//   git ls-files --stage -v -z           the index: mode and object id of every tracked path (and its
//                                        flags: assume-unchanged, skip-worktree)
//   git status --porcelain=v2 -z ...     the paths whose work-tree content differs from the index, and
//                                        the untracked ones (git decides this from the index's stat
//                                        data and re-reads only what it cannot vouch for)
//
// A tracked path git does not report is, by git's own check, what the index says: its identity is the
// index's `<mode> <oid>`. That check is skipped for an entry flagged assume-unchanged or skip-worktree
// (`git update-index`), so the listing is taken with `-v`, whose tags name them, and those are read like
// reported paths. Only the reported paths (changed, untracked), the flagged ones and the configured
// ignored paths are read and hashed, into the same kind of identity (the git blob id of the bytes on
// disk), so a path whose change is merely staged, or staged and reverted, keeps one identity throughout.
//
// The core runs no process and opens no file: git and the work tree are behind `SnapshotHost`
// (src/node/backstopGit.ts implements it).
import { compileScopeEntry, foldCase } from '../scope/scopeEntry';
import type { CompiledScopeEntry } from '../scope/scopeEntry';
import { filescopesPath, manifestPath } from '../plan/declarationPaths';
import { compareGitPaths, GitOutputError, hasUndecodableName, IndexListing, IndexStats, parseStatusV2, savedDigests } from './gitOutput';
import type { HeadState } from './gitOutput';
import type { PlanFingerprints } from './planFiles';
import { ORCHESTRATOR_DIR_NAME } from '../plan/stateDirNames';

/** The object format of the repository: the hash its object ids (and so our identities) use. */
export type ObjectFormat = 'sha1' | 'sha256';

/** What one work-tree path holds, as the host found it. */
export type WorkTreeState =
  /** `statKey`: the file's stat as an index entry records it (fileStatKey), of the very file hashed. */
  | { readonly kind: 'file'; readonly executable: boolean; readonly oid: string; readonly statKey?: string }
  | { readonly kind: 'symlink'; readonly oid: string }
  /** A directory git lists as one entry: an untracked nested repository, or a submodule. */
  | { readonly kind: 'directory' }
  | { readonly kind: 'missing' }
  /** Present but not readable; `stat` (size, times, inode) stands in for the content. */
  | { readonly kind: 'unreadable'; readonly stat: string };

/** git and the work tree, as a snapshot needs them. */
export interface SnapshotHost {
  /** Runs git in the work tree's top level; resolves with stdout (UTF-8). Rejects when git fails. */
  git(args: readonly string[], options?: { input?: string }): Promise<string>;
  /**
   * What each path holds, in order (repository-relative, or absolute when it starts with `/`): a file
   * or link is hashed as git hashes a blob (`blob <size>\0<bytes>`, with `format`), without git's
   * clean filters.
   */
  inspect(paths: readonly string[], format: ObjectFormat): Promise<WorkTreeState[]>;
  /**
   * The checksum git keeps at the end of its index file (undefined when there is none): equal
   * checksums mean the same index, so a listing taken under one serves the other.
   */
  indexChecksum?(): Promise<string | undefined>;
  /**
   * git's own files that change what git ignores or runs (`.git/config`, `.git/config.worktree`,
   * `.git/info/exclude`, the hooks) as they are now, by absolute path and the name they are reported
   * under. No git command lists them, and a turn that wrote `info/exclude` could otherwise hide an
   * out-of-scope file from every snapshot.
   */
  gitFiles?(): Promise<ReadonlyArray<{ readonly name: string; readonly path: string }>>;
  /**
   * Where this host's repository keeps its git directory and common directory, as resolved when the host
   * was made: a nested repository whose gitfile a turn pointed elsewhere is another repository, whatever
   * its files say.
   */
  readonly location?: string;
  /**
   * The host of the repository whose work tree is the directory `path` (repository-relative, no trailing
   * slash): a submodule's. Undefined when git finds no repository of its own there (an uninitialised
   * submodule). Without it, a submodule is identified by its HEAD and git's dirty flag alone.
   */
  nested?(path: string): Promise<SnapshotHost | undefined>;
  /**
   * The commit HEAD names in the repository whose work tree is the directory `path` (repository-relative, no
   * trailing slash), git asked there and nothing else: how an untracked nested repository is identified.
   * Undefined when it has none; rejects when git fails there.
   */
  headOf?(path: string): Promise<string | undefined>;
  /**
   * Every file, link and other entry below the directory `path` (repository-relative), with what it holds
   * (as `inspect` says), paths relative to this host's top level; directories are descended, never
   * through a link. Read without git: it is how a submodule's directory that is no repository of its own
   * is looked at, where git lists nothing.
   */
  filesBelow?(path: string, format: ObjectFormat): Promise<Array<{ readonly path: string; readonly state: WorkTreeState }>>;
}

/** The content identity of every file of one work tree at one moment. */
export interface Snapshot {
  readonly objectFormat: ObjectFormat;
  readonly head: HeadState;
  /** `git ls-files --stage -v -z` as printed: the identity of every tracked path git did not report. */
  readonly indexListing: string;
  /** The index file's checksum the listing was taken under, when it held still for the whole snapshot. */
  readonly indexChecksum?: string;
  /**
   * When the snapshot was begun (milliseconds since the epoch, this machine's clock). A later snapshot
   * compared with one that has no indexStats (saved by the version before them) reads the files whose
   * entries were stated after it (RECENT_STAT_MARGIN_SECONDS).
   */
  readonly takenAt?: number;
  /**
   * The stat data git keeps for each record of indexListing, in its order: a 32-bit digest of each
   * (IndexStats.digests), as IndexStats.digestText writes them. A later snapshot under another index reads every entry
   * whose stat data changed while its object id did not (restatedPaths). Absent in a snapshot saved before them.
   */
  readonly indexStats?: string;
  /**
   * Tracked paths whose index entry did not describe the file found there when it was last read (the
   * entry's stat is not the file's), with the entry's stat as a file's is compared with it
   * (IndexStats.fileKeyAt). Each is read again at every later snapshot until its entry describes its file.
   */
  readonly suspects?: ReadonlyMap<string, string>;
  /**
   * Every path whose work-tree content is not its index entry's: changed, deleted (null), untracked,
   * in conflict, or a watched ignored path. Identities are `"<mode> <oid>"` like the index's.
   */
  readonly workTree: ReadonlyMap<string, string | null>;
  /**
   * The plan files' fingerprints (planFiles.ts), when they were taken: the hooks take them with every
   * snapshot; a header saved by a version before them has none.
   */
  readonly planFiles?: PlanFingerprints;
  /**
   * The snapshots of this repository's submodules, by their directory: git identifies a submodule by the
   * commit its HEAD names, and whether it calls it dirty, so a change inside one already dirty, or one its
   * own index or `info/exclude` hides, would otherwise go unseen; and it lists nothing in the directory of
   * one not checked out. Each is compared with its counterpart path by path. A directory that is no
   * repository of its own is held as the files found in it (location NO_REPOSITORY, an empty listing).
   */
  readonly nested?: ReadonlyMap<string, Snapshot>;
  /** SnapshotHost.location of the host it was taken through (a nested repository's). */
  readonly location?: string;
  /**
   * The stage-0 gitlinks of indexListing (IndexListing.gitlinks), when nested repositories were looked
   * for: a snapshot that reuses the listing reuses them (finding them is a scan of the whole listing).
   */
  readonly gitlinks?: readonly string[];
}

export interface SnapshotOptions {
  /** Paths the snapshot does not look at (control state, `.orchestrator/`); see `backstopExclusions`. */
  readonly exclude?: (path: string) => boolean;
  /**
   * Normalised scope entries naming ignored paths to watch anyway (`.env`). Found with one
   * `git ls-files --others --ignored` under their literal directories.
   */
  readonly watchIgnored?: readonly string[];
  readonly ignoreCase?: boolean;
  /** An earlier snapshot of the same work tree: its listing is reused when the index has not changed since. */
  readonly previous?: Snapshot;
  /** How many repositories this one lies inside (0 for the checkout itself); see MAX_NESTED_DEPTH. */
  readonly depth?: number;
  /**
   * Submodule directories (repository-relative) that are read without git, as a directory that is no
   * repository is: those a confined turn may write (`run --confine`'s granted directories). git run in one
   * would run the filters of whatever config the turn put there (a gitfile written into an uninitialised
   * submodule's directory, or the directory renamed aside and another made in its place), outside the
   * sandbox (found by red-team review, 2026-12-06).
   */
  readonly readWithoutGit?: (path: string) => boolean;
}

/**
 * How deep repositories inside repositories are snapshotted; one deeper than this is identified by its
 * HEAD (and git's dirty flag) alone. Each level is a directory inside the one above, so the chain ends
 * anyway; the bound keeps a checkout of many levels from costing a snapshot each on every shell call.
 */
export const MAX_NESTED_DEPTH = 4;

/** How many nested repositories are snapshotted at once (each runs its own git processes). */
const NESTED_CONCURRENCY = 4;

/**
 * The identity of a submodule whose snapshot could not be taken (git failed there, or its directory could not
 * be read), told apart by the snapshot's start: what it holds is unknown, so it is a change at every
 * comparison, never an identity that settles while files below it change (found by red-team review,
 * 2026-12-06).
 */
const unreadableNested = (takenAt: number) => `160000 unreadable at ${takenAt}`;

/** Snapshot.location of a submodule's directory that is no repository of its own: its files, read without git. */
export const NO_REPOSITORY = 'no repository';

/**
 * The settings that decide what git calls a change, pinned on the snapshot's command lines: a global config
 * (which an agent's shell can write) could otherwise make git trust an mtime put back with `touch`
 * (`core.checkStat=minimal`, `core.trustctime=false`), stop looking at tracked files (`core.ignoreStat`), or
 * ask a monitor, or a cache, that reports nothing changed (`core.fsmonitor`, `core.untrackedCache`). The
 * global attributes file is not read (`core.attributesFile`, which stands for the XDG one too): git compares
 * a same-size file whose times moved by its content, through the clean filter its attributes name, and a
 * filter the agent named there in a global config (`git cat-file blob HEAD:<path>`) gave back the old
 * content of any file, so the rewrite read as clean (found by red-team review, 2026-12-06). The repository's
 * own attributes stay: `.gitattributes` files are files of the tree (a new or changed one is a change), and
 * `info/attributes` is watched with git's other files (gitControlFiles).
 */
export const PINNED_CHANGE_SETTINGS: readonly string[] = [
  '-c',
  'core.checkStat=default',
  '-c',
  'core.trustctime=true',
  '-c',
  'core.ignoreStat=false',
  '-c',
  'core.fsmonitor=false',
  '-c',
  'core.untrackedCache=false',
  '-c',
  'core.attributesFile=/dev/null',
];

/**
 * The status call: every difference of the work tree from the index, untracked files one by one. Submodules
 * only by the commit they hold (`--ignore-submodules=dirty`): to tell whether one is dirty git runs its own
 * status inside it, under the submodule's config, whose filters a turn could name (a gitfile planted in an
 * uninitialised submodule's directory had git run the turn's program outside `--confine`: red-team review,
 * 2026-12-06). What changed inside a submodule is the nested snapshot's to say (Snapshot.nested).
 */
export const STATUS_ARGS: readonly string[] = [
  ...PINNED_CHANGE_SETTINGS,
  // No optional lock: a snapshot taken while an agent runs git must not make the agent's git fail.
  '--no-optional-locks',
  'status',
  '--porcelain=v2',
  '-z',
  '--branch',
  '--no-ahead-behind',
  '--untracked-files=all',
  '--no-renames',
  '--ignore-submodules=dirty',
];

/** The index listing call; `-v` tags the entries status does not look at (see `IndexListing.uncheckedEntries`). */
export const INDEX_ARGS: readonly string[] = [...PINNED_CHANGE_SETTINGS, '--no-optional-locks', 'ls-files', '--stage', '-v', '-z'];

/**
 * The same listing with the stat data git keeps for each entry (IndexStats), taken beside it whenever the
 * index is listed. git's status takes a tracked file whose times, size and inode equal its entry's for what
 * the entry says, and the index is a file an agent's shell can write: `git add` through a one-off clean
 * filter on git's own command line (`-c filter.x.clean='git cat-file blob HEAD:<path>'`) gave a rewritten
 * file an entry with the old object id and the new file's stat data, so status called it clean (found by
 * red-team review, 2026-12-06); a directory swapped in keeps its files' ctimes, so a clock cannot tell such an
 * entry (a second review, the same day). So a later snapshot under another index reads every entry whose stat
 * data changed while its object id did not (restatedPaths), and keeps under suspicion an entry that did not
 * describe its file when read (Snapshot.suspects).
 */
export const INDEX_STAT_ARGS: readonly string[] = [...INDEX_ARGS, '--debug'];

/**
 * How far before the earlier snapshot's start an entry's recorded time still counts as recent, when that
 * snapshot has no stat data to compare with: file times come from a clock that lags the one read by up to a
 * tick, and some file systems keep times to the second or two (FAT).
 */
export const RECENT_STAT_MARGIN_SECONDS = 2;

/**
 * The stage-0 entries of `listing` (its stat data `stats`) whose record (path, mode, object id, stage) is the
 * one `previous` holds but whose stat data is not (`previousStats`, saved with it); undefined when
 * previousStats does not fit previous (a damaged store), so the caller falls back. Position by position when
 * the two listings are the same text (only stat data moved: a refresh, or a forged entry), else one merge
 * walk over both, in git's order.
 */
export function restatedPaths(previous: IndexListing, previousStats: string, listing: IndexListing, stats: IndexStats): string[] | undefined {
  const saved = savedDigests(previousStats, previous.size);
  if (saved === undefined) return undefined;
  const restated: string[] = [];
  if (previous.text === listing.text) {
    for (let index = 0; index < stats.size; index += 1) {
      if (stats.digests[index] !== saved[index]) {
        const record = listing.recordAt(index);
        if (record.stage === 0) restated.push(record.path);
      }
    }
    return restated;
  }
  let at = 0;
  for (let index = 0; index < previous.size; index += 1) {
    const before = previous.recordAt(index);
    while (at < listing.size) {
      const record = listing.recordAt(at);
      if ((compareGitPaths(record.path, before.path) || record.stage - before.stage) >= 0) break;
      at += 1;
    }
    if (at >= listing.size) break;
    const record = listing.recordAt(at);
    if (record.text === before.text) {
      if (record.stage === 0 && stats.digests[at] !== saved[index]) restated.push(record.path);
      at += 1;
    }
  }
  return restated;
}

/**
 * The entries whose stat data is not their file's (`git diff-files` compares stat data only, and reads no
 * content), listed at a snapshot compared with none: an entry made for another file, whose own file is back
 * in place for now, is what git's status calls clean (it compares the content then) and is kept under
 * suspicion from the start (suspects). A turn that forged one and a later turn that swaps the prepared file in
 * are two `wave-scope run` calls, each of which begins with such a snapshot (found by red-team review, 2026-12-06).
 */
export const STAT_DIRTY_ARGS: readonly string[] = [...PINNED_CHANGE_SETTINGS, '--no-optional-locks', 'diff-files', '--name-only', '-z'];

/** The identity of a path git lists under a name that is not UTF-8: present, content unknown. */
const UNDECODABLE_NAME = 'unreadable undecodable-name';

/** The identity of a path that holds nothing (the key is absent, or its value is null). */
export type Identity = string | null;

function identityOf(state: WorkTreeState): Identity {
  switch (state.kind) {
    case 'file':
      return `${state.executable ? '100755' : '100644'} ${state.oid}`;
    case 'symlink':
      return `120000 ${state.oid}`;
    case 'directory':
      return '040000 directory';
    case 'missing':
      return null;
    case 'unreadable':
      return `unreadable ${state.stat}`;
  }
}

function formatOfLength(length: number | undefined): ObjectFormat | undefined {
  if (length === 40) return 'sha1';
  if (length === 64) return 'sha256';
  return undefined;
}

/** The literal directory every path of an entry's alternatives lies in ('' for the root), for a pathspec. */
function literalDirectories(entry: CompiledScopeEntry): string[] {
  const dirs = new Set<string>();
  for (const alternative of entry.alternatives) {
    const literal: string[] = [];
    for (const segment of alternative) {
      if (segment.kind !== 'pattern' || segment.literal === undefined) break;
      literal.push(segment.literal);
    }
    // A fully literal alternative names a file: its directory is the one to list.
    if (literal.length === alternative.length) literal.pop();
    dirs.add(literal.join('/'));
  }
  return [...dirs];
}

async function watchedIgnoredPaths(host: SnapshotHost, entries: readonly string[], ignoreCase: boolean): Promise<string[]> {
  if (entries.length === 0) return [];
  const compiled = entries.map((entry) => compileScopeEntry(entry, { ignoreCase }));
  const dirs = [...new Set(compiled.flatMap(literalDirectories))].map((dir) => (dir === '' ? '.' : dir));
  const output = await host.git(['--no-optional-locks', '--literal-pathspecs', 'ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--', ...dirs]);
  return output.split('\0').filter((path) => path !== '' && compiled.some((entry) => entry.matches(path)));
}

/** Submodules and untracked nested repositories are identified by the commit their HEAD names. */
async function nestedHead(host: SnapshotHost, path: string): Promise<string | undefined> {
  try {
    return await host.headOf?.(path.replace(/\/$/, ''));
  } catch {
    return undefined;
  }
}

/**
 * The snapshots of the submodules at `paths` (no trailing slash), at most NESTED_CONCURRENCY at a time: a
 * snapshot, `unreadable` when git failed there, or, where git finds no repository of the directory's own
 * (an uninitialised submodule, a gitfile removed), the files found in it (plainDirectory). Each is
 * compared with the previous snapshot's of the same path, its paths excluded as the enclosing
 * repository's (`exclude` of `<path>/<its path>`).
 *
 * git runs in a submodule under the submodule's own config, whose filters run with it. So only where a
 * turn could not have given it a config unseen: a confined turn's granted directories are read without git
 * (SnapshotOptions.readWithoutGit), and anywhere else a config the turn changed is a change of that window's
 * own (the submodule's git files are watched). An untracked repository inside the checkout may be one an
 * agent planted in its own directory, and git run there would run the filters its config names, outside any
 * `--confine` sandbox, before anything of it is compared (found by red-team review, 2026-12-06): it stays
 * identified by its HEAD.
 */
async function nestedSnapshots(host: SnapshotHost, paths: readonly string[], options: SnapshotOptions, objectFormat: ObjectFormat): Promise<Map<string, Snapshot | 'unreadable'>> {
  const found = new Map<string, Snapshot | 'unreadable'>();
  const nestedOf = host.nested?.bind(host);
  if (nestedOf === undefined || paths.length === 0) return found;
  const exclude = options.exclude ?? (() => false);
  const readWithoutGit = options.readWithoutGit;
  const depth = (options.depth ?? 0) + 1;
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < paths.length; index = next++) {
      const path = paths[index] as string;
      const innerExclude = (inner: string) => exclude(`${path}/${inner}`);
      try {
        const nestedHost = readWithoutGit?.(path) === true ? undefined : await nestedOf(path);
        if (nestedHost === undefined) {
          const plain = await plainDirectory(host, path, objectFormat, innerExclude);
          if (plain !== undefined) found.set(path, plain);
          continue;
        }
        const previous = options.previous?.nested?.get(path);
        const snapshot = await takeSnapshot(nestedHost, {
          exclude: innerExclude,
          ...(options.ignoreCase !== undefined ? { ignoreCase: options.ignoreCase } : {}),
          // The listing and stat data of another repository's index say nothing of this one's.
          ...(previous !== undefined && previous.location === nestedHost.location ? { previous } : {}),
          ...(readWithoutGit !== undefined ? { readWithoutGit: (inner: string) => readWithoutGit(`${path}/${inner}`) } : {}),
          depth,
        });
        found.set(path, snapshot);
      } catch {
        found.set(path, 'unreadable');
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(NESTED_CONCURRENCY, paths.length) }, worker));
  return found;
}

/**
 * A submodule's directory that is no repository of its own, as a snapshot: every entry found in it is in
 * its work tree (it has no index), under paths relative to the directory. Undefined without a host that
 * can walk it.
 */
async function plainDirectory(host: SnapshotHost, path: string, objectFormat: ObjectFormat, exclude: (path: string) => boolean): Promise<Snapshot | undefined> {
  if (host.filesBelow === undefined) return undefined;
  const workTree = new Map<string, string | null>();
  const prefix = `${path}/`;
  for (const entry of await host.filesBelow(path, objectFormat)) {
    const inner = entry.path.startsWith(prefix) ? entry.path.slice(prefix.length) : entry.path;
    if (!exclude(inner)) workTree.set(inner, identityOf(entry.state));
  }
  return { objectFormat, head: {}, indexListing: '', workTree, location: NO_REPOSITORY };
}

/** How often the two git calls are repeated when the index changed while they ran. */
const INDEX_RETRIES = 2;

/**
 * The status and the index listing, taken under one index: the index checksum is read before and
 * after both calls, and when it moved (someone staged or committed meanwhile) both are taken again.
 * The listing of `previous` is reused when the checksum is still the one it was taken under (the index
 * is then the same file: no entry of it has changed); otherwise it is listed with its stat data (`records`).
 */
async function statusAndIndex(
  host: SnapshotHost,
  previous: Snapshot | undefined,
): Promise<{ statusText: string; indexListing: string; indexChecksum?: string; stats?: IndexStats; statDirty: readonly string[] }> {
  for (let attempt = 0; ; attempt += 1) {
    const before = await host.indexChecksum?.();
    // A listing saved without `-v` tags (by an earlier version) cannot say which entries git's status skips.
    const reuse = before !== undefined && previous?.indexChecksum === before && new IndexListing(previous.indexListing).tagged;
    const [statusText, listed, statText, dirty] = await Promise.all([
      host.git(STATUS_ARGS),
      reuse ? undefined : host.git(INDEX_ARGS),
      reuse ? undefined : host.git(INDEX_STAT_ARGS),
      previous === undefined ? host.git(STAT_DIRTY_ARGS) : undefined,
    ]);
    const after = await host.indexChecksum?.();
    if (before === after || attempt === INDEX_RETRIES) {
      const checksum = before !== undefined && before === after ? { indexChecksum: before } : {};
      const statDirty = dirty === undefined ? [] : dirty.split('\0').filter((path) => path !== '');
      if (listed === undefined || statText === undefined) return { statusText, indexListing: (previous as Snapshot).indexListing, statDirty, ...checksum };
      const stats = new IndexStats(statText);
      // Two listings of one index: the same records, the second with stat lines after each.
      if (stats.listingLength !== listed.length) {
        if (attempt < INDEX_RETRIES) continue;
        throw new GitOutputError(INDEX_STAT_ARGS.join(' '), 'the index listed with its stat data does not match the listing');
      }
      return { statusText, indexListing: listed, stats, statDirty, ...checksum };
    }
  }
}

/**
 * The tracked entries whose stat data status trusted although it may not be their file's: those whose stat
 * data changed since `previous` while their object id did not (restatedPaths; an entry forged to call a
 * rewrite clean), or, compared with a snapshot that kept no stat data, those stated since it began.
 */
function restatedSince(previous: Snapshot | undefined, listing: IndexListing, stats: IndexStats | undefined, now: number): string[] {
  if (previous === undefined || stats === undefined) return [];
  const compared = previous.indexStats === undefined ? undefined : restatedPaths(new IndexListing(previous.indexListing), previous.indexStats, listing, stats);
  if (compared !== undefined) return compared;
  // A saved header lies where an agent's shell can write it: a start later than now counts as now.
  const since = Math.floor(Math.min(previous.takenAt ?? 0, now) / 1000) - RECENT_STAT_MARGIN_SECONDS;
  const recent: string[] = [];
  for (let index = 0; index < stats.size; index += 1) {
    if ((stats.ctimes[index] as number) < since && (stats.mtimes[index] as number) < since) continue;
    const record = listing.recordAt(index);
    if (record.stage === 0) recent.push(record.path);
  }
  return recent;
}

/** `<mode> <oid>` of a regular file: the mode and the object id apart. */
const REGULAR_FILE_IDENTITY = /^(100644|100755) ([0-9a-f]+)$/;

/**
 * The entries read although status calls them clean (`unchecked`: flagged, or stated since the earlier
 * snapshot) whose bytes are not their entry's blob only as git converts them: the repository's attributes
 * turn CRLF into LF (`text eol=crlf`), or a clean filter of the repository's config makes the blob
 * (Git LFS's pointer). The bytes are hashed as they are (SnapshotHost.inspect), so such a file, merely
 * re-stated (touched, then any git command), read as modified (found by red-team review, 2026-12-06).
 * git hashes them again as it would store them (`hash-object --stdin-paths`, under the same pinned settings
 * as status); those whose blob is then their entry's, with the same mode, are what the index says. A filter
 * given on a command line once (the forge of INDEX_ARGS) is no part of this run, so it vouches for
 * nothing here.
 */
async function convertedAsIndexed(host: SnapshotHost, unchecked: ReadonlyMap<string, string>, paths: readonly string[], identities: readonly Identity[]): Promise<Set<string>> {
  const candidates: Array<{ path: string; oid: string }> = [];
  paths.forEach((path, index) => {
    const indexed = unchecked.get(path);
    const found = identities[index];
    if (indexed === undefined || found === null || found === undefined || found === indexed || path.includes('\n')) return;
    const [inIndex, onDisk] = [REGULAR_FILE_IDENTITY.exec(indexed), REGULAR_FILE_IDENTITY.exec(found)];
    if (inIndex !== null && onDisk !== null && inIndex[1] === onDisk[1]) candidates.push({ path, oid: inIndex[2] as string });
  });
  const same = new Set<string>();
  if (candidates.length === 0) return same;
  const output = await host.git([...PINNED_CHANGE_SETTINGS, '--no-optional-locks', 'hash-object', '--stdin-paths'], { input: `${candidates.map(({ path }) => path).join('\n')}\n` });
  const hashed = output.split('\n');
  candidates.forEach(({ path, oid }, index) => {
    if (hashed[index] === oid) same.add(path);
  });
  return same;
}

/** Takes a snapshot of the work tree behind `host`. Rejects when git fails or prints what we cannot read. */
export async function takeSnapshot(host: SnapshotHost, options: SnapshotOptions = {}): Promise<Snapshot> {
  const exclude = options.exclude ?? (() => false);
  const takenAt = Date.now();
  const previous = options.previous;
  const [{ statusText, indexListing, indexChecksum, stats, statDirty }, ignored] = await Promise.all([
    statusAndIndex(host, previous),
    watchedIgnoredPaths(host, options.watchIgnored ?? [], options.ignoreCase ?? false),
  ]);
  const status = parseStatusV2(statusText);
  const listing = new IndexListing(indexListing);
  const objectFormat =
    formatOfLength(listing.oidLength) ??
    formatOfLength(status.head.commit?.length) ??
    ((await host.git(['rev-parse', '--show-object-format'])).trim() === 'sha256' ? 'sha256' : 'sha1');

  const workTree = new Map<string, string | null>();
  const toInspect: string[] = [];
  const submodules: Array<{ path: string; dirty: boolean }> = [];
  for (const entry of status.entries) {
    if (exclude(entry.path)) continue;
    if (entry.kind === 'ignored' || entry.kind === 'untracked') {
      if (entry.kind === 'untracked') toInspect.push(entry.path);
      continue;
    }
    // `.` in the work-tree column: the work tree holds what the index holds (git checked).
    if (entry.kind === 'tracked' && entry.y === '.') continue;
    if (entry.worktreeMode === '000000') workTree.set(entry.path, null);
    else if (entry.submodule.startsWith('S')) submodules.push({ path: entry.path, dirty: entry.submodule.slice(2) !== '..' });
    else toInspect.push(entry.path);
  }
  for (const path of ignored) if (!exclude(path) && !workTree.has(path)) toInspect.push(path);
  // Read, and kept only where the work tree is not the index: flagged entries status did not look at;
  // entries restated since the earlier snapshot (whose stat data status trusted); entries under suspicion
  // (they did not describe their file when last read); and tracked paths the earlier snapshot found holding
  // something else than their entry, which status now calls clean.
  const unchecked = new Map<string, string>();
  const flagged = listing.uncheckedEntries();
  const restated = restatedSince(previous, listing, stats, takenAt);
  const previousSuspects = previous?.suspects ?? new Map<string, string>();
  const earlierDirt = [...(previous?.workTree ?? [])].flatMap(([path, identity]) => (identity === null ? [] : [path]));
  if (flagged.length > 0 || restated.length > 0 || previousSuspects.size > 0 || earlierDirt.length > 0 || statDirty.length > 0) {
    const reported = new Set(status.entries.map((entry) => entry.path));
    const recent = [...restated, ...previousSuspects.keys(), ...earlierDirt, ...statDirty].flatMap((path) => {
      const identity = reported.has(path) ? undefined : listing.lookup(path);
      return identity === undefined ? [] : [{ path, identity }];
    });
    for (const { path, identity } of [...flagged, ...recent]) {
      if (exclude(path) || reported.has(path) || unchecked.has(path)) continue;
      unchecked.set(path, identity);
      toInspect.push(path);
    }
  }
  const gitFiles = (await host.gitFiles?.()) ?? [];
  // Every checked-out submodule is looked into, whether git reports it or not: a clean one can hide a change
  // behind its own index's flags or info/exclude as well as a dirty one behind its dirty flag.
  const depth = options.depth ?? 0;
  const looksInside = host.nested !== undefined && depth < MAX_NESTED_DEPTH;
  const allGitlinks = !looksInside ? undefined : stats === undefined && previous?.gitlinks !== undefined ? previous.gitlinks : listing.gitlinks();
  const gitlinks = (allGitlinks ?? []).filter((path) => !exclude(path));
  const gitlinkSet = new Set(allGitlinks);

  const [states, submoduleSnapshots, gitStates] = await Promise.all([
    host.inspect(toInspect, objectFormat),
    nestedSnapshots(host, gitlinks, options, objectFormat),
    host.inspect(gitFiles.map((file) => file.path), objectFormat),
  ]);
  // Once looked into, a submodule's HEAD is its own snapshot's: one with no repository of its own there (its
  // gitfile removed) has none, where git asked in the directory would answer with the checkout's. (One that
  // could not be read is marked below.)
  const headOf = (nested: Snapshot | 'unreadable' | undefined) => (typeof nested === 'object' && nested.location !== NO_REPOSITORY ? nested.head.commit : undefined);
  const heads = looksInside ? submodules.map((submodule) => headOf(submoduleSnapshots.get(submodule.path))) : await Promise.all(submodules.map((submodule) => nestedHead(host, submodule.path)));
  gitFiles.forEach((file, index) => workTree.set(file.name, identityOf(gitStates[index] as WorkTreeState)));
  const identities = toInspect.map((path, index) => {
    const state = states[index] as WorkTreeState;
    // git listed it, under a name that opens nothing: something is there all the same, never absent.
    return state.kind === 'missing' && hasUndecodableName(path) ? UNDECODABLE_NAME : identityOf(state);
  });
  const converted = await convertedAsIndexed(host, unchecked, toInspect, identities);
  // An entry read that holds its file's content but not its file's stat is kept under suspicion: it may
  // have been made for another file, to be swapped in later under an index that does not change then.
  const suspects = new Map<string, string>();
  toInspect.forEach((path, index) => {
    const indexed = unchecked.get(path);
    if (indexed === undefined || (indexed !== identities[index] && !converted.has(path))) return;
    const position = stats !== undefined ? listing.indexOf(path) : -1;
    const entryKey = stats !== undefined ? (position === -1 ? undefined : stats.fileKeyAt(position)) : previousSuspects.get(path);
    const state = states[index] as WorkTreeState;
    if (entryKey !== undefined && (state.kind !== 'file' || state.statKey !== entryKey)) suspects.set(path, entryKey);
  });
  const nested: Array<{ path: string; index: number }> = [];
  toInspect.forEach((path, index) => {
    const identity = identities[index] as Identity;
    if (unchecked.get(path) === identity || converted.has(path)) return;
    workTree.set(path, identity);
    // A gitlink's directory (read again as earlier dirt) is the submodule's: its identity is set below, and git
    // asked in it when it is no repository of its own would answer with the checkout's HEAD.
    if ((states[index] as WorkTreeState).kind === 'directory' && !gitlinkSet.has(path.replace(/\/$/, ''))) nested.push({ path, index });
  });
  submodules.forEach((submodule, index) => {
    const head = heads[index];
    workTree.set(submodule.path, `160000 ${head ?? 'unknown'}${submodule.dirty ? ' +dirty' : ''}`);
  });
  // A submodule git cannot be asked about (reported or clean) is a change of it (what is inside is unknown).
  for (const [path, nestedSnapshot] of submoduleSnapshots) if (nestedSnapshot === 'unreadable') workTree.set(path, unreadableNested(takenAt));
  // An untracked nested repository is one entry for git; its HEAD tells one state from another (see
  // nestedSnapshots for why it is not looked into).
  const nestedHeads = await Promise.all(nested.map((entry) => nestedHead(host, entry.path)));
  nested.forEach((entry, index) => {
    const head = nestedHeads[index];
    if (head !== undefined) workTree.set(entry.path, `160000 ${head}`);
  });
  const nestedTaken = new Map<string, Snapshot>();
  for (const [path, nestedSnapshot] of submoduleSnapshots) if (nestedSnapshot !== 'unreadable') nestedTaken.set(path, nestedSnapshot);
  const indexStats = stats !== undefined ? stats.digestText() : previous?.indexStats;
  return {
    objectFormat,
    head: status.head,
    indexListing,
    ...(indexChecksum !== undefined ? { indexChecksum } : {}),
    takenAt,
    ...(indexStats !== undefined ? { indexStats } : {}),
    ...(suspects.size > 0 ? { suspects } : {}),
    workTree,
    // Present whenever nested repositories were looked for, empty or not: a checkout that had none and has
    // one now has a change to compare.
    ...(looksInside ? { nested: nestedTaken } : {}),
    ...(allGitlinks !== undefined ? { gitlinks: allGitlinks } : {}),
    ...(host.location !== undefined ? { location: host.location } : {}),
  };
}

function toRelative(root: string, path: string): string | undefined {
  const base = root.endsWith('/') ? root : `${root}/`;
  return path.startsWith(base) ? path.slice(base.length) : undefined;
}

/**
 * What no snapshot of the tree looks at: the active state directory's manifest and `filescopes/` (the
 * wave's own declarations, which the coordinator rewrites between turns; planFiles.ts fingerprints them
 * for a dispatched caller instead) and `.orchestrator/` (where the backstop and the hooks keep their
 * records). Another state directory's files are watched like any other file.
 */
export function backstopExclusions(input: { writeRoot: string; stateDir?: string; ignoreCase?: boolean }): (path: string) => boolean {
  const fold = (text: string) => (input.ignoreCase ? foldCase(text) : text);
  const files = new Set<string>();
  const prefixes = [`${fold(ORCHESTRATOR_DIR_NAME)}/`];
  if (input.stateDir !== undefined) {
    const manifest = toRelative(input.writeRoot, manifestPath(input.stateDir));
    const declarations = toRelative(input.writeRoot, filescopesPath(input.stateDir));
    if (manifest !== undefined) files.add(fold(manifest));
    if (declarations !== undefined) {
      files.add(fold(declarations));
      prefixes.push(`${fold(declarations)}/`);
    }
  }
  return (path) => {
    const candidate = fold(path);
    return files.has(candidate) || prefixes.some((prefix) => candidate.startsWith(prefix)) || candidate === fold(ORCHESTRATOR_DIR_NAME);
  };
}

// The plan fingerprints (`plan`) were added to version 2 as an optional field, not as a version 3: a
// header without them reads as before (the tree is compared; the plan cannot be, and the hook says so),
// and a build before them reads a header with them as it always did (it ignores the field).
const SNAPSHOT_MAGIC = 'wave-scope-snapshot 2';

/**
 * A snapshot as text, for the post-shell hook's store, in two parts: the header (a magic line, then
 * one JSON line: object format, HEAD, index checksum, the work-tree identities, the plan files'
 * fingerprints) and the index listing. They are stored apart so that a call under an unchanged index
 * rewrites only the small header.
 */
export function formatSnapshotHeader(snapshot: Snapshot, listing: string): string {
  const header = {
    listing,
    objectFormat: snapshot.objectFormat,
    head: snapshot.head,
    ...(snapshot.indexChecksum !== undefined ? { indexChecksum: snapshot.indexChecksum } : {}),
    ...(snapshot.takenAt !== undefined ? { takenAt: snapshot.takenAt } : {}),
    ...(snapshot.suspects !== undefined ? { suspects: [...snapshot.suspects] } : {}),
    ...(snapshot.indexStats !== undefined ? { stats: true } : {}),
    workTree: [...snapshot.workTree],
    ...(snapshot.planFiles !== undefined ? { plan: [...snapshot.planFiles] } : {}),
    ...(snapshot.location !== undefined ? { location: snapshot.location } : {}),
    ...(snapshot.gitlinks !== undefined ? { gitlinks: snapshot.gitlinks } : {}),
    // The nested repositories' snapshots are stored apart, each as a snapshot of its own (shellCheck.ts).
    ...(snapshot.nested !== undefined ? { nested: [...snapshot.nested.keys()] } : {}),
  };
  return `${SNAPSHOT_MAGIC}\n${JSON.stringify(header)}\n`;
}

/**
 * A snapshot's header: everything but the listing and its stat data, and the name (`listing`) those were
 * stored under (they change only with the index, the header with every call).
 */
export type SnapshotHeader = Omit<Snapshot, 'indexListing' | 'indexStats' | 'nested'> & {
  readonly listing: string;
  /** The listing was stored with its stat data: without it, the snapshot cannot be used (it would be compared by the clock). */
  readonly stats?: true;
  /** The directories of the nested repositories whose snapshots were stored with it (Snapshot.nested). */
  readonly nestedPaths?: readonly string[];
};

/** A header's list of `[text, text]` pairs as a map; null when it is anything else. */
function stringPairs(value: unknown): Map<string, string> | null {
  if (!Array.isArray(value)) return null;
  const pairs = new Map<string, string>();
  for (const pair of value) {
    if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== 'string' || typeof pair[1] !== 'string') return null;
    pairs.set(pair[0], pair[1]);
  }
  return pairs;
}

/** Reads `formatSnapshotHeader`'s text; undefined when it is not one (a damaged store is never trusted). */
export function parseSnapshotHeader(text: string): SnapshotHeader | undefined {
  const first = text.indexOf('\n');
  const second = first === -1 ? -1 : text.indexOf('\n', first + 1);
  if (second === -1 || text.slice(0, first) !== SNAPSHOT_MAGIC || second !== text.length - 1) return undefined;
  let header: unknown;
  try {
    header = JSON.parse(text.slice(first + 1, second));
  } catch {
    return undefined;
  }
  if (typeof header !== 'object' || header === null) return undefined;
  const { listing, objectFormat, head, indexChecksum, takenAt, suspects, stats, workTree, plan, location, nested, gitlinks } = header as Record<string, unknown>;
  if (gitlinks !== undefined && !(Array.isArray(gitlinks) && gitlinks.every((path) => typeof path === 'string' && path !== ''))) return undefined;
  if (stats !== undefined && stats !== true) return undefined;
  if (location !== undefined && typeof location !== 'string') return undefined;
  if (nested !== undefined && !(Array.isArray(nested) && nested.every((path) => typeof path === 'string' && path !== ''))) return undefined;
  if (typeof listing !== 'string' || !/^[0-9A-Za-z]+$/.test(listing)) return undefined;
  if (objectFormat !== 'sha1' && objectFormat !== 'sha256') return undefined;
  if (typeof head !== 'object' || head === null || Array.isArray(head)) return undefined;
  const { ref, commit } = head as Record<string, unknown>;
  if ((ref !== undefined && typeof ref !== 'string') || (commit !== undefined && typeof commit !== 'string')) return undefined;
  if (indexChecksum !== undefined && typeof indexChecksum !== 'string') return undefined;
  if (takenAt !== undefined && !(typeof takenAt === 'number' && Number.isSafeInteger(takenAt) && takenAt >= 0)) return undefined;
  if (!Array.isArray(workTree)) return undefined;
  const suspectMap = suspects === undefined ? undefined : stringPairs(suspects);
  if (suspectMap === null) return undefined;
  const map = new Map<string, string | null>();
  for (const pair of workTree) {
    if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== 'string' || (pair[1] !== null && typeof pair[1] !== 'string')) return undefined;
    map.set(pair[0], pair[1]);
  }
  const planFiles = plan === undefined ? undefined : stringPairs(plan);
  if (planFiles === null) return undefined;
  return {
    listing,
    objectFormat,
    head: { ...(typeof ref === 'string' ? { ref } : {}), ...(typeof commit === 'string' ? { commit } : {}) },
    ...(typeof indexChecksum === 'string' ? { indexChecksum } : {}),
    ...(typeof takenAt === 'number' ? { takenAt } : {}),
    ...(suspectMap !== undefined ? { suspects: suspectMap } : {}),
    ...(stats === true ? { stats: true as const } : {}),
    workTree: map,
    ...(planFiles !== undefined ? { planFiles } : {}),
    ...(typeof location === 'string' ? { location } : {}),
    ...(Array.isArray(nested) ? { nestedPaths: nested as string[] } : {}),
    ...(Array.isArray(gitlinks) ? { gitlinks: gitlinks as string[] } : {}),
  };
}
