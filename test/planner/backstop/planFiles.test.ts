import assert from 'node:assert/strict';
import { comparePlanFiles, hasContentHash, listsName, planFileRequest, planFileRequestOf, planFingerprint, planPathForReport, samePlanFile, unreadableFingerprint } from '../../../src/planner/backstop/planFiles';
import type { PlanFileStat } from '../../../src/planner/backstop/planFiles';
import { formatSnapshotHeader, parseSnapshotHeader } from '../../../src/planner/backstop/snapshot';

const root = '/repo';
const request = planFileRequest([{ root, stateDir: '/repo/.claude', wave: 2 }]);
const file = (fields: Partial<PlanFileStat> = {}): string =>
  planFingerprint({ type: 'file', dev: 1, ino: 10, nlink: 1, size: 20, mtimeNs: 1000n, ctimeNs: 1000n, ...fields }, false);
const dir = (ino: number, type: PlanFileStat['type'] = 'directory'): string =>
  planFingerprint({ type, dev: 1, ino, nlink: 2, size: 4096, mtimeNs: 5n, ctimeNs: 5n }, true);

/** The plan of one wave as it stands before the agent's command. */
const BEFORE = new Map([
  ['/repo/.claude', dir(1)],
  ['/repo/.claude/wave-scope.json', file({ ino: 11 })],
  ['/repo/.claude/wave-scope-session.json', file({ ino: 15 })],
  ['/repo/.claude/filescopes', dir(2)],
  ['/repo/.claude/filescopes/wave-1.scopes.json', file({ ino: 16 })],
  ['/repo/.claude/filescopes/wave-2', dir(3)],
  ['/repo/.claude/filescopes/wave-2/alice.json', file({ ino: 12 })],
  ['/repo/.claude/filescopes/wave-2/bob.json', file({ ino: 13 })],
  ['/repo/.claude/filescopes/wave-2.scopes.json', file({ ino: 14 })],
]);

function after(edit: (map: Map<string, string>) => void): Map<string, string> {
  const map = new Map(BEFORE);
  edit(map);
  return map;
}

