// The plan ref through the user's own git: fetch and push with the user's remote configuration and
// credentials (Wave Scope never sees them), plumbing to read and write plan commits without touching the
// work tree, the index or any branch. Publishing costs a fixed handful of processes whatever the size of
// the wave: one fetch, one ls-tree and one cat-file --batch of the blobs that changed to read (none when
// the plan-tree cache holds the fetched commit), one unpack-objects for every new blob, the trees and the
// commit at once, one push. After a background fetch, the fetched tree and its new blobs are read from the
// loose objects the fetch stored, each proven by its hash (src/node/looseObjects.ts), and through one
// cat-file only for what those do not answer (src/node/objectBatch.ts); the unpack-objects can be started
// while the fetch runs (prepareWrite), waiting on its input.
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess, StdioOptions } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { deflateSync } from 'node:zlib';
import { followFetchTrace } from './fetchTrace';
import { gitEnvironment, NOWHERE } from './git';
import { checkPlanObjectSize, MAX_PLAN_READ_BYTES, MAX_PLAN_TREE_DEPTH, PLAIN_FILE_MODE, planReadBudget, planTreeTooDeep, readCommitWithTree, startObjectBatch, takeBatchAnswer } from './objectBatch';
import { looseFirstBatch } from './looseObjects';
import type { BatchObject, ObjectBatch, TreeEntry } from './objectBatch';
import { PlanRefError } from '../planner/sync/publish';
import type { PlanRefStore } from '../planner/sync/publish';
import { PLAN_REF, trackingRefOf } from '../planner/sync/planRef';
import type { PlanFiles } from '../planner/sync/planRef';

/** One finished git process. */
export interface GitRun {
  status: number;
  stdout: Buffer;
  stderr: string;
}

