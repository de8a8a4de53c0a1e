// The guard's telemetry: one JSON record per line of `.orchestrator/metrics/events.jsonl`. Counts and
// closed enums only: no path, no glob, no prompt text, no description (the file may travel to a
// dashboard unredacted). Digests are fingerprints, not text, and the session id is hashed. The one
// exception is an amendment's reason, which a person writes for the record.
import { sha256Hex } from '../scope/sha256';
import type { DispatchRequest } from './dispatchRequest';
import type { DispatchScope } from './dispatchScope';
import type { DispatchVerdict, MatrixRow } from './dispatchDecision';
import type { LivenessEvidence } from './liveness';

/** Version of every event record's payload. */
export const EVENT_VERSION = 1;

export const SCOPE_CHECKED_EVENT = 'wave_dispatch.scope_checked';
export const SUBAGENT_BINDING_EVENT = 'wave_dispatch.subagent_binding';
export const AMENDED_EVENT = 'wave_dispatch.amended';
export const LEDGER_RESET_EVENT = 'wave_dispatch.ledger_reset';

/** The fields every dispatch record opens with: which event, the format version, when, and whose session (hashed). */
function envelope(event: string, now: number, sessionId: string | undefined): Record<string, unknown> {
  return { event, v: EVENT_VERSION, ts: new Date(now).toISOString(), session: sessionHash(sessionId) };
}

/** A short fingerprint of a session id (events name sessions without carrying their ids). */
export function sessionHash(sessionId: string | undefined): string | null {
  if (sessionId === undefined || sessionId.trim() === '') return null;
  return sha256Hex(sessionId.trim()).slice(0, 12);
}

/** How the ledger cycle went, for the event. */
export interface CycleFacts {
  /** `held`: under the lock; `unlocked`: the lock could not be had within its budget (row 14); `none`: no ledger cycle ran. */
  readonly lock: 'held' | 'unlocked' | 'none';
  readonly lockWaitMs: number;
  /** `none`: no transcript read; `read`: read; the rest: why it could not be. */
  readonly probe: 'none' | 'read' | 'no-transcript' | 'too-large' | 'failed' | 'rounds-exhausted';
  /** `recorded`, `not-persisted` (deny), `not-recorded` (nothing to record), `write-failed`. */
  readonly ledgerResult: 'recorded' | 'not-persisted' | 'not-recorded' | 'write-failed';
  /** Records the ledger file holds afterwards: as written (the caps may have taken the oldest), or as read when nothing was written. */
  readonly ledgerRecords: number;
  readonly durationMs: number;
  /** Whether git's file list was wanted for witnesses and failed (row 8). */
  readonly gitFailed: boolean;
}

/** The decision part of a scope_checked event, for the rows decided before any scope exists. */
export interface EarlyOutcome {
  readonly decision: 'allow' | 'deny';
  readonly row: MatrixRow;
}

function toolOf(request: DispatchRequest | undefined): 'Agent' | 'Task' | 'other' | 'none' {
  if (request === undefined) return 'none';
  return request.toolName === 'Agent' || request.toolName === 'Task' ? request.toolName : 'other';
}

function isolationOf(request: DispatchRequest | undefined): 'none' | 'worktree' | 'other' {
  if (request?.isolation === undefined) return 'none';
  return request.isolation === 'worktree' ? 'worktree' : 'other';
}

const NO_CYCLE: CycleFacts = { lock: 'none', lockWaitMs: 0, probe: 'none', ledgerResult: 'not-recorded', ledgerRecords: 0, durationMs: 0, gitFailed: false };

