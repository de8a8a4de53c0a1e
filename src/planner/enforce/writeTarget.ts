// Resolving the path a tool is about to write, the way the file system and the agent CLI will
// resolve it, before any scope is consulted. A write gate that compares spellings instead of
// destinations can be walked around with `..`, a symlink, a case variant or a second Unicode
// spelling, so every decision in writeDecision.ts starts from the destinations computed here.
//
// One spelled path can reach the disk in more than one way, and the gate does not always know which
// one the agent CLI takes: Codex folds `..` on the spelling before it opens anything, the kernel
// applies `..` to the real parent of what it resolved so far, and a writer that writes a temporary
// file and renames it over the target replaces a symbolic link where a writer that opens the path
// follows it. So a target resolves to every place it can land (`destinations`), and the gate allows
// the write only when all of them are allowed.
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
  | 'process-view'
  | 'surrounding-space'
  | 'undecodable-name'
  | 'relative-without-cwd'
  | 'no-home'
  /** Not a path: the tool changes files beyond those it names (WriteRequest.reachesUnnamed). */
  | 'unknown-reach';

/** Where one destination lands relative to one write root. */
export type ResolvedWriteTarget =
  | {
      /** Inside the write root: `relative` is repository-relative, `/`-separated, NFC. */
      readonly kind: 'inside';
      readonly raw: string;
      readonly absolute: string;
      readonly relative: string;
      /** `spelled`: the path as written, folded lexically; judged for control state only (it is not where anything lands). */
      readonly role?: 'spelled';
    }
  | {
      /** Outside the write root: only an absolute grant can cover `absolute`. */
      readonly kind: 'outside';
      readonly raw: string;
      readonly absolute: string;
      readonly role?: 'spelled';
    }
  | {
      /** Not resolvable: always denied. */
      readonly kind: 'invalid';
      readonly raw: string;
      readonly problem: WriteTargetProblem;
    };

/**
 * How an agent CLI turns a spelled path into the path it opens. `kernel`: the spelling goes to the
 * kernel as is (`link/..` is the link target's parent). `lexical`: `..` and `.` are folded on the
 * spelling first, then the kernel resolves the result (Codex's `apply_patch`, and any tool that
 * normalises with Node's `path.resolve`).
 */
export type DotDotReading = 'kernel' | 'lexical';

/** One way the agent CLI may read a spelled path. */
export interface PathReading {
  readonly dotDot: DotDotReading;
  /** Expand a leading `~` or `~/` to the home directory, as a shell and the Codex source the gate was modelled on do. */
  readonly expandTilde: boolean;
}

/** Every reading the gate cannot rule out for a CLI whose path handling it does not know exactly. */
export const ANY_READING: readonly PathReading[] = [
  { dotDot: 'kernel', expandTilde: false },
  { dotDot: 'lexical', expandTilde: false },
  { dotDot: 'kernel', expandTilde: true },
  { dotDot: 'lexical', expandTilde: true },
];

/**
 * Codex: `..` folded lexically, and a leading `~` read both ways, since versions differ: expanded
 * (codex-rs `AbsolutePathBuf::resolve_path_against_base`, the source the gate was modelled on) and
 * literal (the 0.169.0 binary writes `~/x` as `<cwd>/~/x`).
 */
export const CODEX_READING: readonly PathReading[] = [
  { dotDot: 'lexical', expandTilde: true },
  { dotDot: 'lexical', expandTilde: false },
];

/** What a file system folds when it compares names: where it does, two spellings above the write root name one directory. */
export interface FileSystemFolding {
  /** Case (macOS and Windows by default). */
  readonly case: boolean;
  /** Unicode normalisation (macOS's APFS and HFS+). */
  readonly unicode: boolean;
}

/** The folding of the platforms' default file systems. */
export function defaultFolding(platform: string): FileSystemFolding {
  if (platform === 'darwin') return { case: true, unicode: true };
  if (platform === 'win32') return { case: true, unicode: false };
  return { case: false, unicode: false };
}

export interface ResolveDestinationsOptions {
  /** The directory a relative target is resolved from (the hook payload's `cwd`), absolute and canonical. */
  cwd?: string;
  /** `win32` reads `\` as a separator; on `posix` a `\` is a legal file-name byte and is refused as ambiguous. */
  platform?: 'posix' | 'win32';
  /** How the agent CLI may read the path; every reading's destinations are returned. Default: ANY_READING. */
  readings?: readonly PathReading[];
  /** The home directory, for `~` (a reading that expands it without one is refused). */
  homeDir?: string;
  fs: TargetFileSystem;
}

