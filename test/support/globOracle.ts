// A brute-force oracle for the scope grammar: minimatch reads every entry, under the grammar's documented
// normalisation (docs/scope-grammar.md § 1) written here a second time, independently of the engine's. minimatch
// expands the braces (its own `globSet`), this file normalises each alternative (`.`, `..`, runs of `/`, a
// trailing `/`, `/.` or `x/..` as `/**`), and minimatch with `{dot: true}` (plus `nocase` in ignore-case mode)
// matches each. The property tests check the engine's exact answers against this reading over enumerated paths.
import fc from 'fast-check';
import { braceExpand, Minimatch } from 'minimatch';
import { normalizeScopeEntry, ScopeEntryError } from '../../src/planner/scope/scopeEntry';

/** The reasons the oracle rejects an entry for (the engine's reasons for the same rules). */
export type OracleRejection = 'empty' | 'escapes-root' | 'names-root' | 'absolute-outside-root' | 'too-many-alternatives' | 'negation' | 'extglob' | 'posix-class';

/** How the oracle reads one entry: the normalised alternatives (minimatch patterns) and a matcher, or a rejection. */
export type OracleReading =
  | { readonly ok: true; readonly patterns: readonly string[]; readonly matches: (path: string) => boolean }
  | { readonly ok: false; readonly reason: OracleRejection };

const READ = { dot: true, nocomment: true, nonegate: true, noext: true } as const;

/** Why normaliseForOracle refuses an alternative. */
type AlternativeRejection = 'empty' | 'escapes-root' | 'names-root' | 'absolute-outside-root';

/**
 * One alternative, normalised as the grammar documents it, as a minimatch pattern (`dir/**` for a directory),
 * or the reason it is refused. Kept apart, so a real pattern spelt like a reason (a file named `empty`) is
 * never read as a refusal.
 */
function normaliseForOracle(alternative: string): { pattern: string } | { rejection: AlternativeRejection } {
  if (alternative.startsWith('/')) return { rejection: 'absolute-outside-root' };
  const parts = alternative.split('/');
  const last = parts[parts.length - 1];
  const directory = last === '' || last === '.' || last === '..';
  const stack: string[] = [];
  for (const part of parts) {
    if (part === '' || part === '.') continue;
    if (part !== '..') stack.push(part);
    else if (stack.length === 0) return { rejection: 'escapes-root' };
    else stack.pop();
  }
  if (stack.length === 0) return { rejection: alternative === '' ? 'empty' : 'names-root' };
  return { pattern: directory ? `${stack.join('/')}/**` : stack.join('/') };
}

