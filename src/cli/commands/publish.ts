// `wave-scope publish`: this checkout's active plan onto the remote's refs/wave-scope/plan, with a claim.
// Contract (flags, output, exit codes): docs/cli.md § publish; the model: docs/sync.md.
import { resolve } from 'node:path';
import { planStoreOf, readLocalSyncState, updateLocalSyncState } from '../../node/cloneState';
import { locateSyncRepository } from '../../node/cloneState';
import type { SyncRepository } from '../../node/cloneState';
import { nodePlanReadingFs } from '../../node/declarationFs';
import { listRepositoryFiles } from '../../node/git';
import { startPlanFetch } from '../../node/planRefGit';
import type { BackgroundFetch, GitPlanRefStore } from '../../node/planRefGit';
import { readWaveDeclaration } from '../../planner/plan/declarationStore';
import { processLocalSessionIds } from '../../planner/plan/sessionBinding';
import { inspectStateDir, resolveStateDir } from '../../planner/plan/stateDir';
import { union } from '../../planner/scope/scopeUnion';
import { expandTestSiblings } from '../../planner/scope/testSiblings';
import { DEFAULT_CLAIM_TTL_MS, isClaimBeyondAnyTtl, parseClaimTtl } from '../../planner/sync/claims';
import { declarationDigest, planDigest, rememberPlan } from '../../planner/sync/localState';
import { PlanRefError, publishWave } from '../../planner/sync/publish';
import type { PublishResult } from '../../planner/sync/publish';
import { stateDirKey } from '../../planner/sync/syncPlan';
import { printLine, reportError, reportNote } from '../cliIo';
import type { CliIo } from '../cliIo';
import { parseCommandLine, reportBadArguments } from '../commandLine';
import { shownPath, writeConfinement } from '../commandRepository';
import { syncMessages as say } from '../messages';
import { claimedByOf, claimingIdentity, clockTime, groupConflicts, refuseUnknownRemote, remoteOf } from './syncShared';

export async function runPublish(args: string[], io: CliIo): Promise<number> {
  const commandLine = parseCommandLine(
    'publish',
    args,
    { remote: { type: 'string' }, 'state-dir': { type: 'string' }, ttl: { type: 'string' }, json: { type: 'boolean', default: false } },
    { io, usage: say.publishUsage, badArgumentsExit: 1 },
  );
  if ('exitCode' in commandLine) return commandLine.exitCode;
  const { values } = commandLine;
  let remote: string;
  let ttlMs = DEFAULT_CLAIM_TTL_MS;
  try {
    remote = remoteOf(values.remote);
    if (values.ttl !== undefined) {
      const parsed = parseClaimTtl(values.ttl);
      if (parsed === undefined) throw new Error(say.badTtl(values.ttl));
      ttlMs = parsed;
    }
  } catch (error) {
    reportBadArguments(io, 'publish', (error as Error).message);
    return 1;
  }
  // The remote's plan is fetched while the checkout is located and the local plan read and checked.
  const fetching = startPlanFetch(io.cwd, remote);
  try {
    return await publishFetching(values, io, remote, ttlMs, fetching);
  } finally {
    fetching.cancel();
  }
}

/** publish, while the remote's plan is being fetched (`fetching`); a return before the end cancels that fetch. */
async function publishFetching(values: { 'state-dir'?: string; json: boolean }, io: CliIo, remote: string, ttlMs: number, fetching: BackgroundFetch): Promise<number> {
  const repository = locateSyncRepository(io.cwd);
  if (repository === undefined) {
    reportError(io, say.notInGit('publish'));
    return 2;
  }
  if (refuseUnknownRemote(repository, remote, io)) return 1;
  const store = planStoreOf(repository, remote);
  // The git process that will store the new plan commit starts now, while the fetch runs and the local
  // plan is checked; a publish that stops before writing ends it.
  store.prepareWrite();
  try {
    return await publishLocated(values, io, remote, ttlMs, fetching, repository, store);
  } finally {
    store.dispose();
  }
}

