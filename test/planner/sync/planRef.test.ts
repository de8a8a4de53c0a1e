import assert from 'node:assert/strict';
import {
  CLAIMS_FILE,
  decodePlan,
  emptyPlan,
  encodePublishedWave,
  findPublishedWave,
  formatClaims,
  isRemoteName,
  nextPlanFiles,
  PLAN_MARKER_FILE,
  PLAN_RETENTION_MS,
  trackingRefOf,
} from '../../../src/planner/sync/planRef';
import { claimOf, cloneNamed, HOUR, T0, waveToPublish } from './syncFixtures';

const alpha = cloneNamed('c-alpha');
const beta = cloneNamed('c-beta');

function planWith(waves: ReturnType<typeof waveToPublish>[], claims = waves.map((wave) => claimOf(cloneNamed(wave.info.clone), wave.info.wave))) {
  return nextPlanFiles(new Map(), emptyPlan(), { claims, write: waves }, T0);
}

describe('the plan tree (refs/wave-scope/plan)', () => {
  it('decodes what it encodes: claims, manifest and records of each clone\'s wave', () => {
    const files = planWith([
      waveToPublish(alpha, 3, [{ id: 'alice', files: ['src/a/'] }, { id: 'coordinator', files: ['README.md'] }]),
      waveToPublish(beta, 1, [{ id: 'bob', files: ['lib/**/*.ts'] }]),
    ]);
    const plan = decodePlan(files);
    assert.deepEqual(plan.problems, []);
    assert.deepEqual(plan.claims.map((claim) => [claim.clone, claim.wave]), [['c-alpha', 3], ['c-beta', 1]]);
    const wave = findPublishedWave(plan, 'c-alpha', 3);
    assert.deepEqual(wave?.problems, []);
    assert.deepEqual(wave?.records, [{ id: 'alice', files: ['src/a/'] }, { id: 'coordinator', files: ['README.md'] }]);
    assert.equal(wave?.manifest?.role, 'implementation');
    assert.equal(wave?.info?.cloneName, alpha.name);
    assert.ok(files.has('clones/c-alpha/waves/3/filescopes/wave-3/alice.json'), 'per-agent files sit where a state dir keeps them');
    assert.ok(files.has('clones/c-alpha/waves/3/filescopes/wave-3.scopes.json'));
  });

  it('an empty tree is the empty plan', () => {
    assert.deepEqual(decodePlan(new Map()), emptyPlan());
  });

  const base = () => new Map(planWith([waveToPublish(alpha, 2, [{ id: 'alice', files: ['src/a.ts'] }])]));
  const damaged: Array<{ name: string; change: (files: Map<string, string>) => void; whole: RegExp | undefined; wave: RegExp | undefined }> = [
    { name: 'no marker', change: (f) => f.delete(PLAN_MARKER_FILE), whole: /not written by Wave Scope/, wave: undefined },
    { name: 'a newer format', change: (f) => f.set(PLAN_MARKER_FILE, '{"version":2}'), whole: /format version 2/, wave: undefined },
    { name: 'claims not JSON', change: (f) => f.set(CLAIMS_FILE, '{'), whole: /claims\.json is missing/, wave: undefined },
    { name: 'a claim without a clone', change: (f) => f.set(CLAIMS_FILE, '{"version":1,"claims":[{"wave":1}]}'), whole: /claim #1 is not a valid claim/, wave: undefined },
    { name: 'a stray path', change: (f) => f.set('notes.txt', 'x'), whole: /unexpected path on the plan ref: notes\.txt/, wave: undefined },
    { name: 'a clone id that is not one', change: (f) => f.set('clones/C..x/waves/1/published.json', '{}'), whole: /unexpected path/, wave: undefined },
    { name: 'a file publish never writes in a wave', change: (f) => f.set('clones/c-alpha/waves/2/evil.sh', 'x'), whole: /unexpected path on the plan ref: clones\/c-alpha\/waves\/2\/evil\.sh/, wave: undefined },
    { name: 'a ".." segment in a wave', change: (f) => f.set('clones/c-alpha/waves/2/filescopes/wave-2/../x.json', '[]'), whole: /unexpected path/, wave: undefined },
    { name: 'a file below an agent\'s', change: (f) => f.set('clones/c-alpha/waves/2/filescopes/wave-2/alice.json/x', '[]'), whole: /unexpected path/, wave: undefined },
    { name: 'another wave\'s aggregate in a wave', change: (f) => f.set('clones/c-alpha/waves/2/filescopes/wave-3.scopes.json', '[]'), whole: /unexpected path/, wave: undefined },
    {
      name: 'a per-agent file that differs from the aggregate',
      change: (f) => f.set('clones/c-alpha/waves/2/filescopes/wave-2/alice.json', '["src/b.ts"]\n'),
      whole: undefined,
      wave: /differs from agent "alice"/,
    },
    {
      name: 'a stale per-agent file beside the aggregate',
      change: (f) => f.set('clones/c-alpha/waves/2/filescopes/wave-2/mallory.json', '["**"]\n'),
      whole: undefined,
      wave: /stale per-agent file for "mallory"/,
    },
    {
      name: 'an entry not in normal form',
      change: (f) => {
        f.set('clones/c-alpha/waves/2/filescopes/wave-2.scopes.json', '[{"id":"alice","files":["./src//a.ts"]}]');
        f.set('clones/c-alpha/waves/2/filescopes/wave-2/alice.json', '["./src//a.ts"]');
      },
      whole: undefined,
      wave: /not in normal form/,
    },
    {
      name: 'a manifest naming another wave',
      change: (f) => f.set('clones/c-alpha/waves/2/wave-scope.json', JSON.stringify({ version: 1, wave: 5, role: 'x', allowedPaths: [], blockedCommands: [] })),
      whole: undefined,
      wave: /names wave 5, not 2/,
    },
    { name: 'no publication record', change: (f) => f.delete('clones/c-alpha/waves/2/published.json'), whole: undefined, wave: /published\.json is missing/ },
    { name: 'no aggregate', change: (f) => f.delete('clones/c-alpha/waves/2/filescopes/wave-2.scopes.json'), whole: undefined, wave: /no aggregate/ },
  ];
  for (const { name, change, whole, wave } of damaged) {
    it(`reports ${name}, never trusting it`, () => {
      const files = base();
      change(files);
      const plan = decodePlan(files);
      if (whole !== undefined) assert.match(plan.problems.join('\n'), whole);
      else assert.deepEqual(plan.problems, []);
      const published = findPublishedWave(plan, 'c-alpha', 2);
      if (wave !== undefined) {
        assert.match(published?.problems.join('\n') ?? '', wave);
        assert.equal(published?.records === undefined || published.manifest === undefined || published.info === undefined, true);
      }
    });
  }

  it('decodes only the waves asked for, and checks the tree as a whole all the same', () => {
    const files = planWith([waveToPublish(alpha, 2, [{ id: 'alice', files: ['src/a.ts'] }]), waveToPublish(beta, 1, [{ id: 'bob', files: ['lib/'] }])]);
    // A damaged wave that is not asked for is not decoded, so its damage is not reported; a stray path is.
    files.set('clones/c-beta/waves/1/filescopes/wave-1/bob.json', '["elsewhere/"]\n');
    const seen: Array<[string, number, number]> = [];
    const plan = decodePlan(files, {
      wanted: (key, claims) => {
        seen.push([key.clone, key.wave, claims.length]);
        return key.clone === 'c-alpha';
      },
    });
    assert.deepEqual(plan.waves.map((wave) => `${wave.clone}/${wave.wave}`), ['c-alpha/2']);
    assert.deepEqual(findPublishedWave(plan, 'c-alpha', 2)?.records, [{ id: 'alice', files: ['src/a.ts'] }]);
    assert.deepEqual(plan.problems, []);
    assert.deepEqual(seen.sort(), [['c-alpha', 2, 2], ['c-beta', 1, 2]], 'asked once per wave, with the claims');
    assert.match(findPublishedWave(decodePlan(files), 'c-beta', 1)?.problems.join('\n') ?? '', /differs from agent "bob"/, 'decoded in full, the damage shows');
    files.set('notes.txt', 'x');
    assert.match(decodePlan(files, { wanted: () => false }).problems.join('\n'), /unexpected path on the plan ref: notes\.txt/);
  });

  it('the next plan replaces one clone\'s wave and claims, keeps other clones\' files byte for byte', () => {
    const first = planWith([waveToPublish(alpha, 1, [{ id: 'alice', files: ['a/'] }]), waveToPublish(beta, 1, [{ id: 'bob', files: ['b/'] }])]);
    const tampered = new Map(first);
    // Another clone's file in an unusual (but valid) spelling survives untouched.
    const betaAgent = 'clones/c-beta/waves/1/filescopes/wave-1/bob.json';
    tampered.set(betaAgent, '[ "b/" ]');
    const decoded = decodePlan(tampered);
    const next = nextPlanFiles(tampered, decoded, { claims: [claimOf(alpha, 2), claimOf(beta, 1)], write: [waveToPublish(alpha, 2, [{ id: 'alice', files: ['a2/'] }])] }, T0);
    assert.equal(next.get(betaAgent), '[ "b/" ]');
    assert.ok(next.has('clones/c-alpha/waves/1/published.json'), 'an earlier wave of the same clone stays (verify reads it)');
    assert.ok(next.has('clones/c-alpha/waves/2/filescopes/wave-2/alice.json'));
    assert.equal(next.get(CLAIMS_FILE), formatClaims([claimOf(alpha, 2), claimOf(beta, 1)]));
  });

  it('drops an unclaimed wave older than the retention, keeps a claimed one however old', () => {
    const old = T0 - PLAN_RETENTION_MS - HOUR;
    const files = planWith(
      [waveToPublish(alpha, 1, [{ id: 'alice', files: ['a/'] }], old), waveToPublish(beta, 1, [{ id: 'bob', files: ['b/'] }], old)],
      [claimOf(beta, 1, T0)],
    );
    const next = nextPlanFiles(files, decodePlan(files), { claims: [claimOf(beta, 1, T0)] }, T0);
    assert.equal([...next.keys()].some((path) => path.startsWith('clones/c-alpha/')), false);
    assert.equal([...next.keys()].some((path) => path.startsWith('clones/c-beta/waves/1/')), true);
  });

  it('encodes a wave as a state directory of one wave', () => {
    const files = encodePublishedWave(waveToPublish(alpha, 4, [{ id: 'x1', files: ['a.ts'] }]));
    assert.deepEqual([...files.keys()].sort(), [
      'clones/c-alpha/waves/4/filescopes/wave-4.scopes.json',
      'clones/c-alpha/waves/4/filescopes/wave-4/x1.json',
      'clones/c-alpha/waves/4/published.json',
      'clones/c-alpha/waves/4/wave-scope.json',
    ]);
  });

  it('names remotes safely and keeps its copy outside branches', () => {
    assert.equal(trackingRefOf('origin'), 'refs/wave-scope/remotes/origin/plan');
    for (const good of ['origin', 'up-stream', 'a.b_c']) assert.equal(isRemoteName(good), true, good);
    for (const bad of ['', '-x', 'a/b', '../x', 'a..b', 'x.lock', 'https://host/repo.git', 'a b']) assert.equal(isRemoteName(bad), false, bad);
  });
});
