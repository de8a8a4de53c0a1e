// `wave-scope doctor` through the built CLI, headless: every agent CLI's installed command and the
// git pre-commit hook are run with synthetic payloads, and reported working, broken or not installed.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanEnv, runBuiltCli, runBuiltCliWithin } from '../support/builtCli';
import { writeManifest } from '../support/hookFixtures';
import { createTempGitRepo } from '../support/tempGitRepo';
import type { TempGitRepo } from '../support/tempGitRepo';

interface Report {
  results: Array<{ target: string; status: string; file?: string; command?: string; checks: Array<{ name: string; ok: boolean; detail: string; worktree?: string }> }>;
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

  it('says when the pre-commit hook has no guard because an install-hooks run stopped while chaining it, and how to finish or undo it', () => {
    const hook = join(repo.root, '.git/hooks/pre-commit');
    const saved = `${hook}.wave-scope-chained`;
    const gitDetail = () => {
      const { status, report } = doctor('--git');
      assert.equal(status, 0);
      const git = report.results.find((result) => result.target === 'git');
      assert.equal(git?.status, 'not-installed');
      return git?.checks[0]?.detail ?? '';
    };
    writeFileSync(hook, '#!/usr/bin/env node\nconsole.log("checks")\n');
    chmodSync(hook, 0o755);
    // What chaining's first step leaves: the hook in place and saved beside itself.
    linkSync(hook, saved);
    assert.match(gitDetail(), /pre-commit\.wave-scope-chained holds the same hook, saved before the wrapper was to replace it: an install-hooks run stopped while chaining it\. Run "wave-scope install-hooks --git" to finish it, or "wave-scope install-hooks --git --uninstall" to undo it/);
    // What an earlier version's first step left: the saved hook alone.
    rmSync(hook);
    assert.match(gitDetail(), /holds the hook it saved, and nothing is in its place: an install-hooks run stopped while chaining it/);
    // Another hook in place is no unfinished chain of it.
    writeFileSync(hook, '#!/bin/sh\necho other\n');
    chmodSync(hook, 0o755);
    assert.equal(gitDetail(), `no Wave Scope commit guard in ${hook}`);
  });

