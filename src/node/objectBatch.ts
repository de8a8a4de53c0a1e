// One `git cat-file --batch` kept open and asked in rounds, and the listing of a commit's tree read through
// it: what `git ls-tree -r` would print, without a second process. git reads every object (loose or packed,
// deltas, alternates); this file reads only cat-file's framing of its answers and the format of a tree
// object's body as git writes it (entries of `<octal mode> <name>\0<binary object id>`, in git's order).
// A tree is read one level per round, every directory of the level in one request, and the directories a
// recent plan had in the first round, by path.
import { spawn } from 'node:child_process';
import { gitEnvironment } from './git';
import { PlanRefError } from '../planner/sync/publish';

/** One object as cat-file prints it. */
export interface BatchObject {
  oid: string;
  type: string;
  content: Buffer;
}

/** A running `git cat-file --batch`. */
export interface ObjectBatch {
  /** The objects `names` name (ids, or anything git resolves, such as `<commit>^{tree}`), in order; null for a missing one. */
  read(names: readonly string[]): Promise<Array<BatchObject | null>>;
  /** Ends the process (nothing more will be asked). */
  close(): void;
}

/** One entry of a commit's tree, as `git ls-tree -r` lists it: every blob and submodule link, at its full path. */
export interface TreeEntry {
  path: string;
  oid: string;
  /**
   * Whether it is a plain file (mode 100644), as every file publish writes is. Anything else (a symbolic
   * link, an executable, a submodule link) is not read: its text stands empty, which the decoder refuses.
   */
  blob: boolean;
}

interface Pending {
  count: number;
  answers: Array<BatchObject | null>;
  settle: (answers: Array<BatchObject | null>) => void;
  fail: (error: Error) => void;
}

/**
 * The largest object a plan is read with. No file of a plan comes near it (a wave of a thousand agents is
 * a few megabytes); a larger one was put on the plan ref to make every reader hold it in memory.
 */
export const MAX_PLAN_OBJECT_BYTES = 64 * 1024 * 1024;

/**
 * The most one reading of a plan holds in all (every object one batch answers, or one loose-object reader
 * reads). Many objects just under MAX_PLAN_OBJECT_BYTES, at paths nobody asked for, would otherwise add
 * up to gigabytes in every reader.
 */
export const MAX_PLAN_READ_BYTES = 256 * 1024 * 1024;

/**
 * The most directories a path of a plan may pass through. Wave Scope's layout nests 6 (docs/sync.md:
 * `clones/<clone>/waves/<N>/filescopes/wave-<N>/<agent>.json`); the bound leaves room for the layout to grow.
 * A tree is read one level per round, so a plan ref nesting thousands of tiny trees would otherwise cost
 * every reader a round per level (and, walked recursively, its stack) before the decoder refused it.
 */
export const MAX_PLAN_TREE_DEPTH = 32;

/** The refusal of a plan commit whose tree nests deeper than MAX_PLAN_TREE_DEPTH. */
export function planTreeTooDeep(commit: string): PlanRefError {
  return new PlanRefError(
    'read',
    `the plan commit ${commit} nests directories more than ${MAX_PLAN_TREE_DEPTH} deep, deeper than any plan Wave Scope writes: this is not a plan it reads`,
  );
}

/** How much one reader of a plan may hold in all: MAX_PLAN_READ_BYTES unless a test asks for less. */
export interface PlanReadLimit {
  readonly readLimit?: number;
}

/** Counts what a reader holds; throws PlanRefError past `readLimit` (MAX_PLAN_READ_BYTES). */
export function planReadBudget({ readLimit = MAX_PLAN_READ_BYTES }: PlanReadLimit = {}): (bytes: number) => void {
  let total = 0;
  return (bytes) => {
    total += bytes;
    if (total > readLimit) throw new PlanRefError('read', `the plan holds more than ${readLimit} bytes in all, more than any plan Wave Scope writes: this is not a plan it reads`);
  };
}

/** Throws PlanRefError for an object larger than any plan file (MAX_PLAN_OBJECT_BYTES), or of no size git could give. */
export function checkPlanObjectSize(type: string, oid: string, size: number): void {
  if (!(size <= MAX_PLAN_OBJECT_BYTES)) {
    throw new PlanRefError('read', `the ${type} ${oid} is ${size} bytes, more than any plan file holds (${MAX_PLAN_OBJECT_BYTES}): this is not a plan Wave Scope reads`);
  }
}

