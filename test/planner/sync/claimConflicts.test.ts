import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { ScopeRecord } from '../../../src/planner/scope/collisions';
import { intersects } from '../../../src/planner/scope/scopeAlgebra';
import { normalizeScopeEntry } from '../../../src/planner/scope/scopeEntry';
import { effectiveEntries, findClaimConflicts } from '../../../src/planner/sync/claimConflicts';
import type { ClaimedWaveScopes } from '../../../src/planner/sync/claimConflicts';
import { buildClaimsView, findConflictsWithClaims } from '../../../src/planner/sync/claimsView';
import { claimFor, isClaimBeyondAnyTtl, isClaimLive, MAX_CLAIM_TTL_MS, parseClaim, parseClaimTtl } from '../../../src/planner/sync/claims';
import { decodePlan, emptyPlan, nextPlanFiles } from '../../../src/planner/sync/planRef';
import { publishWave } from '../../../src/planner/sync/publish';
import { entryArbitrary, oracleMatcher, usable } from '../../support/globOracle';
import { claimOf, cloneNamed, HOUR, manifestFor, MemoryPlanRef, T0, waveToPublish } from './syncFixtures';

const alpha = cloneNamed('c-alpha');
const beta = cloneNamed('c-beta');

const claimed = (records: ScopeRecord[], role = '', clone = beta, wave = 1): ClaimedWaveScopes => ({ claim: claimOf(clone, wave), role, records });

describe('claims and their TTL', () => {
  const ttls: Array<[string, number | undefined]> = [
    ['1s', 1000],
    ['90m', 90 * 60_000],
    ['4h', 4 * HOUR],
    ['30d', 30 * 24 * HOUR],
    ['31d', undefined],
    ['0s', undefined],
    ['10', undefined],
    ['1.5h', undefined],
    ['-1h', undefined],
    ['', undefined],
  ];
  for (const [text, expected] of ttls) it(`--ttl ${JSON.stringify(text)} is ${expected ?? 'refused'}`, () => assert.equal(parseClaimTtl(text), expected));

  it('a claim stands until expiresAt, then no longer', () => {
    const claim = claimOf(alpha, 3, T0, HOUR);
    assert.equal(isClaimLive(claim, T0 + HOUR - 1), true);
    assert.equal(isClaimLive(claim, T0 + HOUR), false);
  });

  it('a claim no agreeing clock could have made lapses: renewed further ahead than the longest TTL, or running longer than it', () => {
    const DAY = 24 * HOUR;
    // Published by a clock ten years ahead, with a one-second TTL: lapsed now, not in ten years.
    const ahead = claimOf(alpha, 3, T0 + 3650 * DAY, 1000);
    assert.equal(isClaimLive(ahead, T0), false);
    assert.equal(isClaimBeyondAnyTtl(ahead, T0), true);
    // A clock 29 days ahead is still believed (every TTL is at most 30 days).
    assert.equal(isClaimLive(claimOf(alpha, 3, T0 + 29 * DAY, HOUR), T0), true);
    // A hand-made claim that runs for a year from its renewal.
    const long = { ...claimOf(alpha, 3, T0, HOUR), expiresAt: new Date(T0 + 365 * DAY).toISOString() };
    assert.equal(isClaimLive(long, T0 + HOUR), false);
    assert.equal(isClaimLive(claimOf(alpha, 3, T0, MAX_CLAIM_TTL_MS), T0 + MAX_CLAIM_TTL_MS - 1), true, 'the longest TTL itself stands');
  });

  it('renewing a standing claim keeps claimedAt; a lapsed or other wave starts anew', () => {
    const standing = [claimOf(alpha, 3, T0, HOUR)];
    const renewed = claimFor(alpha, 3, 's', T0 + 30 * 60_000, HOUR, standing);
    assert.equal(renewed.claimedAt, standing[0]?.claimedAt);
    assert.equal(renewed.expiresAt, new Date(T0 + 90 * 60_000).toISOString());
    assert.equal(claimFor(alpha, 4, 's', T0 + 60_000, HOUR, standing).claimedAt, new Date(T0 + 60_000).toISOString());
    assert.equal(claimFor(alpha, 3, 's', T0 + 2 * HOUR, HOUR, standing).claimedAt, new Date(T0 + 2 * HOUR).toISOString());
  });

  it('parses only well-formed claims', () => {
    const good = claimOf(alpha, 1);
    assert.deepEqual(parseClaim(good), good);
    for (const bad of [null, [], { ...good, clone: 'Bad/Id' }, { ...good, wave: 0 }, { ...good, expiresAt: 'soon' }, { ...good, session: '  ' }, { ...good, cloneName: 3 }]) {
      assert.equal(parseClaim(bad), undefined, JSON.stringify(bad));
    }
  });
});

