// What changed between two snapshots: every path whose content identity differs, as created,
// modified or deleted. Dirt that was there before and is unchanged after has the same identity on
// both sides and is not reported; dirt that changed again is.
//
// Comparing 100,000 identities one by one would cost more than the snapshot, so only the candidates
// are compared: the paths either snapshot lists as differing from its index, plus, only when the two
// index listings differ at all (something was staged or committed), the paths whose index entries
// differ. Every other path has the same index entry on both sides and is reported by neither status.
import { compareGitPaths, IndexListing } from './gitOutput';
import type { HeadState } from './gitOutput';
import type { Identity, Snapshot } from './snapshot';

/** How a path changed. */
export type ChangeKind = 'created' | 'modified' | 'deleted';

/** One path the turn changed. */
export interface PathChange {
  /** Repository-relative, `/`-separated, as git spells it. */
  readonly path: string;
  readonly kind: ChangeKind;
  /** `"<mode> <oid>"` before (absent for `created`). */
  readonly before?: string;
  /** `"<mode> <oid>"` after (absent for `deleted`). */
  readonly after?: string;
  /** For a `deleted` path whose exact content reappeared as one `created` path: where it went. */
  readonly renamedTo?: string;
  /** For a `created` path whose exact content disappeared from one `deleted` path: where it came from. */
  readonly renamedFrom?: string;
}

export interface SnapshotDiff {
  /** Every changed path, in git's path order. */
  readonly changes: PathChange[];
  readonly headBefore: HeadState;
  readonly headAfter: HeadState;
  /** HEAD names another branch or another commit than before. */
  readonly headMoved: boolean;
}

// Reading a listing is the one cost that grows with the repository, so each snapshot's listing is
// read once however many diffs use it.
const listings = new WeakMap<Snapshot, IndexListing>();

function listingOf(snapshot: Snapshot): IndexListing {
  let listing = listings.get(snapshot);
  if (listing === undefined) {
    listing = new IndexListing(snapshot.indexListing);
    listings.set(snapshot, listing);
  }
  return listing;
}

/** Whether HEAD moved: another branch, detached where it was attached (or back), or another commit. */
export function headMoved(before: HeadState, after: HeadState): boolean {
  return before.ref !== after.ref || before.commit !== after.commit;
}

/** Pairs deleted and created paths of the same content, when the pairing is unambiguous. */
function pairRenames(changes: PathChange[]): PathChange[] {
  const deletedBy = new Map<string, PathChange[]>();
  const createdBy = new Map<string, PathChange[]>();
  for (const change of changes) {
    if (change.kind === 'deleted' && change.before !== undefined) deletedBy.set(change.before, [...(deletedBy.get(change.before) ?? []), change]);
    if (change.kind === 'created' && change.after !== undefined) createdBy.set(change.after, [...(createdBy.get(change.after) ?? []), change]);
  }
  const renamedTo = new Map<string, string>();
  const renamedFrom = new Map<string, string>();
  for (const [identity, deleted] of deletedBy) {
    const created = createdBy.get(identity);
    if (deleted.length !== 1 || created?.length !== 1) continue;
    const from = (deleted[0] as PathChange).path;
    const to = (created[0] as PathChange).path;
    renamedTo.set(from, to);
    renamedFrom.set(to, from);
  }
  if (renamedTo.size === 0) return changes;
  return changes.map((change) => {
    const to = renamedTo.get(change.path);
    if (change.kind === 'deleted' && to !== undefined) return { ...change, renamedTo: to };
    const from = renamedFrom.get(change.path);
    if (change.kind === 'created' && from !== undefined) return { ...change, renamedFrom: from };
    return change;
  });
}

/**
 * The changes inside the submodules held in both snapshots (Snapshot.nested), their paths prefixed with the
 * submodule's directory; a path the enclosing repository reports already is not named twice. One whose git
 * directory moved (its gitfile pointed elsewhere, or removed: a directory that is no repository of its own is
 * held as its files) is another repository: its directory is reported modified too, and what it holds is
 * still compared path by path, since every identity is the content's. One held on one side only (a gitlink
 * staged or removed in the window) is compared with nothing: every file it holds, its own git files with
 * them, is created or deleted (a repository planted and staged as a gitlink named only its directory,
 * and not the config it brought: found by red-team review, 2026-12-06). Compared only when both snapshots
 * looked inside (a snapshot saved before nested ones did not).
 */
