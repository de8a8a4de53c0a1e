// The repository's files as a tree, flattened into the rows a virtualised list shows. Pure: built
// once per file list (linear in the number of files), flattened per expand/filter change.
import { literalEntryOf } from '../src/planner/scope/literalEntry';
import { foldCase } from '../src/planner/scope/scopeEntry';

/**
 * The entry a tree row stands for, naming exactly that file (its glob characters escaped): `dir/` for a
 * folder; undefined for a name no entry can name (a `\` in it: src/planner/scope/literalEntry.ts).
 */
export function rowEntry(path: string, isFolder: boolean): string | undefined {
  return literalEntryOf(path, { folder: isFolder });
}

/** A folder of the tree; `path` is repository-relative without a trailing slash (`''` for the root). */
export interface FolderNode {
  path: string;
  name: string;
  folders: FolderNode[];
  files: string[];
  /** Number of files anywhere beneath. */
  fileCount: number;
  /** Whether `folders` and `files` are sorted yet (done on first display, not for all 100,000 files up front). */
  sorted?: boolean;
}

/** One visible row. */
export interface TreeRow {
  /** Repository-relative path; folders without a trailing slash. */
  path: string;
  name: string;
  depth: number;
  isFolder: boolean;
  expanded: boolean;
  /** Files beneath (folders) or 1. */
  fileCount: number;
}

function baseName(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? path : path.slice(slash + 1);
}

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

/** Sorts a folder's children the first time it is shown (natural order: file2 before file10). */
function ensureSorted(node: FolderNode): FolderNode {
  if (node.sorted) return node;
  node.folders.sort((a, b) => collator.compare(a.name, b.name));
  const names = new Map(node.files.map((file) => [file, baseName(file)]));
  node.files.sort((a, b) => collator.compare(names.get(a) as string, names.get(b) as string));
  node.sorted = true;
  return node;
}

/** Builds the folder tree of `files` (repository-relative, `/`-separated). */
export function buildFileTree(files: readonly string[]): FolderNode {
  const root: FolderNode = { path: '', name: '', folders: [], files: [], fileCount: 0 };
  const folders = new Map<string, FolderNode>([['', root]]);
  const folderOf = (path: string): FolderNode => {
    const known = folders.get(path);
    if (known) return known;
    const slash = path.lastIndexOf('/');
    const parent = folderOf(slash < 0 ? '' : path.slice(0, slash));
    const node: FolderNode = { path, name: baseName(path), folders: [], files: [], fileCount: 0 };
    parent.folders.push(node);
    folders.set(path, node);
    return node;
  };
  for (const file of files) {
    const slash = file.lastIndexOf('/');
    folderOf(slash < 0 ? '' : file.slice(0, slash)).files.push(file);
  }
  const finish = (node: FolderNode): number => {
    node.fileCount = node.files.length + node.folders.reduce((sum, child) => sum + finish(child), 0);
    return node.fileCount;
  };
  finish(root);
  return root;
}

/**
 * The rows to show: folders first, then files, depth first. With a filter, only files whose path
 * contains it (case-insensitive) are shown, with every folder on their way open; `limit` caps the rows.
 * With `include`, only the files it accepts are shown (the "unassigned" view): folders keep their open
 * or closed state, a folder without such a file beneath is left out, and a folder's `fileCount` is the
 * number of such files beneath it.
 */
export function flattenTree(
  root: FolderNode,
  expanded: ReadonlySet<string>,
  filter = '',
  limit = Infinity,
  include?: (file: string) => boolean,
): TreeRow[] {
  const rows: TreeRow[] = [];
  const needle = foldCase(filter.trim());
  if (needle === '') {
    const counts = include ? countIncluded(root, include) : undefined;
    const walk = (node: FolderNode, depth: number): void => {
      ensureSorted(node);
      for (const folder of node.folders) {
        if (rows.length >= limit) return;
        const fileCount = counts ? (counts.get(folder) ?? 0) : folder.fileCount;
        if (fileCount === 0) continue;
        const open = expanded.has(folder.path);
        rows.push({ path: folder.path, name: folder.name, depth, isFolder: true, expanded: open, fileCount });
        if (open) walk(folder, depth + 1);
      }
      for (const file of node.files) {
        if (rows.length >= limit) return;
        if (include && !include(file)) continue;
        rows.push({ path: file, name: baseName(file), depth, isFolder: false, expanded: false, fileCount: 1 });
      }
    };
    walk(root, 0);
    return rows;
  }
  // Filtering: a folder is shown when something beneath it matches; it is shown open.
  const walk = (node: FolderNode, depth: number): number => {
    ensureSorted(node);
    const start = rows.length;
    let shown = 0;
    for (const folder of node.folders) {
      if (rows.length >= limit) break;
      const at = rows.length;
      rows.push({ path: folder.path, name: folder.name, depth, isFolder: true, expanded: true, fileCount: folder.fileCount });
      const beneath = walk(folder, depth + 1);
      if (beneath > 0) {
        shown += beneath;
        if (include) (rows[at] as TreeRow).fileCount = beneath;
      } else rows.length = at;
    }
    for (const file of node.files) {
      if (rows.length >= limit) break;
      if (foldCase(file).includes(needle) && (!include || include(file))) {
        rows.push({ path: file, name: baseName(file), depth, isFolder: false, expanded: false, fileCount: 1 });
        shown += 1;
      }
    }
    if (shown === 0) rows.length = start;
    return shown;
  };
  walk(root, 0);
  return rows;
}

/** How many files `include` accepts beneath every folder (one pass over the tree). */
function countIncluded(root: FolderNode, include: (file: string) => boolean): Map<FolderNode, number> {
  const counts = new Map<FolderNode, number>();
  const visit = (node: FolderNode): number => {
    let total = 0;
    for (const file of node.files) if (include(file)) total += 1;
    for (const folder of node.folders) total += visit(folder);
    counts.set(node, total);
    return total;
  };
  visit(root);
  return counts;
}

/** Every ancestor folder of `path` (`a/b/c.ts` → `a`, `a/b`). */
export function ancestorFolders(path: string): string[] {
  const parts = path.split('/');
  const result: string[] = [];
  for (let i = 1; i < parts.length; i += 1) result.push(parts.slice(0, i).join('/'));
  return result;
}
