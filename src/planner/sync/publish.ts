// Publishing a wave and releasing a claim: read the remote's plan, prove, write the next plan commit,
// push it with compare-and-swap. When the push loses a race (another clone pushed first), the remote's
// new plan is fetched and everything is proven again against it: a wave is never published on a proof
// made against a plan that is no longer there. Git reaches this file through PlanRefStore
// (src/node/planRefGit.ts is the real one).
import type { DeclaredRecord } from '../plan/declarationInput';
import type { WaveManifest } from '../plan/manifest';
import { ScopeProofTooComplex } from '../scope/scopeAutomaton';
import { findClaimConflicts } from './claimConflicts';
import type { ClaimConflict, ClaimedWaveScopes } from './claimConflicts';
import { claimFor, isClaimLive } from './claims';
import type { Claim, CloneIdentity } from './claims';
import { decodePlan, findPublishedWave, nextPlanFiles } from './planRef';
import type { DecodeOptions, DecodedPlan, PlanFiles, PublishedWaveInfo } from './planRef';

/** The remote's plan ref, as git sees it. Every method throws PlanRefError when git fails. */
export interface PlanRefStore {
  /** Fetches the remote's plan ref; its commit id, or null when the remote has no plan yet. */
  fetch(): string | null;
  /** Every file of a plan commit (tree path → text); `only` limits which paths are read. */
  readFiles(commit: string, only?: (path: string) => boolean): PlanFiles;
  /**
   * Writes a commit whose tree is exactly `files`, with `parent` (null: a root commit); returns its id, or a
   * promise of it (git's store hands the objects to a git process that may already be running).
   */
  writeCommit(files: PlanFiles, parent: string | null, message: string): string | Promise<string>;
  /**
   * Pushes `commit` to the remote's plan ref if and only if the ref still is `expected` (null: absent).
   * `rejected` carries git's reason when it is not (a lost race, or a remote that refuses).
   */
  push(commit: string, expected: string | null): { ok: true } | { ok: false; rejected: string };
}

/** git failed (not a refusal by the plan): the remote cannot be reached, a command exited non-zero... */
export class PlanRefError extends Error {
  constructor(
    readonly reason: 'fetch' | 'read' | 'write' | 'push',
    message: string,
  ) {
    super(message);
    this.name = 'PlanRefError';
  }
}

/** How many times a publish or release proves and pushes before it gives up on a remote that keeps moving. */
export const MAX_PUSH_ATTEMPTS = 8;

/** A claimed wave whose plan cannot be read: nothing can be proven against it, so the publish is refused. */
export interface UnreadableClaim {
  claim: Claim;
  problems: string[];
}

export interface PublishRequest {
  clone: CloneIdentity;
  manifest: WaveManifest;
  records: readonly DeclaredRecord[];
  /** The coordinator's session (claims carry it), or null. */
  session: string | null;
  /** This clone's core.ignorecase. */
  ignoreCase: boolean;
  /** The checkout's HEAD, or null. */
  head: string | null;
  now: () => number;
  ttlMs: number;
  /** The repository's files, listed only when a conflict needs a real witness. */
  knownFiles?: () => readonly string[];
  /**
   * The tip a fetch made for this publish found, when the caller started it ahead (to overlap it with its
   * own reading): the first attempt proves against it instead of fetching again. A lost race refetches.
   */
  fetchedTip?: string | null;
}

