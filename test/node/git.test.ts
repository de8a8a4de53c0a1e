// The git adapter, against real repositories in temporary directories (never a mocked git).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gitIgnoreCase, gitIgnoreCaseAsync, gitTopLevel, gitTopLevelAsync, listRepositoryFiles, listRepositoryFilesAsync, runGit } from '../../src/node/git';
import { createTempGitRepo } from '../support/tempGitRepo';
import type { TempGitRepo } from '../support/tempGitRepo';

describe('node/git (real repositories)', () => {
  let repo: TempGitRepo;
  let outside: string;
  beforeEach(() => {
    repo = createTempGitRepo({ initialFiles: { 'src/a.ts': 'a\n', 'README.md': '#\n' } });
    outside = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-nogit-')));
  });
  afterEach(() => {
    repo.remove();
    rmSync(outside, { recursive: true, force: true });
  });

  describe('runGit', () => {
    it('returns git\'s standard output', () => {
      assert.equal(runGit(repo.root, ['rev-parse', '--is-inside-work-tree']), 'true\n');
    });
    it('throws with git\'s own error when git fails', () => {
      assert.throws(() => runGit(repo.root, ['rev-parse', '--verify', 'no-such-branch']), /Command failed: git rev-parse --verify no-such-branch\nfatal: Needed a single revision/);
    });
  });

  describe('gitTopLevel', () => {
    it('is the work tree\'s root from any directory below it', () => {
      mkdirSync(join(repo.root, 'src', 'deep'), { recursive: true });
      assert.equal(gitTopLevel(repo.root), repo.root);
      assert.equal(gitTopLevel(join(repo.root, 'src', 'deep')), repo.root);
    });
    it('is undefined outside any repository', () => {
      assert.equal(gitTopLevel(outside), undefined);
    });
    it('is a linked worktree\'s own root, not the main checkout\'s', () => {
      const worktree = join(outside, 'linked');
      repo.git('worktree', 'add', '--quiet', worktree);
      assert.equal(gitTopLevel(worktree), realpathSync(worktree));
    });
  });

  describe('gitIgnoreCase', () => {
    it('follows core.ignorecase, and is false outside git', () => {
      assert.equal(gitIgnoreCase(repo.root), false);
      repo.git('config', 'core.ignorecase', 'true');
      assert.equal(gitIgnoreCase(repo.root), true);
      repo.git('config', '--unset', 'core.ignorecase');
      assert.equal(gitIgnoreCase(repo.root), false);
      assert.equal(gitIgnoreCase(outside), false);
    });
  });

  describe('listRepositoryFiles', () => {
    it('lists the tracked files, and the untracked ones git does not ignore when asked', () => {
      repo.write({ '.gitignore': 'build/\n', 'build/out.js': 'x', 'src/new.ts': 'n' });
      assert.deepEqual(listRepositoryFiles(repo.root).sort(), ['README.md', 'src/a.ts']);
      assert.deepEqual(listRepositoryFiles(repo.root, { includeUntracked: true }).sort(), ['.gitignore', 'README.md', 'src/a.ts', 'src/new.ts']);
    });

    it('gives names with newlines, quotes, spaces and non-ASCII letters exactly', () => {
      const names = ['with\nnewline.ts', 'with "quotes".ts', 'with space.ts', 'café/naïve.ts', 'tab\there.ts'];
      repo.commit(Object.fromEntries(names.map((name) => [name, 'x'])));
      const listed = listRepositoryFiles(repo.root);
      for (const name of names) assert.ok(listed.includes(name), JSON.stringify(name));
    });

    it('lists a file once during a merge conflict (git lists one line per stage)', () => {
      const git = (...args: string[]) =>
        execFileSync('git', args, {
          cwd: repo.root,
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'ignore'],
          env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.invalid', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.invalid' },
        });
      git('checkout', '--quiet', '-b', 'other');
      writeFileSync(join(repo.root, 'src/a.ts'), 'other\n');
      git('commit', '--quiet', '-am', 'other');
      git('checkout', '--quiet', 'main');
      writeFileSync(join(repo.root, 'src/a.ts'), 'main\n');
      git('commit', '--quiet', '-am', 'main');
      assert.throws(() => git('merge', '--quiet', 'other'));
      // The conflict really is there: git itself lists the path once per stage.
      assert.equal(git('ls-files', '--cached', 'src/a.ts').split('\n').filter((line) => line !== '').length, 3);
      assert.deepEqual(listRepositoryFiles(repo.root).filter((path) => path === 'src/a.ts'), ['src/a.ts']);
    });
  });

  describe('the extension host\'s git (asynchronous)', () => {
    // A folder VS Code opens in Restricted mode may carry its own .git/config: the listing the planner and
    // the editor marks run there must not start a program that config names (core.fsmonitor is run by any
    // command that reads the index, ls-files included).
    it('never runs the core.fsmonitor program a repository configures', async () => {
      const marker = join(outside, 'fsmonitor-ran');
      repo.git('config', 'core.fsmonitor', `touch '${marker}'; false`);
      assert.equal(await gitTopLevelAsync(repo.root), repo.root);
      assert.equal(await gitIgnoreCaseAsync(repo.root), false);
      assert.deepEqual((await listRepositoryFilesAsync(repo.root, { includeUntracked: true })).sort(), ['README.md', 'src/a.ts']);
      assert.equal(existsSync(marker), false, 'git ran the repository\'s core.fsmonitor program');
      // The probe itself works: a plain git ls-files does start the program.
      repo.git('ls-files');
      assert.equal(existsSync(marker), true);
    });
  });
});
