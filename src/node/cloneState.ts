// What a clone keeps about itself for sync, in its git directory (`<git-dir>/wave-scope/`): its identity
// (`clone.json`, made once and kept, so claims made before a restart are still this clone's) and its
// sync state (`sync-state.json`, see src/planner/sync/localState.ts). The git directory is per checkout
// (a linked worktree has its own), is never committed, and the write gate keeps agents out of it.
import { randomBytes } from 'node:crypto';
import { closeSync, constants, fsyncSync, futimesSync, linkSync, lstatSync, mkdirSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import type { CloneIdentity } from '../planner/sync/claims';
import { isCloneId } from '../planner/sync/claims';
import { leadingRefName } from '../planner/sync/revisionNames';
import type { TakenRefs } from '../planner/sync/revisionNames';
import { emptyLocalSyncState, formatLocalSyncState, parseLocalSyncState } from '../planner/sync/localState';
import type { LocalSyncState } from '../planner/sync/localState';
import { scanGitConfig } from '../planner/enforce/gitConfig';
import { writeFileAtomicSync } from './atomicFile';
import type { TemporaryFileReserve } from './atomicFile';
import type { LeftoverPlace } from './leftoverTemporaryFiles';
import { readTextIfExists } from './declarationFs';
import { homeDirectory, nodeLocateFileSystem } from './hookFileSystem';
import { gitPlanRefStore, planTreeMatchesCommit, runGitProcess } from './planRefGit';
import type { GitPlanRefStore, PlanTreeCache } from './planRefGit';

/** The facts about a checkout that sync needs, from one `git rev-parse`. */
export interface SyncRepository {
  /** The work tree's top level. */
  root: string;
  /** This checkout's own git directory (absolute). */
  gitDir: string;
  /** core.ignorecase, from the shared git directory's config file (where `git init` sets it). */
  ignoreCase: boolean;
  /** The checkout's HEAD commit, or null (an unborn branch). */
  head: string | null;
  /** The shared git directory (absolute; where refs live). */
  commonDir: string;
  /** The remotes configured with a URL (`remote.<name>.url`); undefined when the config could not be read. */
  remotes?: readonly string[];
}

/**
 * `core.ignorecase` as the write gate reads it (src/planner/enforce/gitConfig.ts: every file git reads, in
 * git's order), so sync and the gate fold case alike, and the remotes the same files configure. git has
 * just parsed the same files (rev-parse), so a file it could not read is not expected; should one appear,
 * case is compared as written and the remotes are not known.
 */
function repositoryConfig(commonDir: string, gitDir: string): { ignoreCase: boolean; remotes?: readonly string[] } {
  const home = homeDirectory();
  try {
    const scan = scanGitConfig({ commonDir, gitDir, env: process.env, ...(home !== undefined ? { homeDir: home } : {}), fs: { readText: readTextIfExists, realPath: nodeLocateFileSystem.realPath } });
    return { ignoreCase: scan.ignoreCase, remotes: scan.remotes };
  } catch {
    return { ignoreCase: false };
  }
}

/**
 * Locates the checkout around `cwd` with one process; undefined outside git. `revisions` (none starting
 * with `-`) are resolved to commits by the same process when they all resolve (`resolved`, in order);
 * otherwise `resolved` is absent and the caller resolves them itself, with git's own error. With exactly
 * two revisions, the same process also lists their merge bases (`mergeBases`: rev-parse prints them as
 * the `^` lines of the symmetric range `A...B`; none when the two share no history), and names the ref its
 * lookup takes for each ref name the revisions start with (`takenRefs`, see TakenRefs).
 */
export function locateSyncRepository(
  cwd: string,
  options: { revisions?: readonly string[] } = {},
): (SyncRepository & { resolved?: string[]; mergeBases?: string[]; takenRefs?: TakenRefs }) | undefined {
  const revisions = (options.revisions ?? []).map((revision) => `${revision}^{commit}`);
  const range = revisions.length === 2 ? [`${revisions[0]}...${revisions[1]}`] : [];
  const names = [...new Set((options.revisions ?? []).map(leadingRefName).filter((name): name is string => name !== undefined))];
  // Listed last: --symbolic-full-name changes how every revision after it is printed.
  const lookups = names.length === 0 ? [] : ['--symbolic-full-name', ...names];
  const ask = (extra: readonly string[], warnAmbiguous: boolean) => {
    try {
      // Whatever the configuration says, a name two refs answer to is warned about (see TakenRefs).
      return runGitProcess(cwd, [...(warnAmbiguous ? ['-c', 'core.warnAmbiguousRefs=true'] : []), 'rev-parse', '--show-toplevel', '--absolute-git-dir', '--git-common-dir', ...extra]);
    } catch {
      return undefined;
    }
  };
  // An unborn HEAD, or a revision that does not resolve, makes the whole rev-parse fail: ask with less.
  const attempts: Array<{ head: boolean; revisions: boolean }> = [
    ...(revisions.length > 0 ? [{ head: true, revisions: true }] : []),
    { head: true, revisions: false },
    { head: false, revisions: false },
  ];
  for (const attempt of attempts) {
    const run = ask([...(attempt.head ? ['HEAD'] : []), ...(attempt.revisions ? [...revisions, ...range, ...lookups] : [])], attempt.revisions);
    if (run === undefined) return undefined;
    if (run.status !== 0) continue;
    const [root, gitDir, commonDir, ...rest] = run.stdout.toString('utf8').split('\n');
    if (root === undefined || root === '' || gitDir === undefined || gitDir === '' || commonDir === undefined) return undefined;
    const head = attempt.head ? rest.shift() : undefined;
    const common = resolve(cwd, commonDir);
    const config = repositoryConfig(common, resolve(cwd, gitDir));
    const repository = { root, gitDir, commonDir: common, ...config, head: head !== undefined && /^[0-9a-f]{40,64}$/.test(head) ? head : null };
    if (!attempt.revisions) return repository;
    const resolved = rest.slice(0, revisions.length);
    // The range's own lines: its two ends (the same commits again), then one `^<commit>` per merge base;
    // after them, the names of the refs taken.
    const after = rest.slice(revisions.length + (range.length === 0 ? 0 : 2));
    let mergeBaseCount = 0;
    while (range.length > 0 && after[mergeBaseCount]?.startsWith('^') === true) mergeBaseCount += 1;
    const mergeBases = range.length === 0 ? undefined : after.slice(0, mergeBaseCount).map((line) => line.slice(1));
    const takenRefs = takenRefsOf(names, after.slice(mergeBaseCount), run.stderr);
    return { ...repository, resolved, ...(mergeBases !== undefined ? { mergeBases } : {}), ...(takenRefs !== undefined ? { takenRefs } : {}) };
  }
  return undefined;
}

/**
 * TakenRefs from what `rev-parse --symbolic-full-name <names>` printed last (`lines`) and its standard error,
 * with core.warnAmbiguousRefs on: git then warns there about a name more than one ref answers to, and prints
 * no name for it. Known only when git said nothing there and printed exactly one name for each (it prints
 * none for a name that is no ref, such as an abbreviated object id), so each line is known to be its name's.
 */
function takenRefsOf(names: readonly string[], lines: readonly string[], stderr: string): TakenRefs | undefined {
  if (names.length === 0 || stderr !== '') return undefined;
  const printed = lines.at(-1) === '' ? lines.slice(0, -1) : lines;
  if (printed.length !== names.length || printed.some((line) => line === '')) return undefined;
  return new Map(names.map((name, index) => [name, printed[index] as string]));
}

/**
 * How every sync command opens the plan ref of `remote`: with this clone's plan-tree cache (planTreeCache
 * by default) and its refs' directory.
 */
export function planStoreOf(repository: SyncRepository, remote: string, cache: PlanTreeCache = planTreeCache(repository.gitDir)): GitPlanRefStore {
  return gitPlanRefStore(repository.root, remote, { cache, commonDir: repository.commonDir });
}

/** A plan-tree cache whose file is written when its owner says, not on every put. */
export interface DeferredPlanTreeCache extends PlanTreeCache {
  /** Writes what the last put holds, if it is not written yet. */
  writePending(): void;
}

/**
 * The plan-tree cache of a clone: the last plan commit it read or wrote, in `<git-dir>/wave-scope/plan-cache.json`,
 * with the commit object's text when it was at hand. Anyone who can write the git directory can edit the
 * file, so nothing in it is taken on trust: the tree is answered for its commit only when hashing proves
 * it is that commit's (planTreeMatchesCommit), and its texts stand in for blobs only when they hash to the
 * blob's id (see PlanTreeCache). `deferred`: put only remembers, and the file is written when the command
 * says (sync writes it once, as it ends, into a temporary file from `reserve` when there is one).
 */
export function planTreeCache(gitDir: string): PlanTreeCache;
export function planTreeCache(gitDir: string, options: { deferred: true; reserve?: TemporaryFileReserve }): DeferredPlanTreeCache;
export function planTreeCache(gitDir: string, options: { deferred?: boolean; reserve?: TemporaryFileReserve } = {}): DeferredPlanTreeCache {
  const path = planCachePath(gitDir);
  type Entry = { commit: string; commitText?: string; tree: Map<string, { oid: string; text: string }> };
  const read = (): Entry | undefined => {
    let parsed: { version?: unknown; commit?: unknown; commitText?: unknown; files?: unknown };
    try {
      parsed = JSON.parse(readTextIfExists(path) ?? 'null') ?? {};
    } catch {
      return undefined;
    }
    if (parsed.version !== PLAN_CACHE_VERSION || typeof parsed.commit !== 'string' || typeof parsed.files !== 'object' || parsed.files === null) return undefined;
    if (parsed.commitText !== undefined && typeof parsed.commitText !== 'string') return undefined;
    const tree = new Map<string, { oid: string; text: string }>();
    for (const [file, entry] of Object.entries(parsed.files as Record<string, unknown>)) {
      const { oid, text } = (entry ?? {}) as { oid?: unknown; text?: unknown };
      if (typeof oid !== 'string' || typeof text !== 'string') return undefined;
      tree.set(file, { oid, text });
    }
    return { commit: parsed.commit, commitText: parsed.commitText, tree };
  };
  // Read once per command: the file holds one entry, and an entry never goes stale (a commit names its tree).
  let loaded: { entry: Entry | undefined; proven?: boolean } | undefined;
  const current = () => (loaded ??= { entry: read() });
  let pending: Entry | undefined;
  const textOf = (entry: Entry) => JSON.stringify({ version: PLAN_CACHE_VERSION, commit: entry.commit, commitText: entry.commitText, files: Object.fromEntries(entry.tree) });
  const write = (entry: Entry) => {
    try {
      mkdirSync(stateDirOf(gitDir), { recursive: true });
      // A cache: no fsync (a torn or lost file is a miss), but still never half-written.
      writeFileAtomicSync(path, textOf(entry), { fsync: false, syncDirectory: false, reserve: options.reserve });
    } catch {
      // A cache that cannot be written is a cache that misses.
    }
  };
  return {
    get(commit) {
      const held = current();
      const { entry } = held;
      if (entry === undefined || entry.commit !== commit) return undefined;
      held.proven ??= entry.commitText !== undefined && planTreeMatchesCommit(commit, entry.commitText, entry.tree);
      return held.proven ? entry.tree : undefined;
    },
    latest: () => current().entry?.tree,
    put(commit, tree, commitText) {
      // What this command read or wrote itself, from git: proven already.
      const entry = { commit, commitText, tree: new Map(tree) };
      loaded = { entry, proven: true };
      if (options.deferred === true) pending = entry;
      else write(entry);
    },
    writePending() {
      if (pending !== undefined) write(pending);
      pending = undefined;
    },
  };
}

// Version 2 carries the commit's text, which proves the tree; a cache of version 1 is a miss, rewritten.
const PLAN_CACHE_VERSION = 2;

function stateDirOf(gitDir: string): string {
  return join(gitDir, 'wave-scope');
}

const PLAN_CACHE_FILE_NAME = 'plan-cache.json';
const SYNC_STATE_FILE_NAME = 'sync-state.json';

function planCachePath(gitDir: string): string {
  return join(stateDirOf(gitDir), PLAN_CACHE_FILE_NAME);
}

function syncStatePath(gitDir: string): string {
  return join(stateDirOf(gitDir), SYNC_STATE_FILE_NAME);
}

/**
 * Where the clone's own leftovers are looked for (src/node/leftoverTemporaryFiles.ts): the temporary files of
 * the sync state and of the plan-tree cache, the two files here written through createTemporaryFile.
 * (clone.json is written aside under a name of its own, once per clone, and never made ahead.)
 */
export function cloneStateLeftovers(gitDir: string): LeftoverPlace {
  return { root: gitDir, directory: { path: stateDirOf(gitDir), isOurFile: (name) => name === SYNC_STATE_FILE_NAME || name === PLAN_CACHE_FILE_NAME } };
}

// An empty file whose time of modification is when this clone last swept its leftovers and left none behind.
const LEFTOVERS_SWEPT_FILE_NAME = 'leftovers-swept';

/**
 * Whether this clone's leftovers are due to be swept: no complete sweep was recorded (markLeftoversSwept) in
 * the `intervalMs` before `now`. One lstat. A record dated ahead of `now` (a clock set back) counts as none.
 */
export function areLeftoversDue(gitDir: string, now: number, intervalMs: number): boolean {
  try {
    const recorded = lstatSync(join(stateDirOf(gitDir), LEFTOVERS_SWEPT_FILE_NAME), { throwIfNoEntry: false });
    if (recorded === undefined || !recorded.isFile()) return true;
    const since = now - recorded.mtimeMs;
    return since < 0 || since >= intervalMs;
  } catch {
    return true;
  }
}

/**
 * Records a sweep that left no leftover behind, now: the record's time of modification, set on the file
 * itself (made empty on first use, never through a link). Quietly does nothing when it cannot: the next sync
 * then sweeps again.
 */
export function markLeftoversSwept(gitDir: string): void {
  let descriptor: number | undefined;
  try {
    descriptor = openSync(
      join(stateDirOf(gitDir), LEFTOVERS_SWEPT_FILE_NAME),
      constants.O_WRONLY | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0),
      0o644,
    );
    const now = new Date();
    futimesSync(descriptor, now, now);
  } catch {
    // Not recorded: swept again next time.
  } finally {
    if (descriptor !== undefined) closeSync(descriptor);
  }
}

