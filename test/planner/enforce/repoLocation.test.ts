import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { nodeLocateFileSystem } from '../../../src/node/hookFileSystem';
import { locateRepository, readCoreConfig } from '../../../src/planner/enforce/repoLocation';
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

  it('outside any repository: undefined; a .git file that is not a pointer: an error', () => {
    assert.equal(locateRepository('/', nodeLocateFileSystem), undefined);
    const odd = join(repo.root, 'src/odd');
    mkdirSync(odd, { recursive: true });
    writeFileSync(join(odd, '.git'), 'garbage\n');
    assert.throws(() => locateRepository(odd, nodeLocateFileSystem), /gitdir/);
  });
});

describe('readCoreConfig', () => {
  const cases: Array<[string | undefined, { ignoreCase: boolean; hooksPath?: string }]> = [
    [undefined, { ignoreCase: false }],
    ['[core]\n\tignorecase = true\n', { ignoreCase: true }],
    ['[core]\n\tignoreCase = TRUE\n\thooksPath = .husky/_\n', { ignoreCase: true, hooksPath: '.husky/_' }],
    ['[core]\n\tignorecase = true\n[core]\n\tignorecase = false\n', { ignoreCase: false }],
    ['[user]\n\tignorecase = true\n', { ignoreCase: false }],
    ['[core]\n\tignorecase\n', { ignoreCase: true }],
    ['[core] ; comment\n\thooksPath = "/abs/hooks" # trailing\n', { ignoreCase: false, hooksPath: '/abs/hooks' }],
    ['[remote "origin"]\n\tignorecase = true\n[core]\n\tbare = false\n', { ignoreCase: false }],
  ];
  for (const [text, expected] of cases) {
    it(`${JSON.stringify(text)}`, () => {
      assert.deepEqual(readCoreConfig(text), expected);
    });
  }
});
