import assert from 'node:assert/strict';
import { ancestorFolders, buildFileTree, flattenTree } from '../../webview/fileTree';

const files = ['README.md', 'src/b.ts', 'src/a.ts', 'src/util/x.ts', 'docs/guide.md', 'src/file10.ts', 'src/file2.ts'];

describe('planner file tree', () => {
  it('counts files beneath every folder', () => {
    const tree = buildFileTree(files);
    assert.equal(tree.fileCount, files.length);
    assert.deepEqual(
      tree.folders.map((folder) => [folder.path, folder.fileCount]).sort(),
      [
        ['docs', 1],
        ['src', 5],
      ],
    );
  });

  const cases: { name: string; expanded: string[]; filter: string; rows: string[] }[] = [
    { name: 'collapsed: top level, folders first', expanded: [], filter: '', rows: ['docs/', 'src/', 'README.md'] },
    {
      name: 'one folder open, natural number order',
      expanded: ['src'],
      filter: '',
      rows: ['docs/', 'src/', 'src/util/', 'src/a.ts', 'src/b.ts', 'src/file2.ts', 'src/file10.ts', 'README.md'],
    },
    { name: 'an open folder inside a closed one stays hidden', expanded: ['src/util'], filter: '', rows: ['docs/', 'src/', 'README.md'] },
    { name: 'filter opens the way to matches', expanded: [], filter: 'X.TS', rows: ['src/', 'src/util/', 'src/util/x.ts'] },
    { name: 'filter matching nothing shows nothing', expanded: ['src'], filter: 'nothing-here', rows: [] },
    { name: 'filter on a folder name shows its files', expanded: [], filter: 'docs', rows: ['docs/', 'docs/guide.md'] },
  ];
  for (const { name, expanded, filter, rows } of cases) {
    it(name, () => {
      const flat = flattenTree(buildFileTree(files), new Set(expanded), filter);
      assert.deepEqual(
        flat.map((row) => (row.isFolder ? `${row.path}/` : row.path)),
        rows,
      );
    });
  }

  it('gives depths for indentation and honours the row limit', () => {
    const flat = flattenTree(buildFileTree(files), new Set(['src', 'src/util']));
    assert.equal(flat.find((row) => row.path === 'src/util/x.ts')?.depth, 2);
    assert.equal(flattenTree(buildFileTree(files), new Set(['src']), '', 3).length, 3);
  });

  it('builds and flattens 100,000 files (speed is bench/plannerSpeed.mjs’s to measure)', () => {
    const many = Array.from({ length: 100_000 }, (_, i) => `pkg${i % 50}/mod${i % 400}/file${i}.ts`);
    const tree = buildFileTree(many);
    const rows = flattenTree(tree, new Set(['pkg1', 'pkg1/mod1']));
    const filtered = flattenTree(tree, new Set(), 'file99999');
    assert.equal(tree.fileCount, 100_000);
    assert.ok(rows.length > 50);
    assert.deepEqual(filtered.filter((row) => !row.isFolder).map((row) => row.path), ['pkg49/mod399/file99999.ts']);
  });

  it('the unassigned view: only the files a predicate accepts, folders keep their state and count those files', () => {
    const owned = new Set(['src/a.ts', 'src/b.ts', 'docs/guide.md']);
    const include = (file: string) => !owned.has(file);
    const collapsed = flattenTree(buildFileTree(files), new Set(), '', Infinity, include);
    assert.deepEqual(
      collapsed.map((row) => `${row.path}${row.isFolder ? '/' : ''}:${row.fileCount}`),
      ['src/:3', 'README.md:1'],
      'docs/ has no unowned file, so it is left out; src/ counts its 3 unowned files',
    );
    const open = flattenTree(buildFileTree(files), new Set(['src']), '', Infinity, include);
    assert.deepEqual(
      open.map((row) => row.path),
      ['src', 'src/util', 'src/file2.ts', 'src/file10.ts', 'README.md'],
    );
    const filtered = flattenTree(buildFileTree(files), new Set(), 'file', Infinity, include);
    assert.deepEqual(
      filtered.map((row) => `${row.path}:${row.fileCount}`),
      ['src:2', 'src/file2.ts:1', 'src/file10.ts:1'],
    );
  });

  it('lists ancestor folders', () => {
    assert.deepEqual(ancestorFolders('a/b/c.ts'), ['a', 'a/b']);
    assert.deepEqual(ancestorFolders('top.ts'), []);
  });
});
