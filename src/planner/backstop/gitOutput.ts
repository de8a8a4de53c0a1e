// Readers for the NUL-separated output of the git commands the backstop runs. Every command is run
// with `-z`, so a path reaches us exactly as git stores it (spaces, quotes, newlines and all); git's
// own quoting (`core.quotePath`) never applies to `-z` output. The commands themselves are chosen in
// snapshot.ts, turnCommits.ts and scopedCommit.ts; this file only reads what they print.

/** A reader met output it does not understand: the backstop then cannot vouch for the turn. */
export class GitOutputError extends Error {
  constructor(
    readonly command: string,
    message: string,
  ) {
    super(`${command}: ${message}`);
    this.name = 'GitOutputError';
  }
}

/** Where HEAD points: a branch (`refs/heads/<name>`) or detached, at a commit or unborn. */
export interface HeadState {
  /** The full name of the branch HEAD names; undefined when HEAD is detached. */
  readonly ref?: string;
  /** The commit HEAD resolves to; undefined on an unborn branch (no commit yet). */
  readonly commit?: string;
}

function records(text: string): string[] {
  const parts = text.split('\0');
  // Every record ends in NUL, so the last split part is the empty rest.
  if (parts[parts.length - 1] === '') parts.pop();
  return parts;
}

/**
 * Orders two repository paths the way git orders its index: by the bytes of their UTF-8 encoding,
 * which is code point order. JavaScript compares UTF-16 code units, which agrees except where an
 * astral character (a surrogate pair) meets a character from U+E000 up.
 */
export function compareGitPaths(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let index = 0; index < length; index += 1) {
    const left = a.charCodeAt(index);
    const right = b.charCodeAt(index);
    if (left === right) continue;
    const leftSurrogate = left >= 0xd800 && left <= 0xdfff;
    const rightSurrogate = right >= 0xd800 && right <= 0xdfff;
    if (leftSurrogate !== rightSurrogate && (leftSurrogate ? right : left) >= 0xe000) return leftSurrogate ? 1 : -1;
    return left - right;
  }
  return a.length - b.length;
}

const INDEX_COMMAND = 'git ls-files --stage -v -z';

/**
 * Whether a path git printed names its file in bytes that are not UTF-8: the output is read as UTF-8, which
 * puts U+FFFD for them, so that name opens nothing and stands for no one file (snapshot.ts, turnScope.ts).
 */
export function hasUndecodableName(path: string): boolean {
  return path.includes('\uFFFD');
}

// The tags `ls-files -v` gives an entry git's status does not look at: lower case for assume-unchanged
// (`h`; `s` when skip-worktree too), `S` for skip-worktree. (An entry in conflict, `M`, status reports.)
const UNCHECKED_TAGS = ['h', 's', 'S'];

/**
 * The index as `git ls-files --stage -v -z` prints it (`<tag> <mode> <oid> <stage>\t<path>\0`, sorted
 * by path; a listing without the tags, as `--stage` alone prints it, is read too), read without
 * building a map: a snapshot of a 100,000-file repository looks up a few dozen paths, so it finds
 * record boundaries once (one scan for NULs) and binary-searches them.
 */
export class IndexListing {
  private starts: Int32Array | undefined;
  /** 40 (SHA-1) or 64 (SHA-256); 0 for an empty index. */
  readonly oidLength: number;
  /** 2 when every record starts with a `-v` tag and a space, else 0. */
  private readonly tagLength: number;

  constructor(readonly text: string) {
    const tab = text.indexOf('\t');
    // A mode starts with a digit, a tag with a letter.
    this.tagLength = tab !== -1 && text.charCodeAt(1) === 32 && /[A-Za-z]/.test(text.charAt(0)) ? 2 : 0;
    // `<mode> <oid> <stage>` is 49 characters with SHA-1 ids, 73 with SHA-256.
    const fieldsLength = tab - this.tagLength;
    this.oidLength = tab === -1 ? 0 : fieldsLength === 73 ? 64 : 40;
    if (tab !== -1 && fieldsLength !== 49 && fieldsLength !== 73) throw new GitOutputError(INDEX_COMMAND, `unexpected record ${JSON.stringify(text.slice(0, 80))}`);
  }

