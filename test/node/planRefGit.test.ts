import assert from 'node:assert/strict';
// The module object itself (not a namespace copy), so the spy below sees the calls planRefGit.ts makes.
import childProcess from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, cpSync, existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TemporaryFileReserve } from '../../src/node/atomicFile';
import { CloneIdentityError, locateSyncRepository, planStoreOf, planTreeCache, readCloneIdentity, readOrCreateCloneIdentity, readLocalSyncState, reserveSyncStateWrites, updateLocalSyncState } from '../../src/node/cloneState';
import { gitPlanRefStore, readTrackingRef, remotesWithPlanCopies, startPlanFetch } from '../../src/node/planRefGit';
import { diffRange, knownRangeOf, listBranchRefs, RevisionRangeError, startRangeDiff, startRevisionNameCheck } from '../../src/node/rangeDiff';
import { PLAN_REF } from '../../src/planner/sync/planRef';
import { PlanRefError } from '../../src/planner/sync/publish';
import { MAX_PLAN_TREE_DEPTH } from '../../src/node/objectBatch';
import { writeNestedTreeCommit } from '../support/nestedTrees';
import { createSharedRemote, gitIn } from './gitRemotes';
import type { SharedRemote } from './gitRemotes';

/** The git processes started through spawnSync while `run` runs: each one's arguments and standard input. */
async function gitRunsDuring(run: () => unknown): Promise<Array<{ args: readonly string[]; input: string }>> {
  const runs: Array<{ args: readonly string[]; input: string }> = [];
  const real = childProcess.spawnSync;
  const mutable = childProcess as unknown as { spawnSync: unknown };
  mutable.spawnSync = (command: string, args: readonly string[], options: { input?: unknown } | undefined) => {
    runs.push({ args, input: options?.input === undefined ? '' : String(options.input) });
    return (real as (...all: unknown[]) => unknown)(command, args, options);
  };
  try {
    await run();
  } finally {
    mutable.spawnSync = real;
  }
  return runs;
}

/** Every git process started (spawn and spawnSync) while `run` runs, as `<method> <args>`, and what `run` returned. */
async function processesStartedDuring<T>(run: () => Promise<T>): Promise<{ result: T; started: string[] }> {
  const started: string[] = [];
  const real = { spawnSync: childProcess.spawnSync, spawn: childProcess.spawn };
  const mutable = childProcess as unknown as { spawnSync: unknown; spawn: unknown };
  const spy = (method: 'spawnSync' | 'spawn') => (command: string, args: readonly string[], options: unknown) => {
    started.push(`${method} ${args.join(' ')}`);
    return (real[method] as (...all: unknown[]) => unknown)(command, args, options);
  };
  mutable.spawnSync = spy('spawnSync');
  mutable.spawn = spy('spawn');
  try {
    return { result: await run(), started };
  } finally {
    mutable.spawnSync = real.spawnSync;
    mutable.spawn = real.spawn;
  }
}

