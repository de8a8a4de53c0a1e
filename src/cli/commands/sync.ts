// `wave-scope sync`: one published wave into this checkout's state directory, through the one safe chain.
// Contract (flags, output, exit codes): docs/cli.md § sync; the model: docs/sync.md.
import { resolve } from 'node:path';
import { TemporaryFileReserve } from '../../node/atomicFile';
import { areLeftoversDue, cloneStateLeftovers, locateSyncRepository, markLeftoversSwept, planStoreOf, planTreeCache, readLocalSyncState, reserveSyncStateWrites, updateLocalSyncState } from '../../node/cloneState';
import type { DeferredPlanTreeCache } from '../../node/cloneState';
import type { SyncRepository } from '../../node/cloneState';
import { inspectWritePaths, nodeDeclarationFs, readTextIfExists } from '../../node/declarationFs';
import { LEFTOVER_REMOVAL_BUDGET_MS, LEFTOVER_SWEEP_INTERVAL_MS, stateDirLeftovers, sweepLeftoversWhile } from '../../node/leftoverTemporaryFiles';
import type { LeftoverPlace, LeftoverSweep } from '../../node/leftoverTemporaryFiles';
import { startPlanFetch } from '../../node/planRefGit';
import { planWriteLockAt } from '../../node/planWriteLock';
import type { BackgroundFetch, FetchedAhead, GitPlanRefStore } from '../../node/planRefGit';
import { makeSpareFiles, stageWrites } from '../../node/stagedWrites';
import type { SpareFiles, StagedDeclarationFs } from '../../node/stagedWrites';
import { startThreadPool, SYNC_WRITE_THREADS } from '../../node/threadPool';
import { resolveWriteStateDir, stoppedOnInput } from '../../planner/plan/planWriter';
import { processLocalSessionIds } from '../../planner/plan/sessionBinding';
import { isCloneId } from '../../planner/sync/claims';
import { clearSyncInProgress, declarationDigest, markSyncInProgress, planDigest, rememberPlan, syncInProgressIn } from '../../planner/sync/localState';
import type { KnownPlan, LocalSyncState, SyncInProgress } from '../../planner/sync/localState';
import { filescopesPath } from '../../planner/plan/declarationPaths';
import type { PlanWriteLock } from '../../planner/plan/planWriteLock';
import { decodePlan, largestWaveWrite } from '../../planner/sync/planRef';
import type { DecodedPlan } from '../../planner/sync/planRef';
import { PlanRefError } from '../../planner/sync/publish';
import { commitSyncedWave, currentDigests, findLocalPlanRisk, incomingDigests, isAlreadySynced, isSyncCandidate, prepareSyncedWave, readStateDir, selectWaveToSync, stateDirKey, syncedWaveFiles, syncedWavePaths, syncStoppedBeforeWriting } from '../../planner/sync/syncPlan';
import type { LocalPlanRisk, StateDirReading, SyncSelection } from '../../planner/sync/syncPlan';
import { printLine, reportError, reportNote, reportWarning } from '../cliIo';
import type { CliIo } from '../cliIo';
import { governingCheckoutElsewhere } from '../../planner/enforce/repoLocation';
import { nodeLocateFileSystem } from '../../node/hookFileSystem';
import { parseCommandLine, parseWave, reportBadArguments, UsageProblem } from '../commandLine';
import { shownPath, writeConfinement } from '../commandRepository';
import { declarationMessages, syncMessages as say } from '../messages';
import { claimingIdentity, clockTime, refuseUnknownRemote, remoteOf } from './syncShared';

function describeRisk(risk: LocalPlanRisk, stateDir: string): string {
  switch (risk.reason) {
    case 'unusable-manifest':
      return say.unusableLocalManifest(risk.message);
    case 'unpublished-plan':
      return say.unpublishedPlan(stateDir, risk.wave, risk.session === 'foreign');
    case 'unpublished-declaration':
      return say.unpublishedDeclaration(stateDir, risk.wave);
    case 'damaged-declaration':
      return say.damagedDeclaration(stateDir, risk.wave, risk.problems.join('; '));
  }
}

