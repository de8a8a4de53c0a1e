// The Node side of DeclarationFs, against real temporary directories: atomic replacement, refusal of
// symbolic links and of paths outside the confinement root, and the order in which data and
// directories are made durable (observed by watching the calls into node:fs, which still run).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { inspectWritePaths, nodeDeclarationFs, openRealDirectory, readTextIfExists, UnsafePathError } from '../../src/node/declarationFs';
import { writeWaveDeclaration } from '../../src/planner/plan/declarationStore';
import { observeFs } from '../support/fsCalls';

function unsafeReason(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof UnsafePathError) return error.reason;
    throw error;
  }
  return 'no error';
}

describe('node/declarationFs (real directories)', () => {
  let root: string;
  beforeEach(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-declfs-')));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  describe('readTextIfExists', () => {
    it('reads a file, and is undefined for a missing file or one below a file', () => {
      writeFileSync(join(root, 'a.json'), '[1]');
      assert.equal(readTextIfExists(join(root, 'a.json')), '[1]');
      assert.equal(readTextIfExists(join(root, 'missing.json')), undefined);
      assert.equal(readTextIfExists(join(root, 'a.json', 'below')), undefined);
    });
    it('throws for anything else (a directory where a file should be)', () => {
      mkdirSync(join(root, 'dir'));
      assert.throws(() => readTextIfExists(join(root, 'dir')), /is not a regular file/);
    });
    it('throws at once for a FIFO, which a plain read would wait on until someone wrote it', () => {
      const fifo = join(root, 'wave-scope.json');
      execFileSync('mkfifo', [fifo]);
      assert.throws(() => readTextIfExists(fifo), /is not a regular file/);
    });
  });

  describe('writeAtomic', () => {
    it('creates the parents and the file, and leaves no temporary file behind', () => {
      const declarations = nodeDeclarationFs(root);
      declarations.writeAtomic(join(root, 'a', 'b', 'c.json'), '["x"]\n');
      assert.equal(readFileSync(join(root, 'a', 'b', 'c.json'), 'utf8'), '["x"]\n');
      assert.deepEqual(readdirSync(join(root, 'a', 'b')), ['c.json']);
    });

    it('replaces a file by renaming a new one over it (a reader sees the old or the new file, never a mix)', () => {
      const target = join(root, 'c.json');
      writeFileSync(target, 'old');
      const before = statSync(target).ino;
      const calls = observeFs(() => nodeDeclarationFs(root).writeAtomic(target, 'new'));
      assert.equal(readFileSync(target, 'utf8'), 'new');
      assert.notEqual(statSync(target).ino, before, 'the file was rewritten in place, not replaced');
      // The data is durable before the rename publishes it.
      const rename = calls.indexOf(`rename ${target}`);
      const fsync = calls.findIndex((call) => call.startsWith(`fsync ${target}.`));
      assert.ok(fsync !== -1 && rename !== -1 && fsync < rename, calls.join('\n'));
    });

    it('refuses to replace a symbolic link, and leaves its target alone', () => {
      const victim = join(root, 'victim.txt');
      writeFileSync(victim, 'keep me');
      symlinkSync(victim, join(root, 'link.json'));
      assert.equal(unsafeReason(() => nodeDeclarationFs(root).writeAtomic(join(root, 'link.json'), 'x')), 'symlink');
      assert.equal(readFileSync(victim, 'utf8'), 'keep me');
    });

    it('refuses to write through a directory that is a symbolic link, even a dangling one', () => {
      const outside = mkdtempSync(join(tmpdir(), 'wave-scope-declfs-outside-'));
      try {
        symlinkSync(outside, join(root, 'filescopes'));
        symlinkSync(join(root, 'nowhere'), join(root, 'dangling'));
        const declarations = nodeDeclarationFs(root);
        assert.equal(unsafeReason(() => declarations.writeAtomic(join(root, 'filescopes', 'wave-1', 'a.json'), 'x')), 'symlink');
        assert.equal(unsafeReason(() => declarations.writeAtomic(join(root, 'dangling', 'a.json'), 'x')), 'symlink');
        assert.deepEqual(readdirSync(outside), []);
        assert.equal(existsSync(join(root, 'nowhere')), false);
      } finally {
        rmSync(outside, { recursive: true, force: true });
      }
    });

    it('trusts the confinement root itself when it is reached through a link', () => {
      const real = join(root, 'real');
      mkdirSync(real);
      symlinkSync(real, join(root, 'linked'));
      nodeDeclarationFs(join(root, 'linked')).writeAtomic(join(root, 'linked', 'a.json'), 'x');
      assert.equal(readFileSync(join(real, 'a.json'), 'utf8'), 'x');
    });

    const outsideRoot: Array<[string, (base: string) => string]> = [
      ['a sibling of the root', (base) => join(dirname(base), 'elsewhere.json')],
      ['a path that climbs out with ..', (base) => `${base}/sub/../../escape.json`],
      ['a sibling whose name extends the root\'s', (base) => `${base}-evil/a.json`],
      ['the root itself', (base) => base],
    ];
    for (const [name, target] of outsideRoot) {
      it(`refuses ${name}`, () => {
        const confined = join(root, 'state');
        assert.equal(unsafeReason(() => nodeDeclarationFs(confined).writeAtomic(target(confined), 'x')), 'outside-root');
        assert.equal(unsafeReason(() => nodeDeclarationFs(confined).remove(target(confined))), 'outside-root');
      });
    }

    it('refuses a directory where the file should be, and a file where a directory should be', () => {
      mkdirSync(join(root, 'dir.json'));
      writeFileSync(join(root, 'file'), 'x');
      const declarations = nodeDeclarationFs(root);
      assert.equal(unsafeReason(() => declarations.writeAtomic(join(root, 'dir.json'), 'x')), 'not-a-file');
      assert.equal(unsafeReason(() => declarations.writeAtomic(join(root, 'file', 'a.json'), 'x')), 'not-a-directory');
    });
  });

  describe('remove and listDir', () => {
    it('removes a file and says whether there was one', () => {
      writeFileSync(join(root, 'a.json'), 'x');
      const declarations = nodeDeclarationFs(root);
      assert.equal(declarations.remove(join(root, 'a.json')), true);
      assert.equal(declarations.remove(join(root, 'a.json')), false);
      assert.equal(declarations.remove(join(root, 'missing', 'a.json')), false);
      assert.equal(existsSync(join(root, 'missing')), false, 'a removal creates no directory');
    });

    it('refuses to remove a symbolic link or anything through one', () => {
      const victim = join(root, 'victim.txt');
      writeFileSync(victim, 'keep me');
      symlinkSync(victim, join(root, 'link.json'));
      mkdirSync(join(root, 'real'));
      writeFileSync(join(root, 'real', 'a.json'), 'x');
      symlinkSync(join(root, 'real'), join(root, 'via'));
      const declarations = nodeDeclarationFs(root);
      assert.equal(unsafeReason(() => declarations.remove(join(root, 'link.json'))), 'symlink');
      assert.equal(unsafeReason(() => declarations.remove(join(root, 'via', 'a.json'))), 'symlink');
      assert.equal(readFileSync(victim, 'utf8'), 'keep me');
      assert.ok(existsSync(join(root, 'real', 'a.json')));
    });

    it('lists a directory, and is undefined for a missing one or a file', () => {
      writeFileSync(join(root, 'a.json'), 'x');
      const declarations = nodeDeclarationFs(root);
      assert.deepEqual(declarations.listDir(root), ['a.json']);
      assert.equal(declarations.listDir(join(root, 'missing')), undefined);
      assert.equal(declarations.listDir(join(root, 'a.json')), undefined);
    });
  });

  describe('inspectWritePaths', () => {
    it('finds what a write or a removal would refuse, on the way or at the path, and a hard-linked file, without writing; missing entries are no problem', () => {
      const stateDir = join(root, '.claude');
      mkdirSync(join(stateDir, 'filescopes', 'wave-1'), { recursive: true });
      writeFileSync(join(stateDir, 'wave-scope.json'), '{}');
      writeFileSync(join(stateDir, 'filescopes', 'wave-1', 'alice.json'), '[]');
      mkdirSync(join(root, 'elsewhere'));
      const paths = ['wave-scope.json', 'filescopes/wave-1.scopes.json', 'filescopes/wave-1/alice.json', 'filescopes/wave-1/bob.json', 'filescopes/wave-2/carol.json'].map((path) => join(stateDir, path));
      const found = () => {
        const { unsafe, shared } = inspectWritePaths(root, paths);
        return unsafe === undefined ? (shared ? 'shared' : 'none') : `${unsafe.reason} ${unsafe.path.slice(root.length + 1)}`;
      };
      assert.equal(found(), 'none');
      const cases: Array<[string, () => void, () => void, string]> = [
        ['a per-agent file linked', () => symlinkSync(join(root, 'elsewhere', 'x'), join(stateDir, 'filescopes', 'wave-1', 'bob.json')), () => rmSync(join(stateDir, 'filescopes', 'wave-1', 'bob.json')), 'symlink .claude/filescopes/wave-1/bob.json'],
        ['a directory where a file goes', () => mkdirSync(join(stateDir, 'filescopes', 'wave-1.scopes.json')), () => rmSync(join(stateDir, 'filescopes', 'wave-1.scopes.json'), { recursive: true }), 'not-a-file .claude/filescopes/wave-1.scopes.json'],
        ['a missing wave directory linked', () => symlinkSync(join(root, 'elsewhere'), join(stateDir, 'filescopes', 'wave-2')), () => rmSync(join(stateDir, 'filescopes', 'wave-2')), 'symlink .claude/filescopes/wave-2'],
        ['a file where a directory goes', () => writeFileSync(join(stateDir, 'filescopes', 'wave-2'), 'x'), () => rmSync(join(stateDir, 'filescopes', 'wave-2')), 'not-a-directory .claude/filescopes/wave-2'],
        ['a file hard-linked elsewhere', () => linkSync(join(stateDir, 'wave-scope.json'), join(root, 'elsewhere', 'manifest')), () => rmSync(join(root, 'elsewhere', 'manifest')), 'shared'],
      ];
      for (const [name, plant, remove, expected] of cases) {
        plant();
        const before = readdirSync(root, { recursive: true }).sort();
        assert.equal(found(), expected, name);
        assert.deepEqual(readdirSync(root, { recursive: true }).sort(), before, `${name}: nothing was made or removed`);
        remove();
      }
      rmSync(stateDir, { recursive: true });
      symlinkSync(join(root, 'elsewhere'), stateDir);
      assert.equal(found(), 'symlink .claude', 'the state directory itself, below the root');
      assert.deepEqual(inspectWritePaths(stateDir, paths), { shared: false }, 'the root is the caller\'s choice, and may be reached through a link');
    });
  });

  describe('openRealDirectory', () => {
    // Linux names a descriptor by a path (/proc/self/fd); elsewhere there is nothing to hold, and callers check paths.
    const holds = process.platform === 'linux';

    it('holds the directory itself: a file renamed through it lands there even after its path names a link elsewhere', () => {
      mkdirSync(join(root, '.claude', 'filescopes', 'wave-1'), { recursive: true });
      mkdirSync(join(root, 'elsewhere'));
      const held = openRealDirectory(root, join(root, '.claude', 'filescopes', 'wave-1'));
      assert.equal(held !== undefined, holds);
      if (held === undefined) return;
      try {
        renameSync(join(root, '.claude', 'filescopes', 'wave-1'), join(root, '.claude', 'filescopes', 'moved'));
        symlinkSync(join(root, 'elsewhere'), join(root, '.claude', 'filescopes', 'wave-1'));
        writeFileSync(join(root, 'a.json.tmp'), 'x');
        renameSync(join(root, 'a.json.tmp'), join(held.path, 'a.json'));
      } finally {
        held.close();
      }
      assert.deepEqual(readdirSync(join(root, 'elsewhere')), []);
      assert.equal(readFileSync(join(root, '.claude', 'filescopes', 'moved', 'a.json'), 'utf8'), 'x');
    });

    it('holds the root, and the directory named by a path with a trailing separator or dot segments', () => {
      mkdirSync(join(root, 'a', 'b'), { recursive: true });
      for (const spelling of [root, `${join(root, 'a', 'b')}/`, join(root, 'a', '.', 'x', '..', 'b')]) {
        const held = openRealDirectory(root, spelling);
        assert.equal(held !== undefined, holds, spelling);
        if (held === undefined) continue;
        try {
          assert.equal(statSync(held.path).ino, statSync(spelling).ino, spelling);
        } finally {
          held.close();
        }
      }
    });

    it('refuses a link or a file on the way as ensureRealParents does, a directory outside the root too, and is undefined for a missing one', () => {
      mkdirSync(join(root, 'real'));
      symlinkSync(join(root, 'real'), join(root, 'link'));
      writeFileSync(join(root, 'file'), 'x');
      if (holds) {
        assert.equal(unsafeReason(() => openRealDirectory(root, join(root, 'link', 'inside'))), 'symlink');
        assert.equal(unsafeReason(() => openRealDirectory(root, join(root, 'link'))), 'symlink');
        assert.equal(unsafeReason(() => openRealDirectory(root, join(root, 'file', 'inside'))), 'not-a-directory');
        assert.throws(() => openRealDirectory(root, join(root, 'link')), /refusing to write through the symbolic link .*link$/);
      }
      assert.equal(unsafeReason(() => openRealDirectory(join(root, 'real'), root)), holds ? 'outside-root' : 'no error');
      assert.equal(openRealDirectory(root, join(root, 'missing', 'deeper')), undefined);
    });
  });

  describe('durability order', () => {
    it('fsyncs the directories it changed only when asked (sync), each once', () => {
      const declarations = nodeDeclarationFs(root);
      const writes = observeFs(() => {
        declarations.writeAtomic(join(root, 'd1', 'a.json'), 'x');
        declarations.writeAtomic(join(root, 'd1', 'b.json'), 'x');
        declarations.writeAtomic(join(root, 'd2', 'c.json'), 'x');
      });
      assert.deepEqual(writes.filter((call) => call === `fsync ${join(root, 'd1')}` || call === `fsync ${join(root, 'd2')}`), []);
      const synced = observeFs(() => declarations.sync?.());
      assert.deepEqual(synced.sort(), [`fsync ${join(root, 'd1')}`, `fsync ${join(root, 'd2')}`]);
      assert.deepEqual(observeFs(() => declarations.sync?.()), [], 'nothing left to sync');
    });

    it('makes every per-agent file and stale removal durable before the aggregate is published', () => {
      const stateDir = join(root, '.claude');
      const declarations = nodeDeclarationFs(root);
      writeWaveDeclaration(stateDir, 1, [{ id: 'alice', files: ['a'] }, { id: 'bob', files: ['b'] }], declarations);
      const waveDir = join(stateDir, 'filescopes', 'wave-1');
      const sidecar = join(stateDir, 'filescopes', 'wave-1.scopes.json');
      const calls = observeFs(() => writeWaveDeclaration(stateDir, 1, [{ id: 'alice', files: ['a2'] }], declarations));
      const at = (call: string) => {
        const index = calls.indexOf(call);
        assert.notEqual(index, -1, `${call} missing from\n${calls.join('\n')}`);
        return index;
      };
      // The old aggregate goes first, durably; then the agents' files; then the directory fsync; then the new aggregate.
      assert.ok(at(`unlink ${sidecar}`) < at(`fsync ${join(stateDir, 'filescopes')}`));
      assert.ok(at(`rename ${join(waveDir, 'alice.json')}`) < at(`fsync ${waveDir}`));
      assert.ok(at(`unlink ${join(waveDir, 'bob.json')}`) < at(`fsync ${waveDir}`));
      assert.ok(at(`fsync ${waveDir}`) < at(`rename ${sidecar}`));
      assert.ok(calls.lastIndexOf(`fsync ${join(stateDir, 'filescopes')}`) > at(`rename ${sidecar}`), 'the aggregate\'s rename is made durable too');
    });
  });
});