describe('findClaimConflicts (our wave against other clones\' claims)', () => {
  it('is empty for disjoint waves', () => {
    const ours = { role: 'implementation', records: [{ id: 'alice', files: ['src/a/', 'README.md'] }] };
    assert.deepEqual(findClaimConflicts(ours, [claimed([{ id: 'bob', files: ['src/b/**/*.ts', 'docs/'] }], 'implementation')]), []);
  });

  it('names both agents, both entries, the claim and a witness', () => {
    const ours = { role: '', records: [{ id: 'alice', files: ['src/**/*.ts'] }] };
    const [conflict, ...rest] = findClaimConflicts(ours, [claimed([{ id: 'bob', files: ['src/lib/x.ts'] }], '', beta, 7)]);
    assert.deepEqual(rest, []);
    assert.equal(conflict?.agent, 'alice');
    assert.equal(conflict?.entry, 'src/**/*.ts');
    assert.equal(conflict?.other.agent, 'bob');
    assert.equal(conflict?.other.entry, 'src/lib/x.ts');
    assert.equal(conflict?.other.clone, 'c-beta');
    assert.equal(conflict?.other.wave, 7);
    assert.equal(conflict?.kind, 'concrete');
    assert.equal(conflict?.witness, 'src/lib/x.ts');
  });

  it('leaves the glob test siblings out (every same-named file would collide), keeps the plain ones', () => {
    const ours = { role: 'implementation', records: [{ id: 'alice', files: ['src/a/index.ts'] }] };
    const theirs = [claimed([{ id: 'bob', files: ['lib/b/index.ts'] }], 'implementation')];
    assert.deepEqual(findClaimConflicts(ours, theirs), [], 'test/**/index.test.ts is granted to both, as in one local wave');
  });

  it('a plain test sibling our role grants collides with their file', () => {
    const ours = { role: 'implementation', records: [{ id: 'alice', files: ['src/cart/total.ts'] }] };
    const conflicts = findClaimConflicts(ours, [claimed([{ id: 'tester', files: ['src/cart/total.test.ts'] }], 'review')]);
    assert.equal(conflicts.length, 1);
    assert.equal(conflicts[0]?.testSibling, true);
    assert.equal(conflicts[0]?.other.testSibling, false);
    // In a role without test siblings there is nothing to collide.
    assert.deepEqual(findClaimConflicts({ role: 'docs', records: ours.records }, [claimed([{ id: 'tester', files: ['src/cart/total.test.ts'] }], 'review')]), []);
  });

  it('ignores pairs inside one wave and between two other waves', () => {
    const ours = { role: '', records: [{ id: 'a1', files: ['x/'] }, { id: 'a2', files: ['x/y.ts'] }] };
    const conflicts = findClaimConflicts(ours, [claimed([{ id: 'b1', files: ['z/'] }]), claimed([{ id: 'c1', files: ['z/'] }], '', cloneNamed('c-gamma'))]);
    assert.deepEqual(conflicts, []);
  });

  it('folds case when asked (a case-insensitive clone takes part)', () => {
    const ours = { role: '', records: [{ id: 'a', files: ['src/Foo.ts'] }] };
    const theirs = [claimed([{ id: 'b', files: ['src/foo.ts'] }])];
    assert.equal(findClaimConflicts(ours, theirs).length, 0);
    assert.equal(findClaimConflicts(ours, theirs, { ignoreCase: true }).length, 1);
  });

  it('an NFD spelling of an NFC directory is the same directory (the engine compares in NFC): not left out before the proof', () => {
    const nfc = 'caf\u00e9';
    const nfd = 'cafe\u0301';
    for (const [mine, theirs] of [[`${nfc}/a.ts`, `${nfd}/a.ts`], [`${nfc}/*.ts`, `${nfd}/a.ts`], [`${nfd}/`, `${nfc}/b.ts`]]) {
      const conflicts = findClaimConflicts({ role: '', records: [{ id: 'a', files: [mine as string] }] }, [claimed([{ id: 'b', files: [theirs as string] }])]);
      assert.equal(conflicts.length, 1, `${JSON.stringify(mine)} against ${JSON.stringify(theirs)}`);
    }
  });

  // The gates take every entry and path in NFC, so a test sibling spelled in one form and another clone's
  // entry spelled in the other are one file to both: the proof must see one file too.
  const nfc = 'caf\u00e9';
  const nfd = 'cafe\u0301';
  const siblingsAcrossForms: Array<{ name: string; mine: string; theirs: string; ignoreCase?: boolean; witness: string }> = [
    { name: 'our NFC file\'s sibling against their NFD test file', mine: `src/${nfc}.ts`, theirs: `src/${nfd}.test.ts`, witness: `src/${nfc}.test.ts` },
    { name: 'our NFD file\'s sibling against their NFC test file', mine: `src/${nfd}.ts`, theirs: `src/${nfc}.test.ts`, witness: `src/${nfc}.test.ts` },
    { name: 'their NFC file\'s sibling against our NFD test file', mine: `src/${nfd}.test.ts`, theirs: `src/${nfc}.ts`, witness: `src/${nfc}.test.ts` },
    { name: 'our sibling against their glob below the NFD spelling of its directory', mine: `src/${nfc}/a.ts`, theirs: `src/${nfd}/*.test.ts`, witness: `src/${nfc}/a.test.ts` },
    { name: 'our sibling of K against their KELVIN SIGN test file (NFC maps it to K)', mine: 'src/K.ts', theirs: 'src/\u212a.test.ts', witness: 'src/K.test.ts' },
    { name: 'our sibling of KELVIN SIGN against their K test file', mine: 'src/\u212a.ts', theirs: 'src/K.test.ts', witness: 'src/K.test.ts' },
    { name: 'our NFC file\'s sibling against their NFD test file in other case, folding case', mine: 'src/CAF\u00c9.ts', theirs: `src/${nfd}.test.ts`, ignoreCase: true, witness: 'src/CAF\u00c9.test.ts' },
  ];
  for (const { name, mine, theirs, ignoreCase, witness } of siblingsAcrossForms) {
    it(`a plain test sibling meets the other form of its spelling: ${name}`, () => {
      const conflicts = findClaimConflicts({ role: 'implementation', records: [{ id: 'a', files: [mine] }] }, [claimed([{ id: 'b', files: [theirs] }], 'implementation')], { ignoreCase });
      assert.deepEqual(
        conflicts.map((c) => [c.agent, c.other.agent, c.testSibling || c.other.testSibling, c.witness]),
        [['a', 'b', true, witness]],
      );
    });
  }

  it('a plain test sibling meets their sibling of the other form of its file', () => {
    const conflicts = findClaimConflicts({ role: 'implementation', records: [{ id: 'a', files: [`src/${nfc}.ts`] }] }, [claimed([{ id: 'b', files: [`src/${nfd}.ts`] }], 'implementation')]);
    assert.ok(
      conflicts.some((c) => c.testSibling && c.other.testSibling && c.witness === `src/${nfc}.test.ts`),
      JSON.stringify(conflicts.map((c) => [c.entry, c.other.entry])),
    );
    // Kept as spelled, `k` and KELVIN SIGN are two files (NFC maps the sign to `K`, not `k`).
    assert.deepEqual(findClaimConflicts({ role: 'implementation', records: [{ id: 'a', files: ['src/k.ts'] }] }, [claimed([{ id: 'b', files: ['src/\u212a.test.ts'] }], 'implementation')]), []);
  });

  it('takes a known file as witness when one exists', () => {
    const ours = { role: '', records: [{ id: 'a', files: ['src/*.ts'] }] };
    const conflicts = findClaimConflicts(ours, [claimed([{ id: 'b', files: ['src/a*'] }])], { knownFiles: ['src/abc.ts', 'src/b.ts'] });
    assert.equal(conflicts[0]?.witness, 'src/abc.ts');
  });

  it('finds exactly the cross-clone pairs that pairwise intersection finds (random waves, witnesses checked by minimatch)', function () {
    this.timeout(300_000);
    const waveArb = fc.array(fc.array(entryArbitrary(), { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 3 });
    fc.assert(
      fc.property(waveArb, fc.array(waveArb, { minLength: 1, maxLength: 2 }), (oursRaw, othersRaw) => {
        const toRecords = (raw: string[][], prefix: string): ScopeRecord[] =>
          raw.map((entries, index) => ({ id: `${prefix}${index}`, files: [...new Set(entries.map(usable).filter((e): e is string => e !== undefined))] }));
        const ours = { role: '', records: toRecords(oursRaw, 'o') };
        const others = othersRaw.map((raw, index) => claimed(toRecords(raw, 't'), '', cloneNamed(`c-other${index}`), index + 1));
        const expected = new Set<string>();
        for (const mine of ours.records) {
          others.forEach((wave) => {
            for (const theirs of wave.records) {
              for (const a of mine.files) for (const b of theirs.files) if (intersects(a, b).overlaps) expected.add(`${mine.id}|${wave.claim.clone}|${theirs.id}|${a}|${b}`);
            }
          });
        }
        const conflicts = findClaimConflicts(ours, others);
        const found = new Set(conflicts.map((c) => `${c.agent}|${c.other.clone}|${c.other.agent}|${c.entry}|${c.other.entry}`));
        assert.deepEqual([...found].sort(), [...expected].sort());
        assert.equal(found.size, conflicts.length, 'no pair is reported twice');
        for (const conflict of conflicts) assert.ok(oracleMatcher(conflict.entry)(conflict.witness) && oracleMatcher(conflict.other.entry)(conflict.witness));
      }),
      { numRuns: 120 },
    );
  });

  it('with test siblings: exactly the pairs pairwise intersection finds over the effective scopes', function () {
    this.timeout(300_000);
    const pool = [
      'a/x.ts', 'a/y.ts', 'b/x.ts', 'a/x.test.ts', 'b/x.spec.ts', 'a/__tests__/x.ts', 'a/__tests__/y.test.ts', 'b/test_z.py', 'b/z.py',
      'a/*', 'b/**', '*/x.*', '**/*.test.ts', 'a/', 'a/__tests__/', '{a,b}/y.ts',
    ];
    const waveArb = fc.array(fc.uniqueArray(fc.constantFrom(...pool), { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 3 });
    fc.assert(
      fc.property(waveArb, waveArb, fc.constantFrom('implementation', 'docs'), (oursRaw, theirsRaw, theirRole) => {
        const ours = { role: 'implementation', records: oursRaw.map((files, index) => ({ id: `o${index}`, files })) };
        const other = claimed(theirsRaw.map((files, index) => ({ id: `t${index}`, files })), theirRole);
        const expected = new Set<string>();
        for (const mine of ours.records) {
          for (const theirs of other.records) {
            for (const a of effectiveEntries(mine.files, ours.role).entries) {
              for (const b of effectiveEntries(theirs.files, other.role).entries) if (intersects(a, b).overlaps) expected.add(`${mine.id}|${theirs.id}|${a}|${b}`);
            }
          }
        }
        const conflicts = findClaimConflicts(ours, [other]);
        const found = conflicts.map((c) => `${c.agent}|${c.other.agent}|${c.entry}|${c.other.entry}`);
        assert.deepEqual([...new Set(found)].sort(), [...expected].sort());
        assert.equal(new Set(found).size, found.length, 'no pair is reported twice');
        for (const conflict of conflicts) assert.ok(oracleMatcher(conflict.entry)(conflict.witness) && oracleMatcher(conflict.other.entry)(conflict.witness));
      }),
      { numRuns: 200 },
    );
  });

  // Agents whose entries' literal prefixes cannot agree are left out before anything is compiled; entries
  // whose prefixes nearly agree (one segment apart, a case apart, braces whose alternatives climb out of a
  // directory, case folds outside ASCII) must still meet exactly when pairwise intersection says so.
  it('leaves out only agents that cannot meet: exactly the pairs pairwise intersection finds, folding case or not', function () {
    this.timeout(300_000);
    const pool = [
      'src/a/', 'src/A/x.ts', 'src/a/x.ts', 'src/b/x.ts', 'src/ab/', 'src/a/x.test.ts', 'SRC/a/__tests__/x.ts', 'src/', 'src/a',
      'src/{a,b}/x.ts', 'src/q/{..,r}/x.ts', 'src/{q/..,a}/', 'src/*/x.ts', '**/x.ts', 'docs/ΑΣ/', 'docs/ας/n.md', 'docs/ασ/n.md', 'docs/Straße/', 'docs/strasse/x.md',
    ].map((entry) => normalizeScopeEntry(entry));
    const waveArb = fc.array(fc.uniqueArray(fc.constantFrom(...pool), { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 4 });
    fc.assert(
      fc.property(waveArb, waveArb, fc.boolean(), fc.constantFrom('implementation', 'docs'), (oursRaw, theirsRaw, ignoreCase, role) => {
        const ours = { role, records: oursRaw.map((files, index) => ({ id: `o${index}`, files })) };
        const other = claimed(theirsRaw.map((files, index) => ({ id: `t${index}`, files })), 'implementation');
        // Folding case, two test siblings of one agent that differ only in case are one path: the proof
        // names it once, so pairs of agents are compared then (what the filter decides on), entry pairs otherwise.
        const key = (mine: string, theirs: string, a: string, b: string) => (ignoreCase ? `${mine}|${theirs}` : `${mine}|${theirs}|${a}|${b}`);
        const expected = new Set<string>();
        for (const mine of ours.records) {
          for (const theirs of other.records) {
            for (const a of effectiveEntries(mine.files, ours.role).entries) {
              for (const b of effectiveEntries(theirs.files, other.role).entries) if (intersects(a, b, { ignoreCase }).overlaps) expected.add(key(mine.id, theirs.id, a, b));
            }
          }
        }
        const found = findClaimConflicts(ours, [other], { ignoreCase }).map((c) => key(c.agent, c.other.agent, c.entry, c.other.entry));
        assert.deepEqual([...new Set(found)].sort(), [...expected].sort());
      }),
      { numRuns: 300 },
    );
  });

  it('still finds a conflict deep below agents that own separate directories (the filter is not by agent name or first entry)', () => {
    const wave = (prefix: string) => Array.from({ length: 64 }, (_, i) => ({ id: `${prefix}${i}`, files: [`${prefix}/pkg${i}/`, `shared/${prefix}${i}/file.ts`] }));
    const ours = { role: 'implementation', records: wave('a') };
    assert.deepEqual(findClaimConflicts(ours, [claimed(wave('b'), 'implementation')]), []);
    const theirs = wave('b');
    theirs[40]?.files.push('shared/a17/file.test.ts');
    const conflicts = findClaimConflicts(ours, [claimed(theirs, 'implementation')]);
    assert.deepEqual(
      conflicts.map((c) => [c.agent, c.entry, c.testSibling, c.other.agent, c.other.entry, c.witness]),
      [['a17', 'shared/a17/file.test.ts', true, 'b40', 'shared/a17/file.test.ts', 'shared/a17/file.test.ts']],
    );
  });
});

describe('the claims view (plan show --json → claims) and what the planner calls', () => {
  const files = nextPlanFiles(
    new Map(),
    emptyPlan(),
    {
      claims: [claimOf(alpha, 2), claimOf(beta, 5), claimOf(cloneNamed('c-gone'), 1, T0 - 5 * HOUR)],
      write: [waveToPublish(alpha, 2, [{ id: 'mine', files: ['own/'] }]), waveToPublish(beta, 5, [{ id: 'bob', files: ['src/b/'] }])],
    },
    T0 - 5 * HOUR,
  );
  /** The claims view of `plan` as clone alpha sees it, fetched at T0, with these local waves. */
  const viewOf = (plan: Parameters<typeof decodePlan>[0], rest: Pick<Parameters<typeof buildClaimsView>[0], 'now' | 'localWaves' | 'ignoreCase'>) =>
    buildClaimsView({
      plan: decodePlan(plan),
      remote: 'origin',
      trackingRef: 'refs/wave-scope/remotes/origin/plan',
      commit: 'f'.repeat(40),
      fetchedAt: new Date(T0).toISOString(),
      clone: alpha,
      problem: null,
      ...rest,
    });
  const view = viewOf(files, { now: T0 + 60_000, localWaves: [{ wave: 2, role: '', records: [{ id: 'mine', files: ['own/', 'src/b/x.ts'] }] }] });

  it('lists live claims only, marks this clone\'s own, and carries each wave\'s agents and role', () => {
    assert.deepEqual(view.claims.map((claim) => [claim.clone, claim.wave, claim.ownClone]), [['c-alpha', 2, true], ['c-beta', 5, false]]);
    assert.deepEqual(view.claims[1]?.agents, [{ id: 'bob', files: ['src/b/'] }]);
    assert.equal(view.claims[1]?.role, 'implementation');
  });

  it('reports a local wave that overlaps another clone\'s claim, never one against our own claim', () => {
    assert.equal(view.conflicts.length, 1);
    assert.equal(view.conflicts[0]?.localWave, 2);
    assert.equal(view.conflicts[0]?.other.clone, 'c-beta');
    assert.equal(view.conflicts[0]?.witness, 'src/b/x.ts');
  });

  // Publish folds case when the claimed wave's clone is case-insensitive (its published.json says so);
  // plan show and the planner must refuse what publish refuses, or the planner saves a wave publish refuses.
  it('folds case exactly where publish does: where the claimed wave\'s clone folds case, though this one keeps it', async () => {
    for (const theirsFolds of [true, false]) {
      const published = waveToPublish(beta, 5, [{ id: 'bob', files: ['src/B/'] }]);
      const files = nextPlanFiles(new Map(), emptyPlan(), { claims: [claimOf(beta, 5)], write: [{ ...published, info: { ...published.info, ignoreCase: theirsFolds } }] }, T0);
      const draft = { role: 'implementation', records: [{ id: 'mine', files: ['src/b/x.ts'] }] };
      const now = T0 + 60_000;
      const ref = new MemoryPlanRef();
      ref.tip = ref.writeCommit(files, null, 'as c-beta');
      const publish = await publishWave({ clone: alpha, manifest: manifestFor(2, draft.records), records: draft.records, session: null, ignoreCase: false, head: null, now: () => now, ttlMs: HOUR }, ref);
      assert.equal(publish.ok ? 'published' : publish.reason, theirsFolds ? 'conflict' : 'published');
      const shown = viewOf(files, { now, localWaves: [{ wave: 2, ...draft }], ignoreCase: false });
      // The file itself and its plain test siblings, all below bob's src/B/ once case is folded.
      const expected = theirsFolds ? ['src/b/__tests__/x.test.ts', 'src/b/__tests__/x.ts', 'src/b/x.spec.ts', 'src/b/x.test.ts', 'src/b/x.ts'] : [];
      assert.deepEqual(shown.conflicts.map((c) => c.witness).sort(), expected);
      assert.ok(shown.conflicts.every((c) => c.localWave === 2 && c.agent === 'mine' && c.other.agent === 'bob'));
      const planner = findConflictsWithClaims(draft, shown, { now, ignoreCase: false });
      assert.deepEqual(planner.map((c) => c.witness).sort(), expected, 'what the planner calls before it saves');
      if (!publish.ok && publish.reason === 'conflict') assert.deepEqual(publish.conflicts.map((c) => c.witness).sort(), expected, 'publish refuses the same pairs');
      assert.equal(shown.claims[0]?.ignoreCase, theirsFolds, 'the view carries the claim\'s case rule for the planner');
    }
  });

  it('findConflictsWithClaims refuses a draft that overlaps, passes one that does not, and honours expiry', () => {
    assert.equal(findConflictsWithClaims({ role: '', records: [{ id: 'd', files: ['src/**'] }] }, view).length, 1);
    assert.equal(findConflictsWithClaims({ role: '', records: [{ id: 'd', files: ['lib/**'] }] }, view).length, 0);
    assert.equal(findConflictsWithClaims({ role: '', records: [{ id: 'd', files: ['src/**'] }] }, view, { now: T0 + 5 * HOUR }).length, 0);
    assert.equal(findConflictsWithClaims({ role: '', records: [{ id: 'd', files: ['src/**'] }] }, view, { except: { clone: 'c-beta', wave: 5 } }).length, 0);
  });
});
