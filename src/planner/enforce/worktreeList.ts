// The checkouts of a repository, as `git worktree list --porcelain -z` names them. install-hooks and doctor
// read it to find every checkout that runs a pre-commit hook file of its own (a relative core.hooksPath: a
// tracked `.githooks`, husky's `.husky/_`), and which of them must be left alone. Pure: the caller runs git.

/** One checkout of the repository. */
export interface ListedWorktree {
  /** Its top level, absolute, as git recorded it. */
  readonly path: string;
  /** A bare repository's entry: no work tree, nothing is committed there. */
  readonly bare: boolean;
  /** Set when it is locked (`git worktree lock`): the reason given, '' when none was. */
  readonly locked?: string;
  /** Set when git may prune it (its directory, or its git directory's pointer to it, is gone): git's reason. */
  readonly prunable?: string;
}

/**
 * Reads `git worktree list --porcelain -z`: one attribute a NUL-terminated field (`worktree <path>`, `bare`,
 * `locked [<reason>]`, `prunable [<reason>]`, and others this ignores), an empty field between checkouts. A
 * path is taken as it is, newlines and all (that is what -z is for). The first checkout is the main one.
 */
export function parseWorktreeList(output: string): ListedWorktree[] {
  const worktrees: ListedWorktree[] = [];
  let current: { path: string; bare: boolean; locked?: string; prunable?: string } | undefined;
  const flush = () => {
    if (current !== undefined) worktrees.push(current);
    current = undefined;
  };
  for (const field of output.split('\0')) {
    if (field === '') {
      flush();
      continue;
    }
    const space = field.indexOf(' ');
    const label = space === -1 ? field : field.slice(0, space);
    const value = space === -1 ? '' : field.slice(space + 1);
    if (label === 'worktree') {
      flush();
      current = { path: value, bare: false };
    } else if (current === undefined) {
      continue;
    } else if (label === 'bare') {
      current.bare = true;
    } else if (label === 'locked') {
      current.locked = value;
    } else if (label === 'prunable') {
      current.prunable = value;
    }
  }
  flush();
  return worktrees;
}
