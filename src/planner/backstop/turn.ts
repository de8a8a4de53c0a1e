// One agent turn under the backstop, from the first snapshot to the record: what `wave-scope run`
// does, without the process handling (the host runs the command). Also the later `wave-scope commit`
// of a recorded turn.
//
//   1. snapshot the work tree (if that fails, the command is not run: a turn that cannot be checked
//      is not started)
//   2. record the turn as running, run the command
//   3. snapshot again, diff, judge every change and every commit the turn made by the write gate's rules
//   4. out of scope: the turn fails. Nothing of it is committed, the work tree is left exactly as it
//      is, and if HEAD moved it is put back (soft: index and work tree untouched)
//   5. in scope (and asked to, and the command succeeded): commit exactly the in-scope changes
//   6. record the outcome
import type { HeadState } from './gitOutput';
import { commitSelection, COMMIT_STATUS_ARGS, readCommitStatus, selectCommitPaths, turnCommitMessage } from './scopedCommit';
import type { CommitSelection } from './scopedCommit';
import { takeSnapshot } from './snapshot';
import type { Snapshot, SnapshotHost } from './snapshot';
import { comparePlanFiles, planPathForReport } from './planFiles';
import type { PlanFileChange, PlanFileRequest, PlanFingerprints } from './planFiles';
import { diffSnapshots, identityAt } from './snapshotDiff';
import type { PathChange, SnapshotDiff } from './snapshotDiff';
import { commitsOfTurn, restoreHead } from './turnCommits';
import type { HeadRestore, TurnCommit } from './turnCommits';
import type { CommandExit, RecordedChange, RecordedCommit, TurnRecord, TurnVerdict } from './turnRecord';
import { judgeChanges } from './turnScope';
import type { ChangeJudgement, ChangeViolation, JudgeContext } from './turnScope';

/** What the turn needs of the outside world. */
export interface TurnHost {
  /** git and the work tree of the write root. */
  readonly snapshot: SnapshotHost;
  /** Runs the turn's command to its end. */
  runCommand(): Promise<CommandExit>;
  /**
   * The fingerprints of the plan files (planFiles.ts), to be compared with `previous` when given; without
   * it the plan is not watched.
   */
  planFiles?(request: PlanFileRequest, previous?: PlanFingerprints): PlanFingerprints;
  /** Writes the record atomically (it replaces the previous one). */
  writeRecord(record: TurnRecord): Promise<void>;
  now(): Date;
  /**
   * The repositories below the directories the turn may write (src/node/backstopFiles.ts
   * gitDirectoriesBelow), repository-relative, asked once the command has ended and compared with
   * TurnRequest.repositoriesBefore. git lists none of them, so this is how a repository planted in a
   * granted directory is seen.
   */
  nestedRepositories?(): readonly string[];
}

export interface TurnRequest {
  readonly turn: string;
  readonly wave: number;
  readonly agent: string;
  readonly program: string;
  readonly confined: boolean;
  readonly stateDir: string;
  readonly scopeFile: string;
  readonly scopeProblem?: string;
  /** The scope the turn is judged by (see `strictTurnManifest`). */
  readonly judge: JudgeContext;
  readonly exclude: (path: string) => boolean;
  readonly watchIgnored: readonly string[];
  readonly ignoreCase: boolean;
  /** Commit the in-scope changes when the turn passes and its command succeeded. */
  readonly commit: boolean;
  /** The plan files of the state directory the turn is judged by: any change to them fails the turn. */
  readonly planFiles?: PlanFileRequest;
  /** The repositories below the directories the turn may write, as found before it (TurnHost.nestedRepositories). */
  readonly repositoriesBefore?: readonly string[];
  /** The submodule directories read without git (SnapshotOptions.readWithoutGit): a confined turn's granted ones. */
  readonly readWithoutGit?: (path: string) => boolean;
}

