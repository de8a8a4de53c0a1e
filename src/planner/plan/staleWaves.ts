// Which waves a save would write over (or remove) although someone changed them on disk after the draft was
// made: `wave-scope plan write --wave N`, a `wave-scope sync`, another window's save. The draft's base is the
// plan on disk it was edited from; a wave whose declared agents and entries on disk differ from that wave in
// the base was changed since, and saving the draft would silently undo that change. Pure: the declared
// records arrive as data, and what changed is said in words a person can act on.
import { FileIndex } from '../scope/fileIndex';
import { foldCase, normalizeScopeEntry } from '../scope/scopeEntry';
import { promoteDirectory } from './scopeRecords';

/** One agent of one wave as it is compared: its id and its entries (order and spelling aside). */
export interface WaveAgentRecord {
  id: string;
  entries: string[];
}

/** One wave's agents as they were on disk, which a person chose to overwrite (SaveDraftOptions.overwrite). */
export interface WaveOnDisk {
  wave: number;
  agents: WaveAgentRecord[];
}

/** A wave changed on disk since the draft was made, which the save would write over or remove. */
export interface StaleWave {
  wave: number;
  /** `write`: the draft has this wave and would write its own version; `remove`: the draft deleted it. */
  action: 'write' | 'remove';
  /** What changed on disk since the draft was made, one plain sentence each. */
  changes: string[];
  /** The wave's agents on disk now: an overwrite names them back, so a wave changed again is refused again. */
  onDisk: WaveAgentRecord[];
}

/** The plans a staleness check compares, by wave number. */
export interface StaleWaveCheck {
  /** The waves the draft would write. */
  draftWaves: readonly number[];
  /** The plan on disk the draft was edited from. */
  base: readonly { wave: number; agents: readonly WaveAgentRecord[] }[];
  /** Waves that have anything on disk now. */
  declaredWaves: readonly number[];
  /** A wave's declared agents on disk now (its aggregate's records; none when it has no valid aggregate). */
  onDisk(wave: number): WaveAgentRecord[];
  /** Waves a person chose to overwrite, as they were on disk when shown: only that exact version is overwritten. */
  overwrite?: readonly WaveOnDisk[] | undefined;
  ignoreCase: boolean;
  /** The repository's files: a plain folder entry and its `dir/` spelling mean the same. */
  files: readonly string[];
}

/** The longest list of entries a sentence names before it says how many more. */
const NAMED_ENTRIES = 3;

function listed(entries: readonly string[]): string {
  const shown = entries.slice(0, NAMED_ENTRIES).join(', ');
  return entries.length > NAMED_ENTRIES ? `${shown} and ${entries.length - NAMED_ENTRIES} more` : shown;
}

/** A wave's agents by comparable id, each with its entries by comparable spelling (the spelling as given kept for words). */
type Canonical = Map<string, { id: string; entries: Map<string, string> }>;

/**
 * Finds every wave the save would write or remove whose declarations on disk differ from the base's version
 * (agents added or removed, entries added or removed; order, repeated entries and equivalent spellings
 * aside), unless the person chose to overwrite exactly the version on disk now. Empty when nothing changed.
 */