/** The first answer's header at the start of `buffer`: where its content starts and ends; undefined while the header is not whole. */
function answerHeader(buffer: Buffer): { missing: true; end: number } | { missing: false; oid: string; type: string; start: number; end: number } | undefined {
  const newline = buffer.indexOf(0x0a);
  if (newline === -1) return undefined;
  const header = buffer.subarray(0, newline).toString('utf8');
  if (header.endsWith(' missing')) return { missing: true, end: newline + 1 };
  const [oid, type, sizeText] = header.split(' ');
  const size = Number(sizeText);
  if (oid === undefined || type === undefined || sizeText === undefined || !Number.isInteger(size) || size < 0) {
    throw new PlanRefError('read', `git cat-file printed an answer it should not: ${JSON.stringify(header.slice(0, 100))}`);
  }
  checkPlanObjectSize(type, oid, size);
  return { missing: false, oid, type, start: newline + 1, end: newline + 1 + size };
}

/** How many bytes the first answer in `buffer` takes in all, once its header is there (undefined before). */
export function batchAnswerLength(buffer: Buffer): number | undefined {
  const header = answerHeader(buffer);
  if (header === undefined) return undefined;
  return header.missing ? header.end : header.end + 1;
}

/**
 * The first whole answer at the start of `buffer` (cat-file's output), and what follows it; undefined while
 * it is not whole yet. An answer is `<oid> <type> <size>\n<content>\n`, or `<name> missing\n` (null).
 */
export function takeBatchAnswer(buffer: Buffer): { answer: BatchObject | null; rest: Buffer } | undefined {
  const header = answerHeader(buffer);
  if (header === undefined) return undefined;
  if (header.missing) return { answer: null, rest: buffer.subarray(header.end) };
  if (buffer.length < header.end + 1) return undefined;
  return { answer: { oid: header.oid, type: header.type, content: Buffer.from(buffer.subarray(header.start, header.end)) }, rest: buffer.subarray(header.end + 1) };
}

/** Starts `git cat-file --batch` in `root`; its start runs while the caller does other work. */
export function startObjectBatch(root: string, limit: PlanReadLimit = {}): ObjectBatch {
  const child = spawn('git', ['cat-file', '--batch'], { cwd: root, env: gitEnvironment(), stdio: ['pipe', 'pipe', 'pipe'] });
  const queue: Pending[] = [];
  const stderr: Buffer[] = [];
  // What cat-file printed and was not taken yet, in chunks: joined only once the answer they start holds
  // all its bytes (joining every chunk on arrival would copy a large object once per chunk).
  let chunks: Buffer[] = [];
  let chunked = 0;
  let waitingFor = 0;
  let buffered: Buffer = Buffer.alloc(0);
  const hold = planReadBudget(limit);
  let ended: Error | undefined;
  const failAll = (error: Error) => {
    ended ??= error;
    for (const pending of queue.splice(0)) pending.fail(ended);
  };
  // Hands every whole answer to the reader waiting for it. Throws for output git should not print, or
  // for an object past the size limits.
  const parse = () => {
    for (let pending = queue[0]; pending !== undefined; pending = queue[0]) {
      const taken = takeBatchAnswer(buffered);
      if (taken === undefined) return;
      hold(taken.answer?.content.length ?? 0);
      buffered = taken.rest;
      pending.answers.push(taken.answer);
      if (pending.answers.length === pending.count) {
        queue.shift();
        pending.settle(pending.answers);
      }
    }
  };
  child.stdout.on('data', (chunk: Buffer) => {
    // After a failure nothing more is read: what git still sends is dropped.
    if (ended !== undefined) return;
    chunks.push(chunk);
    chunked += chunk.length;
    if (chunked < waitingFor) return;
    buffered = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, chunked);
    try {
      parse();
      waitingFor = batchAnswerLength(buffered) ?? 0;
    } catch (error) {
      failAll(error as Error);
      child.kill('SIGTERM');
      return;
    }
    chunks = buffered.length === 0 ? [] : [buffered];
    chunked = buffered.length;
  });
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
  // A git that died makes writing to it fail (EPIPE); the exit below says why.
  child.stdin.on('error', () => undefined);
  child.on('error', (error) => failAll(new PlanRefError('read', `git cat-file could not start: ${error.message}`)));
  child.on('close', (code) => {
    const said = Buffer.concat(stderr).toString('utf8').trim().split('\n')[0] ?? '';
    failAll(new PlanRefError('read', `git cat-file ended (exit ${code ?? 'by signal'}) before answering: ${said || 'no output'}`));
  });
  return {
    read(names) {
      if (names.length === 0) return Promise.resolve([]);
      if (ended !== undefined) return Promise.reject(ended);
      if (names.some((name) => name.includes('\n'))) return Promise.reject(new PlanRefError('read', 'an object name cannot hold a line break'));
      return new Promise((settle, fail) => {
        queue.push({ count: names.length, answers: [], settle, fail });
        child.stdin.write(`${names.join('\n')}\n`);
      });
    },
    close() {
      if (child.exitCode === null && child.signalCode === null) child.stdin.end();
    },
  };
}