/** Every place one spelled target can land. */
export type WriteDestinations =
  | {
      readonly kind: 'resolved';
      readonly raw: string;
      /** The spelling made absolute and folded lexically, with nothing resolved: judged for control state only. */
      readonly spelled: readonly string[];
      /**
       * Canonical absolute destinations, each distinct: for every reading, where the data lands (every
       * link followed) and the directory entry a rename-writer replaces (the parent resolved, the last
       * name as spelled, so a link there is judged by its own path too).
       */
      readonly paths: readonly string[];
    }
  | { readonly kind: 'invalid'; readonly raw: string; readonly problem: WriteTargetProblem };

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

/** Folds `..` and `.` on the spelling alone (no file system), from `base`. */
function foldLexically(base: string, segments: readonly string[]): string[] {
  const folded = splitSegments(base);
  for (const segment of segments) {
    if (segment === '..') folded.pop();
    else folded.push(segment);
  }
  return folded;
}

/**
 * Whether `path` (absolute, canonical so far) names what the process asking sees rather than one place for
 * every process: `/proc` (`/proc/self/cwd`, `/proc/thread-self`, `/proc/<pid>/fd/3`) and `/dev/fd`,
 * `/dev/stdin`, `/dev/stdout`, `/dev/stderr`, which lead there on Linux and are per-process on macOS too.
 * The hook would resolve such a path in its own process, whose working directory and descriptors are not
 * the agent CLI's (Claude Code runs a hook in the directory its shell last moved to, and never moves
 * itself), so where the write lands cannot be known here. No agent's write belongs there: refused.
 */
function isProcessView(path: string): boolean {
  return path === '/proc' || path.startsWith('/proc/') || path === '/dev/fd' || path.startsWith('/dev/fd/') || /^\/dev\/std(?:in|out|err)(?:\/|$)/.test(path);
}

/** Why a spelling resolves nowhere a decision can be made on. */
type Unresolvable = 'link-loop' | 'process-view';

function isUnresolvable(found: unknown): found is Unresolvable {
  return found === 'link-loop' || found === 'process-view';
}

/** How far a resolution got: the path so far, and whether every component of it exists. */
interface Resolution {
  readonly path: string;
  readonly existing: boolean;
}

/**
 * Resolves `segments` starting at `from` (a canonical directory that exists, unless `from.existing`
 * says otherwise), one component at a time, as the kernel does: `..` applies to the real parent of
 * what has been resolved so far (so `link/..` is the link target's parent), an existing component is
 * replaced by its canonical path, and a link is followed here, one hop at a time (to the place a write
 * through it would create, when it leads nowhere), never by realpath: every step is checked, so a link
 * to `/proc/self/cwd`, which the kernel would resolve in this process, is seen for what it is. Past the
 * first component that does not exist nothing can be a link, so the rest is joined as spelled (and a
 * later `..` folds lexically, which is what `mkdir -p` followed by the write would do).
 */
function resolveSegments(from: Resolution, segments: readonly string[], fs: TargetFileSystem, hops: { count: number }): Resolution | Unresolvable {
  let current = from.path;
  let existing = from.existing;
  for (const segment of segments) {
    if (segment === '..') {
      current = parentOf(current);
      continue;
    }
    const next = joinPath(current, segment);
    if (isProcessView(next)) return 'process-view';
    if (!existing) {
      current = next;
      continue;
    }
    const link = fs.readlink(next);
    if (link === undefined) {
      const real = fs.realpath(next);
      if (real === undefined) existing = false;
      else if (isProcessView(real)) return 'process-view';
      current = real ?? next;
      continue;
    }
    hops.count += 1;
    if (hops.count > MAX_LINK_HOPS) return 'link-loop';
    const linkBase = link.startsWith('/') ? '/' : current;
    const followed = resolveSegments({ path: linkBase, existing: true }, splitSegments(link), fs, hops);
    if (isUnresolvable(followed)) return followed;
    current = followed.path;
    existing = followed.existing;
  }
  return { path: current, existing };
}

