// `wave-scope verify`: every path a branch changes must lie in its agent's published scope.
// Contract (flags, output, exit codes): docs/cli.md § verify; CI examples: docs/sync.md.
import { resolve } from 'node:path';
import { locateSyncRepository, planStoreOf, updateLocalSyncState } from '../../node/cloneState';
import type { SyncRepository } from '../../node/cloneState';
import { readTextIfExists } from '../../node/declarationFs';
import { readTrackingRef } from '../../node/planRefGit';
import {
  diffRange,
  knownRangeOf,
  listBranchRefs,
  readShallowCommits,
  refuseCutHistory,
  revisionProblem,
  RevisionRangeError,
  startEarlyRangeDiff,
  startRangeDiff,
  startRevisionNameCheck,
} from '../../node/rangeDiff';
import type { EarlyRangeDiff, PendingNameCheck, PendingRangeDiff, ResolvedRange } from '../../node/rangeDiff';
import { isAgentId } from '../../planner/plan/agentId';
import { agentForBranch, BranchMapError, branchNameOf, parseBranchMap } from '../../planner/sync/branchMap';
import type { BranchAgent, BranchRule } from '../../planner/sync/branchMap';
import { isCloneId } from '../../planner/sync/claims';
import { decodePlan, emptyPlan, waveOfPlanPath } from '../../planner/sync/planRef';
import type { DecodedPlan } from '../../planner/sync/planRef';
import { PlanRefError } from '../../planner/sync/publish';
import { branchRefCandidates } from '../../planner/sync/revisionNames';
import { claimedWavePaths, findPublishedScope, foreignClaimsOf, mergeOnlyChanges, mergeRangeChanges, parseNameList, parseRawDiff, RawDiffError, verifyChanges } from '../../planner/sync/verifyRange';
import type { ForeignClaim, RangeChange } from '../../planner/sync/verifyRange';
import { printLine, reportError, reportNote, reportWarning } from '../cliIo';
import type { CliIo } from '../cliIo';
import { parseCommandLine, parseWave, reportBadArguments, UsageProblem } from '../commandLine';
import { changeKindWords, syncMessages as say } from '../messages';
import { refuseUnknownRemote, remoteOf } from './syncShared';

/** One branch to verify: what it is called, which revision, and whose scope; or a branch named that does not exist. */
interface Target {
  branch: string;
  revision: string;
  agent: BranchAgent | undefined;
  /** The branch refs looked for when none of them exists (the branch cannot be verified). */
  missing?: readonly string[];
  /**
   * The clone `--clone` pins, when the branch's name (a map rule with `{clone}`) names another one: the
   * branch is not verified against a plan the run does not trust.
   */
  pinnedClone?: string;
}

/** What became of one branch (the JSON shape of `verify --json`'s `branches`). */
interface BranchResult {
  branch: string;
  status: 'ok' | 'outside' | 'error' | 'skipped';
  wave: number | null;
  agent: string | null;
  clone: string | null;
  base: string | null;
  head: string | null;
  /** The first of mergeBases (the one merge base there usually is). */
  mergeBase: string | null;
  mergeBases: string[];
  checked: number;
  outside: RangeChange[];
  error: string | null;
  /**
   * Why a merge of head into base could not be judged when base has moved since the fork (a git before
   * 2.38); the range's own changes were judged all the same. Null otherwise.
   */
  mergeUnjudged: string | null;
  /** The exit code this branch alone would give. */
  exitCode: 0 | 1 | 2 | 3;
}

function readMap(io: CliIo, path: string): BranchRule[] {
  const full = resolve(io.cwd, path);
  let text: string | undefined;
  try {
    text = readTextIfExists(full);
  } catch (error) {
    throw new UsageProblem(say.unreadableMap(path, (error as Error).message));
  }
  if (text === undefined) throw new UsageProblem(say.unreadableMap(path, 'no such file'));
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UsageProblem(say.badMap(path, `not valid JSON: ${(error as Error).message}`));
  }
  try {
    return parseBranchMap(parsed);
  } catch (error) {
    if (error instanceof BranchMapError) throw new UsageProblem(say.badMap(path, error.message));
    throw error;
  }
}