/** Runs git in `cwd`. Never throws for a non-zero exit (the caller decides); throws when git cannot start. */
export function runGitProcess(cwd: string, args: readonly string[], options: { input?: string | Buffer; env?: NodeJS.ProcessEnv; maxBuffer?: number } = {}): GitRun {
  const result = spawnSync('git', args, {
    cwd,
    input: options.input,
    env: gitEnvironment(options.env),
    maxBuffer: options.maxBuffer ?? 1024 * 1024 * 1024,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  if (result.error) throw result.error;
  return { status: result.status ?? 128, stdout: result.stdout, stderr: result.stderr.toString('utf8') };
}

function firstLineOf(text: string): string {
  return text.trim().split('\n').filter((line) => line.trim() !== '').join(' / ') || 'no output';
}

/** Runs git and returns stdout as text; a non-zero exit throws PlanRefError with git's stderr. */
function gitText(cwd: string, reason: PlanRefError['reason'], args: readonly string[], options: { input?: string | Buffer; env?: NodeJS.ProcessEnv; maxBuffer?: number } = {}): string {
  const run = runGitProcess(cwd, args, options);
  if (run.status !== 0) throw new PlanRefError(reason, `git ${args[0]} failed (exit ${run.status}): ${firstLineOf(run.stderr)}`);
  return run.stdout.toString('utf8');
}

/** Fetches of the plan ref tried before a failure is final, when the ref appears between a fetch and ls-remote. */
const MAX_FETCH_ATTEMPTS = 4;

/** The identity plan commits are made with: they record a plan, not anybody's work. */
const PLAN_COMMIT_IDENTITY = {
  GIT_AUTHOR_NAME: 'Wave Scope',
  GIT_AUTHOR_EMAIL: 'wave-scope@localhost',
  GIT_COMMITTER_NAME: 'Wave Scope',
  GIT_COMMITTER_EMAIL: 'wave-scope@localhost',
};

/**
 * The commit this clone's copy of `remote`'s plan ref points at, without fetching; null when there is none.
 * With `commonDir`, the ref is read from git's files directly: the loose ref file, which is authoritative
 * when present (git writes one on every update of the ref), else its line in `packed-refs` (where
 * `git gc` and `git pack-refs` move it; a ref is in one or the other). When neither names it (no such
 * ref, a symbolic ref, another ref store such as reftable), or without `commonDir`, git is asked.
 */
export function readTrackingRef(root: string, remote: string, commonDir?: string): string | null {
  if (commonDir !== undefined) {
    const ref = trackingRefOf(remote);
    const direct = readLooseRef(join(commonDir, ...ref.split('/'))) ?? readPackedRef(join(commonDir, 'packed-refs'), ref);
    if (direct !== undefined) return direct;
  }
  const run = runGitProcess(root, ['rev-parse', '--verify', '--quiet', `${trackingRefOf(remote)}^{commit}`]);
  return run.status === 0 ? run.stdout.toString('utf8').trim() : null;
}

function readLooseRef(path: string): string | undefined {
  try {
    const text = readFileSync(path, 'utf8').trim();
    return /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(text) ? text : undefined;
  } catch {
    return undefined;
  }
}

/** The object id `packed-refs` gives `ref`; undefined when the file is absent, unreadable or does not list it. */
function readPackedRef(path: string, ref: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  // Lines are `<id> <refname>`, each optionally followed by a `^<id>` line (the peeled tag), after a `#` header.
  const suffix = ` ${ref}`;
  for (const line of text.split('\n')) {
    if (!line.endsWith(suffix)) continue;
    const id = line.slice(0, -suffix.length);
    if (/^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(id)) return id;
  }
  return undefined;
}

/** How many directories a tree path passes through (its `/`s). */
function directoriesAbove(path: string): number {
  let count = 0;
  for (let at = path.indexOf('/'); at !== -1; at = path.indexOf('/', at + 1)) count += 1;
  return count;
}

interface TreeFile {
  oid: string;
  text: string;
}

/**
 * The entries of `git ls-tree -r -l -z --full-tree` of `commit` that `only` keeps, and the size git lists for
 * each blob. A path deeper than any plan's (MAX_PLAN_TREE_DEPTH), kept or not, refuses the commit, as the
 * reader through cat-file refuses it.
 */
function parseTreeListing(commit: string, listing: string, only?: (path: string) => boolean): { entries: TreeEntry[]; sizes: Map<string, number> } {
  const entries: TreeEntry[] = [];
  const sizes = new Map<string, number>();
  for (const record of listing.split('\0')) {
    if (record === '') continue;
    const tab = record.indexOf('\t');
    // `<mode> <type> <id> <size>`, the size padded with spaces ('-' for what is not a blob).
    const [mode, type, oid, size] = record
      .slice(0, tab)
      .split(' ')
      .filter((field) => field !== '');
    const path = record.slice(tab + 1);
    if (directoriesAbove(path) > MAX_PLAN_TREE_DEPTH) throw planTreeTooDeep(commit);
    if (oid === undefined || (only !== undefined && !only(path))) continue;
    entries.push({ path, oid, blob: type === 'blob' && mode === PLAIN_FILE_MODE });
    if (type === 'blob') sizes.set(oid, /^[0-9]+$/.test(size ?? '') ? Number(size) : NaN);
  }
  return { entries, sizes };
}

/**
 * The blob texts of `entries` already at hand in `known` (the last plan read or written), and the ids still
 * to read. A known text is used only when hashing it as a blob gives exactly the id git lists, so what is
 * returned is what git holds; `hashed` holds texts by the id hashing them gave already (hashPlanTree), which
 * are not hashed again.
 */
function knownTexts(entries: readonly TreeEntry[], known: Iterable<TreeFile>, hashed: ReadonlyMap<string, string> = new Map()): { contents: Map<string, string>; wanted: string[] } {
  const offered = new Map<string, string>();
  for (const file of known) offered.set(file.oid, file.text);
  const contents = new Map<string, string>();
  const wanted: string[] = [];
  for (const oid of new Set(entries.filter((entry) => entry.blob).map((entry) => entry.oid))) {
    const proven = hashed.get(oid);
    const text = proven ?? offered.get(oid);
    if (text !== undefined && (proven !== undefined || gitObject('blob', Buffer.from(text, 'utf8'), oid.length).id === oid)) contents.set(oid, text);
    else wanted.push(oid);
  }
  return { contents, wanted };
}

/** Adds the blobs of one finished `git cat-file --batch` to `contents`. */
function parseBlobBatch(run: GitRun, commit: string, contents: Map<string, string>): void {
  if (run.status !== 0) throw new PlanRefError('read', `git cat-file failed (exit ${run.status}): ${firstLineOf(run.stderr)}`);
  let rest = run.stdout;
  while (rest.length > 0) {
    const taken = takeBatchAnswer(rest);
    if (taken === undefined) throw new PlanRefError('read', 'git cat-file ended in the middle of an answer');
    if (taken.answer === null) throw new PlanRefError('read', `the plan commit ${commit} names an object git does not have`);
    contents.set(taken.answer.oid, taken.answer.content.toString('utf8'));
    rest = taken.rest;
  }
}

function treeOf(entries: readonly TreeEntry[], contents: ReadonlyMap<string, string>): Map<string, TreeFile> {
  const files = new Map<string, TreeFile>();
  // Anything but a plain file (a link, an executable, a submodule link) is kept as an empty text: the decoder refuses it.
  for (const entry of entries) files.set(entry.path, { oid: entry.oid, text: entry.blob ? (contents.get(entry.oid) ?? '') : '' });
  return files;
}

/**
 * The files of `commit` (those `only` keeps) with their blob ids: one ls-tree, and one cat-file for the blobs
 * whose text is not already known (see knownTexts).
 */
function readTree(root: string, commit: string, only?: (path: string) => boolean, known: Iterable<TreeFile> = []): Map<string, TreeFile> {
  let listing: string;
  try {
    listing = gitText(root, 'read', ['ls-tree', '-r', '-l', '-z', '--full-tree', commit], { maxBuffer: MAX_PLAN_READ_BYTES });
  } catch (error) {
    if ((error as { code?: string }).code !== 'ENOBUFS') throw error;
    throw new PlanRefError('read', `the plan commit ${commit} lists more than ${MAX_PLAN_READ_BYTES} bytes of paths: this is not a plan Wave Scope reads`);
  }
  const { entries, sizes } = parseTreeListing(commit, listing, only);
  const { contents, wanted } = knownTexts(entries, known);
  // cat-file's answers are held whole: what they may add up to is bounded before they are asked for, as the
  // readers that take them as they come bound them (planReadBudget).
  const hold = planReadBudget();
  for (const oid of wanted) {
    const size = sizes.get(oid) ?? NaN;
    checkPlanObjectSize('blob', oid, size);
    hold(size);
  }
  if (wanted.length > 0) parseBlobBatch(runGitProcess(root, ['cat-file', '--batch'], { input: `${wanted.join('\n')}\n` }), commit, contents);
  return treeOf(entries, contents);
}

/** A git process started ahead of need, waiting on its standard input (see startWaitingGit). */
interface WaitingGit {
  /** Hands it `input`, closing its standard input; settles when it has exited (undefined: it could not start). */
  feed(input: Buffer | string): Promise<GitRun | undefined>;
  /** Ends it when it was never fed: it has read nothing, so it has done nothing. */
  cancel(): void;
}

/**
 * Starts `git <args>` in `root` now, to be fed later: git's own start (reading the configuration, finding
 * the repository) then runs while the command waits on the fetch, and only the work on the input is left
 * for when the input is known.
 */
function startWaitingGit(root: string, args: readonly string[]): WaitingGit {
  const started = startGit(root, args, 'pipe');
  const { stdin } = started;
  // A git that died before reading its input makes writing it fail (EPIPE): the exit status tells why.
  stdin?.on('error', () => undefined);
  let fed = false;
  return {
    feed(input) {
      fed = true;
      stdin?.end(input);
      return started.run;
    },
    cancel() {
      if (!fed) started.stop();
    },
  };
}

/** A git process started and not waited for. */
export interface StartedGit {
  /** Its standard input when it was started with a pipe, for a process fed later. */
  readonly stdin: Writable | null;
  /** Settles to the finished process, or to undefined when git could not be started. */
  readonly run: Promise<GitRun | undefined>;
  running(): boolean;
  /** Ends the process if it is still running. */
  stop(): void;
}

/**
 * `git <args>` in `cwd`, not waited for, with `environment` added to git's own (gitEnvironment). Standard input is
 * a pipe for a process fed later, else closed.
 */
export function startGit(
  cwd: string,
  args: readonly string[],
  stdin: 'pipe' | 'ignore',
  options: { environment?: NodeJS.ProcessEnv; descriptor?: number } = {},
): StartedGit {
  // `descriptor`: an open file git is given as its descriptor 3 (a fetch's trace: src/node/fetchTrace.ts).
  const stdio: StdioOptions = options.descriptor === undefined ? [stdin, 'pipe', 'pipe'] : [stdin, 'pipe', 'pipe', options.descriptor];
  const child: ChildProcess = spawn('git', args, { cwd, env: { ...gitEnvironment(), ...options.environment }, stdio });
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  child.stdout?.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));
  const run = new Promise<GitRun | undefined>((settle) => {
    child.on('error', () => settle(undefined));
    child.on('close', (code) => settle({ status: code ?? 128, stdout: Buffer.concat(stdout), stderr: Buffer.concat(stderr).toString('utf8') }));
  });
  const running = () => child.exitCode === null && child.signalCode === null;
  return {
    stdin: child.stdin,
    run,
    running,
    stop() {
      if (running()) child.kill('SIGTERM');
    },
  };
}

