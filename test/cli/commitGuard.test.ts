import assert from 'node:assert/strict';
import { utimesSync } from 'node:fs';
import { join } from 'node:path';
import { runBuiltCli } from '../support/builtCli';
import { writeManifest } from '../support/hookFixtures';
import { createTempGitRepo } from '../support/tempGitRepo';
import type { TempGitRepo } from '../support/tempGitRepo';

function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith('WAVE_SCOPE_') || key === 'CLAUDE_CODE_SESSION_ID') delete env[key];
  return { ...env, ...extra };
}

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

  it('stands down for a foreign session and enforces for its own', () => {
    writeManifest(repo, { allowedPaths: ['src/'], session_id: 'coordinator' });
    repo.write({ 'lib/b.ts': 'x\n' });
    repo.git('add', 'lib/b.ts');
    assert.equal(guard({ CLAUDE_CODE_SESSION_ID: 'someone-else' }).status, 0);
    assert.equal(guard({ CLAUDE_CODE_SESSION_ID: 'coordinator' }).status, 1);
    assert.equal(guard().status, 1, 'no identity: cannot prove foreign, enforced');
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

  describe('earlier waves of this session (their sidecar not older than the session start)', () => {
    beforeEach(() => {
      writeManifest(repo, { wave: 2, allowedPaths: ['src/'] });
      repo.write({
        '.claude/filescopes/wave-1.scopes.json': JSON.stringify([
          { id: 'alice', files: ['lib/'] },
          { id: 'peer-session-xyz', files: ['docs/'] },
        ]),
      });
      repo.write({ 'lib/b.ts': 'x\n', 'docs/c.md': 'x\n' });
    });
    const sidecar = () => join(repo.root, '.claude/filescopes/wave-1.scopes.json');

    it('admits a path an earlier wave declared, naming the wave', () => {
      repo.git('add', 'lib/b.ts');
      const run = guard({ WAVE_SCOPE_SESSION_START: String(Date.now() - 3_600_000) });
      assert.equal(run.status, 0, run.stderr);
      assert.match(run.stderr, /lib\/b\.ts belongs to wave 1 of this session — allowed\./);
    });

    it('does not count the earlier wave without a session clock, or when the sidecar is older than the session', () => {
      repo.git('add', 'lib/b.ts');
      assert.equal(guard().status, 1);
      const old = new Date(Date.now() - 7_200_000);
      utimesSync(sidecar(), old, old);
      assert.equal(guard({ WAVE_SCOPE_SESSION_START: new Date(Date.now() - 3_600_000).toISOString() }).status, 1);
    });

    it('never counts a peer session\'s record', () => {
      repo.git('add', 'docs/c.md');
      const run = guard({ WAVE_SCOPE_SESSION_START: String(Date.now() - 3_600_000) });
      assert.equal(run.status, 1);
      assert.match(run.stderr, /docs\/c\.md \(M\)/);
    });
  });
});
