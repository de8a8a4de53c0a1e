// The scope grammar: how one entry of an agent's scope is spelled, normalised and parsed.
// docs/scope-grammar.md is the user-facing description; this file is its implementation.
//
// An entry is read the way minimatch reads a pattern: braces are expanded first (as minimatch's `braceExpand`
// expands them, see braceExpansion.ts, so a comma-less or unclosed brace stays literal exactly where minimatch
// keeps it literal), then
// every alternative is normalised on its own (`.`, `..`, runs of `/`, a trailing `/`), split into segments and
// each segment into tokens. The tokens are what src/planner/scope/scopeAutomaton.ts builds automata from;
// `compileScopeEntry` also turns them into a RegExp for matching many concrete paths fast.
//
// The stored spelling of an entry is chosen afterwards, and only ever one whose own alternatives are the same
// normalised alternatives (checked, not assumed): see `chooseSpelling`.
import { expandBraces } from './braceExpansion';
import { acceptsPath, automatonOf } from './scopeAutomaton';

/** Why an entry was rejected; machine-readable. */
export type ScopeEntryErrorReason =
  | 'not-a-string'
  | 'empty'
  | 'control-character'
  | 'lone-surrogate'
  | 'escapes-root'
  | 'absolute-outside-root'
  | 'names-root'
  | 'negation'
  | 'extglob'
  | 'posix-class'
  | 'too-many-alternatives'
  | 'unspellable-braces'
  | 'too-long'
  | 'unfoldable-letter';

/** A scope entry that cannot be used. `message` is for a person and names the entry. */
export class ScopeEntryError extends Error {
  constructor(
    readonly reason: ScopeEntryErrorReason,
    readonly entry: string,
    message: string,
  ) {
    super(message);
    this.name = 'ScopeEntryError';
  }
}

export interface GrammarOptions {
  /** Absolute path of the repository root; absolute entries inside it are made relative to it. */
  repoRoot?: string;
  /** Fold case in every comparison (a case-insensitive file system, or `--ignore-case`). */
  ignoreCase?: boolean;
}

/** A UTF-16 code unit of a surrogate pair standing alone (read with `u`, a well-formed pair is one code point, not Cs). */
const LONE_SURROGATE = /\p{Surrogate}/u;

/** Brace expansion beyond this many alternatives is refused: a scope is a list a person reviews. */
export const MAX_ALTERNATIVES = 1024;

/**
 * The longest entry, in UTF-16 code units (what brace expansion already allowed an entry with braces).
 * Every compile, in every hook process, costs at least its length; without a bound (and with unclosed `[`
 * parsed in quadratic time) a 48,000-character entry took two minutes to prove and over half a minute per
 * write (found by red-team review, 2026-12-06).
 */
export const MAX_ENTRY_LENGTH = 64 * 1024;

/** A set of UTF-16 code units: sorted, non-overlapping inclusive ranges, possibly negated. Never contains `/`. */
export interface CharSet {
  readonly negated: boolean;
  readonly ranges: ReadonlyArray<readonly [number, number]>;
}

/** One token of a segment pattern. */
export type SegmentToken =
  | { readonly kind: 'chars'; readonly set: CharSet }
  /** Any run of characters other than `/`, the empty run included. */
  | { readonly kind: 'star' };

/** One path segment of an alternative: `**` (any number of whole segments) or a pattern for one segment. */
export type PatternSegment =
  | { readonly kind: 'globstar' }
  | { readonly kind: 'pattern'; readonly tokens: readonly SegmentToken[]; readonly literal: string | undefined };

/** An entry after normalisation and parsing. */
export interface ParsedScopeEntry {
  /** The normalised spelling (what is stored and shown). */
  readonly spelling: string;
  /**
   * `plain`: the entry names exactly one path, and `spelling` is that path (so callers may look the spelling up
   * as a file). `glob`: anything else, a pattern or several alternatives (`src/` ≡ `src/**` is a glob;
   * `{a,b}` is a glob; `{a..a}` and `{,b}` normalise to the plain `a` and `b`).
   */
  readonly kind: 'plain' | 'glob';
  /**
   * The normalised brace alternatives, in the order of their first appearance, duplicates removed: each a
   * repository path or pattern, with a trailing `/` when it names a directory (`src/{lib/..,x}` → `src/`, `src/x`).
   * Not case-folded.
   */
  readonly expansions: readonly string[];
  /** The brace alternatives, each a sequence of segments (case-folded when parsed with `ignoreCase`). */
  readonly alternatives: ReadonlyArray<readonly PatternSegment[]>;
  /** The literal leading directory segments every path this entry names starts with (case-folded when ignoring case). */
  readonly literalPrefix: readonly string[];
  readonly ignoreCase: boolean;
}

/** A normalised entry, compiled once for matching many paths. */
export interface CompiledScopeEntry extends ParsedScopeEntry {
  /** Whether the repository-relative, normalised `path` is named by this entry. */
  matches(path: string): boolean;
}

