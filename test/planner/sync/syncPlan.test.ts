import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodeDeclarationFs } from '../../../src/node/declarationFs';
import { writeWavePlan } from '../../../src/planner/plan/planWriter';
import {
  clearSyncInProgress,
  declarationDigest,
  emptyLocalSyncState,
  formatLocalSyncState,
  markSyncInProgress,
  MAX_KNOWN_PLANS,
  MAX_SYNCS_IN_PROGRESS,
  parseLocalSyncState,
  planDigest,
  rememberPlan,
  syncInProgressIn,
} from '../../../src/planner/sync/localState';
import type { KnownPlan, LocalSyncState, SyncInProgress } from '../../../src/planner/sync/localState';
import { decodePlan, emptyPlan, nextPlanFiles } from '../../../src/planner/sync/planRef';
import { commitSyncedWave, currentDigests, findLocalPlanRisk, incomingDigests, isAlreadySynced, isSyncCandidate, prepareSyncedWave, readStateDir, selectWaveToSync, syncedWaveFiles, writeSyncedWave } from '../../../src/planner/sync/syncPlan';
import type { SyncableWave } from '../../../src/planner/sync/syncPlan';
import { claimOf, cloneNamed, HOUR, manifestFor, T0, waveToPublish } from './syncFixtures';

const alpha = cloneNamed('c-alpha');
const beta = cloneNamed('c-beta');
const me = cloneNamed('c-me');

function planOf(claims: ReturnType<typeof claimOf>[], waves: ReturnType<typeof waveToPublish>[]) {
  return decodePlan(nextPlanFiles(new Map(), emptyPlan(), { claims, write: waves }, T0));
}

describe('selectWaveToSync', () => {
  const plan = planOf(
    [claimOf(alpha, 3), claimOf(me, 1)],
    [
      waveToPublish(alpha, 3, [{ id: 'alice', files: ['a/'] }]),
      waveToPublish(alpha, 2, [{ id: 'alice', files: ['a2/'] }]),
      waveToPublish(beta, 3, [{ id: 'bob', files: ['b/'] }]),
      waveToPublish(me, 1, [{ id: 'mine', files: ['m/'] }]),
    ],
  );

  it('without a selection: the one wave another clone claims now', () => {
    const result = selectWaveToSync(plan, {}, me.id, T0);
    assert.equal(result.ok && `${result.wave.clone}/${result.wave.wave}`, 'c-alpha/3');
    assert.equal(result.ok && result.wave.claim?.clone, 'c-alpha');
  });
  it('an explicit selection reaches unclaimed waves too', () => {
    const result = selectWaveToSync(plan, { clone: 'c-beta', wave: 3 }, me.id, T0);
    assert.equal(result.ok && result.wave.claim, null);
  });
  it('several matches are ambiguous, with the candidates', () => {
    const result = selectWaveToSync(plan, { wave: 3 }, me.id, T0);
    assert.equal(!result.ok && result.reason === 'ambiguous' && result.candidates.map((c) => c.clone).join(','), 'c-alpha,c-beta');
  });
  it('this clone\'s own waves are never synced into itself', () => {
    assert.deepEqual(selectWaveToSync(plan, { clone: me.id }, me.id, T0), { ok: false, reason: 'own-clone' });
    const alone = planOf([claimOf(me, 1)], [waveToPublish(me, 1, [{ id: 'mine', files: ['m/'] }])]);
    const result = selectWaveToSync(alone, {}, me.id, T0);
    assert.equal(!result.ok && result.reason === 'none' && result.ownClaims.length, 1);
  });
  it('an expired claim is not synced without being named', () => {
    const result = selectWaveToSync(plan, {}, me.id, T0 + 5 * HOUR);
    assert.equal(!result.ok && result.reason, 'none');
  });
  it('a plan decoded with only the candidates of a selection selects as the whole plan does', () => {
    const files = nextPlanFiles(new Map(), emptyPlan(), {
      claims: [claimOf(alpha, 3), claimOf(me, 1)],
      write: [
        waveToPublish(alpha, 3, [{ id: 'alice', files: ['a/'] }]),
        waveToPublish(alpha, 2, [{ id: 'alice', files: ['a2/'] }]),
        waveToPublish(beta, 3, [{ id: 'bob', files: ['b/'] }]),
        waveToPublish(me, 1, [{ id: 'mine', files: ['m/'] }]),
      ],
    }, T0);
    const selections = [{}, { wave: 3 }, { clone: 'c-beta' }, { clone: 'c-alpha', wave: 2 }, { wave: 9 }, { clone: me.id }];
    for (const now of [T0, T0 + 5 * HOUR]) {
      for (const selection of selections) {
        const narrowed = decodePlan(files, { wanted: (key, claims) => isSyncCandidate(key, claims, selection, me.id, now) });
        assert.deepEqual(selectWaveToSync(narrowed, selection, me.id, now), selectWaveToSync(decodePlan(files), selection, me.id, now), JSON.stringify(selection));
        assert.ok(narrowed.waves.every((wave) => wave.clone !== me.id), 'this clone\'s own waves are never decoded for a sync');
      }
    }
    const unnamed = decodePlan(files, { wanted: (key, claims) => isSyncCandidate(key, claims, {}, me.id, T0) });
    assert.deepEqual(unnamed.waves.map((wave) => `${wave.clone}/${wave.wave}`), ['c-alpha/3'], 'unnamed: only the waves claimed now');
  });
});

