// expandBraces must read every text exactly as minimatch's braceExpand does (the grammar is defined by it):
// a property test over texts made of the characters that matter to brace expansion, with and without a limit
// on the number of alternatives, plus the cases minimatch treats specially.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { braceExpand } from 'minimatch';
import { expandBraces } from '../../../src/planner/scope/braceExpansion';

const braceText = fc.string({ unit: fc.constantFrom('{', '}', ',', '.', '..', '\\', '\\\\', '/', 'a', 'b', '1', '3', '-', '$', '[', ']', '\n', '*'), maxLength: 14 });

describe('expandBraces', () => {
  it('reads every text as minimatch braceExpand does', () => {
    fc.assert(
      fc.property(braceText, (text) => {
        assert.deepEqual(expandBraces(text), braceExpand(text), JSON.stringify(text));
      }),
      { numRuns: 4000 },
    );
  });

  it('stops at the same number of alternatives as minimatch when a limit is given', () => {
    fc.assert(
      fc.property(braceText, fc.integer({ min: 1, max: 4 }), (text, max) => {
        assert.deepEqual(expandBraces(text, max), braceExpand(text, { braceExpandMax: max }), `${JSON.stringify(text)} max ${max}`);
      }),
      { numRuns: 2000 },
    );
  });

  const cases: Array<[string, string[]]> = [
    ['src/{a,b}/x.ts', ['src/a/x.ts', 'src/b/x.ts']],
    ['src/{a}.ts', ['src/{a}.ts']],
    ['src/{a,b', ['src/{a,b']],
    ['{1..3}', ['1', '2', '3']],
    ['a\\\\{b,c}', ['a\\\\b', 'a\\\\c']],
    ['x{\n,}y', ['x{\n,}y']],
  ];
  for (const [text, expected] of cases) {
    it(`expands ${JSON.stringify(text)} to ${JSON.stringify(expected)}, as minimatch does`, () => {
      assert.deepEqual(expandBraces(text), expected);
      assert.deepEqual(braceExpand(text), expected);
    });
  }

  it('refuses a text longer than 64 KiB as minimatch does', () => {
    const long = `{a,b}${'x'.repeat(64 * 1024)}`;
    assert.throws(() => braceExpand(long), TypeError);
    assert.throws(() => expandBraces(long), { name: 'TypeError', message: 'pattern is too long' });
    assert.deepEqual(expandBraces(long.slice(0, 64 * 1024)).length, 2);
  });
});
