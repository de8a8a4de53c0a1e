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

  /** The `"<mode> <oid>"` of the path's stage-0 entry; undefined when it has none (untracked, or in conflict). */
  lookup(path: string): string | undefined {
    const count = this.recordStarts().length;
    let low = 0;
    let high = count;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (compareGitPaths(this.pathAt(middle), path) < 0) low = middle + 1;
      else high = middle;
    }
    for (let index = low; index < count && this.pathAt(index) === path; index += 1) {
      if (this.stageAt(index) === 0) return this.identityAt(index);
    }
    return undefined;
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

const STAT_COMMAND = 'git ls-files --debug -z';

/**
 * The paths of `git ls-files --debug -z`'s records (`<path>\0`, then five lines of the entry's stat data:
 * `  ctime: <s>:<ns>`, `  mtime: <s>:<ns>`, dev and inode, uid and gid, size and flags) whose recorded
 * ctime or mtime is at or after `sinceSeconds`. Read from the start, record by record: a path may hold a
 * newline, never a NUL, and the stat lines hold numbers only.
 */
export function recentlyStatedPaths(text: string, sinceSeconds: number): string[] {
  const paths: string[] = [];
  // `  <label>: <seconds>:<nanoseconds>\n` at `position`: the seconds, and where the next line starts.
  const secondsAt = (position: number, label: string): { seconds: number; next: number } => {
    const prefix = `  ${label}: `;
    let at = position + prefix.length;
    let seconds = 0;
    for (; at < text.length && text.charCodeAt(at) >= 48 && text.charCodeAt(at) <= 57; at += 1) seconds = seconds * 10 + text.charCodeAt(at) - 48;
    const lineEnd = text.indexOf('\n', at);
    if (!text.startsWith(prefix, position) || at === position + prefix.length || text.charCodeAt(at) !== 58 || lineEnd === -1) {
      throw new GitOutputError(STAT_COMMAND, `unexpected record ${JSON.stringify(text.slice(position, position + 80))}`);
    }
    return { seconds, next: lineEnd + 1 };
  };
  for (let position = 0; position < text.length; ) {
    const end = text.indexOf('\0', position);
    if (end === -1) throw new GitOutputError(STAT_COMMAND, `unterminated record ${JSON.stringify(text.slice(position, position + 80))}`);
    const ctime = secondsAt(end + 1, 'ctime');
    const mtime = secondsAt(ctime.next, 'mtime');
    let next = mtime.next;
    for (let line = 0; line < 3; line += 1) {
      const lineEnd = text.indexOf('\n', next);
      if (lineEnd === -1 || !text.startsWith('  ', next)) throw new GitOutputError(STAT_COMMAND, `unexpected record ${JSON.stringify(text.slice(next, next + 80))}`);
      next = lineEnd + 1;
    }
    if (ctime.seconds >= sinceSeconds || mtime.seconds >= sinceSeconds) paths.push(text.slice(position, end));
    position = next;
  }
  return paths;
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