/** One `wave_dispatch.scope_checked` record. */
export function scopeCheckedEvent(facts: {
  readonly now: number;
  readonly request?: DispatchRequest;
  readonly wave: number | null;
  readonly declaredSource: 'declared' | 'no-manifest' | 'no-declaration' | 'unusable-declaration' | 'unknown';
  readonly scope?: DispatchScope;
  readonly outcome: EarlyOutcome;
  readonly verdict?: DispatchVerdict;
  readonly cycle?: CycleFacts;
}): Record<string, unknown> {
  const { scope, verdict, request } = facts;
  const cycle = facts.cycle ?? NO_CYCLE;
  const prompt = scope?.prompt;
  const block = prompt?.kind === 'block' ? prompt : undefined;
  const evidence = [...new Set((verdict?.collisions ?? []).map((collision) => collision.liveness.evidence))].sort() as LivenessEvidence[];
  const partners = new Map((verdict?.collisions ?? []).map((collision) => [collision.partner.record, collision.liveness.inFlight]));
  const degraded: string[] = [];
  if (cycle.lock === 'unlocked') degraded.push('lock');
  if (cycle.gitFailed || verdict?.witnessesDegraded === true) degraded.push('git');
  if (cycle.probe !== 'none' && cycle.probe !== 'read') degraded.push('probe');
  return {
    ...envelope(SCOPE_CHECKED_EVENT, facts.now, request?.sessionId),
    decision: facts.outcome.decision,
    row: facts.outcome.row,
    tool: toolOf(request),
    mode: request?.background === true ? 'async' : 'sync',
    isolation: isolationOf(request),
    nested: request?.agentId !== undefined,
    wave: facts.wave,
    marker: prompt === undefined ? 'unknown' : prompt.kind === 'marker-absent' ? 'absent' : 'present',
    block: prompt === undefined ? 'unknown' : prompt.kind === 'block' ? 'ok' : prompt.kind === 'unparseable' ? prompt.reason : 'none',
    markers: prompt === undefined || prompt.kind === 'marker-absent' ? 0 : prompt.markers,
    block_styles: block?.styles ?? [],
    injected: (scope?.blockEntries.length ?? 0) > 0,
    declared_path_count: scope?.blockEntries.length ?? 0,
    claim_count: scope?.claim.length ?? 0,
    invalid_entry_count: block?.invalid.length ?? 0,
    invalid_reasons: [...new Set((block?.invalid ?? []).map((entry) => entry.reason))].sort(),
    declared_source: facts.declaredSource,
    declared_agent: scope?.declared.kind ?? 'none',
    declared_signals: scope?.declared.kind === 'matched' ? [...scope.declared.signals].sort() : [],
    ...(scope?.declared.kind === 'matched' ? { declared_digest: scope.declared.agent.digest } : {}),
    prompt_scope_agrees: scope === undefined || scope.declared.kind !== 'matched' || block === undefined ? null : scope.mismatch === undefined,
    ...(scope?.scopeDigest !== undefined ? { scope_digest: scope.scopeDigest } : {}),
    echo_instruction_present: scope?.instructedDigest !== undefined,
    ...(scope?.instructedDigest !== undefined ? { instructed_digest: scope.instructedDigest } : {}),
    digest_consistent: scope?.digestConsistent ?? null,
    ledger_result: cycle.ledgerResult,
    ledger_records: cycle.ledgerRecords,
    self_healed: verdict?.selfHealed !== undefined,
    collision_count: verdict?.collisions.length ?? 0,
    coordinator_collision_count: verdict?.coordinatorCollisions?.length ?? 0,
    partners_in_flight: [...partners.values()].filter((inFlight) => inFlight).length,
    partners_finished: [...partners.values()].filter((inFlight) => !inFlight).length,
    removed_count: verdict?.removed.length ?? 0,
    liveness_evidence: evidence,
    stale_looking: verdict?.staleLooking ?? false,
    probe: cycle.probe,
    lock: cycle.lock,
    lock_wait_ms: Math.round(cycle.lockWaitMs),
    degraded,
    duration_ms: Math.round(cycle.durationMs),
  };
}

/** Why a subagent is checked against the wave's union instead of its own scope. */
export type BindingFallbackReason =
  /** No ledger for the session (no scoped dispatch happened, or it was reset). */
  | 'no-ledger'
  /** The ledger cannot be read. */
  | 'ledger-corrupt'
  /** The subagent's own transcript cannot be found or read (older Claude Code versions keep it elsewhere). */
  | 'no-subagent-transcript'
  /** No leading user text of the subagent's transcript is the prompt of a recorded dispatch. */
  | 'no-matching-dispatch'
  /** The prompt matches more than one recorded dispatch. */
  | 'ambiguous'
  /** The payload carries no `agent_id` (Claude Code before 2.1.64, or another agent CLI). */
  | 'no-agent-id'
  /** The subagent-start hook itself failed. */
  | 'hook-failed';

/** One `wave_dispatch.subagent_binding` record. */
export function subagentBindingEvent(facts: {
  readonly now: number;
  readonly sessionId?: string;
  readonly outcome: 'bound' | 'already-bound' | 'union-fallback';
  readonly reason?: BindingFallbackReason;
  readonly lock: 'held' | 'unlocked' | 'none';
  readonly declaredAgent: boolean;
  /** Who asked: the `subagent-start` hook (the default), or the write gate at a subagent's write. */
  readonly by?: 'subagent-start' | 'write-gate';
}): Record<string, unknown> {
  return {
    ...envelope(SUBAGENT_BINDING_EVENT, facts.now, facts.sessionId),
    outcome: facts.outcome,
    ...(facts.reason !== undefined ? { reason: facts.reason } : {}),
    ...(facts.outcome !== 'union-fallback' ? { via: 'prompt', declared_agent: facts.declaredAgent } : {}),
    lock: facts.lock,
    ...(facts.by === 'write-gate' ? { by: 'write-gate' } : {}),
  };
}

/** What an amendment came to. */
export type AmendOutcome = 'applied' | 'refused-declared' | 'refused-in-flight' | 'invalid' | 'failed';

/** One `wave_dispatch.amended` record. */
export function amendedEvent(facts: {
  readonly now: number;
  readonly sessionId?: string;
  readonly wave: number;
  readonly outcome: AmendOutcome;
  readonly addedCount: number;
  readonly reason: string;
}): Record<string, unknown> {
  return {
    ...envelope(AMENDED_EVENT, facts.now, facts.sessionId),
    wave: facts.wave,
    outcome: facts.outcome,
    added_count: facts.addedCount,
    reason: facts.reason,
  };
}

/** One `wave_dispatch.ledger_reset` record. */
export function ledgerResetEvent(facts: { readonly now: number; readonly sessionId?: string; readonly outcome: 'removed' | 'absent' | 'locked'; readonly records: number }): Record<string, unknown> {
  return {
    ...envelope(LEDGER_RESET_EVENT, facts.now, facts.sessionId),
    outcome: facts.outcome,
    records_removed: facts.records,
  };
}

/** One event as the line appended to the events file. */
export function formatEventLine(event: Record<string, unknown>): string {
  return `${JSON.stringify(event)}\n`;
}
