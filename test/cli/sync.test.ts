import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, linkSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { builtCliPath, cleanEnv, runBuiltCli, runBuiltCliAsync } from '../support/builtCli';
import type { CliRun } from '../support/builtCli';
import { claudeDecision, hookPayload } from '../support/hookFixtures';
import { makeOld, plantLeftover } from '../support/leftoverFiles';
import { writeNestedTreeCommit } from '../support/nestedTrees';
import { snapshotTree } from '../support/plantedLinks';
import { MAX_PLAN_TREE_DEPTH } from '../../src/node/objectBatch';
import { MAX_SPARE_FILES, openFileLimit, spareFileBound } from '../../src/node/stagedWrites';
import { planWriteLockAt } from '../../src/node/planWriteLock';
import { runWhileLockHeld } from '../support/lockHeldRun';
import { nodeDeclarationFs } from '../../src/node/declarationFs';
import { writeWavePlan } from '../../src/planner/plan/planWriter';
import { createSharedRemote, gitIn } from '../node/gitRemotes';
import type { Clone, SharedRemote } from '../node/gitRemotes';

function cli(clone: Clone, args: string[], options: { input?: unknown; session?: string; env?: Record<string, string> } = {}): CliRun {
  const input = options.input === undefined ? '' : typeof options.input === 'string' ? options.input : JSON.stringify(options.input);
  return runBuiltCli(args, { cwd: clone.root, input, env: cleanEnv({ ...(options.session ? { CLAUDE_CODE_SESSION_ID: options.session } : {}), ...options.env }) });
}

/** Starts the built CLI without waiting: several of these run at the same time. */
function cliAsync(clone: Clone, args: string[], session: string): Promise<CliRun> {
  return runBuiltCliAsync(args, { cwd: clone.root, env: cleanEnv({ CLAUDE_CODE_SESSION_ID: session }) });
}

function planWave(clone: Clone, wave: number, records: Array<{ id: string; files: string[] }>, session: string) {
  const run = cli(clone, ['plan', 'write', '--wave', String(wave), '--role', 'implementation'], { input: records, session });
  assert.equal(run.status, 0, run.stderr);
}

/**
 * A pre-receive hook on the remote that holds the first push until a second push has arrived. A push
 * arrives only after its publisher fetched, so both publishers are certain to have fetched the same
 * plan before either lands: a real race, every time, decided by the remote's compare-and-swap.
 */
function holdFirstPushUntilSecond(remote: SharedRemote): void {
  const hook = join(remote.bare, 'hooks', 'pre-receive');
  writeFileSync(
    hook,
    [
      '#!/bin/sh',
      'cat > /dev/null',
      `dir="${join(remote.dir, 'arrivals')}"`,
      'mkdir -p "$dir"',
      'touch "$dir/push-$$"',
      'i=0',
      'while [ "$(ls "$dir" | wc -l)" -lt 2 ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done',
      'exit 0',
      '',
    ].join('\n'),
  );
  chmodSync(hook, 0o755);
}

const FILES = { 'src/a/x.ts': 'a\n', 'src/a/y.ts': 'y\n', 'src/b/z.ts': 'b\n', 'docs/readme.md': '#\n', 'README.md': 'r\n' };