/** The landing and the replaced entry of `segments` from `base`, or a loop: the parent is resolved once, then the last name from there. */
function landingAndEntry(base: string, segments: readonly string[], fs: TargetFileSystem): string[] | Unresolvable {
  const last = segments[segments.length - 1];
  const hops = { count: 0 };
  if (last === undefined || last === '..') {
    const whole = resolveSegments({ path: base, existing: true }, segments, fs, hops);
    return isUnresolvable(whole) ? whole : [whole.path];
  }
  const parent = resolveSegments({ path: base, existing: true }, segments.slice(0, -1), fs, hops);
  if (isUnresolvable(parent)) return parent;
  const landing = resolveSegments(parent, [last], fs, hops);
  if (isUnresolvable(landing)) return landing;
  const entry = joinPath(parent.path, last);
  return entry === landing.path ? [landing.path] : [landing.path, entry];
}

/** A file system that answers each question once: one resolution asks about the same prefixes many times. */
export function memoizedTargetFileSystem(fs: TargetFileSystem): TargetFileSystem {
  const real = new Map<string, string | undefined>();
  const links = new Map<string, string | undefined>();
  return {
    realpath(path) {
      if (!real.has(path)) real.set(path, fs.realpath(path));
      return real.get(path);
    },
    readlink(path) {
      if (!links.has(path)) links.set(path, fs.readlink(path));
      return links.get(path);
    },
  };
}

/** Refuses what no reading can resolve; returns the spelling with `/` separators otherwise. */
function checkSpelling(raw: unknown, platform: 'posix' | 'win32' | undefined): { spelled: string } | { problem: WriteTargetProblem } {
  if (typeof raw !== 'string') return { problem: 'not-a-string' };
  if (raw === '') return { problem: 'empty' };
  if (raw.includes('\0')) return { problem: 'nul' };
  if (raw.length > MAX_TARGET_LENGTH) return { problem: 'too-long' };
  // Claude Code trims a Write or Edit path (JavaScript's trim: blanks, tabs, NBSP, BOM, line breaks) before
  // it writes, in the versions that hand the hook the untrimmed input: " /r/x" is judged one way and
  // written another. Such a spelling is refused rather than guessed at.
  if (raw.trim() !== raw) return { problem: 'surrounding-space' };
  if (!raw.includes('\\')) return { spelled: raw };
  if (platform !== 'win32') return { problem: 'backslash' };
  return { spelled: raw.replace(/\\/g, '/') };
}

