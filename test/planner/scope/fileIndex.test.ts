import assert from 'node:assert/strict';
import fc from 'fast-check';
import { expand, FileIndex } from '../../../src/planner/scope/fileIndex';
import { compileScopeEntry } from '../../../src/planner/scope/scopeEntry';
import { entryArbitrary, enumeratePaths, usable } from '../../support/globOracle';

describe('FileIndex', () => {
  const index = new FileIndex(['src/a.ts', 'src/lib/b.ts', 'src-extra/c.ts', 'src/a.ts', 'README.md']);

  it('deduplicates and knows its files', () => {
    assert.equal(index.size, 4);
    assert.equal(index.has('src/a.ts'), true);
    assert.equal(index.has('src'), false);
  });

  it('tells whether a directory has files beneath it, without confusing siblings with a shared prefix', () => {
    assert.equal(index.hasFilesBeneath('src'), true);
    assert.equal(index.hasFilesBeneath('src/lib'), true);
    assert.equal(index.hasFilesBeneath('src/a.ts'), false);
    assert.equal(index.hasFilesBeneath('sr'), false);
    assert.equal(index.hasFilesBeneath('docs'), false);
  });

  it('lists the files under a prefix: the prefix itself and everything beneath', () => {
    assert.deepEqual(index.filesUnder('src'), ['src/a.ts', 'src/lib/b.ts']);
    assert.deepEqual(index.filesUnder('src/a.ts'), ['src/a.ts']);
    assert.equal(index.filesUnder('').length, 4);
  });

  it('folds case in ignore-case mode and keeps the real spelling', () => {
    const folded = new FileIndex(['Src/Main.ts', 'src/main.ts'], { ignoreCase: true });
    assert.equal(folded.size, 1);
    assert.equal(folded.spellingOf('SRC/MAIN.TS'), 'Src/Main.ts');
    assert.equal(folded.hasFilesBeneath('SRC'), true);
  });
});

describe('expand', () => {
  it('lists the files each entry names', () => {
    const files = ['README.md', 'docs/a.md', 'src/a.ts', 'src/lib/b.ts', 'src/lib/b.test.ts'];
    const matched = expand(['*.md', 'src/', 'src/**/*.test.ts', 'src/a.ts', 'nothing/'], files);
    assert.deepEqual(Object.fromEntries(matched), {
      '*.md': ['README.md'],
      'src/': ['src/a.ts', 'src/lib/b.test.ts', 'src/lib/b.ts'],
      'src/**/*.test.ts': ['src/lib/b.test.ts'],
      'src/a.ts': ['src/a.ts'],
      'nothing/': [],
    });
  });

  it('agrees with matching every file against every entry (random entries)', function () {
    this.timeout(300_000);
    const files = enumeratePaths(['a', 'b', '.'], 1, 3);
    fc.assert(
      fc.property(fc.array(entryArbitrary(), { minLength: 1, maxLength: 6 }), (raw) => {
        const entries = raw.map(usable).filter((entry): entry is string => entry !== undefined);
        const matched = expand(entries, files);
        for (const entry of entries) {
          const compiled = compileScopeEntry(entry);
          assert.deepEqual(matched.get(entry), [...files].sort().filter((file) => compiled.matches(file)), entry);
        }
      }),
      { numRuns: 200 },
    );
  });
});