describe('sync into a state directory (findLocalPlanRisk, writeSyncedWave)', () => {
  let root: string;
  let stateDir: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'wave-scope-sync-'));
    stateDir = join(root, '.claude');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const fs = () => nodeDeclarationFs(root);
  const incoming = (records = [{ id: 'alice', files: ['src/a/'] }], wave = 3): SyncableWave => {
    const published = waveToPublish(alpha, wave, records);
    return { clone: alpha.id, wave, dir: '', info: published.info, manifest: { ...published.manifest, session_id: 'their-session' }, records, problems: [], claim: claimOf(alpha, wave) };
  };
  const localPlan = (wave: number, records: Array<{ id: string; files: string[] }>, session = 'local') =>
    writeWavePlan({ repoRoot: root, stateDir, wave, role: 'implementation', records, ownIds: new Set([session]) }, fs());
  const risk = (wave: SyncableWave, state: LocalSyncState = emptyLocalSyncState(), ownIds = new Set<string>(['local'])) =>
    findLocalPlanRisk({ repoRoot: root, found: readStateDir(stateDir, wave.wave, ownIds, fs()), incoming: incomingDigests(wave), state });
  const known = (source: KnownPlan['source'], wave: number, records: Array<{ id: string; files: string[] }>): KnownPlan => ({
    source,
    stateDir: '.claude',
    wave,
    clone: 'c-x',
    planDigest: planDigest(manifestFor(wave, records), records),
    declarationDigest: declarationDigest(wave, records),
    commit: 'c'.repeat(40),
    at: new Date(T0).toISOString(),
  });

  it('an empty state directory is safe; the synced manifest is unbound and grants the published union', () => {
    assert.equal(risk(incoming()), undefined);
    const result = writeSyncedWave({ repoRoot: root, stateDir, wave: incoming() }, fs());
    assert.equal(result.ok, true, JSON.stringify(result));
    const manifest = JSON.parse(readFileSync(join(stateDir, 'wave-scope.json'), 'utf8'));
    assert.equal('session_id' in manifest, false, 'every session of the syncing clone is held to it');
    assert.deepEqual(manifest.allowedPaths, ['src/a/']);
    assert.deepEqual(JSON.parse(readFileSync(join(stateDir, 'filescopes/wave-3/alice.json'), 'utf8')), ['src/a/']);
    assert.equal(result.ok && result.allowedPathsDiffer, undefined);
  });

  it('refuses to replace a plan written here and never published', () => {
    localPlan(2, [{ id: 'mine', files: ['m/'] }]);
    assert.deepEqual(risk(incoming()), { reason: 'unpublished-plan', wave: 2, session: 'own' });
    assert.deepEqual(risk(incoming(), emptyLocalSyncState(), new Set(['someone-else'])), { reason: 'unpublished-plan', wave: 2, session: 'foreign' });
  });

  it('replaces a plan this clone published or synced, or the very plan coming in', () => {
    localPlan(2, [{ id: 'mine', files: ['m/'] }]);
    assert.equal(risk(incoming(), rememberPlan(emptyLocalSyncState(), known('published', 2, [{ id: 'mine', files: ['m/'] }]))), undefined);
    assert.equal(risk(incoming(), rememberPlan(emptyLocalSyncState(), known('synced', 2, [{ id: 'mine', files: ['m/'] }]))), undefined);
    rmSync(stateDir, { recursive: true });
    writeSyncedWave({ repoRoot: root, stateDir, wave: incoming() }, fs());
    assert.equal(risk(incoming()), undefined, 'syncing the same plan twice is safe');
  });

  it('a plan changed after it was published is unpublished again', () => {
    localPlan(2, [{ id: 'mine', files: ['m/', 'n/'] }]);
    assert.equal(risk(incoming(), rememberPlan(emptyLocalSyncState(), known('published', 2, [{ id: 'mine', files: ['m/'] }])))?.reason, 'unpublished-plan');
  });

  it('refuses to overwrite a declaration of the incoming wave that is not on the plan ref', () => {
    localPlan(3, [{ id: 'mine', files: ['m/'] }]);
    rmSync(join(stateDir, 'wave-scope.json'));
    assert.deepEqual(risk(incoming()), { reason: 'unpublished-declaration', wave: 3 });
  });

  it('refuses an unusable manifest and a damaged declaration', () => {
    localPlan(3, [{ id: 'mine', files: ['m/'] }]);
    writeFileSync(join(stateDir, 'wave-scope.json'), '{ not json');
    assert.equal(risk(incoming())?.reason, 'unusable-manifest');
    rmSync(join(stateDir, 'wave-scope.json'));
    writeFileSync(join(stateDir, 'filescopes/wave-3/mine.json'), '["**"]\n');
    assert.equal(risk(incoming())?.reason, 'damaged-declaration');
  });

  it('an interrupted sync may be finished: what it found and what it left may be replaced, a plan written since may not', () => {
    localPlan(2, [{ id: 'mine', files: ['m/'] }]);
    const found = currentDigests(readStateDir(stateDir, 3, new Set(), fs()), 3);
    const marker = (previous: { previousDigest: string | null; previousDeclarationDigest: string | null }, into = '.claude') =>
      markSyncInProgress(emptyLocalSyncState(), { stateDir: into, wave: 3, clone: 'c-alpha', planDigest: 'x', ...previous, at: 'now' });
    const none = { previousDigest: null, previousDeclarationDigest: null };
    assert.equal(risk(incoming(), marker(found)), undefined, 'what the interrupted sync found (and had judged safe)');
    assert.equal(risk(incoming(), marker(found, '.codex'))?.reason, 'unpublished-plan', 'a sync interrupted in another state directory permits nothing here');
    assert.equal(risk(incoming(), marker(none))?.reason, 'unpublished-plan', 'a plan written after the crash stays protected');
    // The skeleton the chain writes first: the incoming wave, unbound, granting nothing.
    writeWavePlan({ repoRoot: root, stateDir, wave: 3, role: 'implementation', records: [{ id: 'alice', files: ['src/a/'] }], ownIds: new Set() }, fs());
    const before = currentDigests(readStateDir(stateDir, 3, new Set(), fs()), 3);
    const manifestFile = join(stateDir, 'wave-scope.json');
    writeFileSync(manifestFile, JSON.stringify({ ...JSON.parse(readFileSync(manifestFile, 'utf8')), allowedPaths: [] }));
    assert.equal(risk(incoming([{ id: 'alice', files: ['src/a/', 'src/z/'] }]), marker({ previousDigest: null, previousDeclarationDigest: before.previousDeclarationDigest })), undefined);
    assert.equal(risk(incoming([{ id: 'alice', files: ['src/a/', 'src/z/'] }]))?.reason, 'unpublished-plan', 'without the marker the same skeleton is protected');
  });

  it('does not carry gates or blocked commands of the plan it replaces', () => {
    writeWavePlan({ repoRoot: root, stateDir, wave: 3, role: 'implementation', records: [{ id: 'x', files: ['x/'] }], ownIds: new Set(), gates: { strictShell: true }, blockedCommands: ['rm -rf'] }, fs());
    const result = writeSyncedWave({ repoRoot: root, stateDir, wave: incoming() }, fs());
    assert.equal(result.ok, true);
    const manifest = JSON.parse(readFileSync(join(stateDir, 'wave-scope.json'), 'utf8'));
    assert.deepEqual(manifest.blockedCommands, []);
    assert.deepEqual(manifest.gates ?? {}, {});
  });

  it('syncedWaveFiles lists every file writeSyncedWave writes, with exactly the text it writes', () => {
    // A wave with test siblings, blocked commands and gates, over a plan already there: every part of the
    // manifest's text that the chain computes must come out the same.
    writeWavePlan({ repoRoot: root, stateDir, wave: 3, role: 'implementation', records: [{ id: 'old', files: ['o/'] }], ownIds: new Set(), gates: { strictShell: true } }, fs());
    const wave = incoming([{ id: 'alice', files: ['src/a.ts', 'src/b/'] }, { id: 'bob', files: ['lib/**/*.ts'] }]);
    const withSettings: SyncableWave = { ...wave, manifest: { ...wave.manifest, blockedCommands: ['git push'], gates: { strictShell: false } } };
    const written: Array<{ path: string; text: string }> = [];
    const real = fs();
    const recording = { ...real, writeAtomic: (path: string, text: string) => (written.push({ path, text }), real.writeAtomic(path, text)) };
    // The manifest there is of the same wave and grants something: the chain writes a skeleton over it first.
    const replacing = JSON.parse(readFileSync(join(stateDir, 'wave-scope.json'), 'utf8'));
    const planned = [...syncedWaveFiles(stateDir, withSettings, replacing)];
    const result = writeSyncedWave({ repoRoot: root, stateDir, wave: withSettings }, recording);
    assert.equal(result.ok, true, JSON.stringify(result));
    const byPath = (a: { path: string; text: string }, b: { path: string; text: string }) => (a.path + a.text < b.path + b.text ? -1 : 1);
    assert.deepEqual([...planned].sort(byPath), [...written].sort(byPath), 'every write, with its text, and nothing else');
    assert.deepEqual(JSON.parse(planned[0]?.text ?? '{}').allowedPaths, [], 'the skeleton, listed first');
    assert.equal([...syncedWaveFiles(stateDir, withSettings)].length, planned.length - 1, 'without a manifest to replace, no skeleton');
  });

  it('readStateDir: every check reads the manifest and each wave\'s declaration once, and sees the same files', () => {
    assert.equal(writeSyncedWave({ repoRoot: root, stateDir, wave: incoming() }, fs()).ok, true);
    const real = fs();
    const reads: string[] = [];
    const counting = { ...real, readText: (path: string) => (reads.push(path), real.readText(path)) };
    const found = readStateDir(stateDir, 3, new Set(), counting);
    const readAtOnce = [...reads];
    assert.equal(isAlreadySynced(found, incomingDigests(incoming())), true);
    assert.equal(findLocalPlanRisk({ repoRoot: root, found, incoming: incomingDigests(incoming()), state: emptyLocalSyncState() }), undefined);
    assert.deepEqual(currentDigests(found, 3), { previousDigest: incomingDigests(incoming()).planDigest, previousDeclarationDigest: incomingDigests(incoming()).declarationDigest });
    assert.equal(isAlreadySynced(found, incomingDigests(incoming([{ id: 'alice', files: ['src/a/', 'src/b/'] }]))), false, 'another plan is not there');
    assert.deepEqual(reads, readAtOnce, 'everything the checks look at was read when the reading was made');
    const repeated = reads.filter((path, index) => reads.indexOf(path) !== index);
    assert.deepEqual(repeated, [], `read more than once:\n${repeated.join('\n')}`);
    assert.ok(reads.includes(join(stateDir, 'wave-scope.json')) && reads.includes(join(stateDir, 'filescopes', 'wave-3.scopes.json')));
  });

  it('a plan written between the reading the checks decide on and the first write stops the sync, with nothing written', () => {
    assert.equal(writeSyncedWave({ repoRoot: root, stateDir, wave: incoming() }, fs()).ok, true);
    const amended = incoming([{ id: 'alice', files: ['src/a/', 'src/c/'] }]);
    const found = readStateDir(stateDir, amended.wave, new Set(), fs());
    const synced = { ...emptyLocalSyncState(), known: [known('synced', 3, [{ id: 'alice', files: ['src/a/'] }])] };
    assert.equal(findLocalPlanRisk({ repoRoot: root, found, incoming: incomingDigests(amended), state: synced }), undefined, 'what was read may be replaced');
    const prepared = prepareSyncedWave({ repoRoot: root, stateDir, wave: amended }, fs());
    assert.equal(prepared.ok, true);
    // What a writer stages beside the files, and the directories it makes, change nothing that was read.
    writeFileSync(join(stateDir, 'filescopes', 'wave-3', 'alice.json.123.tmp'), '["**"]\n');
    mkdirSync(join(stateDir, 'filescopes', 'wave-8'));
    assert.equal(found.holdsStill(fs()), true);
    // Meanwhile a coordinator writes a plan of its own here.
    assert.equal(localPlan(4, [{ id: 'bob', files: ['lib/'] }]).ok, true);
    assert.equal(found.holdsStill(fs()), false);
    const manifestBefore = readFileSync(join(stateDir, 'wave-scope.json'), 'utf8');
    const result = prepared.ok ? commitSyncedWave(prepared.prepared, fs(), found) : prepared;
    assert.equal(result.ok, false);
    assert.deepEqual(!result.ok && [result.step, result.written, result.removed], ['state-dir', [], []]);
    assert.match(!result.ok ? result.message : '', /changed while this sync ran \(another command wrote to it\): nothing was written; run sync again/);
    assert.equal(readFileSync(join(stateDir, 'wave-scope.json'), 'utf8'), manifestBefore, 'the coordinator\'s plan stands');
  });

  it('a reading holds still only while what it read does: a file changed, a file added to a directory it listed', () => {
    assert.equal(writeSyncedWave({ repoRoot: root, stateDir, wave: incoming() }, fs()).ok, true);
    const found = readStateDir(stateDir, 3, new Set(), fs());
    assert.equal(found.holdsStill(fs()), true);
    writeFileSync(join(stateDir, 'filescopes', 'wave-3', 'mallory.json'), '["**"]\n');
    assert.equal(found.holdsStill(fs()), false, 'an agent file added');
    rmSync(join(stateDir, 'filescopes', 'wave-3', 'mallory.json'));
    assert.equal(found.holdsStill(fs()), true);
    writeFileSync(join(stateDir, 'filescopes', 'wave-3', 'alice.json'), '["src/"]\n');
    assert.equal(found.holdsStill(fs()), false, 'a file read changed');
  });

  it('readStateDir before the incoming wave is known: the manifest\'s wave is read at once, another wave only when asked for', () => {
    assert.equal(writeSyncedWave({ repoRoot: root, stateDir, wave: incoming() }, fs()).ok, true);
    const real = fs();
    const reads: string[] = [];
    const counting = { ...real, readText: (path: string) => (reads.push(path), real.readText(path)) };
    const found = readStateDir(stateDir, undefined, new Set(), counting);
    assert.ok(reads.includes(join(stateDir, 'wave-scope.json')) && reads.includes(join(stateDir, 'filescopes', 'wave-3.scopes.json')), reads.join('\n'));
    const readAtOnce = reads.length;
    assert.equal(isAlreadySynced(found, incomingDigests(incoming())), true, 'the checks on wave 3 need nothing more');
    assert.equal(reads.length, readAtOnce);
    assert.equal(found.declaration(5).status, 'absent');
    assert.ok(reads.slice(readAtOnce).includes(join(stateDir, 'filescopes', 'wave-5.scopes.json')), 'wave 5, asked for, is read then');
  });

  it('refuses published records that collide (the chain proves them again here)', () => {
    const result = writeSyncedWave({ repoRoot: root, stateDir, wave: incoming([{ id: 'a', files: ['x/'] }, { id: 'b', files: ['x/y.ts'] }]) }, fs());
    assert.equal(!result.ok && result.step, 'assert-disjoint');
  });
});

