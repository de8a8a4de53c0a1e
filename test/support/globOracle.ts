// A brute-force oracle for the scope algebra: every path over a small alphabet, matched with minimatch.
// The algebra claims exact answers; the property tests check those answers against this enumeration.
import fc from 'fast-check';
import { braceExpand, Minimatch } from 'minimatch';
import { normalizeScopeEntry } from '../../src/planner/scope/scopeEntry';

/** minimatch with the scope grammar's meaning: dot files included, no comments, negation or extglobs. */
export function oracleMatcher(entry: string, ignoreCase = false): (path: string) => boolean {
  // In the scope grammar a trailing slash means everything beneath; minimatch spells that `dir/**`.
  const pattern = entry.endsWith('/') ? `${entry}**` : entry;
  const matcher = new Minimatch(pattern, { dot: true, nocomment: true, nonegate: true, noext: true, nocase: ignoreCase });
  return (path) => matcher.match(path);
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

const letters = (ignoreCase: boolean) => (ignoreCase ? ['a', 'A', 'b'] : ['a', 'b']);

/** One token of a segment pattern, over the oracle's alphabet. */
function tokenArbitrary(ignoreCase: boolean): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...letters(ignoreCase), '.') },
    { weight: 3, arbitrary: fc.constant('*') },
    { weight: 2, arbitrary: fc.constant('?') },
    { weight: 2, arbitrary: fc.constantFrom('[ab]', '[!a]', '[a-b]', '[^b]', '[.a]', '[]a]', '[b-a]', '[A]', '[!A-Z]') },
  );
}

/** A segment pattern: `**`, a run of tokens, or a brace list of two runs. */
function segmentArbitrary(ignoreCase: boolean): fc.Arbitrary<string> {
  const run = fc.array(tokenArbitrary(ignoreCase), { minLength: 1, maxLength: 3 }).map((tokens) => tokens.join(''));
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant('**') },
    { weight: 6, arbitrary: run },
    { weight: 1, arbitrary: fc.tuple(run, run).map(([a, b]) => `{${a},${b}}`) },
  );
}

/**
 * A scope entry over the oracle's alphabet: 1 to 3 segments, sometimes a trailing `/`. Entries whose only
 * segments would be `.` or `..` are avoided (they are rejected by the grammar, not interesting here).
 */
export function entryArbitrary(ignoreCase = false): fc.Arbitrary<string> {
  return fc
    .tuple(fc.array(segmentArbitrary(ignoreCase), { minLength: 1, maxLength: 3 }), fc.boolean())
    .map(([segments, trailingSlash]) => segments.join('/') + (trailingSlash && segments[segments.length - 1] !== '**' ? '/' : ''))
    .filter((entry) => !entry.split('/').some((segment) => segment === '.' || segment === '..'));
}

/**
 * The normalised spelling of an entry the grammar accepts and minimatch reads segment for segment as we do;
 * undefined otherwise. (A brace alternative with a `.` or `..` segment is resolved by our normalisation and
 * not by minimatch, so the oracle cannot judge it.)
 */
export function usable(entry: string): string | undefined {
  const alternatives = braceExpand(entry);
  const oddSegment = (alternative: string) =>
    alternative.split('/').some((segment, index, all) => segment === '.' || segment === '..' || (segment === '' && index < all.length - 1));
  if (alternatives.some(oddSegment)) return undefined;
  try {
    return normalizeScopeEntry(entry);
  } catch {
    return undefined;
  }
}