const SLASH = 0x2f;
const ANY_CHAR: CharSet = { negated: true, ranges: [] };

/**
 * ASCII-only lower case, as git lower-cases section and key names and Rust's `to_ascii_lowercase`
 * lower-cases program names: not a case fold (foldCase is that), so nothing outside A-Z changes.
 */
export function asciiLowerCase(text: string): string {
  return text.replace(/[A-Z]/g, (letter) => String.fromCharCode(letter.charCodeAt(0) + 32));
}

/**
 * Folds case the way every comparison does in ignore-case mode: each UTF-16 code unit on its own, so the
 * fold of a path is the fold of its characters one by one, which is how the proof reads an entry (its
 * literals and classes, a code unit at a time). `toLowerCase` of a whole string is not that: it lowers a
 * word-final `Σ` to `ς` and elsewhere to `σ`, and lowers letters outside the Basic Multilingual Plane
 * (Deseret `𐐀`) as pairs, so two agents proven disjoint (`docs/ΚΑΛΟΣ`, `docs/καλος`) were both granted
 * one path (found by red-team review, 2026-12-06). A code unit folds to the lower case of its upper case
 * when both are one code unit (so `ς`, `Σ` and `σ` are one letter, and `ſ` is `s`, as a case-insensitive
 * file system's folding has them), else to its lower case when that is one code unit, else to itself
 * (`İ`, whose lower case is two); a surrogate half folds to itself (letters outside the BMP with case are
 * refused in ignore-case mode: see `hasUnfoldableLetter`).
 */
export function foldCase(text: string): string {
  if (ASCII_ONLY.test(text)) return text.toLowerCase();
  let folded = '';
  for (let index = 0; index < text.length; index += 1) folded += String.fromCharCode(foldUnit(text.charCodeAt(index)));
  return folded;
}

/** Each code unit's fold (foldCase), computed on first use; 0 for one not computed yet (NUL folds to itself). */
let unitFolds: Uint16Array | undefined;

/** The fold of one UTF-16 code unit (foldCase). */
export function foldUnit(code: number): number {
  if (code < 0x80) return code >= 0x41 && code <= 0x5a ? code + 0x20 : code;
  if (code >= 0xd800 && code <= 0xdfff) return code;
  unitFolds ??= new Uint16Array(0x10000);
  const known = unitFolds[code] as number;
  if (known !== 0) return known;
  const char = String.fromCharCode(code);
  const upper = char.toUpperCase();
  // The lower case of the upper case when both are one code unit, else of the unit itself, else the unit.
  const lower = upper.length === 1 ? upper.toLowerCase() : '';
  const own = lower.length === 1 ? lower : char.toLowerCase();
  const fold = own.length === 1 ? own.charCodeAt(0) : code;
  unitFolds[code] = fold;
  return fold;
}

/**
 * Whether `text` holds a letter outside the Basic Multilingual Plane that has case (Deseret, Osage, Adlam
 * and others): foldCase leaves it as it is, but a case-insensitive file system folds it, so two entries
 * spelled with its two cases would be proven apart and be one file there. Refused in ignore-case mode.
 */
export function hasUnfoldableLetter(text: string): boolean {
  if (ASCII_ONLY.test(text)) return false;
  for (const char of text) {
    if (char.length === 2 && (char.toLowerCase() !== char || char.toUpperCase() !== char)) return true;
  }
  return false;
}

/**
 * A spelling or path in Unicode NFC, the form every comparison of entries and paths is made in (the write
 * gate, the commit guard, the collision engine, verify): `café` and `cafe` + U+0301, or KELVIN SIGN and
 * `K`, are one path. One that is all ASCII already is NFC, and is kept as the same string.
 */
export function inNfc(text: string): string {
  return ASCII_ONLY.test(text) ? text : text.normalize('NFC');
}

const ASCII_ONLY = /^[\x00-\x7f]*$/;

function fail(reason: ScopeEntryErrorReason, entry: string, why: string): never {
  throw new ScopeEntryError(reason, entry, `scope entry ${JSON.stringify(entry)} ${why}`);
}

const EXTGLOB = /[?*+@!]\(/;
const POSIX_CLASS = /\[:[a-z]+:\]/;
const WINDOWS_DRIVE = /^[A-Za-z]:\//;
/** The characters after which a spelling is no longer a literal path (what the write gate's prefilter reads too). */
const GLOB_CHARACTER = /[*?[{]/;

function isAbsolute(path: string): boolean {
  return path.startsWith('/') || WINDOWS_DRIVE.test(path);
}

/**
 * Splits at the slashes that are outside braces, so `{a/b,c}/d` keeps its brace whole. Only used to propose a
 * tidy spelling (`chooseSpelling` checks every proposal), so its idea of a brace need not be minimatch's.
 */
function splitTopLevel(path: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of path) {
    if (char === '{') depth += 1;
    else if (char === '}' && depth > 0) depth -= 1;
    if (char === '/' && depth === 0) {
      parts.push(current);
      current = '';
    } else current += char;
  }
  parts.push(current);
  return parts;
}

/** Removes empty and `.` segments and resolves `..`; undefined when `..` climbs above the start. */
function resolveDots(parts: readonly string[]): string[] | undefined {
  const resolved: string[] = [];
  for (const part of parts) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (resolved.length === 0) return undefined;
      resolved.pop();
    } else resolved.push(part);
  }
  return resolved;
}

