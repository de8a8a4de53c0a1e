// The changes of a revision range, as `wave-scope verify` judges them: from the merge base of base and
// head to head (what a pull request of head into base would bring, as the forge shows it). After
// criss-cross merges there are several merge bases, and a change reaches the merge wherever head differs
// from any one of them, at a path where head and base disagree: head is diffed against each, and base
// against head for the paths (tipDiff). One rev-parse, one merge-base, one diff per merge base; the diffs
// alone when the caller's rev-parse has already resolved the revisions and listed the merge bases. The
// diffs can be started without waiting (startRangeDiff), so the caller's own work (verify reads the plan)
// runs beside them. They are told to ignore every configuration that would hide or reshape a change
// (diff.relative, diff.ignoreSubmodules, external diff drivers, quoted paths). A revision name that git's
// lookup could take to different commits (a tag shadowing a remote branch) is refused by
// startRevisionNameCheck: from the one ref git's lookup took, when the rev-parse that located the checkout
// can say which, and otherwise from the refs that exist.
import { join } from 'node:path';
import { ambiguityOf, ambiguityOfSoleRef, leadingRefName, refLookupCandidates } from '../planner/sync/revisionNames';
import type { ExistingRef, TakenRefs } from '../planner/sync/revisionNames';
import { readTextIfExists } from './declarationFs';
import { runGitProcess, startGit } from './planRefGit';
import type { GitRun, StartedGit } from './planRefGit';

/** A revision that cannot be resolved or is ambiguous, or a range without a merge base. */
export class RevisionRangeError extends Error {
  constructor(
    readonly reason: 'bad-revision' | 'ambiguous-revision' | 'no-merge-base' | 'shallow-history' | 'diff',
    message: string,
  ) {
    super(message);
    this.name = 'RevisionRangeError';
  }
}

export interface ResolvedRange {
  base: string;
  head: string;
  /** Every merge base of base and head: one, or several after criss-cross merges. */
  mergeBases: string[];
  /** `git diff --raw -z` output from each merge base to head, in the order of mergeBases (paths as git's bytes). */
  rawDiffs: Buffer[];
  /**
   * With several merge bases: `git diff --name-only -z --no-renames` from base to head, the paths whose
   * content the two tips disagree on. A change against one merge base at a path where head and base agree
   * (it came in through the other merge base, which base holds too) brings nothing to the merge.
   */
  tipDiff?: Buffer;
  /**
   * When base has moved since the fork (it is none of the merge bases): `git diff --raw -z` from base to the
   * tree a merge of head into base makes (`git merge-tree --write-tree`). The merge can carry head's change
   * to a path the range never names: base renamed `src/a/config.ts` to `docs/config.ts` since, head edited
   * `src/a/config.ts`, and the merge edits `docs/config.ts` (found by red-team review, 2026-12-06).
   */
  mergeDiff?: Buffer;
  /** Why the merge's tree could not be made when base has moved (a git before 2.38 has no `merge-tree --write-tree`). */
  mergeUnjudged?: string;
}

/** The output of a finished git process; a non-zero exit throws RevisionRangeError with git's first line. */
function outputOf(run: GitRun, reason: RevisionRangeError['reason'], what: string): Buffer {
  if (run.status !== 0) throw new RevisionRangeError(reason, `${what}: ${run.stderr.trim().split('\n')[0] ?? `git exited ${run.status}`}`);
  return run.stdout;
}