/** A tree entry's mode naming a directory, as canonicalMode gives it (and as `git ls-tree` prints it, zero-padded). */
export const isDirectoryMode = (mode: string) => mode === '40000' || mode === '040000';

/**
 * A tree entry's mode as git reads it, from the octal text in the tree object: git parses the digits (any
 * number of them, so `0100644` and `100644` are one mode; a digit that is not octal, or no digit, makes the
 * tree one git refuses) and then canonicalises the type (canon_mode in git's object.h): a regular file is
 * `100755` when the owner may execute it and `100644` otherwise, whatever its other permission bits; a
 * symbolic link `120000`; a directory `40000`; anything else a submodule link, `160000`. This is what `git
 * ls-tree` prints (a directory as `040000`), so the reader here decides as verify's does. Only the low 16
 * bits count (newer git keeps the mode in 16 bits; older git's larger bits never reach the type or the
 * execute bit). Undefined for a mode git refuses.
 */
export function canonicalMode(text: string): string | undefined {
  if (!/^[0-7]+$/.test(text)) return undefined;
  let mode = 0;
  for (const digit of text) mode = ((mode << 3) + Number(digit)) & 0xffff;
  switch (mode & 0o170000) {
    case 0o100000:
      return mode & 0o100 ? '100755' : PLAIN_FILE_MODE;
    case 0o120000:
      return '120000';
    case 0o040000:
      return '40000';
    default:
      return '160000';
  }
}

/**
 * The entries of one tree object: `<octal mode> <name>\0<id of hexLength / 2 bytes>`, repeated; each mode
 * canonical (canonicalMode), as git reads it.
 */
export function parseTree(content: Buffer, hexLength: number, where: string): Array<{ mode: string; name: string; oid: string }> {
  const entries: Array<{ mode: string; name: string; oid: string }> = [];
  const idBytes = hexLength / 2;
  let offset = 0;
  while (offset < content.length) {
    const space = content.indexOf(0x20, offset);
    const nul = space === -1 ? -1 : content.indexOf(0x00, space + 1);
    if (space === -1 || nul === -1 || nul + 1 + idBytes > content.length) throw new PlanRefError('read', `the tree ${where} is not one git wrote`);
    const mode = canonicalMode(content.subarray(offset, space).toString('latin1'));
    if (mode === undefined) throw new PlanRefError('read', `the tree ${where} has an entry whose mode git cannot read`);
    entries.push({
      mode,
      name: content.subarray(space + 1, nul).toString('utf8'),
      oid: content.subarray(nul + 1, nul + 1 + idBytes).toString('hex'),
    });
    offset = nul + 1 + idBytes;
  }
  return entries;
}

/** At most this many directories are asked for ahead (likelyDirectories); the rest are read level by level. */
const MAX_LIKELY_DIRECTORIES = 64;

/** What `git ls-tree -r -l -z` prints for an entry besides its path and id: mode, type, padded size, separators. */
const LISTED_ENTRY_BYTES = 22;

/** The mode of a plain file in a git tree. */
export const PLAIN_FILE_MODE = '100644';

/**
 * Every blob and submodule link of `commit`'s tree with its full path, in the order `git ls-tree -r` lists
 * them (each tree's entries in git's order, a directory's contents where the directory stands), and the
 * commit object's own text, read in the same request as the top tree. The trees at
 * `likelyDirectories` (paths a recent plan had, so most are there again) are asked for in that request
 * too, by path (`<commit>:<path>`): each answer is kept by its object id, and used only where the tree
 * being walked names that id, so what is listed is the commit's whatever the hints say; the directories
 * they miss are read level by level as without them. A plan of the same shape is then listed in one round.
 */
