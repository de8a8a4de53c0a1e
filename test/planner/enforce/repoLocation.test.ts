import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { linkSync, mkdirSync, realpathSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ControlFileError, nodeLocateFileSystem } from '../../../src/node/hookFileSystem';
import { locateRepositories, locateRepository } from '../../../src/planner/enforce/repoLocation';
import { createTempGitRepo } from '../../support/tempGitRepo';
import type { TempGitRepo } from '../../support/tempGitRepo';

describe('locateRepository (no git spawned) agrees with git', () => {
  let repo: TempGitRepo;
  before(() => {
    repo = createTempGitRepo({ initialFiles: { 'src/deep/a.ts': 'a\n' } });
    repo.git('worktree', 'add', '--quiet', '-b', 'agent', join(repo.root, '.claude/worktrees/agent'));
    repo.git('worktree', 'add', '--quiet', '-b', 'outside', `${repo.root}-outside-worktree`);
  });
  after(() => {
    execFileSync('rm', ['-rf', `${repo.root}-outside-worktree`]);
    repo.remove();
  });

  const gitTop = (dir: string) => execFileSync('git', ['rev-parse', '--show-toplevel'], { cwd: dir, encoding: 'utf8' }).trim();

  it('an ordinary checkout, from its root and from a subdirectory', () => {
    for (const start of [repo.root, join(repo.root, 'src/deep')]) {
      const location = locateRepository(start, nodeLocateFileSystem);
      assert.equal(location?.writeRoot, gitTop(start));
      assert.equal(location?.manifestRoot, repo.root);
      assert.equal(location?.linkedWorktree, false);
    }
  });

  it('linked worktrees (inside and outside the coordinator checkout) find the coordinator as manifest root', () => {
    for (const worktree of [join(repo.root, '.claude/worktrees/agent'), realpathSync(`${repo.root}-outside-worktree`)]) {
      const start = join(worktree, 'src/deep');
      const location = locateRepository(start, nodeLocateFileSystem);
      assert.equal(location?.writeRoot, gitTop(start));
      assert.equal(location?.manifestRoot, repo.root);
      assert.equal(location?.commonDir, join(repo.root, '.git'));
      assert.equal(location?.linkedWorktree, true);
    }
  });

  it('a linked worktree of a git directory not named .git (a bare repository, --separate-git-dir) is governed by its own plan: no main checkout can be told', () => {
    mkdirSync(`${repo.root}-layouts/store`, { recursive: true });
    const base = realpathSync(`${repo.root}-layouts`);
    try {
      // A bare repository with worktrees: proj/.bare, proj/main, proj/agent.
      execFileSync('git', ['clone', '--quiet', '--bare', repo.root, join(base, 'proj/.bare')]);
      writeFileSync(join(base, 'proj/.git'), 'gitdir: ./.bare\n');
      for (const name of ['main', 'agent']) execFileSync('git', ['worktree', 'add', '--quiet', '-b', `bare-${name}`, join(base, 'proj', name)], { cwd: join(base, 'proj') });
      // A repository made with --separate-git-dir, and a worktree of it.
      execFileSync('git', ['init', '--quiet', `--separate-git-dir=${join(base, 'store/r.git')}`, join(base, 'r')]);
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', 'commit', '--quiet', '--allow-empty', '-m', 'x'], { cwd: join(base, 'r') });
      execFileSync('git', ['worktree', 'add', '--quiet', '-b', 'w', join(base, 'w')], { cwd: join(base, 'r') });
      for (const worktree of [join(base, 'proj/main'), join(base, 'proj/agent'), join(base, 'w')]) {
        const location = locateRepository(worktree, nodeLocateFileSystem);
        assert.equal(location?.writeRoot, worktree);
        assert.equal(location?.manifestRoot, worktree, worktree);
        assert.equal(location?.linkedWorktree, true);
      }
      // The main checkout of the second is its own, as before.
      assert.equal(locateRepository(join(base, 'r'), nodeLocateFileSystem)?.manifestRoot, join(base, 'r'));
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });

  it('a worktree\'s pointers (.git file, commondir) are read with their links followed, but only with one name', () => {
    const worktree = join(repo.root, '.claude/worktrees/agent');
    const commondir = join(repo.root, '.git/worktrees/agent/commondir');
    linkSync(commondir, `${commondir}.second-name`);
    try {
      assert.throws(() => locateRepository(worktree, nodeLocateFileSystem), (error: unknown) => error instanceof ControlFileError && error.reason === 'hard-linked');
    } finally {
      unlinkSync(`${commondir}.second-name`);
    }
    const pointer = join(worktree, '.git');
    renameSync(pointer, `${pointer}.real`);
    symlinkSync('.git.real', pointer);
    try {
      assert.equal(locateRepository(worktree, nodeLocateFileSystem)?.manifestRoot, repo.root, 'git follows the link, and so does the walk');
      linkSync(`${pointer}.real`, `${pointer}.second-name`);
      assert.throws(() => locateRepository(worktree, nodeLocateFileSystem), (error: unknown) => error instanceof ControlFileError && error.reason === 'hard-linked');
    } finally {
      rmSync(`${pointer}.second-name`, { force: true });
      unlinkSync(pointer);
      renameSync(`${pointer}.real`, pointer);
    }
  });

  it('outside any repository: undefined; a .git file that is not a pointer: an error', () => {
    assert.equal(locateRepository('/', nodeLocateFileSystem), undefined);
    const odd = join(repo.root, 'src/odd');
    mkdirSync(odd, { recursive: true });
    writeFileSync(join(odd, '.git'), 'garbage\n');
    assert.throws(() => locateRepository(odd, nodeLocateFileSystem), /gitdir/);
  });
});

describe('locateRepositories: every checkout around a directory, innermost first', () => {
  let repo: TempGitRepo;
  before(() => {
    repo = createTempGitRepo({ initialFiles: { 'src/a/x.ts': 'x\n', 'vendor/keep': '' } });
    // A repository planted inside the outer one (what an agent owning src/a/ could write) and a real nested clone.
    mkdirSync(join(repo.root, 'src/a/.git'), { recursive: true });
    execFileSync('git', ['init', '--quiet', join(repo.root, 'vendor/lib')]);
  });
  after(() => repo.remove());

  it('a planted .git does not hide the repository around it', () => {
    const chain = locateRepositories(join(repo.root, 'src/a'), nodeLocateFileSystem);
    assert.deepEqual(chain.map((location) => location.writeRoot), [join(repo.root, 'src/a'), repo.root]);
  });

  it('a nested clone, then the outer checkout', () => {
    const chain = locateRepositories(join(repo.root, 'vendor/lib'), nodeLocateFileSystem);
    assert.deepEqual(chain.map((location) => location.writeRoot), [join(repo.root, 'vendor/lib'), repo.root]);
  });

  it('outside any repository: none; a .git that is a FIFO: cannot tell', () => {
    assert.deepEqual(locateRepositories('/', nodeLocateFileSystem), []);
    const odd = join(repo.root, 'src/fifo');
    mkdirSync(odd, { recursive: true });
    execFileSync('mkfifo', [join(odd, '.git')]);
    assert.throws(() => locateRepository(odd, nodeLocateFileSystem), /neither a directory nor a file/);
  });
});