/** The oracle's reading of an entry (relative entries only: no repository root is known to it). */
export function oracleRead(entry: string, ignoreCase = false): OracleReading {
  if (entry.trim() === '') return { ok: false, reason: 'empty' };
  const path = entry.replace(/\\/g, '/');
  if (path.startsWith('!')) return { ok: false, reason: 'negation' };
  if (/[?*+@!]\(/.test(path)) return { ok: false, reason: 'extglob' };
  if (/\[:[a-z]+:\]/.test(path)) return { ok: false, reason: 'posix-class' };
  if (braceExpand(path, { braceExpandMax: 1025 }).length > 1024) return { ok: false, reason: 'too-many-alternatives' };
  const expanded = new Minimatch(path, READ).globSet;
  if (expanded.length === 0) return { ok: false, reason: 'empty' };
  const patterns: string[] = [];
  for (const alternative of expanded) {
    const normalised = normaliseForOracle(alternative);
    if ('rejection' in normalised) return { ok: false, reason: normalised.rejection };
    const { pattern } = normalised;
    if (/[?*+@!]\(/.test(pattern)) return { ok: false, reason: 'extglob' };
    if (/\[:[a-z]+:\]/.test(pattern)) return { ok: false, reason: 'posix-class' };
    patterns.push(pattern);
  }
  const matchers = patterns.map((pattern) => new Minimatch(pattern, { ...READ, nobrace: true, nocase: ignoreCase }));
  return { ok: true, patterns, matches: (candidate) => matchers.some((matcher) => matcher.match(candidate)) };
}

/** The oracle's matcher for an entry it accepts (raw or normalised); throws for one it rejects. */
export function oracleMatcher(entry: string, ignoreCase = false): (path: string) => boolean {
  const reading = oracleRead(entry, ignoreCase);
  if (!reading.ok) throw new Error(`the oracle rejects ${JSON.stringify(entry)} (${reading.reason})`);
  return reading.matches;
}

/**
 * The oracle's matcher for one alternative the engine has already expanded (an entry of `expansions`). Its braces
 * are literal text by then: a second expansion would read `a\{a..b}`'s alternative `a{a..b}` as two paths.
 */
export function oracleAlternativeMatcher(expansion: string, ignoreCase = false): (path: string) => boolean {
  const normalised = normaliseForOracle(expansion);
  if ('rejection' in normalised) {
    throw new Error(`the oracle rejects the alternative ${JSON.stringify(expansion)} (${normalised.rejection})`);
  }
  const matcher = new Minimatch(normalised.pattern, { ...READ, nobrace: true, nocase: ignoreCase });
  return (candidate) => matcher.match(candidate);
}

/** A repository path in normal form: non-empty segments, none of them `.` or `..`. */
export function isNormalisedPath(path: string): boolean {
  return path !== '' && path.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..');
}

/**
 * Every normalised path of at most `depth` segments, each segment 1 to `segmentLength` characters of
 * `alphabet`, without `.` and `..` segments (which a normalised repository path never has).
 */
export function enumeratePaths(alphabet: readonly string[], segmentLength: number, depth: number): string[] {
  const segments: string[] = [];
  let layer = [''];
  for (let length = 1; length <= segmentLength; length += 1) {
    layer = layer.flatMap((prefix) => alphabet.map((char) => prefix + char));
    segments.push(...layer.filter((segment) => segment !== '.' && segment !== '..'));
  }
  const paths: string[] = [];
  let level = [''];
  for (let count = 1; count <= depth; count += 1) {
    level = level.flatMap((prefix) => segments.map((segment) => (prefix === '' ? segment : `${prefix}/${segment}`)));
    paths.push(...level);
  }
  return paths;
}

/**
 * Concrete paths an entry's alternatives name, at whatever depth they lie: each pattern's wildcards filled in a
 * few plain ways, kept when the oracle agrees the pattern names the result. Added to an enumerated universe so
 * that deep alternatives (`a/{b/a,a}/a/b`) are brute-forced too.
 */
export function samplePaths(reading: OracleReading & { ok: true }, ignoreCase = false): string[] {
  const fills = ignoreCase ? ['a', 'A', 'b', '.a'] : ['a', 'b', '.a'];
  const found = new Set<string>();
  for (const pattern of reading.patterns) {
    const match = new Minimatch(pattern, { ...READ, nobrace: true, nocase: ignoreCase });
    for (const fill of fills) {
      for (const globstar of [[], [fill]]) {
        const segments = pattern.split('/').flatMap((segment) => {
          if (segment === '**') return globstar;
          return [segment.replace(/\[(?:[!^])?\]?[^\]]*\]/g, fill.slice(-1)).replace(/\*+/g, fill).replace(/\?/g, fill.slice(-1))];
        });
        const path = segments.length === 0 ? fill : segments.join('/');
        if (isNormalisedPath(path) && match.match(path)) found.add(path);
      }
    }
  }
  return [...found];
}

const letters = (ignoreCase: boolean) => (ignoreCase ? ['a', 'A', 'b'] : ['a', 'b']);