describe('the local sync state', () => {
  it('reads what it writes; reads anything unusable as empty (only ever more careful)', () => {
    const state = rememberPlan(emptyLocalSyncState(), {
      source: 'published', stateDir: '.claude', wave: 1, clone: 'c-a', planDigest: 'p', declarationDigest: 'd', commit: 'c', at: 't',
    });
    assert.deepEqual(parseLocalSyncState(formatLocalSyncState(state)), state);
    for (const text of [undefined, '', '{', '[]', '{"version":2,"known":[{}]}']) assert.deepEqual(parseLocalSyncState(text), emptyLocalSyncState());
  });
  it('keeps one sync in progress per state directory, and reads the one marker the previous version kept for all', () => {
    const into = (stateDir: string, wave: number): SyncInProgress => ({
      stateDir, wave, clone: 'c-a', planDigest: `p${wave}`, previousDigest: null, previousDeclarationDigest: 'd', at: 't',
    });
    let state = markSyncInProgress(markSyncInProgress(emptyLocalSyncState(), into('.claude', 1)), into('.codex', 2));
    state = markSyncInProgress(state, into('.claude', 3));
    assert.deepEqual(state.inProgress, [into('.codex', 2), into('.claude', 3)], 'a marker replaces only its own state directory\'s');
    assert.deepEqual(syncInProgressIn(state, '.claude'), into('.claude', 3));
    assert.deepEqual(syncInProgressIn(clearSyncInProgress(state, '.claude'), '.codex'), into('.codex', 2));
    assert.equal(syncInProgressIn(clearSyncInProgress(state, '.claude'), '.claude'), undefined);
    assert.deepEqual(parseLocalSyncState(formatLocalSyncState(state)), state);
    // As the previous version wrote it: one marker, or null, under the same key.
    const previous = (inProgress: unknown) => JSON.stringify({ version: 1, known: [], inProgress, fetched: {} });
    assert.deepEqual(parseLocalSyncState(previous(into('.claude', 1))).inProgress, [into('.claude', 1)]);
    assert.deepEqual(parseLocalSyncState(previous(null)).inProgress, []);
    // Unusable markers are left out; two for one state directory are one (the later).
    assert.deepEqual(parseLocalSyncState(previous([into('.claude', 1), { stateDir: '.codex' }, 'x', into('.claude', 4)])).inProgress, [into('.claude', 4)]);
    let many = emptyLocalSyncState();
    for (let i = 0; i < MAX_SYNCS_IN_PROGRESS + 2; i += 1) many = markSyncInProgress(many, into(`dir-${i}`, i + 1));
    assert.equal(many.inProgress.length, MAX_SYNCS_IN_PROGRESS);
    assert.equal(many.inProgress[0]?.stateDir, 'dir-2', 'the oldest marked are forgotten first');
  });
  it('remembers at most MAX_KNOWN_PLANS plans, the newest', () => {
    let state = emptyLocalSyncState();
    for (let i = 0; i < MAX_KNOWN_PLANS + 5; i += 1) {
      state = rememberPlan(state, { source: 'synced', stateDir: '.claude', wave: i + 1, clone: 'c', planDigest: `p${i}`, declarationDigest: 'd', commit: 'c', at: 't' });
    }
    assert.equal(state.known.length, MAX_KNOWN_PLANS);
    assert.equal(state.known[0]?.wave, 6);
  });
  it('a plan digest ignores the session binding, and changes with anything that governs writes', () => {
    const records = [{ id: 'a', files: ['x/'] }];
    const manifest = manifestFor(1, records);
    assert.equal(planDigest({ ...manifest, session_id: 's' }, records), planDigest(manifest, records));
    assert.notEqual(planDigest({ ...manifest, enforcement: 'warn' }, records), planDigest(manifest, records));
    assert.notEqual(planDigest(manifest, [{ id: 'a', files: ['y/'] }]), planDigest(manifest, records));
  });
});