export function findStaleWaves(check: StaleWaveCheck): StaleWave[] {
  const index = new FileIndex(check.files, { ignoreCase: check.ignoreCase });
  const fold = (text: string) => (check.ignoreCase ? foldCase(text) : text);
  const entryKey = (entry: string): string => {
    try {
      return fold(promoteDirectory(normalizeScopeEntry(entry, { ignoreCase: check.ignoreCase }), index, { ignoreCase: check.ignoreCase }));
    } catch {
      // An entry the grammar refuses (a hand-edited file) is compared as written.
      return fold(entry);
    }
  };
  const canonical = (agents: readonly WaveAgentRecord[]): Canonical => {
    const result: Canonical = new Map();
    for (const agent of agents) {
      const key = fold(agent.id);
      const known = result.get(key) ?? { id: agent.id, entries: new Map<string, string>() };
      for (const entry of agent.entries) if (!known.entries.has(entryKey(entry))) known.entries.set(entryKey(entry), entry);
      result.set(key, known);
    }
    return result;
  };
  const same = (a: Canonical, b: Canonical): boolean =>
    a.size === b.size && [...a].every(([key, agent]) => {
      const other = b.get(key);
      return other !== undefined && other.entries.size === agent.entries.size && [...agent.entries.keys()].every((entry) => other.entries.has(entry));
    });

  const baseWaves = new Map(check.base.map((wave) => [wave.wave, wave.agents]));
  const declared = new Set(check.declaredWaves);
  const drafted = new Set(check.draftWaves);
  const removed = [...baseWaves.keys()].filter((wave) => !drafted.has(wave) && declared.has(wave));
  const stale: StaleWave[] = [];
  for (const wave of [...drafted, ...removed].sort((a, b) => a - b)) {
    const onDisk = declared.has(wave) ? check.onDisk(wave) : [];
    const disk = canonical(onDisk);
    const base = canonical(baseWaves.get(wave) ?? []);
    if (same(disk, base)) continue;
    const chosen = check.overwrite?.find((item) => item.wave === wave);
    if (chosen !== undefined && same(disk, canonical(chosen.agents))) continue;
    stale.push({ wave, action: drafted.has(wave) ? 'write' : 'remove', changes: describeChanges(base, disk, baseWaves.has(wave)), onDisk });
  }
  return stale;
}

/** What changed from `base` to `disk`, in words: whole waves first, then agent by agent. */
function describeChanges(base: Canonical, disk: Canonical, inBase: boolean): string[] {
  if (disk.size === 0) return ['its declarations were removed from disk'];
  const changes: string[] = [];
  if (!inBase || base.size === 0) changes.push('it was written on disk');
  for (const [key, agent] of disk) {
    const before = base.get(key);
    if (before === undefined) {
      changes.push(`agent ${agent.id} was added (${agent.entries.size === 0 ? 'no entries' : listed([...agent.entries.values()])})`);
      continue;
    }
    const added = [...agent.entries].filter(([entry]) => !before.entries.has(entry)).map(([, spelling]) => spelling);
    const gone = [...before.entries].filter(([entry]) => !agent.entries.has(entry)).map(([, spelling]) => spelling);
    if (added.length === 0 && gone.length === 0) continue;
    const parts = [added.length > 0 ? `now owns ${listed(added)}` : '', gone.length > 0 ? `no longer owns ${listed(gone)}` : ''].filter(Boolean);
    changes.push(`agent ${agent.id} ${parts.join(' and ')}`);
  }
  for (const [key, agent] of base) if (!disk.has(key)) changes.push(`agent ${agent.id} was removed`);
  return changes;
}

/** The manifest's active wave changed on disk since the draft was made, and the save would name another. */
export interface StaleActiveWave {
  /** The wave `wave-scope.json` names on disk now. */
  onDisk: number;
  /** The wave it named when the draft was made; undefined when there was no manifest. */
  base: number | undefined;
  /** The wave the save would make active. */
  draft: number;
  /** What changed and what the save would do, one plain sentence. */
  change: string;
}

/** The active waves a staleness check compares: the base's, the draft's, the manifest's on disk now. */
export interface StaleActiveWaveCheck {
  /** The wave the manifest named when the draft was made (DraftPlan.activeWave of the base). */
  base: number | undefined;
  /** The wave the save would write into the manifest; undefined leaves the manifest alone. */
  draft: number | undefined;
  /** The wave the manifest on disk names now; undefined when it has none (absent or unusable). */
  onDisk: number | undefined;
  /** The manifest's wave on disk a person chose to overwrite (as the refusal showed it). */
  overwrite?: number | undefined;
}

/**
 * Whether the save would switch the manifest away from a wave someone made active on disk after the draft
 * was made (`wave-scope plan write --wave N`, a sync, another window). Only a manifest naming a wave now is
 * protected: a save that leaves the manifest alone, or names the wave on disk, undoes nothing.
 */
export function findStaleActiveWave(check: StaleActiveWaveCheck): StaleActiveWave | undefined {
  const { base, draft, onDisk } = check;
  if (draft === undefined || onDisk === undefined || onDisk === base || onDisk === draft || check.overwrite === onDisk) return undefined;
  const before = base === undefined ? 'there was no manifest' : `it named wave ${base}`;
  return { onDisk, base, draft, change: `the manifest now names wave ${onDisk} (${before} when the draft was made); saving would make wave ${draft} active` };
}
