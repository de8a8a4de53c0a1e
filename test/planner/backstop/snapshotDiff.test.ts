import assert from 'node:assert/strict';
import fc from 'fast-check';
import { backstopExclusions, formatSnapshotHeader, NO_REPOSITORY, parseSnapshotHeader } from '../../../src/planner/backstop/snapshot';
import type { Snapshot } from '../../../src/planner/backstop/snapshot';
import { diffSnapshots, headMoved, identityAt } from '../../../src/planner/backstop/snapshotDiff';

const oid = (seed: string) => seed.repeat(40).slice(0, 40);
const ID = { a: `100644 ${oid('a')}`, b: `100644 ${oid('b')}`, c: `100644 ${oid('c')}`, x: `100755 ${oid('a')}` };

/** One moment of a work tree: what git's index holds and what the work tree holds, per path. */
interface World {
  index: Record<string, string>;
  workTree: Record<string, string | null>;
}

/**
 * The snapshot git would give of a world: the index listing, and every path whose work-tree content
 * is not its index entry (deleted: null; untracked: its identity).
 */
function snapshotOf(world: World, head = {}): Snapshot {
  const indexPaths = Object.keys(world.index).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  const listing = indexPaths.map((path) => `${world.index[path]} 0\t${path}\0`).join('');
  const workTree = new Map<string, string | null>();
  for (const path of new Set([...indexPaths, ...Object.keys(world.workTree)])) {
    const onDisk = path in world.workTree ? world.workTree[path] : world.index[path];
    if (onDisk !== world.index[path]) workTree.set(path, onDisk ?? null);
  }
  return { objectFormat: 'sha1', head, indexListing: listing, workTree };
}

/** What each path of the world holds (the oracle: every file, compared one by one). */
function contentOf(world: World): Map<string, string> {
  const content = new Map<string, string>();
  for (const path of new Set([...Object.keys(world.index), ...Object.keys(world.workTree)])) {
    const onDisk = path in world.workTree ? world.workTree[path] : world.index[path];
    if (onDisk !== null && onDisk !== undefined) content.set(path, onDisk);
  }
  return content;
}

