import assert from 'node:assert/strict';
import type { DeclaredRecord } from '../../../src/planner/plan/declarationInput';
import { decodePlan, emptyPlan, formatClaims, nextPlanFiles } from '../../../src/planner/sync/planRef';
import { MAX_PUSH_ATTEMPTS, publishWave, releaseClaim } from '../../../src/planner/sync/publish';
import type { PublishRequest } from '../../../src/planner/sync/publish';
import { claimOf, cloneNamed, HOUR, manifestFor, MemoryPlanRef, T0, waveToPublish } from './syncFixtures';

const braceList = (prefix: string, count = 1024) => `{${Array.from({ length: count }, (_, index) => `${prefix}${index}`).join(',')}}`;
const alpha = cloneNamed('c-alpha');
const beta = cloneNamed('c-beta');

function request(clone = alpha, wave = 1, records: DeclaredRecord[] = [{ id: 'alice', files: ['src/a/'] }], now = T0): PublishRequest {
  return { clone, manifest: manifestFor(wave, records), records, session: 'sess', ignoreCase: false, head: null, now: () => now, ttlMs: 4 * HOUR };
}

/** Puts a plan on the ref as another clone's push would. */
function pushAs(ref: MemoryPlanRef, clone = beta, wave = 1, records: DeclaredRecord[] = [{ id: 'bob', files: ['src/b/'] }], at = T0) {
  const current = ref.files();
  const decoded = decodePlan(current);
  const files = nextPlanFiles(current, decoded, { claims: [...decoded.claims.filter((c) => c.clone !== clone.id), claimOf(clone, wave, at)], write: [waveToPublish(clone, wave, records, at)] }, at);
  ref.tip = ref.writeCommit(files, ref.tip, `as ${clone.id}`);
}

