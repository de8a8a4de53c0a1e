// Helpers the in-host tests share (bundled into each test file; not a test file itself).
import * as assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { WaveScopeApi } from '../../src/extension/extension';

/** The id `vscode.extensions.getExtension` takes. */
export const extensionId = 'wave-scope.wave-scope';

/** Polls `probe` every 50 ms until it returns something other than undefined or false (a condition, not a fixed sleep). */
export async function until<T>(what: string, probe: () => T | undefined | false, timeoutMs = 20000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((wake) => setTimeout(wake, 50));
  }
}

/** Activates Wave Scope (if it is not yet) and returns what activate() returned. */
export async function waveScopeApi(): Promise<WaveScopeApi> {
  const extension = vscode.extensions.getExtension<WaveScopeApi>(extensionId);
  assert.ok(extension, 'Wave Scope is installed');
  return extension.activate();
}

/** Wave Scope's API and the workspace's first folder: what the in-host tests of one folder work on. */
export interface HostFolder {
  /** What Wave Scope's activate() returned. */
  readonly api: WaveScopeApi;
  /** The first folder of the workspace the host opened. */
  readonly folder: vscode.WorkspaceFolder;
}

/** Activates Wave Scope and takes the workspace's first folder; fails when there is none. */
export async function hostFolder(): Promise<HostFolder> {
  const api = await waveScopeApi();
  const first = vscode.workspace.workspaceFolders?.[0];
  assert.ok(first, 'a folder is open');
  return { api, folder: first };
}

/**
 * Puts the folder back to no plan: its planner closed, the directories `remove` (relative to the folder)
 * deleted, and the kept draft replaced by the plan on disk, not dirty. Tests call it before each test and
 * after the last, so that none depends on what another left behind.
 */
export async function startFromNoPlan({ api, folder }: HostFolder, remove: readonly string[]): Promise<void> {
  const open = api.panelFor(folder);
  if (open) {
    open.close();
    await until('the planner to close', () => api.panelFor(folder) === undefined);
  }
  for (const path of remove) rmSync(join(folder.uri.fsPath, path), { recursive: true, force: true });
  const plan = await api.plans.get(folder);
  await plan.drafts.write({ draft: plan.diskPlan().plan, dirty: false, updatedAt: Date.now() });
}