  /** Whether the records carry `-v` tags, so that `uncheckedEntries` can be told (an empty listing can). */
  get tagged(): boolean {
    return this.tagLength === 2 || this.text === '';
  }

  /**
   * The stage-0 entries flagged assume-unchanged or skip-worktree, with their `"<mode> <oid>"`: git's
   * status takes them as unchanged whatever the work tree holds, so a snapshot reads them itself. Found
   * by searching the text for their tags (a NUL ends every record, and no path holds one), not by
   * walking every record.
   */
  uncheckedEntries(): Array<{ path: string; identity: string }> {
    if (this.tagLength === 0) return [];
    const entries: Array<{ path: string; identity: string }> = [];
    const { text } = this;
    const identityLength = this.oidLength + 7;
    const read = (start: number) => {
      const tab = start + this.tagLength + identityLength + 2;
      if (text.charCodeAt(tab) !== 9) throw new GitOutputError(INDEX_COMMAND, `unexpected record ${JSON.stringify(text.slice(start, start + 80))}`);
      if (text.charAt(tab - 1) !== '0') return;
      const end = text.indexOf('\0', tab);
      entries.push({ path: text.slice(tab + 1, end), identity: text.slice(start + this.tagLength, start + this.tagLength + identityLength) });
    };
    for (const tag of UNCHECKED_TAGS) {
      if (text.startsWith(`${tag} `)) read(0);
      for (let at = text.indexOf(`\0${tag} `); at !== -1; at = text.indexOf(`\0${tag} `, at + 1)) read(at + 1);
    }
    return entries;
  }

  /**
   * The paths of the gitlinks (mode 160000: submodules), each once, at any stage: git's walk for untracked
   * files skips a directory the index holds a gitlink for, even one left unmerged beside the files it holds
   * (found by red-team review, 2026-12-06). Found by searching the text for the mode where a record's mode
   * stands (after a NUL, or at the start, and the tag), not by walking every record.
   */
  gitlinks(): string[] {
    const paths: string[] = [];
    const { text } = this;
    const identityLength = this.oidLength + 7;
    for (let at = text.indexOf('160000 '); at !== -1; at = text.indexOf('160000 ', at + 1)) {
      const start = at - this.tagLength;
      // Inside a path, or inside another record's fields: not where a mode stands.
      if (start < 0 || (start > 0 && text.charCodeAt(start - 1) !== 0)) continue;
      const tab = at + identityLength + 2;
      if (text.charCodeAt(tab) !== 9) throw new GitOutputError(INDEX_COMMAND, `unexpected record ${JSON.stringify(text.slice(start, start + 80))}`);
      const path = text.slice(tab + 1, text.indexOf('\0', tab));
      // The stages of one path are adjacent records.
      if (paths[paths.length - 1] !== path) paths.push(path);
    }
    return paths;
  }

  private recordStarts(): Int32Array {
    if (this.starts !== undefined) return this.starts;
    const offsets: number[] = [];
    const { text } = this;
    const tabAt = this.tagLength + this.oidLength + 9;
    const modeEnd = this.tagLength + 6;
    for (let position = 0; position < text.length; ) {
      const end = text.indexOf('\0', position);
      if (end === -1 || text.charCodeAt(position + tabAt) !== 9 || text.charCodeAt(position + modeEnd) !== 32) {
        throw new GitOutputError(INDEX_COMMAND, `unexpected record ${JSON.stringify(text.slice(position, position + 80))}`);
      }
      offsets.push(position);
      position = end + 1;
    }
    this.starts = Int32Array.from(offsets);
    return this.starts;
  }

  /** Number of records (all stages). */
  get size(): number {
    return this.recordStarts().length;
  }

  private pathAt(index: number): string {
    const start = (this.recordStarts()[index] as number) + this.tagLength + this.oidLength + 10;
    return this.text.slice(start, this.text.indexOf('\0', start));
  }

  private stageAt(index: number): number {
    return this.text.charCodeAt((this.recordStarts()[index] as number) + this.tagLength + this.oidLength + 8) - 0x30;
  }

