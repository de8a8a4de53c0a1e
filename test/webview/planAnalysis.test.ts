import assert from 'node:assert/strict';
import fc from 'fast-check';
import { analyzeWave, entryKey, MatchCache, narrowEntry } from '../../webview/planAnalysis';
import type { WaveDraft } from '../../src/protocol/plannerProtocol';

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
