// Direct tests of the automata behind the algebra (issue 8, item 10): the product search for a common path, the
// inclusion check and the cheap disjointness pre-check, each on small tables, and the pre-check's soundness on
// random alternatives against the exact search.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { automatonOf, checkInclusion, findCommonPath, surelyDisjoint } from '../../../src/planner/scope/scopeAutomaton';
import { parseScopeEntry, type PatternSegment } from '../../../src/planner/scope/scopeEntry';
import { entryArbitrary, isNormalisedPath, oracleAlternativeMatcher, usable } from '../../support/globOracle';

const automaton = (spelling: string, ignoreCase = false) => automatonOf(parseScopeEntry(spelling, { ignoreCase }));
/** The segments of an entry that has one alternative. */
const segments = (spelling: string) => {
  const [only, ...more] = parseScopeEntry(spelling).alternatives;
  assert.ok(only !== undefined && more.length === 0, `${spelling} has one alternative`);
  return only;
};

describe('scopeAutomaton: findCommonPath (table)', () => {
  // Each row: two normalised spellings, the case mode, and the cheapest common path (undefined: none).
  const rows: Array<[left: string, right: string, ignoreCase: boolean, path: string | undefined]> = [
    ['src/*.ts', 'src/a.*', false, 'src/a.ts'],
    ['a', 'b', false, undefined],
    ['a/*/c', 'a/b/*', false, 'a/b/c'],
    ['a/**/b', 'a/b', false, 'a/b'],
    ['src/**', '**/x', false, 'src/x'],
    // Plain characters first, `x` before anything else; hidden segments only when a pattern demands one.
    ['*', '*', false, 'x'],
    ['src/*', 'src/*', false, 'src/x'],
    ['.*', '.*', false, '.x'],
    ['**/.?', '*/*', false, 'x/.x'],
    ['a?', '?b', false, 'ab'],
    ['src/[!a-w]', 'src/*', false, 'src/x'],
    ['*[!x]', '?', false, 'a'],
    // Only normalised paths: no segment is `.` or `..`, none is empty.
    ['.*', '?', false, undefined],
    ['.?', '?.', false, undefined],
    ['[b-a]', '*', false, undefined],
    // Ignore-case automata read folded paths: a witness never holds an upper-case letter there.
    ['[A-Z]', '?', false, 'A'],
    ['[A-Z]', '?', true, 'x'],
    ['SRC/*', 'src/a', true, 'src/a'],
    ['SRC/*', 'src/a', false, undefined],
    // An escaped brace is a literal character, read once: `a\{a..b}` names the one path `a{a..b}`, not `aa` or `ab`.
    ['a\\{a..b}', '**', false, 'a{a..b}'],
    ['a\\{a..b}', 'aa', false, undefined],
  ];
  for (const [left, right, ignoreCase, path] of rows) {
    it(`${left} ∩ ${right}${ignoreCase ? ' (ignore case)' : ''}: ${path ?? 'none'}`, () => {
      assert.equal(findCommonPath(automaton(left, ignoreCase), automaton(right, ignoreCase), ignoreCase), path);
      assert.equal(findCommonPath(automaton(right, ignoreCase), automaton(left, ignoreCase), ignoreCase), path, 'the search is symmetric');
    });
  }
});

describe('scopeAutomaton: checkInclusion (table)', () => {
  // Each row: the inner spelling, the outer spellings, and the counterexample (undefined: included).
  const rows: Array<[inner: string, outers: string[], ignoreCase: boolean, counterexample: string | undefined]> = [
    ['src/a.ts', ['src/*'], false, undefined],
    ['src/*', ['src/a*', 'src/[!a]*'], false, undefined],
    ['src/*', ['src/a*'], false, 'src/x'],
    ['**', [], false, 'x'],
    ['.*', ['?*'], false, undefined],
    ['src/**', ['src/*'], false, 'src/x/x'],
    ['src/[ab]', ['src/a'], false, 'src/b'],
    ['**/x', ['x', '*/x'], false, 'x/x/x'],
    ['**/x', ['x', '**/*/x'], false, undefined],
    ['SRC/A.TS', ['src/*'], true, undefined],
    ['SRC/A.TS', ['src/*'], false, 'SRC/A.TS'],
  ];
  for (const [inner, outers, ignoreCase, counterexample] of rows) {
    it(`${inner} ⊆ [${outers.join(', ')}]${ignoreCase ? ' (ignore case)' : ''}: ${counterexample === undefined ? 'yes' : `no, ${counterexample}`}`, () => {
      const result = checkInclusion(
        automaton(inner, ignoreCase),
        outers.map((outer) => automaton(outer, ignoreCase)),
        ignoreCase,
      );
      assert.deepEqual(result, counterexample === undefined ? { included: true } : { included: false, counterexample: ignoreCase ? counterexample.toLowerCase() : counterexample });
    });
  }
});

describe('scopeAutomaton: surelyDisjoint (table)', () => {
  // Each row: two single-alternative spellings, and whether the cheap check may already say "disjoint".
  const rows: Array<[left: string, right: string, disjoint: boolean]> = [
    ['a/b', 'a/b/c', true],
    ['src/a', 'lib/a', true],
    ['src/*.ts', 'src/*.md', true],
    ['src/**/x.ts', 'lib/**', true],
    ['**/a.ts', '**/b.ts', true],
    ['a*c', 'ab*d', true],
    ['src/*', 'src/a', false],
    ['a*', 'ab*', false],
    ['**', 'a/b/c', false],
    ['x/**/y', 'x/y', false],
    // Only a pre-check: these do not meet, but it takes the search to know.
    ['src/**/a*.ts', 'src/**/b*.ts', true],
    ['src/[ab]', 'src/[cd]', false],
    ['.*', '?', false],
  ];
  for (const [left, right, disjoint] of rows) {
    it(`${left} and ${right}: ${disjoint ? 'surely disjoint' : 'search'}`, () => {
      assert.equal(surelyDisjoint(segments(left), segments(right)), disjoint);
      assert.equal(surelyDisjoint(segments(right), segments(left)), disjoint);
    });
  }

  it('is sound: never "disjoint" for two alternatives that share a path (random alternatives)', function () {
    this.timeout(120_000);
    // One alternative of a random entry, taken as the engine parsed it: its text (an entry of `expansions`) is not
    // a spelling to parse again, since braces that were escaped or stayed literal would expand a second time.
    const alternative = entryArbitrary()
      .map(usable)
      .filter((entry): entry is string => entry !== undefined)
      .chain((spelling) => {
        const parsed = parseScopeEntry(spelling);
        return fc.nat(parsed.alternatives.length - 1).map((index) => ({
          text: parsed.expansions[index] as string,
          segments: parsed.alternatives[index] as readonly PatternSegment[],
          automaton: automatonOf({ ...parsed, alternatives: [parsed.alternatives[index] as readonly PatternSegment[]] }),
        }));
      });
    fc.assert(
      fc.property(alternative, alternative, (left, right) => {
        const common = findCommonPath(left.automaton, right.automaton, false);
        if (common !== undefined) {
          const shared = isNormalisedPath(common) && oracleAlternativeMatcher(left.text)(common) && oracleAlternativeMatcher(right.text)(common);
          assert.ok(shared, `${left.text} ∩ ${right.text}: ${common}`);
          assert.equal(surelyDisjoint(left.segments, right.segments), false, `${left.text} and ${right.text} share ${common}`);
        }
      }),
      { numRuns: 1000 },
    );
  });
});
