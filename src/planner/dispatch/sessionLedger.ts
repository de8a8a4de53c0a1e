// The dispatch ledger: one file per session, `.orchestrator/wave-dispatch-scopes.<session>.json`, with a
// record per dispatched agent under the wave key it was dispatched in. The pre-dispatch hook reads it,
// decides, and writes it back (src/node/dispatchLedgerStore.ts holds the lock and the atomic write); the
// subagent-start hook binds a subagent's `agent_id` to its record; `wave-scope ledger` shows and resets
// it; the VS Code side reads the same JSON. Everything here is pure.
import { ORCHESTRATOR_DIR_NAME } from '../plan/stateDirNames';
import { sha256Hex } from '../scope/sha256';
import { normalizeScopeEntry } from '../scope/scopeEntry';

/** Version of the ledger document. */
export const LEDGER_VERSION = 1;

/** Records kept at most; the oldest beyond this are dropped (a session rarely dispatches more than a few hundred). */
export const MAX_LEDGER_RECORDS = 1000;

/** A session id as it appears in file names: `[A-Za-z0-9._-]`, every other character replaced by `_`. */
export function sanitizeSessionId(sessionId: string | undefined): string {
  const trimmed = (sessionId ?? '').trim();
  if (trimmed === '') return 'unknown';
  const reduced = trimmed.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 128);
  // `.` and `..` alone are legal in the name (it has a prefix) but read badly; keep them visible.
  return /^\.+$/.test(reduced) ? reduced.replace(/\./g, '_') : reduced;
}

/** `.orchestrator/wave-dispatch-scopes.<session>.json`, relative to the repository root. */
export function ledgerRelativePath(sessionId: string | undefined): string {
  return `${ORCHESTRATOR_DIR_NAME}/wave-dispatch-scopes.${sanitizeSessionId(sessionId)}.json`;
}

/** `.orchestrator/wave-dispatch-scopes.<session>.lock`, relative to the repository root. */
export function ledgerLockRelativePath(sessionId: string | undefined): string {
  return `${ORCHESTRATOR_DIR_NAME}/wave-dispatch-scopes.${sanitizeSessionId(sessionId)}.lock`;
}

/** Ledger files of every session, to list them (`wave-scope ledger show` without a session). */
export const LEDGER_FILE_PATTERN = /^wave-dispatch-scopes\.([A-Za-z0-9._-]+)\.json$/;

/** `<session>|w<wave>|<role>`; `<session>|w?|?` when no usable manifest names the wave. */
export function waveKeyOf(sessionId: string | undefined, wave: number | undefined, role: string | undefined): string {
  const session = sanitizeSessionId(sessionId);
  return wave === undefined || role === undefined ? `${session}|w?|?` : `${session}|w${wave}|${role}`;
}

/** The wave number a wave key names, or undefined for `w?`. */
export function waveOfKey(key: string): number | undefined {
  const match = /\|w([1-9][0-9]*)\|/.exec(key);
  return match === null ? undefined : Number(match[1]);
}

/** A fingerprint of a dispatch prompt: how a subagent's own transcript is tied back to its record. */
export function promptDigest(prompt: string): string {
  return `p1-${sha256Hex(prompt).slice(0, 32)}`;
}

/** How a subagent was tied to its dispatch record. */
export type BindingVia = 'prompt';

/** One dispatched agent. */
export interface LedgerRecord {
  /** The declared agent id when the prompt named one, else the description, else the subagent type. */
  readonly id: string;
  /** The dispatch's `description` ('' when it had none). */
  readonly desc: string;
  /** The dispatch's `tool_use_id`; absent when the payload carried none. */
  readonly useId?: string;
  /** What the agent may claim: normalised entries (the declared scope and the prompt's block together). */
  readonly files: readonly string[];
  /** When the dispatch was allowed (ISO 8601). */
  readonly at: string;
  /** The declared agent of the wave the prompt named, when it named one. */
  readonly agent?: string;
  /** The dispatch's `subagent_type`. */
  readonly type?: string;
  /** `async` for `run_in_background: true`. */
  readonly mode?: 'sync' | 'async';
  /** `promptDigest` of the dispatch prompt. */
  readonly prompt?: string;
  /** The subagent this dispatch started, once it is known. */
  readonly bound?: { readonly agentId: string; readonly via: BindingVia; readonly at: string };
}

