// Committing exactly what a turn changed inside its scope, and nothing else.
//
// The paths come from `git status --porcelain=v1 -z --untracked-files=all`: one line per file, an
// untracked directory listed file by file. (Plain `--porcelain` collapses a wholly untracked `src/` to
// one line, and `git add -- src/` would sweep an out-of-scope `src/evil.py` in with it.) A path is
// committed only if it is one of the turn's in-scope changes and still holds what the turn left in it;
// it is named exactly (`--literal-pathspecs`, never a directory), and the commit is made with
// `git commit --only`, which leaves everything else already staged (another turn's leftovers, a
// person's work) staged and uncommitted.
import { parseStatusV1 } from './gitOutput';
import type { StatusV1Entry } from './gitOutput';
import type { Identity } from './snapshot';
import type { ChangeKind } from './snapshotDiff';
import type { HeadState } from './gitOutput';
import { restoreHead } from './turnCommits';
import type { GitRunner } from './turnCommits';

/** The status call the commit takes its paths from. */
export const COMMIT_STATUS_ARGS: readonly string[] = ['status', '--porcelain=v1', '-z', '--untracked-files=all'];

/** One in-scope change of the turn, with what the turn left in it. */
export interface CommitCandidate {
  readonly path: string;
  readonly kind: ChangeKind;
  /** The identity the turn left (absent for a deletion). */
  readonly after?: string;
}

export interface CommitSelection {
  /** The paths the commit names, exactly. */
  readonly paths: readonly string[];
  /** Those of them git does not track yet (they are added first). */
  readonly untracked: readonly string[];
  /** Changes of the turn git no longer reports (the turn committed them itself, or reverted them). */
  readonly settled: readonly string[];
  /** Changes of the turn that changed again since it ended: not the turn's any more, not committed. */
  readonly drifted: readonly string[];
}

/**
 * Chooses the paths to commit: the turn's in-scope changes that `git status` still reports and whose
 * current identity (`current`) is the one the turn left.
 */
export function selectCommitPaths(
  status: readonly StatusV1Entry[],
  candidates: readonly CommitCandidate[],
  current: (path: string) => Identity,
): CommitSelection {
  const reported = new Map<string, StatusV1Entry>();
  for (const entry of status) {
    reported.set(entry.path, entry);
    if (entry.origPath !== undefined) reported.set(entry.origPath, entry);
  }
  const paths: string[] = [];
  const untracked: string[] = [];
  const settled: string[] = [];
  const drifted: string[] = [];
  for (const candidate of candidates) {
    const entry = reported.get(candidate.path);
    if (entry === undefined) {
      settled.push(candidate.path);
      continue;
    }
    if (current(candidate.path) !== (candidate.after ?? null)) {
      drifted.push(candidate.path);
      continue;
    }
    paths.push(candidate.path);
    if (entry.x === '?' && entry.path === candidate.path) untracked.push(candidate.path);
  }
  return { paths, untracked, settled, drifted };
}

/** Reads the commit's status call. */
export function readCommitStatus(text: string): StatusV1Entry[] {
  return parseStatusV1(text);
}

/** The commit message: the wave and the agent in the subject, the same as trailers a tool can read. */
export function turnCommitMessage(input: { wave: number; agent: string; turn: string; files: number }): string {
  return [
    `wave ${input.wave}, agent ${input.agent}: ${input.files} file${input.files === 1 ? '' : 's'}`,
    '',
    `Committed by wave-scope: the in-scope changes of turn ${input.turn}, path by path.`,
    '',
    `Wave-Scope-Wave: ${input.wave}`,
    `Wave-Scope-Agent: ${input.agent}`,
    `Wave-Scope-Turn: ${input.turn}`,
    '',
  ].join('\n');
}

/**
 * The commit `commitSelection` made holds more than it was asked to, or is not the one commit on top of
 * HEAD: something git ran while committing (a pre-commit hook, one a turn configured through
 * `core.hooksPath` in a config the backstop does not watch) staged or committed other paths. The commit
 * was taken back: HEAD names the commit from before it again; nothing else is touched, so the index and
 * the work tree keep every change (the turn's as the commit staged them, the hook's where it wrote them).
 */
export class CommitWidenedError extends Error {
  constructor(
    readonly extra: readonly string[],
    readonly restoredTo: string | undefined,
  ) {
    const what = extra.length > 0 ? `also ${extra.slice(0, 10).join(', ')}${extra.length > 10 ? ` and ${extra.length - 10} more` : ''}` : 'another commit, or another branch, in its place';
    super(
      `the commit held more than the turn's in-scope changes (${what}: something git ran while committing, a pre-commit hook, added it), so it was taken back: HEAD is at ${restoredTo?.slice(0, 12) ?? 'no commit'} again, and the changes are left uncommitted in the index and the work tree`,
    );
    this.name = 'CommitWidenedError';
  }
}

/**
 * Adds the untracked paths and commits exactly `selection.paths` on top of `before` (HEAD as the snapshot
 * just taken saw it); resolves with the new commit. git runs the repository's hooks as it commits, and a
 * hook can stage more: the new commit is checked against what was asked (one commit on top of the old
 * HEAD, touching those paths and no other) and taken back when it holds more (CommitWidenedError; found by
 * red-team review, 2026-12-06).
 */
export async function commitSelection(git: GitRunner, selection: CommitSelection, message: string, before: HeadState): Promise<string> {
  const exact = ['--literal-pathspecs'];
  if (selection.untracked.length > 0) {
    await git([...exact, 'add', '--pathspec-from-file=-', '--pathspec-file-nul'], { input: selection.untracked.join('\0') });
  }
  await git([...exact, 'commit', '--only', '--quiet', `--message=${message}`, '--pathspec-from-file=-', '--pathspec-file-nul'], {
    input: selection.paths.join('\0'),
  });
  const commit = (await git(['rev-parse', '--verify', 'HEAD^{commit}'])).trim();
  const after: HeadState = { ...(await headRef(git)), commit };
  // Exactly one commit on the branch it was made on, whose only parent is the old HEAD, and what it changes
  // against the old HEAD's tree (a tree against a tree: a merge a post-commit hook put in its place shows
  // what it brings too) is the selection and no more.
  const parents = (await git(['rev-list', '--parents', '-n', '1', commit])).trim().split(' ').slice(1);
  const oneCommit = after.ref === before.ref && (before.commit === undefined ? parents.length === 0 : parents.length === 1 && parents[0] === before.commit);
  const compared = before.commit === undefined ? ['--root', commit] : [before.commit, commit];
  const touched = (await git(['diff-tree', '-r', '-z', '--name-only', '--no-renames', '--no-commit-id', ...compared])).split('\0').filter((path) => path !== '');
  const asked = new Set(selection.paths);
  const extra = touched.filter((path) => !asked.has(path));
  if (oneCommit && extra.length === 0) return commit;
  // Put back as a failed turn's HEAD is (restoreHead): the branch it was on at its old commit, HEAD on that
  // branch again when something switched it; the index and the work tree untouched.
  await restoreHead(git, before, after, `wave-scope: the turn's commit held more than its in-scope changes; taken back`);
  throw new CommitWidenedError(extra, before.commit);
}

/** The branch HEAD names (`ref`), or nothing when HEAD is detached. */
async function headRef(git: GitRunner): Promise<{ ref?: string }> {
  const ref = (await git(['symbolic-ref', '-q', 'HEAD']).catch(() => '')).trim();
  return ref === '' ? {} : { ref };
}
