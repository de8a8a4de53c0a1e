import assert from 'node:assert/strict';
import fc from 'fast-check';
import { analyzeWave, contestedForDecorations, DraftAnalyses, entryKey, MatchCache, narrowEntry, resolutionsOf } from '../../webview/planAnalysis';
import type { PlanDraft, WaveDraft } from '../../src/protocol/plannerProtocol';

const files = ['README.md', 'docs/a.md', 'src/a.ts', 'src/b.ts', 'src/util/x.ts', 'test/a.test.ts'];

function wave(agents: Record<string, string[]>): WaveDraft {
  return { wave: 1, role: 'builder', agents: Object.entries(agents).map(([id, entries]) => ({ id, color: '#3794ff', entries })) };
}

describe('planner wave analysis', () => {
  it('counts matches per entry', () => {
    const analysis = analyzeWave(wave({ a: ['src/', '*.md', 'missing.ts'], b: ['**/*.md'] }), new MatchCache(files));
    assert.equal(analysis.matchCounts.get(entryKey('a', 'src/')), 3);
    assert.equal(analysis.matchCounts.get(entryKey('a', '*.md')), 1);
    assert.equal(analysis.matchCounts.get(entryKey('a', 'missing.ts')), 0);
    assert.equal(analysis.matchCounts.get(entryKey('b', '**/*.md')), 2);
  });

  const collisionCases: { name: string; agents: Record<string, string[]>; pairs: string[]; contested: string[] }[] = [
    { name: 'disjoint plain paths', agents: { a: ['src/a.ts'], b: ['src/b.ts'] }, pairs: [], contested: [] },
    { name: 'the same file', agents: { a: ['src/a.ts'], b: ['src/a.ts'] }, pairs: ['a|b|src/a.ts'], contested: ['src/a.ts'] },
    { name: 'a folder against a file in it', agents: { a: ['src/'], b: ['src/util/x.ts'] }, pairs: ['a|b|src/util/x.ts'], contested: ['src/util/x.ts'] },
    { name: 'a glob against a file', agents: { a: ['**/*.md'], b: ['docs/a.md'] }, pairs: ['a|b|docs/a.md'], contested: ['docs/a.md'] },
    { name: 'anchored top-level glob misses nested files', agents: { a: ['*.md'], b: ['docs/a.md'] }, pairs: [], contested: [] },
  ];
  for (const { name, agents, pairs, contested } of collisionCases) {
    it(`collisions: ${name}`, () => {
      const analysis = analyzeWave(wave(agents), new MatchCache(files));
      assert.deepEqual(
        analysis.collisions.map((collision) => `${collision.agents[0]}|${collision.agents[1]}|${collision.witness}`),
        pairs,
      );
      assert.deepEqual([...analysis.contested].sort(), contested);
    });
  }

  it('a glob against a glob collides even when no file exists yet (witness synthesised)', () => {
    const analysis = analyzeWave(wave({ a: ['gen/**/*.ts'], b: ['gen/*.ts'] }), new MatchCache(files));
    assert.equal(analysis.collisions.length, 1);
    assert.match(analysis.collisions[0]?.witness ?? '', /^gen\/[^/]+\.ts$/);
    assert.equal(analysis.contested.size, 0);
  });

  it('marks folders with contested files beneath', () => {
    const analysis = analyzeWave(wave({ a: ['src/'], b: ['src/util/x.ts'] }), new MatchCache(files));
    assert.deepEqual([...analysis.contestedFolders].sort(), ['src', 'src/util']);
  });

  it('contested files agree with a brute-force owner count (property)', () => {
    const pool = ['src/', 'src/a.ts', 'src/*.ts', 'src/**', '**/*.md', '*.md', 'docs/', 'test/**/*.ts', 'src/util/x.ts', 'README.md'];
    const cache = new MatchCache(files);
    fc.assert(
      fc.property(fc.array(fc.subarray(pool), { minLength: 1, maxLength: 4 }), (lists) => {
        const agents = Object.fromEntries(lists.map((list, i) => [`agent${i}`, list]));
        const analysis = analyzeWave(wave(agents), cache);
        const expected = files.filter((file) => lists.filter((list) => list.some((entry) => cache.filesOf(entry).includes(file))).length > 1);
        assert.deepEqual([...analysis.contested].sort(), expected.sort());
        // Every contested file means a reported collision between some pair.
        if (expected.length > 0) assert.ok(analysis.collisions.length > 0);
      }),
      { numRuns: 200 },
    );
  });

  it('narrowing gives up exactly what the other agent owns', () => {
    const cache = new MatchCache(files);
    const draft = wave({ a: ['src/'], b: ['src/a.ts'] });
    assert.deepEqual(narrowEntry(draft, 'a', 'src/', 'b', cache), ['src/b.ts', 'src/util/x.ts']);
    const after = analyzeWave(wave({ a: ['src/b.ts', 'src/util/x.ts'], b: ['src/a.ts'] }), cache);
    assert.equal(after.collisions.length, 0);
    assert.equal(narrowEntry(draft, 'b', 'src/a.ts', 'a', cache), undefined, 'nothing left: remove instead');
  });

  it('narrowing offers nothing when a file it would keep has a name no entry can name (a backslash)', () => {
    const cache = new MatchCache([...files, 'src/x\\..\\..\\lib\\']);
    assert.equal(narrowEntry(wave({ a: ['src/'], b: ['src/a.ts'] }), 'a', 'src/', 'b', cache), undefined);
  });

  it('narrowing never trades one collision for another: it gives up what any other agent owns', () => {
    const cache = new MatchCache(files);
    // a's src/ collides with b (src/a.ts) and with c (src/util/x.ts); narrowing against b alone used to
    // keep src/util/x.ts as a plain path, a fresh collision with c.
    const draft = wave({ a: ['src/'], b: ['src/a.ts'], c: ['src/util/x.ts'] });
    const narrowed = narrowEntry(draft, 'a', 'src/', 'b', cache);
    assert.deepEqual(narrowed, ['src/b.ts']);
    const after = analyzeWave(wave({ a: narrowed ?? [], b: ['src/a.ts'], c: ['src/util/x.ts'] }), cache);
    assert.deepEqual(after.collisions, []);
  });

  it('expands each spelling once (cache)', () => {
    const cache = new MatchCache(files);
    const first = cache.filesOf('src/');
    assert.equal(cache.filesOf('src/'), first);
  });

  it('finds the collision a drop makes in a 20,000-file wave, for each of several new globs', () => {
    // Correctness at scale only: the 100 ms budget is measured by bench/plannerSpeed.mjs, not by a test.
    const many = Array.from({ length: 20_000 }, (_, i) => `pkg${i % 20}/mod${i % 200}/file${i}.ts`);
    const cache = new MatchCache(many);
    const agents: Record<string, string[]> = {};
    for (let i = 0; i < 8; i += 1) agents[`agent${i}`] = [`pkg${i}/`, `pkg1${i}/mod${i}/**`];
    assert.equal(analyzeWave(wave(agents), cache).collisions.length, 0);
    for (const target of ['pkg3/**/*.ts', 'pkg4/mod4/*.ts', 'pkg5/**']) {
      const dropped = { ...agents, agent7: [...(agents.agent7 ?? []), target] };
      const analysis = analyzeWave(wave(dropped), cache);
      assert.ok(analysis.collisions.some((collision) => collision.agents.includes('agent7') && collision.entries.includes(target)));
    }
  });
});

