// The pre-dispatch guard's decision: a pure function from the dispatch's scope, the session ledger and
// what the liveness probe found to a verdict (reference document 002, section 4.1, rows 7 to 14; rows
// 1 to 6 are decided before the ledger is read, in src/cli/commands/preDispatch.ts and dispatchScope.ts).
//
// The posture is deliberately fail-open: a false deny blocks every agent of the session and nothing
// downstream catches a dispatch that never happened, while a false allow is still caught by the plan's
// disjointness proof and the write gate. The one deny is a collision with an agent still in flight
// (and, ours, an invalid entry in the prompt's block). Every verdict says which row decided.
//
// Transcripts are read only for the agents a collision is found with: the decision asks for them
// (`kind: 'probe'`), the caller reads the transcript outside the ledger lock and calls again.
import { COORDINATOR_ID } from '../plan/agentId';
import { CompiledEntries, coverage } from '../scope/scopeAlgebra';
import type { Coverage } from '../scope/scopeAlgebra';
import { findCollisions, withKnownWitnesses } from '../scope/collisions';
import { LiteralPrefixSet, spelledLiteralPrefix } from '../scope/literalPrefixSet';
import type { ScopeRecord } from '../scope/collisions';
import type { DispatchRequest } from './dispatchRequest';
import type { DispatchScope } from './dispatchScope';
import type { Liveness, ProbeTarget } from './liveness';
import { withTtl } from './liveness';
import type { LedgerRead, LedgerRecord, PlacedRecord, SessionLedger } from './sessionLedger';
import { allRecords, emptyLedger, promptDigest, recordKey, updateLedger } from './sessionLedger';

/** The rows of the matrix a verdict can come from (docs/hooks.md, "The matrix"). */
export type MatrixRow =
  /** No collision, nothing special. */
  | 'clear'
  | '1' | '2' | '3' | '4' | '5' | '6'
  /** Ours: an entry of the block the grammar refuses denies the dispatch. */
  | '6a'
  | '7' | '9' | '10' | '10a' | '11'
  /** Ours: the dispatch claims files the active wave declares for the coordinator itself. */
  | '11c'
  | '12';

/** Which matrix rows fail open (they allow although the guard could not check everything). */
export const FAIL_OPEN_ROWS: ReadonlySet<MatrixRow> = new Set(['1', '2', '3', '5', '6', '7', '9', '12']);

/** An earlier agent this dispatch shares a path with. */
export interface Collider {
  readonly partner: PlacedRecord;
  /** This dispatch's entry and the partner's, normalised. */
  readonly entries: readonly [string, string];
  /** A path both name: a known file when one is known, else a synthesised one. */
  readonly witness: string;
  readonly kind: 'concrete' | 'glob';
  readonly liveness: Liveness;
}

export interface DispatchVerdict {
  readonly decision: 'allow' | 'deny';
  readonly row: MatrixRow;
  /** Every collision with an earlier agent, finished ones included. */
  readonly collisions: readonly Collider[];
  /** The record this dispatch adds (absent on deny). */
  readonly record?: LedgerRecord;
  /** The ledger to write (absent on deny: the dispatch did not happen, so nothing is recorded). */
  readonly ledger?: SessionLedger;
  /** Earlier records dropped: finished collision partners and same-id predecessors this one replaces. */
  readonly removed: readonly PlacedRecord[];
  /** Row 7: the ledger was unreadable and is rebuilt from this dispatch. */
  readonly selfHealed?: string;
  /** Row 8: known files were wanted for witnesses and could not be had. */
  readonly witnessesDegraded: boolean;
  /** Row 9: why the collision check could not be evaluated. */
  readonly notEvaluable?: string;
  /** A deny whose partners show no positive sign of running (or belong to an older wave): the ledger may be stale. */
  readonly staleLooking: boolean;
  /** Row 11c: where this dispatch meets the files the wave declares for the coordinator. */
  readonly coordinatorCollisions?: readonly CoordinatorCollision[];
}

/** A path this dispatch and the coordinator's own declared files both name (row 11c). */
export interface CoordinatorCollision {
  /** This dispatch's entry, then the coordinator's. */
  readonly entries: readonly [string, string];
  readonly witness: string;
  readonly kind: 'concrete' | 'glob';
}