/** A commit the turn made that reaches outside the scope. */
export interface CommitViolation {
  readonly commit: TurnCommit;
  readonly paths: readonly string[];
}

export type TurnCommitOutcome =
  | { readonly kind: 'committed'; readonly commit: string; readonly selection: CommitSelection }
  | { readonly kind: 'nothing'; readonly selection: CommitSelection }
  | { readonly kind: 'failed'; readonly message: string; readonly selection?: CommitSelection };

export interface TurnOutcome {
  readonly record: TurnRecord;
  readonly exit: CommandExit;
  readonly verdict: TurnVerdict;
  readonly diff?: SnapshotDiff;
  readonly judgement?: ChangeJudgement;
  readonly violations: readonly ChangeViolation[];
  /** Plan files changed during the turn (by the turn, or by the coordinator meanwhile): the turn fails. */
  readonly planChanges: readonly PlanFileChange[];
  readonly commitViolations: readonly CommitViolation[];
  readonly commitsTruncated: boolean;
  readonly restore?: HeadRestore | { readonly error: string };
  readonly commit?: TurnCommitOutcome;
  /** HEAD after the turn does not descend from HEAD before it (the turn dropped commits): the turn fails. */
  readonly rewound?: boolean;
  /** Repositories the turn planted (TurnHost.nestedRepositories): git run there takes their config. */
  readonly planted?: readonly string[];
  readonly checkProblem?: string;
  /** The final record could not be written (the outcome itself stands). */
  readonly recordProblem?: string;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The kind of change a commit's status letter stands for. */
function kindOfStatus(status: string): PathChange['kind'] {
  return status === 'A' ? 'created' : status === 'D' ? 'deleted' : 'modified';
}

/**
 * Judges the paths each commit of the turn touches; the commits that reach outside the scope. A path no
 * snapshot looks at (`exclude`: the plan's manifest and declarations, `.orchestrator/`) is watched in the
 * work tree by its fingerprint, but nothing watches it in a commit: a commit that touches one always
 * reaches outside the scope (a turn committed a widened declaration with plumbing, leaving the work tree
 * as it was, and a later checkout brought it in: found by red-team review, 2026-12-06).
 */
export function commitViolationsOf(commits: readonly TurnCommit[], context: JudgeContext, exclude: (path: string) => boolean): CommitViolation[] {
  const violations: CommitViolation[] = [];
  for (const commit of commits) {
    const planPaths = commit.paths.filter((path) => exclude(path.path)).map((path) => path.path);
    const touched = commit.paths.filter((path) => !exclude(path.path)).map((path) => ({ path: path.path, kind: kindOfStatus(path.status) }));
    const paths = [...new Set([...planPaths, ...outsideScope(touched, context)])];
    if (paths.length > 0) violations.push({ commit, paths });
  }
  return violations;
}

/** The paths of `changes` the scope does not allow (all of them under an unusable manifest). */
function outsideScope(changes: readonly PathChange[], context: JudgeContext): string[] {
  if (changes.length === 0) return [];
  const judgement = judgeChanges(changes, context);
  if (judgement.verdict === 'invalid-manifest') return changes.map((change) => change.path);
  if (judgement.verdict === 'out-of-scope' || judgement.verdict === 'warn') return judgement.violations.map((violation) => violation.change.path);
  return [];
}

/** Paths in `after` and not in `before` (both repository-relative lists). */
function plantedSince(before: readonly string[] | undefined, after: readonly string[] | undefined): string[] {
  if (before === undefined || after === undefined) return [];
  const known = new Set(before);
  return after.filter((path) => !known.has(path));
}

function recordedChanges(changes: readonly PathChange[], violations: readonly ChangeViolation[]): RecordedChange[] {
  const why = new Map(violations.map((violation) => [violation.change.path, violation.kind]));
  return changes.map((change) => {
    const violation = why.get(change.path);
    return { ...change, ...(violation !== undefined ? { violation } : {}) };
  });
}

/** Whether the command ended well (exit code 0). */
export function commandSucceeded(exit: CommandExit): boolean {
  return 'code' in exit && exit.code === 0;
}

/** Commits the in-scope `candidates` whose content is still what the turn left (per `current`). */
async function commitCandidates(
  git: SnapshotHost['git'],
  candidates: readonly RecordedChange[],
  current: Snapshot,
  message: string,
): Promise<TurnCommitOutcome> {
  let selection: CommitSelection | undefined;
  try {
    const status = readCommitStatus(await git(COMMIT_STATUS_ARGS));
    selection = selectCommitPaths(status, candidates, (path) => identityAt(current, path));
    if (selection.paths.length === 0) return { kind: 'nothing', selection };
    const commit = await commitSelection(git, selection, message, current.head);
    return { kind: 'committed', commit, selection };
  } catch (error) {
    return { kind: 'failed', message: describe(error), ...(selection !== undefined ? { selection } : {}) };
  }
}

/** Runs one turn. Rejects only when the first snapshot cannot be taken (the command then never ran). */
export async function runTurn(request: TurnRequest, host: TurnHost): Promise<TurnOutcome> {
  const snapshotOptions = { exclude: request.exclude, watchIgnored: request.watchIgnored, ignoreCase: request.ignoreCase, ...(request.readWithoutGit !== undefined ? { readWithoutGit: request.readWithoutGit } : {}) };
  const before = await takeSnapshot(host.snapshot, snapshotOptions);
  const planBefore = request.planFiles !== undefined ? host.planFiles?.(request.planFiles) : undefined;
  const base: TurnRecord = {
    version: 1,
    turn: request.turn,
    wave: request.wave,
    agent: request.agent,
    status: 'running',
    startedAt: host.now().toISOString(),
    program: request.program,
    confined: request.confined,
    stateDir: request.stateDir,
    scopeFile: request.scopeFile,
    ...(request.scopeProblem !== undefined ? { scopeProblem: request.scopeProblem } : {}),
    headBefore: before.head,
  };
  await host.writeRecord(base);
  const exit = await host.runCommand();

  try {
    return await checkTurn(request, host, { ...before, ...(planBefore !== undefined ? { planFiles: planBefore } : {}) }, base, exit);
  } catch (error) {
    // The command ran; whatever failed after it, the turn is not vouched for.
    const checkProblem = describe(error);
    const record: TurnRecord = { ...base, status: 'finished', finishedAt: host.now().toISOString(), exit, verdict: 'unchecked', checkProblem };
    try {
      await host.writeRecord(record);
    } catch {
      // The outcome still reaches the caller, who reports it.
    }
    return { record, exit, verdict: 'unchecked', violations: [], planChanges: [], commitViolations: [], commitsTruncated: false, checkProblem };
  }
}

async function checkTurn(request: TurnRequest, host: TurnHost, before: Snapshot, base: TurnRecord, exit: CommandExit): Promise<TurnOutcome> {
  const snapshotOptions = { exclude: request.exclude, watchIgnored: request.watchIgnored, ignoreCase: request.ignoreCase, ...(request.readWithoutGit !== undefined ? { readWithoutGit: request.readWithoutGit } : {}) };
  const after = await takeSnapshot(host.snapshot, { ...snapshotOptions, previous: before });
  const snapshotDiff = diffSnapshots(before, after, { exclude: request.exclude });
  // A repository planted where the turn could write: control state whatever the scope says (its config
  // runs commands for whoever runs git there next), and a change git itself never lists.
  const planted: PathChange[] = plantedSince(request.repositoriesBefore, host.nestedRepositories?.()).map((path) => ({ path, kind: 'created' }));
  const diff: SnapshotDiff = planted.length === 0 ? snapshotDiff : { ...snapshotDiff, changes: [...snapshotDiff.changes, ...planted] };
  const judgement = judgeChanges(diff.changes, request.judge);
  const judged = judgement.verdict === 'out-of-scope' || judgement.verdict === 'warn' ? judgement.violations : [];
  const violations: ChangeViolation[] = [
    ...judged,
    ...planted.filter((change) => !judged.some((violation) => violation.change.path === change.path)).map((change) => ({ change, kind: 'control-file' as const })),
  ];
  const planAfter = request.planFiles !== undefined && before.planFiles !== undefined ? host.planFiles?.(request.planFiles, before.planFiles) : undefined;
  const planChanges = planAfter !== undefined && before.planFiles !== undefined ? comparePlanFiles(request.planFiles as PlanFileRequest, before.planFiles, planAfter) : [];

  let commits: readonly TurnCommit[] = [];
  let commitsTruncated = false;
  let checkProblem: string | undefined;
  let rewound = false;
  if (diff.headMoved) {
    try {
      const found = await commitsOfTurn(host.snapshot.git, before.head, after.head);
      commits = found.commits;
      commitsTruncated = found.truncated;
      rewound = before.head.ref !== after.head.ref || (await isRewound(host.snapshot.git, before.head, after.head));
    } catch (error) {
      checkProblem = describe(error);
    }
  }
  const commitViolations = commitViolationsOf(commits, request.judge, request.exclude);
  const failed =
    violations.length > 0 ||
    rewound ||
    // Commits past the ones read are not judged: a change to the plan under 500 empty commits passed.
    commitsTruncated ||
    judgement.verdict === 'out-of-scope' ||
    judgement.verdict === 'warn' ||
    judgement.verdict === 'invalid-manifest' ||
    planChanges.length > 0 ||
    commitViolations.length > 0 ||
    checkProblem !== undefined;
  const verdict: TurnVerdict = checkProblem !== undefined ? 'unchecked' : failed ? 'out-of-scope' : 'in-scope';

  let restore: TurnOutcome['restore'];
  if (failed && diff.headMoved) {
    try {
      restore = await restoreHead(host.snapshot.git, before.head, after.head, `wave-scope: turn ${request.turn} of agent ${request.agent} failed its scope check; HEAD put back`);
    } catch (error) {
      restore = { error: describe(error) };
    }
  }

  const changes = recordedChanges(diff.changes, violations);
  let commit: TurnCommitOutcome | undefined;
  if (!failed && request.commit && commandSucceeded(exit)) {
    const message = turnCommitMessage({ wave: request.wave, agent: request.agent, turn: request.turn, files: changes.length });
    commit = await commitCandidates(host.snapshot.git, changes, after, message);
  }
  const headAfter: HeadState = restore !== undefined && !('error' in restore) ? before.head : after.head;
  const record: TurnRecord = {
    ...base,
    status: 'finished',
    finishedAt: host.now().toISOString(),
    headAfter,
    exit,
    verdict,
    ...(checkProblem !== undefined ? { checkProblem } : {}),
    changes,
    ...(planChanges.length > 0 ? { planChanges: planChanges.map((change) => ({ path: planPathForReport(change.path, request.judge.writeRoot), kind: change.kind })) } : {}),
    commits: commits.map((turnCommit) => ({
      hash: turnCommit.hash,
      subject: turnCommit.subject,
      outOfScope: commitViolations.find((violation) => violation.commit.hash === turnCommit.hash)?.paths ?? [],
    })) satisfies RecordedCommit[],
    ...(restore !== undefined ? { headRestored: !('error' in restore) } : {}),
    ...(commit?.kind === 'committed' ? { committed: { commit: commit.commit, paths: commit.selection.paths } } : {}),
  };
  let recordProblem: string | undefined;
  try {
    await host.writeRecord(record);
  } catch (error) {
    recordProblem = describe(error);
  }
  return {
    record,
    exit,
    verdict,
    diff,
    judgement,
    violations,
    planChanges,
    commitViolations,
    commitsTruncated,
    ...(restore !== undefined ? { restore } : {}),
    ...(commit !== undefined ? { commit } : {}),
    ...(rewound ? { rewound } : {}),
    ...(planted.length > 0 ? { planted: planted.map((change) => change.path) } : {}),
    ...(checkProblem !== undefined ? { checkProblem } : {}),
    ...(recordProblem !== undefined ? { recordProblem } : {}),
  };
}

/**
 * Whether HEAD after the turn is not a descendant of HEAD before it (`git reset` to an earlier commit, a
 * rewritten history): the commits it dropped are no change of any path the snapshot sees, and a commit
 * made on top would drop them from the branch (found by red-team review, 2026-12-06). The caller also
 * counts HEAD naming another branch (or none) as such: a turn that left its branch rewound behind it
 * (`git checkout -b mаin; git branch -f main HEAD~1`) ends on a descendant of where it began.
 */
async function isRewound(git: SnapshotHost['git'], before: HeadState, after: HeadState): Promise<boolean> {
  if (before.commit === undefined) return false;
  if (after.commit === undefined) return true;
  try {
    await git(['merge-base', '--is-ancestor', before.commit, after.commit]);
    return false;
  } catch (error) {
    // Exit 1 is git's "no"; anything else is a failure to check, which the caller reports.
    if ((error as { exitCode?: unknown }).exitCode === 1) return true;
    throw error;
  }
}

/** Why a recorded turn cannot be committed; machine-readable. */
export type RecordedCommitRefusal = 'running' | 'failed' | 'unchecked' | 'already-committed';

export type RecordedCommitOutcome =
  | { readonly kind: 'refused'; readonly reason: RecordedCommitRefusal }
  | { readonly kind: 'done'; readonly commit: TurnCommitOutcome; readonly noLongerInScope: readonly string[]; readonly record: TurnRecord };

/**
 * `wave-scope commit`: commits a recorded turn's in-scope changes. Refuses a turn that is still
 * running (or whose supervisor died), that failed or could not be checked, or that is committed
 * already. Every change is judged again against the scope as it is now (a change the scope no longer
 * allows is left out), and only content still as the turn left it is committed.
 */
export async function commitRecordedTurn(
  record: TurnRecord,
  input: { judge: JudgeContext; exclude: (path: string) => boolean; ignoreCase: boolean },
  host: Pick<TurnHost, 'snapshot' | 'writeRecord'>,
): Promise<RecordedCommitOutcome> {
  if (record.status !== 'finished') return { kind: 'refused', reason: 'running' };
  if (record.verdict === 'out-of-scope') return { kind: 'refused', reason: 'failed' };
  if (record.verdict !== 'in-scope') return { kind: 'refused', reason: 'unchecked' };
  if (record.committed !== undefined) return { kind: 'refused', reason: 'already-committed' };
  const changes = record.changes ?? [];
  const judgement = judgeChanges(changes, input.judge);
  const outside = new Set(
    judgement.verdict === 'out-of-scope' || judgement.verdict === 'warn'
      ? judgement.violations.map((violation) => violation.change.path)
      : judgement.verdict === 'invalid-manifest'
        ? changes.map((change) => change.path)
        : [],
  );
  const candidates = changes.filter((change) => !outside.has(change.path));
  const current = await takeSnapshot(host.snapshot, { exclude: input.exclude, ignoreCase: input.ignoreCase });
  const message = turnCommitMessage({ wave: record.wave, agent: record.agent, turn: record.turn, files: candidates.length });
  const commit = await commitCandidates(host.snapshot.git, candidates, current, message);
  const updated: TurnRecord =
    commit.kind === 'committed' ? { ...record, committed: { commit: commit.commit, paths: commit.selection.paths } } : record;
  if (commit.kind === 'committed') await host.writeRecord(updated);
  return { kind: 'done', commit, noLongerInScope: [...outside], record: updated };
}
