import assert from 'node:assert/strict';
import { INDEX_ARGS, INDEX_STAT_ARGS, MAX_NESTED_DEPTH, NO_REPOSITORY, STAT_DIRTY_ARGS, STATUS_ARGS, takeSnapshot } from '../../../src/planner/backstop/snapshot';
import type { SnapshotHost, WorkTreeState } from '../../../src/planner/backstop/snapshot';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const COMMIT = 'c'.repeat(40);
const SUB = 'd'.repeat(40);

const STATUS = [
  `# branch.oid ${COMMIT}`,
  '# branch.head main',
  `1 .M N... 100644 100644 100644 ${A} ${A} changed.ts`,
  `1 M. N... 100644 100644 100644 ${A} ${B} staged.ts`,
  `1 .D N... 100644 100644 000000 ${A} ${A} gone.ts`,
  `1 .M SCM. 160000 160000 160000 ${A} ${A} vendor/lib`,
  '? new.ts',
  '? nested/',
  '? .orchestrator/metrics/events.jsonl',
].join('\0') + '\0';
const listingOf = (records: readonly string[]) => records.map((record) => `${record}\0`).join('');
// As `ls-files --stage -v` prints it: `H` for an entry git's status checks.
const LISTING = listingOf([`H 100644 ${A} 0\tchanged.ts`, `H 100644 ${A} 0\tgone.ts`, `H 100644 ${B} 0\tstaged.ts`, `H 160000 ${A} 0\tvendor/lib`]);

/** What the index records of a path's file: its times (seconds, ctime and mtime alike) and inode. */
type EntryStat = { seconds: number; ino: number };
const OLD: EntryStat = { seconds: 1000, ino: 2 };

/** `git ls-files --stage -v -z --debug` for a listing `--stage -v -z` prints, with each entry's stat data. */
function withStats(listing: string, statOf: (path: string) => EntryStat = () => OLD): string {
  return listing
    .split('\0')
    .slice(0, -1)
    .map((record) => {
      const { seconds, ino } = statOf(record.slice(record.indexOf('\t') + 1));
      return `${record}\0  ctime: ${seconds}:0\n  mtime: ${seconds}:0\n  dev: 1\tino: ${ino}\n  uid: 0\tgid: 0\n  size: 3\tflags: 0\n`;
    })
    .join('');
}

/**
 * A host answering canned git output; it counts calls and serves checksums from a list. `statOf` gives the
 * index's stat data of each entry, `oids` what the files hold (B unless said).
 */
function fakeHost(checksums: Array<string | undefined>, listing = LISTING, statOf?: (path: string) => EntryStat, oids: Record<string, string> = {}, statDirty: readonly string[] = []) {
  const calls: string[] = [];
  const inspected: string[] = [];
  let next = 0;
  const host: SnapshotHost = {
    async git(args, options) {
      calls.push(args.join(' '));
      // git hashing the files as it would store them: here no attribute converts anything, so what inspect found.
      if (args.includes('hash-object')) return (options?.input ?? '').split('\n').slice(0, -1).map((path) => `${oids[path] ?? B}\n`).join('');
      if (args.join(' ') === STATUS_ARGS.join(' ')) return STATUS;
      if (args.join(' ') === INDEX_ARGS.join(' ')) return listing;
      if (args.join(' ') === INDEX_STAT_ARGS.join(' ')) return withStats(listing, statOf);
      if (args.join(' ') === STAT_DIRTY_ARGS.join(' ')) return statDirty.map((path) => `${path}\0`).join('');
      throw new Error(`unexpected git ${args.join(' ')}`);
    },
    async inspect(paths) {
      inspected.push(...paths);
      return paths.map((path): WorkTreeState => (path === 'nested/' ? { kind: 'directory' } : { kind: 'file', executable: false, oid: oids[path] ?? B }));
    },
    async indexChecksum() {
      const value = checksums[Math.min(next, checksums.length - 1)];
      next += 1;
      return value;
    },
    // The submodule's HEAD; the untracked nested/ is no repository git can read.
    async headOf(path) {
      if (path === 'vendor/lib') return SUB;
      throw new Error('not a repository');
    },
  };
  return { host, calls, inspected };
}

