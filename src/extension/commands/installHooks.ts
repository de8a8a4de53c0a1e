// Wave Scope: Install Hooks: runs the bundled `wave-scope install-hooks` in the folder's repository
// (trusted workspaces only: it changes agent settings and git hooks).
import * as vscode from 'vscode';
import { installHooksInto } from '../planFiles';
import type { WaveScopeCommand } from './command';
import { pickFolder } from './pickFolder';

export const installHooks: WaveScopeCommand = {
  id: 'waveScope.installHooks',
  name: 'Install Hooks',
  async run({ extensionUri, log, plans }, hint) {
    if (!vscode.workspace.isTrusted) {
      void vscode.window.showWarningMessage('Wave Scope: installing hooks changes agent settings; trust this workspace first.');
      return undefined;
    }
    const folder = await pickFolder(hint);
    if (!folder) return undefined;
    const plan = await plans.get(folder);
    if (!plan.repoRoot) throw new Error(`${folder.name} is not inside a git repository`);
    const result = await installHooksInto(plan.repoRoot, extensionUri.fsPath);
    log.info(`install hooks in ${folder.name}: ${result.message}`);
    if (result.ok) void vscode.window.showInformationMessage(`Wave Scope: ${result.message}`);
    else void vscode.window.showErrorMessage(`Wave Scope: ${result.message}`);
    return result;
  },
};