export async function runSync(args: string[], io: CliIo): Promise<number> {
  const commandLine = parseCommandLine(
    'sync',
    args,
    { remote: { type: 'string' }, wave: { type: 'string' }, clone: { type: 'string' }, 'state-dir': { type: 'string' }, json: { type: 'boolean', default: false } },
    { io, usage: say.syncUsage, badArgumentsExit: 1 },
  );
  if ('exitCode' in commandLine) return commandLine.exitCode;
  const { values } = commandLine;
  let remote: string;
  let wave: number | undefined;
  try {
    remote = remoteOf(values.remote);
    if (values.wave !== undefined) wave = parseWave(values.wave);
    if (values.clone !== undefined && !isCloneId(values.clone)) throw new UsageProblem(say.badCloneId(values.clone));
  } catch (error) {
    reportBadArguments(io, 'sync', (error as Error).message);
    return 1;
  }
  // The remote's plan is fetched while the checkout is located.
  const fetching = startPlanFetch(io.cwd, remote, { traced: true });
  try {
    return await syncFetching(values, io, remote, wave, fetching);
  } finally {
    fetching.cancel();
  }
}

/** sync, while the remote's plan is being fetched (`fetching`); a return before the end cancels that fetch. */
async function syncFetching(
  values: { 'state-dir'?: string; clone?: string; json: boolean },
  io: CliIo,
  remote: string,
  wave: number | undefined,
  fetching: BackgroundFetch,
): Promise<number> {
  const repository = locateSyncRepository(io.cwd);
  if (repository === undefined) {
    reportError(io, say.notInGit('sync'));
    return 2;
  }
  if (refuseUnknownRemote(repository, remote, io)) return 1;
  const ownIds = processLocalSessionIds({ env: io.env });
  const selecting = { wave, clone: values.clone };
  const clone = claimingIdentity(repository, io);
  if (clone === undefined) return 2;
  // The pool that fsyncs the files a sync writes, started while git fetches (see src/node/threadPool.ts).
  startThreadPool(SYNC_WRITE_THREADS);
  // The temporary files of the sync's own state and of the plan-tree cache, made while git fetches.
  const reserve = new TemporaryFileReserve();
  // Written when the sync ends.
  const cache = planTreeCache(repository.gitDir, { deferred: true, reserve });
  const target = chooseStateDir(values['state-dir'], io, repository, ownIds);
  let spares: SpareFiles | undefined;
  let early: StateDirReading | undefined;
  let sweep: LeftoverSweep | undefined;
  try {
    let ahead: FetchedAhead;
    let store: GitPlanRefStore;
    try {
      store = planStoreOf(repository, remote, cache);
      const fetched = store.fetchAhead(fetching);
      // The state directory is read while git fetches (the reading every check decides on).
      early = readStateDirWhileFetching(repository, target, ownIds);
      spares = makeSparesWhileFetching(target, early, cache);
      reserveSyncStateWrites(repository.gitDir, reserve);
      // What killed syncs left behind (src/node/leftoverTemporaryFiles.ts), when a sweep is due: looked for
      // and removed while git still fetches if this thread gets a turn before the fetch ends, the rest as
      // the sync ends.
      if (areLeftoversDue(repository.gitDir, Date.now(), LEFTOVER_SWEEP_INTERVAL_MS)) {
        sweep = sweepLeftoversWhile(leftoverPlaces(repository, target), () => !fetching.finished());
      }
      ahead = await fetched;
    } catch (error) {
      if (!(error instanceof PlanRefError)) throw error;
      reportError(io, say.gitFailed(error.message));
      return 2;
    }
    /**
     * One sync of the fetched commit `tip`. With `confirm` (the commit was read ahead of the fetch's end),
     * nothing is written before it has said the fetch ended with exactly that commit, and FetchMoved is
     * thrown when it did not; the caller holds back what this prints until then.
     */
    const syncFetched = async (tip: string | null, confirm: (() => Promise<boolean>) | undefined, output: CliIo, spareFiles: SpareFiles | undefined): Promise<number> => {
      const confirmed = async () => {
        if (confirm !== undefined && !(await confirm())) throw new FetchMoved();
      };
      const now = Date.now();
      let plan;
      try {
        // Only the waves this sync may bring in are decoded; the tree as a whole is checked all the same.
        const ownClone = clone.id;
        plan = decodePlan(tip === null ? new Map() : store.readFiles(tip), { wanted: (key, claims) => isSyncCandidate(key, claims, selecting, ownClone, now) });
      } catch (error) {
        if (!(error instanceof PlanRefError)) throw error;
        await confirmed();
        reportError(output, say.gitFailed(error.message));
        return 2;
      }
      // The fetch is recorded with the sync state's next write (the in-progress marker, when the sync goes on
      // to write), or on its own when the sync ends: on the way to writing, one write of the state file fewer.
      const state = stateUpdates(repository.gitDir, reserve, (state) => ({ ...state, fetched: { ...state.fetched, [remote]: { at: new Date(now).toISOString(), commit: tip } } }));
      let settled = false;
      try {
        const code = await syncDecoded({ values, io: output, remote, wave, selecting, repository, ownIds, clone, plan, tip, now, target, spares: spareFiles, early }, state.update, confirmed);
        await confirmed();
        settled = true;
        return code;
      } finally {
        // Not when the fetch is still unknown (FetchMoved, or a failure before the fetch was confirmed).
        if (settled || confirm === undefined) state.flush();
      }
    };
    // Read ahead (fetchAhead): the fetched commit is decoded and judged, its files staged, while git still
    // checks it and moves the ref; nothing is written or printed until the fetch has ended with exactly that
    // commit. When it did not, the sync starts again from what the fetch left, as if nothing had been read.
    if (ahead.confirm === undefined) return await syncFetched(ahead.tip, undefined, io, spares);
    const held = heldOutput(io);
    try {
      const code = await syncFetched(ahead.tip, ahead.confirm, held.io, spares);
      held.release();
      return code;
    } catch (error) {
      if (!(error instanceof FetchMoved)) throw error;
    }
    let tip: string | null;
    try {
      tip = await store.fetchStarted(fetching);
    } catch (error) {
      if (!(error instanceof PlanRefError)) throw error;
      reportError(io, say.gitFailed(error.message));
      return 2;
    }
    return await syncFetched(tip, undefined, io, undefined);
  } finally {
    spares?.discard();
    cache.writePending();
    reserve.discard();
    // Once the outcome is settled (nothing a sweep does changes it): what the fetch left no time for, its
    // removals bounded; recorded when it left nothing behind, so that the next syncs within the hour skip it.
    if (sweep?.finish(LEFTOVER_REMOVAL_BUDGET_MS) === true) markLeftoversSwept(repository.gitDir);
  }
}

