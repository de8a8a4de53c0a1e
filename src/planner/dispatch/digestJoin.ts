// `wave-scope digest --verify`: the send side (what the guard saw in dispatch prompts, from the events)
// and the receive side (what agents echoed in their reports) joined with the plan (the declared digests)
// on the digest, never on a name (descriptions and handles rarely agree; a digest is the one key both
// halves carry). A joined digest proves that a line made the round trip, never that an agent obeyed it.
import { COORDINATOR_ID } from '../plan/agentId';
import { SCOPE_CHECKED_EVENT } from './dispatchEvents';
import type { DeclaredAgent } from './dispatchScope';

/** The verdict for one digest. */
export type DigestVerdict =
  /** Declared, seen in a dispatch prompt, and echoed. */
  | 'matched'
  /** Declared and dispatched, never echoed. */
  | 'injected-not-echoed'
  /** Declared and echoed, but no dispatch prompt carried its block. */
  | 'echoed-not-injected'
  /** Declared, neither dispatched nor echoed. */
  | 'injection-missing'
  /** Dispatched or echoed, but no declared agent has it. */
  | 'digest-unknown'
  /** Declared by more than one agent, or echoed by more than one report. */
  | 'duplicate-claim';

export const DIGEST_VERDICTS: readonly DigestVerdict[] = ['matched', 'injected-not-echoed', 'echoed-not-injected', 'injection-missing', 'digest-unknown', 'duplicate-claim'];

export interface DigestJoinRow {
  readonly digest: string;
  readonly verdict: DigestVerdict;
  /** Declared agents with this digest. */
  readonly agents: readonly string[];
  /** Allowed dispatches whose block had this digest. */
  readonly dispatched: number;
  /** Reports that echoed it. */
  readonly echoed: number;
}

export interface DigestJoin {
  readonly rows: readonly DigestJoinRow[];
  /** False when no dispatch of the wave was seen at all (the guard is not installed, or nothing was dispatched). */
  readonly transportObserved: boolean;
}

function count(values: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return counts;
}

/** Joins the three sides. The coordinator's record takes no part: it is a declaration, never a dispatch. */
export function joinDigests(input: {
  readonly declared: readonly DeclaredAgent[];
  /** Block digests of the wave's allowed dispatches (one per dispatch). */
  readonly dispatched: readonly string[];
  /** Echoed digests (one per report). */
  readonly echoed: readonly string[];
  /** Whether any dispatch of the wave was seen (allowed or not). */
  readonly transportObserved: boolean;
}): DigestJoin {
  const agents = input.declared.filter((agent) => agent.id !== COORDINATOR_ID);
  const owners = new Map<string, string[]>();
  for (const agent of agents) owners.set(agent.digest, [...(owners.get(agent.digest) ?? []), agent.id]);
  const dispatched = count(input.dispatched);
  const echoed = count(input.echoed);
  const order = [...new Set([...agents.map((agent) => agent.digest), ...[...new Set([...dispatched.keys(), ...echoed.keys()])].sort()])];
  const rows = order.map((digest): DigestJoinRow => {
    const declaredBy = owners.get(digest) ?? [];
    const sent = dispatched.get(digest) ?? 0;
    const received = echoed.get(digest) ?? 0;
    let verdict: DigestVerdict;
    if (declaredBy.length > 1 || received > 1) verdict = 'duplicate-claim';
    else if (declaredBy.length === 0) verdict = 'digest-unknown';
    else if (sent > 0) verdict = received > 0 ? 'matched' : 'injected-not-echoed';
    else verdict = received > 0 ? 'echoed-not-injected' : 'injection-missing';
    return { digest, verdict, agents: declaredBy, dispatched: sent, echoed: received };
  });
  return { rows, transportObserved: input.transportObserved };
}

/**
 * The send side from the events file's lines: the block digest of every allowed dispatch of `wave`
 * (optionally of one session, by its hash), and whether any dispatch of the wave was seen at all.
 */
export function dispatchedDigests(lines: Iterable<string>, wave: number, session?: string | null): { digests: string[]; observed: boolean } {
  const digests: string[] = [];
  let observed = false;
  for (const line of lines) {
    if (!line.includes(SCOPE_CHECKED_EVENT)) continue;
    let event: unknown;
    try {
      event = JSON.parse(line);
    } catch {
      continue;
    }
    if (typeof event !== 'object' || event === null) continue;
    const record = event as Record<string, unknown>;
    if (record.event !== SCOPE_CHECKED_EVENT || record.wave !== wave) continue;
    if (session !== undefined && session !== null && record.session !== session) continue;
    observed = true;
    if (record.decision === 'allow' && typeof record.scope_digest === 'string') digests.push(record.scope_digest);
  }
  return { digests, observed };
}
