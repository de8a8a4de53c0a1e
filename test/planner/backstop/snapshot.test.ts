import assert from 'node:assert/strict';
import { INDEX_ARGS, INDEX_STAT_ARGS, STATUS_ARGS, takeSnapshot } from '../../../src/planner/backstop/snapshot';
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

/** `git ls-files --debug -z` for `paths`, each entry stated at `seconds` (ctime and mtime). */
const statListingOf = (entries: ReadonlyArray<readonly [string, number]>) =>
  entries.map(([path, seconds]) => `${path}\0  ctime: ${seconds}:0\n  mtime: ${seconds}:0\n  dev: 1\tino: 2\n  uid: 0\tgid: 0\n  size: 3\tflags: 0\n`).join('');
// Every entry of LISTING stated long ago.
const OLD_STATS = statListingOf([['changed.ts', 1000], ['gone.ts', 1000], ['staged.ts', 1000], ['vendor/lib', 1000]]);

/** A host answering canned git output; it counts calls and serves checksums from a list. */
function fakeHost(checksums: Array<string | undefined>, listing = LISTING, stats = OLD_STATS) {
  const calls: string[] = [];
  const inspected: string[] = [];
  let next = 0;
  const host: SnapshotHost = {
    async git(args, options) {
      calls.push(args.join(' '));
      // git hashing the files as it would store them: here no attribute converts anything, so what inspect found.
      if (args.includes('hash-object')) return (options?.input ?? '').split('\n').slice(0, -1).map(() => `${B}\n`).join('');
      if (args.join(' ') === STATUS_ARGS.join(' ')) return STATUS;
      if (args.join(' ') === INDEX_ARGS.join(' ')) return listing;
      if (args.join(' ') === INDEX_STAT_ARGS.join(' ')) return stats;
      if (args[0] === '-C' && args[1] === 'vendor/lib') return `${SUB}\n`;
      if (args[0] === '-C' && args[1] === 'nested') throw new Error('not a repository');
      throw new Error(`unexpected git ${args.join(' ')}`);
    },
    async inspect(paths) {
      inspected.push(...paths);
      return paths.map((path): WorkTreeState => (path === 'nested/' ? { kind: 'directory' } : { kind: 'file', executable: false, oid: B }));
    },
    async indexChecksum() {
      const value = checksums[Math.min(next, checksums.length - 1)];
      next += 1;
      return value;
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

  it('reads the files whose index entries were stated since the earlier snapshot began, when the index changed (an entry forged to call a rewrite clean)', async () => {
    const first = await takeSnapshot(fakeHost(['k1']).host);
    assert.ok(first.takenAt !== undefined && Math.abs(first.takenAt - Date.now()) < 60_000);
    const listing = listingOf([`H 100644 ${A} 0\tchanged.ts`, `H 100644 ${A} 0\tforged.ts`, `H 100644 ${A} 0\told.ts`, `H 100644 ${A} 0\tgone.ts`]);
    const now = Math.floor(Date.now() / 1000);
    const stats = statListingOf([['changed.ts', now], ['forged.ts', now], ['old.ts', now - 600], ['gone.ts', now]]);
    const moved = fakeHost(['k2'], listing, stats);
    const second = await takeSnapshot(moved.host, { previous: first });
    assert.equal(moved.calls.filter((call) => call === INDEX_STAT_ARGS.join(' ')).length, 1);
    assert.ok(moved.inspected.includes('forged.ts'), 'stated since: read although status calls it clean');
    assert.ok(!moved.inspected.includes('old.ts'), 'stated long before: git\'s check holds');
    assert.ok(moved.calls.some((call) => call.endsWith('hash-object --stdin-paths')), 'bytes that are not the entry\'s blob are hashed by git as it would store them');
    assert.equal(second.workTree.get('forged.ts'), `100644 ${B}`, 'what the file holds, not what its entry says');

    const same = fakeHost(['k2'], listing, stats);
    const third = await takeSnapshot(same.host, { previous: second });
    assert.ok(!same.calls.includes(INDEX_STAT_ARGS.join(' ')), 'an unchanged index: no entry can have been stated since');
    assert.ok(same.inspected.includes('forged.ts'), 'found holding something else before, called clean now: read again');
    assert.equal(third.workTree.get('forged.ts'), `100644 ${B}`, 'so it does not read as a change back');

    const future = await takeSnapshot(fakeHost(['k3'], listing, stats).host, { previous: { ...first, takenAt: Date.now() + 3_600_000 } });
    assert.equal(future.workTree.get('forged.ts'), `100644 ${B}`, 'a start saved in the future counts as now');
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