/** `a/**\/**\/b` means the same as `a/**\/b`; keep one spelling. */
function collapseGlobstars(parts: readonly string[]): string[] {
  return parts.filter((part, index) => !(part === '**' && parts[index - 1] === '**'));
}

function repositoryRootOf(entry: string, options: GrammarOptions): string {
  const root = options.repoRoot?.replace(/\\/g, '/').replace(/\/+$/, '');
  if (root === undefined || root === '') {
    fail('absolute-outside-root', entry, 'is an absolute path and no repository root is known: write it relative to the repository root');
  }
  return root;
}

/** The segments of `path` below the repository root, or undefined when `path` does not lie inside it. */
function belowRoot(path: string, root: string, options: GrammarOptions): string[] | undefined {
  const resolvedPath = resolveDots(path.split('/'));
  const resolvedRoot = resolveDots(root.split('/'));
  const same = (a: string, b: string) => (options.ignoreCase ? foldCase(a) === foldCase(b) : a === b);
  if (
    resolvedPath === undefined ||
    resolvedRoot === undefined ||
    resolvedPath.length < resolvedRoot.length ||
    !resolvedRoot.every((part, index) => same(part, resolvedPath[index] ?? ''))
  ) {
    return undefined;
  }
  return resolvedPath.slice(resolvedRoot.length);
}

/** An absolute path (without braces) made relative to the repository root; a trailing `/` is kept. */
function relativeToRoot(entry: string, path: string, options: GrammarOptions, alternative: boolean): string {
  const root = repositoryRootOf(entry, options);
  const below = belowRoot(path, root, options);
  if (below === undefined) {
    fail(
      'absolute-outside-root',
      entry,
      alternative
        ? `has the alternative ${JSON.stringify(path)}, an absolute path outside the repository root ${root}: scopes name files inside the repository`
        : `is an absolute path outside the repository root ${root}: scopes name files inside the repository`,
    );
  }
  return below.join('/') + (path.endsWith('/') ? '/' : '');
}

/**
 * One brace alternative, normalised (docs/scope-grammar.md § 1): `.` segments and runs of `/` removed, `x/..`
 * resolved, an absolute path inside the repository root made relative, and a trailing `/`, `/.` or `x/..` kept as
 * one trailing `/` (everything beneath). `several` says whether messages should name the alternative.
 */
function normaliseAlternative(entry: string, alternative: string, options: GrammarOptions, several: boolean): string {
  if (several && EXTGLOB.test(alternative)) {
    fail('extglob', entry, `has the alternative ${JSON.stringify(alternative)}, an extglob such as @(a|b): write a brace list {a,b} or several entries instead`);
  }
  if (several && POSIX_CLASS.test(alternative)) {
    fail('posix-class', entry, `has the alternative ${JSON.stringify(alternative)}, which uses a POSIX character class such as [[:alpha:]]: write the characters or ranges, e.g. [a-zA-Z]`);
  }
  // Whether it names a directory is read before an absolute path is made relative (`/repo/src/.` is `src/`).
  const namesDirectory = endsLikeDirectory(alternative);
  const path = isAbsolute(alternative) ? relativeToRoot(entry, alternative, options, several) : alternative;
  // Already normal (the common case when a stored spelling is parsed): nothing to resolve.
  if (!namesDirectory && isNormalPattern(path)) return path;
  const resolved = resolveDots(path.split('/'));
  if (resolved === undefined) {
    fail(
      'escapes-root',
      entry,
      several ? `has the alternative ${JSON.stringify(alternative)}, which climbs out of the repository` : 'climbs out of the repository with "..": scopes name files inside the repository',
    );
  }
  if (resolved.length === 0) {
    if (alternative === '') fail('empty', entry, 'has an empty alternative: every alternative must name something');
    fail(
      'names-root',
      entry,
      several
        ? `has the alternative ${JSON.stringify(alternative)}, which names the repository root itself: write ** if the agent really owns every file`
        : 'names the repository root itself: write ** if the agent really owns every file',
    );
  }
  const segments = collapseGlobstars(resolved);
  const spelling = segments.join('/');
  // `src/**/` means what `src/**` means; keep the shorter spelling.
  return namesDirectory && segments[segments.length - 1] !== '**' ? `${spelling}/` : spelling;
}

