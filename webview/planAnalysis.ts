// What the planner shows about a wave besides the draft itself: how many files each entry matches,
// who owns each file, and which agents collide (with a witness path). Pure, and fast enough to run on
// every change in the webview: entry matches are cached per spelling, so a drop expands only the new entry.
import { findCollisions } from '../src/planner/scope/collisions';
import type { Collision } from '../src/planner/scope/collisions';
import { expand, FileIndex } from '../src/planner/scope/fileIndex';
import type { ScopeRecord } from '../src/planner/scope/collisions';
import { compileScopeEntry } from '../src/planner/scope/scopeEntry';
import type { WaveDraft } from '../src/protocol/plannerProtocol';

/** A collision between two agents of the open wave (the scope engine's own shape). */
export type WaveCollision = Collision;

/** Everything derived from one wave. */
export interface WaveAnalysis {
  /** `agentId\0entry` → number of repository files the entry matches. */
  matchCounts: Map<string, number>;
  /** File → ids of the agents whose entries match it. */
  owners: Map<string, string[]>;
  /** Files owned by two or more agents. */
  contested: Set<string>;
  /** Folders with a contested file beneath. */
  contestedFolders: Set<string>;
  collisions: WaveCollision[];
  /** Agent ids declared twice in the wave. */
  duplicateIds: string[];
}

/** Key of an entry in `WaveAnalysis.matchCounts`. */
export function entryKey(agentId: string, entry: string): string {
  return `${agentId}\0${entry}`;
}

/** Repository files and the matches of every entry seen so far. */
export class MatchCache {
  private built: FileIndex | undefined;
  private readonly matches = new Map<string, readonly string[]>();
  private readonly sets = new Map<string, ReadonlySet<string>>();

  constructor(
    readonly files: readonly string[],
    readonly ignoreCase = false,
  ) {}

  /** The file index, built on first use (so the tree can be painted before it exists). */
  get index(): FileIndex {
    this.built ??= new FileIndex(this.files, { ignoreCase: this.ignoreCase });
    return this.built;
  }

  /** The files `entry` matches, as a set (for intersecting two entries). */
  setOf(entry: string): ReadonlySet<string> {
    let set = this.sets.get(entry);
    if (!set) {
      set = new Set(this.filesOf(entry));
      this.sets.set(entry, set);
    }
    return set;
  }

  /** A repository file both entries name, if there is one: the first of the shorter match list. */
  commonFile(left: string, right: string): string | undefined {
    const a = this.filesOf(left);
    const b = this.filesOf(right);
    if (a.length === 0 || b.length === 0) return undefined;
    const [small, large] = a.length <= b.length ? [a, right] : [b, left];
    const other = this.setOf(large);
    return small.find((file) => other.has(file));
  }

  /** The files `entry` matches; computed once per spelling. */
  filesOf(entry: string): readonly string[] {
    const known = this.matches.get(entry);
    if (known) return known;
    this.prime([entry]);
    return this.matches.get(entry) ?? [];
  }

  /**
   * Matches every entry not yet cached. A plain path is one lookup and `dir/` one range of the sorted
   * index (so dropping a folder costs a binary search, not a scan); globs are expanded in one pass.
   */
  prime(entries: readonly string[]): void {
    const missing = [...new Set(entries.filter((entry) => !this.matches.has(entry)))];
    if (missing.length === 0) return;
    const globs: string[] = [];
    for (const entry of missing) {
      const isDir = entry.endsWith('/');
      const path = isDir ? entry.slice(0, -1) : entry;
      if (path === '' || compileScopeEntry(path, { ignoreCase: this.ignoreCase }).kind !== 'plain') {
        globs.push(entry);
        continue;
      }
      if (!isDir) {
        const spelling = this.index.spellingOf(path);
        this.matches.set(entry, spelling === undefined ? [] : [spelling]);
        continue;
      }
      const key = this.index.keyOf(path);
      const exact = this.index.spellingOf(path);
      const under = this.index.filesUnder(key);
      this.matches.set(entry, exact === undefined ? under : under.filter((file) => file !== exact));
    }
    if (globs.length === 0) return;
    const expanded = expand(globs, this.index, { ignoreCase: this.ignoreCase });
    for (const entry of globs) this.matches.set(entry, expanded.get(entry) ?? []);
  }
}

/** Analyses one wave against the repository's files. */
export function analyzeWave(wave: WaveDraft, cache: MatchCache): WaveAnalysis {
  cache.prime(wave.agents.flatMap((agent) => agent.entries));
  const matchCounts = new Map<string, number>();
  const owners = new Map<string, string[]>();
  for (const agent of wave.agents) {
    const mine = new Set<string>();
    for (const entry of agent.entries) {
      const files = cache.filesOf(entry);
      matchCounts.set(entryKey(agent.id, entry), files.length);
      for (const file of files) mine.add(file);
    }
    for (const file of mine) {
      const list = owners.get(file);
      if (list) list.push(agent.id);
      else owners.set(file, [agent.id]);
    }
  }
  const contested = new Set<string>();
  const contestedFolders = new Set<string>();
  for (const [file, ids] of owners) {
    if (ids.length < 2) continue;
    contested.add(file);
    let slash = file.lastIndexOf('/');
    while (slash > 0) {
      const folder = file.slice(0, slash);
      if (contestedFolders.has(folder)) break;
      contestedFolders.add(folder);
      slash = folder.lastIndexOf('/');
    }
  }
  const records: ScopeRecord[] = wave.agents.map((agent) => ({ id: agent.id, files: agent.entries }));
  // The exact check runs without the file list (about a millisecond); the witness is then made a real
  // file from the matches already cached, the way findCollisions would with knownFiles, without its
  // second expansion of every glob on each change.
  const report = findCollisions(records, { ignoreCase: cache.ignoreCase });
  const collisions = report.collisions.map((collision) => ({
    agents: collision.agents,
    entries: collision.entries,
    kind: collision.kind,
    witness: cache.commonFile(collision.entries[0], collision.entries[1]) ?? collision.witness,
  }));
  // A glob-against-glob witness may name a file that does not exist yet: still contested.
  return { matchCounts, owners, contested, contestedFolders, collisions, duplicateIds: report.duplicateIds };
}

/**
 * The narrowing of `entry` (held by `agentId`) that gives up what `otherAgentId` owns: the files the
 * entry matches that the other agent does not. Undefined when that would be more than `limit` paths
 * or nothing would be left (then "remove" is the resolution).
 */
export function narrowEntry(
  wave: WaveDraft,
  agentId: string,
  entry: string,
  otherAgentId: string,
  cache: MatchCache,
  limit = 200,
): string[] | undefined {
  const other = wave.agents.find((agent) => agent.id === otherAgentId);
  if (!other) return undefined;
  const theirs = new Set(other.entries.flatMap((item) => [...cache.filesOf(item)]));
  const kept = cache.filesOf(entry).filter((file) => !theirs.has(file));
  if (kept.length === 0 || kept.length > limit) return undefined;
  if (kept.length === cache.filesOf(entry).length) return undefined;
  return kept;
}
