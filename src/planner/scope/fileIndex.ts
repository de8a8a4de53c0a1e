// The repository's known files, indexed for the two questions the scope engine asks of them: "which files
// lie beneath this directory?" (directory promotion, real witnesses) and "which files does each entry name?"
// (match counts). Every structure is built on first use and in one pass: a set of paths, a tree of
// directories. Nothing sorts the whole list unless a caller asks for `files` in order.
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
  private sorted: string[] | undefined;
  private tree: Map<string, { files: string[]; directories: string[] }> | undefined;

  constructor(files: Iterable<string>, options: FileIndexOptions = {}) {
    this.ignoreCase = options.ignoreCase ?? false;
    this.given = Array.isArray(files) ? (files as string[]) : [...files];
  }

  /** The files (deduplicated), sorted by their comparison key. */
  get files(): readonly string[] {
    return this.sortedFiles();
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

  /**
   * `path` spelled as the known files spell it (their case, in ignore-case mode): a known file with the same key
   * in its own spelling; otherwise `path` with its longest leading directory that has known files beneath it
   * respelled, and the rest as given. In case-sensitive mode, `path` itself.
   */
  respell(path: string): string {
    if (!this.ignoreCase) return path;
    const file = this.spellingOf(path);
    if (file !== undefined) return file;
    const segments = path.split('/');
    const tree = this.directoryTree();
    for (let depth = segments.length - 1; depth > 0; depth -= 1) {
      const directory = tree.get(this.keyOf(segments.slice(0, depth).join('/')));
      const sample = directory === undefined ? undefined : this.sampleBeneath(directory);
      if (sample !== undefined) return [...sample.split('/').slice(0, depth), ...segments.slice(depth)].join('/');
    }
    return path;
  }

  /** Some known file beneath a directory of the tree (every directory in it has one). */
  private sampleBeneath(directory: { files: string[]; directories: string[] }): string | undefined {
    const tree = this.directoryTree();
    let current: { files: string[]; directories: string[] } | undefined = directory;
    while (current !== undefined) {
      if (current.files.length > 0) return current.files[0];
      const next: string | undefined = current.directories[0];
      current = next === undefined ? undefined : tree.get(next);
    }
    return undefined;
  }

  /** Every known file once, in no particular order (no sorting needed: for scans that stop at a match). */
  inAnyOrder(): Iterable<string> {
    return this.ignoreCase ? this.lookup().values() : this.pathSet();
  }

  /**
   * The known files a path under `prefix` could be: the file `prefix` itself and every file beneath it, in no
   * particular order. `prefix` is a repository-relative path; '' means every file.
   */
  filesUnder(prefix: string): string[] {
    if (prefix === '') return [...this.inAnyOrder()];
    const key = this.keyOf(prefix);
    const found: string[] = [];
    const exact = this.spellingOf(prefix);
    if (exact !== undefined) found.push(exact);
    const tree = this.directoryTree();
    const pending = [key];
    while (pending.length > 0) {
      const directory = tree.get(pending.pop() as string);
      if (directory === undefined) continue;
      found.push(...directory.files);
      pending.push(...directory.directories);
    }
    return found;
  }

  /** Whether any known file lies beneath the directory `dir` (a repository-relative path without trailing `/`). */
  hasFilesBeneath(dir: string): boolean {
    return this.directoryTree().has(this.keyOf(dir));
  }

  private lookup(): Map<string, string> {
    if (this.byKey === undefined) {
      this.byKey = new Map();
      // The first spelling of a key wins.
      for (const file of this.given) {
        const key = this.keyOf(file);
        if (!this.byKey.has(key)) this.byKey.set(key, file);
      }
    }
    return this.byKey;
  }

  /** When case matters (the common case) the keys are the paths: a set is all the lookup needs. */
  private pathSet(): ReadonlySet<string> {
    this.keySet ??= new Set(this.given);
    return this.keySet;
  }

  /** Every directory that has a known file beneath it (by key), with its own files and subdirectories. */
  private directoryTree(): Map<string, { files: string[]; directories: string[] }> {
    if (this.tree === undefined) {
      const tree = new Map<string, { files: string[]; directories: string[] }>();
      for (const file of this.inAnyOrder()) {
        const key = this.keyOf(file);
        let slash = key.lastIndexOf('/');
        if (slash === -1) continue;
        let directory = key.slice(0, slash);
        let node = tree.get(directory);
        if (node !== undefined) {
          node.files.push(file);
          continue;
        }
        node = { files: [file], directories: [] };
        tree.set(directory, node);
        // A new directory: register it with its parents, up to the first one already known.
        for (slash = directory.lastIndexOf('/'); slash !== -1; slash = directory.lastIndexOf('/')) {
          const child = directory;
          directory = directory.slice(0, slash);
          const parent = tree.get(directory);
          if (parent !== undefined) {
            parent.directories.push(child);
            break;
          }
          tree.set(directory, { files: [], directories: [child] });
        }
      }
      this.tree = tree;
    }
    return this.tree;
  }

  private sortedFiles(): string[] {
    if (this.sorted === undefined) {
      const keys = [...(this.ignoreCase ? this.lookup().keys() : this.pathSet())];
      // The default sort compares UTF-16 code units. `git ls-files` output is already in that order (for
      // paths without astral characters): one pass to check it.
      if (!isSorted(keys)) keys.sort();
      this.sorted = this.ignoreCase ? keys.map((key) => this.lookup().get(key) as string) : keys;
    }
    return this.sorted;
  }
}

function isSorted(values: readonly string[]): boolean {
  for (let index = 1; index < values.length; index += 1) if ((values[index - 1] as string) > (values[index] as string)) return false;
  return true;
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
  for (const file of index.inAnyOrder()) {
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
  // Scanned in any order (sorting the whole list would cost more than the scan); each list is sorted.
  for (const list of matched.values()) if (!isSorted(list)) list.sort();
  return matched;
}