/** Whether the last segment of `path` is empty, `.` or `..`: then it names a directory. */
function endsLikeDirectory(path: string): boolean {
  return path.endsWith('/') || path === '.' || path === '..' || path.endsWith('/.') || path.endsWith('/..');
}

/** Whether `path` has no empty, `.` or `..` segment and no repeated `**`: normalisation would return it unchanged. */
function isNormalPattern(path: string): boolean {
  return path !== '' && !path.startsWith('/') && !path.includes('//') && !/(?:^|\/)\.\.?(?:\/|$)/.test(path) && !path.includes('**/**');
}

/**
 * The normalised alternatives of `path` (backslashes already turned into `/`), in first-seen order, without
 * duplicates. Braces are expanded as minimatch's `braceExpand` does before anything is normalised, so `..` after a
 * group removes one segment of each alternative, and a brace minimatch keeps literal stays literal.
 */
function alternativesOf(entry: string, path: string, options: GrammarOptions): string[] {
  if (!path.includes('{')) return [normaliseAlternative(entry, path, options, false)];
  return expandAlternatives(entry, path, options).expansions;
}

/** `alternativesOf`, and whether some alternative was an absolute path (which a stored spelling may not keep). */
function expandAlternatives(entry: string, path: string, options: GrammarOptions): { expansions: string[]; absolute: boolean } {
  // The common case, decided without expanding: no brace, one alternative.
  if (!path.includes('{')) return { expansions: [normaliseAlternative(entry, path, options, false)], absolute: isAbsolute(path) };
  const expanded = expandBraces(path, MAX_ALTERNATIVES + 1);
  if (expanded.length > MAX_ALTERNATIVES) {
    fail('too-many-alternatives', entry, `expands to more than ${MAX_ALTERNATIVES} alternatives: split it into several entries`);
  }
  if (expanded.length === 0) fail('empty', entry, 'expands to no path at all: every alternative of its braces is empty');
  const several = expanded.length > 1 || expanded[0] !== path;
  return {
    expansions: [...new Set(expanded.map((alternative) => normaliseAlternative(entry, alternative, options, several)))],
    absolute: expanded.some(isAbsolute),
  };
}

/**
 * A tidier spelling of a relative entry with braces: `.` and empty segments outside braces removed, `x/..`
 * resolved where `x` is a brace-free segment (after a brace group, `..` stays: it removes one segment of each
 * alternative), repeated `**` collapsed, a trailing `/`, `/.` or `x/..` kept as one `/`. Idempotent.
 */
function tidySpelling(path: string): string {
  const parts = splitTopLevel(path);
  const last = parts[parts.length - 1];
  const namesDirectory = last === '' || last === '.' || last === '..';
  const kept: string[] = [];
  for (const part of parts) {
    if (part === '' || part === '.') continue;
    const previous = kept[kept.length - 1];
    if (part === '..' && previous !== undefined && previous !== '..' && !/[{}]/.test(previous)) kept.pop();
    else kept.push(part);
  }
  const segments = collapseGlobstars(kept);
  const spelling = segments.join('/');
  const tail = segments[segments.length - 1];
  return namesDirectory && spelling !== '' && tail !== '**' && tail !== '..' ? `${spelling}/` : spelling;
}

/** The relative rest of an absolute entry with braces, when its brace-free head holds the whole repository root. */
function stripRepositoryRoot(entry: string, path: string, options: GrammarOptions): string | undefined {
  const root = repositoryRootOf(entry, options);
  const headEnd = path.lastIndexOf('/', path.indexOf('{'));
  const below = belowRoot(path.slice(0, headEnd), root, options);
  if (below === undefined) return undefined;
  const rest = path.slice(headEnd + 1);
  return below.length === 0 ? rest : `${below.join('/')}/${rest}`;
}

/**
 * `a/{b,c}/d` as `{a/b,a/c}/d`: the text before the first `{` copied into each member of that group (members split
 * at its top-level commas), so the spelling starts with a glob character. Undefined when there is no such group.
 * A proposal only: `chooseSpelling` checks what it means.
 */
function startInsideFirstGroup(spelling: string): string | undefined {
  const open = spelling.indexOf('{');
  if (open <= 0) return undefined;
  const members: string[] = [];
  let depth = 0;
  let start = open + 1;
  for (let index = open + 1; index < spelling.length; index += 1) {
    const char = spelling[index];
    if (char === '{') depth += 1;
    else if (char === '}' && depth > 0) depth -= 1;
    else if ((char === ',' || char === '}') && depth === 0) {
      members.push(spelling.slice(start, index));
      start = index + 1;
      if (char === '}') {
        const head = spelling.slice(0, open);
        return `{${members.map((member) => head + member).join(',')}}${spelling.slice(index + 1)}`;
      }
    }
  }
  return undefined;
}

