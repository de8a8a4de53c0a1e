// Plan commits no Wave Scope writes, made straight in a repository's object store as loose objects (git's
// plumbing takes a process per tree, too slow for thousands of them): a directory nested `depth` levels
// deep, each level naming the one below `width` times, beside the files of a base tree.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';

function writeLooseObject(gitDir: string, type: 'blob' | 'tree' | 'commit', body: Buffer): string {
  const raw = Buffer.concat([Buffer.from(`${type} ${body.length}\0`), body]);
  const id = createHash('sha1').update(raw).digest('hex');
  const path = join(gitDir, 'objects', id.slice(0, 2), id.slice(2));
  if (!existsSync(path)) {
    mkdirSync(join(gitDir, 'objects', id.slice(0, 2)), { recursive: true });
    writeFileSync(path, deflateSync(raw));
  }
  return id;
}

function treeEntry(mode: string, name: string, id: string): Buffer {
  return Buffer.concat([Buffer.from(`${mode} ${name}\0`), Buffer.from(id, 'hex')]);
}

/**
 * A commit (SHA-1 repositories only) whose tree holds `zdeep/d000/…/f`: `depth` directories below `zdeep/`
 * (so `f` is depth + 1 directories down), each holding `width` directories (`d000`, `d001`, …) that all name
 * the same tree, so `f` lies at width^depth paths (with `empty`, the deepest directories are empty trees
 * and there is no `f`). With `base`, its tree's entries come first and the commit's parent is `base.parent`.
 */
export function writeNestedTreeCommit(gitDir: string, options: { depth: number; width?: number; empty?: boolean; base?: { tree: string; parent: string } }): string {
  const width = options.width ?? 1;
  const leaf = options.empty === true ? Buffer.alloc(0) : treeEntry('100644', 'f', writeLooseObject(gitDir, 'blob', Buffer.from('x\n')));
  let tree = writeLooseObject(gitDir, 'tree', leaf);
  for (let level = 0; level < options.depth; level += 1) {
    tree = writeLooseObject(gitDir, 'tree', Buffer.concat(Array.from({ length: width }, (_, index) => treeEntry('40000', `d${String(index).padStart(3, '0')}`, tree))));
  }
  // `zdeep` sorts after every name a plan's top tree holds, as git's order wants.
  const base = options.base === undefined ? Buffer.alloc(0) : execFileSync('git', ['--git-dir', gitDir, 'cat-file', 'tree', options.base.tree]);
  const top = writeLooseObject(gitDir, 'tree', Buffer.concat([base, treeEntry('40000', 'zdeep', tree)]));
  const parent = options.base === undefined ? '' : `parent ${options.base.parent}\n`;
  return writeLooseObject(gitDir, 'commit', Buffer.from(`tree ${top}\n${parent}author T <t@x> 0 +0000\ncommitter T <t@x> 0 +0000\n\nzdeep\n`));
}