export type PublishResult =
  | {
      ok: true;
      /** The pushed plan commit. */
      commit: string;
      claim: Claim;
      /** How many pushes it took (above 1: a race was lost and the proof made again). */
      attempts: number;
      /** Claims of other clones that had expired and were dropped. */
      expired: Claim[];
      /** Other clones' live claims the wave was proven disjoint from. */
      provenAgainst: Claim[];
    }
  | { ok: false; reason: 'conflict'; conflicts: ClaimConflict[]; attempts: number; planCommit: string | null }
  | { ok: false; reason: 'unreadable-claim'; unreadable: UnreadableClaim[]; attempts: number; planCommit: string | null }
  | { ok: false; reason: 'corrupt-plan'; problems: string[]; attempts: number; planCommit: string | null }
  /** The wave could not be proven disjoint from the claims within the proof's budget: unproven, so not published. */
  | { ok: false; reason: 'unprovable'; message: string; attempts: number; planCommit: string | null }
  | { ok: false; reason: 'push-refused'; message: string; attempts: number }
  | { ok: false; reason: 'contention'; attempts: number };

/** Other clones' live claims and the scopes of their waves (or why those cannot be read). */
export function claimedByOthers(
  plan: DecodedPlan,
  clone: string,
  now: number,
): { live: ClaimedWaveScopes[]; unreadable: UnreadableClaim[]; expired: Claim[] } {
  const live: ClaimedWaveScopes[] = [];
  const unreadable: UnreadableClaim[] = [];
  const expired: Claim[] = [];
  for (const claim of plan.claims) {
    if (claim.clone === clone) continue;
    if (!isClaimLive(claim, now)) {
      expired.push(claim);
      continue;
    }
    const wave = findPublishedWave(plan, claim.clone, claim.wave);
    if (wave?.manifest === undefined || wave.records === undefined) {
      unreadable.push({ claim, problems: wave?.problems ?? [`clone ${claim.clone} claims wave ${claim.wave} but the plan ref holds no such wave`] });
      continue;
    }
    live.push({ claim, role: wave.manifest.role, records: wave.records, ignoreCase: wave.info?.ignoreCase === true });
  }
  return { live, unreadable, expired };
}

function readPlan(store: PlanRefStore, tip: string | null, options: DecodeOptions = {}): { files: PlanFiles; plan: DecodedPlan } {
  const files = tip === null ? new Map<string, string>() : store.readFiles(tip);
  return { files, plan: decodePlan(files, options) };
}

/**
 * Publishes a wave: fetch the plan, prove the wave disjoint from every live claim of another clone,
 * replace this clone's claim (a clone holds one) and its copy of the wave, drop expired claims, push with
 * compare-and-swap; on a lost race, start again from the fetch. Conflicts and refusals are data.
 */
export async function publishWave(request: PublishRequest, store: PlanRefStore): Promise<PublishResult> {
  // The wave being replaced is not decoded: nothing of it is read, and its files are all written anew.
  const decoding: DecodeOptions = { wanted: (key) => key.clone !== request.clone.id || key.wave !== request.manifest.wave };
  let lastTip: string | null | undefined;
  for (let attempt = 1; attempt <= MAX_PUSH_ATTEMPTS; attempt += 1) {
    const tip = attempt === 1 && request.fetchedTip !== undefined ? request.fetchedTip : store.fetch();
    const { files, plan } = readPlan(store, tip, decoding);
    if (plan.problems.length > 0) return { ok: false, reason: 'corrupt-plan', problems: plan.problems, attempts: attempt, planCommit: tip };
    const now = request.now();
    const { live, unreadable, expired } = claimedByOthers(plan, request.clone.id, now);
    if (unreadable.length > 0) return { ok: false, reason: 'unreadable-claim', unreadable, attempts: attempt, planCommit: tip };
    const ours = { role: request.manifest.role, records: request.records };
    // Case is folded also where a claimed wave's clone folds it: findClaimConflicts reads that off `live`.
    const ignoreCase = request.ignoreCase;
    let conflicts;
    try {
      conflicts = findClaimConflicts(ours, live, { ignoreCase });
      if (conflicts.length > 0) {
        // A second pass with the repository's files turns synthesised witnesses into real ones.
        const knownFiles = request.knownFiles?.();
        if (knownFiles !== undefined && knownFiles.length > 0) conflicts = findClaimConflicts(ours, live, { ignoreCase, knownFiles });
      }
    } catch (error) {
      if (!(error instanceof ScopeProofTooComplex)) throw error;
      return { ok: false, reason: 'unprovable', message: error.message, attempts: attempt, planCommit: tip };
    }
    if (conflicts.length > 0) return { ok: false, reason: 'conflict', conflicts, attempts: attempt, planCommit: tip };
    const claim = claimFor(request.clone, request.manifest.wave, request.session, now, request.ttlMs, plan.claims);
    const info: PublishedWaveInfo = {
      clone: request.clone.id,
      cloneName: request.clone.name,
      wave: request.manifest.wave,
      publishedAt: new Date(now).toISOString(),
      session: request.session,
      ignoreCase: request.ignoreCase,
      head: request.head,
    };
    const claims = [...live.map((entry) => entry.claim), claim];
    const next = nextPlanFiles(files, plan, { claims, write: [{ info, manifest: request.manifest, records: request.records }] }, now);
    const message = `Wave Scope: clone ${request.clone.id} publishes wave ${request.manifest.wave} (${request.records.length} agents)`;
    const commit = await store.writeCommit(next, tip, message);
    const pushed = store.push(commit, tip);
    if (pushed.ok) return { ok: true, commit, claim, attempts: attempt, expired, provenAgainst: live.map((entry) => entry.claim) };
    // The same tip twice in a row means nobody else moved the ref: the remote refuses us for another reason.
    if (lastTip !== undefined && lastTip === tip) return { ok: false, reason: 'push-refused', message: pushed.rejected, attempts: attempt };
    lastTip = tip;
  }
  return { ok: false, reason: 'contention', attempts: MAX_PUSH_ATTEMPTS };
}

