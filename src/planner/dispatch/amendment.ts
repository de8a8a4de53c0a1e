// `wave-scope amend`: an agent that needs one more file asks, and the coordinator adds it to the plan
// instead of the agent routing around its scope. Before the plan is rewritten (through the one safe
// chain, writeWavePlan), the new entries are proven disjoint against every sibling of the wave's
// declarations and against every sibling still in flight in the ledger. Pure: the caller reads the
// declarations, the ledger and the transcript, and writes.
import { COORDINATOR_ID, isAgentId } from '../plan/agentId';
import type { DeclaredRecord } from '../plan/declarationInput';
import { findCollisions } from '../scope/collisions';
import type { ScopeRecord } from '../scope/collisions';
import { normalizeScopeEntry, ScopeEntryError } from '../scope/scopeEntry';
import type { GrammarOptions } from '../scope/scopeEntry';
import type { Liveness, ProbeTarget } from './liveness';
import { withTtl } from './liveness';
import type { LedgerRead, LedgerRecord, PlacedRecord, SessionLedger } from './sessionLedger';
import { allRecords, recordKey, waveOfKey } from './sessionLedger';

/** A sibling that owns a path one of the new entries names. */
export interface AmendConflict {
  /** The sibling: a declared agent id, or a ledger record's id. */
  readonly sibling: string;
  /** The new entry and the sibling's entry. */
  readonly entries: readonly [string, string];
  readonly witness: string;
  /** For a ledger sibling: how it is known to be in flight. */
  readonly liveness?: Liveness;
}

export type AmendCheck =
  | { readonly kind: 'invalid'; readonly problems: readonly string[] }
  | { readonly kind: 'refused-declared'; readonly conflicts: readonly AmendConflict[] }
  | { readonly kind: 'probe'; readonly targets: readonly ProbeTarget[] }
  | { readonly kind: 'refused-in-flight'; readonly conflicts: readonly AmendConflict[] }
  | {
      readonly kind: 'ok';
      /** The wave's records with the agent's new entries appended (the input for writeWavePlan). */
      readonly records: readonly DeclaredRecord[];
      /** The new entries, normalised, not already in the agent's scope. */
      readonly added: readonly string[];
    };

export interface AmendInput {
  readonly agentId: string;
  /** The entries to add, as written. */
  readonly add: readonly string[];
  readonly reason: string;
  /** The wave's declared records (the aggregate). */
  readonly records: readonly DeclaredRecord[];
  readonly ledger: LedgerRead;
  readonly liveness: ReadonlyMap<string, Liveness>;
  readonly canProbe: boolean;
  readonly now: number;
  readonly grammar?: GrammarOptions;
  readonly knownFiles?: readonly string[];
}

/** Whether a ledger record is the amended agent's own dispatch. */
export function isOwnRecord(record: LedgerRecord, agentId: string): boolean {
  return record.agent === agentId || record.id === agentId;
}

const NEW_ID = '#amend';

