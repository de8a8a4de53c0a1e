// Resolving the path a tool is about to write, the way the file system will resolve it, before any
// scope is consulted. A write gate that compares spellings instead of destinations can be walked
// around with `..`, a symlink, a case variant or a second Unicode spelling, so every decision in
// writeDecision.ts starts from the canonical destination computed here.
import { foldCase } from '../scope/scopeEntry';

/** The little of a file system that resolution needs. `src/node/hookFileSystem.ts` has the Node one. */
export interface TargetFileSystem {
  /** The canonical path of an existing entry (every link followed), or undefined when it does not exist. */
  realpath(path: string): string | undefined;
  /** The stored target of a symbolic link (dangling or not), or undefined when `path` is not a link. */
  readlink(path: string): string | undefined;
}

/** Why a target cannot be resolved; machine-readable. */
export type WriteTargetProblem =
  | 'empty'
  | 'nul'
  | 'not-a-string'
  | 'backslash'
  | 'too-long'
  | 'link-loop'
  | 'relative-without-cwd';

/** Where a write lands relative to the write root. */
export type ResolvedWriteTarget =
  | {
      /** Inside the write root: `relative` is repository-relative, `/`-separated, NFC. */
      readonly kind: 'inside';
      readonly raw: string;
      readonly absolute: string;
      readonly relative: string;
    }
  | {
      /** Outside the write root: only an absolute grant can cover `absolute`. */
      readonly kind: 'outside';
      readonly raw: string;
      readonly absolute: string;
    }
  | {
      /** Not resolvable: always denied. */
      readonly kind: 'invalid';
      readonly raw: string;
      readonly problem: WriteTargetProblem;
    };

export interface ResolveWriteTargetOptions {
  /** The directory a relative target is resolved from (the hook payload's `cwd`), absolute and canonical. */
  cwd?: string;
  /** The canonical absolute top level of the agent's checkout. */
  writeRoot: string;
  /** Compare case-insensitively (a repository with `core.ignorecase`). */
  ignoreCase?: boolean;
  /** `win32` reads `\` as a separator; on `posix` a `\` is a legal file-name byte and is refused as ambiguous. */
  platform?: 'posix' | 'win32';
  fs: TargetFileSystem;
}

/** Linux PATH_MAX; a longer target cannot be written and is refused before any system call. */
export const MAX_TARGET_LENGTH = 4096;
/** The most links followed for one target before it counts as a loop (Linux's own limit is 40). */
const MAX_LINK_HOPS = 40;

function splitSegments(path: string): string[] {
  return path.split('/').filter((segment) => segment !== '' && segment !== '.');
}

function parentOf(path: string): string {
  const cut = path.lastIndexOf('/');
  return cut <= 0 ? '/' : path.slice(0, cut);
}

function joinPath(base: string, segment: string): string {
  return base === '/' ? `/${segment}` : `${base}/${segment}`;
}

/**
 * Resolves `segments` starting at the canonical directory `base`, one component at a time, as the
 * kernel does: `..` applies to the real parent of what has been resolved so far (so `link/..` is the
 * link target's parent), an existing component is replaced by its canonical path, and a dangling link
 * is followed to the place a write through it would create. Past the first component that does not
 * exist nothing can be a link, so the rest is joined as spelled.
 */
function resolveSegments(
  base: string,
  segments: string[],
  fs: TargetFileSystem,
  hops: { count: number },
): string | 'link-loop' {
  let current = base;
  let existing = true;
  for (const segment of segments) {
    if (segment === '..') {
      current = parentOf(current);
      continue;
    }
    const next = joinPath(current, segment);
    if (!existing) {
      current = next;
      continue;
    }
    const real = fs.realpath(next);
    if (real !== undefined) {
      current = real;
      continue;
    }
    const link = fs.readlink(next);
    if (link === undefined) {
      existing = false;
      current = next;
      continue;
    }
    hops.count += 1;
    if (hops.count > MAX_LINK_HOPS) return 'link-loop';
    const linkBase = link.startsWith('/') ? '/' : current;
    const followed = resolveSegments(linkBase, splitSegments(link), fs, hops);
    if (followed === 'link-loop') return followed;
    current = followed;
    existing = false;
  }
  return current;
}

function fold(path: string, ignoreCase: boolean | undefined): string {
  return ignoreCase ? foldCase(path) : path;
}

/** Whether canonical `path` is `root` itself or beneath it (exact prefix on a segment boundary). */
export function isWithin(root: string, path: string, ignoreCase?: boolean): boolean {
  const r = fold(root, ignoreCase);
  const p = fold(path, ignoreCase);
  if (r === '/') return p.startsWith('/');
  return p === r || p.startsWith(`${r}/`);
}

/** Resolves one raw target from a hook payload. Never throws for bad input: a bad target is `invalid`. */
export function resolveWriteTarget(raw: unknown, options: ResolveWriteTargetOptions): ResolvedWriteTarget {
  if (typeof raw !== 'string') return { kind: 'invalid', raw: String(raw), problem: 'not-a-string' };
  if (raw === '') return { kind: 'invalid', raw, problem: 'empty' };
  if (raw.includes('\0')) return { kind: 'invalid', raw, problem: 'nul' };
  if (raw.length > MAX_TARGET_LENGTH) return { kind: 'invalid', raw, problem: 'too-long' };
  let spelled = raw;
  if (spelled.includes('\\')) {
    if (options.platform !== 'win32') return { kind: 'invalid', raw, problem: 'backslash' };
    spelled = spelled.replace(/\\/g, '/');
  }
  let base: string;
  if (spelled.startsWith('/')) base = '/';
  else if (/^[A-Za-z]:\//.test(spelled) && options.platform === 'win32') {
    base = '/';
  } else {
    if (options.cwd === undefined) return { kind: 'invalid', raw, problem: 'relative-without-cwd' };
    base = options.cwd;
  }
  const resolved = resolveSegments(base, splitSegments(spelled), options.fs, { count: 0 });
  if (resolved === 'link-loop') return { kind: 'invalid', raw, problem: 'link-loop' };
  const absolute = resolved.normalize('NFC');
  const root = options.writeRoot.normalize('NFC');
  if (!isWithin(root, absolute, options.ignoreCase) || fold(absolute, options.ignoreCase) === fold(root, options.ignoreCase)) {
    return { kind: 'outside', raw, absolute };
  }
  const relative = root === '/' ? absolute.slice(1) : absolute.slice(root.length + 1);
  return { kind: 'inside', raw, absolute, relative };
}