/** Characters of a path a textual prefilter takes for literal (the write gate's `compileGrants` reads these). */
const ORDINARY = /^[\p{L}\p{N}\p{M}._\- /]*$/u;

/**
 * The text of a spelling before its first glob character, up to its last `/`, when it is a normalised directory
 * path of ordinary characters (else ''): what a textual prefilter such as the write gate's reads as the start of
 * every path the entry names, so every alternative must start with it.
 */
function literalDirectoryPrefix(spelling: string): string {
  const glob = spelling.search(GLOB_CHARACTER);
  const prefix = glob === -1 ? spelling : spelling.slice(0, spelling.lastIndexOf('/', glob) + 1);
  const segments = prefix.split('/').slice(0, -1);
  return ORDINARY.test(prefix) && segments.every((segment) => segment !== '' && segment !== '.' && segment !== '..') ? prefix : '';
}

/** Whether minimatch reads `text` without expanding anything (no brace group that expands). */
function isBraceLiteral(text: string): boolean {
  if (!text.includes('{')) return true;
  const expanded = expandBraces(text, 2);
  return expanded.length === 1 && expanded[0] === text;
}

/**
 * The stored spelling of an entry whose normalised alternatives are `expansions`. One alternative that reads
 * literally is its own spelling (`{a..a}` → `a`, `{,b}` → `b`, `{/}/../a` → `{/a`). Otherwise the first proposal
 * that means exactly the same alternatives when read again, relative and without a repository root, and whose
 * text before its first glob character is a prefix of every alternative (the write gate's prefilter relies on
 * it): the tidied spelling, then the spelling as written, then one brace list of the alternatives, then the tidied
 * spelling with its literal start moved into its first group.
 */
function chooseSpelling(entry: string, path: string, read: { expansions: readonly string[]; absolute: boolean }, options: GrammarOptions): string {
  const { expansions } = read;
  const [only] = expansions;
  if (expansions.length === 1 && only !== undefined && isBraceLiteral(only)) return only;
  const wanted = new Set(expansions);
  const startsEvery = (prefix: string) => expansions.every((alternative) => alternative.startsWith(prefix));
  const means = (candidate: string) => {
    // The text as written, without an absolute alternative, reads back as itself: no need to expand it again.
    if (candidate === path) return !read.absolute && startsEvery(literalDirectoryPrefix(candidate));
    if (isAbsolute(candidate)) return false;
    let again: string[];
    try {
      again = alternativesOf(candidate, candidate, {});
    } catch (error) {
      if (error instanceof ScopeEntryError) return false;
      throw error;
    }
    return again.length === wanted.size && again.every((alternative) => wanted.has(alternative)) && startsEvery(literalDirectoryPrefix(candidate));
  };
  const relative = isAbsolute(path) ? stripRepositoryRoot(entry, path, options) : path;
  if (relative !== undefined) {
    const tidy = tidySpelling(relative);
    if (means(tidy)) return tidy;
    if (relative === path && means(path)) return path;
  }
  // A brace list of the alternatives themselves; then the tidied text with its literal start moved into its first
  // group. Each kept only when tidying would not change it (so normalising is idempotent).
  const list = `{${expansions.join(',')}}`;
  if (tidySpelling(list) === list && means(list)) return list;
  const distributed = relative === undefined ? undefined : startInsideFirstGroup(tidySpelling(relative));
  if (distributed !== undefined && tidySpelling(distributed) === distributed && means(distributed)) return distributed;
  fail('unspellable-braces', entry, 'has braces that cannot be written as one normalised entry: write each alternative as an entry of its own');
}

/**
 * Normalises one entry (docs/scope-grammar.md): `\` → `/`, braces expanded as minimatch expands them, then in
 * every alternative runs of `/` collapsed, `.` segments removed, `x/..` resolved, an absolute path inside
 * `repoRoot` made relative. A trailing `/` (or `/.`, `x/..`) is kept as `/` and means everything beneath. Returns
 * the stored spelling (see `chooseSpelling`). Throws ScopeEntryError for entries that cannot be used.
 */