/**
 * readTree without blocking and without a second process: the listing and the blobs not already known both
 * through `batch` (one `git cat-file --batch`), which this closes.
 */
async function readTreeWith(
  commit: string,
  known: Iterable<TreeFile>,
  batch: ObjectBatch,
  likelyDirectories: readonly string[] = [],
  hashed?: ReadonlyMap<string, string>,
): Promise<{ tree: Map<string, TreeFile>; commitText: string }> {
  try {
    const { entries, commitText } = await readCommitWithTree(batch, commit, likelyDirectories);
    const { contents, wanted } = knownTexts(entries, known, hashed);
    const answers = await batch.read(wanted);
    wanted.forEach((oid, index) => {
      const answer = answers[index];
      if (answer === null || answer === undefined || answer.type !== 'blob') throw new PlanRefError('read', `the plan commit ${commit} names an object git does not have (${oid})`);
      contents.set(oid, answer.content.toString('utf8'));
    });
    return { tree: treeOf(entries, contents), commitText };
  } finally {
    batch.close();
  }
}

/** The length of an object id in the repository at `root` (40: SHA-1, 64: SHA-256). */
function objectIdLength(root: string): number {
  const run = runGitProcess(root, ['rev-parse', '--show-object-format']);
  return run.status === 0 && run.stdout.toString('utf8').trim() === 'sha256' ? 64 : 40;
}

type GitObjectType = 'commit' | 'tree' | 'blob';

/** An object as git stores it: its id is the hash of `<type> <size>\0<body>` (SHA-1, or SHA-256 in such a repository). */
interface GitObject {
  type: GitObjectType;
  body: Buffer;
  id: string;
}

