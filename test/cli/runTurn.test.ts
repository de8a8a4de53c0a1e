import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtCliPath, cleanEnv, runBuiltCli } from '../support/builtCli';
import type { TempGitRepo } from '../support/tempGitRepo';
import { backstopRepo, committedPaths, head, readFile, runTurn, statusLines, turnRecord, writeScope } from './backstopTurns';
import { createTempGitRepo, withTempDirectory } from '../support/tempGitRepo';

const START = {
  'README.md': 'readme\n',
  'src/app.ts': 'app\n',
  'src/old.ts': 'old\n',
  'docs/guide.md': 'guide\n',
};

/**
 * A script a turn can run, `node <it> <index> <path> <file>`: overwrites the stat data of <path>'s entry in
 * the index file (version 2: ctime, mtime, dev, ino at its start; size at 36) with <file>'s, in place,
 * keeping everything else, the file's last bytes (git's checksum) included.
 */
function writeIndexPatcher(): string {
  const patcher = join(realpathSync(tmpdir()), `wave-scope-index-patch-${process.pid}.cjs`);
  writeFileSync(
    patcher,
    `const fs = require('fs');
const [index, name, file] = process.argv.slice(2);
const bytes = fs.readFileSync(index);
const st = fs.statSync(file, { bigint: true });
const at = bytes.indexOf(Buffer.from(name + '\\0')) - 62;
const put = (offset, value) => bytes.writeUInt32BE(Number(value & 0xffffffffn), at + offset);
put(0, st.ctimeNs / 1000000000n); put(4, st.ctimeNs % 1000000000n); put(8, st.mtimeNs / 1000000000n); put(12, st.mtimeNs % 1000000000n);
put(16, st.dev); put(20, st.ino); put(36, st.size);
const fd = fs.openSync(index, 'r+'); fs.writeSync(fd, bytes, 0, bytes.length, 0); fs.closeSync(fd);`,
  );
  return patcher;
}