/** The fetch did not end with the commit a sync read ahead of its end (fetchAhead): the sync starts again. */
class FetchMoved extends Error {}

/** `io` whose output is held back until `release` (and dropped if it never comes). */
function heldOutput(io: CliIo): { io: CliIo; release: () => void } {
  const held: Array<() => void> = [];
  return {
    io: { ...io, writeStdout: (text) => void held.push(() => io.writeStdout(text)), writeStderr: (text) => void held.push(() => io.writeStderr(text)) },
    release() {
      for (const write of held.splice(0)) write();
    },
  };
}

/**
 * Where a sync looks for the temporary files killed syncs left (src/node/leftoverTemporaryFiles.ts): the state
 * directory it writes, then its own files in the git directory.
 */
function leftoverPlaces(repository: SyncRepository, target: SyncTarget): LeftoverPlace[] {
  const stateDir = 'stateDir' in target ? [stateDirLeftovers(target.confinement, target.stateDir)] : [];
  return [...stateDir, cloneStateLeftovers(repository.gitDir)];
}

/** The state directory read before the wave coming in is known (readStateDir); undefined when it is read later. */
function readStateDirWhileFetching(repository: SyncRepository, target: SyncTarget, ownIds: ReadonlySet<string>): StateDirReading | undefined {
  if (!('stateDir' in target)) return undefined;
  try {
    return readStateDir(target.stateDir, undefined, ownIds, nodeDeclarationFs(target.confinement), { ignoreCase: repository.ignoreCase });
  } catch {
    // Read again, and reported, where the sync decides on it.
    return undefined;
  }
}

/**
 * Whether the state directory a sync chose while git fetched (`chosen`, without --state-dir) is no longer the
 * one a plan written here goes to: another writer put a plan into an earlier one meanwhile, which the hooks
 * would read instead. Asked holding the plan-write lock; what it now is (or why there is none), else undefined.
 */