describe('planner match cache', () => {
  const tricky = ['src', 'src/a.ts', 'src/b/c.ts', 'srcx/d.ts', 'src-old/e.ts', 'Docs/Readme.md', 'a[1].ts'];
  const cases: [string, string[]][] = [
    ['src/', ['src/a.ts', 'src/b/c.ts']],
    ['src', ['src']],
    ['src/a.ts', ['src/a.ts']],
    ['missing.ts', []],
    ['src/**', ['src/a.ts', 'src/b/c.ts']],
    ['a[1].ts', []],
  ];
  for (const [entry, expected] of cases) {
    it(`${entry} matches ${expected.join(', ') || 'nothing'} (agrees with expand)`, () => {
      const cache = new MatchCache(tricky);
      assert.deepEqual([...cache.filesOf(entry)].sort(), [...expected].sort());
    });
  }

  it('folds case for plain paths and folders in ignore-case mode', () => {
    const cache = new MatchCache(tricky, true);
    assert.deepEqual(cache.filesOf('docs/'), ['Docs/Readme.md']);
    assert.deepEqual(cache.filesOf('DOCS/README.MD'), ['Docs/Readme.md']);
  });
});

describe('planner analysis for the redesign (issue 14)', () => {
  const repo = ['README.md', 'package.json', 'docs/a.md', 'docs/b.md', 'src/api/x.ts', 'src/api/y.ts', 'src/ui/App.tsx', 'src/ui/Cart.stories.tsx'];

  it('tells the two kinds of collision apart: files both own today, or only a path both would own', () => {
    const analysis = analyzeWave(wave({ api: ['src/api/'], ui: ['src/ui/**/*.tsx'], docs: ['**/*.stories.tsx'] }), new MatchCache(repo));
    const byPair = new Map(analysis.collisions.map((collision) => [collision.agents.join('|'), collision]));
    const existing = byPair.get('ui|docs');
    assert.equal(existing?.shared, 1);
    assert.equal(existing?.witness, 'src/ui/Cart.stories.tsx');
    const future = byPair.get('api|docs');
    assert.equal(future?.shared, 0, 'no file of today is owned by both');
    assert.match(future?.witness ?? '', /^src\/api\/.*\.stories\.tsx$/, 'a path like src/api/x.stories.tsx');
  });

  it('counts shared files exactly (against a brute force)', () => {
    const cache = new MatchCache(repo);
    const analysis = analyzeWave(wave({ a: ['**/*.md', 'src/**'], b: ['docs/', 'src/api/x.ts', 'src/ui/*'] }), cache);
    for (const collision of analysis.collisions) {
      const [left, right] = collision.entries;
      const expected = cache.filesOf(left).filter((file) => cache.filesOf(right).includes(file)).length;
      assert.equal(collision.shared, expected, `${left} × ${right}`);
    }
  });

  it('offers the resolutions in the order the agents are named, narrowing for both kinds', () => {
    const draft = wave({ api: ['src/api/'], docs: ['**/*.stories.tsx'] });
    const cache = new MatchCache(repo);
    const [collision] = analyzeWave(draft, cache).collisions;
    assert.ok(collision);
    assert.deepEqual(collision.agents, ['api', 'docs']);
    const resolutions = resolutionsOf(draft, collision, cache);
    assert.deepEqual(
      resolutions.map((resolution) => `${resolution.kind} ${resolution.agent}`),
      ['narrow api', 'remove api', 'narrow docs', 'remove docs'],
    );
    // A path both would own, no file today: each side can be narrowed to its files of today.
    assert.deepEqual(resolutions[0]?.files, ['src/api/x.ts', 'src/api/y.ts']);
    assert.deepEqual(resolutions[2]?.files, ['src/ui/Cart.stories.tsx']);
    const after = analyzeWave(wave({ api: ['src/api/x.ts', 'src/api/y.ts'], docs: ['**/*.stories.tsx'] }), cache);
    assert.equal(after.collisions.length, 0, 'the narrowing resolves it');
  });

  it('folders carry the owners of the files beneath them, in lane order', () => {
    const analysis = analyzeWave(wave({ ui: ['src/ui/App.tsx'], api: ['src/api/'] }), new MatchCache(repo));
    assert.deepEqual(analysis.folderOwners.get('src'), ['ui', 'api']);
    assert.deepEqual(analysis.folderOwners.get('src/api'), ['api']);
    assert.equal(analysis.folderOwners.get('docs'), undefined);
  });

  it('folder owners and contested folders agree with a brute force (property)', () => {
    const pool = ['src/', 'src/api/', 'src/ui/*', '**/*.md', 'docs/a.md', 'src/**/*.tsx', 'README.md', 'src/api/x.ts'];
    const cache = new MatchCache(repo);
    fc.assert(
      fc.property(fc.array(fc.subarray(pool), { minLength: 1, maxLength: 4 }), (lists) => {
        const agents = Object.fromEntries(lists.map((list, i) => [`agent${i}`, list]));
        const analysis = analyzeWave(wave(agents), cache);
        const folders = new Set(repo.flatMap((file) => file.split('/').slice(0, -1).map((_, i, parts) => parts.slice(0, i + 1).join('/'))));
        for (const folder of folders) {
          const owners = lists
            .map((list, i) => (list.some((entry) => cache.filesOf(entry).some((file) => file.startsWith(`${folder}/`))) ? `agent${i}` : undefined))
            .filter((id): id is string => id !== undefined);
          assert.deepEqual(analysis.folderOwners.get(folder) ?? [], owners, folder);
          const contested = repo.some((file) => file.startsWith(`${folder}/`) && (analysis.owners.get(file)?.length ?? 0) > 1);
          assert.equal(analysis.contestedFolders.has(folder), contested, folder);
        }
        assert.equal(analysis.unowned, repo.filter((file) => !analysis.owners.has(file)).length);
      }),
      { numRuns: 150 },
    );
  });

  it('counts the files no agent owns', () => {
    const analysis = analyzeWave(wave({ api: ['src/api/'], docs: ['docs/'] }), new MatchCache(repo));
    assert.equal(analysis.unowned, 4);
  });
});

