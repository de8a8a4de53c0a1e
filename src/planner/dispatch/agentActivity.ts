// Which agents of which wave are in flight and which finished, from the document `wave-scope ledger
// show --json` prints (every session's ledger of a checkout, each record with its liveness read from
// the session transcript). The editor shows it on the planner's lanes and in the status bar. Pure: the
// document arrives parsed, and anything that is not in its shape is reported, never thrown.
import { IN_FLIGHT_TTL_MS } from './liveness';
import { waveOfKey } from './sessionLedger';

/** One agent of one wave, as the latest dispatches of it say. */
export interface AgentActivity {
  /** The wave it was dispatched in; undefined when no usable manifest named one (`w?`). */
  readonly wave: number | undefined;
  /** The declared agent the prompt named, else the record's id (its description or subagent type). */
  readonly agent: string;
  /** In flight while any dispatch of it may still be writing; finished otherwise. */
  readonly state: 'in-flight' | 'finished';
  /** Finished only because 30 minutes passed without evidence (the TTL), not on positive evidence. */
  readonly presumed: boolean;
  /** The liveness evidence of the deciding dispatch (`sync-result`, `awaiting-result`, …). */
  readonly evidence: string;
  /** When the deciding dispatch (or its last resume) started (ISO 8601). */
  readonly since: string;
  /** How many dispatches of this agent the ledgers hold. */
  readonly dispatches: number;
  /** The session whose ledger holds the deciding dispatch. */
  readonly session: string;
}

/** What the ledgers say about a checkout's agents. */
export interface AgentActivityReport {
  readonly activities: readonly AgentActivity[];
  /** When an in-flight agent without evidence turns finished by the TTL (ms since the epoch), if any. */
  readonly nextExpiry: number | undefined;
  /** Ledgers that could not be read, for a person. */
  readonly problems: readonly string[];
}

interface RecordView {
  readonly waveKey: string;
  readonly id: string;
  readonly agent?: string;
  readonly at: string;
  readonly liveness: { readonly inFlight: boolean; readonly evidence: string; readonly ttlExpired: boolean; readonly since: string } | null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function recordOf(value: unknown): RecordView | undefined {
  if (!isObject(value) || typeof value.waveKey !== 'string' || typeof value.id !== 'string' || typeof value.at !== 'string') return undefined;
  const liveness = value.liveness;
  const usable =
    isObject(liveness) && typeof liveness.inFlight === 'boolean' && typeof liveness.evidence === 'string' && typeof liveness.ttlExpired === 'boolean' && typeof liveness.since === 'string'
      ? { inFlight: liveness.inFlight, evidence: liveness.evidence, ttlExpired: liveness.ttlExpired, since: liveness.since }
      : null;
  return { waveKey: value.waveKey, id: value.id, at: value.at, liveness: usable, ...(typeof value.agent === 'string' ? { agent: value.agent } : {}) };
}

function time(text: string): number {
  const parsed = Date.parse(text);
  return Number.isNaN(parsed) ? 0 : parsed;
}

/** Every agent's activity in the `ledger show --json` document, one per (wave, agent), in wave then agent order. */
export function agentActivities(document: unknown): AgentActivityReport {
  const problems: string[] = [];
  if (!isObject(document) || document.version !== 1 || !Array.isArray(document.ledgers)) {
    return { activities: [], nextExpiry: undefined, problems: ['the ledger document is not a version 1 "ledger show --json" document'] };
  }
  const groups = new Map<string, { wave: number | undefined; agent: string; records: { record: RecordView; session: string }[] }>();
  for (const ledger of document.ledgers as unknown[]) {
    if (!isObject(ledger)) continue;
    const session = typeof ledger.session === 'string' ? ledger.session : 'unknown';
    if (typeof ledger.problem === 'string') problems.push(`${String(ledger.path)}: ${ledger.problem}`);
    for (const raw of Array.isArray(ledger.records) ? (ledger.records as unknown[]) : []) {
      const record = recordOf(raw);
      if (record === undefined) continue;
      const wave = waveOfKey(record.waveKey);
      const agent = record.agent ?? record.id;
      const key = `${wave ?? '?'}\0${agent}`;
      const group = groups.get(key) ?? { wave, agent, records: [] };
      group.records.push({ record, session });
      groups.set(key, group);
    }
  }
  let nextExpiry: number | undefined;
  const activities: AgentActivity[] = [];
  for (const group of groups.values()) {
    // No liveness (the probe could not run) is no evidence of an end: the dispatch counts as in flight.
    const live = group.records.filter(({ record }) => record.liveness === null || record.liveness.inFlight);
    for (const { record } of live) {
      if (record.liveness !== null && record.liveness.evidence === 'awaiting-result') continue;
      const expiry = time(record.liveness?.since ?? record.at) + IN_FLIGHT_TTL_MS;
      nextExpiry = nextExpiry === undefined ? expiry : Math.min(nextExpiry, expiry);
    }
    const pool = live.length > 0 ? live : group.records;
    const deciding = pool.reduce((latest, item) => (time(item.record.at) >= time(latest.record.at) ? item : latest));
    activities.push({
      wave: group.wave,
      agent: group.agent,
      state: live.length > 0 ? 'in-flight' : 'finished',
      presumed: live.length === 0 && (deciding.record.liveness?.ttlExpired ?? false),
      evidence: deciding.record.liveness?.evidence ?? 'probe-unavailable',
      since: deciding.record.liveness?.since ?? deciding.record.at,
      dispatches: group.records.length,
      session: deciding.session,
    });
  }
  activities.sort((a, b) => (a.wave ?? Number.MAX_SAFE_INTEGER) - (b.wave ?? Number.MAX_SAFE_INTEGER) || (a.agent < b.agent ? -1 : a.agent > b.agent ? 1 : 0));
  return { activities, nextExpiry, problems };
}
