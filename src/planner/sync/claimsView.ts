// Other clones' claims as one stable JSON document: the `claims` key of `wave-scope plan show --json`,
// and what the planner reads to refuse saving a wave that overlaps a claim (findConflictsWithClaims).
// It is built from this clone's copy of the plan ref (as of the last publish, sync, release or verify):
// reading it never touches the network.
import { ScopeProofTooComplex } from '../scope/scopeAutomaton';
import { findClaimConflicts } from './claimConflicts';
import type { ClaimConflict, ClaimConflictOptions, WaveScopes } from './claimConflicts';
import { isClaimLive } from './claims';
import type { Claim, CloneIdentity } from './claims';
import { findPublishedWave } from './planRef';
import type { DecodedPlan } from './planRef';

/** Version of the ClaimsView document. */
export const CLAIMS_VIEW_VERSION = 1;

/** One live claim with the scopes of its wave. */
export interface ClaimView extends Claim {
  /** True for this clone's own claim. */
  ownClone: boolean;
  /** The claimed wave's role (selects test siblings); null when its plan cannot be read. */
  role: string | null;
  /**
   * Whether the clone that published the claimed wave folds case (its `published.json`); false when that
   * cannot be read. A proof against the claim then folds case, as publish's does.
   */
  ignoreCase: boolean;
  /** The claimed wave's agents and their declared entries (empty when its plan cannot be read). */
  agents: Array<{ id: string; files: string[] }>;
  /** Why the claimed wave's plan cannot be read (then nothing can be proven disjoint from it). */
  problems: string[];
}

/** A wave on this clone's disk that overlaps another clone's claim. */
export interface LocalConflictView extends ClaimConflict {
  /** The local wave (its number in this clone's state directory). */
  localWave: number;
}

/** `plan show --json` → `claims`. Keys never disappear; absent values are null or []. */
export interface ClaimsView {
  version: typeof CLAIMS_VIEW_VERSION;
  /** The remote whose plan ref was read, or null when none was ever fetched here. */
  remote: string | null;
  /** The local ref holding this clone's copy of it. */
  trackingRef: string | null;
  /** The plan commit read, or null. */
  commit: string | null;
  /** When this clone last fetched it (ISO 8601), or null. */
  fetchedAt: string | null;
  /** This clone, or null outside git. */
  clone: CloneIdentity | null;
  /** Why the claims could not be read (a sentence), or null. */
  problem: string | null;
  /** Live claims at the time of reading, this clone's own included (`ownClone`), oldest first. */
  claims: ClaimView[];
  /** Local waves (on disk) that overlap another clone's live claim. */
  conflicts: LocalConflictView[];
}

/** What the view is built from: the view's own facts about the ref and the clone, the decoded plan, the clock and the local waves. */
export interface ClaimsViewInput extends Pick<ClaimsView, 'remote' | 'trackingRef' | 'commit' | 'fetchedAt' | 'clone' | 'problem'> {
  plan: DecodedPlan | null;
  now: number;
  /**
   * The waves on this clone's disk, to check against other clones' claims. `syncedFrom` names the claim
   * a wave was synced from (it is that claim's own plan, not a rival of it).
   */
  localWaves: ReadonlyArray<{ wave: number; syncedFrom?: { clone: string; wave: number } } & WaveScopes>;
  /** This clone's core.ignorecase; a proof against a claim also folds case where the claim's clone does. */
  ignoreCase?: boolean;
  knownFiles?: ClaimConflictOptions['knownFiles'];
}

/** Builds the view. Never throws on content. */
export function buildClaimsView(input: ClaimsViewInput): ClaimsView {
  const claims: ClaimView[] = [];
  const problems = input.plan?.problems ?? [];
  if (input.plan !== null) {
    for (const claim of input.plan.claims) {
      if (!isClaimLive(claim, input.now)) continue;
      const wave = findPublishedWave(input.plan, claim.clone, claim.wave);
      const usable = wave?.manifest !== undefined && wave.records !== undefined;
      claims.push({
        ...claim,
        ownClone: claim.clone === input.clone?.id,
        role: usable ? (wave.manifest?.role ?? null) : null,
        ignoreCase: wave?.info?.ignoreCase === true,
        agents: usable ? (wave.records ?? []).map((record) => ({ id: record.id, files: [...record.files] })) : [],
        problems: usable ? [] : (wave?.problems ?? [`the plan ref holds no wave ${claim.wave} of clone ${claim.clone}`]),
      });
    }
  }
  claims.sort((a, b) => (a.claimedAt < b.claimedAt ? -1 : a.claimedAt > b.claimedAt ? 1 : 0));
  const view: ClaimsView = {
    version: CLAIMS_VIEW_VERSION,
    remote: input.remote,
    trackingRef: input.trackingRef,
    commit: input.commit,
    fetchedAt: input.fetchedAt,
    clone: input.clone,
    problem: input.problem ?? (problems.length > 0 ? problems.join('; ') : null),
    claims,
    conflicts: [],
  };
  for (const local of input.localWaves) {
    const options = { now: input.now, ignoreCase: input.ignoreCase, knownFiles: input.knownFiles, ...(local.syncedFrom ? { except: local.syncedFrom } : {}) };
    let conflicts: ClaimConflict[];
    try {
      conflicts = findConflictsWithClaims(local, view, options);
    } catch (error) {
      if (!(error instanceof ScopeProofTooComplex)) throw error;
      // Unproven is not disjoint: the view says it could not tell.
      view.problem ??= `wave ${local.wave} cannot be proven against the other clones' claims: ${error.message}`;
      continue;
    }
    for (const conflict of conflicts) {
      view.conflicts.push({ localWave: local.wave, ...conflict });
    }
  }
  return view;
}

/**
 * What the planner calls before it saves a wave: every pair of (draft agent, another clone's agent)
 * whose scopes share a path, over the other clones' claims in `view` that are still live at `now`
 * (default: all of them), except the claim a synced wave came from (`except`). Non-empty means: refuse
 * to save, as for a local collision. A view with a
 * `problem`, or a claim with `problems`, cannot be proven against: the caller should say so.
 */
export function findConflictsWithClaims(
  draft: WaveScopes,
  view: ClaimsView,
  options: ClaimConflictOptions & { now?: number; except?: { clone: string; wave: number } } = {},
): ClaimConflict[] {
  const excepted = (claim: ClaimView) => options.except !== undefined && claim.clone === options.except.clone && claim.wave === options.except.wave;
  const claimed = view.claims
    .filter((claim) => !claim.ownClone && !excepted(claim) && claim.role !== null && (options.now === undefined || isClaimLive(claim, options.now)))
    .map((claim) => ({
      claim: {
        clone: claim.clone,
        cloneName: claim.cloneName,
        session: claim.session,
        wave: claim.wave,
        claimedAt: claim.claimedAt,
        renewedAt: claim.renewedAt,
        expiresAt: claim.expiresAt,
      },
      role: claim.role as string,
      records: claim.agents,
      ignoreCase: claim.ignoreCase === true,
    }));
  return findClaimConflicts(draft, claimed, { ignoreCase: options.ignoreCase, knownFiles: options.knownFiles });
}