export type DecisionStep = { readonly kind: 'probe'; readonly targets: readonly ProbeTarget[] } | { readonly kind: 'verdict'; readonly verdict: DispatchVerdict };

export interface DecisionInput {
  readonly request: DispatchRequest;
  readonly scope: DispatchScope;
  /** The wave key of this dispatch. */
  readonly waveKey: string;
  readonly ledger: LedgerRead;
  /** Milliseconds since the epoch. */
  readonly now: number;
  /** What earlier probes found, by recordKey. */
  readonly liveness: ReadonlyMap<string, Liveness>;
  /** False once the caller can probe no more: records still unknown then count as in flight (row 13). */
  readonly canProbe: boolean;
  readonly ignoreCase?: boolean;
  /** The repository's files, asked for only when a collision needs a witness. Undefined or a throw: synthesised witnesses (row 8). */
  readonly knownFiles?: () => readonly string[] | undefined;
  /**
   * The entries the active wave declares for the coordinator itself (its `coordinator` record), if any. They
   * are the coordinator's for the whole wave, as `amend` counts them: a dispatch that claims one is denied
   * (row 11c), whatever the ledger holds.
   */
  readonly coordinatorFiles?: readonly string[];
  /**
   * Where entries are compiled and kept: one for all the rounds of a hook, so a ledger's entries are compiled
   * once, not again in each round (the proof compiles every entry both sides share a prefix with). Without it,
   * the rounds of this call share one of their own.
   */
  readonly compiled?: CompiledEntries;
}

/** The id a dispatch is recorded under: the declared agent, else its description, else its type. */
export function dispatchRecordId(request: DispatchRequest, scope: DispatchScope): string {
  if (scope.declared.kind === 'matched') return scope.declared.agent.id;
  const description = request.description.trim();
  if (description !== '') return description;
  return request.subagentType ?? 'agent';
}

/** The ledger record a dispatch adds. */
export function dispatchRecord(request: DispatchRequest, scope: DispatchScope, now: number): LedgerRecord {
  return {
    id: dispatchRecordId(request, scope),
    desc: request.description,
    ...(request.useId !== undefined ? { useId: request.useId } : {}),
    files: scope.claim,
    at: new Date(now).toISOString(),
    ...(scope.declared.kind === 'matched' ? { agent: scope.declared.agent.id } : {}),
    ...(request.subagentType !== undefined ? { type: request.subagentType } : {}),
    mode: request.background ? 'async' : 'sync',
    ...(request.prompt !== '' ? { prompt: promptDigest(request.prompt) } : {}),
  };
}

/** Whether every path `inner` names is named by the list `byOuter` answers for (exact; undecided counts as no). */
function wholeCovered(inner: readonly string[], byOuter: () => (entry: string) => Coverage): boolean {
  if (inner.length === 0) return true;
  try {
    const covered = byOuter();
    return inner.every((entry) => covered(entry).covered);
  } catch {
    return false;
  }
}

interface Partition {
  /** Compared for collisions. */
  readonly partners: PlacedRecord[];
  /** Replaced without a probe: same dispatch id, or (no ids on either side) wholly covered by this dispatch. */
  readonly replaced: PlacedRecord[];
  /** Same id, no dispatch ids on either side, not covered: kept as a claim, never a self-collision. */
  readonly keptSameId: PlacedRecord[];
}

/** Reference row 10: how earlier records of the same agent id (or the same dispatch id) are treated. */
function partition(records: readonly PlacedRecord[], record: LedgerRecord, ignoreCase: boolean): Partition {
  const result: Partition = { partners: [], replaced: [], keptSameId: [] };
  // The dispatch's entries compiled once, when a record of the same id asks (coverage).
  let byDispatch: ((entry: string) => Coverage) | undefined;
  const coveredByDispatch = () => (byDispatch ??= coverage(record.files, { ignoreCase }));
  for (const placed of records) {
    const prior = placed.record;
    if (record.useId !== undefined && prior.useId === record.useId) {
      result.replaced.push(placed);
      continue;
    }
    if (prior.id === record.id && prior.useId === undefined && record.useId === undefined) {
      if (wholeCovered(prior.files, coveredByDispatch)) result.replaced.push(placed);
      else result.keptSameId.push(placed);
      continue;
    }
    result.partners.push(placed);
  }
  return result;
}

