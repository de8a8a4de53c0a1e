// Which ref a revision name stands for, decided from the refs that exist rather than from how the name is
// spelled. git looks a short name up in a fixed order (gitrevisions(7): `<name>` in the git directory,
// then refs/<name>, refs/tags/<name>, refs/heads/<name>, refs/remotes/<name>, refs/remotes/<name>/HEAD)
// and takes the first that exists. Whoever can push a tag can therefore make `origin/main` mean their own
// commit (refs/tags/origin/main comes before refs/remotes/origin/main), and `verify --base origin/main`
// would judge a branch against its own head. verify refuses such a name instead: every ref the lookup
// could reach is listed, and a name two of them give different commits for is ambiguous.
//
// Branches named to verify are not looked up that way at all: `branchRefCandidates` names the branch refs
// (local, and the remote's) a branch name can only mean.

const FULL_OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/i;
const SHORT_OBJECT_ID = /^[0-9a-f]{4,63}$/i;
/** Names git keeps in the git directory itself (HEAD, FETCH_HEAD, ORIG_HEAD, MERGE_HEAD, ...). */
const PSEUDO_REF = /^(?:[A-Z][A-Z_]*_)?HEAD$/;

/**
 * The ref name `revision` starts with (before `~`, `^`, `:` or `@{`), or undefined when it starts with none:
 * a full object id, `@` and `@{...}` (this checkout's own HEAD and its reflog), `:path` and `:/text`.
 */
export function leadingRefName(revision: string): string | undefined {
  const end = revision.search(/[~^:]|@\{/);
  const name = end === -1 ? revision : revision.slice(0, end);
  if (name === '' || name === '@' || FULL_OBJECT_ID.test(name)) return undefined;
  return name;
}

/** The refs git's lookup tries for `name`, in its order (the git directory's own names aside). */
export function refLookupCandidates(name: string): string[] {
  return [...(name.startsWith('refs/') ? [name] : []), `refs/${name}`, `refs/tags/${name}`, `refs/heads/${name}`, `refs/remotes/${name}`, `refs/remotes/${name}/HEAD`];
}

/** A ref that exists, with the commit (or other object) it finally names: an annotated tag is peeled. */
export interface ExistingRef {
  ref: string;
  target: string;
}

/**
 * Why `name` is ambiguous given `existing` (every ref that exists among its refLookupCandidates), or
 * undefined when it is not: refs of the lookup that name different objects; a name git also keeps in the
 * git directory (HEAD) that a ref shadows or is shadowed by; a name that is also an abbreviated object id.
 */
export function ambiguityOf(name: string, existing: readonly ExistingRef[]): string | undefined {
  const order = refLookupCandidates(name);
  // In the order git's lookup tries them: the first is the one git would take.
  const found = existing.filter(({ ref }) => order.includes(ref)).sort((a, b) => order.indexOf(a.ref) - order.indexOf(b.ref));
  if (found.length === 0) return undefined;
  // A full ref is the first thing git's lookup tries, so when it exists nothing can stand in for it (a tag
  // named `refs/remotes/origin/main` is refs/tags/refs/remotes/origin/main, tried later). When it does not
  // exist, whatever git would take instead is not what was named.
  if (name.startsWith('refs/')) return found[0]?.ref === name ? undefined : `"${name}" is not a ref here; git would take ${found[0]?.ref} for it`;
  const refs = found.map(({ ref }) => ref).join(', ');
  if (PSEUDO_REF.test(name)) return `"${name}" names the checkout's own ${name} and also ${refs}`;
  if (SHORT_OBJECT_ID.test(name)) return `"${name}" may be an abbreviated object id and also names ${refs}`;
  if (new Set(found.map(({ target }) => target)).size > 1) return `"${name}" names ${found.length} refs that point to different commits (${refs})`;
  return undefined;
}

/**
 * For each ref name a revision starts with, the full name of the one ref git's own lookup takes for it, as
 * `git rev-parse --symbolic-full-name` prints it when no other ref answers to the name (src/node/cloneState.ts
 * reads it). The name printed is the ref a symbolic ref leads to, not the symbolic ref itself (`HEAD`
 * prints the branch it is on).
 */
export type TakenRefs = ReadonlyMap<string, string>;

/**
 * ambiguityOf, told by git's own lookup of `name` that exactly one ref answers to it, and which (`taken`, its
 * full name as rev-parse prints it); undefined when that does not say which ref it found: `taken` is none of
 * the lookup's refs (git followed a symbolic ref to another, or took a name in the git directory), so the
 * refs must be listed.
 */
export function ambiguityOfSoleRef(name: string, taken: string): { problem: string | undefined } | undefined {
  if (!refLookupCandidates(name).includes(taken)) return undefined;
  // The one ref found is compared with nothing, so what it points to does not matter.
  return { problem: ambiguityOf(name, [{ ref: taken, target: '' }]) };
}

/**
 * The branch refs a branch name given to verify can mean: `refs/heads/<name>` and the remote's
 * `refs/remotes/<remote>/<name>`, and, for `<remote>/<rest>`, the remote's branch `<rest>` too; a full
 * branch ref only itself. Never a tag, never another remote's branch.
 */
export function branchRefCandidates(name: string, remote: string): string[] {
  const remotePrefix = `refs/remotes/${remote}/`;
  if (name.startsWith('refs/heads/') || name.startsWith(remotePrefix)) return [name];
  const candidates = [`refs/heads/${name}`, `${remotePrefix}${name}`];
  if (name.startsWith(`${remote}/`)) candidates.push(`refs/remotes/${name}`);
  return candidates;
}
