// Which waves a save would write over (or remove) although someone changed them on disk after the draft was
// made: `wave-scope plan write --wave N`, a `wave-scope sync`, another window's save. The draft's base is the
// plan on disk it was edited from; a wave whose declared agents and entries on disk differ from that wave in
// the base was changed since, and saving the draft would silently undo that change. The manifest is compared
// the same way: the wave it names, that wave's role, and whether it is there at all. Pure: the declared
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

/** What a save compares of `wave-scope.json`: the wave it names and that wave's role. */
export interface ManifestOnDisk {
  wave: number;
  role: string;
}

/**
 * The manifest changed on disk since the draft was made (made another wave active, given the wave another
 * role, removed, or written where there was none), and the save would write its own over that change.
 */
export interface StaleManifest {
  /** The manifest on disk now; null when there is none. An overwrite names it back (null: "nothing there"). */
  onDisk: ManifestOnDisk | null;
  /** The manifest when the draft was made; null when there was none; undefined when the base does not record it. */
  base: ManifestOnDisk | null | undefined;
  /** The manifest the save would write. */
  draft: ManifestOnDisk;
  /** What changed and what the save would do, one plain sentence. */
  change: string;
}

/** The manifests a staleness check compares: the base's, the draft's, the one on disk now. */
export interface StaleManifestCheck {
  /**
   * The manifest when the draft was made (DraftPlan.manifest of the base): null when there was none. Undefined
   * when the base does not record it (one kept by an older version): then only `baseActiveWave` is compared,
   * and neither a manifest removed since nor its role.
   */
  base: ManifestOnDisk | null | undefined;
  /** The base's active wave (DraftPlan.activeWave), which stands in for the manifest's wave when `base` is undefined. */
  baseActiveWave: number | undefined;
  /** The manifest the save would write; undefined when it leaves the manifest alone. */
  draft: ManifestOnDisk | undefined;
  /** The manifest on disk now: null when there is none; undefined when the file is there but no usable manifest (not compared). */
  onDisk: ManifestOnDisk | null | undefined;
  /** The manifest on disk a person chose to overwrite, as the refusal showed it (null: there was none). */
  overwrite?: ManifestOnDisk | null | undefined;
}

export function sameManifest(a: ManifestOnDisk | null, b: ManifestOnDisk | null): boolean {
  return a === null || b === null ? a === b : a.wave === b.wave && a.role === b.role;
}

/** The manifest in words: `wave 3 with the role review`. */
function manifestWords(manifest: ManifestOnDisk): string {
  return `wave ${manifest.wave} with the role ${manifest.role}`;
}

/**
 * Whether the save would write the manifest over a change someone made on disk after the draft was made
 * (`wave-scope plan write --wave N`, a sync, another window; a wave ended by removing the manifest). Only a
 * save that writes the manifest can undo such a change, and only what it writes differently: the wave when
 * the wave on disk changed since and the draft names another, the role likewise, or the manifest itself when
 * it was removed since. Undefined when the save undoes nothing, or when the person chose to overwrite
 * exactly the manifest on disk now.
 */
export function findStaleManifest(check: StaleManifestCheck): StaleManifest | undefined {
  const { base, draft, onDisk } = check;
  if (draft === undefined || onDisk === undefined) return undefined;
  if (check.overwrite !== undefined && sameManifest(check.overwrite, onDisk)) return undefined;
  const stale = (change: string): StaleManifest => ({ onDisk, base, draft, change });
  const activeWithRole = `make wave ${draft.wave} active with the role ${draft.role}`;
  if (onDisk === null) {
    // Gone since the draft was made; only a base that records the manifest can tell it was there.
    if (base === undefined || base === null) return undefined;
    return stale(`the manifest was removed from disk (it named ${manifestWords(base)} when the draft was made), so no wave is active; saving would write it again, to ${activeWithRole}`);
  }
  if (base !== undefined && base !== null && sameManifest(base, onDisk)) return undefined;
  const baseWave = base === undefined ? check.baseActiveWave : base?.wave;
  const waveUndone = onDisk.wave !== baseWave && onDisk.wave !== draft.wave;
  // A base that does not record the manifest does not know its role.
  const roleUndone = base !== undefined && onDisk.role !== base?.role && onDisk.role !== draft.role;
  if (!waveUndone && !roleUndone) return undefined;
  const noManifest = base === null || baseWave === undefined;
  if (!roleUndone) {
    const before = noManifest ? 'there was no manifest' : `it named wave ${baseWave}`;
    return stale(`the manifest now names wave ${onDisk.wave} (${before} when the draft was made); saving would make wave ${draft.wave} active`);
  }
  if (!waveUndone) {
    const before = noManifest ? 'there was no manifest' : `it was ${base?.role}`;
    const saving = draft.wave === onDisk.wave ? `give it the role ${draft.role}` : activeWithRole;
    return stale(`the manifest now gives wave ${onDisk.wave} the role ${onDisk.role} (${before} when the draft was made); saving would ${saving}`);
  }
  const before = base === undefined || base === null ? 'there was no manifest' : `it named ${manifestWords(base)}`;
  return stale(`the manifest now names ${manifestWords(onDisk)} (${before} when the draft was made); saving would ${activeWithRole}`);
}
