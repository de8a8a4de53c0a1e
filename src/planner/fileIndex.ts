// The repository's known files, indexed for the two questions the scope engine asks of them: "which files
// lie beneath this directory?" (directory promotion, real witnesses) and "which files does each entry name?"
// (match counts). Built once per file list; every lookup is a binary search or a hash lookup.
import { compileScopeEntry, foldCase } from './scopeEntry';
import type { CompiledScopeEntry } from './scopeEntry';

export interface FileIndexOptions {
  ignoreCase?: boolean;
}

export class FileIndex {
  readonly ignoreCase: boolean;
  private readonly given: readonly string[];
  // Built on first use: many callers only ask "is this a file?", and sorting 100,000 paths costs more
  // than everything else a validation does.
  private byKey: Map<string, string> | undefined;
  private keySet: Set<string> | undefined;
  private sorted: { keys: string[]; files: string[] } | undefined;

  constructor(files: Iterable<string>, options: FileIndexOptions = {}) {
    this.ignoreCase = options.ignoreCase ?? false;
    this.given = Array.isArray(files) ? (files as string[]) : [...files];
  }

  /** The files (deduplicated), sorted by their comparison key. */
  get files(): readonly string[] {
    return this.sortedIndex().files;
  }

  get size(): number {
    return this.ignoreCase ? this.lookup().size : this.pathSet().size;
  }

  /** The comparison key of a path: itself, or its case fold. */
  keyOf(path: string): string {
    return this.ignoreCase ? foldCase(path) : path;
  }

  has(path: string): boolean {
    return this.ignoreCase ? this.lookup().has(this.keyOf(path)) : this.pathSet().has(path);
  }

  /** The indexed spelling of `path` (its real case in ignore-case mode), if it is a known file. */
  spellingOf(path: string): string | undefined {
    if (!this.ignoreCase) return this.pathSet().has(path) ? path : undefined;
    return this.lookup().get(this.keyOf(path));
  }

  /** When case matters (the common case) the keys are the paths: a set is all the lookup needs. */
  private pathSet(): ReadonlySet<string> {
    this.keySet ??= new Set(this.given);
    return this.keySet;
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
    const { files } = this.sortedIndex();
    if (prefix === '') return [...files];
    const [start, end] = this.rangeBeneath(prefix);
    const beneath = files.slice(start, end);
    const exact = this.spellingOf(prefix);
    return exact === undefined ? beneath : [exact, ...beneath];
  }

  private lookup(): Map<string, string> {
    if (this.byKey === undefined) {
      this.byKey = new Map();
      // The first spelling of a key wins, as in `files`.
      for (const file of this.given) {
        const key = this.keyOf(file);
        if (!this.byKey.has(key)) this.byKey.set(key, file);
      }
    }
    return this.byKey;
  }

  private sortedIndex(): { keys: string[]; files: string[] } {
    if (this.sorted === undefined) {
      const keys = [...(this.ignoreCase ? this.lookup().keys() : this.pathSet())];
      // The default sort compares UTF-16 code units, the order every lookup here assumes. `git ls-files`
      // output is already in that order (for paths without astral characters): one pass to check it.
      if (!isSorted(keys)) keys.sort();
      const spellings = this.ignoreCase ? keys.map((key) => this.lookup().get(key) as string) : keys;
      this.sorted = { keys, files: spellings };
    }
    return this.sorted;
  }

  private rangeBeneath(dir: string): [number, number] {
    const key = this.keyOf(dir);
    const { keys } = this.sortedIndex();
    // Everything beneath `dir` sorts between `dir/` and `dir0` ('0' is the code unit after '/').
    return [lowerBound(keys, `${key}/`), lowerBound(keys, `${key}0`)];
  }
}

function isSorted(values: readonly string[]): boolean {
  for (let index = 1; index < values.length; index += 1) if ((values[index - 1] as string) > (values[index] as string)) return false;
  return true;
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
