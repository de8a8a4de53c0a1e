// What the planner shows about a wave besides the draft itself: how many files each entry matches,
// who owns each file and folder, which files nobody owns, and which agents collide, explained (the files
// both own today, or a path both would own) with the narrowings that resolve each collision. Pure, and
// fast enough to run on every change in the webview: entry matches are cached per spelling, so a drop
// expands only the new entry.
import { findCollisions } from '../src/planner/scope/collisions';
import type { Collision, ScopeRecord } from '../src/planner/scope/collisions';
import { expand, FileIndex } from '../src/planner/scope/fileIndex';
import { isNameable, literalEntryOf } from '../src/planner/scope/literalEntry';
import { compileScopeEntry } from '../src/planner/scope/scopeEntry';
import type { PlanDraft, WaveDraft } from '../src/protocol/plannerProtocol';

/**
 * A collision between two agents of a wave, explained. `shared` counts the repository files both
 * entries match today; when it is 0 the collision is about paths that do not exist yet (two globs, or a
 * glob and a folder, that would both own any such path), and `witness` is one of them.
 */
export interface WaveCollision extends Collision {
  /** How many existing files both entries match. */
  shared: number;
}

/** Everything derived from one wave. */
export interface WaveAnalysis {
  /** `agentId\0entry` → number of repository files the entry matches. */
  matchCounts: Map<string, number>;
  /** File → ids of the agents whose entries match it. */
  owners: Map<string, string[]>;
  /** Folder (no trailing slash) → ids of the agents that own some file beneath it, in lane order. */
  folderOwners: Map<string, string[]>;
  /** Files owned by two or more agents. */
  contested: Set<string>;
  /** Folders with a contested file beneath. */
  contestedFolders: Set<string>;
  collisions: WaveCollision[];
  /** Agent ids declared twice in the wave. */
  duplicateIds: string[];
  /** How many repository files no agent of the wave owns. */
  unowned: number;
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

  /** The repository files both entries name: how many, and the first of the shorter match list. */
  common(left: string, right: string): { count: number; first: string | undefined } {
    const a = this.filesOf(left);
    const b = this.filesOf(right);
    if (a.length === 0 || b.length === 0) return { count: 0, first: undefined };
    const [small, large] = a.length <= b.length ? [a, right] : [b, left];
    const other = this.setOf(large);
    let count = 0;
    let first: string | undefined;
    for (const file of small) {
      if (!other.has(file)) continue;
      count += 1;
      first ??= file;
    }
    return { count, first };
  }

  /** A repository file both entries name, if there is one. */
  commonFile(left: string, right: string): string | undefined {
    return this.common(left, right).first;
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
  // Folder owners as sets first; most files of a folder share their owners, so each ancestor is
  // visited until one already holds every owner of the file.
  const folderSets = new Map<string, Set<string>>();
  for (const [file, ids] of owners) {
    let slash = file.lastIndexOf('/');
    while (slash > 0) {
      const folder = file.slice(0, slash);
      let set = folderSets.get(folder);
      if (!set) {
        set = new Set();
        folderSets.set(folder, set);
      }
      const before = set.size;
      for (const id of ids) set.add(id);
      if (set.size === before && (ids.length < 2 || contestedFolders.has(folder))) break;
      if (ids.length >= 2) contestedFolders.add(folder);
      slash = folder.lastIndexOf('/');
    }
    if (ids.length >= 2) contested.add(file);
  }
  const laneOrder = new Map(wave.agents.map((agent, index) => [agent.id, index]));
  const folderOwners = new Map<string, string[]>();
  for (const [folder, set] of folderSets) {
    folderOwners.set(folder, [...set].sort((a, b) => (laneOrder.get(a) ?? 0) - (laneOrder.get(b) ?? 0)));
  }
  const records: ScopeRecord[] = wave.agents.map((agent) => ({ id: agent.id, files: agent.entries }));
  // The exact check runs without the file list (about a millisecond); the witness is then made a real
  // file from the matches already cached, the way findCollisions would with knownFiles, without its
  // second expansion of every glob on each change.
  const report = findCollisions(records, { ignoreCase: cache.ignoreCase });
  const collisions = report.collisions.map((collision) => {
    const common = cache.common(collision.entries[0], collision.entries[1]);
    return {
      agents: collision.agents,
      entries: collision.entries,
      kind: collision.kind,
      witness: common.first ?? collision.witness,
      shared: common.count,
    };
  });
  return {
    matchCounts,
    owners,
    folderOwners,
    contested,
    contestedFolders,
    collisions,
    duplicateIds: report.duplicateIds,
    unowned: cache.files.length - owners.size,
  };
}

/**
 * Analyses of every wave of a draft, each computed once per wave object: the reducer keeps a wave it did
 * not change as the same object, so an edit in one wave re-analyses only that wave.
 */
export class DraftAnalyses {
  private readonly byWave = new WeakMap<WaveDraft, WaveAnalysis>();