export function normalizeScopeEntry(raw: unknown, options: GrammarOptions = {}): string {
  if (typeof raw !== 'string') fail('not-a-string', String(raw), 'is not a string: a scope entry is a path or a glob');
  if (raw.trim() === '') fail('empty', raw, 'is empty: name a file, a directory (ending in /) or a glob');
  if (/[\0\r\n]/.test(raw)) fail('control-character', raw, 'contains a NUL, carriage return or line feed, which no path in a scope may contain');
  const lone = LONE_SURROGATE.exec(raw);
  if (lone !== null) {
    // A file name is bytes: a lone surrogate has no UTF-8 form, and Node writes U+FFFD in its place, so
    // `src/\uD800/` and `src/\uFFFD/` would be two entries the proof finds disjoint that name one directory.
    const unit = `U+${(lone[0].codePointAt(0) as number).toString(16).toUpperCase()}`;
    fail('lone-surrogate', raw, `contains a lone surrogate (${unit}), which is not Unicode text and no file name can hold: it would name the file spelled with U+FFFD instead`);
  }
  if (raw.length > MAX_ENTRY_LENGTH) fail('too-long', `${raw.slice(0, 64)}…`, `is longer than ${MAX_ENTRY_LENGTH} characters, longer than any path it could name`);
  const path = raw.replace(/\\/g, '/');
  if (path.startsWith('!')) {
    fail('negation', raw, 'starts with "!": scopes are allow-lists, so list the paths the agent owns instead of excluding some');
  }
  if (EXTGLOB.test(path)) {
    fail('extglob', raw, 'uses an extglob such as @(a|b): write a brace list {a,b} or several entries instead');
  }
  if (POSIX_CLASS.test(path)) {
    fail('posix-class', raw, 'uses a POSIX character class such as [[:alpha:]]: write the characters or ranges, e.g. [a-zA-Z]');
  }
  const read = expandAlternatives(raw, path, options);
  // Without a brace the one alternative is the spelling (the hot path: most entries are plain paths).
  if (!path.includes('{')) return read.expansions[0] as string;
  return chooseSpelling(raw, path, read, options);
}

/** The segments of a normalised alternative, a trailing `/` read as `/**`. */
function segmentsOf(expansion: string): string[] {
  if (!expansion.endsWith('/')) return expansion.split('/');
  return collapseGlobstars([...expansion.slice(0, -1).split('/'), '**']);
}

function singleChar(code: number): CharSet {
  return { negated: false, ranges: [[code, code]] };
}

/** Sorted, merged, and without `/`: a bracket never matches the separator (minimatch splits segments first). */
function normaliseRanges(ranges: Array<[number, number]>): Array<[number, number]> {
  const sorted = ranges
    .flatMap(([low, high]): Array<[number, number]> => (low <= SLASH && SLASH <= high ? [[low, SLASH - 1], [SLASH + 1, high]] : [[low, high]]))
    .filter(([low, high]) => low <= high)
    .sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [];
  for (const [low, high] of sorted) {
    const previous = merged[merged.length - 1];
    if (previous !== undefined && low <= previous[1] + 1) previous[1] = Math.max(previous[1], high);
    else merged.push([low, high]);
  }
  return merged;
}

const UPPER_A = 0x41;
const UPPER_Z = 0x5a;
const CASE_OFFSET = 0x20;
const FIRST_NON_ASCII = 0x80;

/**
 * In ignore-case mode case is folded before a bracket is tested, on both sides (minimatch's `nocase`): the path's
 * character is folded, and the class gains the fold of each of its members. So `[A-C]` names `b`, and `[!a]`
 * names neither `a` nor `A`.
 */
function foldRanges(ranges: Array<[number, number]>): Array<[number, number]> {
  const folded = [...ranges];
  for (const [low, high] of ranges) {
    const from = Math.max(low, UPPER_A);
    const to = Math.min(high, UPPER_Z);
    if (from <= to) folded.push([from + CASE_OFFSET, to + CASE_OFFSET]);
    // Beyond ASCII, every member whose fold is another code unit (É gains é).
    for (let code = Math.max(low, FIRST_NON_ASCII); code <= high; code += 1) {
      const fold = foldUnit(code);
      if (fold !== code) folded.push([fold, fold]);
    }
  }
  return folded;
}

/**
 * Parses a bracket expression starting at `start` (the `[`), with minimatch's rules: `!` or `^` first negates,
 * a `]` right after the opening (or the negation) is literal, `a-z` is a range (a reversed range is empty),
 * a `-` first or last is literal. Returns undefined when there is no closing `]`: the `[` is then literal.
 */
function parseBracket(segment: string, start: number, ignoreCase: boolean): { set: CharSet; end: number } | undefined {
  let index = start + 1;
  let negated = false;
  if (segment[index] === '!' || segment[index] === '^') {
    negated = true;
    index += 1;
  }
  const ranges: Array<[number, number]> = [];
  let sawMember = false;
  while (index < segment.length) {
    const char = segment.charCodeAt(index);
    if (segment[index] === ']' && sawMember) {
      // minimatch: a bracket with no member at all (only reversed ranges) matches nothing, even when negated.
      if (ranges.length === 0) return { set: { negated: false, ranges: [] }, end: index + 1 };
      const merged = normaliseRanges(ignoreCase ? foldRanges(ranges) : ranges);
      return { set: { negated, ranges: merged }, end: index + 1 };
    }
    sawMember = true;
    if (segment[index + 1] === '-' && segment[index + 2] === ']') {
      ranges.push([char, char], [0x2d, 0x2d]);
      index += 2;
    } else if (segment[index + 1] === '-' && index + 2 < segment.length) {
      const high = segment.charCodeAt(index + 2);
      if (high >= char) ranges.push([char, high]);
      index += 3;
    } else {
      ranges.push([char, char]);
      index += 1;
    }
  }
  return undefined;
}

