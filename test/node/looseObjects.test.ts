// Objects read from git's loose object files (src/node/looseObjects.ts), against real git: an object is
// answered only when its file hashes to the id it was asked by; anything else (packed, altered, a link
// where the file should be) is asked of a real cat-file, and the listing of a commit's tree comes out
// exactly as through cat-file alone.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, realpathSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { readCommitWithTree, startObjectBatch } from '../../src/node/objectBatch';
import type { ObjectBatch } from '../../src/node/objectBatch';
import { looseFirstBatch, readLooseObject } from '../../src/node/looseObjects';
import { gitIn } from './gitRemotes';

describe('objects read from loose object files (src/node/looseObjects.ts)', () => {
  let root: string;
  let objects: string;
  let commit: string;
  const files = { 'wave-scope-plan.json': '{"version":1}\n', 'clones/c-1/waves/3/wave-scope.json': '{}\n', 'clones/c-1/waves/3/filescopes/wave-3/alice.json': '["src/a/"]\n', 'ünï/cödé.json': 'unicode\n' };
  const objectFile = (oid: string) => join(objects, oid.slice(0, 2), oid.slice(2));

  beforeEach(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-loose-')));
    gitIn(root, 'init', '--quiet', '.');
    const env = { ...process.env, GIT_INDEX_FILE: join(root, '.git', 'test-index') };
    const plumbing = (args: string[], input?: string) => execFileSync('git', args, { cwd: root, env, input, encoding: 'utf8' }).trim();
    for (const [path, text] of Object.entries(files)) plumbing(['update-index', '--add', '--cacheinfo', `100644,${plumbing(['hash-object', '-w', '--stdin'], text)},${path}`]);
    commit = execFileSync('git', ['commit-tree', plumbing(['write-tree']), '-m', 'plan'], {
      cwd: root,
      env: { ...env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.invalid', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.invalid' },
      encoding: 'utf8',
    }).trim();
    objects = join(root, '.git', 'objects');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  /** A batch over the loose objects whose fallback cat-file is counted each time it is started. */
  const counted = () => {
    const started: ObjectBatch[] = [];
    const batch = looseFirstBatch(objects, () => {
      const real = startObjectBatch(root);
      started.push(real);
      return real;
    });
    return { batch, started };
  };

  it('reads the loose objects of a SHA-256 repository, hashed as it hashes them', async () => {
    const sha256 = join(root, 'sha256');
    gitIn(root, 'init', '--quiet', '--object-format=sha256', sha256);
    const blob = execFileSync('git', ['hash-object', '-w', '--stdin'], { cwd: sha256, input: 'sixty-four\n', encoding: 'utf8' }).trim();
    assert.equal(blob.length, 64);
    const tree = execFileSync('git', ['mktree'], { cwd: sha256, input: `100644 blob ${blob}\tplan.json\n`, encoding: 'utf8' }).trim();
    const object = readLooseObject(join(sha256, '.git', 'objects'), tree);
    assert.equal(object?.type, 'tree');
    const batch = looseFirstBatch(join(sha256, '.git', 'objects'), () => assert.fail('no cat-file is needed'));
    const [read] = await batch.read([blob]);
    assert.equal(read?.content.toString('utf8'), 'sixty-four\n');
  });

  it('reads a loose object exactly as git holds it', () => {
    const object = readLooseObject(objects, commit);
    assert.equal(object?.type, 'commit');
    assert.equal(object?.content.toString('utf8'), gitIn(root, 'cat-file', 'commit', commit));
  });

  it('lists a commit\'s tree from loose objects alone, exactly as through cat-file, and starts no cat-file', async () => {
    const { batch, started } = counted();
    const hints = ['clones', 'clones/c-1/waves/3', 'not/there'];
    const loose = await readCommitWithTree(batch, commit, hints);
    const git = startObjectBatch(root);
    try {
      assert.deepEqual(loose, await readCommitWithTree(git, commit, hints));
    } finally {
      git.close();
    }
    const [blob] = await batch.read([loose.entries.find((entry) => entry.path === 'ünï/cödé.json')?.oid ?? '']);
    assert.equal(blob?.content.toString('utf8'), 'unicode\n');
    assert.deepEqual(await batch.read([`${commit}:not/there`]), [null], 'a path the proven tree does not have is missing');
    batch.close();
    assert.equal(started.length, 0);
  });

  it('asks git for what is packed, and answers the rest in the order asked', async () => {
    gitIn(root, 'update-ref', 'refs/wave-scope/plan', commit);
    gitIn(root, 'gc', '--quiet', '--prune=now');
    assert.equal(readLooseObject(objects, commit), undefined, 'packed: no loose file');
    const { batch, started } = counted();
    try {
      const listed = await readCommitWithTree(batch, commit);
      assert.deepEqual(listed.entries.map((entry) => entry.path).sort(), Object.keys(files).sort());
      assert.equal(started.length, 1, 'one cat-file, started when first needed');
      const [missing, found] = await batch.read(['0'.repeat(40), commit]);
      assert.equal(missing, null);
      assert.equal(found?.type, 'commit');
    } finally {
      batch.close();
    }
  });

  it('never takes an object file that does not hash to its id, nor a link or a FIFO where the file should be', async () => {
    const path = objectFile(commit);
    const real = readLooseObject(objects, commit);
    assert.ok(real !== undefined);
    // Another commit's text under this commit's name: well formed, but not this object.
    const forged = Buffer.from(real.content.toString('utf8').replace('plan', 'PLAN'));
    chmodSync(path, 0o644);
    writeFileSync(path, deflateSync(Buffer.concat([Buffer.from(`commit ${forged.length}\0`), forged])));
    assert.equal(readLooseObject(objects, commit), undefined);
    writeFileSync(path, 'not deflated at all');
    assert.equal(readLooseObject(objects, commit), undefined);

    unlinkSync(path);
    const elsewhere = join(root, 'elsewhere');
    writeFileSync(elsewhere, deflateSync(Buffer.concat([Buffer.from(`commit ${real.content.length}\0`), real.content])));
    symlinkSync(elsewhere, path);
    assert.equal(readLooseObject(objects, commit), undefined, 'a link is not followed, even to the right bytes');
    unlinkSync(path);
    execFileSync('mkfifo', [path]);
    assert.equal(readLooseObject(objects, commit), undefined, 'a FIFO is not waited on');
    unlinkSync(path);
    assert.equal(readLooseObject(objects, '../../x'), undefined, 'only an object id names a file');

    // The batch then asks git, which has no such object any more: missing, not the forgery.
    const { batch, started } = counted();
    try {
      assert.deepEqual(await batch.read([commit]), [null]);
      assert.equal(started.length, 1);
    } finally {
      batch.close();
    }
  });
});