interface RawCollision {
  readonly partner: PlacedRecord;
  readonly entries: readonly [string, string];
  readonly witness: string;
  readonly kind: 'concrete' | 'glob';
}

const NEW_ID = '#dispatch';

const GLOB_CHARACTER = /[*?[{]/;

/**
 * The partners with at least one entry whose spelled literal prefix agrees with one of the record's (the rest
 * are not compiled at all), in their order. The record's prefixes are filed in a tree, and each partner entry looks
 * its own prefix up there: the cost is the total length of both sides' entries, not the product of their
 * counts, which a prompt of thousands of entries against a full ledger made many seconds (a hook past
 * its agent CLI's timeout lets the dispatch through unchecked).
 */
export function partnersThatMayMeet(record: LedgerRecord, partners: readonly PlacedRecord[], ignoreCase: boolean): PlacedRecord[] {
  const mine = new LiteralPrefixSet();
  for (const entry of record.files) mine.add(spelledLiteralPrefix(entry, ignoreCase));
  return partners.filter(({ record: prior }) => prior.files.some((entry) => mine.meets(spelledLiteralPrefix(entry, ignoreCase))));
}

function collisionsWith(record: LedgerRecord, all: readonly PlacedRecord[], options: { ignoreCase: boolean; compiled: CompiledEntries }): RawCollision[] {
  // Most earlier agents own other directories: they are set aside by their spelling, so a ledger of 50
  // agents costs the hook no compilation of their entries.
  const partners = partnersThatMayMeet(record, all, options.ignoreCase);
  if (partners.length === 0 || record.files.length === 0) return [];
  // Synthetic ids: two records of one agent id must still be compared (findCollisions never compares a
  // record with another of the same id).
  const records: ScopeRecord[] = [{ id: NEW_ID, files: [...record.files] }, ...partners.map((placed, index) => ({ id: `#${index}`, files: [...placed.record.files] }))];
  // Only the new record's pairs: the earlier agents' overlaps among themselves are not this dispatch's, and
  // proving them spent the proof's budget (a ledger whose agents overlap heavily pushed a dispatch to row 9).
  const report = findCollisions(records, { ignoreCase: options.ignoreCase, compiled: options.compiled, against: 0 });
  const found: RawCollision[] = [];
  for (const collision of report.collisions) {
    const mine = collision.agents.indexOf(NEW_ID);
    if (mine === -1) continue;
    const other = collision.agents[1 - mine] as string;
    const partner = partners[Number(other.slice(1))] as PlacedRecord;
    found.push({
      partner,
      entries: [collision.entries[mine] as string, collision.entries[1 - mine] as string],
      witness: collision.witness,
      kind: collision.kind,
    });
  }
  return found;
}

/** Evidence that says nothing positive about a run (the deny then suggests the ledger may be stale). */
function isBlind(liveness: Liveness): boolean {
  return liveness.evidence !== 'awaiting-result';
}

/**
 * Decides one dispatch whose scope is known (`hasScope`). Returns the records to probe when a collision
 * partner's liveness is not known yet; otherwise the verdict. Never throws.
 */
/**
 * Where this dispatch meets the coordinator's own declared files (row 11c). When the check cannot run (the
 * proof's budget), the dispatch's literal entries are checked on their own, as the ledger's check does, so
 * one entry the engine cannot decide never hides another's plain overlap; what is left unchecked is said
 * (`notEvaluable`: the dispatch is then allowed at row 9, with a warning, unless something else denies it).
 */
function coordinatorCollisions(
  record: LedgerRecord,
  input: DecisionInput,
  options: { ignoreCase: boolean; compiled: CompiledEntries },
): { collisions: RawCollision[]; notEvaluable?: string } {
  const files = input.coordinatorFiles;
  if (files === undefined || files.length === 0) return { collisions: [] };
  const coordinator: PlacedRecord = { waveKey: input.waveKey, record: { id: COORDINATOR_ID, desc: '', files, at: new Date(input.now).toISOString() } };
  try {
    return { collisions: collisionsWith(record, [coordinator], options) };
  } catch (error) {
    const literal = { ...record, files: record.files.filter((entry) => !GLOB_CHARACTER.test(entry)) };
    let collisions: RawCollision[];
    try {
      collisions = collisionsWith(literal, [coordinator], options);
    } catch {
      collisions = [];
    }
    return { collisions, notEvaluable: `the check against the coordinator's own files: ${(error as Error).message}` };
  }
}

/**
 * Row 11c's collisions with real files for witnesses: for a caller that could not list the files when the
 * dispatch was decided (it loads git only once something needs it). The pairs are not decided again.
 */
export function withCoordinatorWitnesses(verdict: DispatchVerdict, files: readonly string[] | undefined, options: { ignoreCase: boolean; compiled?: CompiledEntries }): DispatchVerdict {
  const found = verdict.coordinatorCollisions;
  if (found === undefined || files === undefined) return verdict;
  try {
    return { ...verdict, coordinatorCollisions: withKnownWitnesses(found, files, options), witnessesDegraded: false };
  } catch {
    return verdict;
  }
}

/** The collisions found, with real files for witnesses when git can list them (row 8: otherwise synthesised ones). No pair is decided again. */
function withWitnesses(raw: RawCollision[], input: DecisionInput, options: { ignoreCase: boolean; compiled: CompiledEntries }): { collisions: RawCollision[]; degraded: boolean } {
  if (input.knownFiles === undefined) return { collisions: raw, degraded: false };
  let files: readonly string[] | undefined;
  try {
    files = input.knownFiles();
  } catch {
    files = undefined;
  }
  if (files === undefined) return { collisions: raw, degraded: true };
  try {
    return { collisions: withKnownWitnesses(raw, files, options), degraded: false };
  } catch {
    return { collisions: raw, degraded: false };
  }
}

export function decideDispatch(input: DecisionInput): DecisionStep {
  const ignoreCase = input.ignoreCase ?? false;
  const compiled = input.compiled ?? new CompiledEntries();
  const nowIso = new Date(input.now).toISOString();
  const record = dispatchRecord(input.request, input.scope, input.now);
  const base = input.ledger.kind === 'ok' ? input.ledger.ledger : emptyLedger(input.request.sessionId, input.waveKey, nowIso);
  const selfHealed = input.ledger.kind === 'corrupt' ? input.ledger.problem : undefined;
  const { partners, replaced, keptSameId } = partition(allRecords(base), record, ignoreCase);
  const persist = (removed: readonly PlacedRecord[]) =>
    updateLedger(base, {
      waveKey: input.waveKey,
      now: nowIso,
      remove: new Set(removed.map(({ record: placed }) => recordKey(placed))),
      add: [record],
      ...(input.request.transcriptPath !== undefined ? { transcriptPath: input.request.transcriptPath } : {}),
    });
  const coordinatorCheck = coordinatorCollisions(record, input, { ignoreCase, compiled });
  // The check against the coordinator's files that could not run: an allow says so (row 9).
  const coordinatorUnchecked = coordinatorCheck.notEvaluable;
  const allow = (row: MatrixRow, extra: Partial<DispatchVerdict>, removed: readonly PlacedRecord[]): DecisionStep => ({
    kind: 'verdict',
    verdict: {
      decision: 'allow',
      row: selfHealed !== undefined ? '7' : coordinatorUnchecked !== undefined && row !== '9' ? '9' : row,
      collisions: [],
      record,
      ledger: persist(removed),
      removed,
      witnessesDegraded: false,
      staleLooking: false,
      ...(selfHealed !== undefined ? { selfHealed } : {}),
      ...(coordinatorUnchecked !== undefined ? { notEvaluable: coordinatorUnchecked } : {}),
      ...extra,
    },
  });

  if (coordinatorCheck.collisions.length > 0) {
    const { collisions: found, degraded } = withWitnesses(coordinatorCheck.collisions, input, { ignoreCase, compiled });
    return {
      kind: 'verdict',
      verdict: {
        decision: 'deny',
        row: '11c',
        collisions: [],
        coordinatorCollisions: found.map(({ entries, witness, kind }) => ({ entries, witness, kind })),
        removed: [],
        witnessesDegraded: degraded,
        staleLooking: false,
        ...(selfHealed !== undefined ? { selfHealed } : {}),
      },
    };
  }

  let raw: RawCollision[];
  // The entries the check ran on: all of them, or after a failure only the literal ones.
  let checked = record;
  let notEvaluable: string | undefined;
  try {
    raw = collisionsWith(record, partners, { ignoreCase, compiled });
  } catch (error) {
    notEvaluable = (error as Error).message;
    // One entry the engine cannot decide must not hide another's plain overlap: the literal entries
    // (an equality test each) are checked on their own, and a collision they find is decided as usual.
    checked = { ...record, files: record.files.filter((entry) => !GLOB_CHARACTER.test(entry)) };
    try {
      raw = collisionsWith(checked, partners, { ignoreCase, compiled });
    } catch {
      raw = [];
    }
    // Row 9: the check could not run. WARN + ALLOW, and the dispatch is still recorded.
    if (raw.length === 0) return allow('9', { notEvaluable }, replaced);
  }
  const sameIdSeen = replaced.length > 0 || keptSameId.length > 0 || partners.some(({ record: prior }) => prior.id === record.id);
  if (raw.length === 0) return allow(sameIdSeen ? '10' : 'clear', {}, replaced);

  // Liveness of every partner a collision was found with: from earlier probes, else ask for a probe. A partner
  // may collide through each of hundreds of entries; its key is spelled once.
  const keys = new Map<LedgerRecord, string>();
  const keyOf = (prior: LedgerRecord) => {
    let key = keys.get(prior);
    if (key === undefined) {
      key = recordKey(prior);
      keys.set(prior, key);
    }
    return key;
  };
  const colliding = [...new Map(raw.map((collision) => [keyOf(collision.partner.record), collision.partner])).values()];
  const unknown = colliding.filter(({ record: prior }) => !input.liveness.has(recordKey(prior)));
  if (unknown.length > 0 && input.canProbe) {
    return {
      kind: 'probe',
      targets: unknown.map(({ record: prior }) => ({
        key: recordKey(prior),
        desc: prior.desc,
        at: prior.at,
        ...(prior.useId !== undefined ? { useId: prior.useId } : {}),
      })),
    };
  }
  const livenessOf = (prior: LedgerRecord): Liveness => input.liveness.get(keyOf(prior)) ?? withTtl('probe-unavailable', prior.at, input.now);

  const { collisions: detailed, degraded: witnessesDegraded } = withWitnesses(raw, input, { ignoreCase, compiled });
  const collisions: Collider[] = detailed.map(({ partner, entries, witness, kind }) => ({ partner, entries, witness, kind, liveness: livenessOf(partner.record) }));
  const inFlight = colliding.filter(({ record: prior }) => livenessOf(prior).inFlight);
  if (inFlight.length > 0) {
    const currentWave = (placed: PlacedRecord) => placed.waveKey === input.waveKey;
    return {
      kind: 'verdict',
      verdict: {
        decision: 'deny',
        row: '11',
        collisions: collisions.filter((collision) => livenessOf(collision.partner.record).inFlight),
        removed: [],
        witnessesDegraded,
        staleLooking: inFlight.some((placed) => isBlind(livenessOf(placed.record)) || !currentWave(placed)),
        ...(selfHealed !== undefined ? { selfHealed } : {}),
      },
    };
  }
  // Row 10a (or 10 when every finished partner is this agent's own earlier run): allow, and prune the
  // partners the transcript shows finished. One that only ran out its TTL stays (it binds no dispatch any
  // more, but if it is in fact still running, its record still ties its subagent to its own scope).
  const onlyOwn = colliding.every(({ record: prior }) => prior.id === record.id);
  // A finished partner a subagent was bound to stays too: the coordinator may resume that subagent
  // (SendMessage, which no dispatch hook sees), and without its record the write gate would hold it to
  // the wave's union instead of its own scope.
  const finished = colliding.filter(({ record: prior }) => !livenessOf(prior).ttlExpired && prior.bound === undefined);
  return allow(onlyOwn ? '10' : '10a', { collisions, witnessesDegraded, ...(notEvaluable !== undefined ? { notEvaluable } : {}) }, [...replaced, ...finished]);
}