  it('does not hang on a FIFO at a settings file\'s, the launcher\'s or the pre-commit hook\'s path: it holds no hook, or the launcher is broken', () => {
    assert.equal(cli('install-hooks', '--codex', '--gemini', '--git').status, 0);
    const fifo = (file: string) => {
      rmSync(join(repo.root, file), { force: true });
      execFileSync('mkdir', ['-p', join(repo.root, file, '..')]);
      execFileSync('mkfifo', [join(repo.root, file)]);
    };
    fifo('.claude/settings.json');
    fifo('.codex/hooks.json');
    fifo('.claude/wave-scope-hook.cjs');
    const run = runBuiltCliWithin(['doctor', '--json'], 20_000, { cwd: repo.root, env: cleanEnv() });
    assert.equal(run.signal, null, 'doctor hung');
    const report = JSON.parse(run.stdout) as Report;
    assert.deepEqual(statusOf(report), { claude: 'not-installed', codex: 'not-installed', cursor: 'not-installed', gemini: 'broken', git: 'broken' });
    for (const target of ['gemini', 'git']) assert.match(JSON.stringify(report.results.find((result) => result.target === target)?.checks), /wave-scope-hook\.cjs is not a regular file/);
    fifo('.git/hooks/pre-commit');
    const again = runBuiltCliWithin(['doctor', '--json', '--git'], 20_000, { cwd: repo.root, env: cleanEnv() });
    assert.equal(again.signal, null, 'doctor hung');
    assert.equal(statusOf(JSON.parse(again.stdout) as Report).git, 'not-installed');
  });

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
    // After the write gate's three checks, one per further hook of the CLI (the backstop's and the dispatch guard's).
    const further: Record<string, string[]> = {
      claude: ['runs', 'runs', 'runs', 'shell-check', 'runs', 'runs', 'runs'],
      codex: ['runs', 'shell-check', 'runs', 'runs', 'runs'],
      cursor: [],
      gemini: ['runs'],
      git: [],
    };
    for (const result of report.results) {
      assert.deepEqual(result.checks.map((check) => check.name), ['installed', 'deny-outside', 'allow-inside', ...(further[result.target] ?? [])], result.target);
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

  it("with husky's layout, proves the guard in .husky/pre-commit through husky's runner, and names the runner when husky has not made it", () => {
    // husky v9: git runs the generated .husky/_/pre-commit, which runs the user's .husky/pre-commit through sh
    // (not executable, as husky's hook files usually are not).
    const HUSKY_RUNNER = '#!/bin/sh\nexec sh -e "$(dirname "$0")/../pre-commit" "$@"\n';
    repo.write({ '.husky/pre-commit': 'exit 0\n', '.husky/_/pre-commit': HUSKY_RUNNER });
    chmodSync(join(repo.root, '.husky/_/pre-commit'), 0o755);
    repo.git('config', 'core.hooksPath', '.husky/_');
    assert.equal(cli('install-hooks', '--git').status, 0);
    const git = () => doctor('--git').report.results.find((result) => result.target === 'git');
    let result = git();
    assert.equal(result?.status, 'working', JSON.stringify(result, null, 2));
    assert.equal(result?.file, join(repo.root, '.husky/pre-commit'));
    assert.equal(result?.checks.find((check) => check.name === 'runs'), undefined, 'git runs it: no "runs" problem');

    rmSync(join(repo.root, '.husky/_/pre-commit'));
    result = git();
    assert.equal(result?.status, 'broken');
    assert.match(result?.checks.find((check) => check.name === 'runs')?.detail ?? '', /^git runs .*\.husky\/_\/pre-commit, which is not there \(husky generates it/);
  });

  it('proves the post-shell check blocks, and reports a missing row or a fail-open hook whose launcher cannot run as broken', () => {
    assert.equal(cli('install-hooks', '--claude').status, 0);
    let { report } = doctor('--claude');
    const claude = () => report.results.find((result) => result.target === 'claude');
    assert.equal(claude()?.status, 'working', JSON.stringify(report, null, 2));
    assert.match(claude()?.checks.find((check) => check.name === 'shell-check')?.detail ?? '', /post-bash \(PostToolUse Bash\): a shell call that writes outside every scope is blocked/);
    assert.match(claude()?.checks.map((check) => check.detail).join('\n') ?? '', /pre-dispatch \(PreToolUse Agent\|Task\) runs \(it fails open\)/);
    assert.deepEqual(repo.git('status', '--porcelain', '--ignored').split('\n').filter((line) => line !== '' && !line.includes('.claude/')), [], 'the probes leave nothing in the repository');

    // The dispatch guard's row taken out by hand: the write gate still works, the CLI is not.
    const settingsPath = join(repo.root, '.claude/settings.json');
    const settings = JSON.parse(readFileSync(settingsPath, 'utf8')) as { hooks: Record<string, Array<{ matcher?: string }>> };
    settings.hooks.PreToolUse = (settings.hooks.PreToolUse ?? []).filter((group) => group.matcher !== 'Agent|Task');
    writeFileSync(settingsPath, JSON.stringify(settings, null, 2));
    ({ report } = doctor('--claude'));
    assert.equal(claude()?.status, 'broken');
    assert.match(claude()?.checks.find((check) => !check.ok)?.detail ?? '', /pre-dispatch \(PreToolUse Agent\|Task\) is not installed in .*run "wave-scope install-hooks" to add it/);

    // A launcher that cannot start: a fail-open hook lets its call through, says so, and the doctor reports it.
    assert.equal(cli('install-hooks', '--claude').status, 0);
    rmSync(join(repo.root, '.claude/wave-scope-hook.cjs'));
    ({ report } = doctor('--claude'));
    assert.match(claude()?.checks.find((check) => check.detail.startsWith('stop (Stop)'))?.detail ?? '', /did not run cleanly \(exit 0: /);
  });

  it('checks each linked worktree that runs its own hook file, and names one added after install-hooks ran with the command that guards it', () => {
    repo.write({ '.githooks/pre-commit': '#!/bin/sh\nexit 0\n' });
    chmodSync(join(repo.root, '.githooks/pre-commit'), 0o755);
    repo.git('add', '.githooks');
    repo.git('commit', '--quiet', '-m', 'tracked hooks');
    repo.git('config', 'core.hooksPath', '.githooks');
    const agent = `${repo.root}-agent`;
    const late = `${repo.root}-late`;
    try {
      repo.git('worktree', 'add', '--quiet', agent, '-b', 'agent');
      assert.equal(cli('install-hooks', '--git').status, 0);
      const installed = doctor('--git');
      assert.equal(installed.status, 0, JSON.stringify(installed.report, null, 2));
      const worktreeChecks = (report: Report) => report.results.find((result) => result.target === 'git')?.checks.filter((check) => check.name === 'worktree') ?? [];
      assert.deepEqual(worktreeChecks(installed.report).map((check) => check.ok), [true]);
      assert.ok(worktreeChecks(installed.report)[0]?.detail.includes(`commit guard in ${join(agent, '.githooks/pre-commit')}`));

      // A worktree added after the install runs its own copy, without the guard.
      repo.git('worktree', 'add', '--quiet', late, '-b', 'late');
      const unguarded = doctor('--git');
      assert.equal(unguarded.status, 1);
      assert.equal(statusOf(unguarded.report).git, 'broken');
      const failed = worktreeChecks(unguarded.report).filter((check) => !check.ok);
      assert.equal(failed.length, 1, JSON.stringify(failed));
      assert.ok(failed[0]?.detail.includes(`the worktree ${late} runs its own pre-commit hook, ${join(late, '.githooks/pre-commit')}, which has no Wave Scope commit guard`), failed[0]?.detail);
      assert.match(failed[0]?.detail ?? '', /a worktree added since install-hooks last ran is not guarded until it runs again\)\. Run "wave-scope install-hooks --git" to guard it\./);
      const text = cli('doctor', '--git');
      assert.equal(text.status, 1);
      assert.ok(text.stdout.includes(`FAILED: the worktree ${late} runs its own pre-commit hook`), text.stdout);

      assert.equal(cli('install-hooks', '--git').status, 0);
      const again = doctor('--git');
      assert.equal(again.status, 0, JSON.stringify(again.report, null, 2));
      assert.deepEqual(worktreeChecks(again.report).map((check) => [check.worktree, check.ok]), [[agent, true], [late, true]]);
    } finally {
      for (const path of [agent, late]) rmSync(path, { recursive: true, force: true });
    }
  });

  it('prints its usage and refuses a directory outside git', () => {
    const help = cli('doctor', '--help');
    assert.equal(help.status, 0);
    assert.match(help.stdout, /^Usage: wave-scope doctor/);
    assert.equal(cli('doctor', '--frobnicate').status, 2);
  });
});