/**
 * Makes, in `reserve`, the temporary files a sync's own writes in the git directory fill: the sync state
 * twice (the in-progress marker, then the outcome) and the plan-tree cache once. Made while git fetches.
 */
export function reserveSyncStateWrites(gitDir: string, reserve: TemporaryFileReserve): void {
  reserve.reserve(syncStatePath(gitDir), 2);
  reserve.reserve(planCachePath(gitDir), 1);
}

function parseIdentity(text: string | undefined): CloneIdentity | undefined {
  if (text === undefined) return undefined;
  try {
    const parsed = JSON.parse(text) as { id?: unknown; name?: unknown };
    if (isCloneId(parsed.id) && typeof parsed.name === 'string') return { id: parsed.id, name: parsed.name };
  } catch {
    // Unreadable: treated as absent below, and never overwritten (see readOrCreateCloneIdentity).
  }
  return undefined;
}

/** This clone's identity, or undefined when it has none yet. */
export function readCloneIdentity(gitDir: string): CloneIdentity | undefined {
  return parseIdentity(readTextIfExists(join(stateDirOf(gitDir), 'clone.json')));
}

/** clone.json is there but holds no identity: this clone cannot tell which claims are its own. */
export class CloneIdentityError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CloneIdentityError';
  }
}

/** Why the identity a checkout found was not the one it returns (readOrCreateCloneIdentity). */
export interface CloneIdentityChange {
  /** `moved`: the same checkout at a new path (its id kept, its name updated); `copied`: a copy, or a checkout on another machine, given an identity of its own. */
  why: 'moved' | 'copied';
  /** The identity found (the original's, for a copy). */
  found: CloneIdentity;
}

