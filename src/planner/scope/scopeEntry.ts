// The scope grammar: how one entry of an agent's scope is spelled, normalised and parsed.
// docs/scope-grammar.md is the user-facing description; this file is its implementation.
//
// An entry is normalised first (so that `./src/a.ts`, `src//a.ts` and `lib/../src/a.ts` are one entry), then
// brace-expanded into alternatives, each split into segments, each segment into tokens. The tokens are what
// src/planner/scope/scopeAutomaton.ts builds automata from; `compileScopeEntry` also turns them into a RegExp for
// matching many concrete paths fast.
import { braceExpand } from 'minimatch';

/** Why an entry was rejected; machine-readable. */
export type ScopeEntryErrorReason =
  | 'not-a-string'
  | 'empty'
  | 'control-character'
  | 'escapes-root'
  | 'absolute-outside-root'
  | 'names-root'
  | 'negation'
  | 'extglob'
  | 'posix-class'
  | 'too-many-alternatives';

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

/** Brace expansion beyond this many alternatives is refused: a scope is a list a person reviews. */
export const MAX_ALTERNATIVES = 1024;

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
  /** `plain`: exactly one path. `glob`: a pattern (a trailing `/` entry is a glob: `src/` ≡ `src/**`). */
  readonly kind: 'plain' | 'glob';
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

/** Folds case the way every comparison does in ignore-case mode. */
export function foldCase(text: string): string {
  return text.toLowerCase();
}

function fail(reason: ScopeEntryErrorReason, entry: string, why: string): never {
  throw new ScopeEntryError(reason, entry, `scope entry ${JSON.stringify(entry)} ${why}`);
}

