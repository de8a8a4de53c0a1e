// The proof that a wave is disjoint from every wave another clone still claims, with the same exact engine
// as a local wave (src/planner/scope/collisions.ts). Each agent is compared by what the write gate will let
// it write: its declared entries plus the test siblings its wave's role grants (the gate's per-agent check
// expands them the same way), so two clones can never both be allowed one test file either.
import { findCollisions } from '../scope/collisions';
import type { ScopeRecord } from '../scope/collisions';
import type { FileIndex } from '../scope/fileIndex';
import { normalizeScopeEntry } from '../scope/scopeEntry';
import { expandTestSiblings } from '../scope/testSiblings';
import type { Claim } from './claims';

/** One wave's scopes: its agents' records and the role that selects their test siblings. */
export interface WaveScopes {
  role: string;
  records: readonly ScopeRecord[];
}

/** A wave another clone claims, with its scopes. */
export interface ClaimedWaveScopes extends WaveScopes {
  claim: Claim;
}

/** One of our agents and one of theirs that can write the same path. */
export interface ClaimConflict {
  /** Our agent and its entry (normalised; a test sibling when `testSibling`). */
  agent: string;
  entry: string;
  testSibling: boolean;
  /** The other clone's claim, agent and entry. */
  other: {
    clone: string;
    cloneName: string;
    wave: number;
    session: string | null;
    claimedAt: string;
    expiresAt: string;
    agent: string;
    entry: string;
    testSibling: boolean;
  };
  /** `concrete` when either entry is a plain path, `glob` when both are patterns. */
  kind: 'concrete' | 'glob';
  /** A path both entries name: a known file when one is known, otherwise a synthesised one. */
  witness: string;
}

export interface ClaimConflictOptions {
  /** Fold case: true when any of the clones involved is case-insensitive. */
  ignoreCase?: boolean;
  /** Known repository files, for real witnesses. */
  knownFiles?: FileIndex | readonly string[];
}

/** An agent's effective entries: declared ones first, then their test siblings; entries the grammar refuses grant nothing. */
export function effectiveEntries(files: readonly string[], role: string): { entries: string[]; siblings: Set<string> } {
  const declared = new Set(files);
  const entries: string[] = [];
  const siblings = new Set<string>();
  for (const entry of expandTestSiblings(files, { role })) {
    let spelling: string;
    try {
      spelling = normalizeScopeEntry(entry);
    } catch {
      continue;
    }
    if (entries.includes(spelling)) continue;
    entries.push(spelling);
    if (!declared.has(entry)) siblings.add(spelling);
  }
  return { entries, siblings };
}

/**
 * Every pair of (our agent, another clone's agent) whose effective scopes share a path, with both entries
 * and a witness. Empty means our wave is disjoint from every wave in `claimed`. Pairs inside one wave are
 * not reported (each wave was proven disjoint by its own clone); neither are pairs between two other waves.
 */
export function findClaimConflicts(ours: WaveScopes, claimed: readonly ClaimedWaveScopes[], options: ClaimConflictOptions = {}): ClaimConflict[] {
  if (claimed.length === 0 || ours.records.length === 0) return [];
  // One record list for the engine; ids are made unique per wave (`<wave index>:<id>`), so no id is
  // "used twice" across waves, and mapped back below.
  const owners: Array<{ wave: number; id: string; siblings: Set<string> }> = [];
  const records: ScopeRecord[] = [];
  const add = (waveIndex: number, scopes: WaveScopes) => {
    for (const record of scopes.records) {
      const { entries, siblings } = effectiveEntries(record.files, scopes.role);
      owners.push({ wave: waveIndex, id: record.id, siblings });
      records.push({ id: `${waveIndex}:${record.id}`, files: entries });
    }
  };
  add(0, ours);
  claimed.forEach((wave, index) => add(index + 1, wave));
  const ownerOf = new Map(records.map((record, index) => [record.id, owners[index] as (typeof owners)[number]]));
  const report = findCollisions(records, { ignoreCase: options.ignoreCase, knownFiles: options.knownFiles });
  const conflicts: ClaimConflict[] = [];
  for (const collision of report.collisions) {
    const left = ownerOf.get(collision.agents[0]);
    const right = ownerOf.get(collision.agents[1]);
    if (left === undefined || right === undefined || (left.wave === 0) === (right.wave === 0)) continue;
    const [mine, mineEntry, theirs, theirEntry] =
      left.wave === 0 ? [left, collision.entries[0], right, collision.entries[1]] : [right, collision.entries[1], left, collision.entries[0]];
    const claim = (claimed[theirs.wave - 1] as ClaimedWaveScopes).claim;
    conflicts.push({
      agent: mine.id,
      entry: mineEntry,
      testSibling: mine.siblings.has(mineEntry),
      other: {
        clone: claim.clone,
        cloneName: claim.cloneName,
        wave: claim.wave,
        session: claim.session,
        claimedAt: claim.claimedAt,
        expiresAt: claim.expiresAt,
        agent: theirs.id,
        entry: theirEntry,
        testSibling: theirs.siblings.has(theirEntry),
      },
      kind: collision.kind,
      witness: collision.witness,
    });
  }
  return conflicts;
}