  private identityAt(index: number): string {
    const start = (this.recordStarts()[index] as number) + this.tagLength;
    return this.text.slice(start, start + this.oidLength + 7);
  }

  /** The position of the path's stage-0 record in the listing, or -1 (as lookup finds it). */
  indexOf(path: string): number {
    const count = this.recordStarts().length;
    let low = 0;
    let high = count;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (compareGitPaths(this.pathAt(middle), path) < 0) low = middle + 1;
      else high = middle;
    }
    for (let index = low; index < count && this.pathAt(index) === path; index += 1) if (this.stageAt(index) === 0) return index;
    return -1;
  }

  /** The path and stage of the record at `index`, and its whole text (what two listings compare). */
  recordAt(index: number): { path: string; stage: number; text: string } {
    const starts = this.recordStarts();
    const start = starts[index] as number;
    const end = index + 1 < starts.length ? (starts[index + 1] as number) : this.text.length;
    return { path: this.pathAt(index), stage: this.stageAt(index), text: this.text.slice(start, end) };
  }

  /** The `"<mode> <oid>"` of the path's stage-0 entry; undefined when it has none (untracked, or in conflict). */
  lookup(path: string): string | undefined {
    const index = this.indexOf(path);
    return index === -1 ? undefined : this.identityAt(index);
  }

  /** Every record as `{path, stage, identity}`, in listing order. */
  *entries(): Generator<{ path: string; stage: number; identity: string }> {
    for (let index = 0; index < this.recordStarts().length; index += 1) {
      yield { path: this.pathAt(index), stage: this.stageAt(index), identity: this.identityAt(index) };
    }
  }

  /**
   * The paths whose records differ between this listing and `after` (added, removed, another mode,
   * object id or stage), by one merge walk over both sorted listings, with each side's stage-0
   * identity as the walk read it (no lookup, so a name the order cannot place is still compared).
   */
  differingPaths(after: IndexListing): Map<string, { before?: string; after?: string }> {
    const paths = new Map<string, { before?: string; after?: string }>();
    if (after.text === this.text) return paths;
    const mine = this.recordStarts();
    const theirs = after.recordStarts();
    const record = (listing: IndexListing, starts: Int32Array, index: number) =>
      listing.text.slice(starts[index] as number, index + 1 < starts.length ? (starts[index + 1] as number) : listing.text.length);
    const note = (path: string, side: 'before' | 'after', listing: IndexListing, index: number) => {
      const entry = paths.get(path) ?? {};
      if (listing.stageAt(index) === 0) entry[side] = listing.identityAt(index);
      paths.set(path, entry);
    };
    let left = 0;
    let right = 0;
    while (left < mine.length || right < theirs.length) {
      if (left < mine.length && right < theirs.length && record(this, mine, left) === record(after, theirs, right)) {
        left += 1;
        right += 1;
        continue;
      }
      const leftPath = left < mine.length ? this.pathAt(left) : undefined;
      const rightPath = right < theirs.length ? after.pathAt(right) : undefined;
      const order = leftPath === undefined ? 1 : rightPath === undefined ? -1 : compareGitPaths(leftPath, rightPath);
      if (order <= 0) {
        note(leftPath as string, 'before', this, left);
        left += 1;
      }
      if (order >= 0) {
        note(rightPath as string, 'after', after, right);
        right += 1;
      }
    }
    return paths;
  }
}

const STAT_COMMAND = 'git ls-files --stage -v -z --debug';
const STAT_BLOCK = /^ {2}ctime: (\d+):\d+\n {2}mtime: (\d+):\d+\n {2}dev: \d+\tino: (\d+)\n {2}uid: \d+\tgid: \d+\n {2}size: (\d+)\t/;

/**
 * The index with the stat data git keeps for each entry, as `git ls-files --stage -v -z --debug` prints it:
 * each record of IndexListing's listing (`<tag> <mode> <oid> <stage>\t<path>\0`), then five lines
 * (`  ctime: <s>:<ns>`, `  mtime: <s>:<ns>`, `  dev: <d>\tino: <i>`, `  uid: <u>\tgid: <g>`,
 * `  size: <z>\tflags: <f>`). Read once, from the start, into columns (no object per record: a 100,000-entry
 * index is 13 MB of this): a path may hold a newline, never a NUL, and the stat lines hold numbers only.
 */