describe('backstop: the diff of two snapshots', () => {
  it('equals comparing every file of the work tree one by one (brute-force oracle)', () => {
    const path = fc.constantFrom('a', 'b', 'src/c', 'src/d', 'é', 'z/😀', '.orchestrator/x', '.claude/wave-scope.json');
    const identity = fc.constantFrom(ID.a, ID.b, ID.c, ID.x);
    const world = fc.record({
      index: fc.dictionary(path, identity, { maxKeys: 6 }),
      workTree: fc.dictionary(path, fc.option(identity, { nil: null }), { maxKeys: 6 }),
    });
    const exclude = backstopExclusions({ writeRoot: '/repo', stateDir: '/repo/.claude' });
    fc.assert(
      fc.property(world, world, (before, after) => {
        const was = contentOf(before);
        const is = contentOf(after);
        const expected = [...new Set([...was.keys(), ...is.keys()])]
          .filter((p) => !exclude(p) && was.get(p) !== is.get(p))
          .map((p) => `${p}:${!was.has(p) ? 'created' : !is.has(p) ? 'deleted' : 'modified'}`)
          .sort();
        const diff = diffSnapshots(snapshotOf(before), snapshotOf(after), { exclude });
        assert.deepEqual(diff.changes.map((change) => `${change.path}:${change.kind}`).sort(), expected);
        for (const change of diff.changes) {
          assert.equal(change.before, was.get(change.path));
          assert.equal(change.after, is.get(change.path));
        }
        for (const [p, content] of is) assert.equal(identityAt(snapshotOf(after), p), content);
      }),
      { numRuns: 1000 },
    );
  });

  it('compares the repositories nested in both snapshots path by path, under their directory, as the oracle compares every file', () => {
    const path = fc.constantFrom('a', 'src/c', 'é', '.orchestrator/x');
    const identity = fc.constantFrom(ID.a, ID.b, ID.c);
    const world = fc.record({
      index: fc.dictionary(path, identity, { maxKeys: 4 }),
      workTree: fc.dictionary(path, fc.option(identity, { nil: null }), { maxKeys: 4 }),
    });
    const exclude = (p: string) => p.startsWith('.orchestrator/') || p === 'vendor/lib/src/c';
    const LOCATION = '["/repo/.git/modules/vendor/lib",null]';
    const outer = (inner: World) => ({ ...snapshotOf({ index: { README: ID.a }, workTree: {} }), nested: new Map([['vendor/lib', { ...snapshotOf(inner), location: LOCATION }]]) });
    fc.assert(
      fc.property(world, world, (before, after) => {
        const was = contentOf(before);
        const is = contentOf(after);
        const expected = [...new Set([...was.keys(), ...is.keys()])]
          .map((p) => `vendor/lib/${p}`)
          .filter((p) => !exclude(p) && was.get(p.slice(11)) !== is.get(p.slice(11)))
          .sort();
        const diff = diffSnapshots(outer(before), outer(after), { exclude });
        assert.deepEqual(diff.changes.map((change) => change.path).sort(), expected, 'excluded as the outer path, .orchestrator/ of the nested repository included');
        for (const [p, content] of is) assert.equal(identityAt(outer(after), `vendor/lib/${p}`), content);
      }),
      { numRuns: 500 },
    );
    const inner = snapshotOf({ index: { a: ID.a }, workTree: { a: ID.b } });
    const withNested = (nested: Map<string, Snapshot> | undefined, workTree: Record<string, string | null> = {}) => ({ ...snapshotOf({ index: { 'vendor/lib': `160000 ${oid('1')}` }, workTree }), ...(nested !== undefined ? { nested } : {}) });
    const moved = diffSnapshots(withNested(new Map([['vendor/lib', { ...inner, location: LOCATION }]])), withNested(new Map([['vendor/lib', { ...inner, location: '["/elsewhere/.git",null]' }]])));
    assert.deepEqual(moved.changes.map((change) => `${change.path}:${change.kind}`), ['vendor/lib:modified'], 'another git directory: the directory, and what changed in it (nothing)');
    const gone = diffSnapshots(withNested(new Map([['vendor/lib', inner]])), withNested(new Map()));
    assert.deepEqual(gone.changes.map((change) => `${change.path}:${change.kind}`), ['vendor/lib:modified', 'vendor/lib/a:deleted'], 'a gitlink gone from the index: its directory, and every file it held');
    const staged = diffSnapshots(withNested(new Map()), withNested(new Map([['vendor/lib', { ...inner, workTree: new Map([['a', ID.b], ['.git/config', ID.c]]) }]])));
    assert.deepEqual(staged.changes.map((change) => `${change.path}:${change.kind}`), ['vendor/lib:modified', 'vendor/lib/.git/config:created', 'vendor/lib/a:created'], 'a gitlink staged in the window: every file, its git files too');
    const plain = { ...snapshotOf({ index: {}, workTree: { a: ID.c } }), location: NO_REPOSITORY };
    const unrepo = diffSnapshots(withNested(new Map([['vendor/lib', { ...inner, location: LOCATION }]])), withNested(new Map([['vendor/lib', plain]])));
    assert.deepEqual(unrepo.changes.map((change) => `${change.path}:${change.kind}`), ['vendor/lib:modified', 'vendor/lib/a:modified'], 'no repository of its own any more: its directory, and each file compared by content');
    const alsoDeleted = diffSnapshots(withNested(new Map([['vendor/lib', inner]])), withNested(new Map(), { 'vendor/lib': null }));
    assert.deepEqual(alsoDeleted.changes.map((change) => `${change.path}:${change.kind}`), ['vendor/lib:deleted', 'vendor/lib/a:deleted'], 'its directory once, as the outer repository saw it, and every file it held');
    assert.deepEqual(diffSnapshots(withNested(undefined), withNested(new Map())).changes, [], 'a snapshot saved before nested ones were taken compares none');
  });

  it('under an unchanged index (the listing reused: one text for both), equals the oracle and each snapshot\'s own lookups', () => {
    const path = fc.constantFrom('a', 'b', 'src/c', 'src/d', 'é', 'z/😀');
    const identity = fc.constantFrom(ID.a, ID.b, ID.c, ID.x);
    const turn = fc.record({
      index: fc.dictionary(path, identity, { maxKeys: 6 }),
      before: fc.dictionary(path, fc.option(identity, { nil: null }), { maxKeys: 6 }),
      after: fc.dictionary(path, fc.option(identity, { nil: null }), { maxKeys: 6 }),
    });
    fc.assert(
      fc.property(turn, ({ index, before, after }) => {
        const was = { index, workTree: before };
        const is = { index, workTree: after };
        const first = snapshotOf(was);
        // What a reuse gives: the very listing string of the snapshot before, not an equal copy.
        const second = { ...snapshotOf(is), indexListing: first.indexListing };
        const wasContent = contentOf(was);
        const isContent = contentOf(is);
        const expected = [...new Set([...wasContent.keys(), ...isContent.keys()])]
          .filter((p) => wasContent.get(p) !== isContent.get(p))
          .map((p) => `${p}:${!wasContent.has(p) ? 'created' : !isContent.has(p) ? 'deleted' : 'modified'}`)
          .sort();
        assert.deepEqual(diffSnapshots(first, second).changes.map((change) => `${change.path}:${change.kind}`).sort(), expected);
        for (const [p, content] of isContent) assert.equal(identityAt(second, p), content);
        for (const [p, content] of wasContent) assert.equal(identityAt(first, p), content);
      }),
      { numRuns: 500 },
    );
  });

  const cases: Array<{ name: string; before: World; after: World; changes: string[] }> = [
    {
      name: 'dirt that was there before and is unchanged is not reported',
      before: { index: { a: ID.a }, workTree: { a: ID.b, notes: ID.c } },
      after: { index: { a: ID.a }, workTree: { a: ID.b, notes: ID.c } },
      changes: [],
    },
    {
      name: 'dirt changed again is reported',
      before: { index: { a: ID.a }, workTree: { a: ID.b } },
      after: { index: { a: ID.a }, workTree: { a: ID.c } },
      changes: ['a:modified'],
    },
    {
      name: 'staging a change, or committing it, changes no content',
      before: { index: { a: ID.a }, workTree: { a: ID.b, n: ID.c } },
      after: { index: { a: ID.b, n: ID.c }, workTree: {} },
      changes: [],
    },
    {
      name: 'a mode change is a modification',
      before: { index: { a: ID.a }, workTree: {} },
      after: { index: { a: ID.a }, workTree: { a: ID.x } },
      changes: ['a:modified'],
    },
  ];
  for (const { name, before, after, changes } of cases) {
    it(name, () => {
      assert.deepEqual(diffSnapshots(snapshotOf(before), snapshotOf(after)).changes.map((change) => `${change.path}:${change.kind}`), changes);
    });
  }

  it('pairs a deletion and a creation of the same content as a rename, only when the pairing is unambiguous', () => {
    const moved = diffSnapshots(snapshotOf({ index: { 'src/a': ID.a }, workTree: {} }), snapshotOf({ index: { 'src/a': ID.a }, workTree: { 'src/a': null, 'docs/a': ID.a } }));
    assert.deepEqual(moved.changes, [
      { path: 'docs/a', kind: 'created', after: ID.a, renamedFrom: 'src/a' },
      { path: 'src/a', kind: 'deleted', before: ID.a, renamedTo: 'docs/a' },
    ]);
    const twice = diffSnapshots(snapshotOf({ index: { 'src/a': ID.a }, workTree: {} }), snapshotOf({ index: { 'src/a': ID.a }, workTree: { 'src/a': null, x: ID.a, y: ID.a } }));
    assert.ok(twice.changes.every((change) => change.renamedFrom === undefined && change.renamedTo === undefined));
  });

  it('says when HEAD moved: another commit, another branch, detached', () => {
    assert.equal(headMoved({ ref: 'refs/heads/main', commit: oid('1') }, { ref: 'refs/heads/main', commit: oid('1') }), false);
    assert.equal(headMoved({ ref: 'refs/heads/main', commit: oid('1') }, { ref: 'refs/heads/main', commit: oid('2') }), true);
    assert.equal(headMoved({ ref: 'refs/heads/main', commit: oid('1') }, { ref: 'refs/heads/other', commit: oid('1') }), true);
    assert.equal(headMoved({ ref: 'refs/heads/main', commit: oid('1') }, { commit: oid('1') }), true);
    assert.equal(headMoved({ ref: 'refs/heads/main' }, { ref: 'refs/heads/main', commit: oid('1') }), true);
  });

  it('excludes the active state dir\'s manifest and filescopes/ and .orchestrator/, never another state dir', () => {
    const exclude = backstopExclusions({ writeRoot: '/repo', stateDir: '/repo/.claude' });
    for (const path of ['.claude/wave-scope.json', '.claude/filescopes', '.claude/filescopes/wave-1/a.json', '.orchestrator/metrics/events.jsonl']) assert.ok(exclude(path), path);
    for (const path of ['.claude/settings.json', '.claude/wave-scope-hook.cjs', '.codex/wave-scope.json', '.codex/filescopes/wave-1/a.json', 'src/.orchestrator', '.claude/filescopes2']) assert.ok(!exclude(path), path);
    const outside = backstopExclusions({ writeRoot: '/repo', stateDir: '/elsewhere/.claude' });
    assert.ok(!outside('.claude/wave-scope.json'), 'a state dir outside the work tree excludes nothing inside it');
    const folded = backstopExclusions({ writeRoot: '/repo', stateDir: '/repo/.claude', ignoreCase: true });
    assert.ok(folded('.Claude/FileScopes/wave-1/a.json'));
  });

  it('keeps a snapshot\'s header as text and refuses a damaged one', () => {
    const nestedSnapshot = snapshotOf({ index: { inner: ID.a }, workTree: {} });
    const snapshot = {
      ...snapshotOf({ index: { 'a b': ID.a, 'new\nline': ID.b }, workTree: { 'a b': null, '😀': ID.c } }, { ref: 'refs/heads/main', commit: oid('1') }),
      indexChecksum: 'f00d',
      takenAt: 1_796_559_794_123,
      suspects: new Map([['docs/a.md', '1 2 3 4']]),
      indexStats: '0badf00d',
      location: '["/repo/.git","/repo/.git"]',
      gitlinks: ['vendor/lib', 'vendor/empty'],
      nested: new Map([['vendor/lib', nestedSnapshot]]),
    };
    const text = formatSnapshotHeader(snapshot, 'f00d');
    const { indexListing, indexStats, nested, ...header } = snapshot;
    assert.ok(indexListing !== '' && !text.includes(indexListing) && !text.includes(indexStats) && !text.includes('inner'), 'the listing, its stat data and the nested snapshots are stored apart');
    assert.deepEqual(parseSnapshotHeader(text), { ...header, listing: 'f00d', stats: true, nestedPaths: [...nested.keys()] });
    const damaged = ['', 'wave-scope-snapshot 2\n{"objectFormat":"md5"}\n', 'wave-scope-snapshot 2\n{not json\n', text.replace('wave-scope-snapshot 2', 'wave-scope-snapshot 1'), text.replace('"f00d"', '"../x"'), text.replace('1796559794123', '-1'), text.replace('1796559794123', '"soon"'), text.replace('"stats":true', '"stats":1'), text.replace('"1 2 3 4"', '4'), text.replace('"nested":["vendor/lib"]', '"nested":[""]'), text.replace('"nested":["vendor/lib"]', '"nested":"vendor/lib"'), text.replace('"gitlinks":["vendor/lib"', '"gitlinks":[7'), text.replace(/"location":"(?:[^"\\]|\\.)*"/, '"location":5'), `${text}trailing`];
    for (const value of damaged) assert.equal(parseSnapshotHeader(value), undefined, JSON.stringify(value.slice(0, 40)));
  });
});