describe('what VS Code marks as contested follows the active wave, not the open tab (issue 14, bug 10)', () => {
  const repo = ['a.md', 'b.md', 'src/x.ts'];
  const cache = new MatchCache(repo);
  const analyses = new DraftAnalyses(cache);
  const draft = (activeWave: number | undefined): PlanDraft => ({
    version: 1,
    activeWave,
    waves: [
      { wave: 1, role: 'builder', agents: [{ id: 'a', color: '#3794ff', entries: ['*.md'] }, { id: 'b', color: '#e5a000', entries: ['a.md'] }] },
      { wave: 2, role: 'builder', agents: [] },
      { wave: 3, role: 'builder', agents: [{ id: 'c', color: '#3794ff', entries: ['src/'] }, { id: 'd', color: '#e5a000', entries: ['src/x.ts'] }] },
    ],
  });

  it('the active wave collides: its files are marked whichever tab is open', () => {
    assert.deepEqual(contestedForDecorations(draft(1), (item) => analyses.of(item)), ['a.md']);
  });

  it('an empty active wave marks nothing, even if another wave collides', () => {
    assert.deepEqual(contestedForDecorations(draft(2), (item) => analyses.of(item)), []);
  });

  it('no active wave: the draft’s waves, all of them', () => {
    assert.deepEqual(contestedForDecorations(draft(undefined), (item) => analyses.of(item)), ['a.md', 'src/x.ts']);
  });

  it('analyses each wave once while it is unchanged', () => {
    const plan = draft(1);
    const first = plan.waves[0];
    assert.ok(first);
    assert.equal(analyses.of(first), analyses.of(first));
  });
});