export interface ReleaseRequest {
  clone: CloneIdentity;
  wave: number;
  now: () => number;
}

export type ReleaseResult =
  | { ok: true; released: Claim; commit: string; attempts: number }
  /** This clone holds no live claim on that wave: nothing to do (the plan itself stays published). */
  | { ok: true; released: null; attempts: number; expired: Claim | null }
  | { ok: false; reason: 'corrupt-plan'; problems: string[]; attempts: number }
  | { ok: false; reason: 'push-refused'; message: string; attempts: number }
  | { ok: false; reason: 'contention'; attempts: number };

/** Ends this clone's claim on a wave (the wave's plan stays on the ref, so branches of it can still be verified). */
export async function releaseClaim(request: ReleaseRequest, store: PlanRefStore): Promise<ReleaseResult> {
  let lastTip: string | null | undefined;
  for (let attempt = 1; attempt <= MAX_PUSH_ATTEMPTS; attempt += 1) {
    const tip = store.fetch();
    const { files, plan } = readPlan(store, tip);
    if (plan.problems.length > 0) return { ok: false, reason: 'corrupt-plan', problems: plan.problems, attempts: attempt };
    const now = request.now();
    // Every claim of this clone on the wave ends (a hand-edited claims.json may hold the same one twice).
    const isOurs = (claim: Claim) => claim.clone === request.clone.id && claim.wave === request.wave;
    const ours = plan.claims.filter(isOurs);
    const mine = ours.find((claim) => isClaimLive(claim, now));
    if (mine === undefined) return { ok: true, released: null, attempts: attempt, expired: ours[0] ?? null };
    const claims = plan.claims.filter((claim) => !isOurs(claim) && isClaimLive(claim, now));
    const commit = await store.writeCommit(nextPlanFiles(files, plan, { claims }, now), tip, `Wave Scope: clone ${request.clone.id} releases wave ${request.wave}`);
    const pushed = store.push(commit, tip);
    if (pushed.ok) return { ok: true, released: mine, commit, attempts: attempt };
    if (lastTip !== undefined && lastTip === tip) return { ok: false, reason: 'push-refused', message: pushed.rejected, attempts: attempt };
    lastTip = tip;
  }
  return { ok: false, reason: 'contention', attempts: MAX_PUSH_ATTEMPTS };
}
