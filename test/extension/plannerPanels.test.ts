// One planner per folder, in a real extension host: a panel VS Code restores wins over one the
// extension opened meanwhile (open-on-startup racing the restore after a reload), a second restored
// panel of the same folder is closed, and releasing the panels (what deactivation does) leaves them open.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { WaveScopeApi } from '../../src/extension/extension';
import { Log } from '../../src/extension/log';
import { PLANNER_VIEW_TYPE, plannerTitle } from '../../src/extension/plannerPanel';
import { PlannerPanels } from '../../src/extension/plannerPanels';
import { extensionId, until } from './hostSupport';

/** A webview panel as VS Code hands one to the serializer after a reload. */
function restoredWebviewPanel(folder: vscode.WorkspaceFolder): vscode.WebviewPanel {
  return vscode.window.createWebviewPanel(PLANNER_VIEW_TYPE, plannerTitle(folder), vscode.ViewColumn.Active, { enableScripts: true });
}

function disposedFlag(panel: vscode.WebviewPanel): { disposed: boolean } {
  const flag = { disposed: false };
  panel.onDidDispose(() => (flag.disposed = true));
  return flag;
}

function plannerTabs(folder: vscode.WorkspaceFolder): number {
  return vscode.window.tabGroups.all.flatMap((group) => group.tabs).filter((tab) => tab.label === plannerTitle(folder)).length;
}

describe('planner panels: one per folder', function () {
  this.timeout(60000);
  let api: WaveScopeApi;
  let extensionUri: vscode.Uri;
  let folder: vscode.WorkspaceFolder;

  before(async () => {
    const extension = vscode.extensions.getExtension<WaveScopeApi>(extensionId);
    assert.ok(extension, 'Wave Scope is installed');
    api = await extension.activate();
    extensionUri = extension.extensionUri;
    const first = vscode.workspace.workspaceFolders?.[0];
    assert.ok(first, 'a folder is open');
    folder = first;
  });

  afterEach(async () => {
    api.panelFor(folder)?.close();
    await until('the planner to close', () => api.panelFor(folder) === undefined);
  });

  it('a restored panel replaces the one the extension opened meanwhile, which is closed', async () => {
    await vscode.commands.executeCommand('waveScope.openPlanner', folder.uri);
    const opened = await until('the opened planner', () => api.panelFor(folder));
    assert.equal(opened.restored, false);
    const openedPanel = disposedFlag(opened.panel);
    const restored = restoredWebviewPanel(folder);
    api.planners.adoptRestored(restored, { folderUri: folder.uri.toString() });
    assert.equal(api.panelFor(folder)?.panel, restored, 'the restored panel is the folder’s planner');
    assert.equal(api.panelFor(folder)?.restored, true);
    await until('the opened panel to close', () => openedPanel.disposed);
    await until('one planner tab', () => plannerTabs(folder) === 1);
    await until('the restored planner to be ready', () => api.panelFor(folder)?.isReady, 45000);
  });

  it('a second restored panel of the same folder is closed; the first stays', async () => {
    const first = restoredWebviewPanel(folder);
    api.planners.adoptRestored(first, { folderUri: folder.uri.toString() });
    const second = restoredWebviewPanel(folder);
    const secondPanel = disposedFlag(second);
    api.planners.adoptRestored(second, { folderUri: folder.uri.toString() });
    await until('the second restored panel to close', () => secondPanel.disposed);
    assert.equal(api.panelFor(folder)?.panel, first);
    await until('one planner tab', () => plannerTabs(folder) === 1);
  });

  it('Open Planner reveals the folder’s planner instead of opening a second', async () => {
    await vscode.commands.executeCommand('waveScope.openPlanner', folder.uri);
    const opened = await until('the planner', () => api.panelFor(folder));
    await vscode.commands.executeCommand('waveScope.openPlanner', folder.uri);
    assert.equal(api.panelFor(folder), opened);
    await until('one planner tab', () => plannerTabs(folder) === 1);
    assert.equal(api.planners.hasPlannerTab(folder), true);
  });

  it('releasing the panels (what deactivation does) stops their listeners and leaves them open', async () => {
    const log = new Log();
    const own = new PlannerPanels(extensionUri, log, api.plans, api.decorations, api.worker);
    try {
      const panel = own.open(folder);
      const webview = disposedFlag(panel.panel);
      await until('the webview to be ready', () => panel.isReady, 45000);
      own.dispose();
      assert.equal(webview.disposed, false, 'the panel was not disposed');
      assert.equal(own.panelFor(folder), undefined);
      assert.ok(plannerTabs(folder) >= 1, 'its tab is still open');
      panel.panel.dispose();
      await until('the tab to close', () => webview.disposed);
    } finally {
      log.dispose();
    }
  });
});