describe('wave-scope publish, sync, release (built CLI, a bare remote and several clones)', function () {
  this.timeout(60_000);
  let remote: SharedRemote;
  let a: Clone;
  let b: Clone;
  beforeEach(() => {
    remote = createSharedRemote(FILES);
    a = remote.clone('a');
    b = remote.clone('b');
  });
  afterEach(() => remote.remove());

  it('publish puts the active plan on refs/wave-scope/plan of the remote, claimed by this clone', () => {
    planWave(a, 1, [{ id: 'alice', files: ['src/a/'] }, { id: 'coordinator', files: ['README.md'] }], 'sess-a');
    const run = cli(a, ['publish'], { session: 'sess-a' });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /^published wave 1 \(2 agents\) to origin refs\/wave-scope\/plan as [0-9a-f]{12}; this clone's claim stands until .+\n$/);
    const tree = gitIn(remote.bare, 'ls-tree', '-r', '--name-only', 'refs/wave-scope/plan');
    assert.match(tree, /^clones\/c-[0-9a-f]{12}\/waves\/1\/filescopes\/wave-1\/alice\.json$/m);
    const claims = JSON.parse(gitIn(remote.bare, 'show', 'refs/wave-scope/plan:claims.json'));
    assert.equal(claims.claims.length, 1);
    assert.equal(claims.claims[0].session, 'sess-a');
    assert.equal(claims.claims[0].wave, 1);
    assert.equal(gitIn(remote.bare, 'for-each-ref', 'refs/heads').trim().split('\n').length, 1, 'no branch was created');
  });

  it('two coordinators publishing overlapping waves at once: exactly one wins, the other is refused with a witness', async () => {
    holdFirstPushUntilSecond(remote);
    planWave(a, 1, [{ id: 'alice', files: ['src/a/'] }], 'sess-a');
    planWave(b, 1, [{ id: 'bob', files: ['src/**/y.ts'] }], 'sess-b');
    const [ra, rb] = await Promise.all([cliAsync(a, ['publish'], 'sess-a'), cliAsync(b, ['publish'], 'sess-b')]);
    const results = [ra, rb];
    assert.deepEqual(results.map((r) => r.status).sort(), [0, 1], results.map((r) => r.stderr).join('\n---\n'));
    const loser = results.find((r) => r.status === 1) as CliRun;
    assert.match(loser.stderr, /^ERROR: wave 1 overlaps a wave another clone claims \(1 colliding pair of agents\); nothing was published\n/);
    assert.match(loser.stderr, /both claim src\/a\/y\.ts\n/, 'the witness is a real file');
    assert.match(loser.stderr, /claimed by clone .+ \(c-[0-9a-f]{12}\) since \d\d:\d\d/);
    assert.match(loser.stderr, /proven again after losing 1 race/, 'the loser fetched the winner\'s plan and proved again');
    const claims = JSON.parse(gitIn(remote.bare, 'show', 'refs/wave-scope/plan:claims.json')).claims;
    assert.equal(claims.length, 1, 'only the winner\'s claim is on the remote');
  });

  it('two coordinators publishing disjoint waves at once: both land', async () => {
    holdFirstPushUntilSecond(remote);
    planWave(a, 1, [{ id: 'alice', files: ['src/a/'] }], 'sess-a');
    planWave(b, 4, [{ id: 'bob', files: ['src/b/'] }], 'sess-b');
    const results = await Promise.all([cliAsync(a, ['publish'], 'sess-a'), cliAsync(b, ['publish'], 'sess-b')]);
    assert.deepEqual(results.map((r) => r.status), [0, 0], results.map((r) => r.stderr).join('\n---\n'));
    assert.equal(results.filter((r) => /lost 1 race to another clone's push/.test(r.stderr)).length, 1, 'one of them lost the race and proved again');
    const claims = JSON.parse(gitIn(remote.bare, 'show', 'refs/wave-scope/plan:claims.json')).claims;
    assert.deepEqual(claims.map((claim: { wave: number }) => claim.wave).sort(), [1, 4]);
  });

  it('clones taking turns: every publish and sync reads the waves other clones added since (through the plan-tree cache), and keeps them', () => {
    const filesOf = (clone: Clone, commit = 'refs/wave-scope/plan') =>
      gitIn(remote.bare, 'ls-tree', '-r', '--name-only', commit)
        .split('\n')
        .filter((path) => path.startsWith(`clones/${readCloneId(clone)}/`));
    planWave(a, 1, [{ id: 'alice', files: ['src/a/'] }], 'sess-a');
    assert.equal(cli(a, ['publish'], { session: 'sess-a' }).status, 0);
    planWave(b, 2, [{ id: 'bob', files: ['src/b/'] }], 'sess-b');
    assert.equal(cli(b, ['publish'], { session: 'sess-b' }).status, 0);
    const published = filesOf(b);
    assert.ok(published.length > 0);
    // a's cache knows `clones/` and its own directory; b's directory beneath `clones/` is new to it.
    const renewed = cli(a, ['publish'], { session: 'sess-a' });
    assert.equal(renewed.status, 0, renewed.stderr);
    assert.deepEqual(filesOf(b), published, 'a renewed its claim and kept b\'s wave');
    assert.equal(cli(b, ['release', '--wave', '2']).status, 0);
    assert.equal(cli(a, ['publish'], { session: 'sess-a' }).status, 0);
    assert.deepEqual(filesOf(b), published, 'a released wave stays published, for verify');
    const c = remote.clone('c');
    assert.equal(cli(c, ['sync', '--wave', '1']).status, 0);
    planWave(b, 5, [{ id: 'carol', files: ['docs/'] }], 'sess-b');
    assert.equal(cli(b, ['publish'], { session: 'sess-b' }).status, 0);
    const synced = cli(c, ['sync', '--wave', '5']);
    assert.equal(synced.status, 0, synced.stderr);
    assert.match(synced.stdout, /^synced wave 5 of clone /);
  });

  it('a copy of a checkout is a clone of its own: it cannot replace or release the original\'s claim; a damaged identity is refused in one line', () => {
    planWave(a, 1, [{ id: 'alice', files: ['src/a/'] }], 'sess-a');
    assert.equal(cli(a, ['publish'], { session: 'sess-a' }).status, 0);
    const copyRoot = join(remote.dir, 'a-copy');
    cpSync(a.root, copyRoot, { recursive: true });
    const copy: Clone = { ...a, root: copyRoot, git: (...args: string[]) => gitIn(copyRoot, ...args) };
    planWave(copy, 1, [{ id: 'bob', files: ['src/a/x.ts'] }], 'sess-copy');
    const published = cli(copy, ['publish'], { session: 'sess-copy' });
    assert.equal(published.status, 1, published.stderr);
    assert.match(published.stderr, new RegExp(`^this checkout's git directory came from clone ${readCloneId(a)} \\(.+\\), which still is that clone: this checkout is clone c-[0-9a-f]{12} from now on`, 'm'));
    assert.match(published.stderr, /overlaps a wave another clone claims/);
    assert.equal(cli(copy, ['release', '--wave', '1']).stderr, 'this clone holds no claim on wave 1; nothing to release\n');
    const claims = JSON.parse(gitIn(remote.bare, 'show', 'refs/wave-scope/plan:claims.json')).claims;
    assert.deepEqual(claims.map((claim: { clone: string }) => claim.clone), [readCloneId(a)]);

    planWave(b, 3, [{ id: 'carol', files: ['docs/'] }], 'sess-b');
    mkdirSync(join(b.root, '.git/wave-scope'), { recursive: true });
    writeFileSync(join(b.root, '.git/wave-scope/clone.json'), '{"id": "C-UPPER", "name": "x"}');
    for (const args of [['publish'], ['release', '--wave', '1'], ['sync']]) {
      const refused = cli(b, args, { session: 'sess-b' });
      assert.equal(refused.status, 2, refused.stderr);
      assert.match(refused.stderr, /^ERROR: .*clone\.json exists but is not a clone identity .*repair or remove it.*\n$/);
      assert.doesNotMatch(refused.stderr, /\n\s+at /, 'no stack trace');
    }
  });

  it('three clones started together, unsynchronised, overlapping: exactly one wins', async () => {
    const c = remote.clone('c');
    for (const [clone, session] of [[a, 'sa'], [b, 'sb'], [c, 'sc']] as const) planWave(clone, 1, [{ id: 'x', files: ['docs/readme.md'] }], session);
    const results = await Promise.all([cliAsync(a, ['publish'], 'sa'), cliAsync(b, ['publish'], 'sb'), cliAsync(c, ['publish'], 'sc')]);
    assert.deepEqual(results.map((r) => r.status).sort(), [0, 1, 1], results.map((r) => r.stderr).join('\n---\n'));
    for (const loser of results.filter((r) => r.status === 1)) assert.match(loser.stderr, /both claim docs\/readme\.md/);
  });

  it('a clone that syncs enforces the plan: the built hook denies a write outside it, per agent too, and the commit guard blocks', () => {
    planWave(a, 2, [{ id: 'alice', files: ['src/a/'] }, { id: 'bob', files: ['src/b/'] }], 'sess-a');
    assert.equal(cli(a, ['publish'], { session: 'sess-a' }).status, 0);
    const c = remote.clone('c');
    const synced = cli(c, ['sync'], { session: 'someone-in-c' });
    assert.equal(synced.status, 0, synced.stderr);
    assert.match(synced.stdout, /^synced wave 2 of clone .+ \(c-[0-9a-f]{12}\), claimed until .+ into \.claude: 2 agents, \d+ allowed entries, unbound/);
    assert.deepEqual(temporaryFilesIn(join(c.root, '.claude')), [], 'the files staged for the write were all renamed into place');
    assert.deepEqual(temporaryFilesIn(join(c.root, '.git/wave-scope')), [], 'the sync state and the cache filled the files made for them');
    const manifest = JSON.parse(readFileSync(join(c.root, '.claude/wave-scope.json'), 'utf8'));
    assert.equal('session_id' in manifest, false);
    const again = cli(c, ['sync']);
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stdout, /^\.claude already enforces wave 2 of clone .+ as published; nothing was written\n$/);
    assert.deepEqual(temporaryFilesIn(join(c.root, '.git/wave-scope')), [], 'what a sync that writes nothing made ahead and did not use is removed');

    const hook = (target: string, env: Record<string, string> = {}, fixture = 'claude-write') =>
      claudeDecision(runBuiltCli(['hook', 'enforce-write'], { cwd: c.root, input: hookPayload(fixture, { cwd: c.root, target: join(c.root, target) }), env: cleanEnv(env) }).stdout);
    assert.equal(hook('src/a/x.ts').decision, 'allow');
    const denied = hook('docs/readme.md');
    assert.equal(denied.decision, 'deny');
    assert.match(denied.text, /docs\/readme\.md is not in wave 2's allowed paths/);
    assert.equal(hook('src/b/z.ts', { WAVE_SCOPE_AGENT: 'alice' }, 'claude-subagent-write').decision, 'deny', 'alice may not write bob\'s files');
    assert.equal(hook('src/a/x.ts', { WAVE_SCOPE_AGENT: 'alice' }, 'claude-subagent-write').decision, 'allow');

    c.write({ 'docs/readme.md': 'changed\n' });
    c.git('add', 'docs/readme.md');
    const guard = runBuiltCli(['hook', 'commit-guard'], { cwd: c.root, env: cleanEnv() });
    assert.equal(guard.status, 1);
    assert.match(guard.stderr, /docs\/readme\.md/);
  });

  it('a sync of a republished wave rewrites the files that changed and leaves the identical ones alone, and replaces a linked one', () => {
    const records = [{ id: 'alice', files: ['src/a/'] }, { id: 'bob', files: ['src/b/'] }, { id: 'carol', files: ['docs/'] }];
    planWave(a, 3, records, 'sess-a');
    assert.equal(cli(a, ['publish'], { session: 'sess-a' }).status, 0);
    const c = remote.clone('c');
    assert.equal(cli(c, ['sync']).status, 0);
    const agentFile = (id: string) => join(c.root, '.claude/filescopes/wave-3', `${id}.json`);
    const inode = (path: string) => statSync(path).ino;
    const before = { alice: inode(agentFile('alice')), bob: inode(agentFile('bob')), carol: inode(agentFile('carol')) };
    // carol's file is replaced by a hard link to a file somebody else could write: same text, but not trusted.
    const elsewhere = join(remote.dir, 'carol-elsewhere.json');
    writeFileSync(elsewhere, readFileSync(agentFile('carol')));
    rmSync(agentFile('carol'));
    linkSync(elsewhere, agentFile('carol'));

    // The coordinator changes bob's scope only, and republishes.
    planWave(a, 3, [records[0] as (typeof records)[0], { id: 'bob', files: ['src/b/z.ts'] }, records[2] as (typeof records)[0]], 'sess-a');
    assert.equal(cli(a, ['publish'], { session: 'sess-a' }).status, 0);
    const synced = cli(c, ['sync']);
    assert.equal(synced.status, 0, synced.stderr);
    assert.match(synced.stdout, /^synced wave 3 of clone /);
    assert.deepEqual(temporaryFilesIn(join(c.root, '.claude')), [], 'nothing staged is left behind');
    assert.equal(inode(agentFile('alice')), before.alice, 'alice\'s file, identical, was left alone');
    assert.notEqual(inode(agentFile('bob')), before.bob, 'bob\'s file was rewritten');
    assert.deepEqual(JSON.parse(readFileSync(agentFile('bob'), 'utf8')), ['src/b/z.ts']);
    assert.equal(statSync(agentFile('carol')).nlink, 1, 'the hard link was replaced by a file of its own');
    assert.notEqual(inode(agentFile('carol')), before.carol);
    // The aggregate carries the new plan. (Not compared by inode: a file written anew can get back the
    // inode number its predecessor freed, which made an inode check here fail now and then.)
    const aggregate = JSON.parse(readFileSync(join(c.root, '.claude/filescopes/wave-3.scopes.json'), 'utf8')) as Array<{ id: string; files: string[] }>;
    assert.deepEqual(aggregate.find((record) => record.id === 'bob')?.files, ['src/b/z.ts'], 'the aggregate is written anew with bob\'s new scope');
    assert.deepEqual(
      JSON.parse(readFileSync(join(c.root, '.claude/wave-scope.json'), 'utf8')).allowedPaths.sort(),
      ['docs/', 'src/a/', 'src/b/z.ts', 'src/b/z.test.ts', 'src/b/z.spec.ts', 'src/b/__tests__/z.ts', 'src/b/__tests__/z.test.ts', 'test/**/z.test.ts', 'tests/**/z.test.ts'].sort(),
    );
    const hook = (target: string) =>
      claudeDecision(runBuiltCli(['hook', 'enforce-write'], { cwd: c.root, input: hookPayload('claude-write', { cwd: c.root, target: join(c.root, target) }), env: cleanEnv() }).stdout);
    assert.equal(hook('src/b/other.ts').decision, 'deny', 'the new plan is enforced');
    assert.equal(hook('src/b/z.ts').decision, 'allow');
  });

  it('a sync reads the fetched plan while git still moves the ref, and writes and prints nothing before the fetch has ended with it; nothing at all when the fetch then fails', () => {
    const records = [{ id: 'alice', files: ['src/a/'] }, { id: 'bob', files: ['src/b/'] }];
    planWave(a, 3, records, 'sess-a');
    assert.equal(cli(a, ['publish'], { session: 'sess-a' }).status, 0);
    assert.equal(cli(b, ['sync']).status, 0);
    const stateDir = join(b.root, '.claude');
    const record = join(remote.dir, 'seen');
    // Holds b's copy of the plan ref before it moves (git has stored and checked the new commit by then)
    // until the sync has staged files for it, at most 20 s; notes what b's plan and sync state were then.
    const hook = join(b.root, '.git', 'hooks', 'reference-transaction');
    const holdRefMove = (outcome: 'allow' | 'refuse') => {
      rmSync(record, { force: true });
      writeFileSync(
        hook,
        [
          '#!/bin/sh',
          '[ "$1" = prepared ] || exit 0',
          'grep -q refs/wave-scope/remotes/ || exit 0',
          `[ -e '${record}' ] && exit ${outcome === 'allow' ? 0 : 1}`,
          'i=0',
          `until [ -n "$(find '${stateDir}' -name '*.tmp' | head -n 1)" ] || [ $i -ge 400 ]; do sleep 0.05; i=$((i+1)); done`,
          `if [ $i -ge 400 ]; then echo nothing staged > '${record}'; else echo staged > '${record}'; fi`,
          `cp '${join(stateDir, 'filescopes', 'wave-3', 'bob.json')}' '${record}.bob'`,
          `cp '${join(b.root, '.git', 'wave-scope', 'sync-state.json')}' '${record}.state'`,
          outcome === 'allow' ? 'exit 0' : 'exit 1',
          '',
        ].join('\n'),
      );
      chmodSync(hook, 0o755);
    };
    const inProgress = (path: string) => (JSON.parse(readFileSync(path, 'utf8')) as { inProgress: unknown[] }).inProgress;

    planWave(a, 3, [records[0] as (typeof records)[0], { id: 'bob', files: ['src/b/z.ts'] }], 'sess-a');
    assert.equal(cli(a, ['publish'], { session: 'sess-a' }).status, 0);
    holdRefMove('allow');
    const synced = cli(b, ['sync']);
    assert.equal(synced.status, 0, synced.stderr);
    assert.equal(readFileSync(record, 'utf8'), 'staged\n', 'the sync staged its files before git moved the ref');
    assert.deepEqual(JSON.parse(readFileSync(`${record}.bob`, 'utf8')), ['src/b/'], 'nothing was written into the state directory before');
    assert.deepEqual(inProgress(`${record}.state`), [], 'nor marked in the sync state');
    assert.deepEqual(JSON.parse(readFileSync(join(stateDir, 'filescopes', 'wave-3', 'bob.json'), 'utf8')), ['src/b/z.ts']);
    assert.match(synced.stdout, /^synced wave 3 of clone /);

    // The next republish, with git refusing to move the ref after the sync has read and staged the plan.
    planWave(a, 3, [records[0] as (typeof records)[0], { id: 'bob', files: ['src/b/y.ts'] }], 'sess-a');
    assert.equal(cli(a, ['publish'], { session: 'sess-a' }).status, 0);
    holdRefMove('refuse');
    const before = snapshotTree(stateDir);
    const failed = cli(b, ['sync']);
    assert.equal(readFileSync(record, 'utf8'), 'staged\n');
    assert.equal(failed.status, 2, failed.stderr);
    assert.match(failed.stderr, /git fetch origin refs\/wave-scope\/plan failed/);
    assert.equal(failed.stdout, '', 'nothing of the plan read ahead is reported');
    assert.deepEqual(snapshotTree(stateDir), before, 'nor written, nor left staged');
    assert.deepEqual(inProgress(join(b.root, '.git', 'wave-scope', 'sync-state.json')), []);
  });

  it('a user who traces git keeps the trace: the sync\'s fetch writes it where the user asked, and the sync goes on as always', () => {
    planWave(a, 3, [{ id: 'alice', files: ['src/a/'] }], 'sess-a');
    assert.equal(cli(a, ['publish'], { session: 'sess-a' }).status, 0);
    const trace = join(remote.dir, 'trace.txt');
    const synced = cli(b, ['sync'], { env: { GIT_TRACE: trace } });
    assert.equal(synced.status, 0, synced.stderr);
    assert.match(readFileSync(trace, 'utf8'), /trace: built-in: git fetch .*refs\/wave-scope\/plan/);
    assert.doesNotMatch(readFileSync(trace, 'utf8'), /packet:/, 'no packet trace was added to it');
  });

  it('a sync into an emptied state directory (its files made while git fetches) leaves nothing behind, nor when it stops short', () => {
    planWave(a, 3, [{ id: 'alice', files: ['src/a/'] }, { id: 'bob', files: ['src/b/'] }, { id: 'carol', files: ['docs/'] }], 'sess-a');
    assert.equal(cli(a, ['publish'], { session: 'sess-a' }).status, 0);
    const c = remote.clone('c');
    assert.equal(cli(c, ['sync']).status, 0);
    const stateDir = join(c.root, '.claude');
    rmSync(stateDir, { recursive: true });
    const stopped = cli(c, ['sync', '--wave', '9']);
    assert.equal(stopped.status, 1, stopped.stderr);
    assert.equal(existsSync(stateDir), false, 'the files made ahead, and the directories made for them, are gone');
    assert.deepEqual(temporaryFilesIn(join(c.root, '.git/wave-scope')), [], 'so are those made ahead for the sync state');
    const synced = cli(c, ['sync']);
    assert.equal(synced.status, 0, synced.stderr);
    assert.deepEqual(temporaryFilesIn(stateDir), [], 'nothing made ahead is left over');
    assert.deepEqual(readdirSync(join(stateDir, 'filescopes', 'wave-3')).sort(), ['alice.json', 'bob.json', 'carol.json']);
    const hook = (target: string) =>
      claudeDecision(runBuiltCli(['hook', 'enforce-write'], { cwd: c.root, input: hookPayload('claude-write', { cwd: c.root, target: join(c.root, target) }), env: cleanEnv() }).stdout);
    assert.equal(hook('src/a/x.ts').decision, 'allow');
    assert.equal(hook('README.md').decision, 'deny');
  });

  it('a sync that would write waits for the plan-write lock another writer holds, then stops (exit 1) with nothing written, its staged files gone and no marker left', () => {
    planWave(a, 3, [{ id: 'alice', files: ['src/a/'] }, { id: 'bob', files: ['src/b/'] }], 'sess-a');
    assert.equal(cli(a, ['publish'], { session: 'sess-a' }).status, 0);
    const c = remote.clone('c');
    const lock = planWriteLockAt(c.root, 0)();
    assert.equal(lock.held, true);
    let stopped: CliRun;
    try {
      stopped = cli(c, ['sync']);
    } finally {
      if (lock.held) lock.release();
    }
    assert.equal(stopped.status, 1, stopped.stderr);
    assert.match(stopped.stderr, /^ERROR: sync stopped at step "state-dir": another Wave Scope command .* it holds \.orchestrator\/plan-write\.lock/m);
    assert.equal(existsSync(join(c.root, '.claude')), false, 'nothing written; what was staged, and the directories made for it, are gone');
    assert.deepEqual(JSON.parse(readFileSync(join(c.root, '.git/wave-scope/sync-state.json'), 'utf8')).inProgress, [], 'the marker is taken back: nothing is left to finish');
    const synced = cli(c, ['sync']);
    assert.equal(synced.status, 0, synced.stderr);
    assert.match(synced.stdout, /^synced wave 3 of clone /);
  });

  it('a sync that chose its state directory while git fetched stops (exit 1), writing nothing, when another writer put a plan into an earlier one before it had the lock', async () => {
    planWave(a, 3, [{ id: 'alice', files: ['src/a/'] }, { id: 'bob', files: ['src/b/'] }], 'sess-a');
    assert.equal(cli(a, ['publish'], { session: 'sess-a' }).status, 0);
    const c = remote.clone('c');
    const stopped = await runWhileLockHeld(c.root, ['sync'], '', () => {
      // Another writer, holding the lock, puts a plan into .pi, which the hooks read before .claude.
      const other = writeWavePlan({ repoRoot: c.root, stateDir: join(c.root, '.pi'), wave: 1, role: 'implementation', records: [{ id: 'carol', files: ['docs/'] }], ownIds: new Set() }, nodeDeclarationFs(c.root));
      assert.equal(other.ok, true);
    });
    assert.equal(stopped.status, 1, stopped.stderr);
    assert.match(stopped.stderr, /^ERROR: sync stopped at step "state-dir": the state directory a plan written here goes to is no longer \.claude \(now: \.pi; another command wrote a plan meanwhile\): nothing was written; run sync again$/m);
    assert.equal(existsSync(join(c.root, '.claude/wave-scope.json')), false, 'nothing written where the hooks would not read it');
    // Run again, it judges the plan now in .pi like any other: one never published, which it does not overwrite.
    const again = cli(c, ['sync']);
    assert.equal(again.status, 1, again.stderr);
    assert.match(again.stderr, /^ERROR: \.pi holds wave 1, which is not on the plan ref .* or move it out of the way, then sync again\. Nothing was written\.$/m);
  });

  it('a sync removes the temporary files a killed sync left, once they are an hour old, and nothing else (at most hourly)', async () => {
    planWave(a, 3, [{ id: 'alice', files: ['src/a/'] }, { id: 'bob', files: ['src/b/'] }, { id: 'carol', files: ['docs/'] }], 'sess-a');
    assert.equal(cli(a, ['publish'], { session: 'sess-a' }).status, 0);
    const c = remote.clone('c');
    // Synced once, c knows the plan: into its emptied state directory the next sync makes files ahead. That
    // sync also swept (a clone sweeps at most hourly while nothing is left over), and recorded it.
    assert.equal(cli(c, ['sync']).status, 0);
    const swept = join(c.root, '.git/wave-scope/leftovers-swept');
    assert.ok(Date.now() - statSync(swept).mtimeMs < 60_000);
    const stateDir = join(c.root, '.claude');
    const filescopes = join(stateDir, 'filescopes');
    const cloneState = join(c.root, '.git/wave-scope');
    rmSync(stateDir, { recursive: true });

    // A real sync, killed while git fetches: the fetch is held until the test lets it go, so the sync has
    // made its files ahead (spares in filescopes/, the sync state's and the cache's in the git directory).
    const release = join(remote.dir, 'release');
    holdFetchUntil(c, remote, `[ -e '${release}' ]`, 'exit 1');
    // Its temporary directory of its own: a killed sync leaves nothing there (its fetch's trace has no name).
    const temporary = join(remote.dir, 'tmp');
    mkdirSync(temporary);
    const killed = spawn(process.execPath, [builtCliPath, 'sync'], { cwd: c.root, env: { ...cleanEnv(), TMPDIR: temporary }, stdio: 'ignore' });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => killed.on('exit', (_code, signal) => resolve(signal)));
    const pid = killed.pid as number;
    const madeBy = (directory: string, target: string) => temporaryFilesIn(directory, `${target}.${pid}.`).map((name) => join(directory, name));
    try {
      await waitFor(() => madeBy(cloneState, 'sync-state.json').length === 2 && madeBy(cloneState, 'plan-cache.json').length === 1, 'the sync to make its files while git fetches');
      killed.kill('SIGKILL');
      assert.equal(await exited, 'SIGKILL');
    } finally {
      killed.kill('SIGKILL');
      writeFileSync(release, '');
    }
    assert.deepEqual(readdirSync(temporary), []);
    const spares = madeBy(filescopes, 'staged');
    assert.equal(spares.length, 5, 'a spare for each file of the wave: three agents, the aggregate, the manifest');
    const gitDirLeftovers = [...madeBy(cloneState, 'sync-state.json'), ...madeBy(cloneState, 'plan-cache.json')];
    // What a sync killed later, while writing, leaves too (staged beside each target), by the same process.
    const old = 2 * 60 * 60 * 1000;
    const planted = [
      plantLeftover(join(filescopes, 'wave-3'), 'alice.json', pid, old),
      plantLeftover(filescopes, 'wave-3.scopes.json', pid, old),
      plantLeftover(stateDir, 'wave-scope.json', pid, old),
    ];
    // One spare is left recent; the others are an hour old and more.
    const [recentSpare, ...oldSpares] = spares as [string, ...string[]];
    for (const path of [...oldSpares, ...gitDirLeftovers]) makeOld(path, old);
    // Not ours to remove: a live process's file (this test's), a file we do not write, names not quite ours,
    // a link and a directory named exactly like a leftover.
    const kept = [
      plantLeftover(filescopes, 'staged', process.pid, old),
      plantLeftover(filescopes, 'notes.json', pid, old),
      join(filescopes, 'wave-3', 'a0.json.tmp'),
      join(filescopes, 'wave-3', `bob.json.${pid}.abc.tmp`),
    ];
    for (const path of kept.slice(2)) writeFileSync(path, 'user text');
    const outside = plantLeftover(join(remote.dir, 'outside'), 'staged', pid, old, 'outside');
    const link = join(filescopes, outside.slice(join(remote.dir, 'outside').length + 1));
    symlinkSync(outside, link);
    const named = plantLeftover(join(remote.dir, 'scratch'), 'carol.json', pid, old);
    rmSync(named);
    const directory = join(filescopes, 'wave-3', named.slice(join(remote.dir, 'scratch').length + 1));
    mkdirSync(directory);
    writeFileSync(join(directory, 'inside'), 'user data');
    makeOld(directory, old);

    // Within the hour of the last sweep, a sync does not sweep: all of it stays.
    c.git('config', '--unset', 'remote.origin.uploadpack');
    const synced = cli(c, ['sync']);
    assert.equal(synced.status, 0, synced.stderr);
    assert.match(synced.stdout, /^synced wave 3 of clone /);
    for (const path of [...oldSpares, ...gitDirLeftovers, ...planted]) assert.equal(existsSync(path), true, `${path} stays for now`);

    // An hour after it, the next sync sweeps. Its fetch is held until the git directory's leftovers are gone:
    // the sweep looks at the state directory first, so by then it has been through all of it. A sweep that
    // removed nothing would let the fetch go after 20 s, and the checks below would fail.
    makeOld(swept, old);
    holdFetchUntil(c, remote, `! ls '${cloneState}' | grep -q '\\.${pid}\\.'`, 'exec git-upload-pack "$@"');
    const again = cli(c, ['sync']);
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stdout, /^\.claude already enforces wave 3 /);
    for (const path of [...oldSpares, ...gitDirLeftovers, ...planted]) assert.equal(existsSync(path), false, `${path} is removed`);
    assert.ok(Date.now() - statSync(swept).mtimeMs < 60_000, 'a sweep that left nothing behind is recorded');
    for (const path of [recentSpare, ...kept, link, join(directory, 'inside')]) assert.equal(lstatSync(path, { throwIfNoEntry: false }) !== undefined, true, `${path} stays`);
    assert.equal(lstatSync(link).isSymbolicLink(), true);
    assert.equal(readFileSync(outside, 'utf8'), 'outside');
    assert.deepEqual(readdirSync(join(filescopes, 'wave-3')).filter((name) => name.endsWith('.json')).sort(), ['alice.json', 'bob.json', 'carol.json']);
    assert.equal(JSON.parse(readFileSync(join(stateDir, 'wave-scope.json'), 'utf8')).wave, 3);
  });

  it('the spares made while git fetches are bounded, whatever wave the plan-tree cache names, and so is what a killed sync leaves', async () => {
    planWave(a, 1, [{ id: 'alice', files: ['src/a/'] }, { id: 'bob', files: ['src/b/'] }], 'sess-a');
    assert.equal(cli(a, ['publish'], { session: 'sess-a' }).status, 0);
    const c = remote.clone('c');
    assert.equal(cli(c, ['sync']).status, 0);
    const filescopes = join(c.root, '.claude', 'filescopes');
    const cloneState = join(c.root, '.git/wave-scope');
    // The cache as an agent's shell can write it (or as a sync leaves it after reading a plan whose unclaimed
    // wave lists thousands of agent files): its largest wave asks for 5,000 spares.
    const files: Record<string, { oid: string; text: string }> = {};
    for (let index = 0; index < 5000; index += 1) files[`clones/c-000000000000/waves/2/filescopes/wave-2/a${index}.json`] = { oid: '0'.repeat(40), text: '[]\n' };
    writeFileSync(join(cloneState, 'plan-cache.json'), JSON.stringify({ version: 2, commit: '0'.repeat(40), files }));
    const release = join(remote.dir, 'release');
    holdFetchUntil(c, remote, `[ -e '${release}' ]`, 'exit 1');
    // Under the open-file limit of the test's process, then under one of 200 (sh's ulimit sets both limits).
    for (const [openFiles, expected] of [[undefined, spareFileBound(5000, openFileLimit())], [200, 50]] as const) {
      rmSync(join(c.root, '.claude'), { recursive: true, force: true });
      const command = openFiles === undefined ? [process.execPath, builtCliPath, 'sync'] : ['sh', '-c', `ulimit -n ${openFiles} && exec "$0" "$@"`, process.execPath, builtCliPath, 'sync'];
      const killed = spawn(command[0] as string, command.slice(1), { cwd: c.root, env: cleanEnv(), stdio: 'ignore' });
      const exited = new Promise<NodeJS.Signals | null>((resolve) => killed.on('exit', (_code, signal) => resolve(signal)));
      const pid = killed.pid as number;
      const madeBy = (directory: string, target: string) => temporaryFilesIn(directory, `${target}.${pid}.`);
      try {
        // The spares are made before the sync's own files in the git directory.
        await waitFor(() => madeBy(cloneState, 'sync-state.json').length === 2 && madeBy(cloneState, 'plan-cache.json').length === 1, 'the sync to make its files while git fetches');
        killed.kill('SIGKILL');
        assert.equal(await exited, 'SIGKILL');
      } finally {
        killed.kill('SIGKILL');
      }
      assert.equal(madeBy(filescopes, 'staged').length, expected, `spares left by the killed sync (open-file limit ${openFiles ?? 'the test\'s'})`);
    }
    writeFileSync(release, '');
    assert.ok(spareFileBound(5000, openFileLimit()) <= MAX_SPARE_FILES);
  });

  it('a plan published with enforcement other than strict is synced with a warning saying what the hooks will do', () => {
    for (const [enforcement, said] of [['warn', /hooks warn about writes outside it and allow them/], ['off', /hooks allow every write while it stands/]] as const) {
      const run = cli(a, ['plan', 'write', '--wave', '2', '--role', 'implementation', '--enforcement', enforcement], { input: [{ id: 'alice', files: ['src/a/'] }], session: 'sess-a' });
      assert.equal(run.status, 0, run.stderr);
      assert.equal(cli(a, ['publish'], { session: 'sess-a' }).status, 0);
      const synced = cli(b, ['sync']);
      assert.equal(synced.status, 0, synced.stderr);
      assert.match(synced.stderr, new RegExp(`^WARNING: the synced plan was published with enforcement "${enforcement}": this clone's ${said.source}`, 'm'));
    }
  });

  it('a plan-tree cache edited in the git directory cannot change the plan a sync brings in', () => {
    planWave(a, 3, [{ id: 'alice', files: ['src/a/'] }, { id: 'bob', files: ['src/b/'] }], 'sess-a');
    assert.equal(cli(a, ['publish'], { session: 'sess-a' }).status, 0);
    const c = remote.clone('c');
    assert.equal(cli(c, ['sync']).status, 0);
    // Whoever can write .git edits the cached copy of the very commit the remote still points at: the
    // published manifest switched off, with the blob id its new text really has.
    const cachePath = join(c.root, '.git/wave-scope/plan-cache.json');
    const cache = JSON.parse(readFileSync(cachePath, 'utf8')) as { files: Record<string, { oid: string; text: string }> };
    const manifestKey = `clones/${readCloneId(a)}/waves/3/wave-scope.json`;
    const published = cache.files[manifestKey];
    assert.ok(published !== undefined, Object.keys(cache.files).join('\n'));
    const off = `${JSON.stringify({ ...JSON.parse(published.text), enforcement: 'off' }, null, 2)}\n`;
    cache.files[manifestKey] = { oid: createHash('sha1').update(`blob ${Buffer.byteLength(off)}\0`).update(off).digest('hex'), text: off };
    writeFileSync(cachePath, JSON.stringify(cache));
    rmSync(join(c.root, '.claude'), { recursive: true });

    const synced = cli(c, ['sync']);
    assert.equal(synced.status, 0, synced.stderr);
    assert.equal(JSON.parse(readFileSync(join(c.root, '.claude/wave-scope.json'), 'utf8')).enforcement, 'strict', 'the plan as git holds it');
    const hook = claudeDecision(runBuiltCli(['hook', 'enforce-write'], { cwd: c.root, input: hookPayload('claude-write', { cwd: c.root, target: join(c.root, 'docs/readme.md') }), env: cleanEnv() }).stdout);
    assert.equal(hook.decision, 'deny');
  });

  it('sync refuses, with the reason, when the state dir holds a plan that was never published; publishing it first makes it safe', () => {
    planWave(a, 1, [{ id: 'alice', files: ['src/a/'] }], 'sess-a');
    assert.equal(cli(a, ['publish'], { session: 'sess-a' }).status, 0);
    planWave(b, 7, [{ id: 'bob', files: ['src/b/'] }], 'sess-b');
    const before = readFileSync(join(b.root, '.claude/wave-scope.json'), 'utf8');
    const refused = cli(b, ['sync'], { session: 'sess-b' });
    assert.equal(refused.status, 1);
    assert.equal(
      refused.stderr,
      'ERROR: .claude holds wave 7, which is not on the plan ref (never published from here, or changed since): syncing would replace it. ' +
        'Publish it ("wave-scope publish"), or move it out of the way, then sync again. Nothing was written.\n',
    );
    assert.equal(readFileSync(join(b.root, '.claude/wave-scope.json'), 'utf8'), before);
    assert.equal(existsSync(join(b.root, '.claude/filescopes/wave-1')), false);
    assert.deepEqual(temporaryFilesIn(join(b.root, '.claude')), [], 'what was staged before the refusal is gone');
    assert.deepEqual(temporaryFilesIn(join(b.root, '.git/wave-scope')), [], 'and what was made ahead for the sync state');
    // The refused sync still recorded its fetch (for `plan show`'s claims), and left no marker.
    const syncState = () => JSON.parse(readFileSync(join(b.root, '.git/wave-scope/sync-state.json'), 'utf8'));
    const remoteTip = () => gitIn(remote.bare, 'rev-parse', 'refs/wave-scope/plan').trim();
    assert.equal(syncState().fetched.origin.commit, remoteTip());
    assert.deepEqual(syncState().inProgress, []);
    // Published, the local plan is on the ref and may be replaced.
    assert.equal(cli(b, ['publish'], { session: 'sess-b' }).status, 0);
    const synced = cli(b, ['sync', '--clone', readCloneId(a), '--wave', '1'], { session: 'sess-b' });
    assert.equal(synced.status, 0, synced.stderr);
    // The writing sync recorded its fetch with its other changes of the state: the plan it synced, no marker.
    assert.equal(syncState().fetched.origin.commit, remoteTip());
    assert.deepEqual(syncState().inProgress, []);
    assert.ok(syncState().known.some((plan: { source: string; wave: number; commit: string }) => plan.source === 'synced' && plan.wave === 1 && plan.commit === remoteTip()));
    assert.equal(JSON.parse(readFileSync(join(b.root, '.claude/wave-scope.json'), 'utf8')).wave, 1);
    // A synced plan is not this clone's to publish.
    const republish = cli(b, ['publish'], { session: 'sess-b' });
    assert.equal(republish.status, 1);
    assert.match(republish.stderr, /synced here: only its own clone publishes it/);
  });

  it('a sync killed half-way into a state directory is finished by the next one into it, whatever synced into another state directory meanwhile, and after a sync into it that stopped before writing', () => {
    const records = [{ id: 'alice', files: ['src/a/'] }, { id: 'bob', files: ['src/b/'] }];
    const amended = [records[0] as (typeof records)[0], { id: 'bob', files: ['src/b/z.ts'] }];
    planWave(a, 3, records, 'sess-a');
    assert.equal(cli(a, ['publish'], { session: 'sess-a' }).status, 0);
    const c = remote.clone('c');
    assert.equal(cli(c, ['sync']).status, 0);
    const stateFile = join(c.root, '.git/wave-scope/sync-state.json');
    const markers = () => JSON.parse(readFileSync(stateFile, 'utf8')).inProgress as Array<{ stateDir: string }>;
    // Twice: the second time with the marker rewritten as the previous version wrote it (one slot for all
    // state directories), which must still be understood.
    for (const [round, next] of [[1, amended], [2, records]] as const) {
      planWave(a, 3, next, 'sess-a');
      assert.equal(cli(a, ['publish'], { session: 'sess-a' }).status, 0);
      const killed = syncKilledAfterRemoving(c, 'wave-3.scopes.json', ['--state-dir', '.claude']);
      assert.equal(killed.signal, 'SIGKILL', killed.stderr);
      // Killed where the chain has replaced the manifest of wave 3 by its skeleton (granting nothing) and
      // removed the aggregate: a state no plan ref holds, which only the marker tells from a local plan.
      assert.deepEqual(JSON.parse(readFileSync(join(c.root, '.claude/wave-scope.json'), 'utf8')).allowedPaths, []);
      assert.equal(existsSync(join(c.root, '.claude/filescopes/wave-3.scopes.json')), false);
      assert.deepEqual(markers().map((marker) => marker.stateDir), ['.claude']);
      if (round === 2) {
        const state = JSON.parse(readFileSync(stateFile, 'utf8'));
        writeFileSync(stateFile, JSON.stringify({ ...state, inProgress: state.inProgress[0] }));
      }
      // A sync into .claude that marks it, then stops before its first write (another command wrote there
      // meanwhile): what the killed sync left is still there, and so is its marker.
      const zed = join(c.root, '.claude/filescopes/wave-3/zed.json');
      const stopped = syncWithWriteAfterMarking(c, ['--state-dir', '.claude'], zed, '["docs/"]\n');
      assert.equal(stopped.status, 1, stopped.stderr);
      assert.match(stopped.stderr, /changed while this sync ran \(another command wrote to it\): nothing was written/);
      assert.deepEqual(markers().map((marker) => marker.stateDir), ['.claude']);
      const elsewhere = cli(c, ['sync', '--state-dir', '.codex']);
      assert.equal(elsewhere.status, 0, elsewhere.stderr);
      assert.match(elsewhere.stdout, /^synced wave 3 of clone .+ into \.codex: 2 agents/);
      assert.deepEqual(markers().map((marker) => marker.stateDir), ['.claude'], 'the other state directory\'s sync left .claude\'s marker alone');
      const finished = cli(c, ['sync', '--state-dir', '.claude']);
      assert.equal(finished.status, 0, `round ${round}: ${finished.stderr}`);
      assert.match(finished.stdout, /^synced wave 3 of clone .+ into \.claude: 2 agents/);
      assert.deepEqual(markers(), []);
      assert.deepEqual(JSON.parse(readFileSync(join(c.root, '.claude/filescopes/wave-3/bob.json'), 'utf8')), next[1]?.files);
      assert.equal(existsSync(zed), false, 'the stray file written meanwhile is not the plan\'s: the chain removed it');
      assert.match(cli(c, ['sync', '--state-dir', '.claude']).stdout, /^\.claude already enforces wave 3 /);
    }
  });

  it('sync refuses (exit 1) a symbolic link or a directory planted where it would write a plan file or pass to one, naming it, and writes nothing', () => {
    const records = [{ id: 'alice', files: ['src/a/'] }, { id: 'bob', files: ['src/b/'] }];
    planWave(a, 3, records, 'sess-a');
    assert.equal(cli(a, ['publish'], { session: 'sess-a' }).status, 0);
    const c = remote.clone('c');
    assert.equal(cli(c, ['sync']).status, 0);
    planWave(a, 3, [records[0] as (typeof records)[0], { id: 'bob', files: ['src/b/z.ts'] }], 'sess-a');
    assert.equal(cli(a, ['publish'], { session: 'sess-a' }).status, 0);
    const stateDir = join(c.root, '.claude');
    const waveDir = join(stateDir, 'filescopes/wave-3');
    const bob = join(waveDir, 'bob.json');
    const outside = join(remote.dir, 'outside');
    // Each plant is made over the synced plan, with a copy of the wave's directory elsewhere, and taken away again.
    const plants: Array<{ name: string; plant: () => void; restore: () => void; said: RegExp }> = [
      {
        name: 'a per-agent file linked to a copy elsewhere',
        plant: () => {
          rmSync(bob);
          symlinkSync(join(outside, 'bob.json'), bob);
        },
        restore: () => {
          rmSync(bob);
          cpSync(join(outside, 'bob.json'), bob);
        },
        said: /^ERROR: \.claude\/filescopes\/wave-3\/bob\.json is a symbolic link where sync writes the plan\b/,
      },
      {
        name: 'the wave\'s directory linked to a copy elsewhere',
        plant: () => {
          rmSync(waveDir, { recursive: true });
          symlinkSync(outside, waveDir);
        },
        restore: () => {
          rmSync(waveDir);
          cpSync(outside, waveDir, { recursive: true });
        },
        said: /^ERROR: \.claude\/filescopes\/wave-3 is a symbolic link where sync writes the plan\b/,
      },
      {
        name: 'a directory where a per-agent file goes',
        plant: () => {
          rmSync(bob);
          mkdirSync(bob);
        },
        restore: () => {
          rmSync(bob, { recursive: true });
          cpSync(join(outside, 'bob.json'), bob);
        },
        said: /^ERROR: \.claude\/filescopes\/wave-3\/bob\.json is not a regular file where sync writes the plan\b/,
      },
    ];
    const asSynced = snapshotTree(stateDir);
    for (const { name, plant, restore, said } of plants) {
      rmSync(outside, { recursive: true, force: true });
      cpSync(waveDir, outside, { recursive: true });
      plant();
      const planted = { here: snapshotTree(stateDir), outside: snapshotTree(outside) };
      const refused = cli(c, ['sync']);
      assert.equal(refused.status, 1, `${name}: ${refused.stderr}`);
      assert.match(refused.stderr, said, name);
      assert.match(refused.stderr, /Nothing was written\.\n$/, name);
      assert.deepEqual({ here: snapshotTree(stateDir), outside: snapshotTree(outside) }, planted, `${name}: nothing was written or removed, here or elsewhere`);
      restore();
      assert.deepEqual(snapshotTree(stateDir), asSynced, `${name}: taken away`);
    }
    const synced = cli(c, ['sync']);
    assert.equal(synced.status, 0, synced.stderr);
    assert.deepEqual(JSON.parse(readFileSync(join(waveDir, 'bob.json'), 'utf8')), ['src/b/z.ts']);
  });

  it('a plan already synced is already there only as files of its own: a linked per-agent file or directory is refused, a hard-linked file rewritten', () => {
    planWave(a, 3, [{ id: 'alice', files: ['src/a/'] }, { id: 'bob', files: ['src/b/'] }], 'sess-a');
    assert.equal(cli(a, ['publish'], { session: 'sess-a' }).status, 0);
    const c = remote.clone('c');
    assert.equal(cli(c, ['sync']).status, 0);
    const waveDir = join(c.root, '.claude/filescopes/wave-3');
    const bob = join(waveDir, 'bob.json');
    const elsewhere = join(remote.dir, 'elsewhere');
    cpSync(waveDir, elsewhere, { recursive: true });
    const hook = (target: string) =>
      claudeDecision(runBuiltCli(['hook', 'enforce-write'], { cwd: c.root, input: hookPayload('claude-subagent-write', { cwd: c.root, target: join(c.root, target) }), env: cleanEnv({ WAVE_SCOPE_AGENT: 'bob' }) }).stdout);

    // bob's file, the same text, but a link to a file anyone may change: bob's scope would follow it.
    rmSync(bob);
    symlinkSync(join(elsewhere, 'bob.json'), bob);
    const linked = cli(c, ['sync']);
    assert.equal(linked.status, 1, linked.stderr);
    assert.match(linked.stderr, /^ERROR: \.claude\/filescopes\/wave-3\/bob\.json is a symbolic link where sync writes/);
    assert.equal(linked.stdout, '');
    assert.equal(lstatSync(bob).isSymbolicLink(), true, 'refused, not replaced');
    rmSync(bob);
    cpSync(join(elsewhere, 'bob.json'), bob);

    rmSync(waveDir, { recursive: true });
    symlinkSync(elsewhere, waveDir);
    const linkedDir = cli(c, ['sync']);
    assert.equal(linkedDir.status, 1, linkedDir.stderr);
    assert.match(linkedDir.stderr, /^ERROR: \.claude\/filescopes\/wave-3 is a symbolic link where sync writes/);
    rmSync(waveDir);
    cpSync(elsewhere, waveDir, { recursive: true });
    assert.match(cli(c, ['sync']).stdout, /^\.claude already enforces wave 3 /);

    // A hard link is a file, but shared with another name: rewritten through the chain as a file of its own.
    rmSync(bob);
    linkSync(join(elsewhere, 'bob.json'), bob);
    const hardLinked = cli(c, ['sync']);
    assert.equal(hardLinked.status, 0, hardLinked.stderr);
    assert.match(hardLinked.stdout, /^synced wave 3 of clone .+ into \.claude: 2 agents/);
    assert.equal(statSync(bob).nlink, 1);
    assert.equal(hook('src/b/z.ts').decision, 'allow');
    assert.equal(hook('src/a/x.ts').decision, 'deny');
    assert.match(cli(c, ['sync']).stdout, /^\.claude already enforces wave 3 /);
  });

  it('a stale claim expires: after its TTL another clone may claim the same files, and the expired claim is dropped', () => {
    planWave(a, 1, [{ id: 'alice', files: ['src/a/'] }], 'sess-a');
    const published = cli(a, ['publish', '--ttl', '3s', '--json'], { session: 'sess-a' });
    assert.equal(published.status, 0, published.stderr);
    const expiresAt = Date.parse(JSON.parse(published.stdout).claim.expiresAt);
    planWave(b, 1, [{ id: 'bob', files: ['src/a/x.ts'] }], 'sess-b');
    const early = cli(b, ['publish'], { session: 'sess-b' });
    // While the claim stands the overlap is refused (only a machine slower than the TTL could see it lapse first).
    assert.ok(early.status === 1 || Date.now() > expiresAt, early.stderr);
    if (early.status === 1) assert.match(early.stderr, /overlaps a wave another clone claims/);
    // Wait on the condition itself: the clock passing the claim's expiry.
    while (Date.now() <= expiresAt) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
    const late = cli(b, ['publish'], { session: 'sess-b' });
    assert.equal(late.status, 0, late.stderr);
    assert.match(late.stderr, /dropped the expired claim of clone .+ on wave 1 \(expired /);
    const claims = JSON.parse(gitIn(remote.bare, 'show', 'refs/wave-scope/plan:claims.json')).claims;
    assert.deepEqual(claims.map((claim: { clone: string }) => claim.clone), [readCloneId(b)]);
  });

  it('release ends the claim (the plan stays), so an overlapping wave may be published', () => {
    planWave(a, 3, [{ id: 'alice', files: ['src/a/'] }], 'sess-a');
    assert.equal(cli(a, ['publish'], { session: 'sess-a' }).status, 0);
    planWave(b, 1, [{ id: 'bob', files: ['src/a/'] }], 'sess-b');
    assert.equal(cli(b, ['publish'], { session: 'sess-b' }).status, 1);
    const released = cli(a, ['release', '--wave', '3']);
    assert.equal(released.status, 0, released.stderr);
    assert.equal(released.stdout, 'released wave 3 on origin: this clone\'s claim ended (the wave\'s plan stays published for verify)\n');
    const again = cli(a, ['release', '--wave', '3']);
    assert.equal(again.status, 0);
    assert.equal(again.stderr, 'this clone holds no claim on wave 3; nothing to release\n');
    assert.equal(cli(b, ['publish'], { session: 'sess-b' }).status, 0);
    assert.match(gitIn(remote.bare, 'ls-tree', '-r', '--name-only', 'refs/wave-scope/plan'), new RegExp(`clones/${readCloneId(a)}/waves/3/`));
  });

  it('plan show lists other clones\' claims and a local wave that overlaps one; --json carries them under "claims"', () => {
    planWave(a, 3, [{ id: 'alice', files: ['src/a/'] }], 'sess-a');
    assert.equal(cli(a, ['publish'], { session: 'sess-a' }).status, 0);
    planWave(b, 1, [{ id: 'bob', files: ['src/a/x.ts'] }], 'sess-b');
    assert.equal(cli(b, ['publish'], { session: 'sess-b' }).status, 1, 'the refused publish fetched the plan ref');
    const shown = cli(b, ['plan', 'show'], { session: 'sess-b' });
    assert.equal(shown.status, 0, shown.stderr);
    assert.match(shown.stdout, /Claims on origin's plan ref \(as of \d\d:\d\d\):\n {2}wave 3 claimed by clone .+\/a \(c-[0-9a-f]{12}\) since \d\d:\d\d, until .+: 1 agent\n/);
    assert.match(shown.stdout, /CLAIMED wave 1 agent "bob" src\/a\/x\.ts: src\/a\/x\.ts is wave 3 claimed by clone .+ \(agent "alice", src\/a\/\)/);
    const json = JSON.parse(cli(b, ['plan', 'show', '--json'], { session: 'sess-b' }).stdout);
    assert.equal(json.claims.version, 1);
    assert.equal(json.claims.claims[0].wave, 3);
    assert.equal(json.claims.claims[0].ownClone, false);
    assert.deepEqual(json.claims.claims[0].agents, [{ id: 'alice', files: ['src/a/'] }]);
    assert.equal(json.claims.conflicts[0].witness, 'src/a/x.ts');
    assert.equal(json.waves[0].wave, 1, 'the plan view is unchanged beside it');
  });

  it('publish refuses a test file another clone\'s agent may write as the plain test sibling of its file, spelled in the other Unicode form', () => {
    // Both gates take paths in NFC: with both waves published, alice and bob would each be let write src/café.test.ts.
    planWave(a, 1, [{ id: 'alice', files: ['src/caf\u00e9.ts'] }], 'sess-a');
    assert.equal(cli(a, ['publish'], { session: 'sess-a' }).status, 0);
    planWave(b, 1, [{ id: 'bob', files: ['src/cafe\u0301.test.ts'] }], 'sess-b');
    const run = cli(b, ['publish'], { session: 'sess-b' });
    assert.equal(run.status, 1, run.stderr);
    assert.match(run.stderr, /^ERROR: wave 1 overlaps a wave another clone claims \(1 colliding pair of agents\); nothing was published\n/);
    assert.match(run.stderr, /both claim src\/caf\u00e9\.test\.ts\n/);
  });

  it('plan show reports an overlap by case alone with a case-insensitive clone\'s claim, as publish refuses it', () => {
    a.git('config', 'core.ignorecase', 'true');
    planWave(a, 1, [{ id: 'alice', files: ['src/A/'] }], 'sess-a');
    assert.equal(cli(a, ['publish'], { session: 'sess-a' }).status, 0);
    planWave(b, 1, [{ id: 'bob', files: ['src/a/x.ts'] }], 'sess-b');
    const refused = cli(b, ['publish'], { session: 'sess-b' });
    assert.equal(refused.status, 1, refused.stderr);
    assert.match(refused.stderr, /both claim src\/a\/x\.ts /);
    const shown = cli(b, ['plan', 'show'], { session: 'sess-b' });
    assert.match(shown.stdout, /CLAIMED wave 1 agent "bob" src\/a\/x\.ts: src\/a\/x\.ts is wave 1 claimed by clone .+ \(agent "alice", src\/A\/\)/);
    const json = JSON.parse(cli(b, ['plan', 'show', '--json'], { session: 'sess-b' }).stdout);
    assert.equal(json.claims.claims[0].ignoreCase, true);
    assert.ok(json.claims.conflicts.some((conflict: { witness: string }) => conflict.witness === 'src/a/x.ts'), JSON.stringify(json.claims.conflicts));
  });

  it('sync and publish refuse a plan ref whose tree nests deeper than any plan, naming the bound, and write nothing', () => {
    planWave(a, 1, [{ id: 'alice', files: ['src/a/'] }], 'sess-a');
    assert.equal(cli(a, ['publish'], { session: 'sess-a' }).status, 0);
    const tip = gitIn(remote.bare, 'rev-parse', 'refs/wave-scope/plan').trim();
    // What anyone who may push the ref can put there: tiny trees one inside the other.
    const nested = writeNestedTreeCommit(remote.bare, { depth: MAX_PLAN_TREE_DEPTH, base: { tree: gitIn(remote.bare, 'rev-parse', `${tip}^{tree}`).trim(), parent: tip } });
    gitIn(remote.bare, 'update-ref', 'refs/wave-scope/plan', nested, tip);
    const refusal = `ERROR: git failed: the plan commit ${nested} nests directories more than ${MAX_PLAN_TREE_DEPTH} deep, deeper than any plan Wave Scope writes: this is not a plan it reads\n`;
    const synced = cli(b, ['sync'], { session: 'sess-b' });
    assert.equal(synced.status, 2, synced.stderr);
    assert.equal(synced.stderr, refusal);
    assert.equal(existsSync(join(b.root, '.claude')), false, 'nothing was synced');
    planWave(b, 1, [{ id: 'bob', files: ['src/b/'] }], 'sess-b');
    const published = cli(b, ['publish'], { session: 'sess-b' });
    assert.equal(published.status, 2, published.stderr);
    assert.equal(published.stderr, refusal);
    assert.equal(gitIn(remote.bare, 'rev-parse', 'refs/wave-scope/plan').trim(), nested, 'nothing was pushed');
  });

  it('sync, verify and plan show all read a file whose mode is written zero-padded (0100644) as the plain file git reads', () => {
    planWave(a, 1, [{ id: 'alice', files: ['src/a/'] }, { id: 'bob', files: ['src/b/'] }], 'sess-a');
    assert.equal(cli(a, ['publish'], { session: 'sess-a' }).status, 0);
    const tip = gitIn(remote.bare, 'rev-parse', 'refs/wave-scope/plan').trim();
    // The same commit but for the mode of alice's file, as a hand-made tree can spell it: git reads it as
    // 100644 (fsck only warns, zeroPaddedFilemode), so every reader must.
    const crafted = rewriteTreeEntry(remote.bare, `${tip}^{tree}`, ['clones', readCloneId(a), 'waves', '1', 'filescopes', 'wave-1', 'alice.json'], (entry) => ({ ...entry, mode: '0100644' }));
    assert.match(gitIn(remote.bare, 'ls-tree', '-r', crafted), /^100644 blob [0-9a-f]{40}\tclones\/c-[0-9a-f]{12}\/waves\/1\/filescopes\/wave-1\/alice\.json$/m);
    const commit = gitIn(remote.bare, 'commit-tree', crafted, '-p', tip, '-m', 'zero-padded mode').trim();
    gitIn(remote.bare, 'update-ref', 'refs/wave-scope/plan', commit, tip);

    const synced = cli(b, ['sync']);
    assert.equal(synced.status, 0, synced.stderr);
    assert.match(synced.stdout, /^synced wave 1 of clone .*: 2 agents/);
    assert.equal(readFileSync(join(b.root, '.claude/filescopes/wave-1/alice.json'), 'utf8'), '[\n  "src/a/"\n]\n');
    const verified = cli(b, ['verify', '--base', 'HEAD', '--head', 'HEAD', '--wave', '1', '--agent', 'alice', '--clone', readCloneId(a)]);
    assert.equal(verified.status, 0, verified.stderr);
    const shown = JSON.parse(cli(b, ['plan', 'show', '--json']).stdout);
    assert.deepEqual(shown.claims.claims[0].agents, [{ id: 'alice', files: ['src/a/'] }, { id: 'bob', files: ['src/b/'] }]);
  });

  it('scope entries that are not well-formed Unicode (a lone surrogate) are refused by plan write and by sync reading a published plan', () => {
    // src/\uD800/ is written to disk as src/\uFFFD/: the proof would find the two agents disjoint.
    const records = [{ id: 'alice', files: ['src/\uFFFD/'] }, { id: 'bob', files: ['src/\uD800/'] }];
    const written = cli(a, ['plan', 'write', '--wave', '1', '--role', 'implementation'], { input: records, session: 'sess-a' });
    assert.equal(written.status, 1, written.stderr);
    assert.match(written.stderr, /record "bob", entry "src\/\\ud800\/": scope entry "src\/\\ud800\/" contains a lone surrogate \(U\+D800\)/);
    assert.equal(existsSync(join(a.root, '.claude/wave-scope.json')), false);
    // The same plan on the plan ref (as anyone who may push it can put it there): published with a stand-in,
    // every file of the wave then rewritten with the lone surrogate in its place.
    planWave(a, 1, [{ id: 'alice', files: ['src/\uFFFD/'] }, { id: 'bob', files: ['src/zz/'] }], 'sess-a');
    assert.equal(cli(a, ['publish'], { session: 'sess-a' }).status, 0);
    const tip = gitIn(remote.bare, 'rev-parse', 'refs/wave-scope/plan').trim();
    let crafted = `${tip}^{tree}`;
    const wave = ['clones', readCloneId(a), 'waves', '1'];
    for (const path of [[...wave, 'wave-scope.json'], [...wave, 'filescopes', 'wave-1.scopes.json'], [...wave, 'filescopes', 'wave-1', 'bob.json']]) {
      crafted = rewriteTreeEntry(remote.bare, crafted, path, (entry) => {
        const text = gitIn(remote.bare, 'cat-file', 'blob', entry.oid);
        assert.ok(text.includes('src/zz/'), path.join('/'));
        const oid = execFileSync('git', ['hash-object', '-w', '--stdin'], { cwd: remote.bare, input: text.replaceAll('src/zz/', 'src/\\ud800/'), encoding: 'utf8' }).trim();
        return { ...entry, oid };
      });
    }
    gitIn(remote.bare, 'update-ref', 'refs/wave-scope/plan', gitIn(remote.bare, 'commit-tree', crafted, '-p', tip, '-m', 'lone surrogate').trim(), tip);
    const synced = cli(b, ['sync']);
    assert.equal(synced.status, 1, synced.stderr);
    assert.match(synced.stderr, /entry "src\/\\ud800\/": scope entry "src\/\\ud800\/" contains a lone surrogate \(U\+D800\)/);
    assert.equal(existsSync(join(b.root, '.claude/wave-scope.json')), false, 'nothing was synced');
  });

  it('a publish that stops on a local problem does not wait for the remote\'s plan, which it fetches meanwhile', () => {
    // A transport that never answers (it ends when git does): were the fetch waited for, the publish would not end before the test's timeout.
    a.git('remote', 'set-url', 'origin', 'ssh://wave-scope.invalid/never.git');
    const run = cli(a, ['publish'], { env: { GIT_SSH_COMMAND: 'cat >/dev/null #' } });
    assert.equal(run.status, 1);
    assert.match(run.stderr, /no plan to publish: \.claude\/wave-scope\.json does not exist/);
  });

  it('refuses bad arguments, a foreign plan and a hand-edited manifest; fails on an unreachable remote', () => {
    const cases: Array<[string[], RegExp]> = [
      [['publish', '--ttl', 'forever'], /--ttl must be a duration/],
      [['publish', '--remote', 'https://x/y.git'], /--remote must be the name of a configured remote/],
      [['sync', '--clone', 'Not An Id'], /--clone must be a clone id/],
      [['release'], /--wave is required/],
    ];
    for (const [args, message] of cases) {
      const run = cli(a, args);
      assert.equal(run.status, 1, args.join(' '));
      assert.match(run.stderr, message);
    }
    // A name no remote has is never taken for a path: a repository named like it beside the checkout is not reached.
    gitIn(a.root, 'init', '--quiet', '--bare', 'upstream');
    for (const args of [['publish', '--remote', 'upstream'], ['sync', '--remote', 'upstream'], ['release', '--wave', '1', '--remote', 'upstream'], ['verify', '--remote', 'upstream', '--base', 'HEAD', '--head', 'HEAD', '--wave', '1', '--agent', 'alice']]) {
      const run = cli(a, args);
      assert.equal(run.status, 1, `${args.join(' ')}: ${run.stderr}`);
      assert.match(run.stderr, /^ERROR: no remote named "upstream" is configured in this checkout/);
    }
    assert.equal(gitIn(join(a.root, 'upstream'), 'for-each-ref').trim(), '', 'nothing was pushed to it');
    rmSync(join(a.root, 'upstream'), { recursive: true });
    assert.match(cli(a, ['publish']).stderr, /no plan to publish: \.claude\/wave-scope\.json does not exist/);
    planWave(a, 1, [{ id: 'alice', files: ['src/a/'] }], 'sess-a');
    const foreign = cli(a, ['publish'], { session: 'someone-else' });
    assert.equal(foreign.status, 1);
    assert.match(foreign.stderr, /no plan to publish|belongs to another session/);
    const manifestPath = join(a.root, '.claude/wave-scope.json');
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
    writeFileSync(manifestPath, JSON.stringify({ ...manifest, allowedPaths: [...manifest.allowedPaths, 'docs/'] }));
    const edited = cli(a, ['publish'], { session: 'sess-a' });
    assert.equal(edited.status, 1);
    assert.match(edited.stderr, /grants other paths than its declaration computes to/);
    planWave(a, 1, [{ id: 'alice', files: ['src/a/'] }], 'sess-a');
    a.git('remote', 'set-url', 'origin', join(remote.dir, 'nowhere.git'));
    const unreachable = cli(a, ['publish'], { session: 'sess-a' });
    assert.equal(unreachable.status, 2);
    assert.match(unreachable.stderr, /^ERROR: git failed: git fetch origin refs\/wave-scope\/plan failed/);
  });

  it('publish reads the plan as the hooks do: plan files an agent gave second names and widened consistently are refused, never published', () => {
    planWave(a, 1, [{ id: 'alice', files: ['src/a/'] }, { id: 'bob', files: ['src/b/'] }], 'sess-a');
    // The widened plan, made by the chain itself into a scratch directory, so every file is what the
    // chain would compute (the manifest's grants included).
    const widened = cli(a, ['plan', 'write', '--wave', '1', '--role', 'implementation', '--state-dir', '.scratch'], { input: [{ id: 'alice', files: ['src/a/', 'docs/'] }, { id: 'bob', files: ['src/b/'] }], session: 'sess-a' });
    assert.equal(widened.status, 0, widened.stderr);
    for (const [file, secondName] of [['wave-scope.json', 'm.json'], ['filescopes/wave-1/alice.json', 'p.json'], ['filescopes/wave-1.scopes.json', 'g.json']] as const) {
      linkSync(join(a.root, '.claude', file), join(a.root, 'src/a', secondName));
      writeFileSync(join(a.root, 'src/a', secondName), readFileSync(join(a.root, '.scratch', file)));
    }
    const run = cli(a, ['publish'], { session: 'sess-a' });
    assert.equal(run.status, 1, run.stderr);
    assert.match(run.stderr, /has 2 links/);
    assert.equal(gitIn(remote.bare, 'for-each-ref', 'refs/wave-scope').trim(), '', 'nothing was published');
  });

  it('a --remote no remote has is not fetched from, even by the fetch publish and sync start before they look at the remotes', () => {
    planWave(a, 1, [{ id: 'alice', files: ['src/a/'] }], 'sess-a');
    assert.equal(cli(a, ['publish'], { session: 'sess-a' }).status, 0);
    // A repository at the checkout's top level named like the remote, holding a plan ref: what git reaches
    // when it takes the name for a path.
    const lookalike = join(b.root, 'upstream');
    gitIn(b.root, 'init', '--quiet', '--bare', 'upstream');
    gitIn(lookalike, 'fetch', '--quiet', remote.bare, '+refs/wave-scope/plan:refs/wave-scope/plan');
    const trace = join(remote.dir, 'git-trace.log');
    for (const args of [['sync', '--remote', 'upstream'], ['publish', '--remote', 'upstream']]) {
      const run = cli(b, args, { env: { GIT_TRACE: trace } });
      assert.equal(run.status, 1, `${args.join(' ')}: ${run.stderr}`);
      assert.match(run.stderr, /^ERROR: no remote named "upstream" is configured in this checkout/);
    }
    // Every git process of both commands logged what it ran, upload-pack included: none ran it on the lookalike.
    const uploads = readFileSync(trace, 'utf8').split('\n').filter((line) => /run_command: .*upload-pack/.test(line));
    assert.deepEqual(uploads.filter((line) => line.includes('upstream')), [], 'git never took "upstream" for a path');
    assert.equal(b.git('for-each-ref', 'refs/wave-scope/remotes/upstream').trim(), '', 'nothing was fetched from it');
  });
});

/**
 * Runs `wave-scope sync ...args` in `clone` as a user would, with `preload` (CommonJS source) loaded first:
 * it wraps node:fs's functions, which the bundle calls through the module, to act at a given step.
 */
function syncWithPreload(clone: Clone, args: string[], preload: string): CliRun & { signal: NodeJS.Signals | null } {
  const path = join(clone.root, '..', `preload-${Date.now().toString(36)}${Math.random().toString(36).slice(2)}.cjs`);
  writeFileSync(path, `const fs = require('node:fs');\nconst { basename } = require('node:path');\n${preload}\n`);
  try {
    const run = spawnSync(process.execPath, ['--require', path, builtCliPath, 'sync', ...args], { cwd: clone.root, env: cleanEnv(), encoding: 'utf8' });
    return { status: run.status, signal: run.signal, stdout: run.stdout, stderr: run.stderr };
  } finally {
    rmSync(path);
  }
}

/** `wave-scope sync ...args`, killed (SIGKILL, as by the OOM killer) right after it removes a file named `name`. */
function syncKilledAfterRemoving(clone: Clone, name: string, args: string[]): CliRun & { signal: NodeJS.Signals | null } {
  return syncWithPreload(
    clone,
    args,
    `const unlink = fs.unlinkSync;
fs.unlinkSync = function (path) { unlink.apply(this, arguments); if (basename(String(path)) === ${JSON.stringify(name)}) process.kill(process.pid, 'SIGKILL'); };`,
  );
}

/**
 * `wave-scope sync ...args`, with `path` written as `text` right after the sync first writes its sync state
 * (the in-progress marker, before its first write into the state directory): another command's write.
 */
function syncWithWriteAfterMarking(clone: Clone, args: string[], path: string, text: string): CliRun {
  return syncWithPreload(
    clone,
    args,
    `const rename = fs.renameSync;
let done = false;
fs.renameSync = function (from, to) {
  rename.apply(this, arguments);
  if (!done && basename(String(to)) === 'sync-state.json') { done = true; fs.writeFileSync(${JSON.stringify(path)}, ${JSON.stringify(text)}); }
};`,
  );
}

/** Temporary files anywhere below `dir` (a write staged or begun and never finished), those starting with `prefix` when given. */
function temporaryFilesIn(dir: string, prefix = ''): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.tmp') && name.startsWith(prefix));
}

/**
 * Holds `clone`'s fetches (its `remote.origin.uploadpack`, run by git in the remote's place) until the shell
 * `condition` holds, looked at every 50 ms for at most 20 s, then runs `then` (`exec git-upload-pack "$@"`
 * to serve the fetch).
 */
function holdFetchUntil(clone: Clone, remote: SharedRemote, condition: string, then: string): void {
  const script = join(remote.dir, `upload-pack-${Date.now().toString(36)}${Math.random().toString(36).slice(2)}.sh`);
  writeFileSync(script, ['#!/bin/sh', 'i=0', `until ${condition} || [ $i -ge 400 ]; do sleep 0.05; i=$((i+1)); done`, then, ''].join('\n'));
  chmodSync(script, 0o755);
  clone.git('config', 'remote.origin.uploadpack', script);
}

/** One entry of a tree object as git stores it: the mode as written, the name, the id. */
interface RawTreeEntry {
  mode: string;
  name: string;
  oid: string;
}

/**
 * Writes, in `repository`, the tree `tree` (anything naming one) with the entry at `path` (its segments) replaced
 * by `change`'s, and every tree above it rewritten to name the new one; its id. Through `hash-object
 * --literally`, which writes a tree exactly as given (mktree and write-tree would canonicalise its modes).
 */
function rewriteTreeEntry(repository: string, tree: string, path: readonly string[], change: (entry: RawTreeEntry) => RawTreeEntry): string {
  const [name, ...rest] = path;
  const entries = gitIn(repository, 'ls-tree', '-z', tree)
    .split('\0')
    .filter((record) => record !== '')
    .map((record): RawTreeEntry => {
      const tab = record.indexOf('\t');
      const [mode, , oid] = record.slice(0, tab).split(' ') as [string, string, string];
      return { mode: mode === '040000' ? '40000' : mode, name: record.slice(tab + 1), oid };
    });
  const changed = entries.map((entry) => (entry.name !== name ? entry : rest.length === 0 ? change(entry) : { ...entry, oid: rewriteTreeEntry(repository, entry.oid, rest, change) }));
  const body = Buffer.concat(changed.flatMap((entry) => [Buffer.from(`${entry.mode} ${entry.name}\0`, 'utf8'), Buffer.from(entry.oid, 'hex')]));
  return execFileSync('git', ['hash-object', '-w', '-t', 'tree', '--literally', '--stdin'], { cwd: repository, input: body, encoding: 'utf8' }).trim();
}

/** Waits, without blocking the event loop, until `condition` holds; fails after 10 s naming `what`. *//** Waits, without blocking the event loop, until `condition` holds; fails after 10 s naming `what`. */
async function waitFor(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function readCloneId(clone: Clone): string {
  return JSON.parse(readFileSync(join(clone.root, '.git/wave-scope/clone.json'), 'utf8')).id;
}