function nestedChanges(before: Snapshot, after: Snapshot, exclude: (path: string) => boolean, reported: ReadonlySet<string>): PathChange[] {
  if (before.nested === undefined || after.nested === undefined) return [];
  const changes: PathChange[] = [];
  const where = (snapshot: Snapshot | undefined) => `160000 ${snapshot === undefined ? 'not looked into' : (snapshot.location ?? 'unknown')}`;
  const add = (change: PathChange) => {
    if (!reported.has(change.path) && !reported.has(`${change.path}/`)) changes.push(change);
  };
  const nothing: Snapshot = { objectFormat: before.objectFormat, head: {}, indexListing: '', workTree: new Map() };
  for (const path of new Set([...before.nested.keys(), ...after.nested.keys()])) {
    const was = before.nested.get(path);
    const is = after.nested.get(path);
    if (was === undefined || is === undefined || was.location !== is.location) add({ path, kind: 'modified', before: where(was), after: where(is) });
    for (const change of collectChanges(was ?? nothing, is ?? nothing, (innerPath) => exclude(`${path}/${innerPath}`))) add({ ...change, path: `${path}/${change.path}` });
  }
  return changes;
}

/** Every path whose identity differs between `before` and `after`, minus the excluded ones. */
export function diffSnapshots(before: Snapshot, after: Snapshot, options: { exclude?: (path: string) => boolean } = {}): SnapshotDiff {
  const changes = collectChanges(before, after, options.exclude ?? (() => false));
  changes.sort((a, b) => compareGitPaths(a.path, b.path));
  return { changes: pairRenames(changes), headBefore: before.head, headAfter: after.head, headMoved: headMoved(before.head, after.head) };
}

function collectChanges(before: Snapshot, after: Snapshot, exclude: (path: string) => boolean): PathChange[] {
  const beforeIndex = listingOf(before);
  // A listing reused under an unchanged index is the very same text: its records are found once.
  if (after.indexListing === before.indexListing && !listings.has(after)) listings.set(after, beforeIndex);
  const afterIndex = listingOf(after);
  // Only when something was staged or committed do the listings differ; then the walk says where.
  const staged = beforeIndex.differingPaths(afterIndex);
  const candidates = new Set<string>([...before.workTree.keys(), ...after.workTree.keys(), ...staged.keys()]);
  const identityIn = (snapshot: Snapshot, listing: IndexListing, side: 'before' | 'after', path: string): Identity => {
    if (snapshot.workTree.has(path)) return snapshot.workTree.get(path) ?? null;
    const walked = staged.get(path);
    if (walked !== undefined) return walked[side] ?? null;
    return listing.lookup(path) ?? null;
  };
  const changes: PathChange[] = [];
  for (const path of candidates) {
    if (exclude(path)) continue;
    const was = identityIn(before, beforeIndex, 'before', path);
    const is = identityIn(after, afterIndex, 'after', path);
    if (was === is) continue;
    if (was === null) changes.push({ path, kind: 'created', after: is as string });
    else if (is === null) changes.push({ path, kind: 'deleted', before: was });
    else changes.push({ path, kind: 'modified', before: was, after: is });
  }
  const reported = new Set(changes.map((change) => change.path));
  changes.push(...nestedChanges(before, after, exclude, reported));
  return changes;
}

/** What one path holds in a snapshot (null: nothing); a path inside a nested repository, as its snapshot says. */
export function identityAt(snapshot: Snapshot, path: string): Identity {
  for (const [directory, nested] of snapshot.nested ?? []) {
    if (path.startsWith(`${directory}/`)) return identityAt(nested, path.slice(directory.length + 1));
  }
  if (snapshot.workTree.has(path)) return snapshot.workTree.get(path) ?? null;
  return listingOf(snapshot).lookup(path) ?? null;
}