/** The whole ledger file. */
export interface SessionLedger {
  readonly version: typeof LEDGER_VERSION;
  /** The sanitised session id. */
  readonly session: string;
  /** The wave key of the latest dispatch. */
  readonly waveKey: string;
  /** When the file was last written (ISO 8601). */
  readonly updated: string;
  /** The session's transcript (from the hook payload), so `ledger show` and `amend` can probe liveness. */
  readonly transcriptPath?: string;
  /** Records by the wave key they were dispatched under, oldest first. */
  readonly waves: Readonly<Record<string, readonly LedgerRecord[]>>;
}

/** What reading a ledger file found. */
export type LedgerRead =
  | { readonly kind: 'absent' }
  | { readonly kind: 'ok'; readonly ledger: SessionLedger }
  | { readonly kind: 'corrupt'; readonly problem: string };

/** An empty ledger. */
export function emptyLedger(sessionId: string | undefined, waveKey: string, now: string): SessionLedger {
  return { version: LEDGER_VERSION, session: sanitizeSessionId(sessionId), waveKey, updated: now, waves: {} };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isTime(value: unknown): value is string {
  return typeof value === 'string' && !Number.isNaN(Date.parse(value));
}

const PLAIN_CHARACTERS = /^[A-Za-z0-9_.*/-]+$/;

/**
 * Whether a spelling is certainly in the grammar's normal form, by its characters alone (no brace, class,
 * question mark, backslash, space or `!`; no leading `/`, no `//`, no `.` or `..` segment, no `**` twice in
 * a row, no `**` before a trailing `/`). Most ledger entries are; the rest go through the grammar. This only
 * saves the hook work: it never accepts a spelling the grammar would change.
 */
export function isSurelyNormal(entry: string): boolean {
  if (!PLAIN_CHARACTERS.test(entry) || entry.startsWith('/') || entry.includes('//')) return false;
  const segments = entry.split('/');
  if (segments[segments.length - 1] === '') {
    segments.pop();
    if (segments[segments.length - 1] === '**') return false;
  }
  return segments.every((segment, index) => segment !== '.' && segment !== '..' && !(segment === '**' && segments[index - 1] === '**'));
}

function recordProblem(value: unknown): string | undefined {
  if (!isObject(value)) return 'a record is not an object';
  if (typeof value.id !== 'string' || value.id === '') return 'a record has no "id"';
  if (typeof value.desc !== 'string') return `record "${value.id}" has no "desc" string`;
  if (value.useId !== undefined && (typeof value.useId !== 'string' || value.useId === '')) return `record "${value.id}" has a bad "useId"`;
  if (!isTime(value.at)) return `record "${value.id}" has no ISO "at" time`;
  if (!Array.isArray(value.files) || !value.files.every((entry) => typeof entry === 'string')) return `record "${value.id}" has no "files" array of strings`;
  for (const entry of value.files as string[]) {
    if (isSurelyNormal(entry)) continue;
    let normalised: string | undefined;
    try {
      normalised = normalizeScopeEntry(entry);
    } catch {
      normalised = undefined;
    }
    if (normalised !== entry) return `record "${value.id}" has the entry ${JSON.stringify(entry)}, which is not a normalised scope entry`;
  }
  for (const key of ['agent', 'type', 'prompt'] as const) {
    if (value[key] !== undefined && typeof value[key] !== 'string') return `record "${value.id}" has a bad "${key}"`;
  }
  if (value.mode !== undefined && value.mode !== 'sync' && value.mode !== 'async') return `record "${value.id}" has a bad "mode"`;
  if (value.bound !== undefined) {
    const bound = value.bound;
    if (!isObject(bound) || typeof bound.agentId !== 'string' || bound.agentId === '' || bound.via !== 'prompt' || !isTime(bound.at)) {
      return `record "${value.id}" has a bad "bound"`;
    }
  }
  return undefined;
}

/** Parses a ledger file's text. Anything that is not exactly a ledger is `corrupt` (reference row 7). */
export function parseLedger(text: string): LedgerRead {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { kind: 'corrupt', problem: `not JSON (${(error as Error).message})` };
  }
  if (!isObject(parsed)) return { kind: 'corrupt', problem: 'not a JSON object' };
  if (parsed.version !== LEDGER_VERSION) return { kind: 'corrupt', problem: `"version" is not ${LEDGER_VERSION}` };
  if (typeof parsed.session !== 'string' || typeof parsed.waveKey !== 'string' || !isTime(parsed.updated)) {
    return { kind: 'corrupt', problem: '"session", "waveKey" or "updated" is missing' };
  }
  if (parsed.transcriptPath !== undefined && typeof parsed.transcriptPath !== 'string') return { kind: 'corrupt', problem: '"transcriptPath" is not a string' };
  if (!isObject(parsed.waves)) return { kind: 'corrupt', problem: '"waves" is not an object' };
  for (const [key, records] of Object.entries(parsed.waves)) {
    if (!Array.isArray(records)) return { kind: 'corrupt', problem: `"waves"."${key}" is not an array` };
    for (const record of records) {
      const problem = recordProblem(record);
      if (problem !== undefined) return { kind: 'corrupt', problem };
    }
  }
  return { kind: 'ok', ledger: parsed as unknown as SessionLedger };
}

