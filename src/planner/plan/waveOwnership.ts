// Who owns which repository file in one wave, as the editor shows it: every file's owners with the
// entry that names it, the collisions between agents (with the scope engine's witnesses, globs that
// meet beyond the known files included), the contested files, and how an entry could be narrowed so
// that the other agent keeps the files they share. The planner webview computes the same for its open
// wave (webview/planAnalysis.ts); the extension asks this module for the wave the manifest names.
import { findCollisions } from '../scope/collisions';
import type { Collision } from '../scope/collisions';
import { expand, FileIndex } from '../scope/fileIndex';
import { compileScopeEntry } from '../scope/scopeEntry';
import { isNameable } from '../scope/literalEntry';

/** One agent of a wave: its id and its normalised entries. */
export interface OwnershipAgent {
  readonly id: string;
  readonly entries: readonly string[];
}

/** An agent that owns a file, and the first of its entries that names it. */
export interface OwnershipClaim {
  readonly agent: string;
  readonly entry: string;
}

/** One wave's ownership of the repository's files. */
export interface WaveOwnership {
  readonly wave: number;
  /** Every repository file some agent's entry names → its owners, in the wave's agent order. */
  readonly owners: ReadonlyMap<string, readonly OwnershipClaim[]>;
  /** Pairs of agents whose entries share a path (the engine's exact answer). */
  readonly collisions: readonly Collision[];
  /** Ids used twice (compared case-insensitively). */
  readonly duplicateIds: readonly string[];
  /** Repository files two or more agents own, sorted. */
  readonly contested: readonly string[];
  /** Entries the grammar refuses (a hand-edited declaration): they name nothing here. */
  readonly invalidEntries: readonly OwnershipClaim[];
}

/** Splits off the entries the grammar refuses, so one bad entry cannot hide the rest of the wave. */
function usableAgents(agents: readonly OwnershipAgent[], ignoreCase: boolean): { agents: { id: string; files: string[] }[]; invalid: OwnershipClaim[] } {
  const invalid: OwnershipClaim[] = [];
  const usable = agents.map((agent) => ({
    id: agent.id,
    files: agent.entries.filter((entry) => {
      try {
        compileScopeEntry(entry, { ignoreCase });
        return true;
      } catch {
        invalid.push({ agent: agent.id, entry });
        return false;
      }
    }),
  }));
  return { agents: usable, invalid };
}

/** Ownership of `files` (repository-relative) by the agents of one wave. */
export function waveOwnership(wave: number, agents: readonly OwnershipAgent[], files: FileIndex | readonly string[], options: { ignoreCase?: boolean } = {}): WaveOwnership {
  const ignoreCase = options.ignoreCase ?? (files instanceof FileIndex ? files.ignoreCase : false);
  const index = files instanceof FileIndex ? files : new FileIndex(files, { ignoreCase });
  const { agents: records, invalid } = usableAgents(agents, ignoreCase);
  const report = findCollisions(records, { knownFiles: index, ignoreCase });
  const matched = expand([...new Set(records.flatMap((record) => record.files))], index, { ignoreCase });
  const owners = new Map<string, OwnershipClaim[]>();
  for (const record of records) {
    for (const entry of record.files) {
      for (const file of matched.get(entry) ?? []) {
        const claims = owners.get(file) ?? [];
        if (!claims.some((claim) => claim.agent === record.id)) claims.push({ agent: record.id, entry });
        owners.set(file, claims);
      }
    }
  }
  const contested = [...owners].filter(([, claims]) => claims.length > 1).map(([file]) => file).sort();
  return { wave, owners, collisions: report.collisions, duplicateIds: report.duplicateIds, contested, invalidEntries: invalid };
}

/**
 * The files `entry` of `agent` would keep if it gave up those `other` owns: undefined when the entry
 * names no known file beyond the other agent's (a plain path, a glob whose overlap lies beyond the
 * known files), when it would keep nothing, or more than `limit` files (a list a person cannot review).
 * The same rule as the planner's Narrow button.
 */
export function narrowedEntry(
  agents: readonly OwnershipAgent[],
  agent: string,
  entry: string,
  other: string,
  files: FileIndex | readonly string[],
  options: { ignoreCase?: boolean; limit?: number } = {},
): string[] | undefined {
  const ignoreCase = options.ignoreCase ?? (files instanceof FileIndex ? files.ignoreCase : false);
  const index = files instanceof FileIndex ? files : new FileIndex(files, { ignoreCase });
  const theirs = agents.find((item) => item.id === other);
  if (theirs === undefined) return undefined;
  const { agents: [usable] } = usableAgents([theirs], ignoreCase);
  let own: string[];
  try {
    compileScopeEntry(entry, { ignoreCase });
    own = expand([entry], index, { ignoreCase }).get(entry) ?? [];
  } catch {
    return undefined;
  }
  const matched = expand(usable?.files ?? [], index, { ignoreCase });
  const taken = new Set((usable?.files ?? []).flatMap((item) => matched.get(item) ?? []).map((file) => index.keyOf(file)));
  const kept = own.filter((file) => !taken.has(index.keyOf(file)));
  if (kept.length === 0 || kept.length === own.length || kept.length > (options.limit ?? 200)) return undefined;
  // A file no entry can name (a `\` in its name) cannot be kept on its own: removal is the resolution.
  if (!kept.every(isNameable)) return undefined;
  return kept;
}
