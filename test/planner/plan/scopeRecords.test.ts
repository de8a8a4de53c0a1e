import assert from 'node:assert/strict';
import { FileIndex } from '../../../src/planner/scope/fileIndex';
import { parseScopeRecords, promoteDirectory, ScopeInputError } from '../../../src/planner/plan/scopeRecords';
import type { ScopeInputErrorReason } from '../../../src/planner/plan/scopeRecords';

describe('parseScopeRecords', () => {
  it('normalises every entry, drops duplicates, names records without an id', () => {
    assert.deepEqual(
      parseScopeRecords([
        { id: 'api', files: ['./src/api//', 'src/api/', 'src\\shared\\types.ts'] },
        { files: ['docs/a.md'] },
      ]),
      [
        { id: 'api', files: ['src/api/', 'src/shared/types.ts'] },
        { id: '<unnamed#2>', files: ['docs/a.md'] },
      ],
    );
  });

  it('makes absolute entries inside the repository relative', () => {
    assert.deepEqual(parseScopeRecords([{ id: 'a', files: ['/repo/src/a.ts'] }], { repoRoot: '/repo' }), [{ id: 'a', files: ['src/a.ts'] }]);
  });

  it('promotes a plain entry naming a directory with known files to dir/, on evidence only', () => {
    const files = new FileIndex(['src/lib/a.ts', 'src/lib', 'docs/x.md']);
    assert.deepEqual(parseScopeRecords([{ id: 'a', files: ['docs', 'src/lib', 'new/thing'] }], { files }), [{ id: 'a', files: ['docs/', 'src/lib', 'new/thing'] }]);
    assert.equal(promoteDirectory('docs/*.md', files), 'docs/*.md');
  });

  const rejected: Array<[input: unknown, reason: ScopeInputErrorReason, message: RegExp]> = [
    [{ id: 'a' }, 'not-an-array', /expected a JSON array of \{id, files\} records/],
    [['a.ts'], 'record-not-an-object', /record 1 is not an object/],
    [[{ id: 'a', files: 'a.ts' }], 'files-not-an-array', /record 1 \("a"\) has no "files" array/],
    [[{ id: 'ok', files: [] }, { id: 'ui', files: ['src/a.ts', '../x'] }], 'escapes-root', /^record 2 \("ui"\), entry 2: scope entry "\.\.\/x" climbs out/],
    [[{ files: [''] }], 'empty', /^record 1, entry 1: scope entry "" is empty/],
    [[{ id: 'a', files: ['!src/'] }], 'negation', /record 1 \("a"\), entry 1: .*allow-lists/],
    [[{ id: 'a', files: [7] }], 'not-a-string', /entry 1: scope entry "7" is not a string/],
  ];
  for (const [input, reason, message] of rejected) {
    it(`rejects ${JSON.stringify(input)} (${reason}), naming the record and the entry`, () => {
      assert.throws(
        () => parseScopeRecords(input),
        (error: unknown) => error instanceof ScopeInputError && error.reason === reason && message.test(error.message),
      );
    });
  }
});
