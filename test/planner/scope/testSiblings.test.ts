import assert from 'node:assert/strict';
import { expandTestSiblings } from '../../../src/planner/scope/testSiblings';

describe('expandTestSiblings', () => {
  it('adds the test siblings of plain production files for a role that writes code', () => {
    assert.deepEqual(expandTestSiblings(['src/cart/total.ts', 'README.md'], { role: 'Implementation' }), [
      'src/cart/total.ts',
      'README.md',
      'src/cart/total.test.ts',
      'src/cart/total.spec.ts',
      'src/cart/__tests__/total.ts',
      'src/cart/__tests__/total.test.ts',
      'test/**/total.test.ts',
      'tests/**/total.test.ts',
    ]);
  });

  it('spells top-level siblings without a leading slash, and handles Python', () => {
    assert.deepEqual(expandTestSiblings(['tool.py'], { role: 'fix' }), ['tool.py', 'test_tool.py', 'tests/**/test_tool.py']);
  });

  it('leaves globs, directories, test files and names with glob characters alone', () => {
    const entries = ['src/**/*.ts', 'src/lib/', 'src/a.test.ts', 'src/__tests__/b.ts', 'src/[x].ts'];
    assert.deepEqual(expandTestSiblings(entries, { role: 'implementation' }), entries);
  });

  it('adds nothing for a role no rule names', () => {
    assert.deepEqual(expandTestSiblings(['src/a.ts'], { role: 'discovery' }), ['src/a.ts']);
  });

  it('is idempotent', () => {
    const once = expandTestSiblings(['src/a.ts', 'lib/b.mjs'], { role: 'implementation' });
    assert.deepEqual(expandTestSiblings(once, { role: 'implementation' }), once);
  });

  it('takes its rules as data', () => {
    const rules = [{ roles: ['docs'], extensions: ['md'], siblings: ['{dir}/{name}.de.{ext}'] }];
    assert.deepEqual(expandTestSiblings(['docs/guide.md'], { role: 'docs', rules }), ['docs/guide.md', 'docs/guide.de.md']);
  });
});
