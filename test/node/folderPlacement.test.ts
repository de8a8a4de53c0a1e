// Where a workspace folder shows its repository's files: git reports the real top level, a folder opened
// through a symbolic link shows the files under its own path. The mapping as a table, then real links.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isOtherWayIn, pathBelowFolder, placeFolder, readFolderPlacement } from '../../src/node/folderPlacement';

describe('pathBelowFolder: where a workspace folder shows a repository path', () => {
  const cases: Array<{ name: string; folder: string; real: string; path: string; below: string | undefined; ignoreCase?: boolean }> = [
    // ~/code/app -> /data/app, the repository.
    { name: 'a link to the repository root shows every path below the link', folder: '/home/ana/code/app', real: '/data/app', path: 'src/a.ts', below: 'src/a.ts' },
    { name: 'a link to the root shows a top-level file below the link', folder: '/home/ana/code/app', real: '/data/app', path: 'README.md', below: 'README.md' },
    // ~/web -> /data/app/packages/web.
    { name: 'a link to a subfolder shows the paths inside it below the link', folder: '/home/ana/web', real: '/data/app/packages/web', path: 'packages/web/src/a.ts', below: 'src/a.ts' },
    { name: 'a link to a subfolder is itself the subfolder', folder: '/home/ana/web', real: '/data/app/packages/web', path: 'packages/web', below: '' },
    { name: 'a path outside the linked subfolder shows at its real path', folder: '/home/ana/web', real: '/data/app/packages/web', path: 'packages/api/a.ts', below: undefined },
    { name: 'a sibling whose name starts like the linked subfolder is outside it', folder: '/home/ana/web', real: '/data/app/packages/web', path: 'packages/web-old/a.ts', below: undefined },
    { name: 'a top-level file is outside a linked subfolder', folder: '/home/ana/web', real: '/data/app/packages/web', path: 'README.md', below: undefined },
    { name: 'no link: the repository itself shows at its real path', folder: '/data/app', real: '/data/app', path: 'src/a.ts', below: undefined },
    { name: 'no link: a subfolder of the repository shows at its real path', folder: '/data/app/packages/web', real: '/data/app/packages/web', path: 'packages/web/a.ts', below: undefined },
    { name: 'no link: a trailing slash or backslashes are no link', folder: 'C:\\data\\app\\', real: 'c:/data/app', path: 'src/a.ts', below: undefined },
    { name: 'a link whose real path is outside the repository shows nothing below it', folder: '/home/ana/elsewhere', real: '/data/other', path: 'src/a.ts', below: undefined },
    { name: 'ignoring case, the subfolder matches whatever its case', folder: '/home/ana/web', real: '/data/app/Packages/Web', path: 'packages/web/a.ts', below: 'a.ts', ignoreCase: true },
    { name: 'minding case, another case is outside the subfolder', folder: '/home/ana/web', real: '/data/app/Packages/Web', path: 'packages/web/a.ts', below: undefined },
  ];
  for (const { name, folder, real, path, below, ignoreCase } of cases) {
    it(name, () => {
      assert.equal(pathBelowFolder(placeFolder('/data/app', folder, real, ignoreCase ?? false), path), below);
    });
  }

  it('places a folder: its repository-relative path, whether it is a link, whether it is another way in', () => {
    assert.deepEqual(placeFolder('/data/app', '/home/ana/web/', '/data/app/packages/web', false), {
      repoRoot: '/data/app',
      folderPath: '/home/ana/web',
      repoRelative: 'packages/web',
      linked: true,
      ignoreCase: false,
    });
    assert.equal(isOtherWayIn(placeFolder('/data/app', '/data/app', '/data/app', false)), false);
    assert.equal(isOtherWayIn(placeFolder('C:/data/app', 'c:\\data\\app', 'C:\\data\\app', false)), false);
    assert.equal(isOtherWayIn(placeFolder('/data/app', '/data/app/packages/web', '/data/app/packages/web', false)), true);
    assert.equal(isOtherWayIn(placeFolder('/data/app', '/home/ana/code/app', '/data/app', false)), true);
    assert.equal(isOtherWayIn(placeFolder('/data/app', '/home/ana/elsewhere', '/data/other', false)), false);
  });
});

describe('readFolderPlacement: real links on disk', () => {
  let base: string;
  let repo: string;
  beforeEach(() => {
    base = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-placement-')));
    repo = join(base, 'data', 'app');
    mkdirSync(join(repo, 'packages', 'web'), { recursive: true });
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  it('follows a link to the repository root', async () => {
    symlinkSync(repo, join(base, 'app-link'));
    const placement = await readFolderPlacement(repo, join(base, 'app-link'), false);
    assert.equal(placement.linked, true);
    assert.equal(placement.repoRelative, '');
    assert.equal(pathBelowFolder(placement, 'src/a.ts'), 'src/a.ts');
  });

  it('follows a link to a subfolder, and a link above the folder', async () => {
    symlinkSync(join(repo, 'packages', 'web'), join(base, 'web-link'));
    assert.equal(pathBelowFolder(await readFolderPlacement(repo, join(base, 'web-link'), false), 'packages/web/a.ts'), 'a.ts');
    // ~/data-link -> data: the folder ~/data-link/app/packages/web is a link too, though no part of it is one below.
    symlinkSync(join(base, 'data'), join(base, 'data-link'));
    const through = await readFolderPlacement(repo, join(base, 'data-link', 'app', 'packages', 'web'), false);
    assert.equal(through.repoRelative, 'packages/web');
    assert.equal(pathBelowFolder(through, 'packages/web/a.ts'), 'a.ts');
    assert.equal(pathBelowFolder(through, 'packages/api/a.ts'), undefined);
  });

  it('a folder opened at its real path is no link, and one that does not exist keeps its spelling', async () => {
    assert.equal((await readFolderPlacement(repo, repo, false)).linked, false);
    assert.equal((await readFolderPlacement(repo, join(repo, 'packages', 'web'), false)).linked, false);
    const gone = await readFolderPlacement(repo, join(base, 'gone'), false);
    assert.equal(gone.linked, false);
    assert.equal(pathBelowFolder(gone, 'src/a.ts'), undefined);
  });
});