function gitObject(type: GitObjectType, body: Buffer, hexLength: number): GitObject {
  const id = createHash(hexLength === 64 ? 'sha256' : 'sha1')
    .update(`${type} ${body.length}\0`)
    .update(body)
    .digest('hex');
  return { type, body, id };
}

/** A tree's entries in git's order: by name, a directory's name read as if it ended in `/`. */
function treeObject(entries: ReadonlyArray<{ name: string; mode: '100644' | '40000'; id: string }>, hexLength: number): GitObject {
  const key = (entry: { name: string; mode: string }) => Buffer.from(entry.mode === '40000' ? `${entry.name}/` : entry.name, 'utf8');
  const sorted = [...entries].sort((left, right) => Buffer.compare(key(left), key(right)));
  const body = Buffer.concat(sorted.flatMap((entry) => [Buffer.from(`${entry.mode} ${entry.name}\0`, 'utf8'), Buffer.from(entry.id, 'hex')]));
  return gitObject('tree', body, hexLength);
}

const PACK_TYPE: Record<GitObjectType, number> = { commit: 1, tree: 2, blob: 3 };

/** A version 2 pack holding `objects` whole (no deltas), as `git unpack-objects` reads it from stdin. */
function packOf(objects: readonly GitObject[], hexLength: number): Buffer {
  const header = Buffer.alloc(12);
  header.write('PACK', 0, 'latin1');
  header.writeUInt32BE(2, 4);
  header.writeUInt32BE(objects.length, 8);
  const parts: Buffer[] = [header];
  for (const object of objects) {
    // Type and size: the size's low 4 bits beside the type, then 7 bits a byte, high bit = more follows.
    let size = object.body.length;
    const bytes = [(PACK_TYPE[object.type] << 4) | (size & 0x0f)];
    size = Math.floor(size / 16);
    while (size > 0) {
      bytes[bytes.length - 1] = (bytes[bytes.length - 1] as number) | 0x80;
      bytes.push(size & 0x7f);
      size = Math.floor(size / 128);
    }
    parts.push(Buffer.from(bytes), deflateSync(object.body));
  }
  const pack = Buffer.concat(parts);
  return Buffer.concat([pack, createHash(hexLength === 64 ? 'sha256' : 'sha1').update(pack).digest()]);
}

/**
 * The objects of a plan commit whose tree is exactly `files`: the new blobs, the trees and the commit, made
 * here in git's object format (a hash over type, size and body) and packed as one pack for
 * `git unpack-objects`, which checks it and stores each object loose, as `git hash-object -w` would.
 * Reused blobs are named by id.
 */
function planObjects(
  request: { files: PlanFiles; reused: ReadonlyMap<string, string>; parent: string | null; message: string; hexLength: number },
): { commit: string; commitText: string; blobs: Map<string, string>; pack: Buffer } {
  const { hexLength } = request;
  const objects = new Map<string, GitObject>();
  const add = (object: GitObject) => {
    objects.set(object.id, object);
    return object.id;
  };
  const blobs = new Map<string, string>();
  const blobIds = new Map<string, string>();
  for (const [path, text] of request.files) {
    const id = request.reused.get(path) ?? add(gitObject('blob', Buffer.from(text, 'utf8'), hexLength));
    if (!request.reused.has(path)) blobs.set(path, id);
    blobIds.set(path, id);
  }
  const tree = planTreeObjects(blobIds, hexLength, add);
  const identity = `${PLAN_COMMIT_IDENTITY.GIT_COMMITTER_NAME} <${PLAN_COMMIT_IDENTITY.GIT_COMMITTER_EMAIL}> ${Math.floor(Date.now() / 1000)} +0000`;
  const commitText = [`tree ${tree}`, ...(request.parent === null ? [] : [`parent ${request.parent}`]), `author ${identity}`, `committer ${identity}`, '', `${request.message}\n`].join('\n');
  const commit = add(gitObject('commit', Buffer.from(commitText, 'utf8'), hexLength));
  return { commit, commitText, blobs, pack: packOf([...objects.values()], hexLength) };
}

/**
 * The tree objects of a plan whose files are `blobIds` (path → blob id), each handed to `add`; returns the
 * top tree's id. Files are plain (100644) and directories plain trees, as a plan commit holds them.
 */
function planTreeObjects(blobIds: ReadonlyMap<string, string>, hexLength: number, add: (object: GitObject) => string): string {
  // The tree as nested directories: name → blob id, or a directory of its own.
  interface Directory {
    files: Map<string, string>;
    directories: Map<string, Directory>;
  }
  const top: Directory = { files: new Map(), directories: new Map() };
  for (const [path, id] of blobIds) {
    const segments = path.split('/');
    if (segments.some((segment) => segment === '' || segment === '.' || segment === '..' || segment === '.git' || segment.includes('\0'))) {
      throw new PlanRefError('write', `the plan cannot hold the path ${JSON.stringify(path)}`);
    }
    // writeTree recurses once per level; no plan nests deeper (a cached tree is anyone's to edit).
    if (segments.length - 1 > MAX_PLAN_TREE_DEPTH) throw new PlanRefError('write', `the plan cannot hold a path more than ${MAX_PLAN_TREE_DEPTH} directories deep`);
    let directory = top;
    for (const segment of segments.slice(0, -1)) {
      let next = directory.directories.get(segment);
      if (next === undefined) {
        next = { files: new Map(), directories: new Map() };
        directory.directories.set(segment, next);
      }
      directory = next;
    }
    directory.files.set(segments[segments.length - 1] as string, id);
  }
  const writeTree = (directory: Directory): string => {
    const entries: Array<{ name: string; mode: '100644' | '40000'; id: string }> = [];
    for (const [name, child] of directory.directories) {
      if (directory.files.has(name)) throw new PlanRefError('write', `the plan names ${name} both as a file and as a directory`);
      entries.push({ name, mode: '40000', id: writeTree(child) });
    }
    for (const [name, id] of directory.files) entries.push({ name, mode: '100644', id });
    return add(treeObject(entries, hexLength));
  };
  return writeTree(top);
}