/** Where the spelling starts from under one reading, and its segments. */
function startOf(
  spelled: string,
  reading: PathReading,
  options: ResolveDestinationsOptions,
): { base: string; segments: string[] } | { problem: WriteTargetProblem } {
  let path = spelled;
  if (reading.expandTilde && (path === '~' || path.startsWith('~/'))) {
    if (options.homeDir === undefined || !options.homeDir.startsWith('/')) return { problem: 'no-home' };
    path = `${options.homeDir}/${path.slice(1)}`;
  }
  if (path.startsWith('/')) return { base: '/', segments: splitSegments(path) };
  if (/^[A-Za-z]:\//.test(path) && options.platform === 'win32') return { base: '/', segments: splitSegments(path) };
  if (options.cwd === undefined) return { problem: 'relative-without-cwd' };
  return { base: options.cwd, segments: splitSegments(path) };
}

/**
 * Every destination of one raw target from a hook payload, under every reading given. Never throws
 * for bad input: a target no reading can resolve is `invalid` (and denied).
 */
export function resolveWriteDestinations(raw: unknown, options: ResolveDestinationsOptions): WriteDestinations {
  const checked = checkSpelling(raw, options.platform);
  const rawText = typeof raw === 'string' ? raw : String(raw);
  if ('problem' in checked) return { kind: 'invalid', raw: rawText, problem: checked.problem };
  const paths = new Set<string>();
  const spelled = new Set<string>();
  // Readings that cannot differ for this spelling are resolved once: `~` matters only at its start,
  // the reading of `..` only where there is one.
  const tilde = checked.spelled === '~' || checked.spelled.startsWith('~/');
  const dotDot = checked.spelled.split('/').includes('..');
  const distinct = new Map<string, PathReading>();
  for (const reading of options.readings ?? ANY_READING) {
    const key = `${dotDot ? reading.dotDot : 'kernel'}:${tilde && reading.expandTilde}`;
    if (!distinct.has(key)) distinct.set(key, reading);
  }
  for (const reading of distinct.values()) {
    const start = startOf(checked.spelled, reading, options);
    if ('problem' in start) return { kind: 'invalid', raw: rawText, problem: start.problem };
    const folded = foldLexically(start.base, start.segments);
    spelled.add(`/${folded.join('/')}`);
    const found = reading.dotDot === 'lexical' ? landingAndEntry('/', folded, options.fs) : landingAndEntry(start.base, start.segments, options.fs);
    if (isUnresolvable(found)) return { kind: 'invalid', raw: rawText, problem: found };
    for (const path of found) paths.add(path);
  }
  return { kind: 'resolved', raw: rawText, spelled: [...spelled], paths: [...paths] };
}

export interface LocateOptions {
  /** Compare case-insensitively below the write root (a repository with `core.ignorecase`). */
  ignoreCase?: boolean;
  /** What the file system folds: only then do two spellings of the part above the write root name one directory. */
  folding?: FileSystemFolding;
}

/** The part of `path` below `root` (without the `/`), or undefined when `path` is not strictly beneath it. */
function below(root: string, path: string, options: LocateOptions): string | undefined {
  const folding = options.folding ?? { case: false, unicode: false };
  const prepare = (text: string): string => {
    const normal = folding.unicode ? text.normalize('NFC') : text;
    return options.ignoreCase === true && folding.case ? foldCase(normal) : normal;
  };
  const r = prepare(root);
  const p = prepare(path);
  if (r === '/') return p.startsWith('/') && p.length > 1 ? path.slice(1) : undefined;
  if (!p.startsWith(`${r}/`)) return undefined;
  // The same number of segments as the root, then the rest as the destination spells it.
  const depth = r.split('/').length;
  return path.split('/').slice(depth).join('/');
}

/**
 * Where one canonical destination lies relative to a write root. Above the root, two spellings are
 * the same directory only where the file system folds them: byte for byte on Linux, NFC and case
 * folded on macOS (so `\u212Ar` is not `Kr` on Linux, and neither is an NFD spelling of `é`). Below
 * the root the relative path is NFC, as scope entries are.
 */
export function locateDestination(raw: string, absolute: string, writeRoot: string, options: LocateOptions = {}, role?: 'spelled'): ResolvedWriteTarget {
  const relative = below(writeRoot, absolute, options);
  const extra = role === undefined ? {} : { role };
  if (relative === undefined || relative === '') return { kind: 'outside', raw, absolute, ...extra };
  return { kind: 'inside', raw, absolute, relative: relative.normalize('NFC'), ...extra };
}

/** Every destination of `destinations` located against one write root, the spelled ones marked. */
export function locateDestinations(destinations: WriteDestinations, writeRoot: string, options: LocateOptions = {}): ResolvedWriteTarget[] {
  if (destinations.kind === 'invalid') return [{ kind: 'invalid', raw: destinations.raw, problem: destinations.problem }];
  return [
    ...destinations.paths.map((path) => locateDestination(destinations.raw, path, writeRoot, options)),
    ...destinations.spelled.map((path) => locateDestination(destinations.raw, path, writeRoot, options, 'spelled')),
  ];
}

/** Whether canonical `path` is `root` itself or beneath it (exact prefix on a segment boundary). */
export function isWithin(root: string, path: string, ignoreCase?: boolean): boolean {
  const r = ignoreCase ? foldCase(root) : root;
  const p = ignoreCase ? foldCase(path) : path;
  if (r === '/') return p.startsWith('/');
  return p === r || p.startsWith(`${r}/`);
}

export interface ResolveWriteTargetOptions extends LocateOptions {
  /** The directory a relative target is resolved from (the hook payload's `cwd`), absolute and canonical. */
  cwd?: string;
  /** The canonical absolute top level of the agent's checkout. */
  writeRoot: string;
  platform?: 'posix' | 'win32';
  fs: TargetFileSystem;
}

/**
 * Where one raw target lands under the kernel's reading alone (every link followed, `..` applied to
 * real parents), located against the write root. The gate itself uses resolveWriteDestinations,
 * which adds the other readings and the replaced entry; this is the single answer for one reading.
 */
export function resolveWriteTarget(raw: unknown, options: ResolveWriteTargetOptions): ResolvedWriteTarget {
  const destinations = resolveWriteDestinations(raw, { ...options, readings: [{ dotDot: 'kernel', expandTilde: false }] });
  if (destinations.kind === 'invalid') return { kind: 'invalid', raw: destinations.raw, problem: destinations.problem };
  const landing = destinations.paths[0] as string;
  const root = options.writeRoot;
  return locateDestination(destinations.raw, landing, root, options);
}