export class IndexStats {
  /** Per record, in listing order: a 32-bit digest of its stat data (dev, inode, size, both times to the nanosecond). */
  readonly digests: Uint32Array;
  /** Per record: the seconds of its recorded ctime and mtime. */
  readonly ctimes: Float64Array;
  readonly mtimes: Float64Array;
  /** The length of the same records without their stat lines: the plain listing's length, to check they agree. */
  readonly listingLength: number;
  private readonly blocks: Int32Array;

  constructor(readonly text: string) {
    const digests: number[] = [];
    const ctimes: number[] = [];
    const mtimes: number[] = [];
    const blocks: number[] = [];
    let listingLength = 0;
    let at = 0;
    const fail = (position: number): never => {
      throw new GitOutputError(STAT_COMMAND, `unexpected record ${JSON.stringify(text.slice(position, position + 80))}`);
    };
    const expect = (literal: string): void => {
      if (!text.startsWith(literal, at)) fail(at);
      at += literal.length;
    };
    // A decimal number at `at` (hex: the flags), folded into `hash`; its value.
    let hash = 0;
    const number = (hex = false): number => {
      const start = at;
      let value = 0;
      for (let code = text.charCodeAt(at); ; code = text.charCodeAt(at)) {
        if (code >= 48 && code <= 57) value = value * (hex ? 16 : 10) + code - 48;
        else if (hex && code >= 97 && code <= 102) value = value * 16 + code - 87;
        else break;
        at += 1;
      }
      if (at === start) fail(start);
      hash = Math.imul(hash ^ (value >>> 0), 0x01000193) >>> 0;
      hash = Math.imul(hash ^ Math.floor(value / 0x100000000), 0x01000193) >>> 0;
      return value;
    };
    while (at < text.length) {
      const start = at;
      const end = text.indexOf('\0', start);
      const tab = text.indexOf('\t', start);
      if (end === -1 || tab === -1 || tab > end || text.charCodeAt(start + 1) !== 32 || text.charCodeAt(tab - 2) !== 32) fail(start);
      listingLength += end + 1 - start;
      at = end + 1;
      blocks.push(at);
      hash = 0x811c9dc5;
      expect('  ctime: ');
      ctimes.push(number());
      expect(':');
      number();
      expect('\n  mtime: ');
      mtimes.push(number());
      expect(':');
      number();
      expect('\n  dev: ');
      number();
      expect('\tino: ');
      number();
      expect('\n  uid: ');
      number();
      expect('\tgid: ');
      number();
      expect('\n  size: ');
      number();
      expect('\tflags: ');
      number(true);
      expect('\n');
      digests.push(hash);
    }
    this.digests = Uint32Array.from(digests);
    this.ctimes = Float64Array.from(ctimes);
    this.mtimes = Float64Array.from(mtimes);
    this.blocks = Int32Array.from(blocks);
    this.listingLength = listingLength;
  }

  get size(): number {
    return this.digests.length;
  }

  /** The record's stat as a file's is compared with it (fileStatKey): `<ctime s> <mtime s> <ino> <size>`. */
  fileKeyAt(index: number): string {
    const block = this.blocks[index] as number;
    // The constructor has read this block: it matches.
    const match = STAT_BLOCK.exec(this.text.slice(block, block + 256)) as RegExpExecArray;
    return `${match[1]} ${match[2]} ${match[3]} ${match[4]}`;
  }

  /** The digests as text (a snapshot keeps them beside its listing): their bytes in base64, read back by savedDigests. */
  digestText(): string {
    return bytesToBase64(new Uint8Array(this.digests.buffer, this.digests.byteOffset, this.digests.byteLength));
  }
}