function parseSegment(segment: string, ignoreCase: boolean): PatternSegment {
  if (segment === '**') return { kind: 'globstar' };
  const tokens: SegmentToken[] = [];
  let literal = '';
  let isLiteral = true;
  // A bracket closes only at a `]` after its first member: with none that far on, the `[` is literal, known
  // without scanning the rest of the segment (which made a segment of many unclosed `[` quadratic).
  const lastClose = segment.lastIndexOf(']');
  for (let index = 0; index < segment.length; ) {
    const char = segment[index] as string;
    const bracket = char === '[' && lastClose > index + 1 ? parseBracket(segment, index, ignoreCase) : undefined;
    if (char === '*') {
      if (tokens[tokens.length - 1]?.kind !== 'star') tokens.push({ kind: 'star' });
      isLiteral = false;
      index += 1;
    } else if (char === '?') {
      tokens.push({ kind: 'chars', set: ANY_CHAR });
      isLiteral = false;
      index += 1;
    } else if (bracket !== undefined) {
      tokens.push({ kind: 'chars', set: bracket.set });
      isLiteral = false;
      index = bracket.end;
    } else {
      // foldCase folds a code unit to one code unit: one literal token each.
      const code = ignoreCase ? foldUnit(segment.charCodeAt(index)) : segment.charCodeAt(index);
      tokens.push({ kind: 'chars', set: singleChar(code) });
      literal += String.fromCharCode(code);
      index += 1;
    }
  }
  return { kind: 'pattern', tokens, literal: isLiteral ? literal : undefined };
}

/**
 * The segments of a normalised spelling's alternatives that hold a `[` read as a literal character because no `]`
 * closes it within the segment (`src/[abc` → `[abc`): probably a typo. Each segment once, in order.
 */
export function unclosedBracketSegments(spelling: string): string[] {
  const found = new Set<string>();
  for (const expansion of alternativesOf(spelling, spelling, {})) {
    for (const segment of segmentsOf(expansion)) {
      for (let index = segment.indexOf('['); index !== -1; index = segment.indexOf('[', index + 1)) {
        const bracket = parseBracket(segment, index, false);
        if (bracket === undefined) {
          found.add(segment);
          break;
        }
        index = bracket.end - 1;
      }
    }
  }
  return [...found];
}

function literalPrefixOf(segments: readonly PatternSegment[]): string[] {
  const prefix: string[] = [];
  for (const segment of segments) {
    if (segment.kind !== 'pattern' || segment.literal === undefined) break;
    prefix.push(segment.literal);
  }
  return prefix;
}

function commonPrefix(prefixes: readonly string[][]): string[] {
  const [first, ...rest] = prefixes;
  if (first === undefined) return [];
  let length = first.length;
  for (const prefix of rest) {
    let shared = 0;
    while (shared < length && shared < prefix.length && prefix[shared] === first[shared]) shared += 1;
    length = shared;
  }
  return first.slice(0, length);
}

/**
 * Parses a normalised spelling (see `normalizeScopeEntry`): expands its braces, normalises every alternative and
 * tokenises each segment.
 */
export function parseScopeEntry(spelling: string, options: GrammarOptions = {}): ParsedScopeEntry {
  const ignoreCase = options.ignoreCase ?? false;
  if (ignoreCase) refuseUnfoldable(spelling);
  const expansions = alternativesOf(spelling, spelling, { ignoreCase });
  const alternatives = expansions.map((expansion) => segmentsOf(expansion).map((part) => parseSegment(part, ignoreCase)));
  const [only] = alternatives;
  // Plain only when the spelling itself is the one path named: callers look a plain spelling up as a file.
  const isPlain =
    alternatives.length === 1 &&
    expansions[0] === spelling &&
    (only as PatternSegment[]).every((segment) => segment.kind === 'pattern' && segment.literal !== undefined);
  return {
    spelling,
    kind: isPlain ? 'plain' : 'glob',
    expansions,
    alternatives,
    literalPrefix: commonPrefix(alternatives.map(literalPrefixOf)),
    ignoreCase,
  };
}

function escapeForClass(code: number): string {
  return `\\u${code.toString(16).padStart(4, '0')}`;
}

function charSetSource(set: CharSet): string {
  if (set.negated && set.ranges.length === 0) return '[^/]';
  if (!set.negated && set.ranges.length === 0) return '(?!)';
  const body = set.ranges.map(([low, high]) => (low === high ? escapeForClass(low) : `${escapeForClass(low)}-${escapeForClass(high)}`)).join('');
  return set.negated ? `[^/${body}]` : `[${body}]`;
}