const exclude = (path: string) => path.startsWith('.orchestrator/');

describe('backstop: taking a snapshot (takeSnapshot, git behind a fake host)', () => {
  it('reads only what status reports, takes the rest from the index, and identifies submodules by their HEAD', async () => {
    const { host, inspected } = fakeHost(['k1']);
    const snapshot = await takeSnapshot(host, { exclude });
    assert.deepEqual(inspected, ['changed.ts', 'new.ts', 'nested/'], 'a staged-only change and a deletion are not read; an excluded path is not even looked at');
    assert.deepEqual([...snapshot.workTree].sort(), [
      ['changed.ts', `100644 ${B}`],
      ['gone.ts', null],
      ['nested/', '040000 directory'],
      ['new.ts', `100644 ${B}`],
      ['vendor/lib', `160000 ${SUB} +dirty`],
    ]);
    assert.deepEqual(snapshot.head, { ref: 'refs/heads/main', commit: COMMIT });
    assert.equal(snapshot.indexChecksum, 'k1');
    assert.equal(snapshot.objectFormat, 'sha1');
  });

  it('takes a snapshot of each submodule through its own host, compared with the last one of the same git directory; never looks into an untracked repository', async () => {
    const asked: string[] = [];
    let innerCalls: string[] = [];
    let location = '["/repo/.git/modules/vendor/lib",null]';
    // The outer repository: a gitlink at vendor/lib (checked out), an untracked nested/.
    const outer = (): SnapshotHost => ({
      ...fakeHost(['k1']).host,
      async nested(path) {
        asked.push(path);
        // The nested repository answers as canned too; it has no nested host of its own.
        const inner = fakeHost(['n1']);
        innerCalls = inner.calls;
        return { ...inner.host, location };
      },
    });
    const first = await takeSnapshot(outer(), { exclude });
    assert.deepEqual(asked.sort(), ['vendor/lib'], 'an untracked repository may be one a turn planted: git is not run there');
    assert.deepEqual([...(first.nested?.keys() ?? [])], ['vendor/lib']);
    assert.deepEqual(first.gitlinks, ['vendor/lib']);
    assert.equal(first.nested?.get('vendor/lib')?.location, location);
    assert.equal(first.workTree.get('vendor/lib'), `160000 ${COMMIT} +dirty`, 'its HEAD as its own snapshot read it');
    assert.equal(first.workTree.get('nested/'), '040000 directory', 'identified by its HEAD (the fake has none there)');
    assert.ok(first.nested?.get('vendor/lib')?.workTree.has('new.ts'), 'what is inside, under its own paths');

    await takeSnapshot(outer(), { exclude, previous: first });
    assert.ok(!innerCalls.includes(INDEX_ARGS.join(' ')), 'the nested index unchanged: its listing reused');
    location = '["/elsewhere/.git",null]';
    await takeSnapshot(outer(), { exclude, previous: first });
    assert.ok(innerCalls.includes(INDEX_ARGS.join(' ')), 'another git directory: nothing of the last snapshot is reused');

    asked.length = 0;
    await takeSnapshot(outer(), { exclude: (path) => exclude(path) || path === 'vendor/lib' });
    assert.deepEqual(asked, [], 'an excluded directory is not looked into');
    await takeSnapshot(outer(), { exclude, depth: MAX_NESTED_DEPTH });
    assert.deepEqual(asked, [], 'nor one deeper than the bound');

    // No repository of its own there: its files, read without git. git failing there: unreadable.
    const found: WorkTreeState = { kind: 'file', executable: false, oid: B };
    const plain = await takeSnapshot({ ...fakeHost(['k1']).host, nested: async () => undefined, filesBelow: async () => [{ path: 'vendor/lib/build.sh', state: found }] });
    assert.equal(plain.nested?.get('vendor/lib')?.location, NO_REPOSITORY);
    assert.deepEqual([...(plain.nested?.get('vendor/lib')?.workTree ?? [])], [['build.sh', `100644 ${B}`]]);
    assert.equal(plain.workTree.get('vendor/lib'), '160000 unknown +dirty', 'no HEAD of its own: never the checkout\'s');
    const failing = await takeSnapshot({ ...fakeHost(['k1']).host, nested: async () => Promise.reject(new Error('its gitfile leads nowhere')) });
    assert.match(failing.workTree.get('vendor/lib') ?? '', /^160000 unreadable at \d+$/, 'an identity that never settles');
    assert.equal(failing.nested?.size, 0);
  });

  it('reuses an earlier listing under the same index checksum, and lists again under another', async () => {
    const first = await takeSnapshot(fakeHost(['k1']).host);
    const same = fakeHost(['k1']);
    const reused = await takeSnapshot(same.host, { previous: first });
    assert.ok(!same.calls.includes(INDEX_ARGS.join(' ')), 'no ls-files under an unchanged index');
    assert.equal(reused.indexListing, first.indexListing);
    const moved = fakeHost(['k2']);
    await takeSnapshot(moved.host, { previous: first });
    assert.equal(moved.calls.filter((call) => call === INDEX_ARGS.join(' ')).length, 1);
  });

  it('reads the entries flagged assume-unchanged or skip-worktree, which status never reports, and keeps those the work tree does not match', async () => {
    const flagged = listingOf([
      `H 100644 ${A} 0\tchanged.ts`,
      `h 100644 ${A} 0\thidden.ts`,
      `S 100644 ${B} 0\tsparse.ts`,
      `s 100644 ${A} 0\tboth.ts`,
      `h 100644 ${A} 0\t.orchestrator/state.json`,
    ]);
    const { host, inspected } = fakeHost(['k1'], flagged);
    const snapshot = await takeSnapshot(host, { exclude });
    assert.deepEqual(inspected.filter((path) => path.endsWith('.ts')).sort(), ['both.ts', 'changed.ts', 'hidden.ts', 'new.ts', 'sparse.ts'], 'an excluded flagged path is not looked at');
    assert.equal(snapshot.workTree.get('hidden.ts'), `100644 ${B}`, 'assume-unchanged, but changed');
    assert.equal(snapshot.workTree.get('both.ts'), `100644 ${B}`);
    assert.ok(!snapshot.workTree.has('sparse.ts'), 'skip-worktree, and as the index says: nothing to keep');
  });

  it('reads an entry whose stat data changed while its object id did not, and keeps one that does not describe its file under suspicion', async () => {
    const listing = listingOf([`H 100644 ${A} 0\tforged.ts`, `H 100644 ${A} 0\tlater.ts`, `H 100644 ${A} 0\told.ts`]);
    const first = await takeSnapshot(fakeHost(['k1'], listing).host);
    assert.equal(first.indexStats?.length, 16, 'one digest per record of the listing (12 bytes in base64)');
    // The index rewritten: forged.ts' and later.ts' entries carry another file's stat data (an old ctime: a
    // directory swapped in keeps its files' times). forged.ts holds B; later.ts still holds its entry's A.
    const moved = { 'forged.ts': { seconds: 900, ino: 9 }, 'later.ts': { seconds: 900, ino: 10 } } as Record<string, EntryStat>;
    const forged = fakeHost(['k2'], listing, (path) => moved[path] ?? OLD, { 'later.ts': A });
    const second = await takeSnapshot(forged.host, { previous: first });
    assert.deepEqual(forged.inspected.filter((path) => path.endsWith('.ts')).sort(), ['changed.ts', 'forged.ts', 'later.ts', 'new.ts'], 'old.ts kept its stat data: git\'s check holds');
    assert.equal(second.workTree.get('forged.ts'), `100644 ${B}`, 'what the file holds, not what its entry says');
    assert.ok(!second.workTree.has('later.ts'), 'it holds its entry\'s content');
    assert.deepEqual([...(second.suspects ?? [])], [['later.ts', '900 900 10 3']], 'but not its entry\'s file: kept under suspicion');

    // The index unchanged (the listing reused): the suspect is read again, and now holds what was prepared.
    const swapped = fakeHost(['k2'], listing, (path) => moved[path] ?? OLD);
    const third = await takeSnapshot(swapped.host, { previous: second });
    assert.ok(!swapped.calls.includes(INDEX_ARGS.join(' ')), 'the listing is reused');
    assert.ok(swapped.inspected.includes('later.ts') && swapped.inspected.includes('forged.ts'), 'the suspect, and the earlier dirt');
    assert.equal(third.workTree.get('later.ts'), `100644 ${B}`);

    // A snapshot compared with none: an entry whose stat is not its file's (diff-files) is read, and kept
    // under suspicion while it holds its entry's content.
    const baseline = fakeHost(['k4'], listing, undefined, { 'old.ts': A }, ['old.ts']);
    const fresh = await takeSnapshot(baseline.host);
    assert.ok(baseline.calls.includes(STAT_DIRTY_ARGS.join(' ')) && baseline.inspected.includes('old.ts'));
    assert.deepEqual([...(fresh.suspects ?? [])], [['old.ts', '1000 1000 2 3']]);
    const compared = fakeHost(['k4'], listing);
    await takeSnapshot(compared.host, { previous: fresh });
    assert.ok(!compared.calls.includes(STAT_DIRTY_ARGS.join(' ')), 'only a snapshot compared with none asks');

    // Compared with a snapshot saved without stat data: the entries stated since it began, a start in the future counting as now.
    const recent = Math.floor(Date.now() / 1000);
    const clock = fakeHost(['k3'], listing, (path) => (path === 'old.ts' ? OLD : { seconds: recent, ino: 3 }));
    await takeSnapshot(clock.host, { previous: { ...first, indexStats: undefined, takenAt: Date.now() + 3_600_000 } });
    assert.deepEqual(clock.inspected.filter((path) => path.endsWith('.ts')).sort(), ['changed.ts', 'forged.ts', 'later.ts', 'new.ts']);
  });

  it('never reuses a listing saved without tags: it cannot say which entries status skips', async () => {
    const untagged = { ...(await takeSnapshot(fakeHost(['k1']).host)), indexListing: `100644 ${A} 0\tchanged.ts\0` };
    const again = fakeHost(['k1']);
    await takeSnapshot(again.host, { previous: untagged });
    assert.ok(again.calls.includes(INDEX_ARGS.join(' ')));
  });

  it('takes status and listing again when the index moved while they ran, and claims no checksum if it never held still', async () => {
    const settles = fakeHost(['k1', 'k2', 'k2', 'k2']);
    const snapshot = await takeSnapshot(settles.host);
    assert.equal(settles.calls.filter((call) => call === STATUS_ARGS.join(' ')).length, 2);
    assert.equal(snapshot.indexChecksum, 'k2');
    const restless = fakeHost(['k1', 'k2', 'k3', 'k4', 'k5', 'k6', 'k7']);
    const unsettled = await takeSnapshot(restless.host, { previous: snapshot });
    assert.equal(unsettled.indexChecksum, undefined, 'a listing of a moving index is never reused later');
    const without = fakeHost([undefined]);
    assert.equal((await takeSnapshot(without.host, { previous: snapshot })).indexChecksum, undefined);
    assert.ok(without.calls.includes(INDEX_ARGS.join(' ')));
  });
});