/** IndexStats.digestText's digests, or undefined when the text is not `count` of them. */
export function savedDigests(text: string, count: number): Uint32Array | undefined {
  let binary: string;
  try {
    binary = atob(text);
  } catch {
    return undefined;
  }
  if (binary.length !== count * 4) return undefined;
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index += 1) bytes[index] = binary.charCodeAt(index);
  return new Uint32Array(bytes.buffer);
}

// base64 through the web platform's btoa (Node has it too): the planner uses no Node API.
function bytesToBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let index = 0; index < bytes.length; index += 0x8000) binary += String.fromCharCode(...bytes.subarray(index, index + 0x8000));
  return btoa(binary);
}

/** A file's own stat as an index entry records it (IndexStats.fileKeyAt): git keeps each field in 32 bits. */
export function fileStatKey(stat: { readonly ctimeSeconds: bigint; readonly mtimeSeconds: bigint; readonly ino: bigint; readonly size: bigint }): string {
  const low = (value: bigint) => (value & 0xffffffffn).toString();
  return `${low(stat.ctimeSeconds)} ${low(stat.mtimeSeconds)} ${low(stat.ino)} ${low(stat.size)}`;
}

/** One record of `git status --porcelain=v2 -z`, reduced to what a snapshot needs. */
export type StatusV2Entry =
  | {
      /** A tracked path (`1`, `2`) or a path in conflict (`u`). */
      readonly kind: 'tracked' | 'conflict';
      readonly path: string;
      /** The index-vs-HEAD status letter (`.` when equal). */
      readonly x: string;
      /** The work-tree-vs-index status letter (`.` when equal). */
      readonly y: string;
      /** `N...` for a file, `S<c><m><u>` for a submodule. */
      readonly submodule: string;
      /** The mode in the work tree (`000000` when the path is gone from it). */
      readonly worktreeMode: string;
    }
  | { readonly kind: 'untracked'; readonly path: string }
  | { readonly kind: 'ignored'; readonly path: string };

export interface StatusV2 {
  readonly head: HeadState;
  readonly entries: StatusV2Entry[];
}

/** Splits the first `count` space-separated fields off a record; the rest (a path, spaces allowed) is last. */
function fields(record: string, count: number, command: string): string[] {
  const parts: string[] = [];
  let start = 0;
  for (let index = 0; index < count; index += 1) {
    const space = record.indexOf(' ', start);
    if (space === -1) throw new GitOutputError(command, `short record ${JSON.stringify(record.slice(0, 80))}`);
    parts.push(record.slice(start, space));
    start = space + 1;
  }
  parts.push(record.slice(start));
  return parts;
}

const STATUS_V2 = 'git status --porcelain=v2 -z';

/**
 * Reads `git status --porcelain=v2 -z --branch --untracked-files=all` (with or without renames:
 * a rename record's original path is read and dropped, since the snapshot names both sides anyway).
 */
export function parseStatusV2(text: string): StatusV2 {
  const parts = records(text);
  let ref: string | undefined;
  let commit: string | undefined;
  let sawHead = false;
  const entries: StatusV2Entry[] = [];
  for (let index = 0; index < parts.length; index += 1) {
    const record = parts[index] as string;
    const type = record.slice(0, 2);
    if (type === '# ') {
      const [, name, ...rest] = record.split(' ');
      const value = rest.join(' ');
      if (name === 'branch.oid') commit = value === '(initial)' ? undefined : value;
      else if (name === 'branch.head') {
        sawHead = true;
        ref = value === '(detached)' ? undefined : `refs/heads/${value}`;
      }
      continue;
    }
    if (type === '1 ' || type === '2 ') {
      const [, xy, submodule, , , worktreeMode, , , ...rest] = fields(record, type === '1 ' ? 8 : 9, STATUS_V2);
      const path = type === '1 ' ? rest.join(' ') : (rest[rest.length - 1] as string);
      // A rename record is followed by the original path as a record of its own.
      if (type === '2 ') index += 1;
      entries.push({ kind: 'tracked', path, x: (xy as string)[0] ?? '.', y: (xy as string)[1] ?? '.', submodule: submodule as string, worktreeMode: worktreeMode as string });
      continue;
    }
    if (type === 'u ') {
      const [, xy, submodule, , , , worktreeMode, , , , path] = fields(record, 10, STATUS_V2);
      entries.push({ kind: 'conflict', path: path as string, x: (xy as string)[0] ?? 'U', y: (xy as string)[1] ?? 'U', submodule: submodule as string, worktreeMode: worktreeMode as string });
      continue;
    }
    if (type === '? ' || type === '! ') {
      entries.push(type === '? ' ? { kind: 'untracked', path: record.slice(2) } : { kind: 'ignored', path: record.slice(2) });
      continue;
    }
    throw new GitOutputError(STATUS_V2, `unexpected record ${JSON.stringify(record.slice(0, 80))}`);
  }
  if (!sawHead) throw new GitOutputError(STATUS_V2, 'no "# branch.head" line (was --branch given?)');
  return { head: { ...(ref !== undefined ? { ref } : {}), ...(commit !== undefined ? { commit } : {}) }, entries };
}