/** publish in the located checkout, with the store whose object writer is already starting. */
async function publishLocated(
  values: { 'state-dir'?: string; json: boolean },
  io: CliIo,
  remote: string,
  ttlMs: number,
  fetching: BackgroundFetch,
  repository: SyncRepository,
  store: GitPlanRefStore,
): Promise<number> {
  const ownIds = processLocalSessionIds({ env: io.env });
  const explicit = values['state-dir'] === undefined || values['state-dir'] === '' ? undefined : resolve(io.cwd, values['state-dir']);
  // Read as the hooks read it (nodePlanReadingFs): what another clone will enforce is never text reached
  // through a link or a second name an agent could write.
  const fs = nodePlanReadingFs(writeConfinement(repository.root, explicit ?? repository.root));
  const local = explicit === undefined ? resolveStateDir(repository.root, ownIds, fs) : inspectStateDir(explicit, ownIds, fs);
  const manifestShown = shownPath(io.cwd, local.manifestPath);
  if (!local.found) {
    reportError(io, say.noPlanToPublish(manifestShown));
    return 1;
  }
  if (local.manifest === undefined) {
    reportError(io, say.unusablePlan(local.problem?.message ?? manifestShown));
    return 1;
  }
  if (local.session === 'foreign') {
    reportError(io, say.foreignPlan(manifestShown));
    return 1;
  }
  const manifest = local.manifest;
  const declaration = readWaveDeclaration(local.stateDir, manifest.wave, fs, { ignoreCase: repository.ignoreCase });
  if (declaration.status !== 'complete' || declaration.records === undefined) {
    reportError(io, say.unusablePlan(say.incompleteDeclaration(manifest.wave, declaration.problems.join('; '))));
    return 1;
  }
  const records = declaration.records;
  // The published manifest must be the one the chain computes from this declaration: another clone
  // will enforce exactly what is proven here, nothing a hand edit added.
  let computed: string[] | undefined;
  try {
    computed = expandTestSiblings(union(records), { role: manifest.role });
  } catch {
    computed = undefined;
  }
  if (computed === undefined || JSON.stringify(computed) !== JSON.stringify(manifest.allowedPaths)) {
    reportError(io, say.unusablePlan(say.handEditedManifest(manifestShown)));
    return 1;
  }
  const key = stateDirKey(repository.root, local.stateDir);
  const digest = planDigest(manifest, records);
  const synced = readLocalSyncState(repository.gitDir).known.find((plan) => plan.source === 'synced' && plan.stateDir === key && plan.planDigest === digest);
  if (synced !== undefined) {
    reportError(io, say.unusablePlan(say.syncedPlan(synced.wave, synced.clone)));
    return 1;
  }

  const clone = claimingIdentity(repository, io);
  if (clone === undefined) return 2;
  let result: PublishResult;
  try {
    const tip = await store.fetchStarted(fetching);
    result = await publishWave(
      {
        clone,
        manifest,
        records,
        session: manifest.session_id ?? [...ownIds][0] ?? null,
        ignoreCase: repository.ignoreCase,
        head: repository.head,
        now: () => Date.now(),
        ttlMs,
        knownFiles: () => listRepositoryFiles(repository.root, { includeUntracked: true }),
        fetchedTip: tip,
      },
      store,
    );
  } catch (error) {
    if (!(error instanceof PlanRefError)) throw error;
    reportError(io, say.gitFailed(error.message));
    return 2;
  }
  const now = Date.now();
  if (values.json) printLine(io, JSON.stringify({ remote, ...result }, null, 2));
  if (!result.ok) {
    // What the refused publish fetched is what `plan show` then lists.
    if ('planCommit' in result) {
      const fetched = { at: new Date(now).toISOString(), commit: result.planCommit };
      updateLocalSyncState(repository.gitDir, (state) => ({ ...state, fetched: { ...state.fetched, [remote]: fetched } }));
    }
    return reportRefusal(io, result, manifest.wave, remote, now);
  }

  updateLocalSyncState(repository.gitDir, (state) => ({
    ...rememberPlan(state, {
      source: 'published',
      stateDir: key,
      wave: manifest.wave,
      clone: clone.id,
      planDigest: digest,
      declarationDigest: declarationDigest(manifest.wave, records),
      commit: result.commit,
      at: new Date(now).toISOString(),
    }),
    fetched: { ...state.fetched, [remote]: { at: new Date(now).toISOString(), commit: result.commit } },
  }));
  if (result.attempts > 1) reportNote(io, say.lostRaces(result.attempts));
  for (const claim of result.expired) {
    if (isClaimBeyondAnyTtl(claim, now)) reportNote(io, say.droppedBeyondTtl(claim.wave, claim.cloneName, claim.clone, claim.renewedAt, claim.expiresAt));
    else reportNote(io, say.droppedExpired(claim.wave, claim.cloneName, claim.clone, clockTime(claim.expiresAt, now)));
  }
  for (const claim of result.provenAgainst) {
    reportNote(io, say.provenAgainst(say.claimedBy(claim.wave, claim.cloneName, claim.clone, clockTime(claim.claimedAt, now))));
  }
  if (!values.json) printLine(io, say.published(manifest.wave, records.length, remote, result.commit, clockTime(result.claim.expiresAt, now)));
  return 0;
}

function reportRefusal(io: CliIo, result: Extract<PublishResult, { ok: false }>, wave: number, remote: string, now: number): number {
  switch (result.reason) {
    case 'conflict': {
      const groups = groupConflicts(result.conflicts);
      reportError(io, say.publishConflictHeader(wave, groups.length));
      for (const { conflict, more } of groups) {
        reportNote(
          io,
          say.publishConflict({
            agent: conflict.agent,
            entry: conflict.entry,
            testSibling: conflict.testSibling,
            otherAgent: conflict.other.agent,
            otherEntry: conflict.other.entry,
            otherTestSibling: conflict.other.testSibling,
            witness: conflict.witness,
            claimedBy: claimedByOf(conflict.other, now),
            more,
          }),
        );
      }
      if (result.attempts > 1) reportNote(io, say.afterLostRace(result.attempts));
      return 1;
    }
    case 'unreadable-claim':
      for (const { claim, problems } of result.unreadable) {
        reportError(io, say.unreadableClaim(say.claimedBy(claim.wave, claim.cloneName, claim.clone, clockTime(claim.claimedAt, now)), problems.join('; ')));
      }
      return 1;
    case 'corrupt-plan':
      reportError(io, say.corruptPlanRef(remote, result.problems.join('; ')));
      return 1;
    case 'unprovable':
      reportError(io, say.unprovableAgainstClaims(wave, result.message));
      return 1;
    case 'push-refused':
      reportError(io, say.pushRefused(remote, result.message));
      return 2;
    case 'contention':
      reportError(io, say.contention(remote, result.attempts));
      return 2;
  }
}