  constructor(readonly cache: MatchCache) {}

  of(wave: WaveDraft): WaveAnalysis {
    let analysis = this.byWave.get(wave);
    if (!analysis) {
      analysis = analyzeWave(wave, this.cache);
      this.byWave.set(wave, analysis);
    }
    return analysis;
  }
}

/**
 * The files VS Code marks as contested (Explorer badges, gutter): those of the wave the manifest names
 * (the one agents run), or, while the draft names no active wave, of every wave of the draft. Never
 * the selected tab: switching to an empty wave must not clear the marks of a wave that collides.
 */
export function contestedForDecorations(draft: PlanDraft, analyze: (wave: WaveDraft) => WaveAnalysis): string[] {
  const waves = draft.activeWave === undefined ? draft.waves : draft.waves.filter((wave) => wave.wave === draft.activeWave);
  const files = new Set<string>();
  for (const wave of waves) for (const file of analyze(wave).contested) files.add(file);
  return [...files].sort();
}

/** One way out of a collision, for one of its two agents. */
export interface Resolution {
  kind: 'narrow' | 'remove';
  /** The agent whose entry changes, and that entry. */
  agent: string;
  entry: string;
  /** For `narrow`: the files the entry becomes. */
  files?: string[];
}

/**
 * The narrowing of `entry` (held by `agentId`) that resolves its collision with `otherAgentId`: the files
 * the entry matches that no other agent of the wave owns (so the narrowing never trades one collision for
 * another). For a collision over existing files it drops them; for one over paths that do not exist yet it
 * keeps the entry's files of today as plain paths, which no pattern of another agent reaches. Undefined
 * when nothing would be left, when a plain path would stay itself, or when it would be more than `limit`
 * paths (then "remove" is the resolution).
 */
export function narrowEntry(
  wave: WaveDraft,
  agentId: string,
  entry: string,
  otherAgentId: string,
  cache: MatchCache,
  limit = 200,
): string[] | undefined {
  if (!wave.agents.some((agent) => agent.id === otherAgentId)) return undefined;
  const theirs = new Set(wave.agents.filter((agent) => agent.id !== agentId).flatMap((agent) => agent.entries.flatMap((item) => [...cache.filesOf(item)])));
  const mine = cache.filesOf(entry);
  const kept = mine.filter((file) => !theirs.has(file));
  if (kept.length === 0 || kept.length > limit) return undefined;
  // A file no entry can name (a `\` in its name) cannot be kept on its own: removal is the resolution.
  if (!kept.every(isNameable)) return undefined;
  if (kept.length === mine.length && kept.length === 1 && literalEntryOf(kept[0] as string) === entry) return undefined;
  return kept;
}

/**
 * The resolutions of a collision, in the order its agents are named (the first agent's narrowing and
 * removal, then the second's), so the buttons read in the order of the sentence above them.
 */
export function resolutionsOf(wave: WaveDraft, collision: WaveCollision, cache: MatchCache): Resolution[] {
  const result: Resolution[] = [];
  for (const side of [0, 1] as const) {
    const agent = collision.agents[side];
    const entry = collision.entries[side];
    const other = collision.agents[1 - side] as string;
    const files = narrowEntry(wave, agent, entry, other, cache);
    if (files) result.push({ kind: 'narrow', agent, entry, files });
    result.push({ kind: 'remove', agent, entry });
  }
  return result;
}
