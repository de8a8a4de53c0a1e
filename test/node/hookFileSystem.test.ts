// The Node side of the hooks' file system (src/node/hookFileSystem.ts), on real files: control files
// are read only when they are small regular files, a link that leads nowhere is an error and not an
// absence, Wave Scope's own files only as its writers leave them (one link, real directories from the
// root), and resolution follows links as the kernel does.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  canonicalDirectory,
  ControlFileError,
  nodeLocateFileSystem,
  nodeTargetFileSystem,
  readControlFile,
  openThroughRealDirectories,
  readOwnControlFile,
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

    it('refuses a file with a second name only when asked to (git\'s files inside the checkout)', () => {
      writeFileSync(join(dir, 'config'), '[core]\n');
      linkSync(join(dir, 'config'), join(dir, 'other-name'));
      assert.equal(readControlFile(join(dir, 'config')), '[core]\n');
      assert.throws(() => readControlFile(join(dir, 'config'), { singleLink: true }), (error: unknown) => error instanceof ControlFileError && error.reason === 'hard-linked' && /has 2 links/.test(error.message));
      assert.throws(() => nodeLocateFileSystem.readText(join(dir, 'config'), { singleLink: true }), ControlFileError);
      symlinkSync('config', join(dir, 'linked-config'));
      assert.throws(() => readControlFile(join(dir, 'linked-config'), { singleLink: true }), (error: unknown) => error instanceof ControlFileError && error.reason === 'hard-linked', 'the file a link leads to is judged');
    });

    it('is what the locate file system reads with', () => {
      execFileSync('mkfifo', [join(dir, 'fifo')]);
      assert.throws(() => nodeLocateFileSystem.readText(join(dir, 'fifo')), ControlFileError);
      assert.equal(nodeLocateFileSystem.kind(join(dir, 'fifo')), 'other');
      assert.equal(nodeLocateFileSystem.kind(dir), 'dir');
      assert.equal(nodeLocateFileSystem.kind(join(dir, 'none')), undefined);
    });
  });

  describe('readOwnControlFile (a state directory\'s files, the ledger)', () => {
    let root: string;
    const manifest = () => join(root, '.claude/wave-scope.json');
    const scope = () => join(root, '.claude/filescopes/wave-1/alice.json');
    beforeEach(() => {
      root = join(dir, 'repo');
      mkdirSync(join(root, '.claude/filescopes/wave-1'), { recursive: true });
      mkdirSync(join(root, 'src/a'), { recursive: true });
      writeFileSync(manifest(), '{"wave":1}');
      writeFileSync(scope(), '["src/a/"]');
    });
    const refusal = (reason: string, names: RegExp) => (error: unknown) => error instanceof ControlFileError && error.reason === reason && names.test(error.message);

    it('reads a regular file with one link reached through real directories, with its modification time', () => {
      assert.deepEqual(readOwnControlFile(root, manifest()), { text: '{"wave":1}', mtimeMs: statSync(manifest()).mtimeMs });
      assert.equal(nodeLocateFileSystem.readOwnFile(root, scope()), '["src/a/"]');
    });

    it('says "nothing there" for a missing file, a missing directory on the way, or a file where a directory should be', () => {
      assert.equal(readOwnControlFile(root, join(root, '.pi/wave-scope.json')), undefined);
      assert.equal(readOwnControlFile(root, join(root, '.claude/filescopes/wave-2/alice.json')), undefined);
      writeFileSync(join(root, '.codex'), 'a file');
      assert.equal(readOwnControlFile(root, join(root, '.codex/wave-scope.json')), undefined);
    });

    const linked: Array<{ name: string; make: (root: string) => void; asked: (root: string) => string; names: RegExp }> = [
      {
        name: 'the file itself a symbolic link into a scope',
        make: (r) => { renameSync(join(r, '.claude/filescopes/wave-1/alice.json'), join(r, 'src/a/scope.json')); symlinkSync('../../../src/a/scope.json', join(r, '.claude/filescopes/wave-1/alice.json')); },
        asked: (r) => join(r, '.claude/filescopes/wave-1/alice.json'),
        names: /alice\.json is a symbolic link/,
      },
      {
        name: 'a directory on the way a symbolic link (filescopes/)',
        make: (r) => { renameSync(join(r, '.claude/filescopes'), join(r, 'src/a/filescopes')); symlinkSync('../src/a/filescopes', join(r, '.claude/filescopes')); },
        asked: (r) => join(r, '.claude/filescopes/wave-1/alice.json'),
        names: /alice\.json is reached through the symbolic link .*\/\.claude\/filescopes:/,
      },
      {
        name: 'the state directory a symbolic link',
        make: (r) => { renameSync(join(r, '.claude'), join(r, 'src/a/claude')); symlinkSync('src/a/claude', join(r, '.claude')); },
        asked: (r) => join(r, '.claude/wave-scope.json'),
        names: /reached through the symbolic link .*\/\.claude:/,
      },
    ];
    for (const { name, make, asked, names } of linked) {
      it(`refuses ${name}, naming the link`, () => {
        make(root);
        assert.throws(() => readOwnControlFile(root, asked(root)), refusal('linked', names));
        assert.throws(() => nodeLocateFileSystem.readOwnFile(root, asked(root)), ControlFileError);
      });
    }

    it('refuses a file with a second name (a hard link), naming the count', () => {
      linkSync(manifest(), join(root, 'src/a/manifest.json'));
      assert.throws(() => readOwnControlFile(root, manifest()), refusal('hard-linked', /wave-scope\.json has 2 links/));
    });

    it('a link on the way that leads to nothing at the path is an absence; one that leads nowhere is an error', () => {
      const shared = join(dir, 'shared-claude');
      mkdirSync(shared);
      rmSync(join(root, '.claude'), { recursive: true });
      symlinkSync(shared, join(root, '.claude'));
      assert.equal(readOwnControlFile(root, manifest()), undefined);
      writeFileSync(join(shared, 'wave-scope.json'), '{}');
      assert.throws(() => readOwnControlFile(root, manifest()), refusal('linked', /reached through the symbolic link/));
      rmSync(join(root, '.claude'));
      symlinkSync(join(dir, 'missing-dir'), join(root, '.claude'));
      assert.throws(() => readOwnControlFile(root, manifest()), refusal('dangling-link', /leads nowhere/));
    });

    it('the root itself may be reached through a link (a repository opened through a symlinked path)', () => {
      symlinkSync(root, join(dir, 'via-link'));
      assert.equal(readOwnControlFile(join(dir, 'via-link'), join(dir, 'via-link/.claude/wave-scope.json'))?.text, '{"wave":1}');
    });

    it('never reads through a directory swapped for a link after it was looked at (another process flipping it all along)', async () => {
      // `.claude` flips between the real directory and a link to a decoy, as fast as another process can
      // rename: a reader that looked at each directory and then opened the whole path would, now and then,
      // open the decoy's manifest through the link that stood there by then.
      mkdirSync(join(root, 'decoy'));
      writeFileSync(join(root, 'decoy/wave-scope.json'), '{"wave":666}');
      const started = join(dir, 'flipping');
      const flipping = [
        "const fs = require('node:fs');",
        `process.chdir(${JSON.stringify(root)});`,
        `fs.writeFileSync(${JSON.stringify(started)}, '');`,
        'for (;;) {',
        "  fs.renameSync('.claude', '.claude-real'); fs.symlinkSync('decoy', '.claude');",
        "  fs.renameSync('.claude-real', '.claude-next'); fs.unlinkSync('.claude'); fs.renameSync('.claude-next', '.claude');",
        '}',
      ].join('\n');
      const flipper = spawn(process.execPath, ['-e', flipping], { stdio: 'ignore' });
      const exited = new Promise((resolve) => flipper.on('exit', resolve));
      const seen = new Map<string, number>();
      try {
        const deadline = Date.now() + 10_000;
        while (!existsSync(started) && flipper.exitCode === null && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
        assert.ok(existsSync(started), 'the flipping process started');
        for (let read = 0; read < 20_000; read += 1) {
          let outcome: string;
          try {
            outcome = readOwnControlFile(root, manifest())?.text ?? 'nothing';
          } catch (error) {
            outcome = error instanceof ControlFileError ? error.reason : String(error);
          }
          seen.set(outcome, (seen.get(outcome) ?? 0) + 1);
        }
        assert.equal(flipper.exitCode, null, 'it flipped all along');
      } finally {
        flipper.kill('SIGKILL');
        await exited;
      }
      const outcomes = Object.fromEntries(seen);
      assert.equal(seen.get('{"wave":666}'), undefined, `read through the link: ${JSON.stringify(outcomes)}`);
      assert.ok((seen.get('linked') ?? 0) + (seen.get('nothing') ?? 0) > 0, `the race was run: ${JSON.stringify(outcomes)}`);
      assert.deepEqual([...seen.keys()].filter((outcome) => !['{"wave":1}', 'nothing', 'linked', 'dangling-link'].includes(outcome)), [], JSON.stringify(outcomes));
    });

    it('opens through the directories themselves: a directory that is a link by then is refused, one that is a file by then is an absence', () => {
      const segments = ['.claude', 'filescopes', 'wave-1', 'alice.json'];
      const opened = openThroughRealDirectories(root, segments, root, scope());
      assert.ok(opened !== undefined);
      try {
        assert.equal(readFileSync(opened, 'utf8'), '["src/a/"]');
      } finally {
        closeSync(opened);
      }
      renameSync(join(root, '.claude/filescopes'), join(root, 'src/filescopes'));
      symlinkSync(join(root, 'src/filescopes'), join(root, '.claude/filescopes'));
      assert.throws(() => openThroughRealDirectories(root, segments, root, scope()), refusal('linked', /reached through the symbolic link .*\/\.claude\/filescopes:/));
      rmSync(join(root, '.claude/filescopes'));
      writeFileSync(join(root, '.claude/filescopes'), 'not a directory');
      assert.equal(openThroughRealDirectories(root, segments, root, scope()), undefined);
      // The file itself: missing is ENOENT, a link is ELOOP (openOwnFile takes the one for an absence and names the other).
      const link = ['src', 'filescopes', 'wave-1', 'link.json'];
      const openLink = () => openThroughRealDirectories(root, link, root, join(root, ...link));
      assert.throws(openLink, (error: unknown) => (error as NodeJS.ErrnoException).code === 'ENOENT');
      symlinkSync(join(root, 'src/filescopes/wave-1/alice.json'), join(root, ...link));
      assert.throws(openLink, (error: unknown) => (error as NodeJS.ErrnoException).code === 'ELOOP');
    });

    it('refuses a path outside the root, and keeps the control-file limits (a FIFO, the size cap)', () => {
      assert.throws(() => readOwnControlFile(root, join(dir, 'elsewhere.json')), refusal('outside-root', /is not below/));
      assert.throws(() => readOwnControlFile(root, root), refusal('outside-root', /is not below/));
      assert.throws(() => readOwnControlFile(join(root, '.claude'), `${root}/.claude/../src/a/x.json`), refusal('outside-root', /not a plain path/));
      execFileSync('mkfifo', [join(root, '.claude/fifo')]);
      assert.throws(() => readOwnControlFile(root, join(root, '.claude/fifo')), refusal('not-a-file', /not a regular file/));
      writeFileSync(join(root, '.claude/big'), Buffer.alloc(2048));
      assert.throws(() => readOwnControlFile(root, join(root, '.claude/big'), { maxBytes: 1024 }), refusal('too-large', /larger than/));
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
