// The repository's known files, indexed for the two questions the scope engine asks of them: "which files
// lie beneath this directory?" (directory promotion, real witnesses) and "which files does each entry name?"
// (match counts). Built once per file list; every lookup is a binary search or a hash lookup.
import { compileScopeEntry, foldCase } from './scopeEntry';
import type { CompiledScopeEntry } from './scopeEntry';

export interface FileIndexOptions {
  ignoreCase?: boolean;
}

export class FileIndex {
  /** The files as given (deduplicated), sorted by their comparison key. */
  readonly files: readonly string[];
  /** The comparison keys (folded in ignore-case mode), in the same order as `files`. */
  private readonly keys: readonly string[];
  readonly ignoreCase: boolean;

  constructor(files: Iterable<string>, options: FileIndexOptions = {}) {
    this.ignoreCase = options.ignoreCase ?? false;
    const given = Array.isArray(files) ? (files as string[]) : [...files];
    const keys: string[] = [];
    const spellings: string[] = [];
    const keep = (key: string, file: string) => {
      if (keys.length > 0 && keys[keys.length - 1] === key) return;
      keys.push(key);
      spellings.push(file);
    };
    if (!this.ignoreCase) {
      // The default sort compares UTF-16 code units, the order every lookup here assumes. `git ls-files`
      // output is already in that order (for paths without astral characters): one pass to check it.
      const sorted = isSorted(given) ? given : [...given].sort();
      for (const file of sorted) keep(file, file);
    } else {
      const folded = given.map(foldCase);
      const order = given.map((_, index) => index);
      if (!isSorted(folded)) order.sort((a, b) => compareCodeUnits(folded[a] as string, folded[b] as string));
      for (const index of order) keep(folded[index] as string, given[index] as string);
    }
    this.keys = keys;
    this.files = spellings;
  }

  get size(): number {
    return this.files.length;
  }

  /** The comparison key of a path: itself, or its case fold. */
  keyOf(path: string): string {
    return this.ignoreCase ? foldCase(path) : path;
  }

  private positionOf(path: string): number | undefined {
    const key = this.keyOf(path);
    const position = lowerBound(this.keys, key);
    return this.keys[position] === key ? position : undefined;
  }

  has(path: string): boolean {
    return this.positionOf(path) !== undefined;
  }

  /** The indexed spelling of `path` (its real case in ignore-case mode), if it is a known file. */
  spellingOf(path: string): string | undefined {
    const position = this.positionOf(path);
    return position === undefined ? undefined : this.files[position];
  }

  /** Whether any known file lies beneath the directory `dir` (a repository-relative path without trailing `/`). */
  hasFilesBeneath(dir: string): boolean {
    const [start, end] = this.rangeBeneath(dir);
    return start < end;
  }

  /**
   * The known files a path under `prefix` could be: the file `prefix` itself and every file beneath it.
   * `prefix` is a repository-relative path (already case-folded in ignore-case mode); '' means every file.
   */
  filesUnder(prefix: string): string[] {
    if (prefix === '') return [...this.files];
    const [start, end] = this.rangeBeneath(prefix);
    const beneath = this.files.slice(start, end);
    const exact = this.positionOf(prefix);
    return exact === undefined ? beneath : [this.files[exact] as string, ...beneath];
  }

  private rangeBeneath(dir: string): [number, number] {
    const key = this.keyOf(dir);
    // Everything beneath `dir` sorts between `dir/` and `dir0` ('0' is the code unit after '/').
    return [lowerBound(this.keys, `${key}/`), lowerBound(this.keys, `${key}0`)];
  }
}

function isSorted(values: readonly string[]): boolean {
  for (let index = 1; index < values.length; index += 1) if ((values[index - 1] as string) > (values[index] as string)) return false;
  return true;
}

function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function lowerBound(sorted: readonly string[], target: string): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((sorted[middle] as string) < target) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * Which known files each entry names. One pass over the file list: every entry is compiled once and filed
 * under its literal directory prefix, and each file is tested only against the entries filed under one of its
 * own ancestor directories (or under its own path), so `src/a/**` never looks at files outside `src/a/`.
 */
export function expand(entries: readonly string[], files: FileIndex | readonly string[], options: FileIndexOptions = {}): Map<string, string[]> {
  const index = files instanceof FileIndex ? files : new FileIndex(files, options);
  const compiled = [...new Set(entries)].map((entry) => compileScopeEntry(entry, { ignoreCase: index.ignoreCase }));
  const byPrefix = new Map<string, CompiledScopeEntry[]>();
  for (const entry of compiled) {
    const key = entry.literalPrefix.join('/');
    const bucket = byPrefix.get(key);
    if (bucket === undefined) byPrefix.set(key, [entry]);
    else bucket.push(entry);
  }
  const matched = new Map<string, string[]>(compiled.map((entry) => [entry.spelling, []]));
  for (const file of index.files) {
    const key = index.keyOf(file);
    let slash = -1;
    do {
      const bucket = byPrefix.get(slash === -1 ? '' : key.slice(0, slash));
      if (bucket !== undefined) {
        for (const entry of bucket) if (entry.matches(file)) (matched.get(entry.spelling) as string[]).push(file);
      }
      slash = key.indexOf('/', slash + 1);
    } while (slash !== -1);
    const own = byPrefix.get(key);
    if (own !== undefined && key !== '') {
      for (const entry of own) if (entry.matches(file)) (matched.get(entry.spelling) as string[]).push(file);
    }
  }
  return matched;
}
