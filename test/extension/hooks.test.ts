// Install Hooks, Uninstall Hooks and Verify Hooks in a real extension host, through the bundled CLI:
// the preview opens every file the plan changes, install and uninstall round-trip an existing
// `.claude/settings.json` (comments and unrelated keys kept, byte for byte after uninstall) and the
// git pre-commit hook, and Verify reports working hooks as working and a broken launcher as broken.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { HookCommandResult } from '../../src/extension/commands/installHooks';
import { PREVIEW_SCHEME } from '../../src/extension/hookPreview';
import type { DoctorReport } from '../../src/node/hookDoctor';
import { waveScopeApi } from './hostSupport';

const SETTINGS = `{
  // the user's own settings: kept as they are
  "permissions": { "allow": ["Bash(npm test)"] },
  "model": "opus"
}
`;

describe('Install, Uninstall and Verify Hooks in a real extension host', function () {
  this.timeout(120000);
  let folder: vscode.WorkspaceFolder;
  const root = () => folder.uri.fsPath;
  const settingsFile = () => join(root(), '.claude', 'settings.json');
  const preCommit = () => join(execFileSync('git', ['rev-parse', '--absolute-git-dir'], { cwd: root(), encoding: 'utf8' }).trim(), 'hooks', 'pre-commit');

  before(async () => {
    await waveScopeApi();
    const first = vscode.workspace.workspaceFolders?.[0];
    assert.ok(first, 'a folder is open');
    folder = first;
  });

  function clean(): void {
    rmSync(join(root(), '.claude'), { recursive: true, force: true });
    rmSync(preCommit(), { force: true });
  }
  beforeEach(clean);
  after(clean);

  it('previews every change, installs for the chosen CLI and git, verifies, and uninstalls exactly what it added', async () => {
    mkdirSync(join(root(), '.claude'), { recursive: true });
    writeFileSync(settingsFile(), SETTINGS);
    const folderUri = folder.uri.toString();
    const installed = (await vscode.commands.executeCommand('waveScope.installHooks', { folderUri, targets: ['claude', 'git'], confirm: true })) as HookCommandResult;
    assert.ok(installed?.done, installed?.message);
    // The plan (and so the preview) names the settings file, the launcher and the pre-commit hook.
    const paths = installed.plan?.changes.map((change) => change.path) ?? [];
    assert.ok(paths.some((path) => path.endsWith(join('.claude', 'settings.json'))), paths.join(', '));
    assert.ok(paths.some((path) => path.endsWith('pre-commit')), paths.join(', '));
    // The preview's documents are open, with the plan's before and after texts.
    const previews = vscode.workspace.textDocuments.filter((document) => document.uri.scheme === PREVIEW_SCHEME);
    assert.ok(previews.some((document) => document.getText() === SETTINGS), 'the before text of settings.json is previewed');
    // Installed: our entries merged, the user's comment and keys kept.
    const merged = readFileSync(settingsFile(), 'utf8');
    assert.ok(merged.includes('// the user\'s own settings: kept as they are') && merged.includes('"model": "opus"') && merged.includes('wave-scope-hook.cjs'), merged);
    assert.ok(existsSync(preCommit()), 'the pre-commit hook exists');
    // Verify at the end of the install: both working.
    const statusOf = (report: DoctorReport | undefined, target: string) => report?.results.find((item) => item.target === target)?.status;
    assert.equal(statusOf(installed.doctor, 'claude'), 'working', installed.message);
    assert.equal(statusOf(installed.doctor, 'git'), 'working', installed.message);

    // A deliberately broken launcher: Verify Hooks says broken.
    const launcher = join(root(), '.claude', 'wave-scope-hook.cjs');
    assert.ok(existsSync(launcher), 'the launcher was written');
    const launcherText = readFileSync(launcher, 'utf8');
    writeFileSync(launcher, 'process.exit(0);\n');
    const broken = (await vscode.commands.executeCommand('waveScope.verifyHooks', { folderUri })) as DoctorReport;
    assert.equal(statusOf(broken, 'claude'), 'broken', JSON.stringify(broken.results));
    writeFileSync(launcher, launcherText);
    const repaired = (await vscode.commands.executeCommand('waveScope.verifyHooks', { folderUri })) as DoctorReport;
    assert.equal(statusOf(repaired, 'claude'), 'working', JSON.stringify(repaired.results));

    // Uninstall everything: settings.json is byte for byte the user's again, the hook and the launcher are gone.
    const removed = (await vscode.commands.executeCommand('waveScope.uninstallHooks', { folderUri, targets: 'all', confirm: true })) as HookCommandResult;
    assert.ok(removed?.done, removed?.message);
    assert.equal(readFileSync(settingsFile(), 'utf8'), SETTINGS);
    assert.equal(existsSync(preCommit()), false, 'the pre-commit hook we created is removed');
    assert.equal(existsSync(launcher), false, 'the launcher is removed');
  });

  it('preselects nothing it was not asked for: an explicit choice of git alone leaves .claude alone', async () => {
    const result = (await vscode.commands.executeCommand('waveScope.installHooks', { folderUri: folder.uri.toString(), targets: ['git'], confirm: true, preview: false })) as HookCommandResult;
    assert.ok(result?.done, result?.message);
    assert.equal(existsSync(settingsFile()), false);
    assert.ok(existsSync(preCommit()));
    assert.equal(result.doctor?.results.find((item) => item.target === 'git')?.status, 'working');
  });

  it('refuses to uninstall a pre-commit hook edited since the install, and says why and how to go on, in the CLI\'s words', async () => {
    const folderUri = folder.uri.toString();
    const installed = (await vscode.commands.executeCommand('waveScope.installHooks', { folderUri, targets: ['git'], confirm: true, preview: false })) as HookCommandResult;
    assert.ok(installed?.done, installed?.message);
    // A line of the user's own inside our block: removing the block would lose it.
    const edited = readFileSync(preCommit(), 'utf8').replace(' || exit 1\n', ' || exit 1\necho "a line of the user\'s own"\n');
    assert.ok(edited.includes('a line of the user'), edited);
    writeFileSync(preCommit(), edited);
    const removed = (await vscode.commands.executeCommand('waveScope.uninstallHooks', { folderUri, targets: 'all', confirm: true })) as HookCommandResult;
    assert.equal(removed?.done, false, removed?.message);
    // Not a bare reason code: the sentence the CLI prints, which names the hook and what to do.
    assert.match(removed.message ?? '', /^nothing was removed: .*pre-commit holds Wave Scope's commit guard block .* changed since .* run the same install-hooks command again\.$/);
    assert.equal(readFileSync(preCommit(), 'utf8'), edited, 'the edited hook is kept as it was');
  });

  it('with a relative core.hooksPath, previews and installs the guard in each linked worktree\'s own hook file, and Verify names a worktree added since', async () => {
    const folderUri = folder.uri.toString();
    const git = (...args: string[]) => execFileSync('git', args, { cwd: root(), encoding: 'utf8' });
    const agent = `${root()}-hooks-agent`;
    const late = `${root()}-hooks-late`;
    const TEAM_HOOK = '#!/bin/sh\necho "the team\'s checks"\n';
    git('config', 'core.hooksPath', '.githooks');
    try {
      git('worktree', 'add', '--quiet', '--detach', agent);
      const agentHook = join(agent, '.githooks', 'pre-commit');
      mkdirSync(join(agent, '.githooks'), { recursive: true });
      writeFileSync(agentHook, TEAM_HOOK, { mode: 0o755 });
      const installed = (await vscode.commands.executeCommand('waveScope.installHooks', { folderUri, targets: ['git'], confirm: true })) as HookCommandResult;
      assert.ok(installed?.done, installed?.message);
      // The same plan JSON the CLI prints: the worktree's hook file is one of its changes, and it is previewed.
      assert.ok(installed.plan?.changes.some((change) => change.path === agentHook && change.action === 'modify'), JSON.stringify(installed.plan?.changes.map((change) => change.path)));
      assert.deepEqual(installed.plan?.worktrees.map((worktree) => worktree.status), ['planned', 'planned']);
      const previews = vscode.workspace.textDocuments.filter((document) => document.uri.scheme === PREVIEW_SCHEME && document.uri.path === agentHook);
      assert.ok(previews.some((document) => document.getText() === TEAM_HOOK), 'the worktree\'s hook is previewed before');
      assert.match(readFileSync(agentHook, 'utf8'), /commit-guard \|\| exit 1\n# <<< wave-scope commit guard <<<\necho "the team's checks"\n$/);
      assert.equal(installed.doctor?.results.find((item) => item.target === 'git')?.status, 'working', installed.message);

      git('worktree', 'add', '--quiet', '--detach', late);
      mkdirSync(join(late, '.githooks'), { recursive: true });
      writeFileSync(join(late, '.githooks', 'pre-commit'), TEAM_HOOK, { mode: 0o755 });
      const verified = (await vscode.commands.executeCommand('waveScope.verifyHooks', { folderUri, targets: ['git'] })) as DoctorReport;
      const gitResult = verified.results.find((item) => item.target === 'git');
      assert.equal(gitResult?.status, 'broken');
      assert.ok(gitResult?.checks.some((check) => !check.ok && check.detail.includes(`the worktree ${late} runs its own pre-commit hook`)), JSON.stringify(gitResult?.checks));

      const removed = (await vscode.commands.executeCommand('waveScope.uninstallHooks', { folderUri, targets: ['git'], confirm: true, preview: false })) as HookCommandResult;
      assert.ok(removed?.done, removed?.message);
      assert.equal(readFileSync(agentHook, 'utf8'), TEAM_HOOK, 'the worktree\'s hook is given back byte for byte');
    } finally {
      git('config', '--unset', 'core.hooksPath');
      rmSync(join(root(), '.githooks'), { recursive: true, force: true });
      for (const path of [agent, late]) {
        rmSync(path, { recursive: true, force: true });
      }
      git('worktree', 'prune');
    }
  });
});