function stateDirMovedTo(named: string | undefined, repository: SyncRepository, ownIds: ReadonlySet<string>, chosen: string): { to: string } | { problem: string } | undefined {
  if (named !== undefined && named !== '') return undefined;
  const now = resolveWriteStateDir(repository.root, ownIds, { readText: readTextIfExists });
  if ('problem' in now) return now;
  return now.stateDir === chosen ? undefined : { to: now.stateDir };
}

/** Where a sync writes: the state directory, and the root its writes are confined to; or why there is none. */
type SyncTarget = { stateDir: string; confinement: string } | { problem: string };

/** The state directory a sync writes into: --state-dir, or the one a plan written here would go to. */
function chooseStateDir(named: string | undefined, io: CliIo, repository: SyncRepository, ownIds: ReadonlySet<string>): SyncTarget {
  const main = named !== undefined && named !== '' ? undefined : governingCheckoutElsewhere(repository.root, nodeLocateFileSystem);
  if (main !== undefined) return { problem: declarationMessages.planInLinkedWorktree(repository.root, main) };
  const chosen = named !== undefined && named !== '' ? { stateDir: resolve(io.cwd, named) } : resolveWriteStateDir(repository.root, ownIds, { readText: readTextIfExists });
  return 'problem' in chosen ? chosen : { stateDir: chosen.stateDir, confinement: writeConfinement(repository.root, chosen.stateDir) };
}

/**
 * Into a state directory without a manifest, a sync that brings anything in writes a whole wave, and
 * creating its files is the part of the write that costs the most when the disk is slow. So, while git
 * fetches, as many empty files as the largest wave of the plan this clone saw last are made in its
 * filescopes/ (makeSpareFiles), for staging to fill. Nothing is made ahead into a state directory that
 * holds a manifest: a sync there mostly finds its plan unchanged, and writes few files when it is not.
 */
function makeSparesWhileFetching(target: SyncTarget, found: StateDirReading | undefined, cache: DeferredPlanTreeCache): SpareFiles | undefined {
  if (!('stateDir' in target) || found === undefined || found.current.found) return undefined;
  const count = largestWaveWrite(cache.latest?.()?.keys() ?? []);
  if (count === 0) return undefined;
  return makeSpareFiles(target.confinement, filescopesPath(target.stateDir), count);
}

/** Changes of the sync state that take `pending` along with the first of them, or on their own on `flush`. */
function stateUpdates(gitDir: string, reserve: TemporaryFileReserve, pending: StateChange): { update: (change: StateChange) => void; flush: () => void } {
  let carried: StateChange | undefined = pending;
  const update = (change: StateChange) => {
    const before = carried;
    carried = undefined;
    updateLocalSyncState(gitDir, (state) => change(before === undefined ? state : before(state)), { reserve });
  };
  return {
    update,
    flush() {
      if (carried !== undefined) update((state) => state);
    },
  };
}

type StateChange = (state: LocalSyncState) => LocalSyncState;

