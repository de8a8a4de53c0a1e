// The one atomic writer (src/node/atomicFile.ts), on real files: the text lands whole with exactly the mode
// asked for, a link at the target is replaced and never written through, a failed write leaves no temporary
// file, and the data and the directory are fsynced in the order a power cut needs (observed by watching the
// calls into node:fs, which still run), unless the caller says it makes them durable itself; temporary files
// made ahead are filled instead of created, unless they changed since.
import assert from 'node:assert/strict';
// The module object itself (not a namespace copy), so the spy below sees every call the writer makes.
import fs from 'node:fs';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { createTemporaryFile, fsyncQuietly, parseTemporaryFileName, TemporaryFileReserve, writeFileAtomicSync } from '../../src/node/atomicFile';
import { observeFs as observeAllFs } from '../support/fsCalls';

/** The calls `run` made, a temporary file shown as such. */
const observeFs = (run: () => void) => observeAllFs(run, (path) => (path.endsWith('.tmp') ? 'temporary file' : path));

describe('node/atomicFile (real files)', () => {
  let dir: string;
  beforeEach(() => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-atomic-')));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  describe('writeFileAtomicSync', () => {
    it('writes the text with exactly the mode asked for, and leaves no temporary file behind', () => {
      const path = join(dir, 'settings.json');
      const umask = process.umask(0o077);
      try {
        writeFileAtomicSync(path, 'one');
      } finally {
        process.umask(umask);
      }
      assert.equal(readFileSync(path, 'utf8'), 'one');
      assert.equal(statSync(path).mode & 0o777, 0o644, 'the default mode, not masked by the umask');
      writeFileAtomicSync(path, 'twø', { mode: 0o600 });
      assert.equal(readFileSync(path, 'utf8'), 'twø');
      assert.equal(statSync(path).mode & 0o777, 0o600);
      assert.deepEqual(readdirSync(dir), ['settings.json']);
    });

    it('changes the mode only when the umask took something away from it', () => {
      const chmods: number[] = [];
      const realFchmod = fs.fchmodSync;
      (fs as { fchmodSync: typeof fs.fchmodSync }).fchmodSync = (descriptor, mode) => {
        chmods.push(Number(mode));
        realFchmod(descriptor, mode);
      };
      const umask = process.umask(0o022);
      try {
        writeFileAtomicSync(join(dir, 'shared.json'), 'one');
        writeFileAtomicSync(join(dir, 'private.json'), 'two', { mode: 0o600 });
        assert.deepEqual(chmods, [], 'umask 022 leaves 0644 and 0600 as they are: no chmod');
        process.umask(0o077);
        writeFileAtomicSync(join(dir, 'masked.json'), 'three');
        assert.deepEqual(chmods, [0o644], 'umask 077 takes the group and other bits off 0644: put back');
      } finally {
        process.umask(umask);
        (fs as { fchmodSync: typeof fs.fchmodSync }).fchmodSync = realFchmod;
      }
      assert.equal(statSync(join(dir, 'shared.json')).mode & 0o777, 0o644);
      assert.equal(statSync(join(dir, 'private.json')).mode & 0o777, 0o600);
      assert.equal(statSync(join(dir, 'masked.json')).mode & 0o777, 0o644);
    });

    it('replaces the file by renaming a new one over it, so a reader never sees a mix', () => {
      const path = join(dir, 'a.json');
      writeFileSync(path, 'old');
      const before = statSync(path).ino;
      const kept = fs.openSync(path, 'r');
      try {
        writeFileAtomicSync(path, 'new');
        // The old file, still open, is whole and unchanged: the new text went into another file.
        assert.equal(fs.readFileSync(kept, 'utf8'), 'old');
      } finally {
        fs.closeSync(kept);
      }
      assert.equal(readFileSync(path, 'utf8'), 'new');
      assert.notEqual(statSync(path).ino, before);
    });

    it('replaces a link at the path, never the file it points to', () => {
      writeFileSync(join(dir, 'target'), 'untouched');
      symlinkSync('target', join(dir, 'link'));
      writeFileAtomicSync(join(dir, 'link'), 'new');
      assert.equal(readFileSync(join(dir, 'target'), 'utf8'), 'untouched');
      assert.equal(lstatSync(join(dir, 'link')).isSymbolicLink(), false);
      assert.equal(readFileSync(join(dir, 'link'), 'utf8'), 'new');
    });

    it('throws when the rename fails, and leaves no temporary file behind', () => {
      mkdirSync(join(dir, 'taken'));
      writeFileSync(join(dir, 'taken', 'inside'), 'x');
      assert.throws(() => writeFileAtomicSync(join(dir, 'taken'), 'new'), /EISDIR|ENOTEMPTY|EEXIST/);
      assert.deepEqual(readdirSync(dir), ['taken']);
    });

    it('fsyncs the data before the rename and the directory after it', () => {
      const path = join(dir, 'a.json');
      assert.deepEqual(observeFs(() => writeFileAtomicSync(path, 'x')), ['fsync temporary file', `rename ${path}`, `fsync ${dir}`]);
    });

    it('leaves out the directory fsync, or both, when the caller asks', () => {
      const path = join(dir, 'a.json');
      assert.deepEqual(observeFs(() => writeFileAtomicSync(path, 'x', { syncDirectory: false })), ['fsync temporary file', `rename ${path}`]);
      assert.deepEqual(observeFs(() => writeFileAtomicSync(path, 'y', { fsync: false, syncDirectory: false })), [`rename ${path}`]);
      assert.equal(readFileSync(path, 'utf8'), 'y');
    });
  });

  describe('TemporaryFileReserve', () => {
    const temporaries = () => readdirSync(dir).filter((name) => name.endsWith('.tmp'));

    it('makes empty temporary files beside their target, which writes fill and rename instead of creating one', () => {
      const path = join(dir, 'state.json');
      const reserve = new TemporaryFileReserve();
      reserve.reserve(path, 2);
      const made = temporaries();
      assert.equal(made.length, 2);
      for (const name of made) assert.equal(statSync(join(dir, name)).size, 0);
      const reservedFiles = made.map((name) => statSync(join(dir, name)).ino);
      writeFileAtomicSync(path, 'one', { fsync: false, syncDirectory: false, reserve });
      assert.equal(readFileSync(path, 'utf8'), 'one');
      assert.ok(reservedFiles.includes(statSync(path).ino), 'the file in place is one the reserve made');
      assert.equal(temporaries().length, 1, 'one taken, one left');
      writeFileAtomicSync(path, 'two', { reserve });
      writeFileAtomicSync(path, 'three', { reserve });
      assert.equal(readFileSync(path, 'utf8'), 'three', 'a write with none left creates its own');
      assert.deepEqual(temporaries(), []);
      assert.equal(statSync(path).mode & 0o777, 0o644);
    });

    it('fills only a file made with the mode asked for', () => {
      const path = join(dir, 'private.json');
      const reserve = new TemporaryFileReserve();
      reserve.reserve(path, 1, 0o600);
      writeFileAtomicSync(path, 'shared', { reserve });
      assert.equal(statSync(path).mode & 0o777, 0o644);
      assert.equal(temporaries().length, 1, 'the 0600 one is still there');
      writeFileAtomicSync(path, 'private', { reserve, mode: 0o600 });
      assert.equal(statSync(path).mode & 0o777, 0o600);
      assert.deepEqual(temporaries(), []);
    });

    it('never fills a reserved file that changed: one written to, replaced, or linked elsewhere is left for a new one', () => {
      const path = join(dir, 'a.json');
      for (const tamper of ['write', 'replace', 'link'] as const) {
        const reserve = new TemporaryFileReserve();
        reserve.reserve(path);
        const [name] = temporaries();
        const reserved = join(dir, name as string);
        if (tamper === 'write') writeFileSync(reserved, 'planted');
        if (tamper === 'replace') {
          rmSync(reserved);
          writeFileSync(reserved, '');
        }
        if (tamper === 'link') fs.linkSync(reserved, join(dir, 'elsewhere'));
        writeFileAtomicSync(path, tamper, { reserve });
        assert.equal(readFileSync(path, 'utf8'), tamper);
        if (tamper === 'link') {
          assert.equal(readFileSync(join(dir, 'elsewhere'), 'utf8'), '', `${tamper}: the other name still holds the empty file`);
          rmSync(join(dir, 'elsewhere'));
        }
        // A file put in its place is not ours to remove; one of ours that changed is removed.
        assert.deepEqual(temporaries(), tamper === 'replace' ? [name] : [], tamper);
        rmSync(reserved, { force: true });
        reserve.discard();
      }
    });

    it('discard closes and removes the files no write took; nothing is made where the directory is missing', () => {
      const reserve = new TemporaryFileReserve();
      reserve.reserve(join(dir, 'a.json'), 3);
      reserve.reserve(join(dir, 'missing', 'b.json'), 2);
      assert.equal(temporaries().length, 3);
      reserve.discard();
      assert.deepEqual(readdirSync(dir), []);
      writeFileAtomicSync(join(dir, 'a.json'), 'after', { reserve });
      assert.deepEqual(readdirSync(dir), ['a.json']);
    });
  });

  describe('parseTemporaryFileName', () => {
    it('reads back the target and the pid from every name createTemporaryFile gives, whatever the random digits', () => {
      const random = Math.random;
      try {
        // 0.5 and 0 have base-36 forms shorter than six digits: the name keeps its shape all the same.
        for (const draw of [() => 0.5, () => 0, random]) {
          Math.random = draw;
          const made = createTemporaryFile(join(dir, 'a0.json'), new Uint8Array(0));
          fs.closeSync(made.descriptor);
          assert.deepEqual(parseTemporaryFileName(basename(made.path)), { target: 'a0.json', pid: process.pid }, basename(made.path));
          rmSync(made.path);
        }
      } finally {
        Math.random = random;
      }
    });

    it('takes no other name for one', () => {
      const stamp = `${Date.now().toString(36)}a1b2c3`;
      const cases: Array<[string, { target: string; pid: number } | undefined]> = [
        [`wave-2.scopes.json.4242.${stamp}.tmp`, { target: 'wave-2.scopes.json', pid: 4242 }],
        [`staged.7.${stamp}.tmp`, { target: 'staged', pid: 7 }],
        [`a0.json.4242.${stamp}9.tmp`, { target: 'a0.json', pid: 4242 }],
        ['a0.json.tmp', undefined],
        ['notes.json.123.abc.tmp', undefined],
        [`a0.json.0123.${stamp}.tmp`, undefined],
        [`a0.json.4242.${stamp.toUpperCase()}.tmp`, undefined],
        [`a0.json.4242.${stamp}.tmp.bak`, undefined],
        [`a0.json.4242.${stamp}99.tmp`, undefined],
        [`a0.json..${stamp}.tmp`, undefined],
        [`.4242.${stamp}.tmp`, undefined],
        [`a0.json.12345678901.${stamp}.tmp`, undefined],
      ];
      for (const [name, expected] of cases) assert.deepEqual(parseTemporaryFileName(name), expected, name);
    });
  });

  describe('fsyncQuietly', () => {
    it('fsyncs a file and a directory, and says false for a path that is not there', () => {
      writeFileSync(join(dir, 'a'), 'x');
      const calls = observeFs(() => {
        assert.equal(fsyncQuietly(join(dir, 'a')), true);
        assert.equal(fsyncQuietly(dir), true);
        assert.equal(fsyncQuietly(join(dir, 'missing')), false);
      });
      assert.deepEqual(calls, [`fsync ${join(dir, 'a')}`, `fsync ${dir}`]);
    });
  });
});
