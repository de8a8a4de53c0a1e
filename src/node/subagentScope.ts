// What the write gate asks for a Claude Code subagent's write (a payload with `agent_id`): which dispatch
// started it, and so which scope it is held to (src/planner/dispatch/subagentBinding.ts decides). Reads
// the session ledger without its lock (every write of it is atomic, so a read sees one whole version) and,
// only when the subagent is not bound yet, the head of the subagent's own transcript. Never throws.
import { ledgerLocation, readLedger } from './ledgerFile';
import { readLeadingUserTexts } from './transcriptLines';
import { allRecords } from '../planner/dispatch/sessionLedger';
import { resolveSubagentScope, subagentTranscriptPaths } from '../planner/dispatch/subagentBinding';
import type { SubagentScope } from '../planner/dispatch/subagentBinding';
import type { SubagentScopeQuery } from '../planner/enforce/writeGate';

export function readSubagentScope(query: SubagentScopeQuery): SubagentScope {
  try {
    const ledger = readLedger(ledgerLocation(query.root, query.sessionId));
    const agentId = query.agentId?.trim();
    if (agentId === undefined || agentId === '' || ledger.kind !== 'ok') return resolveSubagentScope({ agentId, ledger, leadingTexts: undefined });
    if (allRecords(ledger.ledger).some(({ record }) => record.bound?.agentId === agentId)) return resolveSubagentScope({ agentId, ledger, leadingTexts: undefined });
    const transcript = query.transcriptPath ?? ledger.ledger.transcriptPath;
    const texts = transcript === undefined ? undefined : readLeadingUserTexts(subagentTranscriptPaths(transcript, agentId));
    return resolveSubagentScope({ agentId, ledger, leadingTexts: texts });
  } catch {
    return { kind: 'union', reason: 'ledger-corrupt' };
  }
}
