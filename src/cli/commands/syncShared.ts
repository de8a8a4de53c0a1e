// What publish, sync, release, verify and plan show share: finding the checkout, naming times the way
// people read them ("since 10:42"), and the claims view `plan show` prints.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { readClaimsView } from '../../node/claimsReader';
import { CloneIdentityError, readOrCreateCloneIdentity } from '../../node/cloneState';
import type { SyncRepository } from '../../node/cloneState';
import type { CloneIdentity } from '../../planner/sync/claims';
import { DEFAULT_REMOTE, isRemoteName } from '../../planner/sync/planRef';
import type { ClaimsView } from '../../planner/sync/claimsView';
import type { ClaimConflict } from '../../planner/sync/claimConflicts';
import { reportError, reportNote } from '../cliIo';
import type { CliIo } from '../cliIo';
import { claimsMessages, syncMessages } from '../messages';

/** `--remote`'s value, checked; throws a sentence for a bad one. */
export function remoteOf(value: string | undefined): string {
  const remote = value ?? DEFAULT_REMOTE;
  if (!isRemoteName(remote)) throw new Error(syncMessages.badRemote(remote));
  return remote;
}

/**
 * This clone's identity, for a command that publishes, syncs or releases as it (readOrCreateCloneIdentity),
 * with a note when it was changed (a moved checkout keeps its id; a copy gets its own); undefined, reported,
 * when clone.json is damaged.
 */
export function claimingIdentity(repository: SyncRepository, io: CliIo): CloneIdentity | undefined {
  let identity;
  try {
    identity = readOrCreateCloneIdentity(repository);
  } catch (error) {
    if (!(error instanceof CloneIdentityError)) throw error;
    reportError(io, error.message);
    return undefined;
  }
  const { changed, ...clone } = identity;
  if (changed?.why === 'moved') reportNote(io, syncMessages.identityMoved(clone.id, changed.found.name, clone.name));
  if (changed?.why === 'copied') reportNote(io, syncMessages.identityCopied(changed.found.id, changed.found.name, clone.id));
  return clone;
}

/**
 * Whether `remote` names a remote this checkout configures (true when its config could not be read: git
 * then reports the problem itself). A name that is not one would be taken by git for a path or a URL,
 * relative to each command's directory, so two of a command's git processes could reach two repositories.
 */
function isConfiguredRemote(repository: SyncRepository, remote: string): boolean {
  if (repository.remotes === undefined || repository.remotes.includes(remote)) return true;
  // The two older ways git still reads a remote from: a file named after it (remoteOf checked the name).
  return ['remotes', 'branches'].some((directory) => existsSync(join(repository.commonDir, directory, remote)));
}

/** Reports, and answers true, when `remote` is not a remote this checkout configures (isConfiguredRemote). */
export function refuseUnknownRemote(repository: SyncRepository, remote: string, io: CliIo): boolean {
  if (isConfiguredRemote(repository, remote)) return false;
  reportError(io, syncMessages.unknownRemote(remote));
  return true;
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

/** The claims `plan show` adds to the plan view (src/node/claimsReader.ts). */
export const claimsForPlanShow = readClaimsView;

/** The lines `plan show` prints for the claims view (text mode). */
export function formatClaimsView(claims: ClaimsView, now: number): string[] {
  // A clone that never fetched a plan ref does not sync: plan show stays as it always was.
  if (claims.remote === null) return claims.problem === null ? [] : [claimsMessages.problem(claims.problem)];
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
  return lines;
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
