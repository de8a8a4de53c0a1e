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
 * Judges the paths each commit of the turn touches (minus the ones no snapshot looks at, `exclude`);
 * the commits that reach outside the scope.
 */
export function commitViolationsOf(commits: readonly TurnCommit[], context: JudgeContext, exclude: (path: string) => boolean): CommitViolation[] {
  const violations: CommitViolation[] = [];
  for (const commit of commits) {
    const touched = commit.paths.filter((path) => !exclude(path.path)).map((path) => ({ path: path.path, kind: kindOfStatus(path.status) }));
    if (touched.length === 0) continue;
    const judgement = judgeChanges(touched, context);
    if (judgement.verdict === 'invalid-manifest') violations.push({ commit, paths: touched.map((change) => change.path) });
    else if (judgement.verdict === 'out-of-scope' || judgement.verdict === 'warn') {
      violations.push({ commit, paths: [...new Set(judgement.violations.map((violation) => violation.change.path))] });
    }
  }
  return violations;
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
    const commit = await commitSelection(git, selection, message);
    return { kind: 'committed', commit, selection };
  } catch (error) {
    return { kind: 'failed', message: describe(error), ...(selection !== undefined ? { selection } : {}) };
  }
}

/** Runs one turn. Rejects only when the first snapshot cannot be taken (the command then never ran). */
export async function runTurn(request: TurnRequest, host: TurnHost): Promise<TurnOutcome> {
  const snapshotOptions = { exclude: request.exclude, watchIgnored: request.watchIgnored, ignoreCase: request.ignoreCase };
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
  const snapshotOptions = { exclude: request.exclude, watchIgnored: request.watchIgnored, ignoreCase: request.ignoreCase };
  const after = await takeSnapshot(host.snapshot, { ...snapshotOptions, previous: before });
  const diff = diffSnapshots(before, after, { exclude: request.exclude });
  const judgement = judgeChanges(diff.changes, request.judge);
  const violations = judgement.verdict === 'out-of-scope' || judgement.verdict === 'warn' ? judgement.violations : [];
  const planAfter = request.planFiles !== undefined && before.planFiles !== undefined ? host.planFiles?.(request.planFiles, before.planFiles) : undefined;
  const planChanges = planAfter !== undefined && before.planFiles !== undefined ? comparePlanFiles(request.planFiles as PlanFileRequest, before.planFiles, planAfter) : [];

  let commits: readonly TurnCommit[] = [];
  let commitsTruncated = false;
  let checkProblem: string | undefined;
  if (diff.headMoved) {
    try {
      const found = await commitsOfTurn(host.snapshot.git, before.head, after.head);
      commits = found.commits;
      commitsTruncated = found.truncated;
    } catch (error) {
      checkProblem = describe(error);
    }
  }
  const commitViolations = commitViolationsOf(commits, request.judge, request.exclude);
  const failed =
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
    ...(checkProblem !== undefined ? { checkProblem } : {}),
    ...(recordProblem !== undefined ? { recordProblem } : {}),
  };
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