function gitLines(root: string, args: string[], reason: RevisionRangeError['reason'], what: string): string[] {
  return outputOf(runGitProcess(root, args), reason, what)
    .toString('utf8')
    .split('\n')
    .filter((line) => line !== '');
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

/** A range's commits: its two revisions resolved, and the merge bases its diffs start from. */
type RangeCommits = Pick<ResolvedRange, 'base' | 'head' | 'mergeBases'>;

/** Why `revision` cannot be one end of a range, or undefined: it must name one commit, not look like an option, a range or a negation. */
export function revisionProblem(revision: string): string | undefined {
  if (revision.trim() === '' || revision.startsWith('-')) return `${JSON.stringify(revision)} is not a revision`;
  if (revision.includes('..')) return `${JSON.stringify(revision)} is a range; give each end as its own revision`;
  // `^X` excludes X; rev-parse still names X by it, and the range would be judged from X.
  if (revision.startsWith('^')) return `${JSON.stringify(revision)} excludes a commit; give the revision itself`;
  return undefined;
}

/**
 * Resolves `base` and `head` (any revision git accepts that passes revisionProblem; or their commits given
 * in `known`) and all their merge bases (from `known` when it lists them).
 */
function resolveRange(root: string, base: string, head: string, known?: KnownRange): RangeCommits {
  const fromKnown = known?.commits.length === 2;
  for (const revision of [base, head]) {
    const problem = revisionProblem(revision);
    if (problem !== undefined) throw new RevisionRangeError('bad-revision', problem);
  }
  const commits = known !== undefined && fromKnown ? known.commits : gitLines(root, ['rev-parse', `${base}^{commit}`, `${head}^{commit}`], 'bad-revision', `cannot resolve ${base} and ${head}`);
  const [baseOid, headOid] = commits as [string, string];
  const listed = fromKnown && known?.mergeBases !== undefined && known.mergeBases.length > 0 ? [...known.mergeBases] : findMergeBases(root, base, head, baseOid, headOid);
  return { base: baseOid, head: headOid, mergeBases: listed };
}

/** `git diff` told to ignore every configuration that would hide or reshape a change, with `output` options, of `revisions`. */
function plainDiffArgs(output: readonly string[], ...revisions: string[]): string[] {
  return ['-c', 'core.quotePath=false', 'diff', ...output, '--no-relative', '--no-ext-diff', '--no-textconv', '--ignore-submodules=none', ...revisions, '--'];
}

const RAW_DIFF_OUTPUT = ['--raw', '-z', '-M', '--no-abbrev'];

function diffArgs(mergeBase: string, head: string): string[] {
  return plainDiffArgs(RAW_DIFF_OUTPUT, mergeBase, head);
}

function diffOutput(run: GitRun, mergeBase: string, head: string): Buffer {
  return outputOf(run, 'diff', `git diff ${mergeBase}..${head} failed`);
}

function tipDiffArgs(range: RangeCommits): string[] {
  return plainDiffArgs(['--name-only', '-z', '--no-renames'], range.base, range.head);
}

// Renames on, whatever merge.renames says: a pull request is merged by the forge with git's defaults, and a
// rename followed is exactly how a change reaches a path the range does not name.
const MERGE_TREE_OPTIONS = ['-c', 'merge.renames=true', 'merge-tree', '--write-tree', '-z', '--no-messages'];

/**
 * What a merge of head into base brings beyond the range's diffs, when base has moved since the fork (see
 * ResolvedRange.mergeDiff): the diff from base to the merge's tree, or why it could not be made. Nothing
 * when base is a merge base (the merge is then head itself). merge-tree exits 1 when the merge conflicts;
 * its tree is still written, with the conflicted files as it would leave them, and is diffed the same way.
 */
function mergeDiffOf(root: string, range: RangeCommits): Pick<ResolvedRange, 'mergeDiff' | 'mergeUnjudged'> {
  if (range.mergeBases.includes(range.base)) return {};
  const merged = runGitProcess(root, [...MERGE_TREE_OPTIONS, range.base, range.head]);
  const tree = merged.stdout.toString('utf8').split('\0')[0] ?? '';
  if ((merged.status !== 0 && merged.status !== 1) || !/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(tree)) {
    return { mergeUnjudged: merged.stderr.trim().split('\n')[0] || `git merge-tree exited ${merged.status}` };
  }
  return { mergeDiff: diffOutput(runGitProcess(root, plainDiffArgs(RAW_DIFF_OUTPUT, range.base, tree)), range.base, tree) };
}

/** Resolves the range from `base` to `head` (see resolveRange) and diffs head against each merge base. */
export function diffRange(root: string, base: string, head: string, known?: KnownRange): ResolvedRange {
  const range = resolveRange(root, base, head, known);
  const rawDiffs = range.mergeBases.map((mergeBase) => diffOutput(runGitProcess(root, diffArgs(mergeBase, range.head)), mergeBase, range.head));
  const merge = mergeDiffOf(root, range);
  if (range.mergeBases.length === 1) return { ...range, rawDiffs, ...merge };
  return { ...range, rawDiffs, tipDiff: diffOutput(runGitProcess(root, tipDiffArgs(range)), range.base, range.head), ...merge };
}

/** A range's diffs started and not waited for (startRangeDiff). */
export interface PendingRangeDiff {
  /** What diffRange answers; throws its errors. */
  finish(): Promise<ResolvedRange>;
  /** Ends the diffs when nobody will wait for them. */
  cancel(): void;
}

/**
 * The diff of a range started before the checkout is even located (git finds the repository from `cwd` as
 * the rev-parse that locates it does), when both ends are spelled as full commit ids: no ref can move under
 * them. `git diff <base>...<head>` diffs head against their merge base, which is the diff startRangeDiff
 * makes when they have exactly one; startRangeDiff takes it over then, and stops it otherwise (several merge
 * bases, or an id that names a tag rather than the commit the range resolves to).
 */
export interface EarlyRangeDiff {
  readonly base: string;
  readonly head: string;
  readonly args: readonly string[];
  readonly git: StartedGit;
}

const FULL_OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/** EarlyRangeDiff's diff of `base...head`, started now; undefined unless both are full commit ids. */
export function startEarlyRangeDiff(cwd: string, base: string, head: string): EarlyRangeDiff | undefined {
  if (!FULL_OBJECT_ID.test(base) || !FULL_OBJECT_ID.test(head)) return undefined;
  const args = plainDiffArgs(RAW_DIFF_OUTPUT, `${base}...${head}`);
  return { base, head, args, git: startGit(cwd, args, 'ignore') };
}

/**
 * diffRange, with the diffs (the range's large part) running while the caller does other work: the
 * revisions are resolved now (no process when `known` holds them), the diffs are started (or `early`'s is
 * taken over), and `finish` waits for them. An error is thrown by `finish`, never here.
 */
export function startRangeDiff(root: string, base: string, head: string, known?: KnownRange, early?: EarlyRangeDiff): PendingRangeDiff {
  let range: RangeCommits;
  try {
    range = resolveRange(root, base, head, known);
  } catch (error) {
    early?.git.stop();
    return {
      finish: async () => {
        throw error;
      },
      cancel: () => undefined,
    };
  }
  // The early diff is this range's own only when its two ids are the commits resolved and they have one merge base.
  const adopted = early !== undefined && range.mergeBases.length === 1 && early.base === range.base && early.head === range.head ? early : undefined;
  if (adopted === undefined) early?.git.stop();
  const started = range.mergeBases.map((mergeBase) => {
    if (adopted !== undefined) return { mergeBase, args: [...adopted.args], git: adopted.git };
    const args = diffArgs(mergeBase, range.head);
    return { mergeBase, args, git: startGit(root, args, 'ignore') };
  });
  const tipArgs = tipDiffArgs(range);
  const tip = range.mergeBases.length > 1 ? startGit(root, tipArgs, 'ignore') : undefined;
  return {
    // A git that could not be started is run once more, so the reason it cannot run is reported.
    finish: async () => {
      const rawDiffs: Buffer[] = [];
      for (const { mergeBase, args, git } of started) rawDiffs.push(diffOutput((await git.run) ?? runGitProcess(root, args), mergeBase, range.head));
      // Only when base has moved since the fork, which a pull request brought up to date never has.
      const merge = mergeDiffOf(root, range);
      if (tip === undefined) return { ...range, rawDiffs, ...merge };
      return { ...range, rawDiffs, tipDiff: diffOutput((await tip.run) ?? runGitProcess(root, tipArgs), range.base, range.head), ...merge };
    },
    cancel: () => {
      for (const { git } of started) git.stop();
      tip?.stop();
    },
  };
}

function findMergeBases(root: string, base: string, head: string, baseOid: string, headOid: string): string[] {
  const run = runGitProcess(root, ['merge-base', '--all', baseOid, headOid]);
  const listed = run.status === 0 ? run.stdout.toString('utf8').split('\n').filter((line) => line !== '') : [];
  if (listed.length === 0) throw new RevisionRangeError('no-merge-base', `${base} and ${head} have no common ancestor (is the clone shallow? fetch with full history)`);
  return listed;
}

/** The commits a shallow clone lists in `<common dir>/shallow` (the clone lacks their parents); none in a full clone. */
export function readShallowCommits(commonDir: string): string[] {
  return (readTextIfExists(join(commonDir, 'shallow')) ?? '').split('\n').filter((line) => line !== '');
}

/**
 * Refuses a range whose merge bases a shallow clone may have got wrong (`shallow`: readShallowCommits).
 * Where the history is cut (a commit whose parents the clone lacks) between a tip and the merge bases git
 * found, the real merge base can lie beyond the cut: git then finds an older common ancestor, and a change
 * head made and undid against the real one (a file taken back to what the old ancestor held) shows no
 * diff. A cut at or below every merge base cannot matter: the history above them is whole. One rev-list,
 * in a shallow clone only.
 */
export function refuseCutHistory(root: string, shallow: readonly string[], range: Pick<ResolvedRange, 'base' | 'head' | 'mergeBases'>): void {
  if (shallow.length === 0) return;
  const cuts = new Set(shallow);
  const above = gitLines(root, ['rev-list', range.base, range.head, '--not', ...range.mergeBases], 'shallow-history', 'cannot list the commits above the merge base');
  const cut = above.find((commit) => cuts.has(commit));
  if (cut === undefined) return;
  throw new RevisionRangeError(
    'shallow-history',
    `this clone is shallow and its history is cut at ${cut.slice(0, 12)}, above the merge base git finds, so the real merge base may lie beyond the cut (fetch the whole history: git fetch --unshallow)`,
  );
}

/** What refListingArgs' for-each-ref lists: each ref with the object it finally names (an annotated tag peeled once). */
function existingRefs(listing: Buffer): ExistingRef[] {
  return listing
    .toString('utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const [ref = '', object = '', peeled = ''] = line.split('\0');
      return { ref, target: peeled === '' ? object : peeled };
    });
}