/** One token of a segment pattern, over the oracle's alphabet (unclosed brackets and stray braces included). */
function tokenArbitrary(ignoreCase: boolean): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...letters(ignoreCase), '.') },
    { weight: 3, arbitrary: fc.constant('*') },
    { weight: 2, arbitrary: fc.constant('?') },
    { weight: 2, arbitrary: fc.constantFrom('[ab]', '[!a]', '[a-b]', '[^b]', '[.a]', '[]a]', '[b-a]', '[A]', '[!A-Z]') },
    { weight: 1, arbitrary: fc.constantFrom('[a', '[', '[!', '{', '}', ',') },
  );
}

function runArbitrary(ignoreCase: boolean): fc.Arbitrary<string> {
  return fc.array(tokenArbitrary(ignoreCase), { minLength: 1, maxLength: 3 }).map((tokens) => tokens.join(''));
}

/** A path-like piece: one or two segments, `.`, `..` and empty segments included. */
function pathArbitrary(ignoreCase: boolean): fc.Arbitrary<string> {
  const segment = fc.oneof(
    { weight: 6, arbitrary: runArbitrary(ignoreCase) },
    { weight: 1, arbitrary: fc.constant('**') },
    { weight: 1, arbitrary: fc.constantFrom('.', '..', '') },
  );
  return fc.array(segment, { minLength: 1, maxLength: 2 }).map((segments) => segments.join('/'));
}

/** A brace form: a list (possibly with empty members or one member only), a range, or an unclosed list. */
function braceArbitrary(ignoreCase: boolean): fc.Arbitrary<string> {
  const member = fc.oneof({ weight: 5, arbitrary: pathArbitrary(ignoreCase) }, { weight: 1, arbitrary: fc.constant('') });
  return fc.oneof(
    { weight: 6, arbitrary: fc.array(member, { minLength: 2, maxLength: 3 }).map((members) => `{${members.join(',')}}`) },
    { weight: 1, arbitrary: member.map((only) => `{${only}}`) },
    { weight: 1, arbitrary: fc.constantFrom('{a..b}', '{b..a}', '{a..a}', '{}') },
    { weight: 1, arbitrary: fc.array(member, { minLength: 1, maxLength: 2 }).map((members) => `{${members.join(',')}`) },
    // A member that climbs out of the group, over whatever comes before it.
    { weight: 1, arbitrary: fc.tuple(pathArbitrary(ignoreCase), member).map(([climbing, other]) => `{../${climbing},${other}}`) },
  );
}

/**
 * A scope entry over the oracle's alphabet: pieces (segments, brace forms, or a brace attached to a run) joined
 * by `/`, sometimes with a leading `./` and a trailing `/`, `/.` or `/..`; `.`, `..` and empty segments inside
 * and after groups. Some entries are rejected by the grammar (they climb out or name the root): both readers
 * must agree on those too.
 */
export function entryArbitrary(ignoreCase = false): fc.Arbitrary<string> {
  const piece = fc.oneof(
    { weight: 5, arbitrary: runArbitrary(ignoreCase) },
    { weight: 2, arbitrary: fc.constant('**') },
    { weight: 3, arbitrary: braceArbitrary(ignoreCase) },
    { weight: 1, arbitrary: fc.tuple(runArbitrary(ignoreCase), braceArbitrary(ignoreCase)).map(([run, brace]) => run + brace) },
    { weight: 1, arbitrary: fc.constantFrom('.', '..', '') },
  );
  return fc
    .tuple(fc.constantFrom('', '', '', './'), fc.array(piece, { minLength: 1, maxLength: 3 }), fc.constantFrom('', '', '', '', '/', '/.', '/..'))
    .map(([lead, pieces, tail]) => lead + pieces.join('/') + tail)
    .filter((entry) => entry.trim() !== '');
}

/** The normalised spelling of an entry both the engine and the oracle accept; undefined otherwise. */
export function usable(entry: string): string | undefined {
  if (!oracleRead(entry).ok) return undefined;
  try {
    return normalizeScopeEntry(entry);
  } catch (error) {
    if (error instanceof ScopeEntryError) return undefined;
    throw error;
  }
}
