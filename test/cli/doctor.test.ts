// `wave-scope doctor` through the built CLI, headless: every agent CLI's installed command and the
// git pre-commit hook are run with synthetic payloads, and reported working, broken or not installed.
import assert from 'node:assert/strict';
import { chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runBuiltCli } from '../support/builtCli';
import { writeManifest } from '../support/hookFixtures';
import { createTempGitRepo } from '../support/tempGitRepo';
import type { TempGitRepo } from '../support/tempGitRepo';

function cleanEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith('WAVE_SCOPE_') || key === 'CLAUDE_CODE_SESSION_ID' || key === 'CLAUDE_PROJECT_DIR') delete env[key];
  return env;
}

interface Report {
  results: Array<{ target: string; status: string; command?: string; checks: Array<{ name: string; ok: boolean; detail: string }> }>;
}

describe('wave-scope doctor (built dist/cli.js, real repositories)', () => {
  let repo: TempGitRepo;
  const cli = (...args: string[]) => runBuiltCli(args, { cwd: repo.root, env: cleanEnv() });
  const doctor = (...args: string[]) => {
    const run = cli('doctor', '--json', ...args);
    return { status: run.status, report: JSON.parse(run.stdout) as Report, stderr: run.stderr };
  };
  const statusOf = (report: Report) => Object.fromEntries(report.results.map((result) => [result.target, result.status]));

  beforeEach(() => {
    repo = createTempGitRepo({ initialFiles: { 'src/a.ts': 'a\n' } });
  });
  afterEach(() => repo.remove());

  it('reports every agent CLI and git as not installed before install-hooks, and exits 0', () => {
    const { status, report } = doctor();
    assert.equal(status, 0);
    assert.deepEqual(statusOf(report), { claude: 'not-installed', codex: 'not-installed', cursor: 'not-installed', gemini: 'not-installed', git: 'not-installed' });
  });

  it('proves Claude Code, Codex, Cursor, Gemini CLI and git working once installed: a write outside every scope is denied in each CLI\'s format, one inside allowed', () => {
    assert.equal(cli('install-hooks', '--claude', '--codex', '--cursor', '--gemini', '--git').status, 0);
    const { status, report } = doctor();
    assert.equal(status, 0, JSON.stringify(report, null, 2));
    assert.deepEqual(statusOf(report), { claude: 'working', codex: 'working', cursor: 'working', gemini: 'working', git: 'working' });
    for (const result of report.results) {
      assert.deepEqual(result.checks.map((check) => check.name), ['installed', 'deny-outside', 'allow-inside'], result.target);
      assert.ok(result.command?.includes('wave-scope-hook.cjs'), 'the exact command line from the settings file');
    }
    const text = cli('doctor');
    assert.equal(text.status, 0);
    assert.match(text.stdout, /^claude: working$/m);
    assert.match(text.stdout, /5 working, 0 broken, 0 not installed/);
  });

  it('works while the repository\'s own wave is active (the allow probe writes inside that wave\'s scope)', () => {
    assert.equal(cli('install-hooks', '--claude', '--git').status, 0);
    writeManifest(repo, { allowedPaths: ['src/'] });
    const { status, report } = doctor('--claude', '--git');
    assert.equal(status, 0, JSON.stringify(report, null, 2));
    assert.deepEqual(statusOf(report), { claude: 'working', git: 'working' });
  });

  it('reports a deliberately broken launcher as broken, with why, and exits 1', () => {
    assert.equal(cli('install-hooks', '--claude', '--cursor', '--git').status, 0);
    writeFileSync(join(repo.root, '.claude/wave-scope-hook.cjs'), 'throw new Error("launcher sabotaged");\n');
    const { status, report } = doctor();
    assert.equal(status, 1);
    assert.deepEqual(statusOf(report), { claude: 'broken', codex: 'not-installed', cursor: 'broken', gemini: 'not-installed', git: 'broken' });
    const claude = report.results.find((result) => result.target === 'claude');
    assert.match(claude?.checks.find((check) => check.name === 'deny-outside')?.detail ?? '', /not by the gate's decision: .*launcher sabotaged/);
    assert.equal(claude?.checks.find((check) => check.name === 'allow-inside')?.ok, false);
    const text = cli('doctor', '--claude');
    assert.equal(text.status, 1);
    assert.match(text.stdout, /^claude: broken$/m);
    assert.match(text.stdout, /FAILED: /);
  });

  it('reports a gone launcher, a hook git will not run, and an outdated registration as broken', () => {
    assert.equal(cli('install-hooks', '--codex', '--git').status, 0);
    chmodSync(join(repo.root, '.git/hooks/pre-commit'), 0o644);
    const settings = join(repo.root, '.codex/hooks.json');
    writeFileSync(settings, readFileSync(settings, 'utf8').replace('apply_patch|Edit|Write|Bash|mcp__.*', 'apply_patch'));
    let { report } = doctor('--codex', '--git');
    assert.match(report.results.find((result) => result.target === 'git')?.checks.find((check) => check.name === 'runs')?.detail ?? '', /not executable/);
    assert.match(report.results.find((result) => result.target === 'codex')?.checks.find((check) => check.name === 'registration')?.detail ?? '', /run "wave-scope install-hooks"/);
    rmSync(join(repo.root, '.claude/wave-scope-hook.cjs'));
    ({ report } = doctor('--codex'));
    assert.equal(statusOf(report).codex, 'broken');
  });

  it('prints its usage and refuses a directory outside git', () => {
    const help = cli('doctor', '--help');
    assert.equal(help.status, 0);
    assert.match(help.stdout, /^Usage: wave-scope doctor/);
    assert.equal(cli('doctor', '--frobnicate').status, 2);
  });
});
