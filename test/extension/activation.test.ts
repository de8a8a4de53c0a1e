// Smoke test of the real extension host: Wave Scope is installed, activates, and every command its
// package.json contributes is registered once it is active.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';

const extensionId = 'wave-scope.wave-scope';

interface ContributedCommand {
  command: string;
  title: string;
  category?: string;
}

function ourExtension(): vscode.Extension<unknown> {
  const extension = vscode.extensions.getExtension(extensionId);
  assert.ok(
    extension,
    `${extensionId} is not installed in this host. If package.json's engines.vscode is newer than the host ` +
      `(${vscode.version}), VS Code silently refuses to load it.`,
  );
  return extension;
}

function contributedCommands(extension: vscode.Extension<unknown>): ContributedCommand[] {
  // The manifest on disk, checked against the one the host loaded so a stale copy cannot pass.
  const onDisk = JSON.parse(readFileSync(join(extension.extensionPath, 'package.json'), 'utf8'));
  const ids = (commands: ContributedCommand[] | undefined) => (commands ?? []).map(({ command }) => command);
  assert.deepEqual(ids(extension.packageJSON.contributes?.commands), ids(onDisk.contributes?.commands));
  return (onDisk.contributes?.commands ?? []) as ContributedCommand[];
}

function versionTuple(version: string): number[] {
  return version
    .replace(/^[^\d]*/, '')
    .split(/[.-]/)
    .slice(0, 3)
    .map((part) => Number.parseInt(part, 10) || 0);
}

describe('Wave Scope in a real extension host', () => {
  it('runs in a VS Code host that satisfies engines.vscode', () => {
    const wanted = ourExtension().packageJSON.engines?.vscode as string | undefined;
    assert.ok(wanted, 'package.json declares engines.vscode');
    const [wantMajor = 0, wantMinor = 0, wantPatch = 0] = versionTuple(wanted);
    const [major = 0, minor = 0, patch = 0] = versionTuple(vscode.version);
    const hostIsNewEnough = major * 1e6 + minor * 1e3 + patch >= wantMajor * 1e6 + wantMinor * 1e3 + wantPatch;
    assert.ok(hostIsNewEnough, `host ${vscode.version} is older than engines.vscode ${wanted}`);
  });

  it('opens the workspace folder the runner asked for', () => {
    const folders = (vscode.workspace.workspaceFolders ?? []).map((folder) => folder.uri.fsPath);
    assert.ok(folders.length > 0, 'a folder is open');
    const expected = process.env.WAVE_SCOPE_HOST_WORKSPACE;
    if (expected && !expected.endsWith('.code-workspace')) assert.deepEqual(folders, [expected]);
  });

  it('runs with the workspace trust the runner asked for', () => {
    const untrusted = process.env.WAVE_SCOPE_HOST_UNTRUSTED === '1';
    assert.equal(vscode.workspace.isTrusted, !untrusted, untrusted ? 'Restricted Mode' : 'a trusted workspace');
  });

  it('activates without an error', async () => {
    const extension = ourExtension();
    await extension.activate();
    assert.equal(extension.isActive, true);
  });

  it('contributes its commands as waveScope.* in the "Wave Scope" category', () => {
    const commands = contributedCommands(ourExtension());
    assert.ok(
      commands.length > 0,
      'package.json contributes no commands yet (contributes.commands is empty): the extension has nothing to offer',
    );
    for (const { command, title, category } of commands) {
      assert.match(command, /^waveScope\.[a-z]\w*(\.\w+)*$/, `command id ${command}`);
      assert.equal(category, 'Wave Scope', `category of ${command}`);
      assert.ok(title.trim().length > 0, `title of ${command}`);
    }
  });

  it('registers every contributed command once active', async () => {
    const extension = ourExtension();
    await extension.activate();
    const contributed = contributedCommands(extension).map(({ command }) => command);
    assert.ok(contributed.length > 0, 'package.json contributes no commands yet');
    const registered = new Set(await vscode.commands.getCommands(true));
    const missing = contributed.filter((command) => !registered.has(command));
    assert.deepEqual(missing, [], `contributed but not registered after activation: ${missing.join(', ')}`);
  });
});
