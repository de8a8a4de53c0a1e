// What publish, sync, release, verify and plan show share: finding the checkout, naming times the way
// people read them ("since 10:42"), and the claims view `plan show` prints.
import { planStoreOf, readCloneIdentity, readLocalSyncState } from '../../node/cloneState';
import { readTrackingRef, remotesWithPlanCopies } from '../../node/planRefGit';
import type { PlanView } from '../../planner/plan/planReader';
import { isRemoteName, trackingRefOf, decodePlan } from '../../planner/sync/planRef';
import { buildClaimsView } from '../../planner/sync/claimsView';
import { declarationDigest } from '../../planner/sync/localState';
import type { ClaimsView } from '../../planner/sync/claimsView';
import type { ClaimConflict } from '../../planner/sync/claimConflicts';
import { claimsMessages, syncMessages } from '../messages';
import { locateSyncRepository } from '../../node/cloneState';

/** The default remote of every sync command. */
export const DEFAULT_REMOTE = 'origin';

/** `--remote`'s value, checked; throws a sentence for a bad one. */
export function remoteOf(value: string | undefined): string {
  const remote = value ?? DEFAULT_REMOTE;
  if (!isRemoteName(remote)) throw new Error(syncMessages.badRemote(remote));
  return remote;
}

const pad = (value: number) => String(value).padStart(2, '0');

/** A time as a person reads it next to "since"/"until": `10:42` today, `2026-12-01 10:42` another day (local time). */
export function clockTime(iso: string, now: number): string {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return iso;
  const today = new Date(now);
  const hm = `${pad(at.getHours())}:${pad(at.getMinutes())}`;
  const sameDay = at.getFullYear() === today.getFullYear() && at.getMonth() === today.getMonth() && at.getDate() === today.getDate();
  return sameDay ? hm : `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())} ${hm}`;
}

/** "wave 3 claimed by clone X (c-…) since 10:42" for a conflict's other side. */
export function claimedByOf(other: ClaimConflict['other'], now: number): string {
  return syncMessages.claimedBy(other.wave, other.cloneName, other.clone, clockTime(other.claimedAt, now));
}

/**
 * The claims `plan show` adds to the plan view: read from this clone's copy of the plan ref (never the
 * network), checked against the waves on disk. Never throws: a failure becomes the view's `problem`.
 */
export function claimsForPlanShow(cwd: string, view: PlanView, options: { ignoreCase: boolean; files: readonly string[]; now: number }): ClaimsView {
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

/** The lines `plan show` prints for the claims view (text mode). */
export function formatClaimsView(claims: ClaimsView, now: number): string {
  // A clone that never fetched a plan ref does not sync: plan show stays as it always was.
  if (claims.remote === null) return claims.problem === null ? '' : `${claimsMessages.problem(claims.problem)}\n`;
  const lines = [claimsMessages.header(claims.remote, claims.fetchedAt === null ? 'its last fetch' : clockTime(claims.fetchedAt, now))];
  if (claims.problem !== null) lines.push(claimsMessages.problem(claims.problem));
  const others = claims.claims.filter((claim) => !claim.ownClone);
  for (const claim of claims.claims) {
    const claimedBy = syncMessages.claimedBy(claim.wave, claim.cloneName, claim.clone, clockTime(claim.claimedAt, now));
    if (claim.ownClone) lines.push(claimsMessages.ownClaim(claim.wave, clockTime(claim.claimedAt, now), clockTime(claim.expiresAt, now)));
    else if (claim.problems.length > 0) lines.push(claimsMessages.unreadable(claimedBy, claim.problems.join('; ')));
    else lines.push(claimsMessages.claim(claimedBy, clockTime(claim.expiresAt, now), claim.agents.length));
  }
  if (others.length === 0) lines.push(claimsMessages.none);
  for (const { conflict, more } of groupConflicts(claims.conflicts)) {
    lines.push(
      claimsMessages.conflict(conflict.localWave, conflict.agent, conflict.entry, claimedByOf(conflict.other, now), conflict.other.agent, conflict.other.entry, conflict.witness, more),
    );
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Conflicts grouped by pair of agents, for text output: one line per pair, showing a declared entry
 * rather than a test sibling where there is one, and how many more colliding entry pairs it hides.
 */
export function groupConflicts<T extends ClaimConflict>(conflicts: readonly T[]): Array<{ conflict: T; more: number }> {
  const groups = new Map<string, T[]>();
  for (const conflict of conflicts) {
    const key = JSON.stringify([(conflict as { localWave?: number }).localWave ?? 0, conflict.agent, conflict.other.clone, conflict.other.wave, conflict.other.agent]);
    groups.set(key, [...(groups.get(key) ?? []), conflict]);
  }
  return [...groups.values()].map((group) => {
    const conflict = group.find((candidate) => !candidate.testSibling && !candidate.other.testSibling) ?? (group[0] as T);
    return { conflict, more: group.length - 1 };
  });
}