describe('publishWave (fetch, prove, compare-and-swap push)', () => {
  it('publishes onto an empty remote: one claim, the wave\'s files, a root commit', async () => {
    const ref = new MemoryPlanRef();
    const result = await publishWave(request(), ref);
    assert.equal(result.ok, true);
    if (!result.ok) return;
    assert.equal(result.attempts, 1);
    assert.equal(ref.tip, result.commit);
    assert.equal(ref.commits.get(result.commit)?.parent, null);
    const plan = decodePlan(ref.files());
    assert.deepEqual(plan.claims.map((c) => [c.clone, c.wave, c.session]), [['c-alpha', 1, 'sess']]);
    assert.deepEqual(plan.waves[0]?.records, [{ id: 'alice', files: ['src/a/'] }]);
  });

  it('refuses a wave that overlaps another clone\'s claim, with the witness, and pushes nothing', async () => {
    const ref = new MemoryPlanRef();
    pushAs(ref, beta, 3, [{ id: 'bob', files: ['src/a/x.ts'] }]);
    const before = ref.tip;
    const result = await publishWave(request(alpha, 1, [{ id: 'alice', files: ['src/a/'] }]), ref);
    assert.equal(result.ok, false);
    if (result.ok || result.reason !== 'conflict') throw new Error(JSON.stringify(result));
    assert.equal(result.conflicts[0]?.witness, 'src/a/x.ts');
    assert.equal(result.conflicts[0]?.other.wave, 3);
    assert.equal(ref.tip, before);
    assert.equal(ref.pushes, 0);
  });

  it('real witnesses come from the repository\'s files, listed only when there is a conflict', async () => {
    const ref = new MemoryPlanRef();
    pushAs(ref, beta, 1, [{ id: 'bob', files: ['src/**/*.ts'] }]);
    let listed = 0;
    const result = await publishWave({ ...request(alpha, 1, [{ id: 'alice', files: ['src/*/x.*'] }]), knownFiles: () => (listed += 1, ['src/q/x.ts']) }, ref);
    assert.equal(listed, 1);
    assert.equal(result.ok === false && result.reason === 'conflict' && result.conflicts[0]?.witness, 'src/q/x.ts');
    await publishWave({ ...request(beta, 2, [{ id: 'z', files: ['zzz/'] }]), knownFiles: () => (listed += 1, []) }, ref);
    assert.equal(listed, 1, 'a disjoint wave never lists the repository');
  });

  it('a wave that cannot be proven against a claim within the proof\'s budget is refused as unproven, and nothing is pushed', async () => {
    const ref = new MemoryPlanRef();
    // A claim someone pushed to make every proof against it run for minutes: 1024 alternatives per entry.
    pushAs(ref, beta, 3, [{ id: 'bob', files: [0, 1].map((entry) => `**/*.${braceList(`b${entry}_`)}`) }]);
    const before = ref.tip;
    const result = await publishWave(request(alpha, 1, [{ id: 'alice', files: [0, 1].map((entry) => `**/*.${braceList(`a${entry}_`)}`) }]), ref);
    assert.equal(result.ok, false);
    if (result.ok) return;
    assert.equal(result.reason, 'unprovable');
    assert.match(result.reason === 'unprovable' ? result.message : '', /too complex to prove disjoint/);
    assert.equal(ref.tip, before);
  });

  it('publishes beside a disjoint claim and keeps it', async () => {
    const ref = new MemoryPlanRef();
    pushAs(ref);
    const result = await publishWave(request(), ref);
    assert.equal(result.ok, true);
    if (!result.ok) return;
    assert.deepEqual(result.provenAgainst.map((c) => c.clone), ['c-beta']);
    assert.deepEqual(decodePlan(ref.files()).claims.map((c) => c.clone).sort(), ['c-alpha', 'c-beta']);
  });

  it('on a lost race refetches and proves again: an overlapping winner gets us refused', async () => {
    const ref = new MemoryPlanRef();
    ref.beforePush = (attempt) => {
      if (attempt === 1) pushAs(ref, beta, 9, [{ id: 'bob', files: ['src/a/**'] }]);
    };
    const result = await publishWave(request(), ref);
    assert.equal(result.ok, false);
    if (result.ok || result.reason !== 'conflict') throw new Error(JSON.stringify(result));
    assert.equal(result.attempts, 2);
    assert.equal(ref.fetches, 2);
    assert.equal(result.conflicts[0]?.other.clone, 'c-beta');
    assert.equal(decodePlan(ref.files()).claims.some((c) => c.clone === 'c-alpha'), false, 'the loser\'s claim never lands');
  });

  it('on a lost race against a disjoint winner, both land (the second on its second attempt)', async () => {
    const ref = new MemoryPlanRef();
    ref.beforePush = (attempt) => {
      if (attempt === 1) pushAs(ref);
    };
    const result = await publishWave(request(), ref);
    assert.equal(result.ok && result.attempts, 2);
    const plan = decodePlan(ref.files());
    assert.deepEqual(plan.claims.map((c) => c.clone).sort(), ['c-alpha', 'c-beta']);
    assert.equal(plan.waves.length, 2);
  });

  it('a remote that refuses twice at the same tip is a refusal, not a race', async () => {
    const ref = new MemoryPlanRef();
    ref.refuseWith = '[remote rejected] (pre-receive hook declined)';
    const result = await publishWave(request(), ref);
    assert.deepEqual(result, { ok: false, reason: 'push-refused', message: '[remote rejected] (pre-receive hook declined)', attempts: 2 });
  });

  it('gives up after MAX_PUSH_ATTEMPTS when the ref never stops moving', async () => {
    const ref = new MemoryPlanRef();
    let n = 0;
    ref.beforePush = () => pushAs(ref, cloneNamed(`c-busy${(n += 1)}`), 1, [{ id: 'b', files: [`busy${n}/`] }]);
    const result = await publishWave(request(), ref);
    assert.deepEqual(result, { ok: false, reason: 'contention', attempts: MAX_PUSH_ATTEMPTS });
  });

  it('an expired claim does not block, and is dropped from the next plan', async () => {
    const ref = new MemoryPlanRef();
    pushAs(ref, beta, 1, [{ id: 'bob', files: ['src/a/'] }], T0 - 5 * HOUR);
    const result = await publishWave(request(alpha, 1, [{ id: 'alice', files: ['src/a/'] }], T0), ref);
    assert.equal(result.ok, true);
    if (!result.ok) return;
    assert.deepEqual(result.expired.map((c) => c.clone), ['c-beta']);
    assert.deepEqual(decodePlan(ref.files()).claims.map((c) => c.clone), ['c-alpha']);
  });

  it('a claim whose wave cannot be read blocks (nothing can be proven against it)', async () => {
    const ref = new MemoryPlanRef();
    pushAs(ref);
    const broken = new Map(ref.files());
    broken.delete('clones/c-beta/waves/1/filescopes/wave-1.scopes.json');
    ref.tip = ref.writeCommit(broken, ref.tip, 'damage');
    const result = await publishWave(request(), ref);
    assert.equal(result.ok === false && result.reason, 'unreadable-claim');
  });

  it('a plan ref that is not ours is refused as a whole', async () => {
    const ref = new MemoryPlanRef();
    ref.tip = ref.writeCommit(new Map([['README', 'hello']]), null, 'foreign');
    const result = await publishWave(request(), ref);
    assert.equal(result.ok === false && result.reason, 'corrupt-plan');
  });

  it('publishing again renews this clone\'s claim; another wave replaces it (one claim per clone)', async () => {
    const ref = new MemoryPlanRef();
    await publishWave(request(alpha, 1, undefined, T0), ref);
    await publishWave(request(alpha, 1, undefined, T0 + HOUR), ref);
    let claims = decodePlan(ref.files()).claims;
    assert.equal(claims.length, 1);
    assert.equal(claims[0]?.claimedAt, new Date(T0).toISOString());
    assert.equal(claims[0]?.expiresAt, new Date(T0 + 5 * HOUR).toISOString());
    await publishWave(request(alpha, 2, [{ id: 'alice', files: ['src/a2/'] }], T0 + 2 * HOUR), ref);
    claims = decodePlan(ref.files()).claims;
    assert.deepEqual(claims.map((c) => c.wave), [2]);
    assert.equal(decodePlan(ref.files()).waves.length, 2, 'wave 1\'s plan stays for verify');
  });

  it('republishing a wave replaces its copy on the ref whole, even a damaged one, and keeps the other waves', async () => {
    const ref = new MemoryPlanRef();
    await publishWave(request(alpha, 1, [{ id: 'alice', files: ['src/a/'] }, { id: 'dora', files: ['src/d/'] }]), ref);
    await publishWave(request(alpha, 2, [{ id: 'alice', files: ['src/a2/'] }], T0 + HOUR), ref);
    // Wave 2's copy is damaged on the ref (its per-agent file no longer matches the aggregate).
    const damaged = new Map(ref.files());
    damaged.set('clones/c-alpha/waves/2/filescopes/wave-2/alice.json', '["elsewhere/"]\n');
    ref.tip = ref.writeCommit(damaged, ref.tip, 'damaged');
    const result = await publishWave(request(alpha, 2, [{ id: 'erin', files: ['src/e/'] }], T0 + 2 * HOUR), ref);
    assert.equal(result.ok, true);
    const plan = decodePlan(ref.files());
    assert.deepEqual(plan.problems, []);
    const wave2 = plan.waves.find((wave) => wave.wave === 2);
    assert.deepEqual(wave2?.problems, []);
    assert.deepEqual(wave2?.records, [{ id: 'erin', files: ['src/e/'] }]);
    assert.equal([...ref.files().keys()].some((path) => path.includes('wave-2/alice.json')), false, 'the dropped agent\'s file is gone');
    assert.deepEqual(plan.waves.find((wave) => wave.wave === 1)?.records?.map((record) => record.id), ['alice', 'dora'], 'wave 1 is kept as it was');
  });
});