/** The ledger as written to disk: fixed key order, two-space indent, final newline. */
export function formatLedger(ledger: SessionLedger): string {
  const waves: Record<string, unknown[]> = {};
  for (const [key, records] of Object.entries(ledger.waves)) {
    waves[key] = records.map((record) => ({
      id: record.id,
      desc: record.desc,
      ...(record.useId !== undefined ? { useId: record.useId } : {}),
      files: record.files,
      at: record.at,
      ...(record.agent !== undefined ? { agent: record.agent } : {}),
      ...(record.type !== undefined ? { type: record.type } : {}),
      ...(record.mode !== undefined ? { mode: record.mode } : {}),
      ...(record.prompt !== undefined ? { prompt: record.prompt } : {}),
      ...(record.bound !== undefined ? { bound: record.bound } : {}),
    }));
  }
  return `${JSON.stringify(
    {
      version: ledger.version,
      session: ledger.session,
      waveKey: ledger.waveKey,
      updated: ledger.updated,
      ...(ledger.transcriptPath !== undefined ? { transcriptPath: ledger.transcriptPath } : {}),
      waves,
    },
    null,
    2,
  )}\n`;
}

/** A record together with the wave key it lies under. */
export interface PlacedRecord {
  readonly waveKey: string;
  readonly record: LedgerRecord;
}

/** Every record of the ledger with its wave key, oldest wave key first as stored. */
export function allRecords(ledger: SessionLedger): PlacedRecord[] {
  return Object.entries(ledger.waves).flatMap(([waveKey, records]) => records.map((record) => ({ waveKey, record })));
}

/** A key that tells two records apart (their dispatch id, else their description and time). */
export function recordKey(record: LedgerRecord): string {
  return record.useId !== undefined ? `use:${record.useId}` : `desc:${record.desc}\0${record.id}\0${record.at}`;
}

/**
 * The ledger with `remove` taken out and `add` appended under `waveKey`, stamped `now`; wave keys left
 * empty disappear, and beyond MAX_LEDGER_RECORDS the oldest records are dropped.
 */
