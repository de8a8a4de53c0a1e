import assert from 'node:assert/strict';
import fc from 'fast-check';
import { LiteralPrefixIndex, LiteralPrefixSet, spelledLiteralPrefix } from '../../../src/planner/scope/literalPrefixSet';
import { prefixesCompatible } from '../../../src/planner/scope/scopeAlgebra';

function setOf(...members: string[][]): LiteralPrefixSet {
  const set = new LiteralPrefixSet();
  for (const member of members) set.add(member);
  return set;
}

describe('LiteralPrefixSet: which literal prefixes can meet', () => {
  const cases: Array<{ name: string; members: string[][]; asked: string[]; meets: boolean }> = [
    { name: 'an empty set meets nothing', members: [], asked: ['src'], meets: false },
    { name: '... not even the empty prefix', members: [], asked: [], meets: false },
    { name: 'the empty prefix meets any member', members: [['src', 'a']], asked: [], meets: true },
    { name: 'an empty member meets anything', members: [[]], asked: ['docs', 'x.md'], meets: true },
    { name: 'equal prefixes meet', members: [['src', 'a']], asked: ['src', 'a'], meets: true },
    { name: 'a member that is a prefix of the one asked about', members: [['src']], asked: ['src', 'a', 'b.ts'], meets: true },
    { name: 'a member the one asked about is a prefix of', members: [['src', 'a', 'b.ts']], asked: ['src'], meets: true },
    { name: 'a member below an inner node only', members: [['src', 'a', 'b.ts']], asked: ['src', 'a'], meets: true },
    { name: 'different first segments', members: [['src', 'a']], asked: ['lib', 'a'], meets: false },
    { name: 'they part below a shared directory', members: [['src', 'a'], ['src', 'b', 'c']], asked: ['src', 'c'], meets: false },
    { name: 'segments are compared whole, not as strings', members: [['src', 'ab']], asked: ['src', 'a'], meets: false },
    { name: 'segments are compared as spelled (the caller folds case)', members: [['Src']], asked: ['src'], meets: false },
  ];
  for (const row of cases) {
    it(row.name, () => {
      assert.equal(setOf(...row.members).meets(row.asked), row.meets);
    });
  }

  it('answers as asking every member with prefixesCompatible would (fast-check)', () => {
    const segment = fc.constantFrom('src', 'lib', 'a', 'b', 'a.ts', 'A', '');
    const prefix = fc.array(segment, { maxLength: 4 });
    fc.assert(
      fc.property(fc.array(prefix, { maxLength: 6 }), prefix, (members, asked) => {
        assert.equal(setOf(...members).meets(asked), members.some((member) => prefixesCompatible(member, asked)));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('LiteralPrefixIndex: the values filed under prefixes that agree with one', () => {
  it('answers, in the order filed, exactly the values whose prefix prefixesCompatible accepts (fast-check)', () => {
    const segment = fc.constantFrom('src', 'lib', 'a', 'b', 'a.ts', 'A', '');
    const prefix = fc.array(segment, { maxLength: 4 });
    fc.assert(
      fc.property(fc.array(prefix, { maxLength: 8 }), prefix, (members, asked) => {
        const index = new LiteralPrefixIndex<number>();
        members.forEach((member, position) => index.add(member, position));
        const expected = members.flatMap((member, position) => (prefixesCompatible(member, asked) ? [position] : []));
        assert.deepEqual(index.agreeingWith(asked), expected);
        assert.equal(index.meets(asked), expected.length > 0);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('spelledLiteralPrefix: the leading segments as the engine compares them', () => {
  const cases: Array<{ entry: string; ignoreCase?: boolean; prefix: string[] }> = [
    { entry: 'src/a.ts', prefix: ['src', 'a.ts'] },
    { entry: 'src/lib/', prefix: ['src', 'lib'] },
    { entry: 'src/*.ts', prefix: ['src'] },
    { entry: 'src/**/x.ts', prefix: ['src'] },
    { entry: 'src/{a,b}/x.ts', prefix: ['src'] },
    { entry: 'src/[ab]/x.ts', prefix: ['src'] },
    { entry: 'src/a]/x.ts', prefix: ['src'] },
    { entry: '**/x.ts', prefix: [] },
    { entry: 'cafe\u0301/a.ts', prefix: ['caf\u00e9', 'a.ts'] },
    { entry: 'Src/A.ts', prefix: ['Src', 'A.ts'] },
    { entry: 'Src/A.ts', ignoreCase: true, prefix: ['src', 'a.ts'] },
    { entry: 'Src/\u0391\u03a3/a.ts', ignoreCase: true, prefix: ['src'] },
    { entry: '\u212a/a.ts', ignoreCase: true, prefix: ['k', 'a.ts'] },
    { entry: 'a/../b/x.ts', prefix: [] },
  ];
  for (const row of cases) {
    it(`${JSON.stringify(row.entry)}${row.ignoreCase === true ? ', case ignored' : ''}: ${JSON.stringify(row.prefix)}`, () => {
      assert.deepEqual(spelledLiteralPrefix(row.entry, row.ignoreCase ?? false), row.prefix);
    });
  }
});
