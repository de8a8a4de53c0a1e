// The Node side of the hooks' file system (src/node/hookFileSystem.ts), on real files: control files
// are read only when they are small regular files, a link that leads nowhere is an error and not an
// absence, and resolution follows links as the kernel does.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  canonicalDirectory,
  ControlFileError,
  nodeLocateFileSystem,
  nodeTargetFileSystem,
  readControlFile,
} from '../../src/node/hookFileSystem';

describe('hookFileSystem (real files)', () => {
  let dir: string;
  beforeEach(() => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-hookfs-')));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  describe('readControlFile', () => {
    it('reads a regular file, and says "nothing there" for a missing one', () => {
      writeFileSync(join(dir, 'm.json'), '{"a":1}');
      assert.equal(readControlFile(join(dir, 'm.json')), '{"a":1}');
      assert.equal(readControlFile(join(dir, 'none.json')), undefined);
      assert.equal(readControlFile(join(dir, 'no-dir/none.json')), undefined);
    });

    it('follows a link to a regular file', () => {
      writeFileSync(join(dir, 'real.json'), 'x');
      symlinkSync('real.json', join(dir, 'link.json'));
      assert.equal(readControlFile(join(dir, 'link.json')), 'x');
    });

    const refused: Array<{ name: string; make: () => string; reason: string }> = [
      { name: 'a FIFO (it would wait for a writer)', make: () => { execFileSync('mkfifo', [join(dir, 'fifo')]); return join(dir, 'fifo'); }, reason: 'not-a-file' },
      { name: 'a link to /dev/zero (it would read forever)', make: () => { symlinkSync('/dev/zero', join(dir, 'zero')); return join(dir, 'zero'); }, reason: 'not-a-file' },
      { name: 'a directory', make: () => { mkdirSync(join(dir, 'd')); return join(dir, 'd'); }, reason: 'not-a-file' },
      { name: 'a link that leads nowhere', make: () => { symlinkSync('missing.json', join(dir, 'dangling')); return join(dir, 'dangling'); }, reason: 'dangling-link' },
      { name: 'a file under a directory link that leads nowhere', make: () => { symlinkSync('missing-dir', join(dir, '.claude')); return join(dir, '.claude/wave-scope.json'); }, reason: 'dangling-link' },
      { name: 'a file over the size cap', make: () => { writeFileSync(join(dir, 'big'), Buffer.alloc(2048)); return join(dir, 'big'); }, reason: 'too-large' },
    ];
    for (const { name, make, reason } of refused) {
      it(`refuses ${name}`, () => {
        const path = make();
        const started = Date.now();
        assert.throws(() => readControlFile(path, { maxBytes: 1024 }), (error: unknown) => error instanceof ControlFileError && error.reason === reason);
        assert.ok(Date.now() - started < 5000, 'without waiting');
      });
    }

    it('gives up when the read takes longer than its budget', () => {
      writeFileSync(join(dir, 'slow'), 'x'.repeat(100));
      let clock = 0;
      const now = () => (clock += 1000);
      assert.throws(() => readControlFile(join(dir, 'slow'), { budgetMs: 500, now }), (error: unknown) => error instanceof ControlFileError && error.reason === 'too-slow');
    });

    it('is what the locate file system reads with', () => {
      execFileSync('mkfifo', [join(dir, 'fifo')]);
      assert.throws(() => nodeLocateFileSystem.readText(join(dir, 'fifo')), ControlFileError);
      assert.equal(nodeLocateFileSystem.kind(join(dir, 'fifo')), 'other');
      assert.equal(nodeLocateFileSystem.kind(dir), 'dir');
      assert.equal(nodeLocateFileSystem.kind(join(dir, 'none')), undefined);
    });
  });

  describe('nodeTargetFileSystem', () => {
    it('realpath follows links as the kernel does; a dangling link or a loop is "not there"; readlink reads links only', () => {
      mkdirSync(join(dir, 'a/b'), { recursive: true });
      symlinkSync('a/b', join(dir, 'to-b'));
      symlinkSync('nowhere', join(dir, 'dangling'));
      symlinkSync('loop2', join(dir, 'loop1'));
      symlinkSync('loop1', join(dir, 'loop2'));
      assert.equal(nodeTargetFileSystem.realpath(join(dir, 'to-b')), join(dir, 'a/b'));
      assert.equal(nodeTargetFileSystem.realpath(join(dir, 'dangling')), undefined);
      assert.equal(nodeTargetFileSystem.realpath(join(dir, 'loop1')), undefined);
      assert.equal(nodeTargetFileSystem.realpath(join(dir, 'none')), undefined);
      assert.equal(nodeTargetFileSystem.readlink(join(dir, 'dangling')), 'nowhere');
      assert.equal(nodeTargetFileSystem.readlink(join(dir, 'a')), undefined);
      // `..` after a link climbs from the link's target (Node's JS realpathSync folds it lexically first).
      assert.equal(nodeTargetFileSystem.realpath(`${dir}/to-b/..`), join(dir, 'a'));
    });

    it('canonicalDirectory resolves an existing directory and throws for a missing one', () => {
      symlinkSync(dir, join(dir, 'self'));
      assert.equal(canonicalDirectory(join(dir, 'self')), dir);
      assert.throws(() => canonicalDirectory(join(dir, 'missing')));
    });
  });
});
