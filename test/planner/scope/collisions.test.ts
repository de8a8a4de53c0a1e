import assert from 'node:assert/strict';
import fc from 'fast-check';
import { claimedText, findCollisions, withKnownWitnesses } from '../../../src/planner/scope/collisions';
import type { Collision } from '../../../src/planner/scope/collisions';
import { FileIndex } from '../../../src/planner/scope/fileIndex';
import { CompiledEntries, intersects } from '../../../src/planner/scope/scopeAlgebra';
import { COMMON_PATH_STEP_BUDGET, ScopeProofTooComplex } from '../../../src/planner/scope/scopeAutomaton';
import type { ScopeRecord } from '../../../src/planner/scope/collisions';
import { parseScopeRecords } from '../../../src/planner/plan/scopeRecords';
import { entryArbitrary, oracleMatcher, usable } from '../../support/globOracle';

const records = (json: unknown) => parseScopeRecords(json);

describe('findCollisions', () => {
  it('reports nothing for a disjoint wave', () => {
    const report = findCollisions(
      records([
        { id: 'api', files: ['src/api/', 'src/shared/api-types.ts'] },
        { id: 'ui', files: ['src/ui/**/*.tsx', 'src/shared/ui-types.ts'] },
        { id: 'docs', files: ['docs/**/*.md', '*.md'] },
      ]),
    );
    assert.deepEqual(report, { ok: true, collisions: [], duplicateIds: [] });
  });

  const cases: Array<{ title: string; wave: Array<{ id?: string; files: string[] }>; expected: Collision[]; knownFiles?: string[] }> = [
    {
      title: 'a plain path claimed twice, in two spellings, is concrete',
      wave: [
        { id: 'a', files: ['./src//x.ts'] },
        { id: 'b', files: ['src/lib/../x.ts'] },
      ],
      expected: [{ agents: ['a', 'b'], entries: ['src/x.ts', 'src/x.ts'], kind: 'concrete', witness: 'src/x.ts' }],
    },
    {
      title: 'a plain path inside another agent’s glob is concrete, witnessed by the path',
      wave: [
        { id: 'a', files: ['src/**/*.ts'] },
        { id: 'b', files: ['docs/a.md', 'src/lib/x.ts'] },
      ],
      expected: [{ agents: ['a', 'b'], entries: ['src/**/*.ts', 'src/lib/x.ts'], kind: 'concrete', witness: 'src/lib/x.ts' }],
    },
    {
      title: 'two non-recursive globs that meet only in a file not yet written',
      wave: [
        { id: 'a', files: ['src/*.ts'] },
        { id: 'b', files: ['src/a.*'] },
      ],
      expected: [{ agents: ['a', 'b'], entries: ['src/*.ts', 'src/a.*'], kind: 'glob', witness: 'src/a.ts' }],
    },
    {
      title: 'glob against glob takes a real file as witness when one is known',
      wave: [
        { id: 'ui', files: ['src/ui/**/*.tsx'] },
        { id: 'docs', files: ['**/*.stories.tsx'] },
      ],
      knownFiles: ['src/ui/App.tsx', 'src/ui/Cart.stories.tsx', 'README.md'],
      expected: [{ agents: ['ui', 'docs'], entries: ['src/ui/**/*.tsx', '**/*.stories.tsx'], kind: 'glob', witness: 'src/ui/Cart.stories.tsx' }],
    },
    {
      title: 'a directory entry against a glob reaching into it',
      wave: [
        { id: 'api', files: ['src/api/'] },
        { id: 'tests', files: ['**/*.test.ts'] },
      ],
      expected: [{ agents: ['api', 'tests'], entries: ['src/api/', '**/*.test.ts'], kind: 'glob', witness: 'src/api/x.test.ts' }],
    },
    {
      title: 'the same glob in three agents gives every pair, in record order',
      wave: [
        { id: 'a', files: ['lib/'] },
        { id: 'b', files: ['lib/**'] },
        { id: 'c', files: ['lib/'] },
      ],
      expected: [
        { agents: ['a', 'b'], entries: ['lib/', 'lib/**'], kind: 'glob', witness: 'lib/x' },
        { agents: ['a', 'c'], entries: ['lib/', 'lib/'], kind: 'glob', witness: 'lib/x' },
        { agents: ['b', 'c'], entries: ['lib/**', 'lib/'], kind: 'glob', witness: 'lib/x' },
      ],
    },
    {
      title: 'records without an id are named <unnamed#i> and still compared',
      wave: [{ files: ['a.ts'] }, { id: '', files: ['a.ts'] }],
      expected: [{ agents: ['<unnamed#1>', '<unnamed#2>'], entries: ['a.ts', 'a.ts'], kind: 'concrete', witness: 'a.ts' }],
    },
    {
      title: 'an agent never collides with itself',
      wave: [{ id: 'a', files: ['src/', 'src/a.ts', 'src/**/*.ts'] }],
      expected: [],
    },
  ];
  for (const { title, wave, expected, knownFiles } of cases) {
    it(title, () => {
      const report = findCollisions(records(wave), { knownFiles });
      assert.deepEqual(report.collisions, expected);
      assert.equal(report.ok, expected.length === 0);
    });
  }

  it('reports ids used twice (case-insensitively) separately, never as a self-collision', () => {
    const report = findCollisions(
      records([
        { id: 'api', files: ['src/a.ts'] },
        { id: 'API', files: ['src/a.ts'] },
        { id: 'ui', files: ['src/b.ts'] },
      ]),
    );
    assert.deepEqual(report, { ok: false, collisions: [], duplicateIds: ['api'] });
  });

  it('folds case in ignore-case mode', () => {
    const wave = records([
      { id: 'a', files: ['SRC/Main.ts'] },
      { id: 'b', files: ['src/main.TS'] },
    ]);
    assert.equal(findCollisions(wave).ok, true);
    const folded = findCollisions(wave, { ignoreCase: true });
    assert.equal(folded.collisions.length, 1);
    assert.equal(folded.collisions[0]?.kind, 'concrete');
  });

  it('compares in Unicode NFC, as the gates do: spellings they take for one path collide', () => {
    const pairs: Array<[string, string]> = [
      ['docs/caf\u00e9.md', 'docs/cafe\u0301.md'],
      ['src/K.ts', 'src/\u212a.ts'],
      ['lib/cafe\u0301/', 'lib/caf\u00e9/x.ts'],
      ['lib/caf\u00e9/*.ts', 'lib/cafe\u0301/y.ts'],
    ];
    for (const [left, right] of pairs) {
      const report = findCollisions(records([{ id: 'a', files: [left] }, { id: 'b', files: [right] }]));
      assert.equal(report.collisions.length, 1, `${left} / ${right}`);
      assert.equal(report.collisions[0]?.witness, report.collisions[0]?.witness.normalize('NFC'), 'the witness is the path the gates compare');
    }
    assert.equal(findCollisions(records([{ id: 'a', files: ['docs/caf\u00e9.md'] }, { id: 'b', files: ['docs/cafe.md'] }])).ok, true);
  });

  it('stops a proof past its budget with ScopeProofTooComplex, never a verdict: many alternatives, many root globs, a huge product', () => {
    const braceList = (prefix: string, count: number) => `{${Array.from({ length: count }, (_, index) => `${prefix}${index}`).join(',')}}`;
    const wide = records([{ id: 'a', files: [`**/*.${braceList('a', 64)}`] }, { id: 'b', files: [`**/*.${braceList('b', 64)}`] }]);
    assert.equal(findCollisions(wide, { pairBudget: 64 * 64 }).ok, true, 'within the budget: proven disjoint');
    assert.throws(() => findCollisions(wide, { pairBudget: 64 * 64 - 1 }), (error: unknown) => error instanceof ScopeProofTooComplex && /more than 4095 pairs of alternatives/.test(error.message));
    const rootGlobs = records(Array.from({ length: 200 }, (_, index) => ({ id: `a${index}`, files: [`**/*.e${index}`] })));
    assert.equal(findCollisions(rootGlobs).ok, true);
    assert.throws(() => findCollisions(rootGlobs, { pairBudget: 1000 }), ScopeProofTooComplex);
    // Infixes on both sides: no alternative is surely apart from another, and their product is searched.
    const infixes = records([{ id: 'a', files: [`**/*${braceList('a', 1024)}*`] }, { id: 'b', files: [`**/*${braceList('b', 1024)}*`] }]);
    assert.throws(() => findCollisions(infixes), (error: unknown) => error instanceof ScopeProofTooComplex && new RegExp(`more than ${COMMON_PATH_STEP_BUDGET} steps`).test(error.message));
  });

  it('accepts the known files as a prebuilt index', () => {
    const index = new FileIndex(['src/b.ts', 'src/a.ts']);
    const report = findCollisions(records([{ id: 'x', files: ['src/*'] }, { id: 'y', files: ['src/*.ts'] }]), { knownFiles: index });
    assert.equal(report.collisions[0]?.witness, 'src/a.ts');
  });

  it('finds exactly the colliding pairs that pairwise intersection finds (random waves)', function () {
    this.timeout(300_000);
    const wave = fc.array(fc.array(entryArbitrary(), { minLength: 1, maxLength: 4 }), { minLength: 2, maxLength: 5 });
    fc.assert(
      fc.property(wave, (agents) => {
        const declared: ScopeRecord[] = [];
        agents.forEach((entries, index) => {
          const files = entries.map(usable).filter((entry): entry is string => entry !== undefined);
          declared.push({ id: `agent${index}`, files: [...new Set(files)] });
        });
        const expected = new Set<string>();
        declared.forEach((left, i) =>
          declared.slice(i + 1).forEach((right) => {
            for (const a of left.files) for (const b of right.files) if (intersects(a, b).overlaps) expected.add(`${left.id}|${right.id}|${a}|${b}`);
          }),
        );
        const report = findCollisions(declared);
        const found = new Set(report.collisions.map((c) => `${c.agents[0]}|${c.agents[1]}|${c.entries[0]}|${c.entries[1]}`));
        assert.deepEqual([...found].sort(), [...expected].sort());
        assert.equal(found.size, report.collisions.length, 'no pair is reported twice');
        for (const collision of report.collisions) {
          assert.ok(oracleMatcher(collision.entries[0])(collision.witness) && oracleMatcher(collision.entries[1])(collision.witness));
        }
      }),
      { numRuns: 300 },
    );
  });
  it('reports the pairs in record order, then in each record\'s entry order, in both case modes (random waves, oracle: every pair by intersects)', function () {
    this.timeout(300_000);
    const wave = fc.array(fc.array(entryArbitrary(), { minLength: 1, maxLength: 4 }), { minLength: 2, maxLength: 4 });
    fc.assert(
      fc.property(wave, fc.boolean(), (agents, ignoreCase) => {
        const declared: ScopeRecord[] = agents.map((entries, index) => ({
          id: `agent${index}`,
          files: [...new Set(entries.map(usable).filter((entry): entry is string => entry !== undefined))],
        }));
        const expected: string[] = [];
        declared.forEach((left, i) =>
          declared.slice(i + 1).forEach((right) => {
            for (const a of left.files) for (const b of right.files) if (intersects(a, b, { ignoreCase }).overlaps) expected.push(`${left.id}|${right.id}|${a}|${b}`);
          }),
        );
        const report = findCollisions(declared, { ignoreCase });
        assert.deepEqual(
          report.collisions.map((c) => `${c.agents[0]}|${c.agents[1]}|${c.entries[0]}|${c.entries[1]}`),
          expected,
        );
      }),
      { numRuns: 300 },
    );
  });

  it('gives the same answers with entries compiled and kept by the caller, within its bound or past it (random waves)', function () {
    this.timeout(300_000);
    const wave = fc.array(fc.array(entryArbitrary(), { minLength: 1, maxLength: 4 }), { minLength: 2, maxLength: 4 });
    fc.assert(
      fc.property(wave, fc.boolean(), fc.constantFrom(0, 8, 1_000_000), (agents, ignoreCase, bound) => {
        const declared: ScopeRecord[] = agents.map((entries, index) => ({
          id: `agent${index}`,
          files: [...new Set(entries.map(usable).filter((entry): entry is string => entry !== undefined))],
        }));
        const compiled = new CompiledEntries(bound);
        const alone = findCollisions(declared, { ignoreCase });
        assert.deepEqual(findCollisions(declared, { ignoreCase, compiled }), alone);
        // Asked again, with whatever the first call kept.
        assert.deepEqual(findCollisions(declared, { ignoreCase, compiled }), alone);
      }),
      { numRuns: 200 },
    );
  });

  it('against one record, reports exactly the collisions of the whole wave that involve it, in the same order (random waves)', function () {
    this.timeout(300_000);
    const wave = fc.array(fc.array(entryArbitrary(), { minLength: 1, maxLength: 4 }), { minLength: 2, maxLength: 5 });
    fc.assert(
      fc.property(wave, fc.nat(), fc.boolean(), (agents, pick, ignoreCase) => {
        const declared: ScopeRecord[] = agents.map((entries, index) => ({
          id: `agent${index}`,
          files: [...new Set(entries.map(usable).filter((entry): entry is string => entry !== undefined))],
        }));
        const against = pick % declared.length;
        const id = declared[against]?.id;
        const whole = findCollisions(declared, { ignoreCase });
        const mine = findCollisions(declared, { ignoreCase, against });
        assert.deepEqual(mine.collisions, whole.collisions.filter((collision) => collision.agents.includes(id as string)));
      }),
      { numRuns: 300 },
    );
  });

  it('against one record, spends its budget on that record\'s pairs alone: others overlapping among themselves cannot use it up', () => {
    // Two earlier agents with 1,500 globs each under one directory (3,000 spellings, about 4,500,000 pairs to
    // prove, past the 2,000,000 budget), and a new one that shares that directory but none of their files.
    const globs = (tag: string) => Array.from({ length: 1500 }, (_, index) => `src/app/m${index}*/${tag}.ts`);
    const records: ScopeRecord[] = [
      { id: 'new', files: ['src/app/other/x.ts'] },
      { id: 'earlier1', files: globs('f') },
      { id: 'earlier2', files: globs('g') },
    ];
    assert.throws(() => findCollisions(records), ScopeProofTooComplex);
    assert.deepEqual(findCollisions(records, { against: 0 }).collisions, []);
  });

  it('withKnownWitnesses gives the collisions found without files the witnesses findCollisions gives with them (random waves and files)', function () {
    this.timeout(300_000);
    const wave = fc.array(fc.array(entryArbitrary(), { minLength: 1, maxLength: 4 }), { minLength: 2, maxLength: 4 });
    const file = fc.array(fc.constantFrom('a', 'b', 'A', 'B', '.a', 'ab', 'x.ts'), { minLength: 1, maxLength: 3 }).map((segments) => segments.join('/'));
    fc.assert(
      fc.property(wave, fc.array(file, { maxLength: 12 }), fc.boolean(), (agents, files, ignoreCase) => {
        const declared: ScopeRecord[] = agents.map((entries, index) => ({
          id: `agent${index}`,
          files: [...new Set(entries.map(usable).filter((entry): entry is string => entry !== undefined))],
        }));
        const withFiles = findCollisions(declared, { ignoreCase, knownFiles: files });
        const without = findCollisions(declared, { ignoreCase });
        assert.deepEqual(withKnownWitnesses(without.collisions, files, { ignoreCase }), withFiles.collisions);
        assert.deepEqual(withKnownWitnesses(without.collisions, new FileIndex(files, { ignoreCase }), { compiled: new CompiledEntries() }), withFiles.collisions);
      }),
      { numRuns: 300 },
    );
  });
});

