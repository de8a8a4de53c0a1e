// `wave-scope run --confine`: bubblewrap must be installed (test/support/setupBubblewrap.sh does it in
// `npm test`); without it these tests fail, they never skip.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanEnv, runBuiltCli } from '../support/builtCli';
import { createTempGitRepo } from '../support/tempGitRepo';
import type { TempGitRepo } from '../support/tempGitRepo';
import { backstopRepo, committedPaths, head, readFile, runTurn, statusLines } from './backstopTurns';

const START = { 'README.md': 'readme\n', 'src/app.ts': 'app\n', '.codex/hooks.json': '{}\n', '.codex/notes.md': 'n\n' };

/** Processes whose command line contains `marker`. */
function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(marker)) found.push(Number(name));
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

describe('wave-scope run --confine: the turn in a bubblewrap sandbox (built dist/cli.js, real git repositories)', () => {
  before(() => {
    const probe = spawnSync('bwrap', ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--cap-drop', 'ALL', '--unshare-pid', '--', 'true'], { encoding: 'utf8' });
    assert.equal(probe.error, undefined, `bubblewrap is not installed (run test/support/setupBubblewrap.sh): ${probe.error?.message}`);
    assert.equal(probe.status, 0, `bubblewrap cannot build a sandbox here: ${probe.stderr}`);
  });

  let repo: TempGitRepo;
  afterEach(() => repo.remove());

  it('denies "echo x > README.md" when README.md is out of scope, and allows a write inside the scope', () => {
    repo = backstopRepo(START, { alice: ['src/'] });
    const denied = runTurn(repo, 'echo x > README.md', { flags: ['--confine'] });
    assert.equal(denied.status, 1, denied.stderr);
    assert.match(denied.stderr, /README\.md: Read-only file system/);
    assert.match(denied.stderr, /--confine: the command runs in a bubblewrap sandbox/);
    assert.equal(readFile(repo, 'README.md'), 'readme\n', 'the write never happened');
    assert.match(denied.stderr, /0 changes, all inside its scope/);

    const allowed = runTurn(repo, 'echo y > src/new.ts && echo more >> src/app.ts', { flags: ['--confine', '--commit'] });
    assert.equal(allowed.status, 0, allowed.stderr);
    assert.deepEqual(committedPaths(repo), ['A src/new.ts', 'M src/app.ts']);
  });

  it('keeps .git read-only: the turn can neither commit nor plant a hook', () => {
    repo = backstopRepo(START, { alice: ['src/'] });
    const before = head(repo);
    const run = runTurn(repo, 'echo ok >> src/app.ts; git commit -qam sneaky; echo "exit 0" > .git/hooks/pre-commit; exit 0', { flags: ['--confine'] });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stderr, /Read-only file system/);
    assert.equal(head(repo), before);
    assert.ok(!existsSync(join(repo.root, '.git/hooks/pre-commit')));
    assert.deepEqual(statusLines(repo), [' M src/app.ts']);
  });

  it('leaves to the backstop what a glob\'s literal directory lets through', () => {
    repo = backstopRepo(START, { alice: ['src/*.ts'] });
    const run = runTurn(repo, 'echo n > src/notes.md', { flags: ['--confine', '--commit'] });
    assert.equal(run.status, 3, run.stderr);
    assert.match(run.stderr, /created {2}src\/notes\.md {2}\(outside the scope\)/);
  });

  it('keeps control state read-only inside a writable directory', () => {
    repo = backstopRepo(START, { alice: ['.codex/'] });
    const run = runTurn(repo, 'echo "{\\"hooks\\": {}}" > .codex/hooks.json; echo more >> .codex/notes.md', { flags: ['--confine'] });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stderr, /\.codex\/hooks\.json: Read-only file system/);
    assert.equal(readFile(repo, '.codex/hooks.json'), '{}\n');
    assert.equal(readFile(repo, '.codex/notes.md'), 'n\nmore\n');
  });

  // Found by red-team review, 2026-12-06: a confined command typed `touch …` into the person's terminal
  // with ioctl(TIOCSTI); a link left by one turn widened the next. (The filter's content is proven in
  // test/planner/backstop/terminalFilter.test.ts; here, that the kernel runs the command under it.)
  it('never runs a program a confined turn names through a submodule in its scope: a gitfile written into one not checked out, or one renamed aside and made anew', () => {
    const library = createTempGitRepo({ initialFiles: { 'b.txt': 'b\n' } });
    const outside = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-escape-')));
    try {
      repo = backstopRepo(START, { alice: ['src/'] });
      repo.git('-c', 'protocol.file.allow=always', 'submodule', 'add', '--quiet', library.root, 'src/lib');
      repo.git('commit', '--quiet', '-m', 'library');
      // A git directory of the turn's own outside the checkout: a clean filter that writes out of scope.
      const gitDir = join(outside, 'gd');
      cpSync(join(repo.root, '.git', 'modules', 'src', 'lib'), gitDir, { recursive: true });
      spawnSync('git', ['config', '-f', join(gitDir, 'config'), '--unset', 'core.worktree']);
      mkdirSync(join(gitDir, 'info'), { recursive: true });
      writeFileSync(join(gitDir, 'info', 'attributes'), '* filter=x\n');
      const marker = join(outside, 'ran');
      spawnSync('git', ['config', '-f', join(gitDir, 'config'), 'filter.x.clean', `sh -c 'echo ran >> ${marker}; cat'`]);
      const renamed = runTurn(repo, `mv src/lib src/lib.old && mkdir src/lib && cp src/lib.old/b.txt src/lib/ && echo "gitdir: ${gitDir}" > src/lib/.git && touch -d 2001-01-01 src/lib/b.txt`, { flags: ['--confine'] });
      assert.equal(renamed.status, 3, renamed.stderr);
      assert.match(renamed.stderr, /\n {2}modified +src\/lib\/\.git {2}\(control state/);
      assert.equal(existsSync(marker), false, 'the filter never ran');
      rmSync(join(repo.root, 'src', 'lib'), { recursive: true, force: true });
      spawnSync('mv', [join(repo.root, 'src', 'lib.old'), join(repo.root, 'src', 'lib')]);
      repo.git('submodule', '--quiet', 'deinit', '--force', 'src/lib');
      const planted = runTurn(repo, `echo "gitdir: ${gitDir}" > src/lib/.git && git -C src/lib checkout -q -- . && touch -d 2001-01-01 src/lib/b.txt`, { flags: ['--confine'] });
      assert.equal(planted.status, 3, planted.stderr);
      assert.match(planted.stderr, /\n {2}created +src\/lib\/\.git {2}\(control state/);
      assert.equal(existsSync(marker), false, 'the filter never ran');
    } finally {
      library.remove();
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('runs the command under the seccomp filter that refuses typing into the terminal', () => {
    repo = backstopRepo(START, { alice: ['src/'] });
    const run = runTurn(repo, 'grep "^Seccomp:" /proc/self/status', { flags: ['--confine'] });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /^Seccomp:\s+2$/m, 'a seccomp filter is loaded (mode 2)');
  });

  it('grants no scope path reached through a link a turn left, and stops on a linked .orchestrator directory', () => {
    repo = backstopRepo(START, { alice: ['src/app.ts', 'src/gen/'] });
    const before = repo.git('rev-parse', 'HEAD').trim();
    // The link into .git, as an unconfined turn could leave it (the backstop reports it; it stays).
    repo.git('branch', 'release');
    symlinkSync('../.git/refs/heads', join(repo.root, 'src/gen'));
    const through = runTurn(repo, `echo ${'0'.repeat(40)} > src/gen/release; exit 0`, { flags: ['--confine'] });
    assert.match(through.stderr, /"src\/gen\/" reaches .*src\/gen through a symbolic link, or leads into control state/);
    assert.match(through.stderr, /Read-only file system/);
    assert.equal(repo.git('rev-parse', 'release').trim(), before, 'the branch did not move');
    rmSync(join(repo.root, 'src/gen'));

    mkdirSync(join(repo.root, '.orchestrator/backstop'), { recursive: true });
    rmSync(join(repo.root, '.orchestrator/backstop/hooks'), { recursive: true, force: true });
    const outside = mkdtempSync(join(tmpdir(), 'ws-outside-'));
    try {
      symlinkSync(outside, join(repo.root, '.orchestrator/backstop/hooks'));
      const linked = runTurn(repo, `echo pwned > ${outside}/victim`, { flags: ['--confine'] });
      assert.equal(linked.status, 2, linked.stderr);
      assert.match(linked.stderr, /ERROR: --confine: .*\.orchestrator\/backstop\/hooks is not a directory of its own \(it leads to .*\); .*the command was not run/);
      assert.ok(!existsSync(join(outside, 'victim')), 'the command never ran');
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('fails a turn that plants a repository in a granted directory (git never lists it; its config runs programs)', () => {
    repo = backstopRepo(START, { alice: ['src/'] });
    const run = runTurn(repo, 'echo more >> src/app.ts; git init -q src/sub && git -C src/sub config core.fsmonitor "touch planted"', { flags: ['--confine', '--commit'] });
    assert.equal(run.status, 3, run.stderr);
    assert.match(run.stderr, /created {2}src\/sub\/\.git {2}\(control state/);
    assert.match(run.stderr, /the turn failed: nothing of it is committed/);
    assert.ok(existsSync(join(repo.root, 'src/sub/.git')), 'the work tree is left as the turn left it');
  });

  // Found by red-team review of the fixes, 2026-12-06.
  it('fails a turn that makes a granted directory a git directory, or links one in from the temp directory, and says to remove it', () => {
    repo = backstopRepo(START, { alice: ['src/'] });
    const bare = runTurn(repo, 'mkdir -p src/objects src/refs && echo "ref: refs/heads/main" > src/HEAD && printf "[core]\\n\\tfsmonitor = touch planted\\n" > src/config', { flags: ['--confine'] });
    assert.equal(bare.status, 3, bare.stderr);
    assert.match(bare.stderr, /created {2}src\/HEAD {2}\(control state/);
    assert.match(bare.stderr, /WARNING: the turn planted a repository at src\/HEAD: git run there .* remove it before running git there/);
    rmSync(join(repo.root, 'src/HEAD'));
    const linked = runTurn(repo, 'dir=$(mktemp -d) && git init -q "$dir/evil" && ln -s "$dir/evil" src/tools', { flags: ['--confine'] });
    assert.equal(linked.status, 3, linked.stderr);
    assert.match(linked.stderr, /created {2}src\/tools {2}\(control state/);
  });

  it('keeps a repository already inside a granted directory read-only (a submodule\'s gitfile)', () => {
    repo = backstopRepo({ ...START, 'src/vendor/.git': 'gitdir: ../../.git/modules/vendor\n' }, { alice: ['src/'] });
    const run = runTurn(repo, 'echo "gitdir: ../evil" > src/vendor/.git; echo ok >> src/app.ts; exit 0', { flags: ['--confine'] });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stderr, /src\/vendor\/\.git: Read-only file system/);
    assert.equal(readFile(repo, 'src/vendor/.git'), 'gitdir: ../../.git/modules/vendor\n');
  });

  it('lets no process of the turn outlive it', () => {
    repo = backstopRepo(START, { alice: ['src/'] });
    const marker = `sleep 31.${process.pid}`;
    const run = runTurn(repo, `(${marker}; echo late > src/late.ts) >/dev/null 2>&1 & echo started`, { flags: ['--confine'] });
    const survivors = processesWith(marker);
    for (const pid of survivors) process.kill(pid, 'SIGKILL');
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout, 'started\n');
    assert.deepEqual(survivors, [], 'the background process ended with the turn');
  });

  it('never runs unconfined when bubblewrap is unavailable, and refuses a --writable path inside the repository', () => {
    repo = backstopRepo(START, { alice: ['src/'] });
    const missing = runTurn(repo, 'echo ran > src/ran.ts', { flags: ['--confine'], env: { WAVE_SCOPE_BWRAP: '/nonexistent/bwrap' } });
    assert.equal(missing.status, 2, missing.stderr);
    assert.match(missing.stderr, /ERROR: cannot confine the turn \(WAVE_SCOPE_BWRAP=\/nonexistent\/bwrap is not an executable\); the command was not run/);
    assert.ok(!existsSync(join(repo.root, 'src/ran.ts')));

    const inside = runBuiltCli(['run', '--wave', '1', '--agent', 'alice', '--confine', '--writable', join(repo.root, 'docs'), '--', 'true'], { cwd: repo.root, env: cleanEnv() });
    assert.equal(inside.status, 2, inside.stderr);
    assert.match(inside.stderr, /lies inside the repository: grant repository paths through the agent's scope/);
  });
});