/** A plan's files hashed as git stores them: each text's blob id, the tree objects built over them by id, and the top tree's id. */
interface HashedPlanTree {
  blobIds: ReadonlyMap<string, string>;
  /** Each text by the blob id hashing it gave. */
  texts: ReadonlyMap<string, string>;
  trees: ReadonlyMap<string, BatchObject>;
  top: string;
}

// Hashing a plan's files is asked twice of the same cached tree in one command (the trees a fetch's reading
// may find known, and the proof that the cached tree is its commit's): made once per tree object.
const hashedPlanTrees = new WeakMap<PlanTree, { hexLength: number; hashed: HashedPlanTree | undefined }>();

/** `tree`'s files hashed as blobs and built into trees (`hexLength`: 40, SHA-1, or 64, SHA-256); undefined when they cannot form a plan's tree. */
function hashPlanTree(tree: PlanTree, hexLength: number): HashedPlanTree | undefined {
  const memo = hashedPlanTrees.get(tree);
  if (memo !== undefined && memo.hexLength === hexLength) return memo.hashed;
  const blobIds = new Map([...tree].map(([path, file]) => [path, gitObject('blob', Buffer.from(file.text, 'utf8'), hexLength).id]));
  const texts = new Map([...tree].map(([path, file]) => [blobIds.get(path) as string, file.text]));
  const trees = new Map<string, BatchObject>();
  let hashed: HashedPlanTree | undefined;
  try {
    const top = planTreeObjects(blobIds, hexLength, (object) => {
      trees.set(object.id, { oid: object.id, type: object.type, content: object.body });
      return object.id;
    });
    hashed = { blobIds, texts, trees, top };
  } catch {
    hashed = undefined;
  }
  hashedPlanTrees.set(tree, { hexLength, hashed });
  return hashed;
}

/**
 * Whether `tree` is exactly the tree of `commit`, proven by hashing alone: `commitText` hashes to the
 * commit's id, and the files' texts, hashed as blobs and built into trees, give the tree it names. A
 * cached tree (the clone's plan-tree cache, a file anyone who can write the git directory can edit) is
 * used for a commit only when this holds, so an edited cache can never change what a plan reads.
 */
export function planTreeMatchesCommit(commit: string, commitText: string, tree: PlanTree): boolean {
  const hexLength = commit.length;
  if (hexLength !== 40 && hexLength !== 64) return false;
  if (gitObject('commit', Buffer.from(commitText, 'utf8'), hexLength).id !== commit) return false;
  const named = /^tree ([0-9a-f]+)\n/.exec(commitText)?.[1];
  const hashed = named === undefined ? undefined : hashPlanTree(tree, hexLength);
  if (hashed === undefined || hashed.top !== named) return false;
  return [...tree].every(([path, file]) => hashed.blobIds.get(path) === file.oid);
}

/**
 * The plan whose files are `tree` as git would store it (hashPlanTree): its tree objects and its texts, each
 * by the id of its own hash, so each is that object whatever `tree` is (a cached plan nobody proved). A read
 * of a tree or a blob the next plan commit still has is answered with it. Empty when there is no such tree.
 */
function objectsOf(tree: PlanTree | undefined): { trees: ReadonlyMap<string, BatchObject>; texts: ReadonlyMap<string, string> } {
  const hexLength = tree === undefined ? undefined : [...tree.values()][0]?.oid.length;
  const hashed = tree === undefined || (hexLength !== 40 && hexLength !== 64) ? undefined : hashPlanTree(tree, hexLength);
  return { trees: hashed?.trees ?? new Map(), texts: hashed?.texts ?? new Map() };
}

/** How a plan commit's objects are stored: as loose objects, each checked, as `git hash-object -w` would. */
const UNPACK_ARGS = ['unpack-objects', '-q'];

/** Stores a plan commit's pack with `storer` (a `git unpack-objects` started ahead, else one started now). No ref moves. */
async function storePlanObjects(root: string, pack: Buffer, storer: WaitingGit | undefined): Promise<void> {
  // A git that could not be started ahead is run once more here, so the reason it cannot run is reported.
  const run = (await (storer ?? startWaitingGit(root, UNPACK_ARGS)).feed(pack)) ?? runGitProcess(root, UNPACK_ARGS, { input: pack });
  if (run.status !== 0) throw new PlanRefError('write', `git unpack-objects failed (exit ${run.status}): ${firstLineOf(run.stderr)}`);
}

