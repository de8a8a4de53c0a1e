// The session record: which session runs the waves of a state directory, and since when. The commit
// guard runs in the committing shell, which an agent controls, so nothing it reads from its
// environment may widen what a commit may carry. What it trusts instead are files the coordinator
// wrote: the manifest's session binding, and this record, which the agent CLI's own SessionStart hook
// (`wave-scope hook session-start`, run by the CLI, not by any tool call) writes beside the manifest.
// Both are control state: no dispatched agent can write them through a tool.

/** `<state-dir>/wave-scope-session.json`. */
export interface SessionRecord {
  readonly version: 1;
  /** The session id the agent CLI gave its SessionStart hook. */
  readonly session_id: string;
  /** When that session started (ms since the epoch); a resumed or compacted session keeps its first start. */
  readonly started_at: number;
}

/** Reads a session record's text; undefined for anything that is not one. */
export function parseSessionRecord(text: string): SessionRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { version, session_id: id, started_at: started } = value as Record<string, unknown>;
  if (version !== 1 || typeof id !== 'string' || id.trim() === '' || typeof started !== 'number' || !Number.isFinite(started) || started < 0) return undefined;
  return { version: 1, session_id: id.trim(), started_at: started };
}

/**
 * The record a SessionStart hook writes: the same session keeps its first start (a resume or a
 * compaction starts the same session again), another session starts afresh.
 */
export function nextSessionRecord(existing: SessionRecord | undefined, sessionId: string, nowMs: number): SessionRecord {
  if (existing !== undefined && existing.session_id === sessionId) {
    return { version: 1, session_id: sessionId, started_at: Math.min(existing.started_at, nowMs) };
  }
  return { version: 1, session_id: sessionId, started_at: nowMs };
}

/** The text a record is written as: two-space JSON and a final newline. */
export function formatSessionRecord(record: SessionRecord): string {
  return `${JSON.stringify(record, null, 2)}\n`;
}

/** What the commit guard may believe about the committing session. */
export type SessionEvidence =
  | {
      readonly kind: 'trusted';
      /** The session start earlier waves are measured against; undefined: no earlier wave counts. */
      readonly sessionStartMs?: number;
      /** True when the environment offered a session start that was not believed (said once, as a note). */
      readonly ignoredStart?: boolean;
    }
  | {
      /** The shell claims another session than the one the wave is bound to: the commit is blocked. */
      readonly kind: 'contradiction';
      readonly about: 'session';
      readonly claimed: readonly string[];
      readonly bound: readonly string[];
    }
  | {
      /** The shell claims an earlier session start than the record's: the commit is blocked. */
      readonly kind: 'contradiction';
      readonly about: 'start';
      readonly claimedMs: number;
      readonly recordedMs: number;
    };

export interface SessionEvidenceInput {
  /** The session ids the manifest is bound to (empty: unbound). */
  readonly manifestSessions: readonly string[];
  /** The state directory's session record, when there is a readable one. */
  readonly record?: SessionRecord;
  /** The session ids the committing shell claims (`CLAUDE_CODE_SESSION_ID`). */
  readonly environmentSessions: readonly string[];
  /** `WAVE_SCOPE_SESSION_START`, parsed (parseSessionStart); undefined when unset or unreadable. */
  readonly environmentStartMs?: number;
}

/**
 * Weighs the committing shell's claims against the coordinator's files. The session start comes from
 * the session record, and only when the record names the session the manifest is bound to; the
 * environment may narrow it (a later start) but never widen it. A shell that claims another session
 * than the manifest's, or an earlier start than the record's, contradicts the files: deny.
 */
export function weighSessionEvidence(input: SessionEvidenceInput): SessionEvidence {
  const bound = input.manifestSessions;
  const claimed = input.environmentSessions;
  if (bound.length > 0 && claimed.length > 0 && !claimed.some((id) => bound.includes(id))) {
    return { kind: 'contradiction', about: 'session', claimed, bound };
  }
  const record = input.record;
  const recordStart = record !== undefined && bound.includes(record.session_id) ? record.started_at : undefined;
  if (input.environmentStartMs === undefined) return recordStart === undefined ? { kind: 'trusted' } : { kind: 'trusted', sessionStartMs: recordStart };
  if (recordStart === undefined) return { kind: 'trusted', ignoredStart: true };
  if (input.environmentStartMs < recordStart) return { kind: 'contradiction', about: 'start', claimedMs: input.environmentStartMs, recordedMs: recordStart };
  return { kind: 'trusted', sessionStartMs: input.environmentStartMs };
}