describe('backstop: the plan files a dispatched agent may never change', () => {
  it('watches the directories down to the state directory, the manifest, the hook launcher, the session record, filescopes/ (listed for the earlier waves\' aggregates) and the wave\'s declarations (its directory listed)', () => {
    assert.deepEqual(request.entries, [
      { path: '/repo/.claude', directory: true },
      { path: '/repo/.claude/wave-scope.json', directory: false },
      { path: '/repo/.claude/wave-scope-hook.cjs', directory: false },
      { path: '/repo/.claude/wave-scope-session.json', directory: false },
      { path: '/repo/.claude/filescopes', directory: true, list: { aggregatesBefore: 2 } },
      { path: '/repo/.claude/filescopes/wave-2', directory: true, list: true },
      { path: '/repo/.claude/filescopes/wave-2.scopes.json', directory: false },
    ]);
    assert.deepEqual(
      planFileRequest([{ root: '/m', stateDir: '/m/a/.codex' }, { root: '/m', stateDir: '/m/a/.codex' }, { root: '/n', stateDir: '/elsewhere/.claude', wave: 1 }]).entries.map((entry) => entry.path),
      [
        '/m/a',
        '/m/a/.codex',
        '/m/a/.codex/wave-scope.json',
        '/m/a/.codex/wave-scope-hook.cjs',
        '/m/a/.codex/wave-scope-session.json',
        '/m/a/.codex/filescopes',
        '/elsewhere/.claude',
        '/elsewhere/.claude/wave-scope.json',
        '/elsewhere/.claude/wave-scope-hook.cjs',
        '/elsewhere/.claude/wave-scope-session.json',
        '/elsewhere/.claude/filescopes',
        '/elsewhere/.claude/filescopes/wave-1',
        '/elsewhere/.claude/filescopes/wave-1.scopes.json',
      ],
      'no wave (an unusable manifest): no declarations; a state directory outside its checkout: itself; each path once',
    );
    const firstWave = planFileRequest([{ root, stateDir: '/repo/.claude', wave: 1 }]).entries.find((entry) => entry.path === '/repo/.claude/filescopes');
    assert.deepEqual(firstWave, { path: '/repo/.claude/filescopes', directory: true }, 'wave 1 has no earlier wave: filescopes/ is not listed');
  });

  it('lists, in filescopes/, only the aggregates of the waves before the one the manifest names', () => {
    const filescopes = request.entries.find((entry) => entry.path === '/repo/.claude/filescopes');
    assert.ok(filescopes !== undefined);
    assert.deepEqual(
      ['wave-1.scopes.json', 'wave-2.scopes.json', 'wave-3.scopes.json', 'wave-1', 'wave-01.scopes.json', 'wave-0.scopes.json', 'wave-1.scopes.json.tmp', 'notes.txt'].filter((name) => listsName(filescopes, name)),
      ['wave-1.scopes.json'],
    );
    assert.equal(listsName({ path: '/d', directory: true, list: true }, 'anything'), true);
    assert.equal(listsName({ path: '/d', directory: true }, 'anything'), false);
  });

  it('fingerprints a directory by type and identity only, anything else by every field', () => {
    assert.equal(dir(3), 'directory 1:3');
    assert.equal(file(), 'file 1:10 1 20 1000 1000');
    assert.equal(planFingerprint({ type: 'link', dev: 1, ino: 3, nlink: 1, size: 9, mtimeNs: 7n, ctimeNs: 8n }, true), 'link 1:3 1 9 7 8', 'a link where a directory was is fingerprinted in full');
  });

  const alice = '/repo/.claude/filescopes/wave-2/alice.json';
  const cases: Array<{ what: string; edit: (map: Map<string, string>) => void; changes: Array<[string, string]> }> = [
    { what: 'nothing changed', edit: () => undefined, changes: [] },
    { what: 'written in place (ctime moved, same size)', edit: (map) => map.set(alice, file({ ino: 12, ctimeNs: 1001n })), changes: [[alice, 'modified']] },
    { what: 'written in place (size and mtime)', edit: (map) => map.set(alice, file({ ino: 12, size: 21, mtimeNs: 2000n, ctimeNs: 2000n })), changes: [[alice, 'modified']] },
    { what: 'replaced by a rename (a new inode)', edit: (map) => map.set(alice, file({ ino: 99 })), changes: [[alice, 'replaced']] },
    { what: 'a symbolic link planted', edit: (map) => map.set(alice, planFingerprint({ type: 'link', dev: 1, ino: 99, nlink: 1, size: 20, mtimeNs: 1n, ctimeNs: 1n }, false)), changes: [[alice, 'linked']] },
    { what: 'a second name made', edit: (map) => map.set(alice, file({ ino: 12, nlink: 2, ctimeNs: 1001n })), changes: [[alice, 'linked']] },
    { what: 'deleted', edit: (map) => map.delete(alice), changes: [[alice, 'deleted']] },
    { what: 'a per-agent file created', edit: (map) => map.set('/repo/.claude/filescopes/wave-2/mallory.json', file({ ino: 50 })), changes: [['/repo/.claude/filescopes/wave-2/mallory.json', 'created']] },
    { what: 'the session record rewritten (an earlier start)', edit: (map) => map.set('/repo/.claude/wave-scope-session.json', file({ ino: 15, ctimeNs: 1001n })), changes: [['/repo/.claude/wave-scope-session.json', 'modified']] },
    { what: 'an earlier wave\'s aggregate widened', edit: (map) => map.set('/repo/.claude/filescopes/wave-1.scopes.json', file({ ino: 60 })), changes: [['/repo/.claude/filescopes/wave-1.scopes.json', 'replaced']] },
    { what: 'an earlier wave\'s aggregate deleted', edit: (map) => map.delete('/repo/.claude/filescopes/wave-1.scopes.json'), changes: [['/repo/.claude/filescopes/wave-1.scopes.json', 'deleted']] },
    {
      what: 'a later wave planned (its aggregate and directory created): not this wave\'s plan, nor one the commit guard counts',
      edit: (map) => {
        map.set('/repo/.claude/filescopes/wave-3.scopes.json', file({ ino: 61 }));
        map.set('/repo/.claude/filescopes/wave-3', dir(62));
      },
      changes: [],
    },
    { what: 'an unreadable file', edit: (map) => map.set(alice, unreadableFingerprint('EACCES')), changes: [[alice, 'replaced']] },
    {
      what: 'the manifest and the aggregate both, in the request\'s order',
      edit: (map) => {
        map.set('/repo/.claude/filescopes/wave-2.scopes.json', file({ ino: 14, ctimeNs: 9n }));
        map.set('/repo/.claude/wave-scope.json', file({ ino: 70 }));
      },
      changes: [
        ['/repo/.claude/wave-scope.json', 'replaced'],
        ['/repo/.claude/filescopes/wave-2.scopes.json', 'modified'],
      ],
    },
    {
      what: 'the wave\'s directory turned into a link (nothing below it is looked at, nor named again)',
      edit: (map) => {
        map.set('/repo/.claude/filescopes/wave-2', dir(3, 'link'));
        map.delete(alice);
        map.delete('/repo/.claude/filescopes/wave-2/bob.json');
      },
      changes: [['/repo/.claude/filescopes/wave-2', 'linked']],
    },
    {
      what: 'the state directory replaced by another directory',
      edit: (map) => {
        map.set('/repo/.claude', dir(40));
        map.set(alice, file({ ino: 41 }));
      },
      changes: [['/repo/.claude', 'replaced']],
    },
    { what: 'a directory\'s times moved (a rename inside it): not a change of its own', edit: (map) => map.set('/repo/.claude/filescopes/wave-2', dir(3)), changes: [] },
  ];
  for (const { what, edit, changes } of cases) {
    it(`compares: ${what}`, () => {
      assert.deepEqual(
        comparePlanFiles(request, BEFORE, after(edit)).map((change) => [change.path, change.kind]),
        changes,
      );
    });
  }

  it('compares: an earlier wave\'s aggregate created (the commit guard would count what it declares)', () => {
    const without = new Map([...BEFORE].filter(([path]) => path !== '/repo/.claude/filescopes/wave-1.scopes.json'));
    assert.deepEqual(
      comparePlanFiles(request, without, BEFORE).map((change) => [change.path, change.kind]),
      [['/repo/.claude/filescopes/wave-1.scopes.json', 'created']],
    );
  });

  it('a file fingerprinted with its content (its times were recent) is compared by that content too: a write that kept its size and times is a change', () => {
    const stat = { type: 'file', dev: 1, ino: 12, nlink: 1, size: 20, mtimeNs: 1000n, ctimeNs: 1000n } as const;
    const hashed = (hash: string) => planFingerprint(stat, false, hash);
    assert.equal(hashed('ab'.repeat(32)), `file 1:12 1 20 1000 1000 sha256:${'ab'.repeat(32)}`);
    assert.equal(hasContentHash(hashed('ab'.repeat(32))), true);
    assert.equal(hasContentHash(file()), false);
    const before = new Map(BEFORE).set(alice, hashed('ab'.repeat(32)));
    const rewritten = new Map(BEFORE).set(alice, hashed('cd'.repeat(32)));
    assert.deepEqual(comparePlanFiles(request, before, rewritten).map((change) => [change.path, change.kind]), [[alice, 'modified']]);
    assert.deepEqual(comparePlanFiles(request, before, new Map(before)), []);
    // A snapshot saved by a version that hashed nothing compares by the rest, as that version did.
    assert.equal(samePlanFile(planFingerprint(stat, false), hashed('ab'.repeat(32))), true);
    assert.equal(samePlanFile(hashed('ab'.repeat(32)), planFingerprint(stat, false)), true);
    assert.equal(samePlanFile(hashed('ab'.repeat(32)), planFingerprint({ ...stat, ctimeNs: 1001n }, false)), false);
    assert.deepEqual(comparePlanFiles(request, BEFORE, new Map(BEFORE).set(alice, planFingerprint(stat, false, 'ef'.repeat(32)))), []);
  });

  it('compares only what the request watches now: the per-agent files of a wave the manifest no longer names are not reported as deleted', () => {
    const nextWave = planFileRequest([{ root, stateDir: '/repo/.claude', wave: 3 }]);
    const now = new Map([...BEFORE].filter(([path]) => !path.includes('wave-2/') && !path.endsWith('wave-2')));
    now.set('/repo/.claude/wave-scope.json', file({ ino: 11, ctimeNs: 3000n }));
    assert.deepEqual(
      comparePlanFiles(nextWave, BEFORE, now).map((change) => [change.path, change.kind]),
      [['/repo/.claude/wave-scope.json', 'modified']],
    );
    // Its aggregate is an earlier wave's now, which the commit guard counts: watched.
    now.set('/repo/.claude/filescopes/wave-2.scopes.json', file({ ino: 14, ctimeNs: 3001n }));
    assert.deepEqual(
      comparePlanFiles(nextWave, BEFORE, now).map((change) => [change.path, change.kind]),
      [
        ['/repo/.claude/wave-scope.json', 'modified'],
        ['/repo/.claude/filescopes/wave-2.scopes.json', 'modified'],
      ],
    );
  });

  it('names a plan path relative to the work tree when it lies in it', () => {
    assert.equal(planPathForReport(alice, '/repo'), '.claude/filescopes/wave-2/alice.json');
    assert.equal(planPathForReport(alice, '/repo-wt'), alice);
  });

  it('asks again of exactly the paths it holds, each as it was looked at: a directory on the way by identity, a file that had become a directory by every field', () => {
    const stat = (type: PlanFileStat['type'], ino: number): PlanFileStat => ({ type, dev: 1, ino, nlink: 2, size: 4096, mtimeNs: 5, ctimeNs: 6 });
    const held = new Map([
      ['/repo/.claude/wave-scope.json', planFingerprint(stat('directory', 3), false)],
      ['/repo/.claude', planFingerprint(stat('directory', 2), true)],
      ['/repo/.claude/filescopes/wave-1/alice.json', planFingerprint(stat('file', 4), false, 'ab'.repeat(32))],
    ]);
    assert.deepEqual(planFileRequestOf(held).entries, [
      { path: '/repo/.claude', directory: true },
      { path: '/repo/.claude/filescopes/wave-1/alice.json', directory: false },
      { path: '/repo/.claude/wave-scope.json', directory: false },
    ]);
  });

  it('keeps the fingerprints in the saved snapshot\'s header; a header saved before them reads as one without, and a damaged field as no header', () => {
    const snapshot = { objectFormat: 'sha1' as const, head: { ref: 'refs/heads/main' }, indexListing: '', workTree: new Map<string, string | null>([['a', null]]) };
    const withPlan = parseSnapshotHeader(formatSnapshotHeader({ ...snapshot, planFiles: BEFORE }, 'abc'));
    assert.deepEqual(withPlan?.planFiles, BEFORE);
    const older = parseSnapshotHeader(formatSnapshotHeader(snapshot, 'abc'));
    assert.ok(older !== undefined);
    assert.equal(older.planFiles, undefined);
    const text = formatSnapshotHeader(snapshot, 'abc').replace('"workTree"', '"plan":[["/x",3]],"workTree"');
    assert.equal(parseSnapshotHeader(text), undefined);
    assert.equal(parseSnapshotHeader(formatSnapshotHeader(snapshot, 'abc').replace('"workTree"', '"plan":{},"workTree"')), undefined);
  });
});
