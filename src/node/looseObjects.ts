// Reading the objects a fetch of the plan ref has just brought in, straight from git's object directory.
// A fetch that brings fewer objects than transfer.unpackLimit (100 by default: a plan commit brings about
// ten) stores each as a loose object file, `objects/<2 hex>/<rest>`, holding `<type> <size>\0<body>`
// deflated with zlib. Reading those files answers a sync's or a publish's questions about the new commit
// without starting `git cat-file` at all, whose start (a fork of this process, then git's own) competes
// with the fetch for the CPU while the fetch runs.
//
// Nothing read here is trusted by its file: every object is hashed, and kept only when the hash of its
// header and body is the very id it was asked by, so the commit, its trees and its blobs are each the ones
// the fetched tip names. Whatever cannot be answered that way (a packed object, an object in an alternate
// store, a file that does not hash right, a link or anything but a plain file where the object should be)
// is asked of the fallback batch, a real `git cat-file --batch`, started only then: git stays the authority
// on every object this file does not prove.
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { inflateSync } from 'node:zlib';
import type { BatchObject, ObjectBatch, PlanReadLimit } from './objectBatch';
import { isDirectoryMode, parseTree, planReadBudget } from './objectBatch';

/** A loose object file larger than this is left to git (a plan's objects are a few kilobytes). */
const MAX_LOOSE_FILE_BYTES = 16 * 1024 * 1024;

/** The bytes of the plain file at `path`, or undefined (missing, a link, a FIFO, a directory, too large, unreadable). */
function readPlainFile(path: string): Buffer | undefined {
  let descriptor: number;
  try {
    // Never through a link, never waiting on a FIFO planted where an object should be.
    descriptor = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch {
    return undefined;
  }
  try {
    const stat = fstatSync(descriptor);
    if (!stat.isFile() || stat.size > MAX_LOOSE_FILE_BYTES) return undefined;
    const bytes = Buffer.alloc(stat.size);
    let length = 0;
    while (length < bytes.length) {
      const count = readSync(descriptor, bytes, length, bytes.length - length, length);
      if (count === 0) return undefined;
      length += count;
    }
    return bytes;
  } catch {
    return undefined;
  } finally {
    closeSync(descriptor);
  }
}

/**
 * The object `oid` from its loose file under `objectsDir`, when that file holds an object whose hash is
 * exactly `oid`; undefined otherwise (the caller asks git).
 */
export function readLooseObject(objectsDir: string, oid: string): BatchObject | undefined {
  if (!/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(oid)) return undefined;
  const stored = readPlainFile(join(objectsDir, oid.slice(0, 2), oid.slice(2)));
  if (stored === undefined) return undefined;
  let raw: Buffer;
  try {
    raw = inflateSync(stored, { maxOutputLength: MAX_LOOSE_FILE_BYTES * 4 });
  } catch {
    return undefined;
  }
  const nul = raw.indexOf(0x00);
  const header = nul === -1 ? undefined : /^(commit|tree|blob|tag) (0|[1-9][0-9]*)$/.exec(raw.subarray(0, nul).toString('latin1'));
  if (header === undefined || header === null) return undefined;
  const content = raw.subarray(nul + 1);
  if (Number(header[2]) !== content.length) return undefined;
  const hash = createHash(oid.length === 64 ? 'sha256' : 'sha1').update(raw).digest('hex');
  if (hash !== oid) return undefined;
  return { oid, type: header[1] as string, content: Buffer.from(content) };
}

/** The id of the top tree a commit object's body names (its first line, `tree <id>`). */
function treeOfCommit(content: Buffer): string | undefined {
  return /^tree ([0-9a-f]{40}|[0-9a-f]{64})\n/.exec(content.subarray(0, 80).toString('latin1'))?.[1];
}

/**
 * An ObjectBatch that answers from the loose objects under `objectsDir` each name it can prove, and asks the
 * batch `fallback` starts (started on the first name it cannot, and only then) for the others. Names are
 * those readCommitWithTree asks: an object id, `<commit>^{tree}`, or `<commit>:<path>` (a directory);
 * anything else goes to git as it is. A `<commit>:<path>` found missing in the proven trees is answered
 * missing, as cat-file answers it. `known` holds objects proven otherwise, each under the hash of its own
 * header and body.
 */
export function looseFirstBatch(
  objectsDir: string,
  fallback: () => ObjectBatch,
  known: ReadonlyMap<string, BatchObject> = new Map(),
  limit: PlanReadLimit = {},
): ObjectBatch {
  let started: ObjectBatch | undefined;
  const git = () => (started ??= fallback());
  // `known`: objects proven already (built here, and named by the hash of what they hold), such as the
  // trees of the plan last read, which a new plan commit mostly has again and which may sit in a pack.
  const proven = new Map<string, BatchObject | undefined>(known);
  const hold = planReadBudget(limit);
  const loose = (oid: string) => {
    if (!proven.has(oid)) {
      const object = readLooseObject(objectsDir, oid);
      hold(object?.content.length ?? 0);
      proven.set(oid, object);
    }
    return proven.get(oid);
  };
  /** The answer to `name` from loose objects: an object, null for "missing", undefined for "ask git". */
  const answer = (name: string): BatchObject | null | undefined => {
    const separator = name.search(/[:^]/);
    const base = separator === -1 ? name : name.slice(0, separator);
    const object = loose(base);
    if (object === undefined) return undefined;
    if (separator === -1) return object;
    if (object.type !== 'commit') return undefined;
    const rest = name.slice(separator);
    const top = treeOfCommit(object.content);
    if (top === undefined) return undefined;
    if (rest === '^{tree}') return loose(top);
    if (!rest.startsWith(':') || rest.length < 2) return undefined;
    let tree = loose(top);
    for (const segment of rest.slice(1).split('/')) {
      if (tree === undefined || tree.type !== 'tree' || segment === '') return undefined;
      let entries;
      try {
        entries = parseTree(tree.content, base.length, tree.oid);
      } catch {
        return undefined;
      }
      const entry = entries.find((candidate) => candidate.name === segment);
      if (entry === undefined) return null;
      if (!isDirectoryMode(entry.mode)) return undefined;
      tree = loose(entry.oid);
    }
    return tree;
  };
  return {
    async read(names) {
      // A reading past the budget (planReadBudget) rejects, as git's own failures do.
      const answers = names.map(answer);
      const asked = names.filter((_, index) => answers[index] === undefined);
      if (asked.length === 0) return answers as Array<BatchObject | null>;
      const fromGit = await git().read(asked);
      let next = 0;
      return answers.map((found) => (found === undefined ? (fromGit[next++] ?? null) : found));
    },
    close() {
      started?.close();
    },
  };
}
