// What the planner says about an entry while it is typed into a lane (inline, as the Settings editor
// validates at the input): the entry it becomes, the notes on how it was rewritten, the typo warnings,
// or the one problem that keeps it out. Pure; the lane's input keeps its text whatever it says.
import type { EntryWarning } from './entryWarnings';
import { entryWarnings } from './entryWarnings';
import type { MatchCache } from './planAnalysis';
import type { AbsoluteRoot } from './plannerState';
import { normalizeEntry } from './plannerState';

export interface EntryCheckContext {
  ignoreCase?: boolean;
  absoluteRoots?: readonly AbsoluteRoot[];
  /** The repository's files (not control state). */
  cache: MatchCache;
  /** Repository files that are control state: no agent can own them. */
  controlFiles?: ReadonlySet<string>;
  /** The entries the lane already has. */
  existing?: readonly string[];
  /** The lane's agent, for messages. */
  agent?: string;
}

export type EntryCheck =
  | { ok: true; entry: string; notes: string[]; warnings: EntryWarning[] }
  | { ok: false; problem: string; warnings: EntryWarning[] };

/** Checks one typed entry. */
export function checkEntry(raw: string, context: EntryCheckContext): EntryCheck {
  const warnings = entryWarnings(raw.trim(), { ignoreCase: context.ignoreCase, files: context.cache.index });
  const normalized = normalizeEntry(raw, { ignoreCase: context.ignoreCase, absoluteRoots: context.absoluteRoots });
  if ('problem' in normalized) return { ok: false, problem: normalized.problem, warnings: [] };
  const notes = normalized.note ? [normalized.note] : [];
  let entry = normalized.entry;
  const index = context.cache.index;
  // A folder typed without its slash means the folder (what a drop of it means), not a file of that name.
  if (!entry.endsWith('/') && !index.has(entry) && index.hasFilesBeneath(entry) && !/[*?[\]{}]/.test(entry)) {
    entry = `${entry}/`;
    notes.push(`${entry.slice(0, -1)} is a folder: the entry is ${entry}, everything beneath it.`);
  }
  const control = context.controlFiles;
  if (control && control.size > 0) {
    const bare = entry.endsWith('/') ? entry.slice(0, -1) : entry;
    const controlHit = control.has(bare) || (entry.endsWith('/') && [...control].some((file) => file.startsWith(`${bare}/`)) && !index.hasFilesBeneath(bare));
    if (controlHit) {
      return { ok: false, problem: `${entry} is Wave Scope's or an agent's control state: no agent can own it (the write gate denies every write to it).`, warnings: [] };
    }
  }
  if (context.existing?.includes(entry)) {
    return { ok: false, problem: `${entry} is already in ${context.agent ?? 'this lane'}.`, warnings };
  }
  return { ok: true, entry, notes, warnings };
}