/** sync once the remote's plan is fetched and decoded: select the wave, check, write. */
async function syncDecoded(
  context: {
    values: { 'state-dir'?: string; clone?: string; json: boolean };
    io: CliIo;
    remote: string;
    wave: number | undefined;
    selecting: SyncSelection;
    repository: SyncRepository;
    ownIds: ReadonlySet<string>;
    clone: { id: string };
    plan: DecodedPlan;
    tip: string | null;
    now: number;
    /** chooseStateDir's answer. */
    target: SyncTarget;
    spares: SpareFiles | undefined;
    /** The state directory as read while git fetched, if it was. */
    early: StateDirReading | undefined;
  },
  updateState: (change: StateChange) => void,
  /** Settles once nothing stands in the way of writing (the fetch read ahead has ended with the commit read); may throw FetchMoved. */
  beforeFirstWrite: () => Promise<void>,
): Promise<number> {
  const { values, io, remote, wave, selecting, repository, ownIds, clone, plan, tip, now, target, spares, early } = context;
  if (plan.problems.length > 0) {
    reportError(io, say.corruptPlanRef(remote, plan.problems.join('; ')));
    return 1;
  }
  const selection = selectWaveToSync(plan, selecting, clone.id, now);
  if (!selection.ok) {
    switch (selection.reason) {
      case 'own-clone':
        reportError(io, say.ownCloneSync);
        break;
      case 'none':
        reportError(io, wave === undefined && values.clone === undefined ? say.nothingToSync(remote) : say.nothingMatches(remote));
        if (selection.ownClaims.length > 0) reportNote(io, say.onlyOwnClaims(selection.ownClaims.map((claim) => `wave ${claim.wave}`).join(', ')));
        break;
      case 'ambiguous':
        reportError(io, say.ambiguousSync(selection.candidates.length));
        for (const candidate of selection.candidates) {
          const claim = candidate.claim === null ? say.syncedUnclaimed : say.syncedClaim(clockTime(candidate.claim.expiresAt, now));
          reportNote(io, say.syncCandidate(candidate.wave, candidate.cloneName, candidate.clone, claim));
        }
        break;
      case 'unusable':
        reportError(io, say.unusablePublishedWave(selection.wave, selection.clone, selection.problems.join('; ')));
        break;
    }
    return 1;
  }
  const incoming = selection.wave;

  if ('problem' in target) {
    reportError(io, say.syncStopped('state-dir', target.problem));
    return 1;
  }
  const { stateDir, confinement } = target;
  const fs = nodeDeclarationFs(confinement);
  // Every check before the first write decides on one reading of the state directory.
  const found = early ?? readStateDir(stateDir, incoming.wave, ownIds, fs, { ignoreCase: repository.ignoreCase });
  const key = stateDirKey(repository.root, stateDir);
  const shownDir = shownPath(io.cwd, stateDir);
  const digests = incomingDigests(incoming);
  // What the file system holds where the plan's files go, decided on before anything else: the texts read
  // above were read through whatever stands there. A link planted where the chain writes, or anything but a
  // directory or a regular file, is refused before anything is written or staged (the chain refuses it
  // too, but only when it reaches it, after its first writes), and never passes for the plan already there.
  const onDisk = inspectWritePaths(confinement, syncedWavePaths(found, incoming));
  if (onDisk.unsafe !== undefined) {
    reportError(io, say.plantedInStateDir(shownPath(io.cwd, onDisk.unsafe.path), onDisk.unsafe.reason));
    return 1;
  }
  // The common case for a follower that syncs often: nothing to write (and nothing to lose). Only as files
  // of its own: a file hard-linked elsewhere is rewritten through the chain, as a sync that writes does.
  if (!onDisk.shared && isAlreadySynced(found, digests)) {
    if (values.json) printLine(io, JSON.stringify({ remote, commit: tip, clone: incoming.clone, wave: incoming.wave, claim: incoming.claim, ok: true, unchanged: true }, null, 2));
    else printLine(io, say.alreadySynced(incoming.wave, incoming.info?.cloneName ?? incoming.clone, incoming.clone, shownDir));
    return 0;
  }

  // The files the chain will write (the declaration's and the manifest) are made durable together ahead of
  // it (src/node/stagedWrites.ts): those the incoming plan changes are staged, and renamed into place in the
  // chain's own order; those it leaves as they are here are not rewritten. Staging only adds temporary
  // files (beside their targets, or the spares made in filescopes/ while git fetched) and the directories
  // they need, which every reader ignores, which are removed when the sync stops short (a killed one
  // leaves the files, for a later sync to remove once they are an hour old), and which the checks never
  // see: they decide on what readStateDir read before. So it starts now, and its fsyncs run on libuv's pool
  // while this thread makes the checks, runs the chain up to its first write (prepareSyncedWave: validation,
  // the proof, the manifest computed) and writes the marker.
  const staging = stageWrites(fs, confinement, syncedWaveFiles(stateDir, incoming, found.current.manifest, repository.ignoreCase), spares);
  let staged: StagedDeclarationFs | undefined;
  let result;
  const started = new Date(now).toISOString();
  // Set once this sync has marked the state directory: the marker it replaced there, if any.
  let marked: { replaced: SyncInProgress | undefined } | undefined;
  let planLock: PlanWriteLock | undefined;
  try {
    // The checkout's plan-write lock, held from here to the last write (commitSyncedWave's second reading of
    // the state directory included), so no other writer's write falls between; taken while the staged files'
    // fsyncs run on the pool.
    planLock = planWriteLockAt(repository.root)();
    const movedTo = planLock.held ? stateDirMovedTo(values['state-dir'], repository, ownIds, stateDir) : undefined;
    if (!planLock.held) result = syncStoppedBeforeWriting(stateDir, planLock.problem);
    else if (movedTo !== undefined) result = syncStoppedBeforeWriting(stateDir, say.stateDirMoved(shownDir, 'problem' in movedTo ? movedTo.problem : shownPath(io.cwd, movedTo.to)));
    else {
      const risk = findLocalPlanRisk({ repoRoot: repository.root, found, incoming: digests, state: readLocalSyncState(repository.gitDir) });
      if (risk !== undefined) {
        reportError(io, describeRisk(risk, shownDir));
        return 1;
      }
      const prepared = prepareSyncedWave({ repoRoot: repository.root, stateDir, wave: incoming, ignoreCase: repository.ignoreCase }, fs);
      if (!prepared.ok) result = prepared;
      else {
        // Marked before the first write, so a sync killed half-way may be finished by the next one into this
        // state directory. The marker replaces only this directory's (a killed sync's, which this sync finishes).
        const previous = currentDigests(found, incoming.wave);
        await beforeFirstWrite();
        updateState((state) => {
          marked = { replaced: syncInProgressIn(state, key) };
          return markSyncInProgress(state, { stateDir: key, wave: incoming.wave, clone: incoming.clone, planDigest: digests.planDigest, ...previous, at: started });
        });
        staged = await staging;
        // Written only over what the checks above decided on: a plan written here since then stops the sync.
        result = commitSyncedWave(prepared.prepared, staged, found);
      }
    }
  } finally {
    if (planLock?.held === true) planLock.release();
    (staged ?? (await staging)).discard();
  }
  if (!result.ok) {
    // Stopped before its first write: nothing of it is on disk, so nothing of it is left to finish. What a
    // killed sync left there still is, so that sync's marker, which this one replaced, is put back.
    if (marked !== undefined && result.written.length === 0 && result.removed.length === 0) {
      const { replaced } = marked;
      updateState((state) => (replaced === undefined ? clearSyncInProgress(state, key) : markSyncInProgress(state, replaced)));
    }
    reportError(io, say.syncStopped(result.step, result.message));
    if (result.errors.length > 1 || result.errors[0] !== result.message) for (const detail of result.errors) reportNote(io, say.syncDetail(detail));
    if (values.json) printLine(io, JSON.stringify({ remote, commit: tip, clone: incoming.clone, wave: incoming.wave, ...result }, null, 2));
    return stoppedOnInput(result) ? 1 : 2;
  }
  // Done: the plan is known (it is on the ref), and nothing is left to finish in this state directory.
  const synced: KnownPlan = {
    source: 'synced',
    stateDir: key,
    wave: incoming.wave,
    clone: incoming.clone,
    planDigest: planDigest(result.manifest, result.records),
    declarationDigest: declarationDigest(incoming.wave, result.records),
    commit: tip ?? '',
    at: started,
  };
  updateState((state) => clearSyncInProgress(rememberPlan(state, synced), key));
  if (result.allowedPathsDiffer === true) reportWarning(io, say.allowedPathsDiffer);
  // Whoever can push publishes the enforcement too: a plan that switches the hooks off says so here.
  if (result.manifest.enforcement !== 'strict') reportWarning(io, say.syncedEnforcement(result.manifest.enforcement));
  if (values.json) {
    printLine(io, JSON.stringify({ remote, commit: tip, clone: incoming.clone, wave: incoming.wave, claim: incoming.claim, ...result }, null, 2));
  } else {
    const claim = incoming.claim === null ? say.syncedUnclaimed : say.syncedClaim(clockTime(incoming.claim.expiresAt, now));
    const cloneName = incoming.info?.cloneName ?? incoming.clone;
    printLine(io, say.synced(incoming.wave, cloneName, incoming.clone, shownDir, result.records.length, result.manifest.allowedPaths.length, claim));
  }
  return 0;
}