function alternativeSource(segments: readonly PatternSegment[]): string {
  let source = '';
  segments.forEach((segment, index) => {
    const isLast = index === segments.length - 1;
    if (segment.kind === 'globstar') {
      // Zero or more whole segments; at the end, one or more (minimatch: `a/**` does not match `a`).
      source += isLast ? '[^/]+(?:/[^/]+)*' : '(?:[^/]+/)*';
      return;
    }
    source += segment.tokens.map((token) => (token.kind === 'star' ? '[^/]*' : charSetSource(token.set))).join('');
    if (!isLast) source += '/';
  });
  return source;
}

/**
 * Whether V8's backtracking regex runs in time near linear on this alternative, whatever the path: at most
 * two `**` and at most one `*` in each segment. Beyond that a path that fails to match can make it try every
 * way of sharing the path's segments among the `**` (or a segment's characters among its `*`), which grows
 * exponentially with their number.
 */
function backtracksBoundedly(segments: readonly PatternSegment[]): boolean {
  let globstars = 0;
  for (const segment of segments) {
    if (segment.kind === 'globstar') globstars += 1;
    else if (segment.tokens.filter((token) => token.kind === 'star').length > 1) return false;
  }
  return globstars <= 2;
}

/**
 * Whether `spelling` is, without parsing it, a plain path the parser would keep as it is: no brace, glob
 * character or bracket, not absolute, not naming a directory, no empty, `.` or `..` segment. Every such spelling
 * parses to one alternative of literal segments, the spelling itself (parseScopeEntry); others are parsed.
 */
function isPlainAsSpelled(spelling: string): boolean {
  return !GLOB_CHARACTER.test(spelling) && !isAbsolute(spelling) && !endsLikeDirectory(spelling) && isNormalPattern(spelling);
}

/**
 * The compiled form of a spelling `isPlainAsSpelled` accepts, equal to what parsing it yields but without
 * tokenising it: its `alternatives` (an object for every character) are parsed only when asked for, which no
 * question about a plain entry needs except building its automaton (coverage by a list that holds it). A full
 * session ledger holds over 200,000 plain entries, and the dispatch guard compiles them all; a class, so that
 * each costs its fields and no closures.
 */
class PlainScopeEntry implements CompiledScopeEntry {
  readonly kind = 'plain';
  readonly literalPrefix: readonly string[];
  private readonly exact: string;
  private parsed: ReadonlyArray<readonly PatternSegment[]> | undefined;

  constructor(
    readonly spelling: string,
    readonly ignoreCase: boolean,
  ) {
    const segments = spelling.split('/');
    // foldCase folds one code unit at a time, so each segment folds as the proof reads it.
    this.literalPrefix = ignoreCase ? segments.map(foldCase) : segments;
    this.exact = ignoreCase ? foldCase(spelling) : spelling;
  }

  get expansions(): readonly string[] {
    return [this.spelling];
  }

  get alternatives(): ReadonlyArray<readonly PatternSegment[]> {
    return (this.parsed ??= [this.spelling.split('/').map((segment) => parseSegment(segment, this.ignoreCase))]);
  }

  matches(path: string): boolean {
    return (this.ignoreCase ? foldCase(path) : path) === this.exact;
  }
}

/** In ignore-case mode, an entry holding a letter foldCase cannot fold (hasUnfoldableLetter) is refused. */
function refuseUnfoldable(spelling: string): void {
  if (hasUnfoldableLetter(spelling)) {
    fail('unfoldable-letter', spelling, 'holds a letter outside the Basic Multilingual Plane that has case (Deseret, Osage, Adlam…): where case is ignored its two cases are one file, which the proof cannot compare; match it with ? or *');
  }
}

/** Compiles a normalised spelling once, for matching many concrete paths. */
export function compileScopeEntry(spelling: string, options: GrammarOptions = {}): CompiledScopeEntry {
  if (isPlainAsSpelled(spelling)) {
    if (options.ignoreCase === true) refuseUnfoldable(spelling);
    return new PlainScopeEntry(spelling, options.ignoreCase ?? false);
  }
  const parsed = parseScopeEntry(spelling, options);
  const fold = parsed.ignoreCase ? foldCase : (text: string) => text;
  if (parsed.kind === 'plain') {
    const exact = fold(spelling);
    return { ...parsed, matches: (path) => fold(path) === exact };
  }
  // Nearly every entry is one regex; one the regex could take exponential time on is matched by the entry's
  // automaton (the proof's own), in time linear in the path.
  if (!parsed.alternatives.every(backtracksBoundedly)) {
    const automaton = automatonOf(parsed);
    return { ...parsed, matches: (path) => acceptsPath(automaton, fold(path)) };
  }
  const pattern = new RegExp(`^(?:${parsed.alternatives.map(alternativeSource).join('|')})$`);
  return { ...parsed, matches: (path) => pattern.test(fold(path)) };
}