function refListingArgs(revisions: readonly string[]): string[] | undefined {
  const names = revisions.map(leadingRefName).filter((name): name is string => name !== undefined);
  if (names.length === 0) return undefined;
  return ['for-each-ref', '--format=%(refname)%00%(objectname)%00%(*objectname)', ...new Set(names.flatMap(refLookupCandidates))];
}

/**
 * The first of `revisions` whose leading ref name `judge` finds ambiguous, as the error verify reports
 * (`error` undefined: none is); undefined as soon as `judge` cannot tell for a name.
 */
function judgeRevisionNames(revisions: readonly string[], judge: (name: string) => { problem: string | undefined } | undefined): { error: RevisionRangeError | undefined } | undefined {
  for (const revision of revisions) {
    const name = leadingRefName(revision);
    if (name === undefined) continue;
    const judged = judge(name);
    if (judged === undefined) return undefined;
    if (judged.problem !== undefined) {
      return { error: new RevisionRangeError('ambiguous-revision', `${judged.problem}: give the full ref (refs/remotes/..., refs/heads/...) or the commit id`) };
    }
  }
  return { error: undefined };
}

/** The names judged from the sole ref git's lookup took for each (TakenRefs); undefined when a name needs its refs listed. */
function ambiguityFromTakenRefs(revisions: readonly string[], taken: TakenRefs): { error: RevisionRangeError | undefined } | undefined {
  return judgeRevisionNames(revisions, (name) => {
    const ref = taken.get(name);
    return ref === undefined ? undefined : ambiguityOfSoleRef(name, ref);
  });
}

