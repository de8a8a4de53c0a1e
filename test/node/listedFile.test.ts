// The file the planner webview may have opened: only a listed file, inside the repository once links are
// followed (a real repository, real links).
import assert from 'node:assert/strict';
import { mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listRepositoryFiles } from '../../src/node/git';
import { listedFileToOpen } from '../../src/node/listedFile';
import { createTempGitRepo } from '../support/tempGitRepo';
import type { TempGitRepo } from '../support/tempGitRepo';

describe('listedFileToOpen: what the planner webview may have the host open', () => {
  let repo: TempGitRepo;
  let outside: string;
  let listed: string[];
  beforeEach(() => {
    outside = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-outside-')));
    writeFileSync(join(outside, 'secret.txt'), 'not the repository’s');
    repo = createTempGitRepo({ initialFiles: { 'src/a.ts': 'a\n', 'src/a[1] b.ts': 'b\n', 'docs/x.md': 'x\n' } });
    symlinkSync(join(outside, 'secret.txt'), join(repo.root, 'link.txt'));
    symlinkSync(outside, join(repo.root, 'linked-dir'));
    repo.commit({});
    listed = listRepositoryFiles(repo.root, { includeUntracked: true });
  });
  afterEach(() => {
    repo.remove();
    rmSync(outside, { recursive: true, force: true });
  });

  it('opens a listed file, whatever characters its name holds', () => {
    assert.equal(listedFileToOpen(repo.root, 'src/a.ts', listed), join(repo.root, 'src', 'a.ts'));
    assert.equal(listedFileToOpen(repo.root, 'src/a[1] b.ts', listed), join(repo.root, 'src', 'a[1] b.ts'));
  });

  const refused: Array<[why: string, path: string]> = [
    ['climbs out', '../secret.txt'],
    ['climbs out below a folder', 'src/../../secret.txt'],
    ['absolute', '/etc/passwd'],
    ['a dot segment', './src/a.ts'],
    ['a doubled slash', 'src//a.ts'],
    ['backslashes', 'src\\a.ts'],
    ['a folder', 'src'],
    ['a file nobody listed', 'src/b.ts'],
    ['a tracked link to a file outside', 'link.txt'],
  ];
  for (const [why, path] of refused) {
    it(`refuses ${why}: ${JSON.stringify(path)}`, () => {
      assert.equal(listedFileToOpen(repo.root, path, listed), undefined);
    });
  }

  it('refuses a listed file whose folder became a link to elsewhere since the listing', () => {
    rmSync(join(repo.root, 'docs'), { recursive: true });
    symlinkSync(outside, join(repo.root, 'docs'));
    writeFileSync(join(outside, 'x.md'), 'elsewhere');
    assert.ok(listed.includes('docs/x.md'));
    assert.equal(listedFileToOpen(repo.root, 'docs/x.md', listed), undefined);
  });
});