/** The files of one plan commit with their blob ids. */
export type PlanTree = ReadonlyMap<string, { oid: string; text: string }>;

/**
 * A cache of plan commits' trees (a commit id names its tree for ever, so an entry never goes stale).
 * Saves the two processes that read a plan when the remote has not moved since this clone last saw it.
 * Its file can be edited by anyone who can write the git directory: a tree is answered for a commit only
 * when planTreeMatchesCommit proves it is that commit's, and texts stand in for blobs only when they hash
 * to the blob's id.
 */
export interface PlanTreeCache {
  get(commit: string): PlanTree | undefined;
  /**
   * The tree it holds, whatever its commit. Reading another commit, its texts stand in for the blobs that
   * did not change, each checked against the blob id git lists (so a stale or altered entry is never used).
   */
  latest?(): PlanTree | undefined;
  /** `commitText`: the commit object's text, which lets `get` prove the tree is the commit's (without it, only `latest` uses the tree). */
  put(commit: string, tree: PlanTree, commitText?: string): void;
}

/** `git fetch` of `remote`'s plan ref into this clone's copy of it. */
function planFetchArgs(remote: string): string[] {
  return ['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--recurse-submodules=no', remote, `+${PLAN_REF}:${trackingRefOf(remote)}`];
}

/**
 * A fetch of the plan ref running in the background. `run` settles to the finished process (undefined when
 * git could not be started: the store's fetch() then starts it itself, and reports why it cannot).
 */
export interface BackgroundFetch {
  readonly run: Promise<GitRun | undefined>;
  /** The commit being fetched, once its objects are stored (src/node/fetchTrace.ts); undefined when that is not known. */
  readonly stored: Promise<string | undefined>;
  /** Whether the fetch has ended (run has settled, or is about to). */
  finished(): boolean;
  /** Ends a fetch that is no longer wanted (a command that stops on a local problem); git removes its locks. */
  cancel(): void;
}

/**
 * Starts the fetch of `remote`'s plan ref from `cwd`, before the checkout is even located: git finds the
 * repository from `cwd` exactly as the rev-parse that locates it does, so the fetch runs while the command
 * locates the checkout and reads its own state. The store's `fetchStarted` then answers as `fetch()` does,
 * from this fetch's outcome (a failed one is not run again).
 *
 * `traced` (sync): git's trace goes to a file this process follows (src/node/fetchTrace.ts), so `stored` names the
 * commit being fetched as soon as its objects are stored, before git has checked them and moved the ref;
 * not when the user traces git already. Otherwise `stored` is undefined at once.
 *
 * It starts before the command has checked that `remote` is a configured remote, and git takes a name no
 * remote has for a path (a repository of that name at the top level would be fetched from). So the fetch
 * is given one more URL for the remote, NOWHERE: git fetches from a remote's first URL, and reads
 * the command line's configuration last, so a configured remote is fetched as always, and any other name
 * reaches nothing. (A remote defined only by a file in `remotes/` or `branches/`, which git reads only for
 * a name with no URL, is then reached by the store's next attempt, once the name has been checked.)
 */
export function startPlanFetch(cwd: string, remote: string, options: { traced?: boolean } = {}): BackgroundFetch {
  const trace = options.traced === true ? followFetchTrace(PLAN_REF) : undefined;
  const started = startGit(cwd, ['-c', `remote.${remote}.url=${NOWHERE}`, ...planFetchArgs(remote)], 'ignore', { environment: trace?.environment, descriptor: trace?.descriptor });
  if (trace !== undefined) void started.run.then(() => trace.end());
  return {
    run: started.run,
    stored: trace?.stored ?? Promise.resolve(undefined),
    finished: () => !started.running(),
    cancel: started.stop,
  };
}

/**
 * What fetchAhead answers: the fetched commit and, when it was read before the fetch had ended, whether the
 * fetch ended with it (memoised); no `confirm` when it was read from what the ended fetch left.
 */
export interface FetchedAhead {
  tip: string | null;
  confirm?: () => Promise<boolean>;
}

/** What gitPlanRefStore gathers of the plan it knows before reading a fetched commit (gatherKnown). */
interface KnownPlanObjects {
  hashed: ReturnType<typeof objectsOf>;
  files: TreeFile[];
  directories: string[];
}

/** The plan ref through git (gitPlanRefStore). */
export interface GitPlanRefStore extends PlanRefStore {
  readonly trackingRef: string;
  /**
   * What fetch() answers, from a fetch started before (startPlanFetch). A fetched commit the plan-tree cache
   * does not hold is read at once, without blocking, by one `git cat-file --batch` started while the fetch
   * still runs (its listing and the blobs not already known), and readFiles answers from what was read.
   */
  fetchStarted(started: BackgroundFetch): Promise<string | null>;
  /**
   * fetchStarted, answered once the fetch has stored the commit it brings (BackgroundFetch.stored), while git
   * still checks it and moves the ref. `confirm` settles once the fetch has ended: true when it succeeded and
   * moved this clone's copy of the ref to exactly `tip`; false otherwise (then ask fetchStarted). Without a
   * commit to read ahead, it answers as fetchStarted does, and with no `confirm`.
   */
  fetchAhead(started: BackgroundFetch): Promise<FetchedAhead>;
  writeCommit(files: PlanFiles, parent: string | null, message: string): Promise<string>;
  /** Starts the git process the next writeCommit stores its objects with, so its start overlaps other work. */
  prepareWrite(): void;
  /** Ends a process prepareWrite started that no write used. */
  dispose(): void;
}

