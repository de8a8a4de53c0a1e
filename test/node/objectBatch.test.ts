// The interactive cat-file and the tree read through it (src/node/objectBatch.ts) against real git: the
// listing must be exactly what `git ls-tree -r` prints, for every kind of entry and name git allows.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { batchAnswerLength, MAX_PLAN_OBJECT_BYTES, MAX_PLAN_READ_BYTES, MAX_PLAN_TREE_DEPTH, planReadBudget, readCommitWithTree, startObjectBatch, takeBatchAnswer } from '../../src/node/objectBatch';
import { looseFirstBatch } from '../../src/node/looseObjects';
import { PlanRefError } from '../../src/planner/sync/publish';
import { writeNestedTreeCommit } from '../support/nestedTrees';
import { gitIn } from './gitRemotes';

/** `git ls-tree -r -z --full-tree`, as path, id and whether it is a plain file (a blob of mode 100644, as every file of a plan is). */
function lsTree(root: string, commit: string): Array<{ path: string; oid: string; blob: boolean }> {
  return gitIn(root, 'ls-tree', '-r', '-z', '--full-tree', commit)
    .split('\0')
    .filter((record) => record !== '')
    .map((record) => {
      const tab = record.indexOf('\t');
      const [mode, type, oid] = record.slice(0, tab).split(' ');
      return { path: record.slice(tab + 1), oid: oid as string, blob: type === 'blob' && mode === '100644' };
    });
}

/** A commit whose tree holds `blobs` (path → text) and `links` (path → commit id, as submodule links). */
function commitTree(root: string, blobs: Record<string, string>, links: Record<string, string> = {}): string {
  const env = { ...process.env, GIT_INDEX_FILE: join(root, '.git', 'test-index') };
  const plumbing = (args: string[], input?: string) => execFileSync('git', args, { cwd: root, env, input, encoding: 'utf8' }).trim();
  for (const [path, text] of Object.entries(blobs)) {
    const mode = path.endsWith('.sh') ? '100755' : path.endsWith('.link') ? '120000' : '100644';
    plumbing(['update-index', '--add', '--cacheinfo', `${mode},${plumbing(['hash-object', '-w', '--stdin'], text)},${path}`]);
  }
  for (const [path, commit] of Object.entries(links)) plumbing(['update-index', '--add', '--cacheinfo', `160000,${commit},${path}`]);
  return plumbing(['commit-tree', plumbing(['write-tree']), '-m', 'tree'], '');
}