export function updateLedger(
  ledger: SessionLedger,
  change: { waveKey: string; now: string; remove?: ReadonlySet<string>; add?: readonly LedgerRecord[]; transcriptPath?: string },
): SessionLedger {
  const remove = change.remove ?? new Set<string>();
  const waves: Record<string, LedgerRecord[]> = {};
  for (const [key, records] of Object.entries(ledger.waves)) {
    const kept = records.filter((record) => !remove.has(recordKey(record)));
    if (kept.length > 0) waves[key] = kept;
  }
  if (change.add !== undefined && change.add.length > 0) waves[change.waveKey] = [...(waves[change.waveKey] ?? []), ...change.add];
  const total = Object.values(waves).reduce((sum, records) => sum + records.length, 0);
  const transcriptPath = change.transcriptPath ?? ledger.transcriptPath;
  const updated: SessionLedger = {
    version: LEDGER_VERSION,
    session: ledger.session,
    waveKey: change.waveKey,
    updated: change.now,
    ...(transcriptPath !== undefined ? { transcriptPath } : {}),
    waves,
  };
  if (total <= MAX_LEDGER_RECORDS) return updated;
  return withoutRecords(updated, new Set(oldestFirst(updated).slice(0, total - MAX_LEDGER_RECORDS).map(({ record }) => recordKey(record))));
}

/** Every record, oldest first by `at` (records of the same time keep their stored order). */
function oldestFirst(ledger: SessionLedger): PlacedRecord[] {
  return allRecords(ledger).sort((a, b) => Date.parse(a.record.at) - Date.parse(b.record.at));
}

/** The ledger without the records whose keys are in `drop`; wave keys left empty disappear. */
function withoutRecords(ledger: SessionLedger, drop: ReadonlySet<string>): SessionLedger {
  const waves: Record<string, LedgerRecord[]> = {};
  for (const [key, records] of Object.entries(ledger.waves)) {
    const kept = records.filter((record) => !drop.has(recordKey(record)));
    if (kept.length > 0) waves[key] = kept;
  }
  return { ...ledger, waves };
}

function utf8Length(text: string): number {
  return new TextEncoder().encode(text).length;
}

/**
 * The ledger's text (formatLedger) in at most `maxBytes` of UTF-8, the size its readers accept: a larger
 * file reads as corrupt, and the next dispatch would then rebuild it from itself (row 7), forgetting every
 * claim. Past the size the oldest records are dropped, as past MAX_LEDGER_RECORDS. Returns the text and
 * the ledger it spells (without the dropped records); undefined when the newest record alone does not fit.
 */
export function formatLedgerWithin(ledger: SessionLedger, maxBytes: number): { readonly text: string; readonly ledger: SessionLedger } | undefined {
  let current = ledger;
  for (;;) {
    const text = formatLedger(current);
    // A UTF-16 code unit is at most 3 bytes of UTF-8: an ordinary ledger is never measured.
    if (text.length * 3 <= maxBytes) return { text, ledger: current };
    const excess = utf8Length(text) - maxBytes;
    if (excess <= 0) return { text, ledger: current };
    const byAge = oldestFirst(current);
    if (byAge.length <= 1) return undefined;
    // A record's compact JSON is shorter than its formatted text, so this never drops more than needed.
    const drop = new Set<string>();
    let freed = 0;
    for (const { record } of byAge.slice(0, -1)) {
      drop.add(recordKey(record));
      freed += utf8Length(JSON.stringify(record));
      if (freed >= excess) break;
    }
    current = withoutRecords(current, drop);
  }
}

/** The ledger with `patch` applied to the record whose key is `key` (unchanged when there is none). */
export function patchRecord(ledger: SessionLedger, key: string, patch: (record: LedgerRecord) => LedgerRecord, now: string): SessionLedger {
  const waves: Record<string, LedgerRecord[]> = {};
  for (const [waveKey, records] of Object.entries(ledger.waves)) waves[waveKey] = records.map((record) => (recordKey(record) === key ? patch(record) : record));
  return { ...ledger, updated: now, waves };
}