export async function readCommitWithTree(
  batch: ObjectBatch,
  commit: string,
  likelyDirectories: readonly string[] = [],
  { readLimit = MAX_PLAN_READ_BYTES }: PlanReadLimit = {},
): Promise<{ commitText: string; entries: TreeEntry[] }> {
  const hexLength = commit.length;
  const hints = likelyDirectories.filter((path) => path !== '' && !path.includes('\n')).slice(0, MAX_LIKELY_DIRECTORIES);
  const [object, top, ...hinted] = await batch.read([commit, `${commit}^{tree}`, ...hints.map((path) => `${commit}:${path}`)]);
  if (object === null || object === undefined || object.type !== 'commit') throw new PlanRefError('read', `${commit} is not a commit git can read`);
  if (top === null || top === undefined || top.type !== 'tree') throw new PlanRefError('read', `the plan commit ${commit} has no tree git can read`);
  const trees = new Map<string, Array<{ mode: string; name: string; oid: string }>>([[top.oid, parseTree(top.content, hexLength, top.oid)]]);
  for (const answer of hinted) if (answer !== null && answer !== undefined && answer.type === 'tree') trees.set(answer.oid, parseTree(answer.content, hexLength, answer.oid));
  // Level by level: every directory not yet read below the trees just read, in one request. A directory
  // read ahead is looked into like any other, so what is new beneath it (another clone's directory under
  // `clones/`) is read too: a hint can save a round, never hide a tree.
  const unread = (level: readonly string[]) => {
    const missing = new Set<string>();
    const looked = new Set<string>();
    // With a stack of its own rather than recursion: how deep the trees already read nest is the ref's
    // author's choice (the walk below refuses past MAX_PLAN_TREE_DEPTH).
    const pending = [...level].reverse();
    for (let oid = pending.pop(); oid !== undefined; oid = pending.pop()) {
      if (looked.has(oid)) continue;
      looked.add(oid);
      for (const entry of trees.get(oid) ?? []) {
        if (!isDirectoryMode(entry.mode)) continue;
        if (trees.has(entry.oid)) pending.push(entry.oid);
        else missing.add(entry.oid);
      }
    }
    return [...missing];
  };
  // Round n reads directories at least n deep (a hint may have read some of the levels above ahead), so
  // a round past MAX_PLAN_TREE_DEPTH means a deeper tree: refused before it is read any further.
  for (let depth = 1, level = unread([top.oid]); level.length > 0; depth += 1, level = unread(level)) {
    if (depth > MAX_PLAN_TREE_DEPTH) throw planTreeTooDeep(commit);
    const answers = await batch.read(level);
    level.forEach((oid, index) => {
      const answer = answers[index];
      if (answer === null || answer === undefined || answer.type !== 'tree') throw new PlanRefError('read', `the plan commit ${commit} names a tree git does not have (${oid})`);
      trees.set(oid, parseTree(answer.content, hexLength, oid));
    });
  }
  const listed: TreeEntry[] = [];
  // Depth first, each tree's entries in order, with a stack of its own: one frame per directory open on the
  // way down, so the stack's length is the depth of the directory being listed.
  const stack: Array<{ entries: ReadonlyArray<{ mode: string; name: string; oid: string }>; next: number; prefix: string }> = [];
  const open = (oid: string, prefix: string) => {
    const tree = trees.get(oid);
    // Every directory has been read above; one that was not would leave its files out of the plan.
    if (tree === undefined) throw new PlanRefError('read', `the tree ${prefix === '' ? 'at the top' : `at ${prefix}`} of the plan commit ${commit} was not read`);
    // A hint may have read a tree deeper than the rounds went.
    if (stack.length > MAX_PLAN_TREE_DEPTH) throw planTreeTooDeep(commit);
    stack.push({ entries: tree, next: 0, prefix });
  };
  // Trees that name one subtree many times list exponentially many paths from a few tiny objects (20
  // levels of two names: a million paths from 40 objects), so the listing is bounded as readTree bounds
  // `git ls-tree -r -l`'s output; every directory passed counts too, as empty trees list nothing.
  let listedBytes = 0;
  open(top.oid, '');
  for (let frame = stack.at(-1); frame !== undefined; frame = stack.at(-1)) {
    const entry = frame.entries[frame.next];
    frame.next += 1;
    if (entry === undefined) {
      stack.pop();
      continue;
    }
    const path = `${frame.prefix}${entry.name}`;
    listedBytes += path.length + LISTED_ENTRY_BYTES + entry.oid.length;
    if (listedBytes > readLimit) throw new PlanRefError('read', `the plan commit ${commit} lists more than ${readLimit} bytes of paths: this is not a plan Wave Scope reads`);
    if (isDirectoryMode(entry.mode)) open(entry.oid, `${path}/`);
    else listed.push({ path, oid: entry.oid, blob: entry.mode === PLAIN_FILE_MODE });
  }
  return { commitText: object.content.toString('utf8'), entries: listed };
}
