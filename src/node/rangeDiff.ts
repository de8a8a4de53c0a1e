// The changes of a revision range, as `wave-scope verify` judges them: from the merge base of base and
// head to head (what a pull request of head into base would bring, as the forge shows it). One
// rev-parse, one merge-base, one diff; the diff alone when the caller's rev-parse has already resolved the
// revisions and found the one merge base. The diff can be started without waiting (startRangeDiff), so
// the caller's own work (verify reads the plan) runs beside it. It is told to ignore every configuration
// that would hide or reshape a change (diff.relative, diff.ignoreSubmodules, external diff drivers,
// quoted paths).
import { runGitProcess, startGit } from './planRefGit';
import type { GitRun } from './planRefGit';

/** A revision that cannot be resolved, or a range without a merge base. */
export class RevisionRangeError extends Error {
  constructor(
    readonly reason: 'bad-revision' | 'no-merge-base' | 'diff',
    message: string,
  ) {
    super(message);
    this.name = 'RevisionRangeError';
  }
}

export interface ResolvedRange {
  base: string;
  head: string;
  mergeBase: string;
  /** `git diff --raw -z` output from mergeBase to head. */
  rawDiff: string;
}

/** The output of a finished git process; a non-zero exit throws RevisionRangeError with git's first line. */
function outputOf(run: GitRun, reason: RevisionRangeError['reason'], what: string): string {
  if (run.status !== 0) throw new RevisionRangeError(reason, `${what}: ${run.stderr.trim().split('\n')[0] ?? `git exited ${run.status}`}`);
  return run.stdout.toString('utf8');
}

function gitLine(root: string, args: string[], reason: RevisionRangeError['reason'], what: string): string {
  return outputOf(runGitProcess(root, args), reason, what);
}

/** What the caller already learnt from git about a range: its two commits, and its merge bases. */
export interface KnownRange {
  commits: readonly string[];
  mergeBases?: readonly string[];
}

/**
 * The KnownRange of a discovery that resolved exactly the range's two revisions (`resolved`, and the merge
 * bases listed beside them); undefined when it resolved anything else, so diffRange asks git itself.
 */
export function knownRangeOf(discovery: { resolved?: readonly string[]; mergeBases?: readonly string[] }): KnownRange | undefined {
  if (discovery.resolved === undefined || discovery.resolved.length !== 2) return undefined;
  return discovery.mergeBases === undefined ? { commits: discovery.resolved } : { commits: discovery.resolved, mergeBases: discovery.mergeBases };
}

/** A range's commits: its two revisions resolved, and the merge base its diff starts from. */
type RangeCommits = Omit<ResolvedRange, 'rawDiff'>;

/**
 * Resolves `base` and `head` (any revision git accepts, not starting with `-`; or their commits given in
 * `known`) and their merge base. A merge base is taken from `known` only when it is the one there is; with
 * several (criss-cross merges) git merge-base chooses, as without `known`.
 */
function resolveRange(root: string, base: string, head: string, known?: KnownRange): RangeCommits {
  const fromKnown = known?.commits.length === 2;
  for (const revision of [base, head]) {
    if (revision.startsWith('-') || revision.trim() === '') throw new RevisionRangeError('bad-revision', `${JSON.stringify(revision)} is not a revision`);
  }
  const commits =
    known !== undefined && fromKnown
      ? known.commits
      : gitLine(root, ['rev-parse', `${base}^{commit}`, `${head}^{commit}`], 'bad-revision', `cannot resolve ${base} and ${head}`)
          .split('\n')
          .filter((line) => line !== '');
  const [baseOid, headOid] = commits as [string, string];
  const mergeBase = fromKnown && known?.mergeBases?.length === 1 ? (known.mergeBases[0] as string) : findMergeBase(root, base, head, baseOid, headOid);
  return { base: baseOid, head: headOid, mergeBase };
}

function diffArgs(range: RangeCommits): string[] {
  return [
    '-c', 'core.quotePath=false', 'diff', '--raw', '-z', '-M', '--no-abbrev', '--no-relative', '--no-ext-diff', '--no-textconv',
    '--ignore-submodules=none', range.mergeBase, range.head, '--',
  ];
}

function diffOutput(run: GitRun, range: RangeCommits): string {
  return outputOf(run, 'diff', `git diff ${range.mergeBase}..${range.head} failed`);
}

/** Resolves the range from `base` to `head` (see resolveRange) and diffs it from their merge base. */
export function diffRange(root: string, base: string, head: string, known?: KnownRange): ResolvedRange {
  const range = resolveRange(root, base, head, known);
  return { ...range, rawDiff: diffOutput(runGitProcess(root, diffArgs(range)), range) };
}

/** A range's diff started and not waited for (startRangeDiff). */
export interface PendingRangeDiff {
  /** What diffRange answers; throws its errors. */
  finish(): Promise<ResolvedRange>;
  /** Ends the diff when nobody will wait for it. */
  cancel(): void;
}

/**
 * diffRange, with the diff (the range's large part) running while the caller does other work: the
 * revisions are resolved now (no process when `known` holds them), the diff is started, and `finish`
 * waits for it. An error is thrown by `finish`, never here.
 */
export function startRangeDiff(root: string, base: string, head: string, known?: KnownRange): PendingRangeDiff {
  let range: RangeCommits;
  try {
    range = resolveRange(root, base, head, known);
  } catch (error) {
    return {
      finish: async () => {
        throw error;
      },
      cancel: () => undefined,
    };
  }
  const args = diffArgs(range);
  const started = startGit(root, args, 'ignore');
  return {
    // A git that could not be started is run once more, so the reason it cannot run is reported.
    finish: async () => ({ ...range, rawDiff: diffOutput((await started.run) ?? runGitProcess(root, args), range) }),
    cancel: started.stop,
  };
}

function findMergeBase(root: string, base: string, head: string, baseOid: string, headOid: string): string {
  const run = runGitProcess(root, ['merge-base', baseOid, headOid]);
  if (run.status !== 0) throw new RevisionRangeError('no-merge-base', `${base} and ${head} have no common ancestor (is the clone shallow? fetch with full history)`);
  return run.stdout.toString('utf8').trim();
}

/** Every branch ref (`refs/heads/*` and `refs/remotes/<remote>/*`, not `HEAD`) with its commit. */
export function listBranchRefs(root: string, remote: string): Array<{ ref: string; commit: string }> {
  const run = runGitProcess(root, ['for-each-ref', '--format=%(objectname) %(refname)', 'refs/heads/', `refs/remotes/${remote}/`]);
  if (run.status !== 0) return [];
  return run.stdout
    .toString('utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const space = line.indexOf(' ');
      return { commit: line.slice(0, space), ref: line.slice(space + 1) };
    })
    .filter(({ ref }) => ref !== `refs/remotes/${remote}/HEAD`);
}