/**
 * The plan ref of `remote` in the repository at `root`. The local copy lives at
 * `refs/wave-scope/remotes/<remote>/plan` (never under refs/heads or refs/remotes: it is not a branch).
 */
export function gitPlanRefStore(
  root: string,
  remote: string,
  options: { cache?: PlanTreeCache; commonDir?: string } = {},
): GitPlanRefStore {
  const trackingRef = trackingRefOf(remote);
  const fetchArgs = planFetchArgs(remote);
  // What was read last, so writing the next commit hashes only the files that changed.
  const known = new Map<string, TreeFile>();
  const remember = (tree: PlanTree) => {
    for (const [path, file] of tree) known.set(path, file);
  };
  // Trees this store has read ahead (fetchStarted, with a prepared reader), by commit.
  const readAhead = new Map<string, PlanTree>();
  // Objects known to be commits: read as one (readCommitWithTree) or written here.
  // A plan ref naming anything else (a tag, a tree) is never made the parent of the next plan commit.
  const knownCommits = new Set<string>();
  let preparedStorer: WaitingGit | undefined;
  const knownTrees = () => [...known.values(), ...(options.cache?.latest?.()?.values() ?? [])];
  // The directories of the plan last read or written: a new plan commit mostly has them again.
  const knownDirectories = () => {
    const directories = new Set<string>();
    for (const path of [...known.keys(), ...(options.cache?.latest?.()?.keys() ?? [])]) {
      for (let slash = path.indexOf('/'); slash !== -1; slash = path.indexOf('/', slash + 1)) directories.add(path.slice(0, slash));
    }
    return [...directories];
  };

  /**
   * What the plan last read or written offers the reading of a fetched commit, gathered while git fetches:
   * its objects and texts, hashed then so that no hashing is left for after the fetch (objectsOf), its
   * files, and the directories likely there again.
   */
  const gatherKnown = (): KnownPlanObjects => ({ hashed: objectsOf(options.cache?.latest?.()), files: knownTrees(), directories: knownDirectories() });
  const looseBatch = (commonDir: string, known: KnownPlanObjects) => looseFirstBatch(join(commonDir, 'objects'), () => startObjectBatch(root), known.hashed.trees);
  /** Reads `commit` through `batch` (which this closes) unless the cache holds it, so readFiles answers it at once. */
  const readCommitAhead = async (commit: string, batch: ObjectBatch, known: KnownPlanObjects): Promise<void> => {
    if (options.cache?.get(commit) !== undefined) {
      batch.close();
      return;
    }
    const { tree, commitText } = await readTreeWith(commit, known.files, batch, known.directories, known.hashed.texts);
    readAhead.set(commit, tree);
    options.cache?.put(commit, tree, commitText);
    knownCommits.add(commit);
  };

  /** What fetch() answers, its first attempt already made when `first` is given. */
  const answerFetch = (first: GitRun | undefined): string | null => {
    for (let attempt = 1; ; attempt += 1) {
      const fetched = attempt === 1 && first !== undefined ? first : runGitProcess(root, fetchArgs);
      if (fetched.status === 0) break;
      // A remote without the ref makes fetch fail; ask once more, so "no plan yet" is told from "cannot reach it".
      const listed = runGitProcess(root, ['ls-remote', '--exit-code', remote, PLAN_REF]);
      if (listed.status === 2) {
        runGitProcess(root, ['update-ref', '-d', trackingRef]);
        return null;
      }
      // The ref is there now: another clone published it between the fetch and the question (the first
      // publish of a plan races every other clone's first fetch). Fetch it again.
      if (listed.status === 0 && attempt < MAX_FETCH_ATTEMPTS) continue;
      throw new PlanRefError('fetch', `git fetch ${remote} ${PLAN_REF} failed (exit ${fetched.status}): ${firstLineOf(fetched.stderr)}`);
    }
    const tip = readTrackingRef(root, remote, options.commonDir);
    if (tip === null) throw new PlanRefError('fetch', `git fetch ${remote} succeeded but ${trackingRef} does not name a commit`);
    return tip;
  };

  /**
   * What fetchStarted answers, with `known` gathered while the fetch runs. What the fetch brings is read from
   * the loose objects it leaves, proven by their hashes, with a cat-file started only for what they do not
   * answer (src/node/looseObjects.ts); without the repository's directory at hand, the cat-file starts beside
   * the fetch while it still runs.
   */
  const answerStarted = async (started: BackgroundFetch, known: KnownPlanObjects): Promise<string | null> => {
    const commonDir = options.commonDir;
    let batch: ObjectBatch | undefined = commonDir !== undefined ? looseBatch(commonDir, known) : started.finished() ? undefined : startObjectBatch(root);
    try {
      const tip = answerFetch(await started.run);
      // A commit the cache does not hold is read now, through that batch.
      if (tip !== null && options.cache?.get(tip) === undefined) {
        const reader = batch ?? startObjectBatch(root);
        batch = undefined;
        await readCommitAhead(tip, reader, known);
      }
      return tip;
    } finally {
      batch?.close();
    }
  };

  return {
    trackingRef,
    fetch: () => answerFetch(undefined),
    fetchStarted: (started) => answerStarted(started, gatherKnown()),
    async fetchAhead(started) {
      const commonDir = options.commonDir;
      const known = gatherKnown();
      if (commonDir !== undefined) {
        const stored = await Promise.race([started.stored, started.run.then(() => undefined)]);
        // Read ahead only while git still has its tail to run: a fetch that has ended is answered as always.
        if (stored !== undefined && !started.finished()) {
          try {
            await readCommitAhead(stored, looseBatch(commonDir, known), known);
            let ended: Promise<boolean> | undefined;
            const confirm = () =>
              (ended ??= started.run.then((run) => run !== undefined && run.status === 0 && readTrackingRef(root, remote, commonDir) === stored));
            return { tip: stored, confirm };
          } catch {
            // Not readable as the trace said (an object not there yet, or not at all): read once the fetch
            // has ended, as fetchStarted does.
          }
        }
      }
      return { tip: await answerStarted(started, known) };
    },
    readFiles(commit, only) {
      let tree: PlanTree | undefined = readAhead.get(commit) ?? options.cache?.get(commit);
      if (tree === undefined) {
        tree = readTree(root, commit, only, knownTrees());
        if (only === undefined) options.cache?.put(commit, tree);
      }
      remember(tree);
      const files = new Map<string, string>();
      for (const [path, file] of tree) if (only === undefined || only(path)) files.set(path, file.text);
      return files;
    },
    prepareWrite() {
      preparedStorer ??= startWaitingGit(root, UNPACK_ARGS);
    },
    dispose() {
      preparedStorer?.cancel();
      preparedStorer = undefined;
    },
    async writeCommit(files: PlanFiles, parent, message) {
      if (parent !== null && !knownCommits.has(parent) && gitText(root, 'read', ['cat-file', '-t', parent]).trim() !== 'commit') {
        throw new PlanRefError('read', `${parent} is not a commit git can read`);
      }
      // Files whose text this store has read or written before keep their blob; only new texts go in.
      const reused = new Map<string, string>();
      for (const [path, text] of files) {
        const old = known.get(path);
        if (old !== undefined && old.text === text) reused.set(path, old.oid);
      }
      const hexLength = parent?.length ?? [...known.values()][0]?.oid.length ?? objectIdLength(root);
      const { commit, commitText, blobs, pack } = planObjects({ files, reused, parent, message, hexLength });
      const storer = preparedStorer;
      preparedStorer = undefined;
      await storePlanObjects(root, pack, storer);
      const written = new Map([...files].map(([path, text]) => [path, { oid: reused.get(path) ?? (blobs.get(path) as string), text }]));
      remember(written);
      options.cache?.put(commit, written, commitText);
      knownCommits.add(commit);
      return commit;
    },
    push(commit, expected) {
      // The extra fetch refspec makes git move this clone's copy of the ref with the push itself.
      const pushed = runGitProcess(root, [
        '-c', `remote.${remote}.fetch=+${PLAN_REF}:${trackingRef}`,
        'push', '--porcelain', '--no-verify', '--no-follow-tags', '--recurse-submodules=no', remote,
        `--force-with-lease=${PLAN_REF}:${expected ?? ''}`, `${commit}:${PLAN_REF}`,
      ]);
      const line = pushed.stdout
        .toString('utf8')
        .split('\n')
        .find((candidate) => candidate.includes(`:${PLAN_REF}\t`));
      if (line !== undefined && line.startsWith('!')) {
        return { ok: false, rejected: line.split('\t').slice(2).join(' ').trim() || firstLineOf(pushed.stderr) };
      }
      if (pushed.status !== 0 || line === undefined) {
        throw new PlanRefError('push', `git push ${remote} ${PLAN_REF} failed (exit ${pushed.status}): ${firstLineOf(pushed.stderr)}`);
      }
      if (readTrackingRef(root, remote, options.commonDir) !== commit) runGitProcess(root, ['update-ref', trackingRef, commit]);
      return { ok: true };
    },
  };
}

/** The remotes this clone holds a copy of the plan ref for (the names under refs/wave-scope/remotes/). */
export function remotesWithPlanCopies(root: string): string[] {
  const run = runGitProcess(root, ['for-each-ref', '--format=%(refname)', 'refs/wave-scope/remotes/']);
  if (run.status !== 0) return [];
  return run.stdout
    .toString('utf8')
    .split('\n')
    .map((ref) => /^refs\/wave-scope\/remotes\/(.+)\/plan$/.exec(ref)?.[1])
    .filter((name): name is string => name !== undefined);
}
