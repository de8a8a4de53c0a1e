// A turn that moved HEAD: the commits it made (part of what it changed), and putting HEAD back where
// it was when the turn failed. Putting back is a soft reset only: the branch (or a detached HEAD)
// points at the commit from before the turn again, and the index and the work tree stay exactly as
// the turn left them. The turn's commits are not destroyed: their hashes are reported and git's
// reflog keeps them.
import { parseCommitLog, parseDiffTreeStdin } from './gitOutput';
import type { HeadState, TouchedPath } from './gitOutput';

/** Runs git in the work tree's top level (see `SnapshotHost.git`). */
export type GitRunner = (args: readonly string[], options?: { input?: string }) => Promise<string>;

/** One commit the turn made. */
export interface TurnCommit {
  readonly hash: string;
  readonly subject: string;
  /** The paths it touches (against its first parent; a root commit against nothing). */
  readonly paths: readonly TouchedPath[];
}

/** At most this many commits of a turn are read; a turn that brought more in reports how many. */
export const MAX_TURN_COMMITS = 500;

export interface TurnCommits {
  readonly commits: readonly TurnCommit[];
  /** True when the turn reached more than MAX_TURN_COMMITS commits (only the newest are listed). */
  readonly truncated: boolean;
}

/** The commits reachable from HEAD after the turn and not from HEAD before it, oldest first. */
export async function commitsOfTurn(git: GitRunner, before: HeadState, after: HeadState): Promise<TurnCommits> {
  if (after.commit === undefined || after.commit === before.commit) return { commits: [], truncated: false };
  const range = before.commit === undefined ? [after.commit] : [after.commit, '--not', before.commit];
  const listed = parseCommitLog(await git(['log', '-z', `--max-count=${MAX_TURN_COMMITS + 1}`, '--format=%H%x09%s', ...range]));
  const truncated = listed.length > MAX_TURN_COMMITS;
  const kept = listed.slice(0, MAX_TURN_COMMITS).reverse();
  if (kept.length === 0) return { commits: [], truncated };
  const hashes = kept.map((commit) => commit.hash);
  const touched = parseDiffTreeStdin(
    await git(['diff-tree', '--stdin', '-r', '-z', '--name-status', '--no-renames', '--root', '--diff-merges=first-parent'], { input: `${hashes.join('\n')}\n` }),
    hashes,
  );
  return { commits: kept.map((commit) => ({ ...commit, paths: touched.get(commit.hash) ?? [] })), truncated };
}

/** What putting HEAD back did. */
export interface HeadRestore {
  /** The git commands run, for the report. */
  readonly commands: readonly string[][];
}

/**
 * Points HEAD back at where it was before the turn: the same branch (or the same detached commit),
 * and that branch at the same commit, without touching the index or the work tree. Only what moved is
 * changed: `git update-ref` of the branch (with the old value checked) when the turn stayed on it, and
 * `git symbolic-ref` first when it switched branches or detached HEAD.
 */
export async function restoreHead(git: GitRunner, before: HeadState, after: HeadState, message: string): Promise<HeadRestore> {
  const commands: string[][] = [];
  const run = async (args: string[]) => {
    commands.push(args);
    await git(args);
  };
  if (before.ref !== undefined && before.ref === after.ref) {
    // What `git reset --soft` does to the branch, with the old value checked, and without its refusal
    // in the middle of a merge the turn may have left behind.
    if (before.commit !== undefined) await run(['update-ref', '-m', message, before.ref, before.commit, after.commit ?? '']);
    else if (after.commit !== undefined) await run(['update-ref', '-m', message, '-d', before.ref, after.commit]);
    return { commands };
  }
  if (before.ref === undefined) {
    // HEAD was detached: it held the commit itself.
    if (before.commit !== undefined) await run(['update-ref', '--no-deref', '-m', message, 'HEAD', before.commit]);
    return { commands };
  }
  await run(['symbolic-ref', '-m', message, 'HEAD', before.ref]);
  // The branch itself may have moved before the turn left it.
  let current: string | undefined;
  try {
    current = (await git(['rev-parse', '-q', '--verify', `${before.ref}^{commit}`])).trim() || undefined;
  } catch {
    current = undefined;
  }
  if (current === before.commit) return { commands };
  if (before.commit !== undefined) await run(['update-ref', '-m', message, before.ref, before.commit, ...(current !== undefined ? [current] : [])]);
  else if (current !== undefined) await run(['update-ref', '-m', message, '-d', before.ref, current]);
  return { commands };
}
