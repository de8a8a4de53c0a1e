import assert from 'node:assert/strict';
import { union } from '../../../src/planner/scope/scopeUnion';

describe('union', () => {
  it('normalises, deduplicates (src/ and src/** are one), and keeps first-seen order', () => {
    assert.deepEqual(
      union([
        { id: 'a', files: ['src/b.ts', './src//a.ts', 'lib/'] },
        { id: 'b', files: ['src/a.ts', 'lib/**', 'docs/'] },
      ]),
      ['src/b.ts', 'src/a.ts', 'lib/', 'docs/'],
    );
  });

  it('folds case when asked', () => {
    assert.deepEqual(union([{ id: 'a', files: ['SRC/a.ts', 'src/A.ts'] }], { ignoreCase: true }), ['SRC/a.ts']);
    assert.deepEqual(union([{ id: 'a', files: ['SRC/a.ts', 'src/A.ts'] }]), ['SRC/a.ts', 'src/A.ts']);
  });
});