/** One record of `git status --porcelain=v1 -z`. */
export interface StatusV1Entry {
  /** Index-vs-HEAD letter (` ` when equal, `?` for untracked). */
  readonly x: string;
  /** Work-tree-vs-index letter. */
  readonly y: string;
  readonly path: string;
  /** For a rename or copy in the index: where it came from. */
  readonly origPath?: string;
}

/** Reads `git status --porcelain=v1 -z [--untracked-files=all]`. A rename's original path follows it. */
export function parseStatusV1(text: string): StatusV1Entry[] {
  const parts = records(text);
  const entries: StatusV1Entry[] = [];
  for (let index = 0; index < parts.length; index += 1) {
    const record = parts[index] as string;
    if (record.length < 4 || record[2] !== ' ') {
      throw new GitOutputError('git status --porcelain=v1 -z', `unexpected record ${JSON.stringify(record.slice(0, 80))}`);
    }
    const x = record[0] as string;
    const y = record[1] as string;
    const path = record.slice(3);
    if (x === 'R' || x === 'C') {
      index += 1;
      entries.push({ x, y, path, origPath: parts[index] ?? '' });
    } else entries.push({ x, y, path });
  }
  return entries;
}

/** One commit of `git log -z --format=%H%x09%s`. */
export interface LoggedCommit {
  readonly hash: string;
  readonly subject: string;
}

/** Reads `git log -z --format=%H%x09%s ...`. */
export function parseCommitLog(text: string): LoggedCommit[] {
  return records(text).map((record) => {
    const tab = record.indexOf('\t');
    if (tab === -1) throw new GitOutputError('git log -z --format=%H%x09%s', `unexpected record ${JSON.stringify(record.slice(0, 80))}`);
    return { hash: record.slice(0, tab).replace(/^\n/, ''), subject: record.slice(tab + 1) };
  });
}

/** The paths one commit touches, with git's status letter (`A`, `M`, `D`, `T`). */
export interface TouchedPath {
  readonly status: string;
  readonly path: string;
}

/**
 * Reads `git diff-tree --stdin -r -z --name-status --no-renames --root` fed the `hashes`: each commit
 * id line is followed by `<status>\0<path>\0` pairs. A token is a commit id only where a status
 * letter is expected and it is one of `hashes`, so a file named like a hash cannot be mistaken.
 */
export function parseDiffTreeStdin(text: string, hashes: readonly string[]): Map<string, TouchedPath[]> {
  const known = new Set(hashes);
  const touched = new Map<string, TouchedPath[]>(hashes.map((hash) => [hash, []]));
  const parts = records(text);
  let current: TouchedPath[] | undefined;
  for (let index = 0; index < parts.length; index += 1) {
    const token = (parts[index] as string).replace(/^\n/, '');
    if (known.has(token)) {
      current = touched.get(token);
      continue;
    }
    const path = parts[index + 1];
    if (current === undefined || path === undefined || !/^[A-Z][0-9]*$/.test(token)) {
      throw new GitOutputError('git diff-tree --stdin -z', `unexpected token ${JSON.stringify(token.slice(0, 80))}`);
    }
    current.push({ status: token.slice(0, 1), path });
    index += 1;
  }
  return touched;
}