describe('wave-scope run: the turn backstop (built dist/cli.js, real git repositories)', () => {
  let repo: TempGitRepo;
  afterEach(() => repo.remove());

  it('passes in-scope create, modify and delete and commits exactly those three paths', () => {
    repo = backstopRepo(START, { alice: ['src/'] });
    const before = head(repo);
    const run = runTurn(repo, 'echo new > src/new.ts; echo more >> src/app.ts; rm src/old.ts', { flags: ['--commit'] });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stderr, /turn of agent "alice" \(wave 1\): 3 changes, all inside its scope/);
    assert.notEqual(head(repo), before);
    assert.equal(repo.git('rev-parse', 'HEAD~1').trim(), before);
    assert.deepEqual(committedPaths(repo), ['A src/new.ts', 'D src/old.ts', 'M src/app.ts']);
    const message = repo.git('log', '-1', '--format=%B');
    assert.match(message, /^wave 1, agent alice: 3 files/);
    assert.match(message, /Wave-Scope-Wave: 1\nWave-Scope-Agent: alice/);
    assert.deepEqual(statusLines(repo), [], 'nothing of the turn is left uncommitted');
    const record = turnRecord(repo);
    assert.equal(record.verdict, 'in-scope');
    assert.deepEqual((record.committed as { paths: string[] }).paths.sort(), ['src/app.ts', 'src/new.ts', 'src/old.ts']);
  });

  const outOfScope: Array<{ kind: string; script: string; path: string }> = [
    { kind: 'created', script: 'echo evil > evil.py', path: 'evil.py' },
    { kind: 'modified', script: 'echo changed >> README.md', path: 'README.md' },
    { kind: 'deleted', script: 'rm docs/guide.md', path: 'docs/guide.md' },
    { kind: 'modified', script: 'chmod +x README.md', path: 'README.md' },
    { kind: 'created', script: 'ln -s src/app.ts link.ts', path: 'link.ts' },
    // git's status does not look at a file flagged assume-unchanged or skip-worktree: the flag must not hide it.
    { kind: 'modified', script: 'git update-index --assume-unchanged README.md; echo changed >> README.md', path: 'README.md' },
    { kind: 'deleted', script: 'git update-index --skip-worktree docs/guide.md; rm docs/guide.md', path: 'docs/guide.md' },
  ];
  for (const { kind, script, path } of outOfScope) {
    it(`fails with exit 3 on an out-of-scope ${kind} path (${script}), commits nothing and leaves the work tree as it is`, () => {
      repo = backstopRepo(START, { alice: ['src/'] });
      const before = head(repo);
      const run = runTurn(repo, `echo ok >> src/app.ts; ${script}`, { flags: ['--commit'] });
      assert.equal(run.status, 3, run.stderr);
      assert.match(run.stderr, /ERROR: turn of agent "alice" \(wave 1\) changed 1 path outside its scope:/);
      assert.match(run.stderr, new RegExp(`\\n  ${kind}\\s+${path.replace(/\./g, '\\.')}  \\(outside the scope\\)`));
      assert.doesNotMatch(run.stderr, /src\/app\.ts {2}\(/, 'the in-scope change is not blamed');
      assert.match(run.stderr, /allowed \(agent "alice", .*alice\.json\): src\//);
      assert.match(run.stderr, /nothing of it is committed/);
      assert.equal(head(repo), before, 'nothing committed');
      assert.equal(readFile(repo, 'src/app.ts'), 'app\nok\n', 'the in-scope change stays in the work tree');
      if (kind !== 'deleted') assert.ok(existsSync(join(repo.root, path)), 'the out-of-scope file is left where it is');
      else assert.ok(!existsSync(join(repo.root, path)), 'nothing is restored');
      const record = turnRecord(repo);
      assert.equal(record.verdict, 'out-of-scope');
      const recorded = (record.changes as Array<{ path: string; kind: string; violation?: string }>).find((change) => change.path === path);
      assert.deepEqual({ kind: recorded?.kind, violation: recorded?.violation }, { kind, violation: 'outside-scope' });
    });
  }

  it('neither blames, commits nor touches dirt that was there before the turn; dirt changed again is the turn\'s', () => {
    repo = backstopRepo(START, { alice: ['src/'] });
    repo.write({ 'README.md': 'readme, edited by a person\n', 'notes.txt': 'untracked notes\n', 'src/app.ts': 'app, half done\n' });
    repo.git('add', 'README.md');
    const before = head(repo);
    const passing = runTurn(repo, 'echo agent >> src/app.ts', { flags: ['--commit'] });
    assert.equal(passing.status, 0, passing.stderr);
    assert.match(passing.stderr, /1 change, all inside its scope/);
    assert.deepEqual(committedPaths(repo), ['M src/app.ts']);
    assert.equal(repo.git('rev-parse', 'HEAD~1').trim(), before);
    assert.equal(readFile(repo, 'README.md'), 'readme, edited by a person\n');
    assert.equal(readFile(repo, 'notes.txt'), 'untracked notes\n');
    assert.deepEqual(statusLines(repo), ['?? notes.txt', 'M  README.md'], 'the staged and the untracked dirt stay exactly as they were');

    const failing = runTurn(repo, 'echo again >> notes.txt', { flags: ['--commit'] });
    assert.equal(failing.status, 3, failing.stderr);
    assert.match(failing.stderr, /\n {2}modified notes\.txt {2}\(outside the scope\)/);
    assert.doesNotMatch(failing.stderr, /README\.md {2}\(/);
  });

  it('catches an out-of-scope file in a wholly untracked directory, and never sweeps the leftover into a later commit', () => {
    repo = backstopRepo({ 'README.md': 'readme\n' }, { alice: ['src/app.py'] });
    const failed = runTurn(repo, 'mkdir src && echo app > src/app.py && echo evil > src/evil.py', { flags: ['--commit'] });
    assert.equal(failed.status, 3, failed.stderr);
    assert.match(failed.stderr, /\n {2}created {2}src\/evil\.py {2}\(outside the scope\)/);
    assert.doesNotMatch(failed.stderr, /src\/app\.py {2}\(/);
    const before = head(repo);

    const later = runTurn(repo, 'echo better > src/app.py', { flags: ['--commit'] });
    assert.equal(later.status, 0, later.stderr);
    assert.deepEqual(committedPaths(repo), ['A src/app.py'], 'only the file the later turn changed (git add -- src/ would have taken src/evil.py too)');
    assert.equal(repo.git('rev-parse', 'HEAD~1').trim(), before);
    assert.deepEqual(statusLines(repo), ['?? src/evil.py'], 'the failed turn\'s leftover is still there, untracked');
  });

  it('puts HEAD back with a soft reset when a failed turn committed, reports the commit by hash and leaves index and work tree intact', () => {
    repo = backstopRepo(START, { alice: ['src/'] });
    const before = head(repo);
    const run = runTurn(repo, 'echo leak >> README.md && echo ok >> src/app.ts && git add -A && git commit -q -m "agent work"');
    assert.equal(run.status, 3, run.stderr);
    assert.equal(head(repo), before, 'HEAD is where it was before the turn');
    assert.equal(repo.git('symbolic-ref', 'HEAD').trim(), 'refs/heads/main');
    const reflog = repo.git('reflog', '-2', '--format=%H %gs').trim().split('\n');
    const turnCommit = (reflog[1] ?? '').split(' ')[0] as string;
    assert.match(run.stderr, new RegExp(`commits of the turn that touch paths outside the scope \\(or the plan\\):\\n {2}${turnCommit} "agent work": README\\.md`));
    assert.match(run.stderr, /HEAD had moved during the turn .*a soft reset/);
    assert.equal(readFile(repo, 'README.md'), 'readme\nleak\n', 'the work tree is as the turn left it');
    assert.deepEqual(statusLines(repo), ['M  README.md', 'M  src/app.ts'], 'the index still holds what the turn committed');
    assert.equal(repo.git('cat-file', '-t', turnCommit).trim(), 'commit', 'the turn\'s commit still exists');
    assert.equal(turnRecord(repo).headRestored, true);
  });

  it('keeps the commits of a turn that stayed inside its scope', () => {
    repo = backstopRepo(START, { alice: ['src/'] });
    const run = runTurn(repo, 'echo ok >> src/app.ts && git commit -q -am "agent work" && echo new > src/new.ts', { flags: ['--commit'] });
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(committedPaths(repo), ['A src/new.ts']);
    assert.equal(repo.git('log', '-1', '--format=%s', 'HEAD~1').trim(), 'agent work');
  });

  // Found by red-team review, 2026-12-06: each of these passed, and the last committed README.md.
  it('fails a turn that moves HEAD back to an earlier commit, and puts HEAD back where it was', () => {
    repo = backstopRepo(START, { alice: ['src/'], bob: ['docs/'] });
    repo.git('commit', '-q', '--allow-empty', '-m', 'bob: earlier work');
    const before = head(repo);
    const run = runTurn(repo, 'git reset -q --soft HEAD~1; echo more >> src/app.ts', { flags: ['--commit'] });
    assert.equal(run.status, 3, run.stderr);
    assert.match(run.stderr, /ERROR: the turn moved HEAD from [0-9a-f]{12} to [0-9a-f]{12}, which does not descend from it: commits were dropped/);
    assert.equal(head(repo), before, "bob's commit is on the branch again");
    assert.equal(repo.git('log', '-1', '--format=%s').trim(), 'bob: earlier work');
  });

  it('fails a turn whose commit changes the plan with plumbing, however the work tree looks', () => {
    repo = backstopRepo(START, { alice: ['src/'] });
    const before = head(repo);
    const widened = 'blob=$(printf \'["**"]\\n\' | git hash-object -w --stdin); git update-index --cacheinfo "100644,$blob,.claude/filescopes/wave-1/alice.json"; git commit -q --no-verify -m "routine cleanup"; echo ok >> src/app.ts';
    const run = runTurn(repo, widened, { flags: ['--commit'] });
    assert.equal(run.status, 3, run.stderr);
    assert.match(run.stderr, /commits of the turn that touch paths outside the scope \(or the plan\):\n {2}[0-9a-f]+ "routine cleanup": \.claude\/filescopes\/wave-1\/alice\.json/);
    assert.equal(head(repo), before, 'HEAD is put back');
  });

  it('takes back its own commit when a hook git runs while committing stages more, and says so', () => {
    repo = backstopRepo(START, { alice: ['src/'] });
    const before = head(repo);
    const hooks = mkdtempSync(join(tmpdir(), 'ws-hooks-'));
    try {
      // A hook a turn could have configured where the backstop does not look (here the repository's own config).
      writeFileSync(join(hooks, 'pre-commit'), '#!/bin/sh\necho evil >> README.md\ngit add README.md\n', { mode: 0o755 });
      repo.git('config', 'core.hooksPath', hooks);
      const run = runTurn(repo, 'echo more >> src/app.ts', { flags: ['--commit'] });
      assert.equal(run.status, 4, run.stderr);
      assert.match(run.stderr, /the commit held more than the turn's in-scope changes \(also README\.md: .*\), so it was taken back: HEAD is at [0-9a-f]{12} again/);
      assert.equal(head(repo), before, 'no commit of the turn is left on the branch');
      assert.deepEqual(statusLines(repo), [' M README.md', 'M  src/app.ts'], 'nothing is lost: the turn\'s change staged as the commit left it, the hook\'s write in the work tree');
    } finally {
      rmSync(hooks, { recursive: true, force: true });
    }
  });

  // Found by red-team review of the fixes, 2026-12-06.
  it('fails a turn that leaves HEAD on another branch (having rewound the one it began on), and puts HEAD back', () => {
    repo = backstopRepo(START, { alice: ['src/'] });
    repo.git('commit', '-q', '--allow-empty', '-m', 'bob: earlier work');
    const before = head(repo);
    const run = runTurn(repo, 'git checkout -q -b m\u0430in && git branch -f main HEAD~1 && echo more >> src/app.ts', { flags: ['--commit'] });
    assert.equal(run.status, 3, run.stderr);
    assert.match(run.stderr, /the turn left HEAD on refs\/heads\/m\u0430in instead of refs\/heads\/main/);
    assert.equal(repo.git('symbolic-ref', 'HEAD').trim(), 'refs/heads/main');
    assert.equal(head(repo), before, "bob's commit is on main again");
  });

  it('fails a turn of more than 500 commits, which cannot all be checked', () => {
    repo = backstopRepo(START, { alice: ['src/'] });
    const many = 'c=$(git rev-parse HEAD); t=$(git rev-parse "HEAD^{tree}"); for i in $(seq 501); do c=$(git commit-tree "$t" -p "$c" -m empty); done; git update-ref HEAD "$c"';
    const run = runTurn(repo, many);
    assert.equal(run.status, 3, run.stderr);
    assert.match(run.stderr, /the turn made more than 500 commits: only the newest 500 can be checked, so the turn fails/);
  });

  it('takes back its own commit when a post-commit hook puts a merge bringing more in its place', () => {
    repo = backstopRepo(START, { alice: ['src/'] });
    const before = head(repo);
    const hooks = mkdtempSync(join(tmpdir(), 'ws-hooks-'));
    try {
      const hook = '#!/bin/sh\nt=$(git rev-parse "HEAD^{tree}")\nside=$(echo evil | git hash-object -w --stdin)\nb=$(git commit-tree "$t" -p HEAD~1 -m side)\nm=$(git commit-tree "$t" -p HEAD -p "$b" -m merge)\ngit update-index --add --cacheinfo "100644,$side,README.md"\nm=$(git commit-tree "$(git write-tree)" -p HEAD -p "$b" -m merge)\ngit update-ref HEAD "$m"\n';
      writeFileSync(join(hooks, 'post-commit'), hook, { mode: 0o755 });
      repo.git('config', 'core.hooksPath', hooks);
      const run = runTurn(repo, 'echo more >> src/app.ts', { flags: ['--commit'] });
      assert.equal(run.status, 4, run.stderr);
      assert.match(run.stderr, /the commit held more than the turn's in-scope changes \(also README\.md: .*\), so it was taken back/);
      assert.equal(head(repo), before, 'no commit of the turn, nor the merge, is left on the branch');
    } finally {
      rmSync(hooks, { recursive: true, force: true });
    }
  });

  it('runs no core.fsmonitor program a repository config names, in any of its git calls (the commit\'s included)', () => {
    repo = backstopRepo(START, { alice: ['src/'] });
    const marker = join(repo.root, '.orchestrator', 'fsmonitor-ran');
    repo.git('config', 'core.fsmonitor', `ps -o args= -p $PPID >> '${marker}'; false`);
    const run = runTurn(repo, 'echo more >> src/app.ts', { flags: ['--commit'] });
    assert.equal(run.status, 0, run.stderr);
    assert.ok(!existsSync(marker), `the program ran, for: ${existsSync(marker) ? readFileSync(marker, 'utf8') : ''}`);
    // (git runs it for this test's own calls too.)
    repo.git('config', '--unset', 'core.fsmonitor');
    assert.deepEqual(committedPaths(repo), ['M src/app.ts']);
  });

  it('is a no-op that says so outside a git repository', () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-off-repo-')));
    repo = { remove: () => rmSync(dir, { recursive: true, force: true }) } as TempGitRepo;
    const run = runBuiltCli(['run', '--wave', '1', '--agent', 'alice', '--commit', '--', 'sh', '-c', 'echo x > file.txt; echo "wave $WAVE_SCOPE_WAVE agent $WAVE_SCOPE_AGENT"'], {
      cwd: dir,
      env: cleanEnv(),
    });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stderr, /WARNING: .* is not inside a git repository: the backstop is a no-op for this turn/);
    assert.equal(run.stdout, 'wave 1 agent alice\n', 'the command ran, with its stdout passed through');
    assert.ok(existsSync(join(dir, 'file.txt')));
    assert.ok(!existsSync(join(dir, '.orchestrator')), 'nothing is recorded');
  });

  const closed: Array<{ name: string; scope: unknown; why: RegExp }> = [
    { name: 'an empty scope', scope: [], why: /scope .*alice\.json is empty: it may change nothing/ },
    { name: 'no scope file', scope: undefined, why: /has no usable scope file \(.*alice\.json does not exist\)/ },
    { name: 'a scope file that is not an array of strings', scope: '{"files": ["src/"]}', why: /is not a JSON array of path strings/ },
  ];
  for (const { name, scope, why } of closed) {
    it(`fails closed with ${name}: any change fails the turn`, () => {
      repo = backstopRepo(START);
      if (scope !== undefined) writeScope(repo, 'alice', scope);
      const run = runTurn(repo, 'echo x >> src/app.ts', { flags: ['--commit'] });
      assert.equal(run.status, 3, run.stderr);
      assert.match(run.stderr, why);
      assert.match(run.stderr, /\n {2}modified src\/app\.ts {2}\((outside the scope|the agent has no usable scope file)\)/);
      const quiet = runTurn(repo, 'true');
      assert.equal(quiet.status, 0, `a turn that changes nothing passes: ${quiet.stderr}`);
    });
  }

  it('sees a same-size rewrite with its mtime put back, even when the turn tells git (in its global config) to trust mtimes alone', () => {
    repo = backstopRepo(START, { alice: ['src/'] });
    // README.md an hour old, and the index's record of it refreshed: not "racily clean", so git trusts what
    // its settings tell it to compare, as it would for any file not touched in the last second.
    const hourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(join(repo.root, 'README.md'), hourAgo, hourAgo);
    repo.git('update-index', '--refresh');
    // git compares ctime to the second: the rewrite must land in a later second than the index's record,
    // as it does unless it follows the last index write within the same second.
    const recorded = Math.floor(statSync(join(repo.root, 'README.md')).ctimeMs / 1000);
    while (Math.floor(Date.now() / 1000) <= recorded) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 25);
    withTempDirectory('wave-scope-home-', (home) => {
      const script = [
        'm=$(stat -c %Y README.md)',
        'git config --global core.checkStat minimal',
        'git config --global core.trustctime false',
        "printf 'EVIL!!\\n' > README.md",
        'touch -d @$m README.md',
      ].join('; ');
      const run = runTurn(repo, script, { flags: ['--commit'], env: { HOME: home, XDG_CONFIG_HOME: join(home, '.config') } });
      assert.equal(run.status, 3, run.stderr);
      assert.match(run.stderr, /README\.md/);
    });
  });

  it('fails a new file whose name is not UTF-8, even inside its scope: which file it is cannot be told', () => {
    repo = backstopRepo(START, { alice: ['src/'] });
    const before = head(repo);
    const run = runTurn(repo, `printf x > "src/notes$(printf '\\377').md"`, { flags: ['--commit'] });
    assert.equal(run.status, 3, run.stderr);
    assert.match(run.stderr, /src\/notes\uFFFD\.md/);
    assert.match(run.stderr, /created  src\/notes\uFFFD\.md  \(a path that cannot be checked\)/);
    assert.equal(head(repo), before, 'nothing committed');
  });

  it('fails a file renamed across the scope boundary, in both directions, naming both sides', () => {
    repo = backstopRepo(START, { alice: ['src/'] });
    const out = runTurn(repo, 'git mv src/old.ts docs/old.ts');
    assert.equal(out.status, 3, out.stderr);
    assert.match(out.stderr, /\n {2}created {2}docs\/old\.ts \(renamed from src\/old\.ts\) {2}\(outside the scope\)/);
    assert.doesNotMatch(out.stderr, /deleted {2}src\/old\.ts.*\(outside/, 'the deletion inside the scope is allowed');
    repo.git('mv', 'docs/old.ts', 'src/old.ts');

    const inward = runTurn(repo, 'mv docs/guide.md src/guide.md');
    assert.equal(inward.status, 3, inward.stderr);
    assert.match(inward.stderr, /\n {2}deleted {2}docs\/guide\.md \(renamed to src\/guide\.md\) {2}\(outside the scope\)/);
  });

  it('fails a test sibling that another agent of the wave declares, naming that agent; the sibling beside the file passes', () => {
    repo = backstopRepo({ ...START, 'src/a/x.ts': 'x\n', 'test/readme.md': 'tests\n' });
    const records = [
      { id: 'alice', files: ['src/a/x.ts'] },
      { id: 'bob', files: ['test/'] },
    ];
    const plan = runBuiltCli(['plan', 'write', '--wave', '1', '--role', 'implementation'], { cwd: repo.root, input: JSON.stringify(records), env: cleanEnv() });
    assert.equal(plan.status, 0, plan.stderr);
    const taken = runTurn(repo, 'mkdir -p test/deep && echo t > test/deep/x.test.ts && echo t > src/a/x.test.ts');
    assert.equal(taken.status, 3, taken.stderr);
    assert.match(taken.stderr, /changed 1 path outside its scope:\n {2}created {2}test\/deep\/x\.test\.ts {2}\(a test sibling that agent "bob" of the wave claims too\)/);
    assert.equal(runTurn(repo, 'echo more >> test/deep/x.test.ts', { agent: 'bob' }).status, 0, 'bob declares test/');
  });

  it('still checks a turn whose command is killed by a signal, and commits nothing of it', () => {
    repo = backstopRepo(START, { alice: ['src/'] });
    const run = runTurn(repo, 'echo evil > evil.py; kill -KILL $$', { flags: ['--commit'] });
    assert.equal(run.status, 3, run.stderr);
    assert.match(run.stderr, /sh was killed by SIGKILL/);
    assert.match(run.stderr, /created {2}evil\.py/);
    assert.deepEqual(turnRecord(repo).exit, { signal: 'SIGKILL' });
  });

  it('forwards a signal sent to run to the command, then checks the turn and commits nothing', async () => {
    repo = backstopRepo(START, { alice: ['src/'] });
    const before = head(repo);
    const marker = join(repo.root, 'src', 'started.ts');
    const child = spawn(process.execPath, [builtCliPath, 'run', '--wave', '1', '--agent', 'alice', '--commit', '--', 'sh', '-c', `trap 'echo caught >> src/trapped.ts; exit 143' TERM; echo go > src/started.ts; while true; do sleep 0.05; done`], {
      cwd: repo.root,
      env: cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    for (let tries = 0; !existsSync(marker); tries += 1) {
      assert.ok(tries < 400, 'the command started');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    child.kill('SIGTERM');
    const code = await exited;
    assert.equal(code, 1, stderr);
    assert.match(stderr, /sh exited with code 143/);
    assert.equal(readFile(repo, 'src/trapped.ts'), 'caught\n', 'the command received the signal and ran its trap');
    assert.match(stderr, /2 changes, all inside its scope/);
    assert.match(stderr, /the command did not succeed, so nothing was committed/);
    assert.equal(head(repo), before);
  });

  it('gives the command WAVE_SCOPE_WAVE, WAVE_SCOPE_AGENT and WAVE_SCOPE_STATE_DIR, passes its stdio through, and reports its exit code', () => {
    repo = backstopRepo(START, { alice: ['src/'] });
    const run = runTurn(repo, 'echo "$WAVE_SCOPE_WAVE $WAVE_SCOPE_AGENT $WAVE_SCOPE_STATE_DIR"; echo to-stderr >&2; exit 7');
    assert.equal(run.status, 1, run.stderr);
    assert.equal(run.stdout, `1 alice ${join(repo.root, '.claude')}\n`);
    assert.match(run.stderr, /^to-stderr$/m);
    assert.match(run.stderr, /sh exited with code 7/);
    assert.deepEqual(turnRecord(repo).exit, { code: 7 });
  });

  it('refuses bad arguments with exit 2 and runs nothing', () => {
    repo = backstopRepo(START, { alice: ['src/'] });
    const cases: Array<{ args: string[]; message: RegExp }> = [
      { args: ['--agent', 'alice', '--', 'true'], message: /--wave is required/ },
      { args: ['--wave', '0', '--agent', 'alice', '--', 'true'], message: /--wave must be a positive integer/ },
      { args: ['--wave', '1', '--agent', '../x', '--', 'true'], message: /agent id "\.\.\/x" must match/ },
      { args: ['--wave', '1', '--agent', 'alice'], message: /name the command after "--"/ },
      { args: ['--wave', '1', '--agent', 'alice', '--writable', '/tmp', '--', 'true'], message: /--writable goes with --confine/ },
      { args: ['--wave', '1', '--agent', 'alice', '--', 'no-such-program-anywhere'], message: /no-such-program-anywhere could not be started/ },
    ];
    for (const { args, message } of cases) {
      const run = runBuiltCli(['run', ...args], { cwd: repo.root, env: cleanEnv() });
      assert.equal(run.status, 2, `${args.join(' ')}: ${run.stderr}`);
      assert.match(run.stderr, message);
    }
    assert.ok(!existsSync(join(repo.root, '.orchestrator')), 'no turn was started');
  });

  it('watches configured ignored paths such as .env (--watch-ignored), and never commits them', () => {
    repo = backstopRepo({ ...START, '.gitignore': '.orchestrator/\n.env\nconfig/*.local\n' }, { alice: ['src/', '.env'] });
    repo.write({ '.env': 'SECRET=1\n', 'config/db.local': 'x\n' });
    const unwatched = runTurn(repo, 'echo SECRET=2 > .env; echo y > config/db.local');
    assert.equal(unwatched.status, 0, `ignored files are not watched by default: ${unwatched.stderr}`);
    const watched = runTurn(repo, 'echo SECRET=3 > .env; echo z > config/db.local', { flags: ['--watch-ignored', 'config/*.local', '--commit'], env: { WAVE_SCOPE_WATCH_IGNORED: '.env' } });
    assert.equal(watched.status, 3, watched.stderr);
    assert.match(watched.stderr, /\n {2}modified config\/db\.local {2}\(outside the scope\)/);
    assert.doesNotMatch(watched.stderr, /\.env {2}\(/, '.env is in the scope');
    const inScope = runTurn(repo, 'echo SECRET=4 > .env', { flags: ['--commit'], env: { WAVE_SCOPE_WATCH_IGNORED: '.env' } });
    assert.equal(inScope.status, 0, inScope.stderr);
    assert.match(inScope.stderr, /nothing to commit/, 'an ignored file is never committed');
  });

  it('sees an out-of-scope file hidden through git\'s own ignore rules, and a planted git hook', () => {
    repo = backstopRepo(START, { alice: ['src/'] });
    const hidden = runTurn(repo, 'echo evil > evil.py && echo evil.py >> .git/info/exclude');
    assert.equal(hidden.status, 3, hidden.stderr);
    assert.match(hidden.stderr, /\n {2}(modified|created) +\.git\/info\/exclude {2}\(control state: never written by an agent\)/);
    const planted = runTurn(repo, 'printf "#!/bin/sh\\nexit 0\\n" > .git/hooks/pre-commit');
    assert.equal(planted.status, 3, planted.stderr);
    assert.match(planted.stderr, /\n {2}created {2}\.git\/hooks\/pre-commit {2}\(control state/);
  });

  it('sees a same-size rewrite that a clean filter named in a global config would call clean, and a filter planted through info/attributes', () => {
    repo = backstopRepo(START, { alice: ['src/'] });
    // The person's home, which the agent's shell can write: a global attributes file and a filter that
    // hands git the committed content back, so git's status would compare the file equal to its index entry.
    withTempDirectory('wave-scope-home-', (home) => {
      const global = runTurn(
        repo,
        [
          "printf 'GUIDE\\n' > docs/guide.md",
          'printf "docs/guide.md filter=x\\n" > "$HOME/attributes"',
          'git config --global core.attributesFile "$HOME/attributes"',
          'git config --global filter.x.clean "git cat-file blob HEAD:docs/guide.md"',
        ].join(' && '),
        { env: { HOME: home } },
      );
      assert.equal(global.status, 3, global.stderr);
      assert.match(global.stderr, /\n {2}modified +docs\/guide\.md {2}\(outside the scope\)/);
      assert.equal(readFile(repo, 'docs/guide.md'), 'GUIDE\n');
    });
    const planted = runTurn(repo, 'printf "docs/guide.md filter=y\\n" > .git/info/attributes');
    assert.equal(planted.status, 3, planted.stderr);
    assert.match(planted.stderr, /\n {2}created {2}\.git\/info\/attributes {2}\(control state: never written by an agent\)/);
  });

  it('sees a rewrite whose index entry was forged to call it clean (git add through a one-off clean filter)', () => {
    repo = backstopRepo(START, { alice: ['src/'] });
    // The staged entry keeps the committed object id with the rewritten file's stat data, so git's status
    // calls the file clean; its ctime, which no process sets back, is the turn's.
    const forged = runTurn(
      repo,
      [
        "printf 'evil: out of scope\\n' > docs/guide.md",
        "touch -d '-5 seconds' docs/guide.md",
        'attributes=$(mktemp)',
        'printf "docs/guide.md filter=x\\n" > "$attributes"',
        'git -c core.attributesFile="$attributes" -c filter.x.clean="git cat-file blob HEAD:docs/guide.md" add docs/guide.md',
        'rm "$attributes"',
        'test -z "$(git status --porcelain)"',
      ].join(' && '),
    );
    assert.equal(forged.status, 3, forged.stderr);
    assert.match(forged.stderr, /\n {2}modified +docs\/guide\.md {2}\(outside the scope\)/);
    assert.equal(readFile(repo, 'docs/guide.md'), 'evil: out of scope\n');
  });

  it('sees a rewrite inside a swapped directory, whose files keep their old times, and an entry forged a turn before the swap', () => {
    repo = backstopRepo(START, { alice: ['src/'] });
    // Prepared in scope an hour "ago" (a directory renamed into place keeps its files' times), then swapped
    // in and the entry forged as in the one-off filter case, in one turn.
    const forge = (path: string) => `git -c core.attributesFile="$attributes" -c filter.x.clean="git cat-file blob HEAD:${path}" add ${path}`;
    const prepare = [
      'cp -r docs src/staged-docs',
      "printf 'GUIDE\\n' > src/staged-docs/guide.md",
      "touch -d '-1 hour' src/staged-docs/guide.md",
      'attributes=$(mktemp)',
      'printf "docs/guide.md filter=x\\n" > "$attributes"',
    ];
    const swapped = runTurn(repo, [...prepare, 'mv docs src/old-docs', 'mv src/staged-docs docs', forge('docs/guide.md'), 'rm "$attributes"'].join(' && '));
    assert.equal(swapped.status, 3, swapped.stderr);
    assert.match(swapped.stderr, /\n {2}modified +docs\/guide\.md {2}\(outside the scope\)/);
    assert.equal(readFile(repo, 'docs/guide.md'), 'GUIDE\n');
    repo.remove();

    // The entry forged in one turn, whose files are all back as they were (the turn passes: nothing changed
    // outside the scope), and the prepared directory swapped in by the next turn, which touches no index.
    repo = backstopRepo(START, { alice: ['src/'] });
    const forged = runTurn(
      repo,
      [...prepare, 'mv docs src/old-docs', 'mv src/staged-docs docs', forge('docs/guide.md'), 'rm "$attributes"', 'mv docs src/staged-docs', 'mv src/old-docs docs'].join(' && '),
    );
    assert.equal(forged.status, 0, forged.stderr);
    const swap = runTurn(repo, 'mv docs src/old-docs && mv src/staged-docs docs');
    assert.equal(swap.status, 3, swap.stderr);
    assert.match(swap.stderr, /\n {2}modified +docs\/guide\.md {2}\(outside the scope\)/);
  });

  it('sees a rewrite whose index entry was patched in place, the index file\'s last bytes (its checksum) kept', () => {
    repo = backstopRepo(START, { alice: ['src/'] });
    // git verifies the index's trailing checksum only in fsck: an entry's stat data overwritten in place
    // (index version 2: ctime, mtime, dev, ino at its start; size at 36) passes every ordinary read.
    const patcher = writeIndexPatcher();
    try {
      const patched = runTurn(
        repo,
        ["printf 'GUIDE\\n' > docs/guide.md", "touch -d '-1 hour' docs/guide.md", 'node "$PATCHER" .git/index docs/guide.md docs/guide.md', 'test -z "$(git --no-optional-locks status --porcelain -- docs)"'].join(' && '),
        { env: { PATCHER: patcher } },
      );
      assert.equal(patched.status, 3, patched.stderr);
      assert.match(patched.stderr, /\n {2}modified +docs\/guide\.md {2}\(outside the scope\)/);
    } finally {
      rmSync(patcher, { force: true });
    }
  });

  it('never lets git read another index than the one it checks: a turn that makes .git unusable and lays out a git directory at the top level fails', () => {
    repo = backstopRepo(START, { alice: ['src/'] });
    const patcher = writeIndexPatcher();
    try {
      // git would take the top level for a git directory (HEAD, objects, refs) with an index forged for the rewrite.
      const redirected = runTurn(
        repo,
        [
          "printf 'GUIDE\\n' > docs/guide.md",
          "touch -d '-1 hour' docs/guide.md",
          'cp .git/HEAD HEAD',
          'ln -s .git/objects objects',
          'ln -s .git/refs refs',
          'cp .git/index index',
          'node "$PATCHER" index docs/guide.md docs/guide.md',
          '{ cat .git/config; printf "[core]\\n\\tworktree = %s\\n" "$(pwd)"; } > config',
          'mkdir info',
          'printf "/HEAD\\n/config\\n/index\\n/objects\\n/refs\\n/info/\\n" > info/exclude',
          'mv .git/HEAD .git/HEAD.aside',
          'test -z "$(git --no-optional-locks status --porcelain)"',
        ].join(' && '),
        { env: { PATCHER: patcher } },
      );
      assert.equal(redirected.status, 2, redirected.stderr);
      assert.match(redirected.stderr, /the turn could not be checked after the command \(git --git-dir=.*not a git repository/);
      assert.doesNotMatch(redirected.stderr, /all inside its scope/);
    } finally {
      rmSync(patcher, { force: true });
    }
  });

  it('never lets git take its common directory from a commondir file the turn wrote: an out-of-scope file hidden by the copy\'s exclude is seen', () => {
    repo = backstopRepo(START, { alice: ['src/'] });
    withTempDirectory('wave-scope-common-', (common) => {
      const redirected = runTurn(
        repo,
        [
          'cp .git/config "$COMMON/config"',
          'cp -r .git/refs "$COMMON/refs"',
          'ln -s "$PWD/.git/objects" "$COMMON/objects"',
          'mkdir -p "$COMMON/info"',
          'printf "/docs/evil.md\\n" > "$COMMON/info/exclude"',
          'echo "$COMMON" > .git/commondir',
          'printf "evil\\n" > docs/evil.md',
          'test -z "$(git --no-optional-locks status --porcelain -- docs)"',
        ].join(' && '),
        { env: { COMMON: common } },
      );
      assert.equal(redirected.status, 3, redirected.stderr);
      assert.match(redirected.stderr, /\n {2}created +docs\/evil\.md {2}\(outside the scope\)/);
      assert.match(redirected.stderr, /\n {2}created +\.git\/commondir {2}\(control state/);
    });
  });

  it('sees a new file that differs from a tracked one in case only, whatever a global config says of case', () => {
    repo = backstopRepo({ ...START, Makefile: 'all:\n' }, { alice: ['src/'] });
    // As `git init` leaves it on a case-sensitive file system: no core.ignorecase of its own.
    repo.git('config', '--unset', 'core.ignorecase');
    withTempDirectory('wave-scope-home-', (home) => {
      const folded = runTurn(repo, 'git config --global core.ignorecase true && printf "evil:\\n" > makefile', { env: { HOME: home } });
      assert.equal(folded.status, 3, folded.stderr);
      assert.match(folded.stderr, /\n {2}created +makefile {2}\(outside the scope\)/);
    });
  });

  describe('inside repositories nested in the checkout', () => {
    let library: TempGitRepo | undefined;
    afterEach(() => library?.remove());

    /** The checkout with a submodule at vendor/lib (three committed files), checked out. */
    function withSubmodule(): TempGitRepo {
      library = createTempGitRepo({ initialFiles: { 'a.txt': 'a\n', 'b.txt': 'b\n', 'c.txt': 'c\n' } });
      const checkout = backstopRepo(START, { alice: ['src/'] });
      checkout.git('-c', 'protocol.file.allow=always', 'submodule', 'add', '--quiet', library.root, 'vendor/lib');
      checkout.git('commit', '--quiet', '-m', 'add the library');
      return checkout;
    }

    it('sees an out-of-scope change inside a submodule that was already dirty, and one inside a clean one', () => {
      repo = withSubmodule();
      writeFileSync(join(repo.root, 'vendor/lib/a.txt'), 'work in progress\n');
      const again = runTurn(repo, 'echo evil > vendor/lib/b.txt');
      assert.equal(again.status, 3, again.stderr);
      assert.match(again.stderr, /\n {2}modified +vendor\/lib\/b\.txt {2}\(outside the scope\)/);
      assert.doesNotMatch(again.stderr, /vendor\/lib\/a\.txt/, 'the dirt that was there before is not the turn\'s');
      const created = runTurn(repo, 'echo evil > vendor/lib/new.txt');
      assert.equal(created.status, 3, created.stderr);
      assert.match(created.stderr, /\n {2}created +vendor\/lib\/new\.txt {2}\(outside the scope\)/);
    });

    it('sees a change the submodule\'s own index hides (assume-unchanged) and a file its own info/exclude hides', () => {
      repo = withSubmodule();
      const flagged = runTurn(repo, 'git -C vendor/lib update-index --assume-unchanged c.txt && echo evil > vendor/lib/c.txt');
      assert.equal(flagged.status, 3, flagged.stderr);
      assert.match(flagged.stderr, /\n {2}modified +vendor\/lib\/c\.txt {2}\(outside the scope\)/);
      const excluded = runTurn(repo, 'echo evil.py >> .git/modules/vendor/lib/info/exclude && echo evil > vendor/lib/evil.py');
      assert.equal(excluded.status, 3, excluded.stderr);
      assert.match(excluded.stderr, /\n {2}(modified|created) +vendor\/lib\/\.git\/info\/exclude {2}\(control state/);
    });

    it('sees a submodule whose gitfile is pointed at another repository, or removed', () => {
      repo = withSubmodule();
      const gitfile = readFileSync(join(repo.root, 'vendor/lib/.git'), 'utf8');
      const elsewhere = createTempGitRepo({ initialFiles: { 'a.txt': 'a\n' } });
      try {
        const pointed = runTurn(repo, `printf 'gitdir: %s\\n' '${elsewhere.root}/.git' > vendor/lib/.git`);
        assert.equal(pointed.status, 3, pointed.stderr);
        assert.match(pointed.stderr, /\n {2}modified +vendor\/lib /);
      } finally {
        elsewhere.remove();
      }
      writeFileSync(join(repo.root, 'vendor/lib/.git'), gitfile);
      const removed = runTurn(repo, 'rm vendor/lib/.git && echo evil > vendor/lib/b.txt');
      assert.equal(removed.status, 3, removed.stderr);
      assert.match(removed.stderr, /\n {2}modified +vendor\/lib /);
      assert.match(removed.stderr, /\n {2}modified +vendor\/lib\/b\.txt {2}\(outside the scope\)/, 'what it holds is still compared, file by file');
      writeFileSync(join(repo.root, 'vendor/lib/.git'), gitfile);
      writeFileSync(join(repo.root, 'vendor/lib/b.txt'), 'b\n');
      // Pointed at a copy of its own git directory: a scope that names the directory as a path (vendor/*)
      // does not let a file inside it change.
      writeScope(repo, 'alice', ['src/', 'vendor/*']);
      const copy = join(repo.root, '.orchestrator', 'lib-copy');
      const copied = runTurn(
        repo,
        `mkdir -p .orchestrator && cp -r .git/modules/vendor/lib ${copy} && git config --file ${copy}/config core.worktree ${repo.root}/vendor/lib && printf 'gitdir: %s\\n' ${copy} > vendor/lib/.git && echo evil > vendor/lib/b.txt`,
      );
      assert.equal(copied.status, 3, copied.stderr);
      assert.match(copied.stderr, /\n {2}modified +vendor\/lib\/b\.txt {2}\(outside the scope\)/);
    });

    it('lets an agent whose scope holds the submodule change, stage and commit inside it, and commits the bump with --commit', () => {
      repo = withSubmodule();
      // The gitlink itself is the path `vendor/lib`; the directory entry names what lies below it.
      writeScope(repo, 'alice', ['src/', 'vendor/lib', 'vendor/lib/']);
      repo.git('commit', '--quiet', '-am', 'alice owns the library');
      const run = runTurn(repo, 'echo more >> vendor/lib/a.txt && git -C vendor/lib add a.txt && git -C vendor/lib -c user.name=t -c user.email=t@example.invalid commit --quiet -m more && echo new > vendor/lib/d.txt', { flags: ['--commit'] });
      assert.equal(run.status, 0, run.stderr);
      assert.match(run.stderr, /all inside its scope/);
      assert.deepEqual(committedPaths(repo), ['M vendor/lib'], 'the parent commits the submodule\'s new commit; what is inside is the submodule\'s own');
    });

    it('sees a rewrite inside a submodule whose own index entry was forged to call it clean', () => {
      repo = withSubmodule();
      const patcher = writeIndexPatcher();
      try {
        // The file rewritten (same size, an old mtime), then its entry given the new file's stat data in
        // place: git's own status, in the submodule and in the checkout, calls both clean.
        const run = runTurn(
          repo,
          [
            "printf 'x\\n' > vendor/lib/b.txt",
            "touch -d '-1 hour' vendor/lib/b.txt",
            'node "$PATCHER" .git/modules/vendor/lib/index b.txt vendor/lib/b.txt',
            'test -z "$(git -C vendor/lib --no-optional-locks status --porcelain)"',
            'test -z "$(git --no-optional-locks status --porcelain --ignore-submodules=none)"',
          ].join(' && '),
          { env: { PATCHER: patcher } },
        );
        assert.equal(run.status, 3, run.stderr);
        assert.match(run.stderr, /\n {2}modified +vendor\/lib\/b\.txt {2}\(outside the scope\)/);
      } finally {
        rmSync(patcher, { force: true });
      }
    });

    it('never runs git inside an untracked repository a turn planted (its config\'s filters would run outside the turn); its HEAD identifies it', () => {
      repo = backstopRepo(START, { alice: ['src/'] });
      const script = [
        'set -e',
        'mkdir -p src/sub && cd src/sub && git init -q && git config user.email a@b.invalid && git config user.name a',
        'printf "* filter=x\\n" > .gitattributes && echo data > f.txt && git add -A && git commit -qm s',
        // git's status would run the filter for a tracked file whose stat data moved.
        `git config filter.x.clean "sh -c 'echo ran > ${repo.root}/docs/guide.md; cat'"`,
        'touch -d 2001-01-01 f.txt',
      ].join('\n');
      const run = runTurn(repo, script);
      assert.equal(run.status, 0, run.stderr);
      assert.equal(readFileSync(join(repo.root, 'docs/guide.md'), 'utf8'), START['docs/guide.md'], 'the planted filter never ran');
      // Its HEAD still tells one state from another (the filter taken out first: the agent's own commit would run it).
      execFileSync('git', ['-C', join(repo.root, 'src/sub'), 'config', '--unset', 'filter.x.clean']);
      const moved = runTurn(repo, 'cd src/sub && echo more > g.txt && git add g.txt && git commit -qm more');
      assert.equal(moved.status, 0, moved.stderr);
      assert.match(moved.stderr, /1 change, all inside its scope/, 'its HEAD moved: src/sub/ changed');
    });

    it('fails a turn that plants a repository and stages it as a gitlink, naming the git files it brought', () => {
      repo = backstopRepo(START, { alice: ['src/'] });
      const run = runTurn(repo, 'mkdir -p src/sub && cd src/sub && git init -q && git config user.email a@b.invalid && git config user.name a && echo x > f.txt && git add -A && git commit -qm s && cd ../.. && git add src/sub');
      assert.equal(run.status, 3, run.stderr);
      assert.match(run.stderr, /\n {2}created +src\/sub\/\.git\/config {2}\(control state/);
    });

    it('sees files written into the directory of a submodule that is not checked out, or a directory an unmerged gitlink hides', () => {
      repo = withSubmodule();
      repo.git('submodule', '--quiet', 'deinit', '--force', 'vendor/lib');
      const written = runTurn(repo, 'echo evil > vendor/lib/build.sh && mkdir -p vendor/lib/deep && echo y > vendor/lib/deep/y.txt');
      assert.equal(written.status, 3, written.stderr);
      assert.match(written.stderr, /\n {2}created +vendor\/lib\/build\.sh {2}\(outside the scope\)/);
      assert.match(written.stderr, /\n {2}created +vendor\/lib\/deep\/y\.txt {2}\(outside the scope\)/);
      // An unmerged gitlink named docs left beside docs/guide.md (the turn that left it fails for it): git's
      // walk for untracked files skips docs/ from then on.
      const commit = head(repo);
      const planted = runTurn(repo, `printf '160000 ${commit} 1\\tdocs\\n' | git update-index --index-info`);
      assert.equal(planted.status, 3, planted.stderr);
      assert.match(planted.stderr, /\n {2}created +docs {2}\(outside the scope\)/);
      const hidden = runTurn(repo, 'echo evil > docs/new.sh');
      assert.equal(hidden.status, 3, hidden.stderr);
      assert.match(hidden.stderr, /\n {2}created +docs\/new\.sh {2}\(outside the scope\)/);
    });
  });

  it('fails a turn that points its linked work tree\'s .git at a git directory of its own (which later turns would take for the repository)', () => {
    repo = backstopRepo(START, { alice: ['src/'] });
    const worktree = join(repo.root, '.orchestrator', 'w');
    repo.git('worktree', 'add', '--quiet', worktree);
    const evil = join(repo.root, '.orchestrator', 'evil');
    const script = `mkdir -p ${evil} && cp -a ${repo.root}/.git ${evil}/.git && printf 'gitdir: %s\\n' ${evil}/.git/worktrees/w > .git`;
    const run = runBuiltCli(['run', '--wave', '1', '--agent', 'alice', '--', 'sh', '-c', script], { cwd: worktree, env: cleanEnv() });
    assert.equal(run.status, 3, run.stderr);
    assert.match(run.stderr, /\n {2}modified +\.git {2}\(control state/);
  });

  it('watches every config file git reads: a global filter a new in-scope .gitattributes names, the global excludes file, a file the config includes', () => {
    repo = backstopRepo(START, { alice: ['src/'] });
    withTempDirectory('wave-scope-home-', (home) => {
      const env = { HOME: home };
      const filtered = runTurn(repo, `printf '* filter=x\\n' > src/.gitattributes && git config --global filter.x.clean 'sh -c "echo x >> ${home}/ran; cat"' && touch -d 2001-01-01 src/app.ts`, { env });
      assert.equal(filtered.status, 3, filtered.stderr);
      assert.match(filtered.stderr, new RegExp(`\\n {2}created +\\.git/<outside> ${home}/\\.gitconfig {2}\\(control state`));
      const ignored = runTurn(repo, `mkdir -p ${home}/.config/git && echo evil.py > ${home}/.config/git/ignore && echo evil > evil.py`, { env });
      assert.equal(ignored.status, 3, ignored.stderr);
      assert.match(ignored.stderr, new RegExp(`\\n {2}created +\\.git/<outside> ${home}/\\.config/git/ignore {2}\\(control state`));
      repo.git('config', 'include.path', 'config.local');
      const included = runTurn(repo, 'echo "[core] excludesFile = /dev/null" > .git/config.local', { env });
      assert.equal(included.status, 3, included.stderr);
      assert.match(included.stderr, /\n {2}created +\.git\/config\.local {2}\(control state/);
    });
  });

  it('sees an ignore rule planted in the per-worktree config (extensions.worktreeConfig)', () => {
    repo = backstopRepo(START, { alice: ['src/'] });
    repo.git('config', 'extensions.worktreeConfig', 'true');
    const hidden = runTurn(repo, 'echo evil.py > .git/evil-ignore && git config --worktree core.excludesFile "$PWD/.git/evil-ignore" && echo evil > evil.py');
    assert.equal(hidden.status, 3, hidden.stderr);
    assert.match(hidden.stderr, /\n {2}created {2}\.git\/config\.worktree {2}\(control state: never written by an agent\)/);
  });

  it('never writes its record through a link planted in .orchestrator/: a person\'s file of that name is left alone', () => {
    repo = backstopRepo({ ...START, 'docs/alice.json': '{"mine": true}\n' }, { alice: ['src/'] });
    const plant = 'mkdir -p .orchestrator/backstop/turns && rm -rf .orchestrator/backstop/turns/wave1 && ln -s ../../../docs .orchestrator/backstop/turns/wave1';
    const during = runTurn(repo, `${plant} && echo ok > src/x.ts`);
    assert.equal(during.status, 0, during.stderr);
    assert.match(during.stderr, /WARNING: the turn record .*alice\.json could not be written \(.*wave1 is a link or not a directory/);
    assert.equal(readFile(repo, 'docs/alice.json'), '{"mine": true}\n');
    const after = runTurn(repo, 'echo ran > src/ran.ts');
    assert.equal(after.status, 2, after.stderr);
    assert.match(after.stderr, /cannot start the turn \(.*wave1 is a link or not a directory.*\); the command was not run/);
    assert.ok(!existsSync(join(repo.root, 'src/ran.ts')));
    assert.equal(readFile(repo, 'docs/alice.json'), '{"mine": true}\n');
  });

  it('judges a change to control state as control state, whatever the scope says', () => {
    repo = backstopRepo(START, { alice: ['**'] });
    const run = runTurn(repo, 'mkdir -p .claude && echo "{}" > .claude/settings.json && echo ok >> src/app.ts');
    assert.equal(run.status, 3, run.stderr);
    assert.match(run.stderr, /created {2}\.claude\/settings\.json {2}\(control state: never written by an agent\)/);
  });
});
