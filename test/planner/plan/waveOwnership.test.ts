import assert from 'node:assert/strict';
import fc from 'fast-check';
import { minimatch } from 'minimatch';
import { narrowedEntry, waveOwnership } from '../../../src/planner/plan/waveOwnership';

describe('waveOwnership', () => {
  const files = ['src/api/server.ts', 'src/api/routes/orders.ts', 'src/ui/App.tsx', 'src/ui/Cart.tsx', 'docs/a.md', 'README.md'];

  it('gives every owned file its owners with the entry that names it, and the contested files', () => {
    const ownership = waveOwnership(
      1,
      [
        { id: 'api', entries: ['src/api/'] },
        { id: 'ui', entries: ['src/ui/App.tsx', 'src/api/server.ts'] },
      ],
      files,
    );
    assert.deepEqual(ownership.owners.get('src/api/server.ts'), [
      { agent: 'api', entry: 'src/api/' },
      { agent: 'ui', entry: 'src/api/server.ts' },
    ]);
    assert.deepEqual(ownership.owners.get('src/ui/App.tsx'), [{ agent: 'ui', entry: 'src/ui/App.tsx' }]);
    assert.equal(ownership.owners.has('README.md'), false);
    assert.deepEqual(ownership.contested, ['src/api/server.ts']);
    assert.deepEqual(
      ownership.collisions.map((collision) => [collision.agents, collision.entries, collision.witness]),
      [[['api', 'ui'], ['src/api/', 'src/api/server.ts'], 'src/api/server.ts']],
    );
  });

  it('reports a glob-against-glob collision beyond the known files, with no contested file', () => {
    const ownership = waveOwnership(2, [{ id: 'a', entries: ['lib/**/*.ts'] }, { id: 'b', entries: ['lib/x/*'] }], files);
    assert.equal(ownership.collisions.length, 1);
    assert.deepEqual(ownership.contested, []);
  });

  it('keeps the rest of the wave when one entry is refused by the grammar', () => {
    const ownership = waveOwnership(1, [{ id: 'a', entries: ['../x', 'docs/'] }], files);
    assert.deepEqual(ownership.invalidEntries, [{ agent: 'a', entry: '../x' }]);
    assert.deepEqual(ownership.owners.get('docs/a.md'), [{ agent: 'a', entry: 'docs/' }]);
  });

  it('agrees with a brute-force oracle on who owns what (property)', () => {
    const names = ['a.ts', 'b.md', 'c.ts'];
    const dirs = ['', 'src/', 'src/x/', 'docs/'];
    const allFiles = dirs.flatMap((dir) => names.map((name) => `${dir}${name}`));
    const entry = fc.constantFrom('src/', 'src/x/', 'docs/', '**/*.ts', 'src/**/*.md', '*.ts', 'src/x/a.ts', 'b.md', 'docs/*');
    fc.assert(
      fc.property(fc.array(fc.array(entry, { maxLength: 3 }), { minLength: 1, maxLength: 4 }), (scopes) => {
        const agents = scopes.map((entries, index) => ({ id: `agent${index}`, entries: [...new Set(entries)] }));
        const ownership = waveOwnership(1, agents, allFiles);
        const matches = (pattern: string, file: string) => (pattern.endsWith('/') ? file.startsWith(pattern) : minimatch(file, pattern, { dot: true }));
        for (const file of allFiles) {
          const expected = agents.filter((agent) => agent.entries.some((item) => matches(item, file))).map((agent) => agent.id);
          assert.deepEqual((ownership.owners.get(file) ?? []).map((claim) => claim.agent), expected, file);
        }
        const contested = allFiles.filter((file) => agents.filter((agent) => agent.entries.some((item) => matches(item, file))).length > 1).sort();
        assert.deepEqual(ownership.contested, contested);
      }),
      { numRuns: 200 },
    );
  });
});

describe('narrowedEntry', () => {
  const files = ['src/api/server.ts', 'src/api/routes/orders.ts', 'src/api/db.ts', 'src/ui/App.tsx'];
  const agents = [
    { id: 'api', entries: ['src/api/'] },
    { id: 'ui', entries: ['src/ui/App.tsx', 'src/api/server.ts'] },
  ];

  const cases: Array<[string, string, string, string[] | undefined]> = [
    ['a folder keeps what the other does not own', 'api', 'src/api/', ['src/api/db.ts', 'src/api/routes/orders.ts']],
    ['a plain path cannot be narrowed', 'ui', 'src/api/server.ts', undefined],
    ['an entry the other does not touch is not narrowed', 'ui', 'src/ui/App.tsx', undefined],
  ];
  for (const [title, agent, entry, expected] of cases) {
    it(title, () => {
      assert.deepEqual(narrowedEntry(agents, agent, entry, agent === 'api' ? 'ui' : 'api', files), expected);
    });
  }

  it('offers no narrowing that would keep a file no entry can name (a backslash in its name)', () => {
    const named = [...files, 'src/api/x\\..\\..\\ui\\'];
    assert.equal(narrowedEntry(agents, 'api', 'src/api/', 'ui', named), undefined);
  });

  it('gives up beyond the limit, and for an unknown agent', () => {
    assert.equal(narrowedEntry(agents, 'api', 'src/api/', 'ui', files, { limit: 1 }), undefined);
    assert.equal(narrowedEntry(agents, 'api', 'src/api/', 'nobody', files), undefined);
  });
});