// Found by red-team review, 2026-12-06.
describe('findCollisions where case is ignored: the proof folds as the gate does', () => {
  const pair = (alice: string, bob: string) => findCollisions(records([{ id: 'alice', files: [alice] }, { id: 'bob', files: [bob] }]), { ignoreCase: true });

  it('finds the collision of entries that differ only in a folded Σ, with a witness both name', () => {
    for (const [alice, bob] of [['docs/ΚΑΛΟΣ', 'docs/καλος'], ['aΣ/x', 'aς/*'], ['docs/καλοσ', 'docs/καλος']] as const) {
      const report = pair(alice, bob);
      assert.equal(report.ok, false, `${alice} / ${bob}`);
    }
  });

  it('gives a verdict (never an engine error) for classes of non-ASCII capitals, with witnesses the gate reads alike', () => {
    assert.equal(pair('docs/[!é]', 'docs/[É]').ok, true, 'a folded path never holds É, and é is not in the first');
    assert.equal(pair('src/**', 'src/[İ]*').ok, false);
    assert.equal(pair('**', '?b[Σ]/').ok, false);
  });

  it('stops a proof over huge classes past its budget, never a verdict after minutes', () => {
    // 20,000 characters each, every other one from `start`, over the surrogates' block (which no entry may hold).
    const members = (start: number) => {
      const characters: string[] = [];
      for (let code = start; characters.length < 20_000; code += 2) if (code < 0xd800 || code > 0xdfff) characters.push(String.fromCharCode(code));
      return characters.join('');
    };
    const wave = records([
      { id: 'alice', files: [`[${members(0x4e00)}]x`] },
      { id: 'bob', files: [`[${members(0x4e01)}]y*`] },
    ]);
    assert.throws(() => findCollisions(wave), ScopeProofTooComplex);
  });
});

describe('claimedText', () => {
  it('names both entries and the example, or the one entry both agents wrote, with the example only when it adds something', () => {
    assert.equal(claimedText(['src/', 'src/ui/x.tsx'], 'src/ui/x.tsx'), 'src/ and src/ui/x.tsx (for example src/ui/x.tsx)');
    assert.equal(claimedText(['src/shared/types.ts', 'src/shared/types.ts'], 'src/shared/types.ts'), 'src/shared/types.ts');
    assert.equal(claimedText(['src/', 'src/'], 'src/x.ts'), 'src/ (for example src/x.ts)');
  });
});
