import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtCliPath, cleanEnv, runBuiltCli } from '../support/builtCli';
import { writeManifest } from '../support/hookFixtures';
import { createTempGitRepo } from '../support/tempGitRepo';
import type { TempGitRepo } from '../support/tempGitRepo';

describe('wave-scope hook commit-guard (built dist/cli.js, real git repositories)', () => {
  let repo: TempGitRepo;
  const guard = (env: Record<string, string> = {}) => runBuiltCli(['hook', 'commit-guard'], { cwd: repo.root, env: cleanEnv(env) });

  beforeEach(() => {
    repo = createTempGitRepo({ initialFiles: { 'src/a.ts': 'a\n', 'lib/b.ts': 'b\n', 'docs/c.md': 'c\n', '.gitignore': '' } });
  });
  afterEach(() => repo.remove());

  it('lets everything through when no wave is active', () => {
    repo.write({ 'lib/b.ts': 'changed\n' });
    repo.git('add', 'lib/b.ts');
    const run = guard();
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stderr, '');
  });

  it('blocks a commit of an agent started as one of a wave (WAVE_SCOPE_AGENT) when no wave is active: its plan may have been moved away', () => {
    repo.write({ 'src/a.ts': 'changed\n' });
    repo.git('add', 'src/a.ts');
    const run = guard({ WAVE_SCOPE_AGENT: 'alice' });
    assert.equal(run.status, 1, run.stderr);
    assert.match(run.stderr, /runs as agent "alice" of a wave \(WAVE_SCOPE_AGENT\), but no wave manifest is in force here/);
    // With the plan in force, the variable changes nothing the guard decides.
    writeManifest(repo, { wave: 1, allowedPaths: ['src/'] });
    const planned = guard({ WAVE_SCOPE_AGENT: 'alice' });
    assert.equal(planned.status, 0, planned.stderr);
  });

  const cases: Array<{ name: string; stage: (repo: TempGitRepo) => void; status: number; names?: string[]; notNames?: string[] }> = [
    { name: 'a modification inside the scope', stage: (r) => { r.write({ 'src/a.ts': 'x\n' }); r.git('add', 'src/a.ts'); }, status: 0 },
    { name: 'a new file inside the scope', stage: (r) => { r.write({ 'src/new.ts': 'x\n' }); r.git('add', 'src/new.ts'); }, status: 0 },
    { name: 'a modification outside the scope', stage: (r) => { r.write({ 'lib/b.ts': 'x\n' }); r.git('add', 'lib/b.ts'); }, status: 1, names: ['lib/b.ts (M)'] },
    { name: 'a deletion outside the scope', stage: (r) => r.git('rm', '--quiet', 'docs/c.md'), status: 1, names: ['docs/c.md (D)'] },
    { name: 'a rename out of the scope (destination outside)', stage: (r) => r.git('mv', 'src/a.ts', 'lib/a.ts'), status: 1, names: ['lib/a.ts (R100)'], notNames: ['src/a.ts (R100)'] },
    { name: 'a rename into the scope (source outside)', stage: (r) => r.git('mv', 'lib/b.ts', 'src/b.ts'), status: 1, names: ['lib/b.ts (R100)'], notNames: ['src/b.ts (R100)'] },
    { name: 'the wave\'s own control state', stage: (r) => r.git('add', '-f', '.claude/wave-scope.json'), status: 0 },
  ];
  for (const { name, stage, status, names, notNames } of cases) {
    it(`${status === 0 ? 'allows' : 'blocks'} ${name}`, () => {
      writeManifest(repo, { wave: 1, allowedPaths: ['src/'] });
      stage(repo);
      const run = guard();
      assert.equal(run.status, status, run.stderr);
      for (const text of names ?? []) assert.ok(run.stderr.includes(`  ${text}: not in allowedPaths`), run.stderr);
      for (const text of notNames ?? []) assert.ok(!run.stderr.includes(`  ${text}:`), run.stderr);
      if (status === 1) assert.match(run.stderr, /git restore --staged/);
    });
  }

  describe('run by git as its pre-commit hook: the committing shell chooses neither the repository judged nor its case rule', () => {
    let elsewhere: string;
    beforeEach(() => {
      elsewhere = mkdtempSync(join(tmpdir(), 'wave-scope-elsewhere-'));
      writeFileSync(join(repo.root, '.git/hooks/pre-commit'), `#!/bin/sh\nexec "${process.execPath}" "${builtCliPath}" hook commit-guard\n`, { mode: 0o755 });
      writeManifest(repo, { wave: 1, allowedPaths: ['src/'] });
    });
    afterEach(() => rmSync(elsewhere, { recursive: true, force: true }));

    /** `git commit` as the shell runs it, with `flags` before the subcommand, from `cwd`, with `env` added. */
    const commit = (flags: string[], options: { cwd?: string; env?: Record<string, string> } = {}) =>
      spawnSync('git', [...flags, '-c', 'user.name=t', '-c', 'user.email=t@example.invalid', 'commit', '-q', '-m', 'x'], {
        cwd: options.cwd ?? repo.root,
        env: cleanEnv(options.env),
        encoding: 'utf8',
      });
    const head = () => repo.git('rev-parse', 'HEAD').trim();

    it('blocks an out-of-scope commit made with the work tree pointed at an empty directory, or GIT_DIR from one', () => {
      repo.write({ 'lib/b.ts': 'x\n' });
      repo.git('add', 'lib/b.ts');
      const before = head();
      const attempts: Array<{ flags: string[]; cwd?: string; env?: Record<string, string> }> = [
        { flags: [`--work-tree=${elsewhere}`] },
        { flags: [], env: { GIT_WORK_TREE: elsewhere } },
        { flags: [], cwd: elsewhere, env: { GIT_DIR: join(repo.root, '.git') } },
      ];
      for (const attempt of attempts) {
        const run = commit(attempt.flags, attempt);
        assert.notEqual(run.status, 0, `${JSON.stringify(attempt)}: ${run.stderr}`);
        assert.match(run.stderr, /lib\/b\.ts \(M\): not in allowedPaths/, JSON.stringify(attempt));
        assert.equal(head(), before, 'nothing committed');
      }
      // The plain commit from the checkout, for comparison, and an in-scope one through the same detour.
      assert.notEqual(commit([]).status, 0);
      repo.git('restore', '--staged', 'lib/b.ts');
      repo.write({ 'src/a.ts': 'y\n' });
      repo.git('add', 'src/a.ts');
      const allowed = commit([`--work-tree=${elsewhere}`]);
      assert.equal(allowed.status, 0, allowed.stderr);
    });

    it('takes core.ignorecase from the repository alone, not from the shell\'s GIT_CONFIG_* or global config', () => {
      repo.write({ 'SRC/evil.ts': 'x\n' });
      repo.git('add', 'SRC/evil.ts');
      const global = join(elsewhere, 'gitconfig');
      writeFileSync(global, '[core]\n\tignorecase = true\n');
      const environments: Array<Record<string, string>> = [{ GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'core.ignorecase', GIT_CONFIG_VALUE_0: 'true' }, { GIT_CONFIG_GLOBAL: global }, { HOME: elsewhere, XDG_CONFIG_HOME: elsewhere }];
      for (const env of environments) {
        if ('HOME' in env) writeFileSync(join(elsewhere, '.gitconfig'), '[core]\n\tignorecase = true\n');
        const run = commit([], { env });
        assert.notEqual(run.status, 0, `${JSON.stringify(env)}: ${run.stderr}`);
        assert.match(run.stderr, /SRC\/evil\.ts \(A\): not in allowedPaths/);
      }
    });
  });

  it('the committing shell\'s session id cannot make the wave foreign; one that contradicts the binding blocks', () => {
    writeManifest(repo, { allowedPaths: ['src/'], session_id: 'coordinator' });
    repo.write({ 'lib/b.ts': 'x\n' });
    repo.git('add', 'lib/b.ts');
    assert.equal(guard({ CLAUDE_CODE_SESSION_ID: 'coordinator' }).status, 1, 'its own session: enforced');
    assert.equal(guard().status, 1, 'no identity: enforced');
    repo.git('reset', '--quiet', 'lib/b.ts');
    repo.write({ 'src/a.ts': 'x\n' });
    repo.git('add', 'src/a.ts');
    assert.equal(guard({ CLAUDE_CODE_SESSION_ID: 'coordinator' }).status, 0);
    const claimed = guard({ CLAUDE_CODE_SESSION_ID: 'someone-else' });
    assert.equal(claimed.status, 1, 'a shell claiming another session is blocked, even for a path in scope');
    assert.match(claimed.stderr, /says it is session "someone-else".*bound to "coordinator"/);
  });

  it('every wave of the checkout must allow: a peer\'s manifest in another state dir is not chosen away by the shell', () => {
    writeManifest(repo, { allowedPaths: ['src/'], session_id: 'ours' }, '.claude');
    writeManifest(repo, { allowedPaths: ['src/', 'lib/'], session_id: 'peer' }, '.pi');
    repo.write({ 'lib/b.ts': 'x\n' });
    repo.git('add', 'lib/b.ts');
    const run = guard();
    assert.equal(run.status, 1);
    assert.match(run.stderr, /\.claude\/wave-scope\.json/);
  });

  it('a submodule bump counts, even where .gitmodules says ignore = all', () => {
    const sub = createTempGitRepo({ initialFiles: { 'lib.ts': 'v1\n' } });
    try {
      repo.git('-c', 'protocol.file.allow=always', 'submodule', 'add', '--quiet', sub.root, 'vendor/sub');
      repo.git('config', '-f', '.gitmodules', 'submodule.vendor/sub.ignore', 'all');
      repo.git('add', '.gitmodules');
      repo.git('commit', '--quiet', '-m', 'submodule');
      sub.commit({ 'lib.ts': 'v2\n' }, 'bump');
      execFileSync('git', ['-C', join(repo.root, 'vendor/sub'), '-c', 'protocol.file.allow=always', 'pull', '--quiet', 'origin', 'main'], { stdio: 'ignore' });
      repo.git('add', 'vendor/sub');
      assert.match(repo.git('diff', '--cached', '--name-status', '--ignore-submodules=none'), /vendor\/sub/);
      writeManifest(repo, { allowedPaths: ['src/'] });
      const run = guard();
      assert.equal(run.status, 1, run.stderr);
      assert.match(run.stderr, /vendor\/sub \(M\)/);
    } finally {
      sub.remove();
    }
  });

  it('warn reports and lets the commit through; off is silent', () => {
    writeManifest(repo, { allowedPaths: ['src/'], enforcement: 'warn' });
    repo.write({ 'lib/b.ts': 'x\n' });
    repo.git('add', 'lib/b.ts');
    const warned = guard();
    assert.equal(warned.status, 0);
    assert.match(warned.stderr, /enforcement "warn"/);
    assert.match(warned.stderr, /lib\/b\.ts/);
    writeManifest(repo, { allowedPaths: ['src/'], enforcement: 'off' });
    const off = guard();
    assert.equal(off.status, 0);
    assert.equal(off.stderr, '');
  });

  it('blocks while the manifest is corrupt and says how to repair it', () => {
    repo.write({ '.claude/wave-scope.json': '{oops' });
    const run = guard();
    assert.equal(run.status, 1);
    assert.match(run.stderr, /unusable.*wave-scope plan/s);
  });

  describe('earlier waves of this session (their sidecar not older than the recorded session start)', () => {
    const SESSION = 'coordinator-session';
    beforeEach(() => {
      writeManifest(repo, { wave: 2, allowedPaths: ['src/'], session_id: SESSION });
      repo.write({
        '.claude/filescopes/wave-1.scopes.json': JSON.stringify([
          { id: 'alice', files: ['lib/'] },
          { id: 'peer-session-xyz', files: ['docs/'] },
        ]),
      });
      repo.write({ 'lib/b.ts': 'x\n', 'docs/c.md': 'x\n' });
    });
    const sidecar = () => join(repo.root, '.claude/filescopes/wave-1.scopes.json');
    /** What the agent CLI's SessionStart hook does: `wave-scope hook session-start` with its payload. */
    const sessionStart = (sessionId: string) =>
      runBuiltCli(['hook', 'session-start', '--agent-cli', 'claude'], { cwd: repo.root, env: cleanEnv(), input: JSON.stringify({ session_id: sessionId, cwd: repo.root, hook_event_name: 'SessionStart', source: 'startup' }) });
    const recordStart = () => (JSON.parse(readFileSync(join(repo.root, '.claude/wave-scope-session.json'), 'utf8')) as { started_at: number }).started_at;
    const age = (path: string, ms: number) => {
      const when = new Date(Date.now() - ms);
      utimesSync(path, when, when);
    };

    it('the SessionStart hook records the session; a resumed session keeps its first start; it never blocks and prints nothing', () => {
      const first = sessionStart(SESSION);
      assert.equal(first.status, 0);
      assert.equal(first.stdout, '');
      const started = recordStart();
      const resumed = sessionStart(SESSION);
      assert.equal(resumed.status, 0);
      assert.equal(recordStart(), started);
      const broken = runBuiltCli(['hook', 'session-start'], { cwd: repo.root, env: cleanEnv(), input: 'not json' });
      assert.equal(broken.status, 0);
      assert.equal(broken.stdout, '');
    });

    it('admits a path an earlier wave declared after the recorded start, naming the wave', () => {
      age(sidecar(), 0);
      writeFileSync(join(repo.root, '.claude/wave-scope-session.json'), JSON.stringify({ version: 1, session_id: SESSION, started_at: Date.now() - 3_600_000 }));
      repo.git('add', 'lib/b.ts');
      const run = guard();
      assert.equal(run.status, 0, run.stderr);
      assert.match(run.stderr, /lib\/b\.ts belongs to wave 1 of this session — allowed\./);
    });

    it('no earlier wave counts without a record of the bound session, or when the sidecar is older than the start', () => {
      repo.git('add', 'lib/b.ts');
      assert.equal(guard().status, 1, 'no record');
      writeFileSync(join(repo.root, '.claude/wave-scope-session.json'), JSON.stringify({ version: 1, session_id: 'another-session', started_at: 0 }));
      assert.equal(guard().status, 1, 'a record of another session');
      writeFileSync(join(repo.root, '.claude/wave-scope-session.json'), JSON.stringify({ version: 1, session_id: SESSION, started_at: Date.now() - 3_600_000 }));
      age(sidecar(), 7_200_000);
      assert.equal(guard().status, 1, 'the sidecar is older than the session');
    });

    it('WAVE_SCOPE_SESSION_START from the shell cannot widen: without a record it is not believed, earlier than the record it blocks, later it narrows', () => {
      repo.git('add', 'lib/b.ts');
      const unbelieved = guard({ WAVE_SCOPE_SESSION_START: String(Date.now() - 3_600_000) });
      assert.equal(unbelieved.status, 1);
      assert.match(unbelieved.stderr, /WAVE_SCOPE_SESSION_START is not believed/);
      writeFileSync(join(repo.root, '.claude/wave-scope-session.json'), JSON.stringify({ version: 1, session_id: SESSION, started_at: Date.now() - 60_000 }));
      age(sidecar(), 30_000);
      const earlier = guard({ WAVE_SCOPE_SESSION_START: String(Date.now() - 3_600_000) });
      assert.equal(earlier.status, 1);
      assert.match(earlier.stderr, /earlier than the session's recorded start/);
      assert.equal(guard({ WAVE_SCOPE_SESSION_START: String(Date.now() - 10_000) }).status, 1, 'a later start leaves the older sidecar out');
      assert.equal(guard().status, 0, 'the record alone admits it');
    });

    it('never counts a peer session\'s record', () => {
      writeFileSync(join(repo.root, '.claude/wave-scope-session.json'), JSON.stringify({ version: 1, session_id: SESSION, started_at: Date.now() - 3_600_000 }));
      repo.git('add', 'docs/c.md');
      const run = guard();
      assert.equal(run.status, 1);
      assert.match(run.stderr, /docs\/c\.md \(M\)/);
    });
  });
});
