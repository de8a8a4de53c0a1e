// Which dispatch started a subagent, so the write gate can check the subagent against its own scope
// instead of the wave's union. Claude Code gives a subagent's tool calls an `agent_id` (2.1.64 and later)
// that equals the `agent_id` of its `SubagentStart` hook, but neither carries the dispatch's
// `tool_use_id`, description or prompt. The link that is reliable is the prompt itself: the subagent's
// own transcript (`<project>/<session>/subagents/agent-<agent_id>.jsonl`, `<project>/agent-<agent_id>.jsonl`
// before 2.1.2) opens with the prompt it was dispatched with, and the ledger keeps a digest of every
// dispatch prompt. docs/hooks.md, "Each subagent in its own scope", has the evidence.
//
// Pure: the caller reads the ledger and the head of the subagent's transcript.
import { basename, dirname, join } from 'node:path';
import type { BindingFallbackReason } from './dispatchEvents';
import type { LedgerRead, PlacedRecord, SessionLedger } from './sessionLedger';
import type { WaveRival } from '../scope/testSiblings';
import { allRecords, patchRecord, promptDigest, recordKey, waveOfKey } from './sessionLedger';

/** What a subagent's writes are checked against. */
export type SubagentScope =
  | {
      readonly kind: 'bound';
      /** `ledger`: the subagent-start hook recorded the binding; `prompt`: found now from its transcript. */
      readonly via: 'ledger' | 'prompt';
      readonly placed: PlacedRecord;
      /**
       * The declared agent of the wave the dispatch named, when it named one: the write gate then checks
       * the subagent against that agent's scope file, exactly as for `WAVE_SCOPE_AGENT`.
       */
      readonly agent?: string;
      /** The dispatch's claim (declared scope and prompt block); for a dispatch without a declared agent. */
      readonly files: readonly string[];
      /** The wave the dispatch was recorded in (undefined for `w?`). */
      readonly wave?: number;
      /**
       * The session's other dispatches recorded under the same wave key, finished or not, each named by its
       * declared agent or its id, with its claim: a subagent bound only to its claim gets a test sibling
       * only where none of them claims the path (src/planner/scope/testSiblings.ts).
       */
      readonly peers: readonly WaveRival[];
    }
  | { readonly kind: 'union'; readonly reason: BindingFallbackReason };

/** An `agent_id` that can be part of a file name (Claude Code's are short hex or `name@team` strings). */
const SAFE_AGENT_ID = /^[A-Za-z0-9][A-Za-z0-9@._-]{0,127}$/;

/**
 * Where a subagent's own transcript can be, newest layout first, given the session transcript
 * (`<project>/<session>.jsonl`). Empty when `agentId` could not be a file name.
 */
export function subagentTranscriptPaths(sessionTranscript: string, agentId: string): string[] {
  if (!SAFE_AGENT_ID.test(agentId) || agentId.includes('..')) return [];
  const project = dirname(sessionTranscript);
  const session = basename(sessionTranscript).replace(/\.jsonl$/, '');
  const file = `agent-${agentId}.jsonl`;
  return [join(project, session, 'subagents', file), join(project, file)];
}

function bound(placed: PlacedRecord, via: 'ledger' | 'prompt', records: readonly PlacedRecord[]): SubagentScope {
  const wave = waveOfKey(placed.waveKey);
  const key = recordKey(placed.record);
  const peers = records
    .filter((other) => other.waveKey === placed.waveKey && recordKey(other.record) !== key)
    .map(({ record }) => ({ agent: record.agent ?? record.id, entries: record.files }));
  return {
    kind: 'bound',
    via,
    placed,
    ...(placed.record.agent !== undefined ? { agent: placed.record.agent } : {}),
    files: placed.record.files,
    ...(wave !== undefined ? { wave } : {}),
    peers,
  };
}

/**
 * The scope of the subagent `agentId`: the record already bound to it, else the one unbound record whose
 * prompt digest equals one of `leadingTexts` (the user texts that open the subagent's transcript;
 * undefined when it could not be read), else the wave's union with the reason.
 */
export function resolveSubagentScope(input: { agentId: string | undefined; ledger: LedgerRead; leadingTexts: readonly string[] | undefined }): SubagentScope {
  if (input.agentId === undefined || input.agentId === '') return { kind: 'union', reason: 'no-agent-id' };
  if (input.ledger.kind === 'absent') return { kind: 'union', reason: 'no-ledger' };
  if (input.ledger.kind === 'corrupt') return { kind: 'union', reason: 'ledger-corrupt' };
  const records = allRecords(input.ledger.ledger);
  const already = records.filter(({ record }) => record.bound?.agentId === input.agentId);
  if (already.length > 0) return bound(already[already.length - 1] as PlacedRecord, 'ledger', records);
  if (input.leadingTexts === undefined) return { kind: 'union', reason: 'no-subagent-transcript' };
  const digests = new Set(input.leadingTexts.map(promptDigest));
  const candidates = records.filter(({ record }) => record.prompt !== undefined && digests.has(record.prompt) && record.bound === undefined);
  if (candidates.length === 1) return bound(candidates[0] as PlacedRecord, 'prompt', records);
  return { kind: 'union', reason: candidates.length === 0 ? 'no-matching-dispatch' : 'ambiguous' };
}

/** The ledger with the binding recorded on the record it names. */
export function recordBinding(ledger: SessionLedger, placed: PlacedRecord, agentId: string, now: number): SessionLedger {
  const at = new Date(now).toISOString();
  return patchRecord(ledger, recordKey(placed.record), (record) => ({ ...record, bound: { agentId, via: 'prompt', at } }), at);
}