const EXTGLOB = /[?*+@!]\(/;
const POSIX_CLASS = /\[:[a-z]+:\]/;
const WINDOWS_DRIVE = /^[A-Za-z]:\//;

function isAbsolute(path: string): boolean {
  return path.startsWith('/') || WINDOWS_DRIVE.test(path);
}

/**
 * Splits at the slashes that are outside braces, so `{a/b,c}/d` keeps its brace whole.
 * (Brace alternatives may contain slashes: `{src,lib/core}/x.ts`.)
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

function relativeToRoot(entry: string, path: string, options: GrammarOptions): string {
  const root = options.repoRoot?.replace(/\\/g, '/').replace(/\/+$/, '');
  if (root === undefined || root === '') {
    fail('absolute-outside-root', entry, 'is an absolute path and no repository root is known: write it relative to the repository root');
  }
  const resolvedPath = resolveDots(path.split('/'));
  const resolvedRoot = resolveDots(root.split('/'));
  const same = (a: string, b: string) => (options.ignoreCase ? foldCase(a) === foldCase(b) : a === b);
  if (
    resolvedPath === undefined ||
    resolvedRoot === undefined ||
    resolvedPath.length < resolvedRoot.length ||
    !resolvedRoot.every((part, index) => same(part, resolvedPath[index] ?? ''))
  ) {
    fail('absolute-outside-root', entry, `is an absolute path outside the repository root ${root}: scopes name files inside the repository`);
  }
  return resolvedPath.slice(resolvedRoot.length).join('/') + (path.endsWith('/') ? '/' : '');
}

/**
 * Normalises one entry (docs/scope-grammar.md): `\` → `/`, runs of `/` collapsed, `.` segments removed, `x/..`
 * resolved, an absolute path inside `repoRoot` made relative. A trailing `/` (or `/.`, `/..`) is kept as `/` and
 * means everything beneath. Throws ScopeEntryError for entries that cannot be used.
 */
export function normalizeScopeEntry(raw: unknown, options: GrammarOptions = {}): string {
  if (typeof raw !== 'string') fail('not-a-string', String(raw), 'is not a string: a scope entry is a path or a glob');
  if (raw.trim() === '') fail('empty', raw, 'is empty: name a file, a directory (ending in /) or a glob');
  if (/[\0\r\n]/.test(raw)) fail('control-character', raw, 'contains a NUL, carriage return or line feed, which no path in a scope may contain');
  let path = raw.replace(/\\/g, '/');
  if (path.startsWith('!')) {
    fail('negation', raw, 'starts with "!": scopes are allow-lists, so list the paths the agent owns instead of excluding some');
  }
  if (EXTGLOB.test(path)) {
    fail('extglob', raw, 'uses an extglob such as @(a|b): write a brace list {a,b} or several entries instead');
  }
  if (POSIX_CLASS.test(path)) {
    fail('posix-class', raw, 'uses a POSIX character class such as [[:alpha:]]: write the characters or ranges, e.g. [a-zA-Z]');
  }
  if (isAbsolute(path)) path = relativeToRoot(raw, path, options);

  const parts = splitTopLevel(path);
  const last = parts[parts.length - 1];
  const namesDirectory = last === '' || last === '.' || last === '..';
  const resolved = resolveDots(parts);
  if (resolved === undefined) fail('escapes-root', raw, 'climbs out of the repository with "..": scopes name files inside the repository');
  if (resolved.length === 0) {
    fail('names-root', raw, 'names the repository root itself: write ** if the agent really owns every file');
  }
  const segments = collapseGlobstars(resolved);
  const spelling = segments.join('/');
  // `src/**/` means what `src/**` means; keep the shorter spelling.
  const normalised = namesDirectory && segments[segments.length - 1] !== '**' ? `${spelling}/` : spelling;
  expandAlternatives(raw, normalised);
  return normalised;
}

/** The brace alternatives of a normalised spelling, each normalised again, trailing `/` as `/**`. */
function expandAlternatives(entry: string, spelling: string): string[][] {
  const expanded = braceExpand(spelling, { braceExpandMax: MAX_ALTERNATIVES + 1 });
  if (expanded.length > MAX_ALTERNATIVES) {
    fail('too-many-alternatives', entry, `expands to more than ${MAX_ALTERNATIVES} alternatives: split it into several entries`);
  }
  const alternatives: string[][] = [];
  for (const alternative of expanded) {
    const parts = alternative.split('/');
    const namesDirectory = parts.length > 1 && (parts[parts.length - 1] === '' || parts[parts.length - 1] === '.');
    const resolved = resolveDots(parts);
    if (resolved === undefined) fail('escapes-root', entry, `has the alternative ${JSON.stringify(alternative)}, which climbs out of the repository`);
    if (resolved.length === 0) fail('empty', entry, `has the empty alternative ${JSON.stringify(alternative)}: every alternative must name something`);
    if (namesDirectory) resolved.push('**');
    alternatives.push(collapseGlobstars(resolved));
  }
  return alternatives;
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

/** In ignore-case mode a (folded, lower-case) character matches a class when it or its ASCII upper case is in it. */
function foldRanges(ranges: Array<[number, number]>): Array<[number, number]> {
  const folded = [...ranges];
  for (const [low, high] of ranges) {
    const from = Math.max(low, UPPER_A);
    const to = Math.min(high, UPPER_Z);
    if (from <= to) folded.push([from + CASE_OFFSET, to + CASE_OFFSET]);
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
  const foldChar = (char: string) => (ignoreCase ? foldCase(char) : char);
  const tokens: SegmentToken[] = [];
  let literal = '';
  let isLiteral = true;
  for (let index = 0; index < segment.length; ) {
    const char = segment[index] as string;
    const bracket = char === '[' ? parseBracket(segment, index, ignoreCase) : undefined;
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
      // A case fold that changes a character's length (rare, outside ASCII) yields several literal tokens.
      const folded = foldChar(char);
      for (let offset = 0; offset < folded.length; offset += 1) tokens.push({ kind: 'chars', set: singleChar(folded.charCodeAt(offset)) });
      literal += folded;
      index += 1;
    }
  }
  return { kind: 'pattern', tokens, literal: isLiteral ? literal : undefined };
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

/** Parses an already normalised spelling (see `normalizeScopeEntry`). */
export function parseScopeEntry(spelling: string, options: GrammarOptions = {}): ParsedScopeEntry {
  const ignoreCase = options.ignoreCase ?? false;
  const alternatives = expandAlternatives(spelling, spelling).map((parts) => parts.map((part) => parseSegment(part, ignoreCase)));
  const isPlain =
    alternatives.length === 1 && (alternatives[0] as PatternSegment[]).every((segment) => segment.kind === 'pattern' && segment.literal !== undefined);
  return {
    spelling,
    kind: isPlain ? 'plain' : 'glob',
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

/** Compiles a normalised spelling once, for matching many concrete paths. */
export function compileScopeEntry(spelling: string, options: GrammarOptions = {}): CompiledScopeEntry {
  const parsed = parseScopeEntry(spelling, options);
  const fold = parsed.ignoreCase ? foldCase : (text: string) => text;
  if (parsed.kind === 'plain') {
    const exact = fold(spelling);
    return { ...parsed, matches: (path) => fold(path) === exact };
  }
  const pattern = new RegExp(`^(?:${parsed.alternatives.map(alternativeSource).join('|')})$`);
  return { ...parsed, matches: (path) => pattern.test(fold(path)) };
}