describe('the plan ref through real git (src/node/planRefGit.ts)', () => {
  let remote: SharedRemote;
  beforeEach(() => {
    remote = createSharedRemote({ 'src/a.ts': 'a\n' });
  });
  afterEach(() => remote.remove());

  const files = new Map([
    ['wave-scope-plan.json', '{"version":1}\n'],
    ['claims.json', '{"version":1,"claims":[]}\n'],
    ['clones/c-x/waves/1/filescopes/wave-1/alice.json', '["src/"]\n'],
    ['clones/c-x/waves/1/note with spaces.json', 'ünïcode\n'],
  ]);
  /** The same plan with other claims: a second commit sharing most of its tree. */
  const changed = new Map([...files, ['claims.json', '{"version":1,"claims":[{"changed":true}]}\n']]);
  /** Clone `a` of the remote, located as a sync command locates it. */
  const locatedClone = () => {
    const a = remote.clone('a');
    const repository = locateSyncRepository(a.root);
    assert.ok(repository);
    return { a, repository };
  };

  it('fetch of a remote without the ref is null, and leaves no copy behind', async () => {
    const clone = remote.clone('a');
    assert.equal(gitPlanRefStore(clone.root, 'origin').fetch(), null);
    assert.equal(readTrackingRef(clone.root, 'origin'), null);
  });

  it('a fetch started before the checkout is located is answered as fetch() answers: the tip, null without a plan, an error for an unreachable remote', async () => {
    const a = remote.clone('a');
    const b = remote.clone('b');
    // Started from a subdirectory: git finds the checkout from there, as the rev-parse that locates it does.
    const fromSubdirectory = (clone: typeof b) => gitPlanRefStore(clone.root, 'origin').fetchStarted(startPlanFetch(join(clone.root, 'src'), 'origin'));
    assert.equal(await fromSubdirectory(b), null, 'no plan yet');
    assert.equal(readTrackingRef(b.root, 'origin'), null);
    const storeA = gitPlanRefStore(a.root, 'origin');
    const commit = await storeA.writeCommit(files, null, 'first');
    assert.deepEqual(storeA.push(commit, null), { ok: true });
    assert.equal(await fromSubdirectory(b), commit);
    assert.equal(readTrackingRef(b.root, 'origin'), commit);
    b.git('remote', 'set-url', 'origin', join(remote.dir, 'nowhere.git'));
    // The failed fetch is not made a second time: only the question that tells "no plan" from "unreachable" follows.
    const runs = await gitRunsDuring(() =>
      assert.rejects(fromSubdirectory(b), (error: unknown) => error instanceof PlanRefError && error.reason === 'fetch' && /nowhere\.git/.test(error.message)),
    );
    assert.deepEqual(runs.map((run) => run.args[0]), ['ls-remote']);
  });

  /** Clone a publishes a first plan commit; clone b has not fetched it yet. */
  const firstPlanPublished = async () => {
    const a = remote.clone('a');
    const b = remote.clone('b');
    const storeA = gitPlanRefStore(a.root, 'origin');
    const first = await storeA.writeCommit(files, null, 'first');
    storeA.push(first, null);
    return { b, storeA, first };
  };

  it('a fetched commit the cache does not hold is read by fetchStarted itself, through one cat-file started beside the fetch, and readFiles then starts no git', async () => {
    const { b, storeA, first } = await firstPlanPublished();
    const cacheB = planTreeCache(join(b.root, '.git'));
    assert.equal(await gitPlanRefStore(b.root, 'origin', { cache: cacheB }).fetchStarted(startPlanFetch(b.root, 'origin')), first);
    // The next commit changes one blob: of what b reads, only that blob is not already known.
    const changed = new Map([...files, ['claims.json', '{"version":1,"claims":[5]}\n']]);
    const second = await storeA.writeCommit(changed, first, 'second');
    storeA.push(second, first);
    const storeB = gitPlanRefStore(b.root, 'origin', { cache: cacheB });
    const { result: tip, started: asked } = await processesStartedDuring(() => storeB.fetchStarted(startPlanFetch(b.root, 'origin')));
    const { result: read, started: afterwards } = await processesStartedDuring(async () => storeB.readFiles(second));
    assert.deepEqual(afterwards, [], 'readFiles answered from what fetchStarted read');
    assert.equal(tip, second);
    assert.deepEqual(read, changed);
    // The fetch, the cat-file started beside it, and the tip read from git (this store was given no refs
    // directory): the new commit's tree and its new blob came through that one cat-file.
    assert.deepEqual(asked.slice(1), ['spawn cat-file --batch', 'spawnSync rev-parse --verify --quiet refs/wave-scope/remotes/origin/plan^{commit}']);
    assert.match(asked[0] as string, /^spawn (-c \S+ )*fetch /);
  });

  it('with the refs\' directory at hand, a fetched commit is read from the loose objects the fetch left, and the trees of the plan last seen: no git but the fetch', async () => {
    const { b, storeA, first } = await firstPlanPublished();
    const repository = locateSyncRepository(b.root);
    assert.ok(repository !== undefined);
    assert.equal(await planStoreOf(repository, 'origin').fetchStarted(startPlanFetch(b.root, 'origin')), first);
    // The first plan's objects go into a pack: the trees the next commit keeps are no loose files any more.
    gitIn(b.root, 'gc', '--quiet', '--prune=now');
    const changed = new Map([...files, ['claims.json', '{"version":1,"claims":[6]}\n']]);
    const second = await storeA.writeCommit(changed, first, 'second');
    storeA.push(second, first);

    const storeB = planStoreOf(repository, 'origin');
    const { result: tip, started } = await processesStartedDuring(() => storeB.fetchStarted(startPlanFetch(b.root, 'origin')));
    assert.equal(tip, second);
    assert.equal(started.length, 1, started.join('\n'));
    assert.match(started[0] as string, /^spawn (-c \S+ )*fetch /);
    const { result: read, started: afterwards } = await processesStartedDuring(async () => storeB.readFiles(second));
    assert.deepEqual(read, changed);
    assert.deepEqual(afterwards, []);
  });

  /**
   * A reference-transaction hook in `clone` that holds every move of its copy of the plan ref (after git has
   * stored and checked what it fetched) until `release` exists, then lets it go, or refuses it (`refuse`).
   */
  const holdPlanRefMoveUntil = (clone: { root: string }, release: string, outcome: 'allow' | 'refuse') => {
    const hook = join(clone.root, '.git', 'hooks', 'reference-transaction');
    writeFileSync(
      hook,
      ['#!/bin/sh', '[ "$1" = prepared ] || exit 0', 'grep -q refs/wave-scope/remotes/ || exit 0', 'i=0', `until [ -e '${release}' ] || [ $i -ge 400 ]; do sleep 0.05; i=$((i+1)); done`, outcome === 'allow' ? 'exit 0' : 'exit 1', ''].join('\n'),
    );
    chmodSync(hook, 0o755);
  };

  /** Clone b (cloned before anything was published, so its fetches bring objects) and a second plan commit to fetch. */
  const secondPlanPublished = async () => {
    const { b, storeA, first } = await firstPlanPublished();
    const repository = locateSyncRepository(b.root);
    assert.ok(repository !== undefined);
    assert.equal(await planStoreOf(repository, 'origin').fetchStarted(startPlanFetch(b.root, 'origin')), first);
    const second = await storeA.writeCommit(changed, first, 'second');
    storeA.push(second, first);
    return { b, repository, storeA, first, second };
  };

  it('fetchAhead reads the commit a fetch brings while git still checks it and moves the ref, and confirms it once the fetch has ended with it', async () => {
    const { b, repository, first, second } = await secondPlanPublished();
    const release = join(remote.dir, 'release');
    holdPlanRefMoveUntil(b, release, 'allow');
    const fetching = startPlanFetch(b.root, 'origin', { traced: true });
    const store = planStoreOf(repository, 'origin');
    const ahead = await store.fetchAhead(fetching);
    // Answered while the ref still names the first commit: git is held before moving it.
    assert.equal(ahead.tip, second);
    assert.equal(readTrackingRef(b.root, 'origin'), first);
    assert.equal(fetching.finished(), false);
    const { result: read, started } = await processesStartedDuring(async () => store.readFiles(second));
    assert.deepEqual(read, changed);
    assert.deepEqual(started, [], 'read ahead');
    writeFileSync(release, '');
    assert.equal(await ahead.confirm?.(), true);
    assert.equal(readTrackingRef(b.root, 'origin'), second);
  });

  it('fetchAhead\'s confirmation is false when the fetch fails after storing the commit, or the ref ends elsewhere; a commit the trace names but git does not have is read once the fetch ends', async () => {
    const { b, repository, storeA, first, second } = await secondPlanPublished();
    const release = join(remote.dir, 'release');
    writeFileSync(release, '');
    holdPlanRefMoveUntil(b, release, 'refuse');
    const refused = await planStoreOf(repository, 'origin').fetchAhead(startPlanFetch(b.root, 'origin', { traced: true }));
    assert.equal(refused.tip, second);
    assert.equal(await refused.confirm?.(), false);
    assert.equal(readTrackingRef(b.root, 'origin'), first);

    // The refused fetch stored the second commit's objects: the next brings a third.
    rmSync(join(b.root, '.git', 'hooks', 'reference-transaction'));
    const third = await storeA.writeCommit(new Map([...changed, ['claims.json', '{"version":1,"claims":[3]}\n']]), second, 'third');
    storeA.push(third, second);
    const fetching = startPlanFetch(b.root, 'origin', { traced: true });
    const moved = await planStoreOf(repository, 'origin').fetchAhead(fetching);
    assert.equal(moved.tip, third);
    await fetching.run;
    b.git('update-ref', 'refs/wave-scope/remotes/origin/plan', first);
    assert.equal(await moved.confirm?.(), false);

    // A trace naming a commit nobody has: nothing is read ahead, and the fetch's own answer is given.
    b.git('update-ref', '-d', 'refs/wave-scope/remotes/origin/plan');
    const started = startPlanFetch(b.root, 'origin');
    const misled = await planStoreOf(repository, 'origin').fetchAhead({ ...started, stored: Promise.resolve('f'.repeat(40)) });
    assert.equal(misled.tip, third);
    // Read from what the ended fetch left: the tip is the fetch's own, nothing is left to confirm.
    assert.equal(misled.confirm, undefined);
    assert.equal(readTrackingRef(b.root, 'origin'), third);
  });

  it('a traced fetch ends when git does, though a process it started lives on (as a background gc does), and that process still runs git', async () => {
    const { b } = await secondPlanPublished();
    const ran = join(remote.dir, 'ran');
    const pid = join(remote.dir, 'pid');
    // Started while the fetch moves the ref, as `git gc --auto` is while it ends: detached from every stream
    // but what it inherits otherwise. It runs git once the fetch has long ended, then lives on.
    const hook = join(b.root, '.git', 'hooks', 'reference-transaction');
    writeFileSync(
      hook,
      ['#!/bin/sh', '[ "$1" = committed ] || exit 0', `(sleep 1; git rev-parse --git-dir > '${ran}'; exec sleep 60) </dev/null >/dev/null 2>&1 &`, `echo $! > '${pid}'`, 'exit 0', ''].join('\n'),
    );
    chmodSync(hook, 0o755);
    try {
      const fetching = startPlanFetch(b.root, 'origin', { traced: true });
      assert.equal((await fetching.run)?.status, 0);
      assert.equal(existsSync(ran), false, 'the fetch was seen to end before the background process ran git');
      process.kill(Number(readFileSync(pid, 'utf8')), 0);
      const deadline = Date.now() + 15_000;
      while (!existsSync(ran) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      assert.match(readFileSync(ran, 'utf8'), /\.git/, 'git, started with the trace\'s file gone, ran all the same');
    } finally {
      try {
        if (existsSync(pid)) process.kill(Number(readFileSync(pid, 'utf8')), 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
  });

  it('a cancelled background fetch ends, and leaves no lock behind', async () => {
    const a = remote.clone('a');
    // A transport that never answers (and ends when git does, as ssh would): only the cancel ends this fetch.
    a.git('remote', 'set-url', 'origin', 'ssh://wave-scope.invalid/never.git');
    const previous = process.env.GIT_SSH_COMMAND;
    process.env.GIT_SSH_COMMAND = 'cat >/dev/null #';
    let fetching;
    try {
      fetching = startPlanFetch(a.root, 'origin');
    } finally {
      if (previous === undefined) delete process.env.GIT_SSH_COMMAND;
      else process.env.GIT_SSH_COMMAND = previous;
    }
    fetching.cancel();
    assert.notEqual((await fetching.run)?.status, 0);
    assert.equal(existsSync(join(a.root, '.git', 'refs', 'wave-scope', 'remotes', 'origin', 'plan.lock')), false);
  });

  it('a plan ref published between a failed fetch and the question that follows is fetched, not reported as an error', async () => {
    const a = remote.clone('a');
    const b = remote.clone('b');
    const storeA = gitPlanRefStore(a.root, 'origin');
    const published = await storeA.writeCommit(files, null, 'published meanwhile');
    // Publish from a into a side ref of the remote; b's upload-pack moves it to the plan ref on b's second
    // call (the ls-remote after its failed fetch), exactly as another clone's first publish would land.
    gitIn(a.root, 'push', '--quiet', 'origin', `${published}:refs/wave-scope/staged`);
    const counter = join(b.root, '.git', 'upload-pack-calls');
    const uploadPack = join(b.root, '.git', 'upload-pack-racing.sh');
    writeFileSync(
      uploadPack,
      [
        '#!/bin/sh',
        `calls=$(( $(cat '${counter}' 2>/dev/null || echo 0) + 1 )); echo "$calls" > '${counter}'`,
        `if [ "$calls" = 2 ]; then git --git-dir="$1" update-ref ${PLAN_REF} refs/wave-scope/staged; fi`,
        'exec git-upload-pack "$@"',
        '',
      ].join('\n'),
      { mode: 0o755 },
    );
    b.git('config', 'remote.origin.uploadpack', uploadPack);
    assert.equal(gitPlanRefStore(b.root, 'origin').fetch(), published);
    assert.equal(readFileSync(counter, 'utf8').trim(), '3', 'fetch, ls-remote, fetch again');
  });

  it('writes a commit without touching the work tree, index or branches; pushes it; another clone reads it back', async () => {
    const a = remote.clone('a');
    const b = remote.clone('b');
    const statusBefore = a.git('status', '--porcelain');
    const branchesBefore = a.git('for-each-ref', 'refs/heads', 'refs/remotes');
    const store = gitPlanRefStore(a.root, 'origin');
    const commit = await store.writeCommit(files, null, 'plan');
    assert.deepEqual(store.push(commit, null), { ok: true });
    assert.equal(a.git('status', '--porcelain'), statusBefore);
    assert.equal(a.git('for-each-ref', 'refs/heads', 'refs/remotes'), branchesBefore, 'no branch appears');
    assert.equal(readTrackingRef(a.root, 'origin'), commit, 'the pushing clone\'s copy moves with its push');
    assert.equal(gitIn(remote.bare, 'rev-parse', PLAN_REF).trim(), commit);
    assert.equal(a.git('cat-file', '-p', commit).includes('Wave Scope <wave-scope@localhost>'), true);

    const other = gitPlanRefStore(b.root, 'origin');
    assert.equal(other.fetch(), commit);
    assert.deepEqual(other.readFiles(commit), files);
    assert.deepEqual([...other.readFiles(commit, (path) => path.startsWith('clones/')).keys()].sort(), [...files.keys()].filter((p) => p.startsWith('clones/')).sort());
    assert.deepEqual(remotesWithPlanCopies(b.root), ['origin']);
  });

  it('push is a compare-and-swap: a stale expectation is rejected and the ref does not move', async () => {
    const a = remote.clone('a');
    const b = remote.clone('b');
    const storeA = gitPlanRefStore(a.root, 'origin');
    const storeB = gitPlanRefStore(b.root, 'origin');
    const first = await storeA.writeCommit(files, null, 'first');
    assert.deepEqual(storeA.push(first, null), { ok: true });
    // b has not fetched: it believes the ref absent.
    const rival = await storeB.writeCommit(new Map([...files, ['claims.json', '{"version":1,"claims":[1]}\n']]), null, 'rival');
    const rejected = storeB.push(rival, null);
    assert.equal(rejected.ok, false);
    assert.match(rejected.ok ? '' : rejected.rejected, /rejected|stale/);
    assert.equal(gitIn(remote.bare, 'rev-parse', PLAN_REF).trim(), first);
    // After a fetch, b's expectation is right and its child commit lands.
    assert.equal(storeB.fetch(), first);
    const child = await storeB.writeCommit(new Map([...storeB.readFiles(first), ['claims.json', '{"version":1,"claims":[]}\n\n']]), first, 'child');
    assert.deepEqual(storeB.push(child, first), { ok: true });
    assert.equal(gitIn(remote.bare, 'rev-parse', `${PLAN_REF}^`).trim(), first, 'the plan keeps its own history');
  });

  it('reads a plan commit from the clone\'s cache when it has it, from git when the cache is wrong or missing', async () => {
    const { repository } = locatedClone();
    const writer = planStoreOf(repository, 'origin');
    const commit = await writer.writeCommit(files, null, 'cached');
    const cache = planTreeCache(repository.gitDir);
    assert.deepEqual(new Map([...(cache.get(commit) ?? [])].map(([path, file]) => [path, file.text])), files, 'writing a commit caches its tree');
    assert.equal(cache.get('0'.repeat(40)), undefined);
    assert.deepEqual(planStoreOf(repository, 'origin').readFiles(commit), files);
    writeFileSync(join(repository.gitDir, 'wave-scope', 'plan-cache.json'), '{"version":1,"commit":"' + commit + '","files":{"x":{"oid":1}}}');
    // A cache reads its file once (each command makes its own): the next command's reads the malformed file.
    assert.ok(cache.get(commit) !== undefined, 'read once');
    assert.equal(planTreeCache(repository.gitDir).get(commit), undefined, 'a malformed cache is a miss');
    assert.deepEqual(planStoreOf(repository, 'origin').readFiles(commit), files);
  });

  it('reads only plain files of a plan commit (a link or an executable reads empty), never writes onto a tag, and refuses an object beyond any plan before asking for it', async () => {
    const { a, repository } = locatedClone();
    const plumbing = (args: string[], input?: string | Buffer) =>
      childProcess.execFileSync('git', args, { cwd: a.root, input, env: { ...process.env, GIT_INDEX_FILE: join(repository.gitDir, 'crafted-index') } }).toString('utf8').trim();
    const commitOf = (entries: Array<[mode: string, path: string, content: string | Buffer]>) => {
      plumbing(['read-tree', '--empty']);
      for (const [mode, path, content] of entries) plumbing(['update-index', '--add', '--cacheinfo', `${mode},${plumbing(['hash-object', '-w', '--stdin'], content)},${path}`]);
      return plumbing(['commit-tree', plumbing(['write-tree']), '-m', 'crafted']);
    };
    const crafted = commitOf([
      ['100644', 'wave-scope-plan.json', '{"version":1}\n'],
      ['120000', 'clones/c-x/waves/1/filescopes/wave-1/alice.json', '["**"]\n'],
      ['100755', 'clones/c-x/waves/1/published.json', '{}\n'],
    ]);
    const read = planStoreOf(repository, 'origin').readFiles(crafted);
    assert.deepEqual(Object.fromEntries(read), {
      'wave-scope-plan.json': '{"version":1}\n',
      'clones/c-x/waves/1/filescopes/wave-1/alice.json': '',
      'clones/c-x/waves/1/published.json': '',
    });

    // A ref naming an annotated tag of a plan commit reads through it, but the tag never becomes a plan commit's parent.
    a.git('tag', '-a', '-m', 'a tag', 'plan-tag', crafted);
    const tag = a.git('rev-parse', 'plan-tag').trim();
    const store = planStoreOf(repository, 'origin');
    store.readFiles(tag);
    await assert.rejects(store.writeCommit(files, tag, 'on a tag'), (error: Error) => error instanceof PlanRefError && error.message === `${tag} is not a commit git can read`);
    const onCommit = await store.writeCommit(files, crafted, 'on a commit');
    assert.equal(a.git('rev-parse', `${onCommit}^`).trim(), crafted);

    const large = commitOf([
      ['100644', 'wave-scope-plan.json', '{"version":1}\n'],
      ['100644', 'clones/c-x/waves/1/junk', Buffer.alloc(64 * 1024 * 1024 + 1)],
    ]);
    let refused: unknown;
    const runs = await gitRunsDuring(() => {
      try {
        planStoreOf(repository, 'origin').readFiles(large);
      } catch (error) {
        refused = error;
      }
    });
    assert.ok(refused instanceof PlanRefError, String(refused));
    assert.match(refused.message, /is 67108865 bytes, more than any plan file holds/);
    assert.deepEqual(runs.map((run) => run.args.join(' ')), [`ls-tree -r -l -z --full-tree ${large}`], 'cat-file is never asked for it');
  });

  it('reading a plan commit through git ls-tree refuses a tree nested deeper than any plan, as the reader through cat-file does', () => {
    const { repository } = locatedClone();
    const store = planStoreOf(repository, 'origin');
    const deepest = writeNestedTreeCommit(repository.gitDir, { depth: MAX_PLAN_TREE_DEPTH - 1 });
    assert.equal(store.readFiles(deepest).size, 1);
    const nested = writeNestedTreeCommit(repository.gitDir, { depth: MAX_PLAN_TREE_DEPTH });
    // Refused whatever the reader keeps: `only` picks the files it wants after the whole listing is checked.
    for (const only of [undefined, (path: string) => !path.startsWith('zdeep/')]) {
      assert.throws(
        () => store.readFiles(nested, only),
        (error: unknown) => error instanceof PlanRefError && error.message === `the plan commit ${nested} nests directories more than ${MAX_PLAN_TREE_DEPTH} deep, deeper than any plan Wave Scope writes: this is not a plan it reads`,
      );
    }
  });

  it('a deferred cache writes its file only when told, into a temporary file reserved for it when there is one', async () => {
    const { repository } = locatedClone();
    const first = await planStoreOf(repository, 'origin').writeCommit(files, null, 'first');
    const stateDir = join(repository.gitDir, 'wave-scope');
    const cachePath = join(stateDir, 'plan-cache.json');
    const reserve = new TemporaryFileReserve();
    reserveSyncStateWrites(repository.gitDir, reserve);
    const reserved = readdirSync(stateDir).filter((name) => name.startsWith('plan-cache.json.') && name.endsWith('.tmp'));
    assert.equal(reserved.length, 1);
    const reservedFile = statSync(join(stateDir, reserved[0] as string)).ino;
    const deferred = planTreeCache(repository.gitDir, { deferred: true, reserve });
    const second = await planStoreOf(repository, 'origin', deferred).writeCommit(changed, first, 'second');
    assert.equal(JSON.parse(readFileSync(cachePath, 'utf8')).commit, first, 'put only remembers');
    assert.ok(deferred.get(second) !== undefined, 'and answers from what it remembers');
    deferred.writePending();
    assert.equal(JSON.parse(readFileSync(cachePath, 'utf8')).commit, second, 'written when told');
    assert.equal(statSync(cachePath).ino, reservedFile, 'into the reserved file');
    deferred.writePending();
    assert.equal(statSync(cachePath).ino, reservedFile, 'nothing pending: nothing written');
    reserve.discard();
    assert.deepEqual(readdirSync(stateDir).filter((name) => name.endsWith('.tmp')), [], 'the sync state\'s reserved files are removed');
  });

  it('an edited cache is never taken for the very commit it names: the tree is used only when hashing proves it is the commit\'s', async () => {
    const { a, repository } = locatedClone();
    const commit = await planStoreOf(repository, 'origin').writeCommit(files, null, 'cached');
    const cachePath = join(repository.gitDir, 'wave-scope', 'plan-cache.json');
    const written = readFileSync(cachePath, 'utf8');
    const alice = 'clones/c-x/waves/1/filescopes/wave-1/alice.json';
    /** The git processes `read` starts. */
    const gitRuns = async (read: () => void): Promise<unknown[]> => (await gitRunsDuring(read)).map((run) => run.args[0]);
    let read: ReadonlyMap<string, string> | undefined;
    assert.deepEqual(await gitRuns(() => (read = planStoreOf(repository, 'origin').readFiles(commit))), [], 'a cache that is what it says: no git at all');
    assert.deepEqual(read, files);

    // A wider scope for alice, with the blob id its text really has (so each text passes on its own).
    const wider = '["**"]\n';
    const widerBlob = createHash('sha1').update(`blob ${Buffer.byteLength(wider)}\0`).update(wider).digest('hex');
    const cache = JSON.parse(written) as { commit: string; commitText: string; files: Record<string, { oid: string; text: string }> };
    const edits: Array<[string, typeof cache]> = [
      ['a text changed, with its own blob id', { ...cache, files: { ...cache.files, [alice]: { oid: widerBlob, text: wider } } }],
      ['a blob id changed, its text kept', { ...cache, files: { ...cache.files, [alice]: { oid: widerBlob, text: cache.files[alice]?.text ?? '' } } }],
      ['a file added', { ...cache, files: { ...cache.files, 'clones/c-x/waves/1/filescopes/wave-1/mallory.json': { oid: widerBlob, text: wider } } }],
      ['a file removed', { ...cache, files: Object.fromEntries(Object.entries(cache.files).filter(([path]) => path !== alice)) }],
      ['the commit\'s text changed to name another tree', { ...cache, commitText: cache.commitText.replace(/^tree [0-9a-f]+/, `tree ${'1'.repeat(40)}`) }],
      ['no commit text', { ...cache, commitText: undefined as unknown as string }],
    ];
    for (const [edit, edited] of edits) {
      writeFileSync(cachePath, JSON.stringify(edited));
      assert.equal(planTreeCache(repository.gitDir).get(commit), undefined, edit);
      assert.deepEqual(planStoreOf(repository, 'origin').readFiles(commit), files, `${edit}: what git holds is read`);
    }
    // What a command read from git itself it keeps for its own later reads, without asking git again.
    const commandCache = planTreeCache(repository.gitDir);
    assert.deepEqual(gitPlanRefStore(a.root, 'origin', { cache: commandCache }).readFiles(commit), files);
    assert.deepEqual(await gitRuns(() => (read = gitPlanRefStore(a.root, 'origin', { cache: commandCache }).readFiles(commit))), []);
    assert.deepEqual(read, files);
  });

  it('reading a commit the cache does not hold asks git only for the blobs whose text it cannot vouch for', async () => {
    const { a, repository } = locatedClone();
    const first = await planStoreOf(repository, 'origin').writeCommit(files, null, 'first');
    // Written by a store without the cache, so the cache still holds the first commit.
    const second = await gitPlanRefStore(a.root, 'origin').writeCommit(changed, first, 'second');
    const sameTree = a.git('commit-tree', `${second}^{tree}`, '-p', second, '-m', 'same tree').trim();
    /** The blob ids each cat-file of `read` was asked for. */
    const catFileRequests = async (read: () => void): Promise<string[][]> =>
      (await gitRunsDuring(read)).filter((run) => run.args[0] === 'cat-file').map((run) => run.input.split('\n').filter((line) => line !== ''));
    const blobOf = (commit: string, path: string) => a.git('rev-parse', `${commit}:${path}`).trim();

    let read: ReadonlyMap<string, string> | undefined;
    assert.deepEqual(await catFileRequests(() => (read = planStoreOf(repository, 'origin').readFiles(second))), [[blobOf(second, 'claims.json')]], 'only the changed file is read');
    assert.deepEqual(read, changed);
    assert.deepEqual(await catFileRequests(() => (read = planStoreOf(repository, 'origin').readFiles(sameTree))), [], 'a commit of the same tree reads no blob');
    assert.deepEqual(read, changed);

    // A cached text that is not what its blob id says (an edited or damaged cache) is never used.
    const cachePath = join(repository.gitDir, 'wave-scope', 'plan-cache.json');
    const cache = JSON.parse(readFileSync(cachePath, 'utf8')) as { commit: string; files: Record<string, { oid: string; text: string }> };
    const alice = 'clones/c-x/waves/1/filescopes/wave-1/alice.json';
    writeFileSync(cachePath, JSON.stringify({ ...cache, commit: first, files: { ...cache.files, [alice]: { oid: cache.files[alice]?.oid, text: '["**"]\n' } } }));
    assert.deepEqual(await catFileRequests(() => (read = planStoreOf(repository, 'origin').readFiles(second))), [[blobOf(second, alice)]]);
    assert.equal(read?.get(alice), '["src/"]\n');
  });

  it('writes a commit in one process whose tree is exactly the files, for any path, as git itself would store it, and moves no ref', async () => {
    const a = remote.clone('a');
    const refsBefore = a.git('for-each-ref', '--format=%(refname)');
    const store = gitPlanRefStore(a.root, 'origin');
    const awkward = new Map([
      ...files,
      ['clones/c-x/waves/1/"quoted" back\\slash.json', '1\n'],
      ['clones/c-x/waves/1/new\nline\ttab.json', '2\n'],
      ['clones/c-x/waves/1/ünï ç.json', '3\n'],
      ['clones/c-x/waves/1/same-text.json', '1\n'],
      ['empty.json', ''],
      // git orders a directory as if its name ended in "/": a.json, a-b.json... then a/ is not the plain byte order.
      ['x/a.json', '4\n'],
      ['x/a/b.json', '5\n'],
      ['x/a-b.json', '6\n'],
      ['x/a0.json', '7\n'],
    ]);
    const first = await store.writeCommit(awkward, null, 'awkward');
    assert.equal(a.git('for-each-ref', '--format=%(refname)'), refsBefore, 'no ref moved or appeared');
    assert.equal(a.git('rev-parse', `${first}^{commit}`).trim(), first);
    assert.equal(a.git('rev-list', '--count', first).trim(), '1', 'a root commit');
    assert.deepEqual(gitPlanRefStore(a.root, 'origin').readFiles(first), awkward, 'read back by a store that never saw it');
    const listing = a.git('ls-tree', '-r', '-z', first).split('\0').filter((line) => line !== '');
    assert.equal(listing.length, awkward.size);
    assert.ok(listing.every((line) => line.startsWith('100644 blob ')), 'regular files only');

    // A child: a file dropped, one changed, the rest reused by id; its tree holds exactly the new files.
    const next = new Map(awkward);
    next.delete('empty.json');
    next.set('claims.json', '{"version":1,"claims":["changed"]}\n');
    const child = await store.writeCommit(next, first, 'child');
    assert.equal(a.git('rev-parse', `${child}^`).trim(), first);
    assert.deepEqual(gitPlanRefStore(a.root, 'origin').readFiles(child), next);
    assert.equal(a.git('cat-file', '-p', child).includes('committer Wave Scope <wave-scope@localhost>'), true);
    assert.equal(a.git('for-each-ref', '--format=%(refname)'), refsBefore);
    // Every object is well formed and where git looks for it; git's own hashing agrees with every id.
    a.git('fsck', '--strict', '--no-dangling', '--connectivity-only');
    a.git('fsck', '--strict', '--no-dangling');
    for (const [path, text] of next) if (!path.includes('\n')) assert.equal(a.git('cat-file', 'blob', `${child}:${path}`), text);
  });

  it('writes a first plan commit in a SHA-256 repository (nothing to learn the id length from but git)', async () => {
    const dir = join(remote.dir, 'sha256');
    gitIn(remote.dir, 'init', '--quiet', '--object-format=sha256', dir);
    const commit = await gitPlanRefStore(dir, 'origin').writeCommit(files, null, 'first');
    assert.match(commit, /^[0-9a-f]{64}$/);
    assert.deepEqual(gitPlanRefStore(dir, 'origin').readFiles(commit), files);
    gitIn(dir, 'fsck', '--strict', '--no-dangling');
    assert.equal(gitIn(dir, 'for-each-ref'), '');
  });

  it('stores a commit with the git process prepareWrite started ahead; dispose ends one no write used', async () => {
    const a = remote.clone('a');
    const store = gitPlanRefStore(a.root, 'origin');
    // With no git to be found from here on, a write can only succeed through the process already started.
    const withoutGit = async <T>(run: () => Promise<T>): Promise<T> => {
      const path = process.env.PATH;
      process.env.PATH = join(remote.dir, 'no-such-directory');
      try {
        return await run();
      } finally {
        process.env.PATH = path;
      }
    };
    // A first commit written as usual, so the store knows the object id length without asking git.
    const first = await store.writeCommit(files, null, 'first');
    store.prepareWrite();
    const changed = new Map([...files, ['claims.json', '{"version":1,"claims":[2]}\n']]);
    const commit = await withoutGit(() => store.writeCommit(changed, first, 'prepared'));
    assert.deepEqual(gitPlanRefStore(a.root, 'origin').readFiles(commit), changed);
    a.git('fsck', '--strict', '--no-dangling');
    // A prepared process serves one write: the next starts its own (and fails here, for want of git).
    await assert.rejects(
      withoutGit(() => store.writeCommit(new Map([...files, ['claims.json', '{"version":1,"claims":[3]}\n']]), commit, 'second')),
      (error: unknown) => (error as NodeJS.ErrnoException).code === 'ENOENT',
    );
    store.prepareWrite();
    store.dispose();
    await assert.rejects(withoutGit(() => store.writeCommit(files, commit, 'after dispose')), (error: unknown) => (error as NodeJS.ErrnoException).code === 'ENOENT');
    // With git at hand again, a store whose prepared process was ended still writes.
    const after = await store.writeCommit(new Map([...files, ['claims.json', '{"version":1,"claims":[4]}\n']]), commit, 'with git again');
    assert.equal(a.git('cat-file', '-t', after), 'commit\n');
  });

  it('a prepared git that cannot run in the directory is a write failure with git\'s reason', async () => {
    // Not a repository: git starts, finds none, and says so.
    const store = gitPlanRefStore(remote.dir, 'origin');
    store.prepareWrite();
    await assert.rejects(store.writeCommit(files, null, 'nowhere'), (error: unknown) => error instanceof PlanRefError && error.reason === 'write' && /unpack-objects failed/.test(error.message));
    store.dispose();
  });

  it('reads this clone\'s copy of the ref from git\'s files, loose or packed, and asks git when they do not name it', async () => {
    const a = remote.clone('a');
    const commonDir = join(a.root, '.git');
    const looseFile = join(commonDir, 'refs', 'wave-scope', 'remotes', 'origin', 'plan');
    // A directory that is no repository: an answer there can only have come from the files.
    const elsewhere = remote.dir;
    const store = gitPlanRefStore(a.root, 'origin', { commonDir });
    const first = await store.writeCommit(files, null, 'first');
    store.push(first, null);
    assert.ok(existsSync(looseFile));
    assert.equal(readTrackingRef(elsewhere, 'origin', commonDir), first, 'the loose file');
    a.git('pack-refs', '--all');
    assert.equal(existsSync(looseFile), false);
    assert.equal(readTrackingRef(elsewhere, 'origin', commonDir), first, 'its line in packed-refs');
    assert.equal(store.fetch(), first, 'an unchanged fetch finds it packed');
    const second = await store.writeCommit(new Map([...files, ['claims.json', '{"version":1,"claims":[2]}\n']]), first, 'second');
    store.push(second, first);
    assert.equal(readTrackingRef(elsewhere, 'origin', commonDir), second, 'the loose file wins over a stale packed line');
    a.git('update-ref', '-d', 'refs/wave-scope/remotes/origin/plan');
    assert.equal(readTrackingRef(a.root, 'origin', commonDir), null, 'gone from both: git says there is none');
  });

  it('an unreachable remote is a git failure, not "no plan"', async () => {
    const a = remote.clone('a');
    a.git('remote', 'set-url', 'origin', join(remote.dir, 'gone.git'));
    assert.throws(() => gitPlanRefStore(a.root, 'origin').fetch(), PlanRefError);
  });

  it('a fetch after the remote lost its ref drops the stale copy', async () => {
    const a = remote.clone('a');
    const store = gitPlanRefStore(a.root, 'origin');
    store.push(await store.writeCommit(files, null, 'x'), null);
    gitIn(remote.bare, 'update-ref', '-d', PLAN_REF);
    assert.equal(store.fetch(), null);
    assert.equal(readTrackingRef(a.root, 'origin'), null);
  });
});

describe('clone identity and sync state (src/node/cloneState.ts)', () => {
  let remote: SharedRemote;
  beforeEach(() => {
    remote = createSharedRemote({ 'x.txt': 'x' });
  });
  afterEach(() => remote.remove());

  it('is made once, kept in the git dir, and survives', async () => {
    const clone = remote.clone('a');
    const repository = locateSyncRepository(join(clone.root));
    assert.ok(repository);
    assert.equal(readCloneIdentity(repository.gitDir), undefined);
    const made = readOrCreateCloneIdentity(repository);
    assert.match(made.id, /^c-[0-9a-f]{12}$/);
    assert.match(made.name, new RegExp(`:${clone.root.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
    assert.deepEqual(readOrCreateCloneIdentity(repository), made);
    assert.ok(existsSync(join(repository.gitDir, 'wave-scope', 'clone.json')));
    assert.equal(clone.git('status', '--porcelain'), '', 'nothing of it shows in the work tree');
  });

  it('belongs to one checkout on one machine: a copy gets its own, a moved checkout keeps its id, a damaged one is refused', async () => {
    const clone = remote.clone('a');
    const identityOf = (root: string) => {
      const repository = locateSyncRepository(root);
      assert.ok(repository);
      return readOrCreateCloneIdentity(repository);
    };
    const original = identityOf(clone.root);
    // A copy of the checkout, git directory and all, while the original stays where it was.
    const copy = join(remote.dir, 'copy');
    cpSync(clone.root, copy, { recursive: true });
    const copied = identityOf(copy);
    assert.notEqual(copied.id, original.id);
    assert.deepEqual(copied.changed, { why: 'copied', found: { id: original.id, name: original.name } });
    assert.equal(identityOf(copy).changed, undefined, 'decided once');
    assert.deepEqual(identityOf(clone.root), original, 'the original is still itself');
    // The original moved: the same clone, at its new place.
    const moved = join(remote.dir, 'moved');
    renameSync(clone.root, moved);
    const after = identityOf(moved);
    assert.equal(after.id, original.id);
    assert.equal(after.changed?.why, 'moved');
    assert.match(after.name, /:.*\/moved$/);
    // A name of another machine (a checkout carried in an image): its own identity here.
    const file = join(moved, '.git', 'wave-scope', 'clone.json');
    writeFileSync(file, JSON.stringify({ version: 1, id: original.id, name: `elsewhere.example:${moved}` }));
    const carried = identityOf(moved);
    assert.notEqual(carried.id, original.id);
    assert.equal(carried.changed?.why, 'copied');
    writeFileSync(file, '{"id": "C-UPPER", "name": "x"}');
    assert.throws(() => identityOf(moved), (error: unknown) => error instanceof CloneIdentityError && /is not a clone identity .*repair or remove it/.test(error.message));
  });

  it('locating the checkout resolves revisions in the same process, and still locates it when one does not resolve', async () => {
    const clone = remote.clone('a');
    const head = clone.git('rev-parse', 'HEAD').trim();
    const located = locateSyncRepository(clone.root, { revisions: ['main', 'origin/main'] });
    assert.deepEqual(located?.resolved, [head, head]);
    assert.deepEqual(located?.mergeBases, [head]);
    assert.equal(located?.head, head);
    assert.deepEqual([...(located?.takenRefs ?? [])], [['main', 'refs/heads/main'], ['origin/main', 'refs/remotes/origin/main']]);
    // One revision (a branch map's base): no range, and its ref.
    const one = locateSyncRepository(clone.root, { revisions: ['origin/main~0'] });
    assert.deepEqual(one?.resolved, [head]);
    assert.equal(one?.mergeBases, undefined);
    assert.deepEqual([...(one?.takenRefs ?? [])], [['origin/main', 'refs/remotes/origin/main']]);
    const partly = locateSyncRepository(clone.root, { revisions: ['main', 'no-such-branch'] });
    assert.equal(partly?.root, clone.root);
    assert.equal(partly?.resolved, undefined);
    assert.equal(partly?.head, head);
  });

  it('two clones, and a linked worktree, are three identities', async () => {
    const a = remote.clone('a');
    const b = remote.clone('b');
    a.git('worktree', 'add', '--quiet', join(remote.dir, 'a-wt'));
    const ids = [a.root, b.root, join(remote.dir, 'a-wt')].map((root) => {
      const repository = locateSyncRepository(root);
      assert.ok(repository);
      return readOrCreateCloneIdentity(repository).id;
    });
    assert.equal(new Set(ids).size, 3);
  });

  it('an unreadable identity file is never overwritten', async () => {
    const clone = remote.clone('a');
    const repository = locateSyncRepository(clone.root);
    assert.ok(repository);
    readOrCreateCloneIdentity(repository);
    const path = join(repository.gitDir, 'wave-scope', 'clone.json');
    writeFileSync(path, 'garbage');
    assert.throws(() => readOrCreateCloneIdentity(repository), /repair or remove it/);
    assert.equal(readFileSync(path, 'utf8'), 'garbage');
  });

  it('the sync state is rewritten atomically and read back', async () => {
    const clone = remote.clone('a');
    const repository = locateSyncRepository(clone.root);
    assert.ok(repository);
    updateLocalSyncState(repository.gitDir, (state) => ({ ...state, fetched: { origin: { at: 'then', commit: null } } }));
    assert.deepEqual(readLocalSyncState(repository.gitDir).fetched, { origin: { at: 'then', commit: null } });
  });
});

describe('revision ranges (src/node/rangeDiff.ts)', () => {
  let remote: SharedRemote;
  beforeEach(() => {
    remote = createSharedRemote({ 'src/a.ts': 'a\n', 'docs/r.md': 'r\n' });
  });
  afterEach(() => remote.remove());

  it('diffs from the merge base, so changes on the base branch are never the branch\'s', async () => {
    const clone = remote.clone('a');
    clone.git('checkout', '--quiet', '-b', 'agent');
    clone.commit({ 'src/b.ts': 'b\n' });
    clone.git('checkout', '--quiet', 'main');
    clone.commit({ 'docs/r.md': 'changed on main\n' });
    const range = diffRange(clone.root, 'main', 'agent');
    assert.equal(range.rawDiffs.length, 1);
    assert.match(range.rawDiffs[0]?.toString('utf8') ?? '', /\0src\/b\.ts\0$/);
    assert.doesNotMatch(range.rawDiffs[0]?.toString('utf8') ?? '', /docs/);
    assert.deepEqual(range.mergeBases, [clone.git('merge-base', 'main', 'agent').trim()]);
    assert.notEqual(range.mergeBases[0], range.base);
  });

  it('ignores configuration that would hide or reshape a change', async () => {
    const clone = remote.clone('a');
    clone.git('checkout', '--quiet', '-b', 'agent');
    clone.commit({ 'dïr/b.ts': 'b\n' });
    clone.git('update-index', '--add', '--cacheinfo', `160000,${'1'.repeat(40)},libs/sub`);
    clone.git('commit', '--quiet', '-m', 'sub');
    clone.git('config', 'diff.relative', 'true');
    clone.git('config', 'diff.ignoreSubmodules', 'all');
    clone.git('config', 'core.quotePath', 'true');
    const raw = diffRange(join(clone.root, 'src'), 'main', 'agent').rawDiffs[0]?.toString('utf8') ?? '';
    assert.match(raw, /\0dïr\/b\.ts\0/);
    assert.match(raw, /:000000 160000 /);
  });

  it('takes the merge base from the rev-parse that located the checkout when there is exactly one, and asks git merge-base otherwise', async () => {
    const clone = remote.clone('a');
    const git = (...args: string[]) => clone.git(...args).trim();
    clone.git('checkout', '--quiet', '-b', 'agent');
    clone.commit({ 'src/b.ts': 'b\n' });
    clone.git('checkout', '--quiet', 'main');
    clone.commit({ 'docs/r.md': 'changed on main\n' });
    const located = locateSyncRepository(clone.root, { revisions: ['main', 'agent'] });
    assert.deepEqual(located?.resolved, [git('rev-parse', 'main'), git('rev-parse', 'agent')]);
    assert.deepEqual(located?.mergeBases, [git('merge-base', 'main', 'agent')]);
    assert.ok(located);
    const known = knownRangeOf(located);
    assert.deepEqual(known, { commits: located.resolved, mergeBases: located.mergeBases });
    assert.deepEqual(diffRange(clone.root, 'main', 'agent', known), diffRange(clone.root, 'main', 'agent'));

    // A criss-cross merge: two merge bases, and head is diffed against each (from discovery's listing, or git merge-base --all).
    const tipOf = (branch: string) => git('rev-parse', branch);
    clone.git('checkout', '--quiet', '-b', 'left', 'main');
    clone.commit({ 'src/left.ts': 'l\n' });
    clone.git('checkout', '--quiet', '-b', 'right', 'agent');
    clone.commit({ 'src/right.ts': 'r\n' });
    const [left, right] = [tipOf('left'), tipOf('right')];
    clone.git('checkout', '--quiet', 'left');
    clone.git('merge', '--quiet', '--no-edit', right);
    clone.git('checkout', '--quiet', 'right');
    clone.git('merge', '--quiet', '--no-edit', left);
    const crossed = locateSyncRepository(clone.root, { revisions: ['left', 'right'] });
    assert.equal(crossed?.mergeBases?.length, 2, 'rev-parse lists both merge bases');
    assert.ok(crossed);
    const range = diffRange(clone.root, 'left', 'right', knownRangeOf(crossed));
    const all = git('merge-base', '--all', 'left', 'right').split('\n');
    assert.equal(all.length, 2);
    assert.deepEqual([...range.mergeBases].sort(), [...all].sort());
    assert.equal(range.rawDiffs.length, 2);
    // And the paths the two tips disagree on, which a change must be at to reach the merge.
    assert.deepEqual(range.tipDiff?.toString('utf8').split('\0').filter(Boolean).sort(), clone.git('diff', '--name-only', 'left', 'right').trim().split('\n').filter(Boolean).sort());
    assert.equal(diffRange(clone.root, 'main', 'agent').tipDiff, undefined, 'one merge base: no tip diff');
    assert.deepEqual(diffRange(clone.root, 'left', 'right').mergeBases.sort(), [...all].sort());

    // Unrelated histories: no merge base at all, refused as before.
    clone.git('checkout', '--quiet', '--orphan', 'island');
    clone.commit({ 'island.ts': 'i\n' });
    const apart = locateSyncRepository(clone.root, { revisions: ['main', 'island'] });
    assert.ok(apart);
    assert.deepEqual(apart.mergeBases, []);
    assert.throws(() => diffRange(clone.root, 'main', 'island', knownRangeOf(apart)), /no common ancestor/);

    // A discovery that resolved no range (a revision did not resolve, or none was asked for) gives none.
    const unresolved = locateSyncRepository(clone.root, { revisions: ['main', 'no-such-branch'] });
    assert.ok(unresolved);
    assert.equal(knownRangeOf(unresolved), undefined);
    assert.equal(knownRangeOf({ resolved: [tipOf('main')] }), undefined);
  });

  it('refuses a revision that is not one, or looks like an option', async () => {
    const clone = remote.clone('a');
    assert.throws(() => diffRange(clone.root, 'main', 'no-such-branch'), /cannot resolve/);
    assert.throws(() => diffRange(clone.root, '--output=/tmp/x', 'main'), /is not a revision/);
  });

  it('a diff started ahead answers exactly as diffRange, and reports its errors only when waited for', async () => {
    const clone = remote.clone('a');
    clone.git('checkout', '--quiet', '-b', 'agent');
    clone.commit({ 'src/b.ts': 'b\n', 'docs/r.md': 'moved on\n' });
    clone.git('checkout', '--quiet', 'main');
    clone.commit({ 'docs/other.md': 'o\n' });
    const located = locateSyncRepository(clone.root, { revisions: ['main', 'agent'] });
    assert.ok(located);
    const expected = diffRange(clone.root, 'main', 'agent');
    assert.deepEqual(await startRangeDiff(clone.root, 'main', 'agent', knownRangeOf(located)).finish(), expected);
    assert.deepEqual(await startRangeDiff(clone.root, 'main', 'agent').finish(), expected);

    // Nothing is thrown at the start: the caller reports the range's problem where it reports the branch's.
    const unresolvable = startRangeDiff(clone.root, 'main', 'no-such-branch');
    await assert.rejects(unresolvable.finish(), (error: unknown) => error instanceof RevisionRangeError && /cannot resolve/.test(error.message));
    const optionLike = startRangeDiff(clone.root, '--output=x', 'main');
    await assert.rejects(optionLike.finish(), /is not a revision/);
    assert.equal(existsSync(join(clone.root, 'x')), false);
    // A diff that nobody waits for is ended, and leaves nothing behind in the checkout.
    const abandoned = startRangeDiff(clone.root, 'main', 'agent');
    abandoned.cancel();
    assert.equal(clone.git('status', '--porcelain'), '');
  });

  it('judges revision names from the ref the locating rev-parse took, as a listing of the refs would, and lists them only when that cannot tell', async () => {
    const clone = remote.clone('a');
    const main = clone.git('rev-parse', 'main').trim();
    clone.git('checkout', '--quiet', '-b', 'feature');
    const other = clone.commit({ 'src/b.ts': 'b\n' });
    clone.git('checkout', '--quiet', 'main');
    clone.git('branch', 'wave/x', other);
    clone.git('branch', 'cafe', other);
    // A tag shadowing a branch of the same name on another commit, and two that name the branch's own commit.
    clone.git('branch', 'shadow', other);
    clone.git('tag', 'shadow', main);
    clone.git('branch', 'same', other);
    clone.git('tag', 'same', other);
    clone.git('branch', 'annotated', other);
    clone.git('tag', '-a', '-m', 'a', 'annotated', other);
    // A symbolic ref that git's lookup takes for a full ref that does not exist: git prints the branch it leads to.
    clone.git('symbolic-ref', 'refs/tags/refs/heads/gone', 'refs/heads/main');

    /** What the check says of `revisions`, with the refs git took when the locating rev-parse knows them, and whether it listed refs. */
    const judge = async (revisions: [string, string], withTaken: boolean) => {
      const located = locateSyncRepository(clone.root, { revisions });
      assert.ok(located?.resolved, `${revisions.join(' ')} resolves`);
      const { result, started } = await processesStartedDuring(async () => {
        try {
          await startRevisionNameCheck(clone.root, revisions, withTaken ? located.takenRefs : undefined).finish();
          return 'accepted';
        } catch (error) {
          assert.ok(error instanceof RevisionRangeError);
          return error.message;
        }
      });
      return { result, listed: started.some((line) => line.includes('for-each-ref')), taken: located.takenRefs };
    };
    const cases: Array<{ revisions: [string, string]; listed: boolean; refused?: RegExp }> = [
      { revisions: ['origin/main', 'feature'], listed: false },
      { revisions: ['refs/remotes/origin/main', 'wave/x~0'], listed: false },
      { revisions: [main, 'feature'], listed: false },
      { revisions: ['main', 'cafe'], listed: false, refused: /"cafe" may be an abbreviated object id/ },
      { revisions: ['main', 'shadow'], listed: true, refused: /"shadow" names 2 refs that point to different commits/ },
      { revisions: ['main', 'same'], listed: true },
      { revisions: ['main', 'annotated'], listed: true },
      { revisions: ['main', 'refs/heads/gone'], listed: true, refused: /"refs\/heads\/gone" is not a ref here; git would take refs\/tags\/refs\/heads\/gone/ },
      { revisions: ['main', 'HEAD'], listed: true },
    ];
    for (const { revisions, listed, refused } of cases) {
      const what = revisions.join(' ');
      const fast = await judge(revisions, true);
      const listing = await judge(revisions, false);
      assert.equal(listing.listed, true, `${what}: without the taken refs, the refs are listed`);
      assert.equal(fast.result, listing.result, `${what}: the same judgement either way`);
      assert.equal(fast.listed, listed, `${what}: listed ${fast.listed}, taken ${JSON.stringify([...(fast.taken ?? [])])}`);
      if (refused === undefined) assert.equal(fast.result, 'accepted', what);
      else assert.match(fast.result, refused, what);
    }
    assert.deepEqual([...((await judge(['origin/main', 'HEAD'], true)).taken ?? [])], [['origin/main', 'refs/remotes/origin/main'], ['HEAD', 'refs/heads/main']], 'HEAD is followed to its branch');

    // A branch named HEAD: git's lookup finds it and the checkout's own HEAD, warns, and the refs are listed.
    clone.git('update-ref', 'refs/heads/HEAD', other);
    const twoHeads = await judge(['main', 'HEAD'], true);
    assert.equal(twoHeads.taken, undefined);
    assert.equal(twoHeads.listed, true);
    assert.match(twoHeads.result, /"HEAD" names the checkout's own HEAD and also refs\/heads\/HEAD/);
  });

  it('lists local and remote-tracking branches, never origin/HEAD', async () => {
    const clone = remote.clone('a');
    clone.git('branch', 'wave-1/alice');
    const refs = listBranchRefs(clone.root, 'origin').map((entry) => entry.ref);
    assert.ok(refs.includes('refs/heads/wave-1/alice'));
    assert.ok(refs.includes('refs/remotes/origin/main'));
    assert.ok(!refs.includes('refs/remotes/origin/HEAD'));
  });
});
