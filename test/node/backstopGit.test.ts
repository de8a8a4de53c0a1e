import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { nodeSnapshotHost, spawnGit } from '../../src/node/backstopGit';
import { backstopExclusions, takeSnapshot } from '../../src/planner/backstop/snapshot';
import { diffSnapshots, identityAt } from '../../src/planner/backstop/snapshotDiff';
import { commitsOfTurn, restoreHead } from '../../src/planner/backstop/turnCommits';
import { createTempGitRepo } from '../support/tempGitRepo';
import type { TempGitRepo } from '../support/tempGitRepo';

/** The identity git itself gives a path once it is staged: `<mode> <oid>` from the index. */
function stagedIdentity(repo: TempGitRepo, path: string): string {
  repo.git('add', '--', path);
  const [mode, oid] = repo.git('ls-files', '--stage', '--', path).split(/\s/);
  return `${mode} ${oid}`;
}

describe('backstop: snapshots of real work trees (src/node/backstopGit.ts)', () => {
  let repo: TempGitRepo;
  beforeEach(() => {
    repo = createTempGitRepo({ initialFiles: { 'README.md': 'readme\n', 'src/app.ts': 'app\n', 'bin/run': '#!/bin/sh\n' } });
  });
  afterEach(() => repo.remove());

  it('identifies changed and untracked files, links and executables exactly as git does once they are staged', async () => {
    repo.write({ 'src/app.ts': 'changed\n', 'new dir/with space.ts': 'new\n', 'odd\nname.txt': 'x\n' });
    chmodSync(join(repo.root, 'bin/run'), 0o755);
    symlinkSync('src/app.ts', join(repo.root, 'link'));
    writeFileSync(join(repo.root, 'empty'), '');
    const snapshot = await takeSnapshot(nodeSnapshotHost(repo.root));
    assert.deepEqual([...snapshot.workTree.keys()].sort(), ['bin/run', 'empty', 'link', 'new dir/with space.ts', 'odd\nname.txt', 'src/app.ts']);
    for (const path of snapshot.workTree.keys()) assert.equal(snapshot.workTree.get(path), stagedIdentity(repo, path), path);
    assert.equal(identityAt(snapshot, 'README.md'), stagedIdentity(repo, 'README.md'), 'an unreported tracked file is its index entry');
    assert.deepEqual(snapshot.head, { ref: 'refs/heads/main', commit: repo.git('rev-parse', 'HEAD').trim() });
  });

  it('keeps a file\'s identity when its change is only staged, committed or reverted', async () => {
    const host = nodeSnapshotHost(repo.root);
    repo.write({ 'src/app.ts': 'dirty\n' });
    const before = await takeSnapshot(host);
    repo.git('add', 'src/app.ts');
    const staged = await takeSnapshot(host);
    repo.git('commit', '-qm', 'commit it');
    const committed = await takeSnapshot(host);
    assert.deepEqual(diffSnapshots(before, staged).changes, []);
    assert.deepEqual(diffSnapshots(before, committed).changes, []);
    assert.equal(diffSnapshots(before, committed).headMoved, true);
    repo.write({ 'src/app.ts': 'app\n' });
    assert.deepEqual(diffSnapshots(before, await takeSnapshot(host)).changes.map((change) => `${change.path}:${change.kind}`), ['src/app.ts:modified']);
  });

  it('takes a re-stated entry of a converted file for what the index says: line endings the attributes convert, a clean filter of the repository', async () => {
    repo.write({ '.gitattributes': '*.md text eol=crlf\ndocs/*.txt filter=pointer\n', 'docs/notes.txt': 'notes\n' });
    repo.git('config', 'filter.pointer.clean', "sed 's/^/pointer:/'");
    repo.git('config', 'filter.pointer.smudge', "sed 's/^pointer://'");
    repo.git('add', '--all');
    repo.git('add', '--renormalize', '.');
    repo.git('commit', '-qm', 'converted files');
    rmSync(join(repo.root, 'README.md'));
    rmSync(join(repo.root, 'docs/notes.txt'));
    repo.git('checkout', '--', 'README.md', 'docs/notes.txt');
    assert.equal(readFileSync(join(repo.root, 'README.md'), 'utf8'), 'readme\r\n', 'checked out with CRLF');
    const host = nodeSnapshotHost(repo.root, { gitDir: join(repo.root, '.git') });
    const before = await takeSnapshot(host);
    // Nothing changes; touched, then git refreshes the index: both entries are stated anew.
    const later = new Date(Date.now() + 5000);
    for (const path of ['README.md', 'docs/notes.txt']) utimesSync(join(repo.root, path), later, later);
    repo.git('status', '--porcelain');
    const after = await takeSnapshot(host, { previous: { ...before, takenAt: Date.now() - 60_000 } });
    assert.deepEqual(diffSnapshots(before, after).changes, [], 'bytes git converts are no change');
    writeFileSync(join(repo.root, 'README.md'), 'READme\r\n');
    repo.git('status', '--porcelain');
    const rewritten = await takeSnapshot(host, { previous: { ...after, indexChecksum: 'another index', takenAt: Date.now() - 60_000 } });
    assert.deepEqual(diffSnapshots(after, rewritten).changes.map((change) => `${change.path}:${change.kind}`), ['README.md:modified']);
  });

  it('runs git without the system\'s attributes file, which a root shell can write', async () => {
    const printed = await nodeSnapshotHost(repo.root).git(['-c', 'alias.attributes-off=!printenv GIT_ATTR_NOSYSTEM', 'attributes-off']);
    assert.equal(printed.trim(), '1');
  });

  it('lists every file of an untracked directory, watches chosen ignored paths, and skips the excluded ones', async () => {
    repo.commit({ '.gitignore': '.env\nbuild/\n' });
    mkdirSync(join(repo.root, 'pkg/deep'), { recursive: true });
    repo.write({ 'pkg/deep/a.py': 'a\n', 'pkg/b.py': 'b\n', '.env': 'SECRET=1\n', 'build/out.o': 'o\n', '.orchestrator/metrics/events.jsonl': '{}\n', '.claude/filescopes/wave-1/x.json': '[]\n' });
    const exclude = backstopExclusions({ writeRoot: repo.root, stateDir: join(repo.root, '.claude') });
    const snapshot = await takeSnapshot(nodeSnapshotHost(repo.root), { exclude, watchIgnored: ['.env'] });
    assert.deepEqual([...snapshot.workTree.keys()].sort(), ['.env', 'pkg/b.py', 'pkg/deep/a.py']);
  });

  it('reads the index it fingerprints, whatever GIT_INDEX_FILE, GIT_DIR or GIT_CONFIG_PARAMETERS the environment holds', async () => {
    const gitDir = join(repo.root, '.git');
    writeFileSync(join(repo.root, '.git', 'hide'), 'new.ts\n');
    const env = { ...process.env, GIT_INDEX_FILE: join(repo.root, 'no-such-index'), GIT_DIR: '/nonexistent', GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'core.excludesFile', GIT_CONFIG_VALUE_0: join(repo.root, '.git', 'hide') };
    repo.write({ 'new.ts': 'new\n' });
    const snapshot = await takeSnapshot(nodeSnapshotHost(repo.root, { env, gitDir, commonDir: gitDir }));
    assert.ok(!snapshot.workTree.has('README.md') && identityAt(snapshot, 'README.md') === stagedIdentity(repo, 'README.md'), 'a tracked file, from the index of the git directory, not an empty one');
    assert.ok(snapshot.workTree.has('new.ts'), 'an untracked file an exclude given through the environment would hide is listed');
  });

  it('reads a gitlink directory that is no repository of its own without git, and never through a link', async () => {
    const library = createTempGitRepo({ initialFiles: { 'a.txt': 'a\n' } });
    const elsewhere = createTempGitRepo({ initialFiles: { 'secret.txt': 'secret\n' } });
    try {
      repo.git('-c', 'protocol.file.allow=always', 'submodule', 'add', '--quiet', library.root, 'vendor/lib');
      repo.git('commit', '--quiet', '-m', 'library');
      repo.git('submodule', '--quiet', 'deinit', '--force', 'vendor/lib');
      writeFileSync(join(repo.root, 'vendor/lib/build.sh'), 'evil\n');
      const gitDir = join(repo.root, '.git');
      const host = nodeSnapshotHost(repo.root, { gitDir, commonDir: gitDir });
      const plain = (await takeSnapshot(host)).nested?.get('vendor/lib');
      assert.deepEqual([...(plain?.workTree.keys() ?? [])], ['build.sh'], 'its files, read without git');
      // The directory above it a link to a directory elsewhere that holds a lib/.
      rmSync(join(repo.root, 'vendor'), { recursive: true });
      mkdirSync(join(elsewhere.root, 'lib'));
      writeFileSync(join(elsewhere.root, 'lib', 'secret.txt'), 'secret\n');
      symlinkSync(elsewhere.root, join(repo.root, 'vendor'));
      const linked = await takeSnapshot(host);
      assert.equal(linked.nested?.has('vendor/lib'), false, 'nothing read through the link');
      assert.match(linked.workTree.get('vendor/lib') ?? '', /^160000 unreadable at \d+$/);
    } finally {
      library.remove();
      elsewhere.remove();
    }
  });

  it('identifies an untracked nested repository by its HEAD', async () => {
    const nested = createTempGitRepo({ initialFiles: { 'x.txt': 'x\n' } });
    try {
      repo.git('clone', '-q', nested.root, 'vendor');
      const host = nodeSnapshotHost(repo.root);
      const before = await takeSnapshot(host);
      assert.equal(before.workTree.get('vendor/'), `160000 ${nested.git('rev-parse', 'HEAD').trim()}`);
      writeFileSync(join(repo.root, 'vendor/y.txt'), 'y\n');
      await spawnGit(join(repo.root, 'vendor'), ['-c', 'user.name=t', '-c', 'user.email=t@e', 'commit', '-qm', 'inner', '--allow-empty']);
      assert.deepEqual(diffSnapshots(before, await takeSnapshot(host)).changes.map((change) => `${change.path}:${change.kind}`), ['vendor/:modified']);
    } finally {
      nested.remove();
    }
  });

  it('finds the commits a turn made and puts HEAD back softly: same branch, another branch, detached, unborn', async () => {
    const git = nodeSnapshotHost(repo.root).git;
    const start = repo.git('rev-parse', 'HEAD').trim();
    const before = (await takeSnapshot(nodeSnapshotHost(repo.root))).head;

    repo.commit({ 'evil.py': 'x\n' }, 'turn commit');
    const moved = (await takeSnapshot(nodeSnapshotHost(repo.root))).head;
    const commits = await commitsOfTurn(git, before, moved);
    assert.deepEqual(commits.commits.map((commit) => [commit.subject, commit.paths]), [['turn commit', [{ status: 'A', path: 'evil.py' }]]]);
    await restoreHead(git, before, moved, 'test');
    assert.equal(repo.git('rev-parse', 'HEAD').trim(), start);
    assert.ok(repo.git('status', '--porcelain').includes('A  evil.py'), 'the index is as the turn left it');

    repo.git('checkout', '-q', '-b', 'elsewhere');
    repo.commit({ 'other.py': 'x\n' }, 'on another branch');
    const switched = (await takeSnapshot(nodeSnapshotHost(repo.root))).head;
    await restoreHead(git, before, switched, 'test');
    assert.equal(repo.git('symbolic-ref', 'HEAD').trim(), 'refs/heads/main');
    assert.equal(repo.git('rev-parse', 'HEAD').trim(), start);
    assert.notEqual(repo.git('rev-parse', 'elsewhere').trim(), start, 'the other branch is left alone');

    repo.git('checkout', '-q', '--detach', 'elsewhere');
    const detachedBefore = (await takeSnapshot(nodeSnapshotHost(repo.root))).head;
    repo.commit({ 'detached.py': 'x\n' }, 'detached');
    await restoreHead(git, detachedBefore, (await takeSnapshot(nodeSnapshotHost(repo.root))).head, 'test');
    assert.equal(repo.git('rev-parse', 'HEAD').trim(), detachedBefore.commit);
    assert.equal(detachedBefore.ref, undefined);

    rmSync(join(repo.root, '.git'), { recursive: true, force: true });
    repo.git('init', '-q', '--initial-branch=main');
    const unborn = (await takeSnapshot(nodeSnapshotHost(repo.root))).head;
    assert.deepEqual(unborn, { ref: 'refs/heads/main' });
    repo.commit({ 'first.py': 'x\n' }, 'first');
    await restoreHead(git, unborn, (await takeSnapshot(nodeSnapshotHost(repo.root))).head, 'test');
    assert.throws(() => repo.git('rev-parse', '-q', '--verify', 'HEAD'), 'the branch is unborn again');
    assert.ok(repo.git('status', '--porcelain').includes('A  first.py'));
  });
});
