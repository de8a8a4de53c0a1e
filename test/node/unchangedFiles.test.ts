import assert from 'node:assert/strict';
import { linkSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodeDeclarationFs, UnsafePathError } from '../../src/node/declarationFs';
import { skippingUnchangedFiles } from '../../src/node/unchangedFiles';

describe('writes that leave identical files alone (src/node/unchangedFiles.ts)', () => {
  let root: string;
  beforeEach(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-unchanged-')));
    mkdirSync(join(root, 'state', 'wave-1'), { recursive: true });
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const open = () => skippingUnchangedFiles(nodeDeclarationFs(join(root, 'state')), join(root, 'state'));

  const cases: Array<{ title: string; prepare: (path: string) => void; text: string; skipped: boolean }> = [
    { title: 'an identical plain file is left alone', prepare: (path) => writeFileSync(path, '["a/"]\n'), text: '["a/"]\n', skipped: true },
    { title: 'a file whose text differs is rewritten', prepare: (path) => writeFileSync(path, '["a/"]\n'), text: '["b/"]\n', skipped: false },
    { title: 'a missing file is written', prepare: () => undefined, text: '["a/"]\n', skipped: false },
    { title: 'a file differing only in a trailing newline is rewritten', prepare: (path) => writeFileSync(path, '["a/"]'), text: '["a/"]\n', skipped: false },
    {
      title: 'an identical file hard-linked elsewhere is rewritten (replacing the link)',
      prepare: (path) => {
        writeFileSync(join(root, 'outside.json'), '["a/"]\n');
        linkSync(join(root, 'outside.json'), path);
      },
      text: '["a/"]\n',
      skipped: false,
    },
  ];
  for (const { title, prepare, text, skipped } of cases) {
    it(title, () => {
      const path = join(root, 'state', 'wave-1', 'alice.json');
      prepare(path);
      const before = statSync(path, { throwIfNoEntry: false })?.ino;
      const fs = open();
      fs.writeAtomic(path, text);
      fs.sync?.();
      assert.equal(readFileSync(path, 'utf8'), text);
      assert.deepEqual(fs.skipped, skipped ? [path] : []);
      if (before !== undefined) assert.equal(statSync(path).ino === before, skipped, skipped ? 'the same file' : 'a new file');
      assert.equal(statSync(path).nlink, 1);
    });
  }

  it('an identical file reached through a symbolic link is not trusted: the write is refused as before', () => {
    mkdirSync(join(root, 'real'));
    writeFileSync(join(root, 'real', 'alice.json'), '["a/"]\n');
    symlinkSync(join(root, 'real'), join(root, 'state', 'linked'));
    const fs = open();
    assert.throws(() => fs.writeAtomic(join(root, 'state', 'linked', 'alice.json'), '["a/"]\n'), UnsafePathError);
    assert.deepEqual(fs.skipped, []);
    symlinkSync(join(root, 'real', 'alice.json'), join(root, 'state', 'wave-1', 'bob.json'));
    assert.throws(() => fs.writeAtomic(join(root, 'state', 'wave-1', 'bob.json'), '["a/"]\n'), UnsafePathError);
  });
});