describe('releaseClaim', () => {
  it('ends this clone\'s claim and keeps the wave\'s plan', async () => {
    const ref = new MemoryPlanRef();
    pushAs(ref);
    await publishWave(request(), ref);
    const result = await releaseClaim({ clone: alpha, wave: 1, now: () => T0 }, ref);
    assert.equal(result.ok && result.released?.clone, 'c-alpha');
    const plan = decodePlan(ref.files());
    assert.deepEqual(plan.claims.map((c) => c.clone), ['c-beta']);
    assert.ok(plan.waves.some((wave) => wave.clone === 'c-alpha'));
  });

  it('ends every copy of this clone\'s claim on the wave, the first expired or not (a hand-edited claims.json)', async () => {
    const ref = new MemoryPlanRef();
    pushAs(ref);
    await publishWave(request(), ref);
    const current = ref.files();
    const decoded = decodePlan(current);
    const live = decoded.claims.find((claim) => claim.clone === 'c-alpha');
    assert.ok(live);
    const expiredCopy = { ...live, expiresAt: new Date(T0 - HOUR).toISOString() };
    ref.tip = ref.writeCommit(new Map([...current, ['claims.json', formatClaims([expiredCopy, ...decoded.claims, live])]]), ref.tip, 'hand-edited');
    const result = await releaseClaim({ clone: alpha, wave: 1, now: () => T0 }, ref);
    assert.equal(result.ok && result.released?.clone, 'c-alpha');
    assert.deepEqual(decodePlan(ref.files()).claims.map((c) => c.clone), ['c-beta']);
  });

  it('says there was nothing to release (and whether it had expired), pushing nothing', async () => {
    const ref = new MemoryPlanRef();
    pushAs(ref, alpha, 1, [{ id: 'a', files: ['a/'] }], T0 - 5 * HOUR);
    const pushes = ref.pushes;
    assert.deepEqual(await releaseClaim({ clone: alpha, wave: 2, now: () => T0 }, ref), { ok: true, released: null, attempts: 1, expired: null });
    const expired = await releaseClaim({ clone: alpha, wave: 1, now: () => T0 }, ref);
    assert.equal(expired.ok && expired.released === null && expired.expired?.wave, 1);
    assert.equal(ref.pushes, pushes);
  });

  it('retries a lost race', async () => {
    const ref = new MemoryPlanRef();
    await publishWave(request(), ref);
    ref.beforePush = (attempt) => {
      if (attempt === 2) pushAs(ref);
    };
    const result = await releaseClaim({ clone: alpha, wave: 1, now: () => T0 }, ref);
    assert.equal(result.ok && result.attempts, 2);
    assert.deepEqual(decodePlan(ref.files()).claims.map((c) => c.clone), ['c-beta']);
  });

  it('keeps an empty plan valid', async () => {
    assert.deepEqual(decodePlan(nextPlanFiles(new Map(), emptyPlan(), { claims: [] }, T0)).problems, []);
  });
});
