import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  compareGitPaths,
  GitOutputError,
  IndexListing,
  parseCommitLog,
  parseDiffTreeStdin,
  parseStatusV1,
  parseStatusV2,
  fileStatKey,
  IndexStats,
  savedDigests,
} from '../../../src/planner/backstop/gitOutput';

const OID_A = 'a'.repeat(40);
const OID_B = 'b'.repeat(40);
const COMMIT = 'c'.repeat(40);

/**
 * Builds `git ls-files --stage -z` text for entries, in git's order (UTF-8 bytes of the path, then
 * stage); `tagged`, as `--stage -v` prints it, each record led by its tag (`H` unless given).
 */
function listing(entries: Array<{ path: string; stage?: number; oid?: string; mode?: string; tag?: string }>, tagged = false): string {
  const sorted = [...entries].sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)) || (a.stage ?? 0) - (b.stage ?? 0));
  return sorted.map((entry) => `${tagged ? `${entry.tag ?? 'H'} ` : ''}${entry.mode ?? '100644'} ${entry.oid ?? OID_A} ${entry.stage ?? 0}\t${entry.path}\0`).join('');
}

describe('backstop: reading git output', () => {
  describe('parseStatusV2', () => {
    const cases: Array<{ name: string; text: string; head: object; entries: object[] }> = [
      {
        name: 'a branch with a slash, a changed file with spaces, an untracked file with a newline',
        text: `# branch.oid ${COMMIT}\0# branch.head feature/x\0# branch.ab +0 -0\x001 .M N... 100644 100644 100644 ${OID_A} ${OID_A} my file.ts\0? odd\nname\0`,
        head: { ref: 'refs/heads/feature/x', commit: COMMIT },
        entries: [
          { kind: 'tracked', path: 'my file.ts', x: '.', y: 'M', submodule: 'N...', worktreeMode: '100644' },
          { kind: 'untracked', path: 'odd\nname' },
        ],
      },
      {
        name: 'an unborn branch and a deleted file',
        text: `# branch.oid (initial)\0# branch.head main\x001 AD N... 000000 100644 000000 ${'0'.repeat(40)} ${OID_A} gone.ts\0`,
        head: { ref: 'refs/heads/main' },
        entries: [{ kind: 'tracked', path: 'gone.ts', x: 'A', y: 'D', submodule: 'N...', worktreeMode: '000000' }],
      },
      {
        name: 'a detached HEAD, a rename (its origin is consumed), a conflict and an ignored file',
        text: `# branch.oid ${COMMIT}\0# branch.head (detached)\x002 R. N... 100644 100644 100644 ${OID_A} ${OID_A} R100 new name.ts\0old.ts\0u UU N... 100644 100644 100644 100644 ${OID_A} ${OID_B} ${OID_A} both.ts\0! build/out.o\0`,
        head: { commit: COMMIT },
        entries: [
          { kind: 'tracked', path: 'new name.ts', x: 'R', y: '.', submodule: 'N...', worktreeMode: '100644' },
          { kind: 'conflict', path: 'both.ts', x: 'U', y: 'U', submodule: 'N...', worktreeMode: '100644' },
          { kind: 'ignored', path: 'build/out.o' },
        ],
      },
    ];
    for (const { name, text, head, entries } of cases) {
      it(name, () => {
        const status = parseStatusV2(text);
        assert.deepEqual(status.head, head);
        assert.deepEqual(status.entries, entries);
      });
    }

    it('refuses output it cannot read', () => {
      assert.throws(() => parseStatusV2('# branch.oid (initial)\0'), GitOutputError, 'no branch.head line');
      assert.throws(() => parseStatusV2('# branch.head main\0x what\0'), /unexpected record/);
      assert.throws(() => parseStatusV2('# branch.head main\x001 .M\0'), /short record/);
    });
  });

  it('parseStatusV1 reads renames and untracked files one by one', () => {
    assert.deepEqual(parseStatusV1('R  new.ts\0old.ts\0?? src/evil.py\0 M a b.ts\0'), [
      { x: 'R', y: ' ', path: 'new.ts', origPath: 'old.ts' },
      { x: '?', y: '?', path: 'src/evil.py' },
      { x: ' ', y: 'M', path: 'a b.ts' },
    ]);
    assert.throws(() => parseStatusV1('?x\0'), GitOutputError);
  });

  it('parseCommitLog and parseDiffTreeStdin attribute paths to commits, even a file named like a hash', () => {
    assert.deepEqual(parseCommitLog(`${COMMIT}\tfirst line\0${OID_A}\tsecond\0`), [
      { hash: COMMIT, subject: 'first line' },
      { hash: OID_A, subject: 'second' },
    ]);
    const touched = parseDiffTreeStdin(`${COMMIT}\0M\0${OID_A}\0A\0x.ts\0${OID_A}\0D\0gone\0`, [COMMIT, OID_A]);
    assert.deepEqual(touched.get(COMMIT), [
      { status: 'M', path: OID_A },
      { status: 'A', path: 'x.ts' },
    ]);
    assert.deepEqual(touched.get(OID_A), [{ status: 'D', path: 'gone' }]);
    assert.throws(() => parseDiffTreeStdin('M\0x\0', [COMMIT]), GitOutputError, 'a path before any commit');
  });

  describe('IndexListing', () => {
    const pathChar = fc.constantFrom('a', 'b', 'z', '-', '.', '/', ' ', 'é', '\ue000', '\uffee', '😀', '𝔸');
    const path = fc.array(pathChar, { minLength: 1, maxLength: 6 }).map((chars) => chars.join(''));

    it('compareGitPaths orders as git does: by the UTF-8 bytes', () => {
      fc.assert(
        fc.property(path, path, (a, b) => Math.sign(compareGitPaths(a, b)) === Math.sign(Buffer.compare(Buffer.from(a), Buffer.from(b)))),
        { numRuns: 2000 },
      );
    });

    it('lookup finds exactly the stage-0 entries (brute-force oracle)', () => {
      fc.assert(
        fc.property(fc.uniqueArray(path, { maxLength: 40 }), fc.array(path, { maxLength: 10 }), fc.array(fc.boolean(), { maxLength: 40 }), fc.boolean(), (paths, probes, conflicted, tagged) => {
          const entries: Array<{ path: string; stage: number; oid: string }> = paths.flatMap((p, index) =>
            conflicted[index] === true ? [1, 2, 3].map((stage) => ({ path: p, stage, oid: OID_B })) : [{ path: p, stage: 0, oid: OID_A }],
          );
          const index = new IndexListing(listing(entries, tagged));
          for (const probe of [...paths, ...probes]) {
            const expected = entries.find((entry) => entry.path === probe && entry.stage === 0);
            assert.equal(index.lookup(probe), expected === undefined ? undefined : `100644 ${OID_A}`);
          }
        }),
        { numRuns: 300 },
      );
    });

    it('differingPaths names exactly the paths whose records differ, with each side\'s stage-0 identity (brute-force oracle)', () => {
      const entry = fc.record({ path, oid: fc.constantFrom(OID_A, OID_B), mode: fc.constantFrom('100644', '100755'), tag: fc.constantFrom('H', 'h', 'S') });
      const side = fc.uniqueArray(entry, { selector: (value) => value.path, maxLength: 30 });
      fc.assert(
        fc.property(side, side, fc.boolean(), (left, right, tagged) => {
          const before = new IndexListing(listing(left, tagged));
          const after = new IndexListing(listing(right, tagged));
          const found = (entries: typeof left, p: string) => entries.find((candidate) => candidate.path === p);
          const identity = (entries: typeof left, p: string) => {
            const record = found(entries, p);
            return record === undefined ? undefined : `${record.mode} ${record.oid}`;
          };
          const expected = new Map<string, { before?: string; after?: string }>();
          for (const p of new Set([...left, ...right].map((candidate) => candidate.path))) {
            const was = identity(left, p);
            const is = identity(right, p);
            const flagged = tagged && found(left, p)?.tag !== found(right, p)?.tag;
            if (was !== is || flagged) expected.set(p, { ...(was !== undefined ? { before: was } : {}), ...(is !== undefined ? { after: is } : {}) });
          }
          assert.deepEqual(new Map([...before.differingPaths(after)].sort()), new Map([...expected].sort()));
        }),
        { numRuns: 300 },
      );
    });

    it('uncheckedEntries finds exactly the stage-0 entries tagged assume-unchanged or skip-worktree (brute-force oracle)', () => {
      const entry = fc.record({ path, tag: fc.constantFrom('H', 'H', 'h', 's', 'S', 'M'), oid: fc.constantFrom(OID_A, OID_B), conflicted: fc.boolean() });
      fc.assert(
        fc.property(fc.uniqueArray(entry, { selector: (value) => value.path, maxLength: 30 }), (entries) => {
          const records = entries.flatMap((record) =>
            record.conflicted ? [1, 2].map((stage) => ({ ...record, stage, tag: 'M' })) : [{ ...record, stage: 0 }],
          );
          const expected = records
            .filter((record) => record.stage === 0 && ['h', 's', 'S'].includes(record.tag))
            .map((record) => ({ path: record.path, identity: `100644 ${record.oid}` }));
          const byPath = (a: { path: string }, b: { path: string }) => compareGitPaths(a.path, b.path);
          assert.deepEqual(new IndexListing(listing(records, true)).uncheckedEntries().sort(byPath), expected.sort(byPath));
          assert.deepEqual(new IndexListing(listing(records)).uncheckedEntries(), [], 'a listing without tags cannot tell');
        }),
        { numRuns: 300 },
      );
      const sha256 = new IndexListing(`S 100755 ${'d'.repeat(64)} 0\tbin/run\0`);
      assert.deepEqual(sha256.uncheckedEntries(), [{ path: 'bin/run', identity: `100755 ${'d'.repeat(64)}` }]);
      assert.equal(sha256.lookup('bin/run'), `100755 ${'d'.repeat(64)}`);
    });

    it('gitlinks finds exactly the paths with an entry of mode 160000 at any stage, once each, paths that spell a gitlink\'s record included (brute-force oracle)', () => {
      // Paths that hold what a gitlink's record looks like, where a search for the mode could stop.
      const lookalike = fc.constantFrom('a 160000 b', `x\tH 160000 ${OID_A} 0\ty`, '160000 ', 'H 160000 ');
      const entry = fc.record({
        path: fc.oneof(path, lookalike),
        mode: fc.constantFrom('100644', '160000', '120000'),
        tag: fc.constantFrom('H', 'h', 'S', 'M'),
        oid: fc.constantFrom(OID_A, `${'1'.repeat(34)}160000`),
        conflicted: fc.boolean(),
      });
      fc.assert(
        fc.property(fc.uniqueArray(entry, { selector: (value) => value.path, maxLength: 30 }), fc.boolean(), (entries, tagged) => {
          const records = entries.flatMap((record) => (record.conflicted ? [1, 3].map((stage) => ({ ...record, stage, tag: 'M' })) : [{ ...record, stage: 0 }]));
          const expected = [...new Set(records.filter((record) => record.mode === '160000').map((record) => record.path))];
          assert.deepEqual(new IndexListing(listing(records, tagged)).gitlinks().sort(compareGitPaths), expected.sort(compareGitPaths));
        }),
        { numRuns: 300 },
      );
      assert.deepEqual(new IndexListing(`160000 ${'e'.repeat(64)} 0\tvendor/lib\0`).gitlinks(), ['vendor/lib'], 'SHA-256, untagged, first record');
    });

    it('reads SHA-256 listings and refuses a listing it cannot read', () => {
      const sha256 = new IndexListing(`100755 ${'d'.repeat(64)} 0\tbin/run\0`);
      assert.equal(sha256.oidLength, 64);
      assert.equal(sha256.lookup('bin/run'), `100755 ${'d'.repeat(64)}`);
      assert.equal(new IndexListing('').lookup('x'), undefined);
      assert.throws(() => new IndexListing('garbage\twith a tab\0'), GitOutputError);
      assert.throws(() => new IndexListing(`100644 ${OID_A} 0\tok\0broken record\0`).lookup('ok'), GitOutputError);
    });
  });

  describe('IndexStats', () => {
    const record = (tag: string, path: string, ctime: number, mtime: number, stage = 0, ino = 77) =>
      `${tag} 100644 ${OID_A} ${stage}\t${path}\0  ctime: ${ctime}:123\n  mtime: ${mtime}:456\n  dev: 2049\tino: ${ino}\n  uid: 0\tgid: 0\n  size: 5\tflags: 0\n`;

    it('reads each record\'s stat data, paths with newlines and look-alike lines included, in listing order', () => {
      const tricky = 'docs/a\n  ctime: 1:1\n  mtime: 1:1\nb.md';
      const stats = new IndexStats([record('H', 'old.ts', 1000, 1000), record('h', tricky, 1999, 2000), record('M', 'x.ts', 5, 6, 2)].join(''));
      assert.equal(stats.size, 3);
      assert.deepEqual([...stats.ctimes], [1000, 1999, 5]);
      assert.deepEqual([...stats.mtimes], [1000, 2000, 6]);
      assert.deepEqual([0, 1, 2].map((index) => stats.fileKeyAt(index)), ['1000 1000 77 5', '1999 2000 77 5', '5 6 77 5']);
      const listing = `H 100644 ${OID_A} 0\told.ts\0h 100644 ${OID_A} 0\t${tricky}\0M 100644 ${OID_A} 2\tx.ts\0`;
      assert.equal(stats.listingLength, listing.length, 'the plain listing\'s length, to check the two agree');
      assert.deepEqual(savedDigests(stats.digestText(), 3), stats.digests, 'read back as written');
      assert.equal(savedDigests(stats.digestText(), 4), undefined, 'not as many as the listing has records');
      assert.equal(new IndexStats('').size, 0);
    });

    it('tells records apart by any field of their stat data, and alike by all of them', () => {
      const digest = (text: string) => new IndexStats(text).digests[0];
      const base = record('H', 'a', 1000, 1000);
      assert.equal(digest(base), digest(record('H', 'a', 1000, 1000)));
      assert.equal(digest(base), digest(record('h', 'other/path', 1000, 1000)), 'the digest is of the stat data alone');
      for (const other of [record('H', 'a', 1001, 1000), record('H', 'a', 1000, 1001), record('H', 'a', 1000, 1000, 0, 78), base.replace('size: 5', 'size: 6'), base.replace('dev: 2049', 'dev: 2050'), base.replace('ctime: 1000:123', 'ctime: 1000:124')]) {
        assert.notEqual(digest(other), digest(base), other);
      }
    });

    it('keeps a file\'s own stat as git truncates it', () => {
      assert.equal(fileStatKey({ ctimeSeconds: 1000n, mtimeSeconds: 2000n, ino: 2n ** 32n + 77n, size: 5n }), '1000 2000 77 5');
    });

    it('refuses what it does not understand (the snapshot then cannot vouch for the turn)', () => {
      assert.throws(() => new IndexStats('no-nul-here'), GitOutputError);
      assert.throws(() => new IndexStats(`H 100644 ${OID_A} 0\ta\0  mtime: 1:1\n  ctime: 1:1\n  x\n  y\n  z\n`), GitOutputError);
      assert.throws(() => new IndexStats(`H 100644 ${OID_A} 0\ta\0  ctime: :1\n`), GitOutputError);
      assert.throws(() => new IndexStats(record('H', 'a', 1, 1).slice(0, -10)), GitOutputError);
    });
  });
});