/** Checks an amendment. Never throws for bad input. */
export function checkAmendment(input: AmendInput): AmendCheck {
  const problems: string[] = [];
  if (!isAgentId(input.agentId)) problems.push(`agent id "${input.agentId}" is not a valid agent id`);
  if (input.agentId === COORDINATOR_ID) problems.push('the coordinator\'s own edits are not a dispatch: change them with "wave-scope plan write"');
  if (input.reason.trim() === '') problems.push('--reason must say why the agent needs the entries (it is recorded with the amendment)');
  if (input.add.length === 0) problems.push('name at least one entry with --add');
  const own = input.records.find((record) => record.id === input.agentId);
  if (own === undefined && isAgentId(input.agentId)) problems.push(`agent "${input.agentId}" is not declared in this wave`);
  const normalised: string[] = [];
  for (const raw of input.add) {
    try {
      normalised.push(normalizeScopeEntry(raw, input.grammar));
    } catch (error) {
      if (!(error instanceof ScopeEntryError)) throw error;
      problems.push(`--add ${JSON.stringify(raw)}: ${error.message}`);
    }
  }
  if (problems.length > 0 || own === undefined) return { kind: 'invalid', problems };
  const added = [...new Set(normalised)].filter((entry) => !own.files.includes(entry));
  if (added.length === 0) return { kind: 'invalid', problems: [`agent "${input.agentId}" already declares ${normalised.join(', ')}`] };
  const ignoreCase = input.grammar?.ignoreCase ?? false;
  const knownFiles = input.knownFiles;

  // Against the declarations: the new entries with every other declared agent (the coordinator included).
  const declaredCheck: ScopeRecord[] = [{ id: NEW_ID, files: added }, ...input.records.filter((record) => record.id !== input.agentId)];
  const declared = findCollisions(declaredCheck, { ignoreCase, ...(knownFiles !== undefined ? { knownFiles } : {}) });
  const declaredConflicts = declared.collisions
    .filter((collision) => collision.agents.includes(NEW_ID))
    .map((collision): AmendConflict => {
      const mine = collision.agents.indexOf(NEW_ID);
      return { sibling: collision.agents[1 - mine] as string, entries: [collision.entries[mine] as string, collision.entries[1 - mine] as string], witness: collision.witness };
    });
  if (declaredConflicts.length > 0) return { kind: 'refused-declared', conflicts: declaredConflicts };

  // Against every sibling still in flight (any wave of the session: an agent of an earlier wave may still run).
  const siblings = input.ledger.kind === 'ok' ? allRecords(input.ledger.ledger).filter(({ record }) => !isOwnRecord(record, input.agentId)) : [];
  const ledgerCheck: ScopeRecord[] = [{ id: NEW_ID, files: added }, ...siblings.map((placed, index) => ({ id: `#${index}`, files: [...placed.record.files] }))];
  const report = findCollisions(ledgerCheck, { ignoreCase, ...(knownFiles !== undefined ? { knownFiles } : {}) });
  const hits = report.collisions
    .filter((collision) => collision.agents.includes(NEW_ID))
    .map((collision) => {
      const mine = collision.agents.indexOf(NEW_ID);
      const other = collision.agents[1 - mine] as string;
      return { placed: siblings[Number(other.slice(1))] as PlacedRecord, entries: [collision.entries[mine] as string, collision.entries[1 - mine] as string] as const, witness: collision.witness };
    });
  const unknown = [...new Map(hits.map((hit) => [recordKey(hit.placed.record), hit.placed])).values()].filter(({ record }) => !input.liveness.has(recordKey(record)));
  if (unknown.length > 0 && input.canProbe) {
    return {
      kind: 'probe',
      targets: unknown.map(({ record }) => ({ key: recordKey(record), desc: record.desc, at: record.at, ...(record.useId !== undefined ? { useId: record.useId } : {}) })),
    };
  }
  const livenessOf = (record: LedgerRecord) => input.liveness.get(recordKey(record)) ?? withTtl('probe-unavailable', record.at, input.now);
  const inFlight = hits.filter((hit) => livenessOf(hit.placed.record).inFlight);
  if (inFlight.length > 0) {
    return {
      kind: 'refused-in-flight',
      conflicts: inFlight.map((hit) => ({ sibling: hit.placed.record.id, entries: hit.entries, witness: hit.witness, liveness: livenessOf(hit.placed.record) })),
    };
  }
  return {
    kind: 'ok',
    records: input.records.map((record) => (record.id === input.agentId ? { id: record.id, files: [...record.files, ...added] } : { id: record.id, files: [...record.files] })),
    added,
  };
}

/** The ledger with the agent's own records of `wave` claiming the added entries too (so later dispatches see them). */
export function amendLedger(ledger: SessionLedger, wave: number, agentId: string, added: readonly string[], now: number): SessionLedger {
  const waves: Record<string, LedgerRecord[]> = {};
  for (const [key, records] of Object.entries(ledger.waves)) {
    const ofWave = waveOfKey(key) === wave;
    waves[key] = records.map((record) => (ofWave && isOwnRecord(record, agentId) ? { ...record, files: [...new Set([...record.files, ...added])] } : record));
  }
  return { ...ledger, updated: new Date(now).toISOString(), waves };
}

/** The command line an agent can relay to its coordinator to ask for entries (for deny reasons). */
export function amendCommandLine(wave: number | undefined, agentId: string, entries: readonly string[]): string {
  const quote = (text: string) => (/^[A-Za-z0-9_./*-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`);
  return `wave-scope amend --wave ${wave ?? '<N>'} --agent ${quote(agentId)} ${entries.map((entry) => `--add ${quote(entry)}`).join(' ')} --reason '<why the agent needs it>'`;
}
