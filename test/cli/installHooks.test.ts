import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderLauncher } from '../../src/planner/enforce/launcherConfig';
import { builtCliPath, cleanEnv, runBuiltCli, runBuiltCliWithin } from '../support/builtCli';
import { claudeDecision, hookPayload, writeManifest } from '../support/hookFixtures';
import { makeOld, plantLeftover } from '../support/leftoverFiles';
import { createTempGitRepo } from '../support/tempGitRepo';
import type { TempGitRepo } from '../support/tempGitRepo';

const CLAUDE_SETTINGS = {
  model: 'opus',
  permissions: { allow: ['Bash(npm test)'] },
  hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'bash-guard.sh' }] }], Stop: [{ hooks: [{ type: 'command', command: 'notify.sh' }] }] },
};
const CODEX_HOOKS = { hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'codex-bash-check' }] }] } };

function readJson(path: string): unknown {
  return JSON.parse(readFileSync(path, 'utf8')) as unknown;
}

/** Runs a hook command exactly as an agent CLI does: through `sh -c`, payload on stdin. */
function runInstalledCommand(command: string, input: string, env: Record<string, string>) {
  return spawnSync('sh', ['-c', command], { input, encoding: 'utf8', env: cleanEnv(env) });
}

describe('wave-scope install-hooks (built dist/cli.js, real git repositories)', () => {
  let repo: TempGitRepo;
  const install = (...args: string[]) => runBuiltCli(['install-hooks', ...args], { cwd: repo.root, env: cleanEnv() });
  /** Stages a change outside `src/` (the test manifests' scope), expects the commit to be refused (matching `refusal`), and unstages it. */
  const commitOutsideScope = (message: string, refusal: RegExp = /(?:)/) => {
    repo.write({ 'lib/b.ts': 'changed\n' });
    repo.git('add', 'lib/b.ts');
    assert.throws(() => repo.git('commit', '--quiet', '-m', message), refusal);
    repo.git('reset', '--quiet', 'lib/b.ts');
  };
  /** Commits a change inside `src/`. */
  const commitInScope = (message: string) => {
    repo.write({ 'src/a.ts': 'changed\n' });
    repo.git('add', 'src/a.ts');
    repo.git('commit', '--quiet', '-m', message);
  };

  beforeEach(() => {
    repo = createTempGitRepo({ initialFiles: { 'src/a.ts': 'a\n', 'lib/b.ts': 'b\n' } });
    repo.write({ '.claude/settings.json': JSON.stringify(CLAUDE_SETTINGS, null, 4), '.codex/hooks.json': JSON.stringify(CODEX_HOOKS) });
  });
  afterEach(() => repo.remove());

  it('installs for every agent CLI whose config dir exists plus git, idempotently, and uninstalls back to the original', () => {
    const first = install();
    assert.equal(first.status, 0, first.stderr);
    const claude = readJson(join(repo.root, '.claude/settings.json')) as typeof CLAUDE_SETTINGS;
    assert.equal(claude.model, 'opus');
    assert.deepEqual(claude.permissions, CLAUDE_SETTINGS.permissions);
    // The user's Stop hook is kept first; ours, the backstop's end-of-turn check, comes after it.
    assert.deepEqual(claude.hooks.Stop[0], CLAUDE_SETTINGS.hooks.Stop[0]);
    assert.match(JSON.stringify(claude.hooks.Stop[1]), /wave-scope-hook\.cjs' stop --agent-cli claude/);
    assert.equal(claude.hooks.Stop.length, 2);
    assert.equal(claude.hooks.PreToolUse.length, 3);
    assert.deepEqual(claude.hooks.PreToolUse[0], CLAUDE_SETTINGS.hooks.PreToolUse[0]);
    assert.match(JSON.stringify(claude.hooks.PreToolUse[1]), /Edit\|Write\|MultiEdit\|NotebookEdit\|mcp__\.\*.*wave-scope-hook\.cjs.*--agent-cli claude/);
    assert.equal((claude.hooks.PreToolUse[1]?.hooks[0] as { onFailure?: string }).onFailure, 'block', 'Claude Code fails closed');
    assert.match(JSON.stringify(claude.hooks.PreToolUse[2]), /"matcher":"Agent\|Task".*pre-dispatch --agent-cli claude/);
    const events = claude.hooks as Record<string, unknown>;
    assert.match(JSON.stringify(events.SessionStart), /session-start --agent-cli claude \|\| \{ echo /);
    assert.match(JSON.stringify(events.SubagentStart), /subagent-start --agent-cli claude/);
    assert.match(JSON.stringify(events.PostToolUse), /"matcher":"Bash".*post-bash --agent-cli claude.*exit 2; \}/);
    assert.match(JSON.stringify(events.SubagentStop), /stop --agent-cli claude/);
    assert.match(JSON.stringify(events.UserPromptSubmit), /turn-start --agent-cli claude/);
    assert.match(readFileSync(join(repo.root, '.codex/hooks.json'), 'utf8'), /PostToolUse[\s\S]*post-bash --agent-cli codex/);
    assert.match(readFileSync(join(repo.root, '.codex/hooks.json'), 'utf8'), /apply_patch[\s\S]*--agent-cli codex/);
    assert.equal(existsSync(join(repo.root, '.cursor/hooks.json')), false, 'no .cursor directory: Cursor is not configured');
    assert.match(readFileSync(join(repo.root, '.git/hooks/pre-commit'), 'utf8'), /commit-guard \|\| exit 1/);
    assert.ok(existsSync(join(repo.root, '.claude/wave-scope-hook.cjs')));

    const snapshot = ['.claude/settings.json', '.codex/hooks.json', '.git/hooks/pre-commit', '.claude/wave-scope-hook.cjs'].map((path) => readFileSync(join(repo.root, path), 'utf8'));
    const second = install();
    assert.equal(second.status, 0);
    assert.match(second.stdout, /^unchanged /);
    assert.deepEqual(['.claude/settings.json', '.codex/hooks.json', '.git/hooks/pre-commit', '.claude/wave-scope-hook.cjs'].map((path) => readFileSync(join(repo.root, path), 'utf8')), snapshot);

    const dry = install('--uninstall', '--dry-run');
    assert.equal(dry.status, 0);
    assert.match(dry.stdout, /would write .*settings\.json/);
    assert.match(dry.stdout, /would remove .*pre-commit/);
    assert.equal(readFileSync(join(repo.root, '.claude/settings.json'), 'utf8'), snapshot[0], 'a dry run writes nothing');

    const removed = install('--uninstall');
    assert.equal(removed.status, 0, removed.stderr);
    assert.equal(readFileSync(join(repo.root, '.claude/settings.json'), 'utf8'), JSON.stringify(CLAUDE_SETTINGS, null, 4), 'byte for byte');
    assert.equal(readFileSync(join(repo.root, '.codex/hooks.json'), 'utf8'), JSON.stringify(CODEX_HOOKS), 'byte for byte');
    assert.equal(existsSync(join(repo.root, '.git/hooks/pre-commit')), false, 'the hook file we created is gone');
    assert.equal(existsSync(join(repo.root, '.claude/wave-scope-hook.cjs')), false);
  });

  it('the installed commands run headless with only Node: the Claude, Codex and Cursor gates and the commit guard', () => {
    assert.equal(install('--claude', '--codex', '--cursor', '--git').status, 0);
    writeManifest(repo, { allowedPaths: ['src/'] });
    const claude = readJson(join(repo.root, '.claude/settings.json')) as typeof CLAUDE_SETTINGS;
    const claudeCommand = claude.hooks.PreToolUse[1]?.hooks[0]?.command ?? '';
    const env = { CLAUDE_PROJECT_DIR: repo.root };
    const denied = runInstalledCommand(claudeCommand, hookPayload('claude-write', { cwd: repo.root, target: join(repo.root, 'lib/b.ts') }), env);
    assert.equal(claudeDecision(denied.stdout).decision, 'deny', denied.stderr);
    const allowed = runInstalledCommand(claudeCommand, hookPayload('claude-write', { cwd: repo.root, target: join(repo.root, 'src/a.ts') }), env);
    assert.equal(allowed.status, 0);
    assert.equal(allowed.stdout, '');

    const codex = readJson(join(repo.root, '.codex/hooks.json')) as typeof CODEX_HOOKS;
    const codexCommand = codex.hooks.PreToolUse[1]?.hooks[0]?.command ?? '';
    const patch = '*** Begin Patch\n*** Update File: lib/b.ts\n+x\n*** End Patch\n';
    assert.equal(claudeDecision(runInstalledCommand(codexCommand, hookPayload('codex-apply-patch', { cwd: repo.root, patch }), {}).stdout).decision, 'deny');

    const cursor = readJson(join(repo.root, '.cursor/hooks.json')) as { version: number; hooks: { preToolUse: Array<{ command: string }> } };
    assert.equal(cursor.version, 1);
    const cursorReply = runInstalledCommand(cursor.hooks.preToolUse[0]?.command ?? '', hookPayload('cursor-pretooluse', { cwd: repo.root, target: join(repo.root, 'lib/b.ts') }), {});
    assert.equal((JSON.parse(cursorReply.stdout) as { permission: string }).permission, 'deny');

    commitOutsideScope('out of scope', /lib\/b\.ts \(M\): not in allowedPaths/);
    commitInScope('in scope');
    assert.match(repo.git('log', '--oneline', '-1'), /in scope/);
  });

  it('the installed Gemini CLI gate runs for, and judges, an MCP tool as Gemini CLI 0.34 and later names it (mcp_<server>_<tool>)', () => {
    assert.equal(install('--gemini').status, 0);
    writeManifest(repo, { allowedPaths: ['src/'] });
    const gemini = readJson(join(repo.root, '.gemini/settings.json')) as { hooks: { BeforeTool: Array<{ matcher: string; hooks: Array<{ command: string }> }> } };
    const gate = gemini.hooks.BeforeTool.find((group) => /enforce-write/.test(group.hooks[0]?.command ?? ''));
    // Gemini CLI runs a BeforeTool hook when `new RegExp(matcher).test(tool_name)`.
    assert.ok(new RegExp(gate?.matcher ?? '^$').test('mcp_filesystem_edit_file'), gate?.matcher);
    const env = { GEMINI_PROJECT_DIR: repo.root, CLAUDE_PROJECT_DIR: repo.root };
    const decision = (target: string) => JSON.parse(runInstalledCommand(gate?.hooks[0]?.command ?? '', hookPayload('gemini-mcp-edit', { cwd: repo.root, target }), env).stdout || '{}') as { decision?: string };
    assert.equal(decision(join(repo.root, 'lib/b.ts')).decision, 'deny');
    assert.equal(decision(join(repo.root, 'src/a.ts')).decision, 'allow');
  });

  it('chains an existing shell pre-commit hook: the guard runs first, the hook still runs, uninstall restores it byte for byte', () => {
    const original = '#!/bin/sh\n# team checks\ntouch "$(git rev-parse --show-toplevel)/.team-hook-ran"\n';
    writeFileSync(join(repo.root, '.git/hooks/pre-commit'), original);
    chmodSync(join(repo.root, '.git/hooks/pre-commit'), 0o755);
    assert.equal(install('--git').status, 0);
    writeManifest(repo, { allowedPaths: ['src/'] });
    commitOutsideScope('blocked');
    assert.equal(existsSync(join(repo.root, '.team-hook-ran')), false, 'the guard ran first and stopped the commit');
    commitInScope('allowed');
    assert.equal(existsSync(join(repo.root, '.team-hook-ran')), true, 'the chained hook still ran');
    assert.equal(install('--git', '--uninstall').status, 0);
    assert.equal(readFileSync(join(repo.root, '.git/hooks/pre-commit'), 'utf8'), original);
  });

  it('guards commits even when the existing pre-commit hook is not executable (git skips it), which stays skipped and comes back as it was', () => {
    const original = '#!/bin/sh\ntouch "$(git rev-parse --show-toplevel)/.disabled-hook-ran"\n';
    writeFileSync(join(repo.root, '.git/hooks/pre-commit'), original);
    chmodSync(join(repo.root, '.git/hooks/pre-commit'), 0o644);
    assert.equal(install('--git').status, 0);
    writeManifest(repo, { allowedPaths: ['src/'] });
    commitOutsideScope('out of scope', /lib\/b\.ts \(M\): not in allowedPaths/);
    commitInScope('in scope');
    assert.equal(existsSync(join(repo.root, '.disabled-hook-ran')), false, 'a hook git skipped before the install is still skipped');
    assert.equal(install('--git', '--uninstall').status, 0);
    assert.equal(readFileSync(join(repo.root, '.git/hooks/pre-commit'), 'utf8'), original);
    assert.equal(statSync(join(repo.root, '.git/hooks/pre-commit')).mode & 0o777, 0o644);
  });

  it('chains a pre-commit hook that is not a shell script by renaming it, and renames it back on uninstall', () => {
    const original = '#!/usr/bin/env node\nrequire("fs").writeFileSync(".node-hook-ran", "yes");\n';
    writeFileSync(join(repo.root, '.git/hooks/pre-commit'), original);
    chmodSync(join(repo.root, '.git/hooks/pre-commit'), 0o755);
    assert.equal(install('--git').status, 0);
    assert.equal(readFileSync(join(repo.root, '.git/hooks/pre-commit.wave-scope-chained'), 'utf8'), original);
    writeManifest(repo, { allowedPaths: ['src/'] });
    commitInScope('allowed');
    assert.equal(existsSync(join(repo.root, '.node-hook-ran')), true);
    assert.equal(install('--git', '--uninstall').status, 0);
    assert.equal(readFileSync(join(repo.root, '.git/hooks/pre-commit'), 'utf8'), original);
    assert.equal(existsSync(join(repo.root, '.git/hooks/pre-commit.wave-scope-chained')), false);
  });

  it('chains a /bin/sh hook that execs itself in Node (a polyglot): commits go on running it, and uninstall gives it back byte for byte', () => {
    const original = '#!/bin/sh\n":" //; exec node "$0" "$@"\nrequire("fs").writeFileSync(".node-hook-ran", "yes\\n");\n';
    writeFileSync(join(repo.root, '.git/hooks/pre-commit'), original);
    chmodSync(join(repo.root, '.git/hooks/pre-commit'), 0o755);
    assert.equal(install('--git').status, 0);
    assert.equal(readFileSync(join(repo.root, '.git/hooks/pre-commit.wave-scope-chained'), 'utf8'), original, 'chained, not edited');
    commitInScope('no wave: the guard lets it through, and the hook runs');
    assert.equal(existsSync(join(repo.root, '.node-hook-ran')), true);
    writeManifest(repo, { allowedPaths: ['src/'] });
    commitOutsideScope('out of scope', /lib\/b\.ts \(M\): not in allowedPaths/);
    assert.equal(install('--git', '--uninstall').status, 0);
    assert.equal(readFileSync(join(repo.root, '.git/hooks/pre-commit'), 'utf8'), original);
  });

  it('respects core.hooksPath and husky', () => {
    repo.git('config', 'core.hooksPath', '.githooks');
    assert.equal(install('--git').status, 0);
    assert.match(readFileSync(join(repo.root, '.githooks/pre-commit'), 'utf8'), /commit-guard/);
    assert.equal(existsSync(join(repo.root, '.git/hooks/pre-commit')), false);

    repo.git('config', 'core.hooksPath', '.husky/_');
    repo.write({ '.husky/pre-commit': 'npx lint-staged\n', '.husky/_/pre-commit': '#!/usr/bin/env sh\n. "$(dirname "$0")/h"\n' });
    assert.equal(install('--git').status, 0);
    const husky = readFileSync(join(repo.root, '.husky/pre-commit'), 'utf8');
    assert.ok(husky.startsWith('# >>> wave-scope commit guard >>>') && husky.endsWith('npx lint-staged\n'), husky);
    assert.equal(readFileSync(join(repo.root, '.husky/_/pre-commit'), 'utf8'), '#!/usr/bin/env sh\n. "$(dirname "$0")/h"\n', "husky's generated wrapper is untouched");
    assert.equal(install('--git', '--uninstall').status, 0);
    assert.equal(readFileSync(join(repo.root, '.husky/pre-commit'), 'utf8'), 'npx lint-staged\n');
  });

  it('husky: a chained .husky/pre-commit (a link to a script of mode 0644) goes on running, through sh -e as husky runs it', () => {
    // husky v9's generated runner, abridged to what runs here: the hook file through `sh -e`, whatever its mode.
    repo.write({
      '.husky/_/h': '#!/usr/bin/env sh\nn=$(basename "$0")\ns=$(dirname "$(dirname "$0")")/$n\n[ ! -f "$s" ] && exit 0\nsh -e "$s" "$@"\n',
      '.husky/_/pre-commit': '#!/usr/bin/env sh\n. "$(dirname "$0")/h"\n',
      'scripts/precommit.sh': 'touch .husky-hook-ran\n',
    });
    chmodSync(join(repo.root, '.husky/_/h'), 0o755);
    chmodSync(join(repo.root, '.husky/_/pre-commit'), 0o755);
    chmodSync(join(repo.root, 'scripts/precommit.sh'), 0o644);
    symlinkSync('../scripts/precommit.sh', join(repo.root, '.husky/pre-commit'));
    repo.git('config', 'core.hooksPath', '.husky/_');
    assert.equal(install('--git').status, 0);
    assert.ok(lstatSync(join(repo.root, '.husky/pre-commit.wave-scope-chained')).isSymbolicLink(), 'chained, link and all');
    commitInScope('no wave: the guard lets it through, and the hook runs');
    assert.equal(existsSync(join(repo.root, '.husky-hook-ran')), true, "the user's husky hook still runs");
    writeManifest(repo, { allowedPaths: ['src/'] });
    commitOutsideScope('out of scope', /lib\/b\.ts \(M\): not in allowedPaths/);
    assert.equal(install('--git', '--uninstall').status, 0);
    assert.equal(readlinkSync(join(repo.root, '.husky/pre-commit')), '../scripts/precommit.sh');
  });

  describe('linked worktrees that run their own copy of the hooks (a relative core.hooksPath)', () => {
    const AUTHOR = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };
    const worktrees: string[] = [];
    /** git in `cwd` as a person (or an agent) runs it there; throws with git's stderr when it fails. */
    const gitIn = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8', env: cleanEnv(AUTHOR), stdio: ['ignore', 'pipe', 'pipe'] });
    /** A linked worktree beside the repository, on a new branch (or `from`, when given). */
    const addWorktree = (name: string, from?: string) => {
      const path = `${repo.root}-${name}`;
      worktrees.push(path);
      if (from === undefined) repo.git('worktree', 'add', '--quiet', path, '-b', name);
      else repo.git('worktree', 'add', '--quiet', path, from);
      return path;
    };
    /** Stages `lib/b.ts` (outside the test manifest's `src/`) in `worktree` and commits it: the commit's result. */
    const commitOutsideScopeIn = (worktree: string) => {
      writeFileSync(join(worktree, 'lib/b.ts'), `changed in ${worktree}\n`);
      gitIn(worktree, 'add', 'lib/b.ts');
      const run = spawnSync('git', ['commit', '--quiet', '-m', 'out of scope'], { cwd: worktree, encoding: 'utf8', env: cleanEnv(AUTHOR) });
      return { status: run.status, stderr: run.stderr };
    };
    /** Each file's bytes and mode, to compare after uninstall. */
    const snapshot = (paths: string[]) => paths.map((path) => [path, readFileSync(path, 'base64'), statSync(path).mode & 0o7777]);
    const GITHOOKS = '#!/bin/sh\n# the team\'s checks\ntouch "$(git rev-parse --show-toplevel)/.team-hook-ran"\n';

    /** A tracked .githooks/pre-commit that git runs through core.hooksPath=.githooks. */
    const trackedGithooks = () => {
      repo.write({ '.githooks/pre-commit': GITHOOKS });
      chmodSync(join(repo.root, '.githooks/pre-commit'), 0o755);
      repo.git('add', '.githooks');
      repo.git('commit', '--quiet', '-m', 'tracked hooks');
      repo.git('config', 'core.hooksPath', '.githooks');
    };

    afterEach(() => {
      for (const path of worktrees.splice(0)) {
        spawnSync('git', ['worktree', 'unlock', path], { cwd: repo.root });
        rmSync(path, { recursive: true, force: true });
      }
    });

    it('guards every linked worktree\'s own .githooks/pre-commit: its out-of-scope commit is refused by the coordinator\'s wave, and uninstall gives each file back byte for byte with its mode', () => {
      trackedGithooks();
      const agent = addWorktree('agent');
      const second = addWorktree('second');
      // A mode of its own in one worktree, so that keeping it is seen.
      chmodSync(join(second, '.githooks/pre-commit'), 0o750);
      const files = [join(repo.root, '.githooks/pre-commit'), join(agent, '.githooks/pre-commit'), join(second, '.githooks/pre-commit')];
      const before = snapshot(files);

      const run = install('--git');
      assert.equal(run.status, 0, run.stderr);
      for (const file of files) {
        assert.ok(run.stdout.includes(`wrote ${file}`), run.stdout);
        assert.match(readFileSync(file, 'utf8'), /^#!\/bin\/sh\n# >>> wave-scope commit guard >>>[\s\S]*commit-guard \|\| exit 1\n# <<< wave-scope commit guard <<<\n# the team's checks\n/);
      }
      assert.equal(statSync(files[2] as string).mode & 0o7777, 0o750, 'the mode is kept');
      // What a person must know: the tracked file is modified in each checkout, and what `git add -A` does with it.
      assert.ok(run.stderr.includes(`${join(agent, '.githooks/pre-commit')} is tracked by git, so in ${agent} the commit guard shows as an uncommitted change to it`), run.stderr);
      assert.match(run.stderr, /"git add -A" or "git commit -a" there stages it/);
      assert.equal(gitIn(agent, 'status', '--porcelain'), ' M .githooks/pre-commit\n');

      // The guard in a linked worktree judges by the coordinator's wave (its manifest lives in the main checkout);
      // a manifest in the worktree itself, which its agent could write, is not read.
      writeManifest(repo, { allowedPaths: ['src/'] });
      mkdirSync(join(agent, '.claude'), { recursive: true });
      writeFileSync(join(agent, '.claude/wave-scope.json'), JSON.stringify({ version: 1, wave: 1, role: 'implementation', enforcement: 'off', allowedPaths: ['lib/'], blockedCommands: [] }));
      const refused = commitOutsideScopeIn(agent);
      assert.equal(refused.status, 1, 'the commit in the linked worktree is refused');
      assert.ok(refused.stderr.includes(`wave 1's scope (${join(repo.root, '.claude/wave-scope.json')})`), refused.stderr);
      assert.match(refused.stderr, /lib\/b\.ts \(M\): not in allowedPaths/);
      assert.equal(existsSync(join(agent, '.team-hook-ran')), false, 'the guard ran first');
      gitIn(agent, 'reset', '--quiet', 'lib/b.ts');
      gitIn(agent, 'checkout', '--quiet', '--', 'lib/b.ts');
      rmSync(join(agent, '.claude'), { recursive: true });
      // The guarded hook file staged by "git add -A" is refused too (unless the scope covers it), never committed.
      gitIn(agent, 'add', '-A');
      const everything = spawnSync('git', ['commit', '--quiet', '-m', 'everything'], { cwd: agent, encoding: 'utf8', env: cleanEnv(AUTHOR) });
      assert.equal(everything.status, 1);
      assert.match(everything.stderr, /\.githooks\/pre-commit \(M\): not in allowedPaths/);
      gitIn(agent, 'reset', '--quiet');
      // Inside the scope: the guard lets it through and the team's hook still runs.
      writeFileSync(join(second, 'src/a.ts'), 'in scope\n');
      gitIn(second, 'add', 'src/a.ts');
      gitIn(second, 'commit', '--quiet', '-m', 'in scope');
      assert.equal(existsSync(join(second, '.team-hook-ran')), true, 'the team\'s hook ran after the guard');
      rmSync(join(second, '.team-hook-ran'));

      assert.match(install('--git').stdout, /^unchanged /, 'a second install changes nothing');
      const removed = install('--git', '--uninstall');
      assert.equal(removed.status, 0, removed.stderr);
      assert.deepEqual(snapshot(files), before, 'every checkout\'s hook file byte for byte, with its mode');
      assert.equal(gitIn(agent, 'status', '--porcelain'), '');
      assert.equal(commitOutsideScopeIn(agent).status, 0, 'unguarded again');
    });

    it('husky: the linked worktree\'s .husky/pre-commit is guarded too, husky\'s generated _ directory untouched; a checkout husky has not set up is named', () => {
      const HUSKY_RUNNER = '#!/bin/sh\nexec sh "$(dirname "$0")/../pre-commit" "$@"\n';
      repo.write({ '.husky/pre-commit': 'touch "$(git rev-parse --show-toplevel)/.lint-staged-ran"\n', '.gitignore': '.husky/_/\n' });
      repo.git('add', '.husky', '.gitignore');
      repo.git('commit', '--quiet', '-m', 'husky');
      repo.git('config', 'core.hooksPath', '.husky/_');
      const agent = addWorktree('agent');
      const bare = addWorktree('fresh');
      // husky's prepare script ran in the main checkout and in `agent`, not in `fresh`.
      for (const checkout of [repo.root, agent]) {
        mkdirSync(join(checkout, '.husky/_'), { recursive: true });
        writeFileSync(join(checkout, '.husky/_/pre-commit'), HUSKY_RUNNER);
        chmodSync(join(checkout, '.husky/_/pre-commit'), 0o755);
      }
      const files = [repo.root, agent, bare].map((checkout) => join(checkout, '.husky/pre-commit'));
      const before = snapshot(files);
      const run = install('--git');
      assert.equal(run.status, 0, run.stderr);
      for (const file of files) assert.ok(readFileSync(file, 'utf8').startsWith('# >>> wave-scope commit guard >>>'), file);
      assert.equal(readFileSync(join(agent, '.husky/_/pre-commit'), 'utf8'), HUSKY_RUNNER, "husky's generated hook is untouched");
      assert.ok(run.stderr.includes(`in ${bare} git runs ${join(bare, '.husky/_/pre-commit')}, which is not there`), run.stderr);

      writeManifest(repo, { allowedPaths: ['src/'] });
      assert.equal(commitOutsideScopeIn(agent).status, 1, 'refused in the linked worktree');
      assert.equal(existsSync(join(agent, '.lint-staged-ran')), false);
      gitIn(agent, 'reset', '--quiet', 'lib/b.ts');
      gitIn(agent, 'checkout', '--quiet', '--', 'lib/b.ts');

      assert.equal(install('--git', '--uninstall').status, 0);
      assert.deepEqual(snapshot(files), before);
    });

    it('leaves alone a worktree that is locked, gone, or has no hook file, and says so; the plan names every checkout', () => {
      trackedGithooks();
      const agent = addWorktree('agent');
      const locked = addWorktree('locked');
      repo.git('worktree', 'lock', '--reason', 'on a disk that comes and goes', locked);
      const gone = addWorktree('gone');
      rmSync(gone, { recursive: true, force: true });
      // A branch from before the hooks were tracked: its checkout has no .githooks/pre-commit.
      const old = addWorktree('old', repo.git('rev-list', '--max-parents=0', 'HEAD').trim());
      const lockedBefore = snapshot([join(locked, '.githooks/pre-commit')]);

      const plan = install('--git', '--plan');
      assert.equal(plan.status, 0, plan.stderr);
      const parsed = JSON.parse(plan.stdout) as { worktrees: Array<{ worktree: string; status: string; current: boolean; tracked?: boolean }>; changes: Array<{ path: string }>; notes: string[] };
      assert.deepEqual(
        parsed.worktrees.map((worktree) => [worktree.worktree, worktree.status, worktree.current]),
        [
          [repo.root, 'planned', true],
          [agent, 'planned', false],
          [gone, 'prunable', false],
          [locked, 'locked', false],
          [old, 'no-hook-file', false],
        ],
      );
      assert.deepEqual(parsed.changes.map((change) => change.path).filter((path) => path.endsWith('pre-commit')), [join(repo.root, '.githooks/pre-commit'), join(agent, '.githooks/pre-commit')]);
      assert.equal(parsed.notes.length, 5, parsed.notes.join('\n'));

      const run = install('--git');
      assert.equal(run.status, 0, run.stderr);
      assert.ok(run.stderr.includes(`${locked} is locked ("git worktree lock": on a disk that comes and goes), so install-hooks left it alone: commits made there are not guarded.`), run.stderr);
      assert.ok(run.stderr.includes(`"git worktree unlock ${locked}"`), run.stderr);
      assert.ok(run.stderr.includes(`${gone} is not there (gitdir file points to non-existent location)`), run.stderr);
      assert.ok(run.stderr.includes(`${old} runs its own pre-commit hook, ${join(old, '.githooks/pre-commit')}, which is not there`), run.stderr);
      assert.deepEqual(snapshot([join(locked, '.githooks/pre-commit')]), lockedBefore, 'the locked worktree is untouched');
      assert.equal(existsSync(join(old, '.githooks')), false, 'nothing added to a checkout without the hook file');
      assert.equal(existsSync(gone), false);
      assert.match(readFileSync(join(agent, '.githooks/pre-commit'), 'utf8'), /commit-guard/);

      const removal = install('--git', '--uninstall');
      assert.equal(removal.status, 0, removal.stderr);
      assert.ok(removal.stderr.includes(`${locked} is locked`) && removal.stderr.includes('may still hold the commit guard'), removal.stderr);
      assert.equal(readFileSync(join(agent, '.githooks/pre-commit'), 'utf8'), GITHOOKS);
    });

    it('the plan a person confirmed covers the worktrees\' hook files, each checked again before it is written', () => {
      trackedGithooks();
      const agent = addWorktree('agent');
      const agentHook = join(agent, '.githooks/pre-commit');
      const confirm = (plan: string, ...args: string[]) => runBuiltCli(['install-hooks', ...args, '--confirmed-plan', '-'], { cwd: repo.root, env: cleanEnv(), input: plan });
      const plan = install('--git', '--plan');
      const change = (JSON.parse(plan.stdout) as { changes: Array<{ path: string; action: string; before: string; after: string; found: { kind: string } }> }).changes.find((item) => item.path === agentHook);
      assert.equal(change?.action, 'modify');
      assert.equal(change?.before, GITHOOKS);
      assert.match(change?.after ?? '', /commit-guard/);
      assert.equal(change?.found.kind, 'file');
      // Edited in the worktree after the plan was confirmed: nothing is written anywhere.
      writeFileSync(agentHook, `${GITHOOKS}echo an edit in the worktree\n`);
      const refused = confirm(plan.stdout, '--git');
      assert.equal(refused.status, 1, refused.stdout + refused.stderr);
      assert.ok(refused.stderr.includes(`${agentHook} changed after`), refused.stderr);
      assert.equal(readFileSync(join(repo.root, '.githooks/pre-commit'), 'utf8'), GITHOOKS, 'the main checkout untouched too');
      assert.equal(readFileSync(agentHook, 'utf8'), `${GITHOOKS}echo an edit in the worktree\n`);
      const again = install('--git', '--plan');
      assert.equal(confirm(again.stdout, '--git').status, 0);
      assert.match(readFileSync(agentHook, 'utf8'), /commit-guard[\s\S]*echo an edit in the worktree\n$/);
    });

    it('a worktree\'s hook file refusal (its block edited) stops the whole run, writing nothing', () => {
      trackedGithooks();
      const agent = addWorktree('agent');
      assert.equal(install('--git').status, 0);
      const agentHook = join(agent, '.githooks/pre-commit');
      const edited = readFileSync(agentHook, 'utf8').replace(' || exit 1\n', ' || exit 1\necho mine\n');
      writeFileSync(agentHook, edited);
      const main = readFileSync(join(repo.root, '.githooks/pre-commit'), 'utf8');
      const run = install('--git', '--uninstall');
      assert.equal(run.status, 1);
      assert.ok(run.stderr.includes(`${agentHook} holds Wave Scope's commit guard block`), run.stderr);
      assert.equal(readFileSync(join(repo.root, '.githooks/pre-commit'), 'utf8'), main);
      assert.equal(readFileSync(agentHook, 'utf8'), edited);
    });

    it('with hooks in the shared .git/hooks, the worktrees run that one hook: nothing per worktree', () => {
      const agent = addWorktree('agent');
      const run = install('--git', '--plan');
      const parsed = JSON.parse(run.stdout) as { worktrees: Array<{ worktree: string; status: string }>; notes: string[] };
      assert.deepEqual(parsed.worktrees.map((worktree) => [worktree.worktree, worktree.status]), [[repo.root, 'planned'], [agent, 'shared']]);
      assert.deepEqual(parsed.notes, []);
      assert.equal(install('--git').status, 0);
      writeManifest(repo, { allowedPaths: ['src/'] });
      assert.equal(commitOutsideScopeIn(agent).status, 1, 'the shared hook guards the worktree');
    });
  });

  it('prints its usage with --help, and refuses an unknown option or a directory outside git', () => {
    const help = install('--help');
    assert.equal(help.status, 0);
    assert.match(help.stdout, /^Usage: wave-scope install-hooks/);
    const bad = install('--vim');
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /--vim/);
    const outside = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-nogit-')));
    try {
      const run = runBuiltCli(['install-hooks'], { cwd: outside, env: cleanEnv() });
      assert.equal(run.status, 2);
      assert.match(run.stderr, /not inside a git checkout/);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
    const hookHelp = runBuiltCli(['hook', '--help'], { env: cleanEnv() });
    assert.equal(hookHelp.status, 0);
    assert.match(hookHelp.stdout, /enforce-write/);
    assert.equal(runBuiltCli(['hook', 'frobnicate'], { env: cleanEnv() }).status, 2);
  });

  it('refuses a settings file it cannot merge into and writes nothing', () => {
    repo.write({ '.claude/settings.json': '{ "hooks": [] }' });
    const run = install();
    assert.equal(run.status, 1);
    assert.match(run.stderr, /"hooks" in .*settings\.json is not a JSON object/);
    assert.match(run.stderr, /Nothing was written/);
    assert.equal(existsSync(join(repo.root, '.git/hooks/pre-commit')), false);
    assert.equal(existsSync(join(repo.root, '.claude/wave-scope-hook.cjs')), false);
  });

  describe('settings files and hooks are never damaged', () => {
    it('keeps a settings file\'s mode, number precision, duplicate keys and comments, and gives its bytes back on uninstall', () => {
      const text = '{\n  // kept\n  "n": 12345678901234567890,\n  "d": 1,\n  "d": 2,\n  "hooks": {}\n}\n';
      repo.write({ '.claude/settings.json': text });
      chmodSync(join(repo.root, '.claude/settings.json'), 0o600);
      assert.equal(install('--claude').status, 0);
      const installed = readFileSync(join(repo.root, '.claude/settings.json'), 'utf8');
      for (const kept of ['// kept', '12345678901234567890', '"d": 1,', '"d": 2,']) assert.ok(installed.includes(kept), kept);
      assert.equal(statSync(join(repo.root, '.claude/settings.json')).mode & 0o777, 0o600);
      repo.write({ '.claude/settings.json': installed.replace('"hooks": {', '"x": true,\n  "hooks": {') });
      assert.equal(install('--claude', '--uninstall').status, 0);
      assert.equal(readFileSync(join(repo.root, '.claude/settings.json'), 'utf8'), text.replace('"hooks": {}', '"x": true,\n  "hooks": {}').replace('"x": true,\n  "hooks": {}', '"x": true'), 'only ours removed; the edit made in between kept');
      assert.equal(statSync(join(repo.root, '.claude/settings.json')).mode & 0o777, 0o600);
    });

    it('a hook of the user\'s own that only mentions our launcher is theirs: install adds ours beside it, and uninstall leaves it byte for byte', () => {
      const own = (command: string) => ({ matcher: 'Write', hooks: [{ type: 'command', command }] });
      const text = `${JSON.stringify(
        {
          hooks: {
            PreToolUse: [own('cp .claude/wave-scope-hook.cjs /tmp/launcher-backup.cjs')],
            Stop: [own('node "$CLAUDE_PROJECT_DIR"/\'.claude/wave-scope-hook.cjs\' stop --agent-cli claude | tee -a .claude/stop.log')],
          },
        },
        null,
        2,
      )}\n`;
      repo.write({ '.claude/settings.json': text });
      assert.equal(install('--claude').status, 0);
      const installed = JSON.parse(readFileSync(join(repo.root, '.claude/settings.json'), 'utf8')) as { hooks: Record<string, Array<{ hooks: Array<{ command: string }> }>> };
      assert.equal(installed.hooks.Stop?.length, 2, 'ours beside theirs');
      assert.equal(installed.hooks.PreToolUse?.[0]?.hooks[0]?.command, 'cp .claude/wave-scope-hook.cjs /tmp/launcher-backup.cjs');
      assert.equal(install('--claude', '--uninstall').status, 0);
      assert.equal(readFileSync(join(repo.root, '.claude/settings.json'), 'utf8'), text);
    });

    it('refuses to edit a settings file that is not UTF-8 text, naming it, and never changes a byte of it; UTF-8 text comes back byte for byte', () => {
      const latin1 = Buffer.from('{\n  "model": "opus",\n  "env": { "TEAM": "caf\xe9" }\n}\n', 'latin1');
      writeFileSync(join(repo.root, '.claude/settings.json'), latin1);
      const run = install('--claude');
      assert.equal(run.status, 1, run.stdout);
      assert.ok(run.stderr.includes(`${join(repo.root, '.claude/settings.json')} cannot be edited without losing something (it is not UTF-8 text`), run.stderr);
      assert.deepEqual(readFileSync(join(repo.root, '.claude/settings.json')), latin1);
      const nothingOfOurs = install('--claude', '--uninstall');
      assert.equal(nothingOfOurs.status, 0, nothingOfOurs.stderr);
      assert.deepEqual(readFileSync(join(repo.root, '.claude/settings.json')), latin1, 'uninstall finds nothing of ours in it, and leaves it');
      const utf8 = Buffer.from('{\n  "model": "opus",\n  "env": { "TEAM": "caf\u00e9 \u{1F600}" }\n}\n', 'utf8');
      writeFileSync(join(repo.root, '.claude/settings.json'), utf8);
      assert.equal(install('--claude').status, 0);
      assert.equal(install('--claude', '--uninstall').status, 0);
      assert.deepEqual(readFileSync(join(repo.root, '.claude/settings.json')), utf8);
    });

    it('refuses to write through a settings file that is a link', () => {
      const elsewhere = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-dotfiles-')));
      try {
        writeFileSync(join(elsewhere, 'settings.json'), '{}\n');
        rmSync(join(repo.root, '.claude/settings.json'));
        symlinkSync(join(elsewhere, 'settings.json'), join(repo.root, '.claude/settings.json'));
        const run = install('--claude');
        assert.equal(run.status, 1);
        assert.match(run.stderr, /is a symbolic link/);
        assert.equal(readFileSync(join(elsewhere, 'settings.json'), 'utf8'), '{}\n');
      } finally {
        rmSync(elsewhere, { recursive: true, force: true });
      }
    });

    it('refuses to write settings or the launcher through a directory linked outside the repository', () => {
      const shared = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-shared-claude-')));
      try {
        writeFileSync(join(shared, 'settings.json'), '{}\n');
        rmSync(join(repo.root, '.claude'), { recursive: true, force: true });
        symlinkSync(shared, join(repo.root, '.claude'));
        const run = install('--claude');
        assert.equal(run.status, 1, run.stderr);
        assert.match(run.stderr, /outside this repository/);
        assert.equal(readFileSync(join(shared, 'settings.json'), 'utf8'), '{}\n');
        assert.equal(existsSync(join(shared, 'wave-scope-hook.cjs')), false);
      } finally {
        rmSync(shared, { recursive: true, force: true });
      }
    });

    it('uninstall refuses, as install does, to edit settings or delete the launcher through a state directory linked to another repository', () => {
      const other = createTempGitRepo({ initialFiles: { 'a.txt': 'a\n' } });
      try {
        other.write({ '.claude/settings.json': '{\n  "model": "opus"\n}\n' });
        assert.equal(runBuiltCli(['install-hooks', '--claude', '--git'], { cwd: other.root, env: cleanEnv() }).status, 0);
        const theirs = readFileSync(join(other.root, '.claude/settings.json'));
        const launcher = readFileSync(join(other.root, '.claude/wave-scope-hook.cjs'));
        rmSync(join(repo.root, '.claude'), { recursive: true, force: true });
        symlinkSync(join(other.root, '.claude'), join(repo.root, '.claude'));
        for (const args of [['--uninstall'], ['--claude', '--uninstall'], ['--uninstall', '--dry-run']]) {
          const run = install(...args);
          assert.equal(run.status, 1, `${args.join(' ')}: ${run.stdout}`);
          assert.match(run.stderr, /outside this repository[\s\S]*Uninstall from the repository it belongs to/);
        }
        assert.deepEqual(readFileSync(join(other.root, '.claude/settings.json')), theirs, "the other repository's gate is kept");
        assert.deepEqual(readFileSync(join(other.root, '.claude/wave-scope-hook.cjs')), launcher, "the other repository's launcher is kept");
        // A linked directory holding none of ours (one's dotfiles) has nothing to remove: no reason to refuse.
        assert.equal(runBuiltCli(['install-hooks', '--uninstall'], { cwd: other.root, env: cleanEnv() }).status, 0);
        const uninstalled = install('--uninstall');
        assert.equal(uninstalled.status, 0, uninstalled.stderr);
        assert.equal(readFileSync(join(other.root, '.claude/settings.json'), 'utf8'), '{\n  "model": "opus"\n}\n');
      } finally {
        other.remove();
      }
    });

    it('refuses, without opening it, a FIFO at a settings file\'s or the launcher\'s path (a blocking open would hang install-hooks for good, --dry-run included)', () => {
      for (const [file, args] of [['.codex/hooks.json', ['--codex', '--dry-run']], ['.claude/settings.json', ['--claude']], ['.claude/wave-scope-hook.cjs', ['--codex']], ['.codex/hooks.json', ['--codex', '--uninstall']]] as const) {
        rmSync(join(repo.root, file), { force: true });
        execFileSync('mkfifo', [join(repo.root, file)]);
        const run = runBuiltCliWithin(['install-hooks', ...args], 10_000, { cwd: repo.root, env: cleanEnv() });
        assert.equal(run.signal, null, `${file} ${args.join(' ')}: hung`);
        assert.equal(run.status, 1, `${file} ${args.join(' ')}: ${run.stdout}`);
        assert.ok(run.stderr.includes(`${join(repo.root, file)} cannot be edited without losing something (it is not a regular file but a FIFO`), run.stderr);
        assert.ok(lstatSync(join(repo.root, file)).isFIFO(), 'left as it was');
        rmSync(join(repo.root, file));
      }
    });

    it('chains a binary pre-commit hook byte for byte, and renames it back on uninstall', () => {
      const bytes = Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x00, 0xff, 0xfe, 0x00]);
      writeFileSync(join(repo.root, '.git/hooks/pre-commit'), bytes);
      chmodSync(join(repo.root, '.git/hooks/pre-commit'), 0o755);
      assert.equal(install('--git').status, 0);
      assert.deepEqual(readFileSync(join(repo.root, '.git/hooks/pre-commit.wave-scope-chained')), bytes);
      assert.match(readFileSync(join(repo.root, '.git/hooks/pre-commit'), 'utf8'), /wave-scope: runs the commit guard, then the chained hook/);
      assert.equal(install('--git', '--uninstall').status, 0);
      assert.deepEqual(readFileSync(join(repo.root, '.git/hooks/pre-commit')), bytes);
      assert.equal(existsSync(join(repo.root, '.git/hooks/pre-commit.wave-scope-chained')), false);
    });

    it('chains a symlinked pre-commit hook without writing through the link', () => {
      const elsewhere = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-shared-hooks-')));
      try {
        writeFileSync(join(elsewhere, 'pre-commit'), '#!/bin/sh\nexit 0\n');
        chmodSync(join(elsewhere, 'pre-commit'), 0o755);
        symlinkSync(join(elsewhere, 'pre-commit'), join(repo.root, '.git/hooks/pre-commit'));
        assert.equal(install('--git').status, 0);
        assert.equal(readFileSync(join(elsewhere, 'pre-commit'), 'utf8'), '#!/bin/sh\nexit 0\n', 'the link target is untouched');
        assert.equal(readlinkSync(join(repo.root, '.git/hooks/pre-commit.wave-scope-chained')), join(elsewhere, 'pre-commit'), 'the link itself was moved');
        assert.equal(install('--git', '--uninstall').status, 0);
        assert.ok(lstatSync(join(repo.root, '.git/hooks/pre-commit')).isSymbolicLink());
        assert.equal(readlinkSync(join(repo.root, '.git/hooks/pre-commit')), join(elsewhere, 'pre-commit'));
      } finally {
        rmSync(elsewhere, { recursive: true, force: true });
      }
    });

    it('never overwrites a saved original when another tool replaced our wrapper', () => {
      const original = '#!/usr/bin/env node\nconsole.log("original")\n';
      writeFileSync(join(repo.root, '.git/hooks/pre-commit'), original);
      assert.equal(install('--git').status, 0);
      writeFileSync(join(repo.root, '.git/hooks/pre-commit'), '#!/usr/bin/env python3\nprint("other tool")\n');
      const run = install('--git');
      assert.equal(run.status, 1);
      assert.match(run.stderr, /saved by an earlier install/);
      assert.equal(readFileSync(join(repo.root, '.git/hooks/pre-commit.wave-scope-chained'), 'utf8'), original);
    });
  });

  describe('a person\'s edits to the pre-commit hook install-hooks wrote are never discarded', () => {
    const hookPath = () => join(repo.root, '.git/hooks/pre-commit');
    const savedPath = () => join(repo.root, '.git/hooks/pre-commit.wave-scope-chained');
    /** A hook install-hooks chains (not a shell script), so it is saved aside and a wrapper written in its place. */
    const NODE_HOOK = '#!/usr/bin/env node\nrequire("fs").writeFileSync(".node-hook-ran", "yes");\n';
    /** Installs over NODE_HOOK and returns the wrapper install-hooks wrote. */
    const chainNodeHook = (): string => {
      writeFileSync(hookPath(), NODE_HOOK);
      chmodSync(hookPath(), 0o755);
      const run = install();
      assert.equal(run.status, 0, run.stderr);
      assert.equal(readFileSync(savedPath(), 'utf8'), NODE_HOOK);
      return readFileSync(hookPath(), 'utf8');
    };
    /** The bytes of every file install-hooks reads or writes here (null: absent). */
    const everyFile = () =>
      Object.fromEntries(
        [hookPath(), savedPath(), '.claude/settings.json', '.codex/hooks.json', '.claude/wave-scope-hook.cjs']
          .map((path) => (path.startsWith('/') ? path : join(repo.root, path)))
          .map((path) => [path, existsSync(path) ? readFileSync(path, 'utf8') : null]),
      );
    /** The plan's problems, each without its `message` (the refusal in words), which must be there. */
    const problemsOf = (run: { stdout: string }) =>
      (JSON.parse(run.stdout) as { problems: Array<Record<string, string>> }).problems.map(({ message, ...facts }) => {
        assert.ok(typeof message === 'string' && message.length > 0, JSON.stringify(facts));
        return facts;
      });
    const messagesOf = (run: { stdout: string }) => (JSON.parse(run.stdout) as { problems: Array<{ message: string }> }).problems.map(({ message }) => message);

    const wrapperEdits: Array<[string, (wrapper: string) => string]> = [
      ['a line of their own before the saved hook runs', (wrapper) => wrapper.replace('[ -x ', 'npm run lint --silent\n[ -x ')],
      ['a line appended at the end', (wrapper) => `${wrapper}echo done\n`],
      ['the lines that run the saved hook taken out, so it no longer chains', (wrapper) => wrapper.slice(0, wrapper.indexOf('[ -x '))],
      ['a line added inside the guard block', (wrapper) => wrapper.replace(' || exit 1\n', ' || exit 1\nnpm test\n')],
    ];
    for (const [edit, apply] of wrapperEdits) {
      it(`uninstall and re-install refuse a chained wrapper edited by hand (${edit}), and write nothing`, () => {
        writeFileSync(hookPath(), apply(chainNodeHook()));
        const before = everyFile();
        const removal = install('--uninstall');
        assert.equal(removal.status, 1, removal.stdout);
        assert.ok(removal.stderr.includes(`${hookPath()} is the wrapper install-hooks wrote`), removal.stderr);
        assert.match(removal.stderr, /changed since/);
        assert.ok(removal.stderr.includes(`rename ${savedPath()} back to ${hookPath()}`), removal.stderr);
        assert.match(removal.stderr, /Nothing was written/);
        assert.deepEqual(everyFile(), before, 'uninstall wrote nothing');
        const reinstall = install();
        assert.equal(reinstall.status, 1, reinstall.stdout);
        assert.deepEqual(everyFile(), before, 're-install wrote nothing');
        const plan = install('--uninstall', '--plan');
        assert.deepEqual(problemsOf(plan), [{ component: 'git', path: hookPath(), reason: 'wrapper-edited', saved: savedPath() }]);
        // The plan's problem carries the refusal as the plain output words it (the extension shows it).
        const [message] = messagesOf(plan);
        assert.ok(message !== undefined && message.startsWith(`${hookPath()} is the wrapper`) && removal.stderr.includes(message), `${message}\n${removal.stderr}`);
      });
    }

    it('after the edits are moved into the saved hook and it is renamed back, as the refusal says, uninstall and install go on', () => {
      writeFileSync(hookPath(), `${chainNodeHook()}echo done\n`);
      assert.equal(install('--uninstall').status, 1);
      writeFileSync(savedPath(), `${NODE_HOOK}console.log("done");\n`);
      renameSync(savedPath(), hookPath());
      const removal = install('--uninstall');
      assert.equal(removal.status, 0, removal.stderr);
      assert.equal(readFileSync(hookPath(), 'utf8'), `${NODE_HOOK}console.log("done");\n`);
      assert.equal(readFileSync(join(repo.root, '.claude/settings.json'), 'utf8'), JSON.stringify(CLAUDE_SETTINGS, null, 4));
      assert.equal(install().status, 0);
      assert.equal(readFileSync(savedPath(), 'utf8'), `${NODE_HOOK}console.log("done");\n`);
    });

    it('with the saved hook removed, an edited wrapper is kept, and the wrapper as install-hooks wrote it is removed', () => {
      const wrapper = chainNodeHook();
      rmSync(savedPath());
      writeFileSync(hookPath(), `${wrapper}echo done\n`);
      const refused = install('--uninstall');
      assert.equal(refused.status, 1, refused.stdout);
      assert.ok(refused.stderr.includes(`${hookPath()} is the wrapper install-hooks wrote`), refused.stderr);
      assert.equal(readFileSync(hookPath(), 'utf8'), `${wrapper}echo done\n`);
      writeFileSync(hookPath(), wrapper);
      const removal = install('--uninstall');
      assert.equal(removal.status, 0, removal.stderr);
      assert.equal(existsSync(hookPath()), false, 'nothing of it was the user\'s');
    });

    it('puts the saved hook back, with the edits made to it since, even when the wrapper was deleted', () => {
      chainNodeHook();
      const edited = `${NODE_HOOK}// edited after install\n`;
      writeFileSync(savedPath(), edited);
      assert.equal(install('--uninstall').status, 0);
      assert.equal(readFileSync(hookPath(), 'utf8'), edited);
      assert.equal(existsSync(savedPath()), false);

      assert.equal(install().status, 0);
      writeFileSync(savedPath(), `${edited}// and again\n`);
      rmSync(hookPath());
      const removal = install('--uninstall');
      assert.equal(removal.status, 0, removal.stderr);
      assert.ok(removal.stdout.includes(`renamed ${savedPath()} to ${hookPath()}`), removal.stdout);
      assert.equal(readFileSync(hookPath(), 'utf8'), `${edited}// and again\n`);
      assert.equal(statSync(hookPath()).mode & 0o111, 0o111, 'still executable');
      assert.equal(existsSync(savedPath()), false);
    });

    it('finishes an install cut short after saving the hook aside: the wrapper is written again, chaining the saved hook', () => {
      const wrapper = chainNodeHook();
      // What a kill between the two steps of chaining leaves: the saved hook, and nothing in its place.
      rmSync(hookPath());
      const run = install();
      assert.equal(run.status, 0, run.stderr);
      assert.equal(readFileSync(hookPath(), 'utf8'), wrapper);
      assert.equal(statSync(hookPath()).mode & 0o111, 0o111, 'executable');
      assert.equal(readFileSync(savedPath(), 'utf8'), NODE_HOOK, 'the saved hook is kept as it was');
      // The wrapper runs the guard and then the saved hook, as before the cut.
      commitInScope('after the install was finished');
      assert.equal(readFileSync(join(repo.root, '.node-hook-ran'), 'utf8'), 'yes');
    });

    it('refuses to put the saved hook back over another hook that replaced the wrapper', () => {
      chainNodeHook();
      writeFileSync(hookPath(), '#!/usr/bin/env python3\nprint("other tool")\n');
      const before = everyFile();
      const removal = install('--uninstall');
      assert.equal(removal.status, 1, removal.stdout);
      assert.ok(removal.stderr.includes(`${savedPath()} holds the pre-commit hook`), removal.stderr);
      assert.match(removal.stderr, /would overwrite/);
      assert.deepEqual(everyFile(), before);
      assert.deepEqual(problemsOf(install('--uninstall', '--plan')), [{ component: 'git', path: savedPath(), reason: 'chained-exists', hook: hookPath() }]);
    });

    it('uninstall and re-install refuse a shell hook whose guard block was edited by hand, and write nothing', () => {
      writeFileSync(hookPath(), '#!/bin/sh\nnpm test\n');
      chmodSync(hookPath(), 0o755);
      assert.equal(install().status, 0);
      writeFileSync(hookPath(), readFileSync(hookPath(), 'utf8').replace(' || exit 1\n', ' || exit 1\necho "guard passed"\n'));
      const before = everyFile();
      const removal = install('--uninstall');
      assert.equal(removal.status, 1, removal.stdout);
      assert.ok(removal.stderr.includes(`${hookPath()} holds Wave Scope's commit guard block`), removal.stderr);
      assert.match(removal.stderr, /changed since/);
      assert.deepEqual(everyFile(), before);
      assert.equal(install().status, 1);
      assert.deepEqual(everyFile(), before);
      assert.deepEqual(problemsOf(install('--uninstall', '--plan')), [{ component: 'git', path: hookPath(), reason: 'block-edited' }]);
    });
  });

  describe('hooks directories outside the repository', () => {
    let home: string;
    beforeEach(() => {
      home = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-home-')));
    });
    afterEach(() => rmSync(home, { recursive: true, force: true }));
    const installAt = (...args: string[]) => runBuiltCli(['install-hooks', ...args], { cwd: repo.root, env: cleanEnv({ HOME: home, GIT_CONFIG_NOSYSTEM: '1' }) });

    it('core.hooksPath=~/githooks is git\'s ~/githooks, never a literal "~" directory, and is refused as outside the repository', () => {
      repo.git('config', 'core.hooksPath', '~/githooks');
      const run = installAt('--git');
      assert.equal(run.status, 1);
      assert.match(run.stderr, new RegExp(`${home}/githooks .*outside this repository.*--global-hooks`));
      assert.equal(existsSync(join(repo.root, '~')), false);
      assert.equal(existsSync(join(home, 'githooks/pre-commit')), false);
    });

    it('a global core.hooksPath is left alone unless asked with --global-hooks', () => {
      writeFileSync(join(home, '.gitconfig'), '[core]\n\thooksPath = ~/global-hooks\n');
      const refused = installAt('--git');
      assert.equal(refused.status, 1);
      assert.match(refused.stderr, /global scope/);
      assert.match(refused.stderr, /git config --local core\.hooksPath/);
      assert.equal(existsSync(join(home, 'global-hooks/pre-commit')), false);
      const asked = installAt('--git', '--global-hooks');
      assert.equal(asked.status, 0, asked.stderr);
      assert.match(readFileSync(join(home, 'global-hooks/pre-commit'), 'utf8'), /commit-guard/);
    });
  });

  describe('temporary files a killed install-hooks left beside the pre-commit hook', () => {
    it('the next install or uninstall removes one holding, whole, what install-hooks writes, once its process is gone or it is old; every other is kept', () => {
      assert.equal(install('--git').status, 0);
      const hooks = join(repo.root, '.git/hooks');
      const ours = readFileSync(join(hooks, 'pre-commit'), 'utf8');
      const ended = spawnSync(process.execPath, ['-e', '']).pid;
      assert.ok(ended !== undefined);
      const minutes = (count: number) => count * 60 * 1000;
      const killed = plantLeftover(hooks, 'pre-commit', ended, 0, ours);
      const stale = plantLeftover(hooks, 'pre-commit', process.pid, minutes(10), ours);
      // Kept: one a live process made a moment ago (an install under way), one holding a user's text, one of another file.
      const underWay = plantLeftover(hooks, 'pre-commit', process.pid, 0, ours);
      const usersText = plantLeftover(hooks, 'pre-commit', ended, minutes(10), `${ours}npm test\n`);
      const savedCopy = plantLeftover(hooks, 'pre-commit.wave-scope-chained', ended, minutes(10), ours);
      const dry = install('--git', '--dry-run');
      assert.equal(dry.status, 0, dry.stderr);
      assert.ok(dry.stdout.includes(`would remove ${killed} (a temporary file of the commit guard's hook that a killed install-hooks left)`), dry.stdout);
      assert.ok(existsSync(killed), 'a dry run removes nothing');
      const run = install('--git');
      assert.equal(run.status, 0, run.stderr);
      assert.ok(run.stdout.includes(`removed ${stale} (a temporary file`), run.stdout);
      assert.deepEqual([killed, stale, underWay, usersText, savedCopy].map((path) => existsSync(path)), [false, false, true, true, true]);
      makeOld(underWay, minutes(10));
      assert.equal(install('--git', '--uninstall').status, 0);
      assert.deepEqual([underWay, usersText, savedCopy].map((path) => existsSync(path)), [false, true, true]);
    });
  });

  describe('--dry-run --json: the plan for a preview', () => {
    it('names every file with its action and its whole text before and after, writes nothing, and says which CLIs the repository uses', () => {
      repo.write({ 'GEMINI.md': '# instructions\n' });
      const before = readFileSync(join(repo.root, '.claude/settings.json'), 'utf8');
      const run = install('--plan');
      assert.equal(run.status, 0, run.stderr);
      const plan = JSON.parse(run.stdout) as { mode: string; detected: Array<{ agentCli: string; evidence: string[] }>; selected: { agentClis: string[]; git: boolean }; changes: Array<{ path: string; action: string; before: string | null; after: string | null; component: string }> };
      assert.equal(plan.mode, 'install');
      assert.deepEqual(plan.detected.map((detected) => detected.agentCli), ['claude', 'codex', 'gemini']);
      assert.deepEqual(plan.detected.find((detected) => detected.agentCli === 'gemini')?.evidence, ['GEMINI.md']);
      assert.deepEqual(plan.selected, { agentClis: ['claude', 'codex', 'gemini'], git: true });
      const settings = plan.changes.find((change) => change.path === join(repo.root, '.claude/settings.json'));
      assert.equal(settings?.action, 'modify');
      assert.equal(settings?.before, before);
      assert.match(settings?.after ?? '', /enforce-write --agent-cli claude/);
      assert.deepEqual(plan.changes.map((change) => change.component).sort(), ['claude', 'codex', 'gemini', 'git', 'launcher'].sort());
      assert.equal(plan.changes.find((change) => change.component === 'git')?.action, 'create');
      assert.equal(readFileSync(join(repo.root, '.claude/settings.json'), 'utf8'), before);
      assert.equal(existsSync(join(repo.root, '.git/hooks/pre-commit')), false);
      assert.equal(install('--dry-run', '--json', '--uninstall').status, 0);
      assert.equal(install('--json').status, 2, '--json alone would write: refused');
    });
  });

  describe('the launcher', () => {
    let home: string;
    beforeEach(() => {
      home = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-home-')));
    });
    afterEach(() => rmSync(home, { recursive: true, force: true }));

    /** The built launcher, rendered with `recorded` as install-hooks renders it. */
    function writeLauncher(recorded: string[]): string {
      const path = join(repo.root, '.claude/wave-scope-hook.cjs');
      writeFileSync(path, renderLauncher(readFileSync(join(builtCliPath, '..', 'launcher.cjs'), 'utf8'), { version: 1, recorded }));
      return path;
    }
    const outOfScope = () => hookPayload('claude-write', { cwd: repo.root, target: join(repo.root, 'lib/b.ts') });

    it('survives an extension upgrade: the recorded path is gone, the newest installed extension answers', () => {
      writeManifest(repo, { allowedPaths: ['src/'] });
      const launcher = writeLauncher([join(home, 'gone/dist/cli.js')]);
      for (const version of ['0.1.0', '0.10.0']) {
        const dist = join(home, `.vscode/extensions/wave-scope.wave-scope-${version}/dist`);
        mkdirSync(dist, { recursive: true });
        copyFileSync(builtCliPath, join(dist, 'cli.js'));
      }
      // The older one is broken: only the newest may be picked.
      writeFileSync(join(home, '.vscode/extensions/wave-scope.wave-scope-0.1.0/dist/hook.js'), 'throw new Error("old");');
      copyFileSync(join(builtCliPath, '..', 'hook.js'), join(home, '.vscode/extensions/wave-scope.wave-scope-0.10.0/dist/hook.js'));
      const run = spawnSync(process.execPath, [launcher, 'enforce-write'], { input: outOfScope(), encoding: 'utf8', env: cleanEnv({ HOME: home }) });
      assert.equal(claudeDecision(run.stdout).decision, 'deny', run.stderr);
      assert.match(claudeDecision(run.stdout).text, /lib\/b\.ts is not in wave 1/);
    });

    it('fails closed when it cannot find the CLI anywhere, with the gate\'s own reply format', () => {
      writeManifest(repo, { allowedPaths: ['src/'] });
      const launcher = writeLauncher([join(home, 'gone/dist/cli.js')]);
      const write = spawnSync(process.execPath, [launcher, 'enforce-write', '--agent-cli', 'cursor'], { input: outOfScope(), encoding: 'utf8', env: cleanEnv({ HOME: home }) });
      assert.equal(write.status, 0);
      assert.equal((JSON.parse(write.stdout) as { permission: string }).permission, 'deny');
      const unknown = spawnSync(process.execPath, [launcher, 'enforce-write'], { input: outOfScope(), encoding: 'utf8', env: cleanEnv({ HOME: home }) });
      assert.equal(unknown.status, 2, 'no --agent-cli: the deny every CLI reads as one');
      assert.match(unknown.stderr, /cannot run the wave-scope CLI/);
      const commit = spawnSync(process.execPath, [launcher, 'commit-guard'], { encoding: 'utf8', env: cleanEnv({ HOME: home }), cwd: repo.root });
      assert.equal(commit.status, 1);
      assert.match(commit.stderr, /cannot run the wave-scope CLI/);
      const session = spawnSync(process.execPath, [launcher, 'session-start'], { input: '{}', encoding: 'utf8', env: cleanEnv({ HOME: home }) });
      assert.equal(session.status, 0, 'a session start is never blocked');
    });

    it('with no CLI found but no wave active either, lets the write through (nothing to enforce)', () => {
      const launcher = writeLauncher([join(home, 'gone/dist/cli.js')]);
      const run = spawnSync(process.execPath, [launcher, 'enforce-write', '--agent-cli', 'claude'], { input: outOfScope(), encoding: 'utf8', env: cleanEnv({ HOME: home }) });
      assert.equal(run.status, 0);
      assert.equal(run.stdout, '');
    });

    it('loads no CLI from inside the repository or from a node_modules above it (places an agent can write)', () => {
      writeManifest(repo, { allowedPaths: ['src/'] });
      // A "CLI" that allows everything, where an agent could put one.
      for (const dir of [join(repo.root, 'node_modules/wave-scope/dist'), join(repo.root, 'tools/dist')]) {
        mkdirSync(dir, { recursive: true });
        writeFileSync(join(dir, 'cli.js'), '');
        writeFileSync(join(dir, 'hook.js'), 'exports.runHookMain = async () => {};');
      }
      const launcher = writeLauncher([join(repo.root, 'tools/dist/cli.js')]);
      const run = spawnSync(process.execPath, [launcher, 'enforce-write', '--agent-cli', 'claude'], { input: outOfScope(), encoding: 'utf8', env: cleanEnv({ HOME: home, WAVE_SCOPE_CLI: join(repo.root, 'tools/dist/cli.js') }) });
      const reply = claudeDecision(run.stdout);
      assert.equal(reply.decision, 'deny');
      assert.match(reply.text, /lies inside the repository/);
    });

    it('the commit guard ignores WAVE_SCOPE_CLI (the committing shell is the agent\'s)', () => {
      writeManifest(repo, { allowedPaths: ['src/'] });
      const fake = join(home, 'fake/dist');
      mkdirSync(fake, { recursive: true });
      writeFileSync(join(fake, 'cli.js'), '');
      writeFileSync(join(fake, 'hook.js'), 'exports.runHookMain = async () => { process.exitCode = 0; };');
      const launcher = writeLauncher([builtCliPath]);
      repo.write({ 'lib/b.ts': 'changed\n' });
      repo.git('add', 'lib/b.ts');
      const commit = spawnSync(process.execPath, [launcher, 'commit-guard'], { encoding: 'utf8', env: cleanEnv({ HOME: home, WAVE_SCOPE_CLI: join(fake, 'cli.js') }), cwd: repo.root });
      assert.equal(commit.status, 1, commit.stderr);
      assert.match(commit.stderr, /lib\/b\.ts/);
    });

    it('an installed command blocks (exit 2, with a reason on stderr) when the launcher itself is gone', () => {
      assert.equal(install('--claude').status, 0);
      writeManifest(repo, { allowedPaths: ['src/'] });
      rmSync(join(repo.root, '.claude/wave-scope-hook.cjs'));
      const claude = readJson(join(repo.root, '.claude/settings.json')) as typeof CLAUDE_SETTINGS;
      const run = runInstalledCommand(claude.hooks.PreToolUse[1]?.hooks[0]?.command ?? '', outOfScope(), { CLAUDE_PROJECT_DIR: repo.root });
      assert.equal(run.status, 2);
      assert.notEqual(run.stderr.trim(), '');
    });

    it('fails closed when the CLI it finds is broken', () => {
      writeManifest(repo, { allowedPaths: ['src/'] });
      const dist = join(home, 'broken/dist');
      mkdirSync(dist, { recursive: true });
      writeFileSync(join(dist, 'cli.js'), '');
      writeFileSync(join(dist, 'hook.js'), 'throw new Error("corrupt bundle");');
      const launcher = writeLauncher([join(dist, 'cli.js')]);
      const run = spawnSync(process.execPath, [launcher, 'enforce-write', '--agent-cli', 'claude'], { input: outOfScope(), encoding: 'utf8', env: cleanEnv({ HOME: home }) });
      assert.equal(claudeDecision(run.stdout).decision, 'deny');
      assert.match(claudeDecision(run.stdout).text, /corrupt bundle/);
    });
  });

  describe('a file changed between the plan and the write is never overwritten', () => {
    const hookPath = () => join(repo.root, '.git/hooks/pre-commit');
    const savedPath = () => join(repo.root, '.git/hooks/pre-commit.wave-scope-chained');
    const settingsPath = () => join(repo.root, '.claude/settings.json');
    const launcherPath = () => join(repo.root, '.claude/wave-scope-hook.cjs');
    const NODE_HOOK = '#!/usr/bin/env node\nrequire("fs").writeFileSync(".node-hook-ran", "yes");\n';
    const OTHER_TOOL = '#!/usr/bin/env python3\nprint("another tool")\n';

    /**
     * Runs `wave-scope install-hooks ...args` as a user would, with `preload` (CommonJS source) loaded first: it
     * wraps node:fs's functions, which the bundle calls through the module, to act at an exact step.
     */
    const installWithPreload = (args: string[], preload: string) => {
      const path = join(repo.root, '..', `preload-${Date.now().toString(36)}${Math.random().toString(36).slice(2)}.cjs`);
      writeFileSync(path, `const fs = require('node:fs');\nconst { basename } = require('node:path');\n${preload}\n`);
      try {
        const run = spawnSync(process.execPath, ['--require', path, builtCliPath, 'install-hooks', ...args], { cwd: repo.root, env: cleanEnv(), encoding: 'utf8' });
        return { status: run.status, signal: run.signal, stdout: run.stdout, stderr: run.stderr };
      } finally {
        rmSync(path);
      }
    };
    /** install-hooks with `path` written as `text` (another writer: a person's editor, husky) right after the first rename onto a file named `after`. */
    const installWithWriteAfter = (args: string[], after: string, path: string, text: string) =>
      installWithPreload(
        args,
        `const rename = fs.renameSync;
let done = false;
fs.renameSync = function (from, to) {
  rename.apply(this, arguments);
  if (!done && basename(String(to)) === ${JSON.stringify(after)}) { done = true; fs.writeFileSync(${JSON.stringify(path)}, ${JSON.stringify(text)}); }
};`,
      );

    it('stops at a settings file edited after the plan read it: the edit is kept, the file named, what was already written said, exit 1', () => {
      const edited = JSON.stringify({ ...CLAUDE_SETTINGS, model: 'sonnet' }, null, 4);
      const codexBefore = readFileSync(join(repo.root, '.codex/hooks.json'), 'utf8');
      const run = installWithWriteAfter([], 'wave-scope-hook.cjs', settingsPath(), edited);
      assert.equal(run.status, 1, run.stdout + run.stderr);
      assert.equal(readFileSync(settingsPath(), 'utf8'), edited, 'the edit made after the plan was kept');
      assert.ok(run.stderr.includes(`${settingsPath()} changed after install-hooks read it`), run.stderr);
      assert.ok(run.stderr.includes(`already written: created ${launcherPath()}`), run.stderr);
      assert.match(run.stderr, /Nothing more was written/);
      assert.equal(readFileSync(join(repo.root, '.codex/hooks.json'), 'utf8'), codexBefore, 'nothing after it was written');
      assert.equal(existsSync(hookPath()), false);
      const again = install();
      assert.equal(again.status, 0, again.stderr);
      assert.equal((readJson(settingsPath()) as { model: string }).model, 'sonnet', 'run again, the install merges into the edited file');
    });

    it('checks again at the last moment, right before the rename that puts the new text in place, and keeps an edit made while it was written', () => {
      const edited = JSON.stringify({ ...CLAUDE_SETTINGS, model: 'sonnet' }, null, 4);
      // Written while install-hooks fills its temporary file for settings.json: after the check at the start of the step.
      const run = installWithPreload(
        ['--claude'],
        `const open = fs.openSync;
let done = false;
fs.openSync = function (path) {
  const descriptor = open.apply(this, arguments);
  if (!done && /^settings\\.json\\..*\\.tmp$/.test(basename(String(path)))) { done = true; fs.writeFileSync(${JSON.stringify(settingsPath())}, ${JSON.stringify(edited)}); }
  return descriptor;
};`,
      );
      assert.equal(run.status, 1, run.stdout + run.stderr);
      assert.equal(readFileSync(settingsPath(), 'utf8'), edited);
      assert.ok(run.stderr.includes(`${settingsPath()} changed after install-hooks read it`), run.stderr);
      assert.deepEqual(readdirSync(join(repo.root, '.claude')).filter((name) => name.endsWith('.tmp')), [], 'no temporary file left behind');
    });

    it('stops at a shell pre-commit hook edited after the plan read it, and keeps the edit', () => {
      writeFileSync(hookPath(), '#!/bin/sh\nnpm test\n');
      chmodSync(hookPath(), 0o755);
      const edited = '#!/bin/sh\nnpm test\nnpm run lint\n';
      const run = installWithWriteAfter(['--git'], 'wave-scope-hook.cjs', hookPath(), edited);
      assert.equal(run.status, 1, run.stdout + run.stderr);
      assert.equal(readFileSync(hookPath(), 'utf8'), edited);
      assert.ok(run.stderr.includes(`${hookPath()} changed after install-hooks read it`), run.stderr);
    });

    it('uninstall stops where another tool replaced the wrapper after the plan: its hook and the saved one are both kept', () => {
      writeFileSync(hookPath(), NODE_HOOK);
      chmodSync(hookPath(), 0o755);
      assert.equal(install().status, 0);
      const run = installWithWriteAfter(['--uninstall'], 'settings.json', hookPath(), OTHER_TOOL);
      assert.equal(run.status, 1, run.stdout + run.stderr);
      assert.equal(readFileSync(hookPath(), 'utf8'), OTHER_TOOL, "the other tool's hook is kept");
      assert.equal(readFileSync(savedPath(), 'utf8'), NODE_HOOK, 'the saved hook is kept');
      assert.ok(run.stderr.includes(`${hookPath()} changed after install-hooks read it`), run.stderr);
      assert.ok(run.stderr.includes(`already written: wrote ${settingsPath()}`), run.stderr);
      assert.ok(existsSync(launcherPath()), 'the launcher, last, is still there');
    });

    it('chaining stops where the hook to be saved was replaced after the plan read it', () => {
      writeFileSync(hookPath(), NODE_HOOK);
      chmodSync(hookPath(), 0o755);
      const run = installWithWriteAfter(['--git'], 'wave-scope-hook.cjs', hookPath(), OTHER_TOOL);
      assert.equal(run.status, 1, run.stdout + run.stderr);
      assert.equal(readFileSync(hookPath(), 'utf8'), OTHER_TOOL);
      assert.equal(existsSync(savedPath()), false, 'nothing was saved aside in its name');
    });

    it('uninstall puts the saved hook back over the wrapper in one rename: killed at any point, a pre-commit hook is there', () => {
      writeFileSync(hookPath(), NODE_HOOK);
      chmodSync(hookPath(), 0o755);
      assert.equal(install('--git').status, 0);
      const wrapper = readFileSync(hookPath(), 'utf8');
      // Killed (as by the OOM killer or a closed terminal) right after anything removes the pre-commit hook.
      const killed = installWithPreload(
        ['--git', '--uninstall'],
        `for (const name of ['rmSync', 'unlinkSync']) {
  const original = fs[name];
  fs[name] = function (path) { original.apply(this, arguments); if (basename(String(path)) === 'pre-commit') process.kill(process.pid, 'SIGKILL'); };
}`,
      );
      assert.equal(killed.signal, null, 'the pre-commit hook was never removed on its own');
      assert.equal(killed.status, 0, killed.stderr);
      assert.equal(readFileSync(hookPath(), 'utf8'), NODE_HOOK);
      assert.equal(existsSync(savedPath()), false);
      assert.ok(killed.stdout.includes(`renamed ${savedPath()} to ${hookPath()}`), killed.stdout);
      assert.notEqual(readFileSync(hookPath(), 'utf8'), wrapper);
    });

    describe('chaining leaves, at every moment, a pre-commit hook that runs the user\'s hook', () => {
      // A mode of its own, so that keeping it is seen.
      const HOOK_MODE = 0o750;
      const SAVED = 'pre-commit.wave-scope-chained';
      const ranMarker = () => join(repo.root, '.node-hook-ran');
      const userHook = () => {
        writeFileSync(hookPath(), NODE_HOOK);
        chmodSync(hookPath(), HOOK_MODE);
      };
      /** The user's hook is at `path`, byte for byte, with its mode. */
      const assertUserHookAt = (path: string, why: string) => {
        assert.equal(readFileSync(path, 'utf8'), NODE_HOOK, why);
        assert.equal(statSync(path).mode & 0o7777, HOOK_MODE, `${why}: its mode`);
      };
      /** A commit inside the scope (each with a change of its own) runs the user's hook: its side effect appears. */
      const assertCommitRunsUserHook = (message: string) => {
        rmSync(ranMarker(), { force: true });
        repo.write({ 'src/a.ts': `${message}\n` });
        repo.git('add', 'src/a.ts');
        repo.git('commit', '--quiet', '-m', message);
        assert.equal(existsSync(ranMarker()) && readFileSync(ranMarker(), 'utf8'), 'yes', `${message}: the user's hook ran`);
      };
      const KILL = "const kill = () => process.kill(process.pid, 'SIGKILL');";
      // The file system refuses hard links (FAT, some network mounts): chaining saves a copy instead.
      const NO_HARD_LINKS = "fs.linkSync = function () { const error = new Error('EPERM: operation not permitted, link'); error.code = 'EPERM'; throw error; };";
      const killPoints: Array<[string, string]> = [
        [
          'right after the hook is saved beside itself',
          `${KILL}
for (const name of ['linkSync', 'symlinkSync', 'renameSync']) {
  const original = fs[name];
  fs[name] = function (from, to) { const result = original.apply(this, arguments); if (basename(String(to)) === ${JSON.stringify(SAVED)}) kill(); return result; };
}`,
        ],
        [
          'once the wrapper is written and fsynced under its temporary name, before the rename that puts it in place',
          `${KILL}
const rename = fs.renameSync;
fs.renameSync = function (from, to) { if (basename(String(to)) === 'pre-commit' && String(from).endsWith('.tmp')) kill(); return rename.apply(this, arguments); };`,
        ],
        [
          'right after the wrapper is renamed over the hook',
          `${KILL}
const rename = fs.renameSync;
fs.renameSync = function (from, to) { const result = rename.apply(this, arguments); if (basename(String(to)) === 'pre-commit') kill(); return result; };`,
        ],
      ];
      for (const [point, killer] of killPoints) {
        for (const hardLinks of [true, false]) {
          const where = `killed ${point}${hardLinks ? '' : ', on a file system without hard links'}`;
          const killedInstall = () => {
            userHook();
            const killed = installWithPreload([], hardLinks ? killer : `${NO_HARD_LINKS}\n${killer}`);
            assert.equal(killed.signal, 'SIGKILL', `the install was killed: ${killed.stdout}${killed.stderr}`);
            if (readFileSync(hookPath(), 'utf8') === NODE_HOOK) {
              // The hook is still in place, saved beside itself: as a second name of the same file, or as a copy.
              assert.equal(statSync(savedPath()).ino === statSync(hookPath()).ino, hardLinks, 'a hard link where the file system has them');
              assertUserHookAt(hookPath(), 'the hook in place');
              assertUserHookAt(savedPath(), 'its saved copy');
            }
          };

          it(`${where}: a commit runs the user's hook, and the next install finishes the chain, which uninstall undoes byte for byte`, () => {
            killedInstall();
            assertCommitRunsUserHook('after the kill');
            const finished = install();
            assert.equal(finished.status, 0, finished.stderr);
            assert.deepEqual(readdirSync(join(repo.root, '.git/hooks')).filter((name) => /^pre-commit\..*\.tmp$/.test(name)), [], "the killed install's temporary wrapper is removed");
            assert.match(readFileSync(hookPath(), 'utf8'), /# wave-scope: runs the commit guard, then the chained hook/);
            assertUserHookAt(savedPath(), 'the saved hook');
            assertCommitRunsUserHook('after the install was finished');
            const removal = install('--uninstall');
            assert.equal(removal.status, 0, removal.stderr);
            assertUserHookAt(hookPath(), 'put back');
            assert.equal(existsSync(savedPath()), false);
          });

          it(`${where}: uninstall leaves the user's hook byte for byte, with its mode, and no saved copy`, () => {
            killedInstall();
            assertCommitRunsUserHook('after the kill');
            const removal = install('--uninstall');
            assert.equal(removal.status, 0, removal.stderr);
            assertUserHookAt(hookPath(), 'after uninstall');
            assert.equal(existsSync(savedPath()), false);
            assert.deepEqual(readdirSync(join(repo.root, '.git/hooks')).filter((name) => name.startsWith(SAVED)), [], 'no saved copy, nor a temporary file of one');
            assert.deepEqual(readdirSync(join(repo.root, '.git/hooks')).filter((name) => /^pre-commit\..*\.tmp$/.test(name)), [], "nor the killed install's temporary wrapper");
          });
        }
      }

      it('the next install finishes the same way from the state a kill leaves, and names no conflict, when the copy was made by hand', () => {
        userHook();
        // What the first step leaves, as a copy with the same mode (a file system without hard links).
        copyFileSync(hookPath(), savedPath());
        chmodSync(savedPath(), HOOK_MODE);
        const plan = install('--git', '--plan');
        assert.equal(plan.status, 0, plan.stdout);
        const finished = install('--git');
        assert.equal(finished.status, 0, finished.stderr);
        assert.ok(finished.stdout.includes(`wrote ${hookPath()}`), finished.stdout);
        assertUserHookAt(savedPath(), 'the saved hook');
        assertCommitRunsUserHook('after the install was finished');
      });

      it('a symbolic link killed right after it is saved: the link still runs, and install and uninstall keep its target', () => {
        mkdirSync(join(repo.root, 'tools'));
        writeFileSync(join(repo.root, 'tools/check.js'), NODE_HOOK);
        chmodSync(join(repo.root, 'tools/check.js'), 0o755);
        symlinkSync('../../tools/check.js', hookPath());
        const killed = installWithPreload(['--git'], killPoints[0]?.[1] ?? '');
        assert.equal(killed.signal, 'SIGKILL', killed.stdout + killed.stderr);
        assert.equal(readlinkSync(hookPath()), '../../tools/check.js');
        assertCommitRunsUserHook('after the kill');
        assert.equal(install('--git').status, 0);
        assert.equal(readlinkSync(savedPath()), '../../tools/check.js');
        assertCommitRunsUserHook('after the install was finished');
        assert.equal(install('--git', '--uninstall').status, 0);
        assert.equal(readlinkSync(hookPath()), '../../tools/check.js');
        assert.equal(existsSync(savedPath()), false);
      });

      it('an edit written into the hook after the last check, while the wrapper is renamed over it, is kept in the saved hook', () => {
        userHook();
        const edit = '// added while install-hooks ran\n';
        const run = installWithPreload(
          ['--git'],
          `const rename = fs.renameSync;
fs.renameSync = function (from, to) { if (basename(String(to)) === 'pre-commit') fs.appendFileSync(${JSON.stringify(hookPath())}, ${JSON.stringify(edit)}); return rename.apply(this, arguments); };`,
        );
        assert.equal(run.status, 0, run.stderr);
        // The saved hook is the same file as the hook was (a hard link), so a write into it lands there too.
        assert.equal(readFileSync(savedPath(), 'utf8'), `${NODE_HOOK}${edit}`);
        assert.equal(statSync(savedPath()).mode & 0o7777, HOOK_MODE);
      });

      it('a hook replaced after the last read but before the rename is seen by the last look and kept', () => {
        userHook();
        const replaced = join(repo.root, 'replacement.tmp-by-test');
        // Another tool renames its own hook over ours right after install-hooks has read the hook one last
        // time (the read that follows the wrapper's temporary file), before the wrapper's rename.
        const run = installWithPreload(
          ['--git'],
          `const open = fs.openSync, close = fs.closeSync, rename = fs.renameSync, write = fs.writeFileSync;
let armed = false, watched;
fs.openSync = function (path) {
  const descriptor = open.apply(this, arguments);
  const name = basename(String(path));
  if (/^pre-commit\..*\.tmp$/.test(name)) armed = true;
  else if (armed && String(path) === ${JSON.stringify(hookPath())}) watched = descriptor;
  return descriptor;
};
fs.closeSync = function (descriptor) {
  const result = close.apply(this, arguments);
  if (watched !== undefined && descriptor === watched) { watched = undefined; armed = false; write(${JSON.stringify(replaced)}, ${JSON.stringify(OTHER_TOOL)}); rename(${JSON.stringify(replaced)}, ${JSON.stringify(hookPath())}); }
  return result;
};`,
        );
        assert.equal(run.status, 1, run.stdout + run.stderr);
        assert.equal(readFileSync(hookPath(), 'utf8'), OTHER_TOOL, "the other tool's hook is kept");
        assert.ok(run.stderr.includes(`${hookPath()} changed after install-hooks read it`), run.stderr);
        assertUserHookAt(savedPath(), 'the user\'s hook, saved');
      });

      it('the wrapper never replaces the hook once its saved copy is gone', () => {
        userHook();
        const run = installWithPreload(
          ['--git'],
          `const link = fs.linkSync;
fs.linkSync = function (from, to) { const result = link.apply(this, arguments); if (basename(String(to)) === ${JSON.stringify(SAVED)}) fs.unlinkSync(to); return result; };`,
        );
        assert.equal(run.status, 1, run.stdout + run.stderr);
        assert.ok(run.stderr.includes(`${savedPath()} changed after install-hooks read it`), run.stderr);
        assertUserHookAt(hookPath(), 'the hook is left in place');
      });

      it('finishing an unfinished chain stops when the saved copy is replaced after the plan, and keeps both', () => {
        userHook();
        copyFileSync(hookPath(), savedPath());
        chmodSync(savedPath(), HOOK_MODE);
        const aside = join(repo.root, 'other.tmp-by-test');
        const run = installWithPreload(
          ['--git'],
          `const open = fs.openSync;
let done = false;
fs.openSync = function (path) {
  const descriptor = open.apply(this, arguments);
  if (!done && /^pre-commit\..*\.tmp$/.test(basename(String(path)))) { done = true; fs.writeFileSync(${JSON.stringify(aside)}, ${JSON.stringify(OTHER_TOOL)}); fs.renameSync(${JSON.stringify(aside)}, ${JSON.stringify(savedPath())}); }
  return descriptor;
};`,
        );
        assert.equal(run.status, 1, run.stdout + run.stderr);
        assert.ok(run.stderr.includes(`${savedPath()} changed after install-hooks read it`), run.stderr);
        assertUserHookAt(hookPath(), 'the hook is left in place');
        assert.equal(readFileSync(savedPath(), 'utf8'), OTHER_TOOL);
      });
    });

    describe('--confirmed-plan: the plan a person saw (the extension previews it, then installs)', () => {
      const confirm = (plan: string, ...args: string[]) => runBuiltCli(['install-hooks', ...args, '--confirmed-plan', '-'], { cwd: repo.root, env: cleanEnv(), input: plan });

      it('installs exactly the plan confirmed when nothing changed since', () => {
        const plan = install('--claude', '--git', '--plan');
        assert.equal(plan.status, 0, plan.stderr);
        const run = confirm(plan.stdout, '--claude', '--git');
        assert.equal(run.status, 0, run.stderr);
        assert.match(readFileSync(settingsPath(), 'utf8'), /enforce-write --agent-cli claude/);
        assert.match(readFileSync(hookPath(), 'utf8'), /commit-guard/);
      });

      it('refuses, writing nothing, when a file of the plan changed after it was confirmed', () => {
        const plan = install('--claude', '--git', '--plan');
        const edited = JSON.stringify({ ...CLAUDE_SETTINGS, model: 'sonnet' }, null, 4);
        writeFileSync(settingsPath(), edited);
        const run = confirm(plan.stdout, '--claude', '--git');
        assert.equal(run.status, 1, run.stdout + run.stderr);
        assert.ok(run.stderr.includes(`${settingsPath()} changed after`), run.stderr);
        assert.match(run.stderr, /Nothing was written/);
        assert.equal(readFileSync(settingsPath(), 'utf8'), edited);
        assert.equal(existsSync(launcherPath()), false);
        assert.equal(existsSync(hookPath()), false);
      });

      it('refuses, writing nothing, when the hook the confirmed plan removes was replaced by another tool since', () => {
        assert.equal(install('--claude', '--git').status, 0);
        const plan = install('--claude', '--git', '--uninstall', '--plan');
        writeFileSync(hookPath(), OTHER_TOOL);
        const settings = readFileSync(settingsPath(), 'utf8');
        const run = confirm(plan.stdout, '--claude', '--git', '--uninstall');
        assert.equal(run.status, 1, run.stdout + run.stderr);
        assert.ok(run.stderr.includes(hookPath()), run.stderr);
        assert.equal(readFileSync(hookPath(), 'utf8'), OTHER_TOOL);
        assert.equal(readFileSync(settingsPath(), 'utf8'), settings);
      });

      it('refuses a confirmed plan for other targets, or one that is not a plan', () => {
        const plan = install('--claude', '--plan');
        assert.equal(confirm(plan.stdout, '--claude', '--git').status, 1);
        assert.equal(confirm('not json', '--claude').status, 2);
        assert.equal(existsSync(launcherPath()), false);
      });
    });
  });
});