describe('one cat-file asked in rounds (src/node/objectBatch.ts)', () => {
  let dir: string;
  beforeEach(() => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-batch-')));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const repository = (name: string, ...init: string[]) => {
    const root = join(dir, name);
    gitIn(dir, 'init', '--quiet', ...init, root);
    gitIn(root, 'config', 'user.name', 'Test');
    gitIn(root, 'config', 'user.email', 'test@example.invalid');
    return root;
  };

  const awkward = {
    'wave-scope-plan.json': '{"version":1}\n',
    'a b/c d.json': 'spaces\n',
    'line\nbreak/x.json': 'a newline in a directory name\n',
    'ünï/cödé.json': 'unicode\n',
    'dir/dir.json': 'a file beside its directory name\n',
    'dir.json': 'sorted before dir/ by git, as "dir.json" < "dir/"\n',
    'dir-x/y.json': 'sorted after dir/ by git\n',
    'deep/1/2/3/4/5/6/leaf.json': 'deep\n',
    'run.sh': '#!/bin/sh\n',
    'target.link': 'dir.json',
    'empty.json': '',
  };

  for (const format of ['sha1', 'sha256']) {
    it(`lists a commit's tree exactly as git ls-tree -r does (${format}): every name, mode, order and a submodule link`, async () => {
      const root = repository(format, `--object-format=${format}`);
      const linked = commitTree(root, { 'other.txt': 'x\n' });
      const commit = commitTree(root, awkward, { 'vendor/lib': linked });
      const batch = startObjectBatch(root);
      try {
        const { entries: listed } = await readCommitWithTree(batch, commit);
        assert.deepEqual(listed, lsTree(root, commit));
        assert.equal(listed.find((entry) => entry.path === 'vendor/lib')?.blob, false);
        // An executable and a symbolic link are not files a plan holds: listed, never read as one.
        assert.deepEqual(listed.filter((entry) => ['run.sh', 'target.link'].includes(entry.path)).map((entry) => entry.blob), [false, false]);
        // The same process goes on answering: the blobs, in the order asked.
        const blobs = listed.filter((entry) => entry.blob);
        const answers = await batch.read(blobs.map((entry) => entry.oid));
        for (const [index, entry] of blobs.entries()) assert.equal(answers[index]?.content.toString('utf8'), gitIn(root, 'cat-file', 'blob', entry.oid), entry.path);
      } finally {
        batch.close();
      }
    });
  }

  it('reads every mode as git does (zero-padded, other permission bits, bits past the type), and refuses a tree whose mode git cannot read', async () => {
    const root = repository('modes');
    const plumbing = (args: string[], input: string | Buffer) => execFileSync('git', args, { cwd: root, input, encoding: 'utf8' }).trim();
    const blob = plumbing(['hash-object', '-w', '--stdin'], '["src/"]\n');
    const emptyTree = plumbing(['hash-object', '-w', '-t', 'tree', '--stdin'], '');
    const treeOf = (entries: ReadonlyArray<[mode: string, name: string, oid: string]>) =>
      plumbing(['hash-object', '-w', '-t', 'tree', '--literally', '--stdin'], Buffer.concat(entries.flatMap(([mode, name, oid]) => [Buffer.from(`${mode} ${name}\0`), Buffer.from(oid, 'hex')])));
    // Each mode as written, and what git reads it as (git ls-tree's spelling).
    const modes: Array<[written: string, read: string]> = [
      ['100644', '100644'],
      ['0100644', '100644'],
      ['000000100644', '100644'],
      ['100664', '100644'],
      ['100600', '100644'],
      ['100000', '100644'],
      ['1100644', '100644'],
      ['100755', '100755'],
      ['0100755', '100755'],
      ['100744', '100755'],
      ['120000', '120000'],
      ['0120777', '120000'],
      ['40000', '040000'],
      ['040000', '040000'],
      ['40755', '040000'],
      ['160000', '160000'],
      ['0160000', '160000'],
      ['170000', '160000'],
      ['0', '160000'],
    ];
    const entries = modes.map(([mode], index): [string, string, string] => [mode, `e${String(index).padStart(2, '0')}`, mode.replace(/^0+/, '').startsWith('4') ? emptyTree : blob]);
    const commit = plumbing(['commit-tree', treeOf(entries), '-m', 'modes'], '');
    const listed = gitIn(root, 'ls-tree', '-z', commit).split('\0').filter((record) => record !== '').map((record) => record.split(' ')[0]);
    assert.deepEqual(listed, modes.map(([, read]) => read), 'what git ls-tree prints for each');
    const batch = startObjectBatch(root);
    try {
      const { entries: read } = await readCommitWithTree(batch, commit);
      assert.deepEqual(read, lsTree(root, commit));
      assert.deepEqual(read.filter((entry) => entry.blob).map((entry) => entry.path), entries.filter((_, index) => modes[index]?.[1] === '100644').map(([, name]) => name));
      for (const mode of ['10064a', '', '-100644', '100644\u0661']) {
        const broken = plumbing(['commit-tree', treeOf([[mode, 'a.json', blob]]), '-m', 'broken'], '');
        assert.throws(() => gitIn(root, 'ls-tree', '-r', broken), /malformed mode/, `git refuses the mode ${JSON.stringify(mode)}`);
        await assert.rejects(readCommitWithTree(batch, broken), (error: Error) => error instanceof PlanRefError && /has an entry whose mode git cannot read/.test(error.message), JSON.stringify(mode));
      }
    } finally {
      batch.close();
    }
  });

  it('lists a commit of a known shape in one round from the directories asked for ahead, and exactly the commit\'s whatever they say', async () => {
    const root = repository('hinted');
    const plain = commitTree(root, Object.fromEntries(Object.entries(awkward).filter(([path]) => !path.includes('\n'))));
    const commit = commitTree(root, awkward);
    const directories = ['a b', 'ünï', 'dir', 'dir-x', 'deep', 'deep/1', 'deep/1/2', 'deep/1/2/3', 'deep/1/2/3/4', 'deep/1/2/3/4/5', 'deep/1/2/3/4/5/6'];
    const batch = startObjectBatch(root);
    const rounds: string[][] = [];
    const counting = { read: (names: readonly string[]) => (rounds.push([...names]), batch.read(names)), close: () => batch.close() };
    try {
      assert.deepEqual((await readCommitWithTree(counting, plain, directories)).entries, lsTree(root, plain));
      assert.equal(rounds.length, 1, rounds.map((round) => round.join(' | ')).join('\n'));
      rounds.length = 0;
      const hinted = await readCommitWithTree(counting, commit, directories);
      assert.deepEqual(hinted.entries, lsTree(root, commit));
      // "line\nbreak" cannot be asked for by path (the batch is read by lines): it is read by id, in a round of its own.
      assert.equal(rounds.length, 2, rounds.map((round) => round.join(' | ')).join('\n'));
      assert.equal(hinted.commitText, gitIn(root, 'cat-file', 'commit', commit));
      rounds.length = 0;
      // Hints that are wrong (a file, a path that is not there, a newline, the root, another tree's names) change nothing.
      const wrong = ['dir.json', 'nowhere', 'line\nbreak', '', 'dir/dir.json', 'deep/1/2/3/4/5/6/leaf.json', 'a b/c d.json'];
      assert.deepEqual((await readCommitWithTree(counting, commit, wrong)).entries, lsTree(root, commit));
      assert.deepEqual((await readCommitWithTree(counting, commit)).entries, lsTree(root, commit));
    } finally {
      batch.close();
    }
  });

  it('reads what is new below a directory asked for ahead: a hint covering a directory but not its subdirectories hides none of them', async () => {
    // A plan cache knows `clones/` and `clones/c-1/`; another clone has since published `clones/c-2/`.
    const root = repository('partial-hints');
    const commit = commitTree(root, {
      'wave-scope-plan.json': '{"version":1}\n',
      'clones/c-1/waves/1/a.json': 'a\n',
      'clones/c-2/waves/2/b.json': 'b\n',
      'clones/c-2/published.json': '{}\n',
      ...Object.fromEntries(Object.entries(awkward).filter(([path]) => !path.includes('\n'))),
    });
    const directories = ['clones', 'clones/c-1', 'clones/c-1/waves', 'deep', 'deep/1/2', 'a b'];
    const batch = startObjectBatch(root);
    try {
      // Every subset of the hints, one directory at a time and all together.
      for (const hints of [...directories.map((directory) => [directory]), directories]) {
        assert.deepEqual((await readCommitWithTree(batch, commit, hints)).entries, lsTree(root, commit), hints.join(', '));
      }
    } finally {
      batch.close();
    }
  });

  it('refuses a tree nested deeper than any plan after at most MAX_PLAN_TREE_DEPTH rounds, however deep, and lists one just as deep as the bound', async () => {
    const root = repository('nested');
    const gitDir = join(root, '.git');
    const batch = startObjectBatch(root);
    const rounds: string[][] = [];
    const counting = { read: (names: readonly string[]) => (rounds.push([...names]), batch.read(names)), close: () => batch.close() };
    const tooDeep = (error: unknown) => error instanceof PlanRefError && error.reason === 'read' && new RegExp(`nests directories more than ${MAX_PLAN_TREE_DEPTH} deep`).test(error.message);
    try {
      const deepest = writeNestedTreeCommit(gitDir, { depth: MAX_PLAN_TREE_DEPTH - 1 });
      assert.deepEqual((await readCommitWithTree(counting, deepest)).entries, lsTree(root, deepest));
      // Thousands of levels of tiny trees: refused within the bound's rounds, and without a stack per level.
      for (const depth of [MAX_PLAN_TREE_DEPTH, 30_000]) {
        rounds.length = 0;
        await assert.rejects(readCommitWithTree(counting, writeNestedTreeCommit(gitDir, { depth })), tooDeep);
        assert.ok(rounds.length <= MAX_PLAN_TREE_DEPTH + 1, `${rounds.length} rounds for ${depth} levels`);
      }
      // Directories asked for ahead are read in the first round, deeper than the rounds go: still refused.
      const hinted = writeNestedTreeCommit(gitDir, { depth: MAX_PLAN_TREE_DEPTH + 8 });
      const directories = Array.from({ length: MAX_PLAN_TREE_DEPTH + 9 }, (_, index) => ['zdeep', ...Array.from({ length: index }, () => 'd000')].join('/'));
      rounds.length = 0;
      await assert.rejects(readCommitWithTree(counting, hinted, directories), tooDeep);
      assert.equal(rounds.length, 1);
    } finally {
      batch.close();
    }
  });

  it('refuses a tree whose directories name one tree many times once its listing passes the read limit, a tree of empty trees too', async () => {
    // The readers' limit, made small so the reading is quick; the default is MAX_PLAN_READ_BYTES, as for readTree's ls-tree.
    const readLimit = 64 * 1024;
    const root = repository('shared-subtrees');
    const gitDir = join(root, '.git');
    const batch = startObjectBatch(root);
    const refused = (error: unknown) => error instanceof PlanRefError && new RegExp(`lists more than ${readLimit} bytes of paths`).test(error.message);
    try {
      // 20 levels of two names for one tree: a million paths from 42 objects.
      await assert.rejects(readCommitWithTree(batch, writeNestedTreeCommit(gitDir, { depth: 20, width: 2 }), [], { readLimit }), refused);
      // Empty trees list nothing, yet walking them costs as much.
      await assert.rejects(readCommitWithTree(batch, writeNestedTreeCommit(gitDir, { depth: 20, width: 2, empty: true }), [], { readLimit }), refused);
      const small = writeNestedTreeCommit(gitDir, { depth: 3, width: 2 });
      assert.deepEqual((await readCommitWithTree(batch, small, [], { readLimit })).entries, lsTree(root, small));
    } finally {
      batch.close();
    }
  });

  it('answers a missing object with null, beside the ones it has, in one round', async () => {
    const root = repository('missing');
    const commit = commitTree(root, { 'a.json': 'a\n' });
    const [entry] = lsTree(root, commit);
    const batch = startObjectBatch(root);
    try {
      const answers = await batch.read([entry?.oid as string, '0'.repeat(40), `${commit}^{tree}`]);
      assert.equal(answers[0]?.type, 'blob');
      assert.equal(answers[1], null);
      assert.equal(answers[2]?.type, 'tree');
      await assert.rejects(readCommitWithTree(batch, '0'.repeat(40)), (error: unknown) => error instanceof PlanRefError && error.reason === 'read');
    } finally {
      batch.close();
    }
  });

  it('fails a read, never hangs, when git cannot run there or has ended', async () => {
    // Not a repository: git starts, finds none, and ends.
    const nowhere = startObjectBatch(dir);
    await assert.rejects(nowhere.read(['HEAD']), (error: unknown) => error instanceof PlanRefError && /not a git repository/i.test(error.message));
    const root = repository('ended');
    const batch = startObjectBatch(root);
    batch.close();
    await assert.rejects(batch.read(['HEAD']), PlanRefError);
    const asked = startObjectBatch(root);
    try {
      await assert.rejects(asked.read(['a\nb']), (error: unknown) => error instanceof PlanRefError && /line break/.test(error.message));
    } finally {
      asked.close();
    }
  });

  it('takes one whole answer at a time from cat-file\'s output, and waits for the rest of a partial one', () => {
    const answer = Buffer.from('abc blob 3\nx\ny\n0000 missing\n');
    const first = takeBatchAnswer(answer);
    assert.equal(first?.answer?.content.toString('utf8'), 'x\ny', 'a newline inside the content is content');
    assert.deepEqual(first && takeBatchAnswer(first.rest), { answer: null, rest: Buffer.alloc(0) });
    for (let cut = 0; cut < 15; cut += 1) assert.equal(takeBatchAnswer(answer.subarray(0, cut)), undefined, `cut at ${cut}`);
    assert.throws(() => takeBatchAnswer(Buffer.from('abc blob many\n')), PlanRefError);
    assert.equal(batchAnswerLength(answer), 'abc blob 3\nx\ny\n'.length);
    assert.equal(batchAnswerLength(Buffer.from('abc blob 3')), undefined);
    assert.equal(batchAnswerLength(Buffer.from('0000 missing\nabc')), '0000 missing\n'.length);
  });

  it('reads a large object whole, however cat-file splits it, and refuses one larger than any plan file', async () => {
    const root = repository('large');
    const hash = (input: Buffer) => execFileSync('git', ['hash-object', '-w', '--stdin'], { cwd: root, input, maxBuffer: 1 << 28 }).toString().trim();
    const text = Buffer.from(Array.from({ length: 200_000 }, (_, index) => `line ${index}\n`).join(''));
    const large = hash(text);
    const huge = hash(Buffer.alloc(MAX_PLAN_OBJECT_BYTES + 1, 0x20));
    const batch = startObjectBatch(root);
    try {
      const [answer, missing] = await batch.read([large, '0'.repeat(40)]);
      assert.ok(answer?.content.equals(text), 'the same bytes');
      assert.equal(missing, null);
      await assert.rejects(batch.read([huge]), (error: unknown) => error instanceof PlanRefError && /more than any plan file holds/.test(error.message));
    } finally {
      batch.close();
    }
  });

  it('refuses a reading that holds more than any plan in all, objects each under the limit, through cat-file and from loose files alike', async () => {
    // The readers' limit, made small so the reading is quick on any disk; the default is pinned below.
    const readLimit = 64 * 1024;
    const root = repository('many-large');
    const size = 16 * 1024;
    const count = Math.ceil(readLimit / size) + 1;
    const ids = Array.from({ length: count }, (_, index) =>
      execFileSync('git', ['hash-object', '-w', '--stdin'], { cwd: root, input: Buffer.alloc(size, 0x41 + index) }).toString().trim(),
    );
    const refused = (error: unknown) => error instanceof PlanRefError && new RegExp(`more than ${readLimit} bytes in all`).test(error.message);
    const batch = startObjectBatch(root, { readLimit });
    try {
      await assert.rejects(batch.read(ids), refused);
    } finally {
      batch.close();
    }
    const loose = looseFirstBatch(join(root, '.git', 'objects'), () => assert.fail('every object is loose: git is never asked'), new Map(), { readLimit });
    await assert.rejects(loose.read(ids), refused);
    // Just under the limit, both readers answer every object.
    const under = ids.slice(0, count - 1);
    const whole = startObjectBatch(root, { readLimit });
    try {
      assert.equal((await whole.read(under)).length, under.length);
    } finally {
      whole.close();
    }
    assert.equal((await looseFirstBatch(join(root, '.git', 'objects'), () => assert.fail('never asked'), new Map(), { readLimit }).read(under)).length, under.length);
  });

  it('holds every reader to MAX_PLAN_READ_BYTES unless told otherwise', () => {
    const hold = planReadBudget();
    hold(MAX_PLAN_READ_BYTES - 1);
    hold(1);
    assert.throws(() => hold(1), (error: unknown) => error instanceof PlanRefError && /more than 268435456 bytes in all/.test(error.message));
    assert.equal(MAX_PLAN_READ_BYTES, 256 * 1024 * 1024);
  });
});