/** The names judged from every ref their lookup could reach. */
function ambiguousRevision(revisions: readonly string[], existing: readonly ExistingRef[]): RevisionRangeError | undefined {
  return judgeRevisionNames(revisions, (name) => ({ problem: ambiguityOf(name, existing) }))?.error;
}

/** A check of revision names started and not waited for (startRevisionNameCheck). */
export interface PendingNameCheck {
  /** Throws RevisionRangeError when a name is ambiguous, or when the refs cannot be listed. */
  finish(): Promise<void>;
  cancel(): void;
}

/**
 * Starts listing the refs git's lookup could take each of `revisions` to (one for-each-ref beside the
 * caller's other work); `finish` refuses a name that is ambiguous (see ambiguityOf). A listing that
 * cannot be made refuses too: a verifier never judges a range it could not name for certain. When the
 * process that located the checkout says which sole ref git's lookup took for every name (`taken`, see
 * TakenRefs), the names are judged from that and nothing is started.
 */
export function startRevisionNameCheck(root: string, revisions: readonly string[], taken?: TakenRefs): PendingNameCheck {
  const settled = taken === undefined ? undefined : ambiguityFromTakenRefs(revisions, taken);
  if (settled !== undefined) {
    return {
      finish: async () => {
        if (settled.error !== undefined) throw settled.error;
      },
      cancel: () => undefined,
    };
  }
  const args = refListingArgs(revisions);
  if (args === undefined) return { finish: async () => undefined, cancel: () => undefined };
  const git = startGit(root, args, 'ignore');
  return {
    finish: async () => {
      const run = (await git.run) ?? runGitProcess(root, args);
      const error = ambiguousRevision(revisions, existingRefs(outputOf(run, 'ambiguous-revision', 'cannot list the refs the revisions may name')));
      if (error !== undefined) throw error;
    },
    cancel: git.stop,
  };
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