function checkRevision(option: string, value: string | undefined): string {
  if (value === undefined) throw new UsageProblem(say.verifyNeedsTarget);
  if (value.trim() === '' || value.startsWith('-')) throw new UsageProblem(say.badRevision(option, value));
  if (value.startsWith('^')) throw new UsageProblem(say.badRevision(option, value, 'a negation; give the revision itself'));
  if (revisionProblem(value) !== undefined) throw new UsageProblem(say.badRevision(option, value, 'a range; give one revision'));
  return value;
}

export async function runVerify(args: string[], io: CliIo): Promise<number> {
  const commandLine = parseCommandLine(
    'verify',
    args,
    {
      base: { type: 'string' },
      head: { type: 'string' },
      wave: { type: 'string' },
      agent: { type: 'string' },
      clone: { type: 'string' },
      map: { type: 'string' },
      branch: { type: 'string', multiple: true, default: [] },
      remote: { type: 'string' },
      'no-fetch': { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
    { io, usage: say.verifyUsage, badArgumentsExit: 1 },
  );
  if ('exitCode' in commandLine) return commandLine.exitCode;
  const { values } = commandLine;
  let remote: string;
  let base: string;
  let rules: BranchRule[] | undefined;
  let single: BranchAgent | undefined;
  try {
    remote = remoteOf(values.remote);
    if (values.base === undefined) throw new UsageProblem(say.missingBase);
    base = checkRevision('--base', values.base);
    if (values.head !== undefined) checkRevision('--head', values.head);
    if (values.clone !== undefined && !isCloneId(values.clone)) throw new UsageProblem(say.badCloneId(values.clone));
    if (values.map !== undefined) {
      if (values.wave !== undefined || values.agent !== undefined) throw new UsageProblem(say.verifyWaveAgentTogether);
      if (values.head !== undefined && values.branch.length > 1) throw new UsageProblem(say.verifyHeadOneBranch);
      if (values.head !== undefined && values.branch.length === 0) throw new UsageProblem(say.verifyNeedsTarget);
      for (const branch of values.branch) checkRevision('--branch', branch);
      rules = readMap(io, values.map);
    } else {
      if (values.head === undefined || values.branch.length > 0) throw new UsageProblem(say.verifyNeedsTarget);
      if (values.wave === undefined || values.agent === undefined) throw new UsageProblem(say.verifyWaveAgentTogether);
      const wave = parseWave(values.wave);
      if (!isAgentId(values.agent)) throw new UsageProblem(say.badAgentId(values.agent));
      single = { wave, agent: values.agent, ...(values.clone !== undefined ? { clone: values.clone } : {}), rule: '--wave/--agent' };
    }
  } catch (error) {
    if (!(error instanceof UsageProblem || error instanceof Error)) throw error;
    reportBadArguments(io, 'verify', (error as Error).message);
    return 1;
  }
  // One branch given by commit ids (as CI gives it): its diff starts before the checkout is located.
  const early = single !== undefined && values.head !== undefined ? startEarlyRangeDiff(io.cwd, base, values.head) : undefined;
  try {
    return await verifyLocating(values, io, remote, base, rules, single, early);
  } finally {
    early?.git.stop();
  }
}

/** verify once the command line is read, the diff of one branch given by commit ids maybe already running (`early`). */
async function verifyLocating(
  values: { head?: string; branch: string[]; clone?: string; 'no-fetch': boolean; json: boolean },
  io: CliIo,
  remote: string,
  base: string,
  rules: BranchRule[] | undefined,
  single: BranchAgent | undefined,
  early: EarlyRangeDiff | undefined,
): Promise<number> {
  const revisions = values.head === undefined ? [base] : [base, values.head];
  // The process that finds the checkout also resolves the revisions named (and, with one head, the range).
  const repository = locateSyncRepository(io.cwd, { revisions });
  if (repository === undefined) {
    reportError(io, say.notInGit('verify'));
    return 2;
  }
  if (refuseUnknownRemote(repository, remote, io)) return 1;

  // The targets, before anything is fetched (a bad map or branch list costs no network). A branch named
  // on the command line is looked for among the branch refs only (see branchRefCandidates): a tag of the
  // same name never stands in for it.
  const targets: Target[] = [];
  if (single !== undefined) targets.push({ branch: values.head as string, revision: values.head as string, agent: single });
  else if (rules !== undefined) {
    // --clone pins whose plan this run trusts; a rule's own "clone" (the map's author's choice) wins over it.
    // A clone taken from the branch name (`{clone}`) is its author's choice and never replaces the pin: a
    // branch naming another clone is not verified.
    const pinned = values.clone;
    const withClone = (agent: BranchAgent | undefined): Pick<Target, 'agent' | 'pinnedClone'> => {
      if (agent === undefined || pinned === undefined || agent.cloneFrom === 'rule') return { agent };
      if (agent.clone !== undefined && agent.clone !== pinned) return { agent, pinnedClone: pinned };
      return { agent: { ...agent, clone: pinned } };
    };
    // Shown as people name it (`wave-2/alice`, `origin/wave-2/alice`), verified by its full ref.
    const shownRef = (ref: string) => ref.replace(/^refs\/(?:heads|remotes)\//, '');
    if (values.head !== undefined) {
      const name = values.branch[0] as string;
      targets.push({ branch: name, revision: values.head, ...withClone(agentForBranch(rules, branchNameOf(name, remote))) });
    } else if (values.branch.length > 0) {
      const branchRefs = new Set(listBranchRefs(repository.root, remote).map(({ ref }) => ref));
      for (const name of values.branch) {
        const candidates = branchRefCandidates(name, remote);
        const found = candidates.filter((ref) => branchRefs.has(ref));
        if (found.length === 0) targets.push({ branch: name, revision: name, agent: undefined, missing: candidates });
        for (const ref of found) targets.push({ branch: shownRef(ref), revision: ref, ...withClone(agentForBranch(rules, branchNameOf(ref, remote))) });
      }
    } else {
      for (const { ref } of listBranchRefs(repository.root, remote)) {
        const agent = agentForBranch(rules, branchNameOf(ref, remote));
        if (agent !== undefined) targets.push({ branch: shownRef(ref), revision: ref, ...withClone(agent) });
      }
    }
  }

  // One branch: its diff runs while the plan is fetched and read (with one branch, discovery's rev-parse
  // has already resolved the range and listed its merge bases). Started first: it is the longest process.
  const only = targets.length === 1 && targets[0]?.agent !== undefined ? targets[0] : undefined;
  const pending = only === undefined ? undefined : startRangeDiff(repository.root, base, only.revision, knownRangeOf(repository), early);
  // The names given for --base and --head must each mean one commit, whatever tags or branches of the same
  // name exist: checked beside the rest, before any result is reported.
  const names = startRevisionNameCheck(repository.root, revisions, repository.takenRefs);
  try {
    return await verifyTargets(values, io, remote, repository, base, targets, pending, names);
  } finally {
    pending?.cancel();
    names.cancel();
  }
}

/** verify of `targets`, the diff of the one target already running when `pending` is given. */
async function verifyTargets(
  values: { 'no-fetch': boolean; json: boolean },
  io: CliIo,
  remote: string,
  repository: SyncRepository,
  base: string,
  targets: readonly Target[],
  pending: PendingRangeDiff | undefined,
  names: PendingNameCheck,
): Promise<number> {
  let plan: DecodedPlan = emptyPlan();
  let planCommit: string | null = null;
  const store = planStoreOf(repository, remote);
  const now = Date.now();
  try {
    if (values['no-fetch']) planCommit = readTrackingRef(repository.root, remote, repository.commonDir);
    else {
      planCommit = store.fetch();
      const at = new Date().toISOString();
      updateLocalSyncState(repository.gitDir, (state) => ({ ...state, fetched: { ...state.fetched, [remote]: { at, commit: planCommit } } }));
    }
    // Only the waves the targets name are read (and the files every plan has).
    const waves = new Set(targets.map((target) => target.agent?.wave).filter((wave): wave is number => wave !== undefined));
    const wanted = (path: string) => {
      const wave = waveOfPlanPath(path);
      return wave === undefined || waves.has(wave.wave);
    };
    if (planCommit !== null && waves.size > 0) plan = decodePlan(store.readFiles(planCommit, wanted));
  } catch (error) {
    if (!(error instanceof PlanRefError)) throw error;
    reportError(io, say.gitFailed(error.message));
    return 2;
  }
  if (plan.problems.length > 0) {
    reportError(io, say.corruptPlanRef(remote, plan.problems.join('; ')));
    return 1;
  }

  try {
    await names.finish();
  } catch (error) {
    if (!(error instanceof RevisionRangeError)) throw error;
    reportError(io, error.reason === 'ambiguous-revision' ? error.message : say.gitFailed(error.message));
    return 2;
  }

  const planWhere = planCommit === null ? `${remote} (it has no plan ref)` : `${remote}'s plan ref`;
  const history = { root: repository.root, shallow: readShallowCommits(repository.commonDir) };
  // Other clones' claimed waves, read only for a change in a test sibling alone (verifyChanges), once per clone.
  const claimedWaves = new Map<string, readonly ForeignClaim[]>();
  const commit = planCommit;
  const foreignClaims = (ownClone: string) => () => {
    let claims = claimedWaves.get(ownClone);
    if (claims === undefined) {
      let claimed = plan;
      try {
        if (commit !== null) claimed = decodePlan(store.readFiles(commit, claimedWavePaths(plan.claims, ownClone, now)));
      } catch (error) {
        // Unread, each claimed wave holds every sibling (foreignClaimsOf): nothing is proven against it.
        if (!(error instanceof PlanRefError)) throw error;
        claimed = { ...plan, waves: [] };
      }
      claims = foreignClaimsOf(claimed, ownClone, now);
      claimedWaves.set(ownClone, claims);
    }
    return claims;
  };
  const results: BranchResult[] = [];
  for (const target of targets) {
    // `pending` is the one target's diff, already running; several targets are diffed one after another.
    const diff = pending === undefined ? async () => diffRange(repository.root, base, target.revision) : () => pending.finish();
    results.push(await verifyTarget(target, plan, diff, { planWhere, history, foreignClaims }));
  }
  if (values.json) {
    const exitCode = overallExit(results);
    printLine(io, JSON.stringify({ ok: exitCode === 0, exitCode, remote, planCommit, branches: results }, null, 2));
    return exitCode;
  }
  if (targets.length === 0) reportNote(io, say.verifyNothing);
  for (const result of results) {
    const head = result.head;
    const range = head === null ? '' : result.mergeBases.map((mergeBase) => `${mergeBase.slice(0, 12)}..${head.slice(0, 12)}`).join(' and ');
    if (result.mergeUnjudged !== null) reportWarning(io, say.verifyMergeUnjudged(result.branch, result.mergeUnjudged));
    if (result.status === 'skipped') reportNote(io, say.verifySkipped(result.branch));
    else if (result.status === 'error') reportError(io, say.verifyBranchError(result.branch, result.error ?? ''));
    else if (result.status === 'ok') printLine(io, say.verifyPassed(result.branch, result.wave as number, result.agent as string, result.checked, range));
    else {
      reportError(io, say.verifyFailedHeader(result.branch, result.wave as number, result.agent as string, result.outside.length, range));
      for (const change of result.outside) {
        const words = changeKindWords[change.kind] ?? { kind: change.kind, counterpart: '' };
        reportNote(io, say.verifyOutsideLine(words.kind, change.path, change.counterpart, words.counterpart, change.undecodable === true, change.contestedBy, change.claimedBy, change.viaMerge === true));
      }
    }
  }
  return overallExit(results);
}

/** A branch that could not be verified outranks one that was verified and failed; any failure outranks a pass. */
function overallExit(results: readonly BranchResult[]): number {
  const codes = results.map((result) => result.exitCode);
  if (codes.includes(2)) return 2;
  if (codes.includes(1)) return 1;
  if (codes.includes(3)) return 3;
  return 0;
}

async function verifyTarget(
  target: Target,
  plan: DecodedPlan,
  diff: () => Promise<ResolvedRange>,
  options: { planWhere: string; history: { root: string; shallow: readonly string[] }; foreignClaims: (ownClone: string) => () => readonly ForeignClaim[] },
): Promise<BranchResult> {
  const result: BranchResult = {
    branch: target.branch,
    status: 'skipped',
    wave: target.agent?.wave ?? null,
    agent: target.agent?.agent ?? null,
    clone: target.agent?.clone ?? null,
    base: null,
    head: null,
    mergeBase: null,
    mergeBases: [],
    checked: 0,
    outside: [],
    error: null,
    mergeUnjudged: null,
    exitCode: 0,
  };
  const fail = (error: string, exitCode: 1 | 2): BranchResult => ({ ...result, status: 'error', error, exitCode });
  if (target.missing !== undefined) return fail(say.noSuchBranch(target.branch, target.missing), 2);
  if (target.agent === undefined) return result;
  if (target.pinnedClone !== undefined) return fail(say.verifyOtherClone(target.branch, target.agent.clone ?? '', target.pinnedClone), 1);
  const lookup = findPublishedScope(plan, { wave: target.agent.wave, agent: target.agent.agent, ...(target.agent.clone ? { clone: target.agent.clone } : {}) });
  if (!lookup.ok) {
    if (lookup.reason === 'ambiguous') return fail(say.ambiguousScope(target.agent.wave, target.agent.agent, lookup.clones.join(', ')), 1);
    if (lookup.reason === 'unusable') return fail(say.unusableScope(target.agent.wave, lookup.clone, lookup.problems.join('; ')), 1);
    return fail(say.noPublishedScope(target.agent.wave, target.agent.agent, options.planWhere), 1);
  }
  result.clone = lookup.clone;
  let changes: RangeChange[];
  try {
    const range = await diff();
    result.base = range.base;
    result.head = range.head;
    result.mergeBase = range.mergeBases[0] ?? null;
    result.mergeBases = range.mergeBases;
    refuseCutHistory(options.history.root, options.history.shallow, range);
    const tipPaths = range.tipDiff === undefined ? undefined : new Set(parseNameList(range.tipDiff));
    changes = mergeRangeChanges(range.rawDiffs.map((rawDiff) => parseRawDiff(rawDiff)), tipPaths);
    if (range.mergeDiff !== undefined) changes = [...changes, ...mergeOnlyChanges(changes, parseRawDiff(range.mergeDiff))];
    result.mergeUnjudged = range.mergeUnjudged ?? null;
  } catch (error) {
    if (error instanceof RevisionRangeError) return fail(error.message, 2);
    if (error instanceof RawDiffError) return fail(error.message, 2);
    throw error;
  }
  // The case rule the wave was proven under, not this clone's: a case-insensitive checkout verifying a plan
  // proven case-sensitively would otherwise let an agent change a path another agent owns in another case.
  const scope = { entries: lookup.entries, role: lookup.role, rivals: lookup.rivals, foreignClaims: options.foreignClaims(lookup.clone) };
  const verdict = verifyChanges(changes, scope, { ignoreCase: lookup.ignoreCase });
  return { ...result, status: verdict.ok ? 'ok' : 'outside', checked: verdict.checked, outside: verdict.outside, exitCode: verdict.ok ? 0 : 3 };
}