/** The id held by the checkout at `root` on this machine, if it has one (a linked worktree's `.git` file is followed). */
function identityIdAt(root: string): string | undefined {
  let gitDir = join(root, '.git');
  try {
    const pointer = readTextIfExists(gitDir);
    const named = pointer === undefined ? undefined : /^gitdir: (.+)$/m.exec(pointer)?.[1];
    if (named !== undefined) gitDir = resolve(root, named.trim());
  } catch {
    // Not a file (a directory): a clone's own git directory, as assumed above.
  }
  try {
    return parseIdentity(readTextIfExists(join(stateDirOf(gitDir), 'clone.json')))?.id;
  } catch {
    return undefined;
  }
}

/**
 * Writes `identity` as clone.json: created whole or not at all (written aside, fsynced, then hard-linked
 * into place, which fails when the file exists, so two commands starting at once in one clone agree on
 * one identity), or, with `replace`, renamed over the one there.
 */
function writeIdentity(path: string, identity: CloneIdentity, replace: boolean): void {
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
  const descriptor = openSync(temporary, 'wx');
  try {
    writeSync(descriptor, `${JSON.stringify({ version: 1, ...identity, createdAt: new Date().toISOString() }, null, 2)}\n`);
    fsyncSync(descriptor);
  } finally {
    closeSync(descriptor);
  }
  if (replace) {
    renameSync(temporary, path);
    return;
  }
  try {
    linkSync(temporary, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    unlinkSync(temporary);
  }
}

/**
 * This clone's identity, made on first use: `c-` and 12 random hex digits, named `host:path` of the
 * checkout. An identity belongs to one checkout on one machine. One found with another name came with a
 * copy of the git directory, or the checkout moved: when the name's checkout, on this machine, no longer
 * holds that id, the checkout moved and keeps its id (the name is updated); otherwise (the original still
 * holds it, or the name is another machine's, as in a copied image) this checkout gets an identity of its
 * own, so two checkouts never publish, renew or release as one clone. `changed` says which happened.
 */
export function readOrCreateCloneIdentity(repository: SyncRepository): CloneIdentity & { changed?: CloneIdentityChange } {
  const path = join(stateDirOf(repository.gitDir), 'clone.json');
  const name = `${hostname()}:${repository.root}`;
  const text = readTextIfExists(path);
  const existing = parseIdentity(text);
  if (existing === undefined && text !== undefined) {
    throw new CloneIdentityError(`${path} exists but is not a clone identity ({"id": "c-…", "name"}); repair or remove it (a new identity is made in its place)`);
  }
  if (existing !== undefined && existing.name === name) return existing;
  let changed: CloneIdentityChange | undefined;
  let identity: CloneIdentity;
  if (existing === undefined) identity = { id: `c-${randomBytes(6).toString('hex')}`, name };
  else {
    const separator = existing.name.indexOf(':');
    const [host, root] = separator === -1 ? ['', ''] : [existing.name.slice(0, separator), existing.name.slice(separator + 1)];
    const moved = host === hostname() && root !== '' && resolve(root) !== repository.root && identityIdAt(root) !== existing.id;
    identity = moved ? { id: existing.id, name } : { id: `c-${randomBytes(6).toString('hex')}`, name };
    changed = { why: moved ? 'moved' : 'copied', found: existing };
  }
  mkdirSync(stateDirOf(repository.gitDir), { recursive: true });
  writeIdentity(path, identity, existing !== undefined);
  const made = parseIdentity(readTextIfExists(path));
  if (made === undefined) throw new CloneIdentityError(`${path} could not be created`);
  return changed === undefined || made.id !== identity.id ? made : { ...made, changed };
}

/** This clone's sync state (empty when there is none or it cannot be read). */
export function readLocalSyncState(gitDir: string): LocalSyncState {
  return parseLocalSyncState(readTextIfExists(syncStatePath(gitDir)));
}

/**
 * Reads, changes and atomically rewrites the sync state; returns what was written. Renamed into place,
 * never torn, but not fsynced: the state only ever permits a replacement, so a power cut that loses
 * the last update makes `sync` more careful, never less.
 */
export function updateLocalSyncState(gitDir: string, change: (state: LocalSyncState) => LocalSyncState, options: { reserve?: TemporaryFileReserve } = {}): LocalSyncState {
  const next = change(readLocalSyncState(gitDir) ?? emptyLocalSyncState());
  mkdirSync(stateDirOf(gitDir), { recursive: true });
  writeFileAtomicSync(syncStatePath(gitDir), formatLocalSyncState(next), { fsync: false, syncDirectory: false, reserve: options.reserve });
  return next;
}
