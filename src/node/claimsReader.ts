// Other clones' claims as a ClaimsView (src/planner/sync/claimsView.ts), read from this clone's copy of the
// plan ref: for `plan show` and for the extension host, which passes the result and the planner's draft to
// findConflictsWithClaims before it saves a wave.
import type { PlanView } from '../planner/plan/planReader';
import { buildClaimsView } from '../planner/sync/claimsView';
import type { ClaimsView } from '../planner/sync/claimsView';
import { declarationDigest } from '../planner/sync/localState';
import { decodePlan, DEFAULT_REMOTE, trackingRefOf } from '../planner/sync/planRef';
import { locateSyncRepository, planStoreOf, readCloneIdentity, readLocalSyncState } from './cloneState';
import { readTrackingRef, remotesWithPlanCopies } from './planRefGit';

/**
 * Other clones' claims for a plan view (what `plan show` adds, and what the planner's host reads before
 * a save): read from this clone's copy of the plan ref, never the network, and checked against the waves
 * of `view` (a wave synced from a claim is not compared with that claim). Never throws: a failure becomes
 * the view's `problem`.
 */
export function readClaimsView(cwd: string, view: PlanView, options: { ignoreCase: boolean; files: readonly string[]; now: number }): ClaimsView {
  const empty = (problem: string | null, clone: ClaimsView['clone'] = null): ClaimsView =>
    buildClaimsView({ plan: null, remote: null, trackingRef: null, commit: null, fetchedAt: null, clone, problem, now: options.now, localWaves: [] });
  try {
    const repository = locateSyncRepository(cwd);
    if (repository === undefined) return empty(null);
    const clone = readCloneIdentity(repository.gitDir) ?? null;
    const state = readLocalSyncState(repository.gitDir);
    // The remote fetched most recently, else origin, else any remote this clone holds a copy for.
    const byTime = Object.entries(state.fetched).sort(([, a], [, b]) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0));
    let remote = byTime[0]?.[0];
    if (remote === undefined) {
      const copies = remotesWithPlanCopies(repository.root);
      remote = copies.includes(DEFAULT_REMOTE) ? DEFAULT_REMOTE : copies[0];
    }
    if (remote === undefined) return empty(null, clone);
    const commit = readTrackingRef(repository.root, remote, repository.commonDir);
    const plan = commit === null ? null : decodePlan(planStoreOf(repository, remote).readFiles(commit));
    const activeRole = view.manifest.role;
    const localWaves = view.waves
      .filter((wave) => wave.agents.length > 0)
      .map((wave) => {
        const records = wave.agents.map((agent) => ({ id: agent.id, files: agent.entries.map((entry) => entry.entry) }));
        const digest = declarationDigest(wave.wave, records);
        const synced = state.known.find((plan) => plan.source === 'synced' && plan.stateDir === view.stateDir && plan.wave === wave.wave && plan.declarationDigest === digest);
        return {
          wave: wave.wave,
          // Test siblings follow the role, which only the manifest names (and only for its own wave).
          role: wave.active && activeRole !== null ? activeRole : '',
          records,
          ...(synced !== undefined ? { syncedFrom: { clone: synced.clone, wave: synced.wave } } : {}),
        };
      });
    return buildClaimsView({
      plan,
      remote,
      trackingRef: trackingRefOf(remote),
      commit,
      fetchedAt: state.fetched[remote]?.at ?? null,
      clone,
      problem: null,
      now: options.now,
      localWaves,
      ignoreCase: options.ignoreCase,
      knownFiles: options.files,
    });
  } catch (error) {
    return empty((error as Error).message);
  }
}
