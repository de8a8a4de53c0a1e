// A DeclarationFs for `sync` that leaves alone a file already holding exactly the text to be written, so
// a follower bringing in a plan that changed in a few agents rewrites only those files. The chain is
// unchanged: every write it asks for either happens through the wrapped file system (temp file, fsync,
// rename, confinement) or finds the same bytes already in a plain file of its own, which is then made
// as durable as a rewrite would have made it (the file fsynced now, its directory at the next commit
// point), at the cost of an fsync with nothing to flush.
import { lstatSync, realpathSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import type { DeclarationFs } from '../planner/plan/declarationStore';
import { fsyncQuietly } from './atomicFile';
import { layeredDeclarationFs } from './declarationFs';

/**
 * Whether `path` is a regular file with one name, reached from `root` through real directories only. A
 * symbolic link, or a file hard-linked elsewhere, may be changed through another name by whoever can
 * write that name: such a file is always rewritten (which replaces the link), never trusted as it is.
 */
function isOwnPlainFile(root: string, path: string): boolean {
  try {
    const stat = lstatSync(path);
    if (!stat.isFile() || stat.nlink !== 1) return false;
    const parent = dirname(resolve(path));
    const below = relative(resolve(root), parent);
    if (below.startsWith('..') || below.startsWith(sep)) return false;
    // The root itself may be reached through a link (the caller's choice); nothing below it may be one.
    return realpathSync(parent) === join(realpathSync(root), below);
  } catch {
    return false;
  }
}

/**
 * `fs`, except that writing a file which already holds exactly `text` (a plain file of its own, see
 * isOwnPlainFile) writes nothing. `skipped` lists those paths, in order.
 */
export function skippingUnchangedFiles(fs: DeclarationFs, root: string): DeclarationFs & { readonly skipped: readonly string[] } {
  const skipped: string[] = [];
  const layered = layeredDeclarationFs(fs, (path, text) => {
    let current: string | undefined;
    try {
      current = fs.readText(path);
    } catch {
      current = undefined;
    }
    if (current !== text || !isOwnPlainFile(root, path) || !fsyncQuietly(path)) return 'pass';
    skipped.push(path);
    return 'done';
  });
  return { ...layered, skipped };
}
