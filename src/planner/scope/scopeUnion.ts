// The union of a wave's declarations: what `allowedPaths` is computed from, after disjointness is proven.
import { foldCase, normalizeScopeEntry } from './scopeEntry';
import type { GrammarOptions } from './scopeEntry';
import type { ScopeRecord } from './collisions';

/** A key under which two spellings of the same set are one: `src/` and `src/**` name the same files. */
function unionKey(spelling: string, options: GrammarOptions): string {
  const key = spelling.endsWith('/') ? `${spelling}**` : spelling;
  return options.ignoreCase ? foldCase(key) : key;
}

/** Every entry of every record, normalised, deduplicated, in first-seen order (records in order, entries in order). */
export function union(records: readonly ScopeRecord[], options: GrammarOptions = {}): string[] {
  const seen = new Set<string>();
  const entries: string[] = [];
  for (const record of records) {
    for (const raw of record.files) {
      const spelling = normalizeScopeEntry(raw, options);
      const key = unionKey(spelling, options);
      if (seen.has(key)) continue;
      seen.add(key);
      entries.push(spelling);
    }
  }
  return entries;
}
