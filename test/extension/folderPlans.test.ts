// The folder-plans registry in a real extension host: every folder's plan comes with its own file
// watchers, and a forgotten folder (one removed from the workspace) takes its watchers with it.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { WaveScopeApi } from '../../src/extension/extension';
import { extensionId, until } from './hostSupport';

/** A real git repository (outside the workspace), as a workspace folder value the registry can plan. */
function repoFolder(name: string, index: number): { folder: vscode.WorkspaceFolder; root: string } {
  const root = realpathSync(mkdtempSync(join(tmpdir(), `wave-scope-${name}-`)));
  execFileSync('git', ['init', '--quiet', root]);
  writeFileSync(join(root, 'a.ts'), '');
  return { root, folder: { uri: vscode.Uri.file(root), name, index } };
}

/**
 * Writes `poke` again every half second until `probe` holds: a new watcher starts watching a moment
 * after it is created, and a change made before that moment is never reported.
 */
async function untilAfterPokes(what: string, poke: () => void, probe: () => boolean, timeoutMs = 20000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let poked = 0;
  for (;;) {
    if (Date.now() >= poked + 500) {
      poke();
      poked = Date.now();
    }
    if (probe()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((wake) => setTimeout(wake, 50));
  }
}

function writePlanFile(root: string, stamp: number): void {
  mkdirSync(join(root, '.claude', 'filescopes'), { recursive: true });
  writeFileSync(join(root, '.claude', 'filescopes', 'wave-1.scopes.json'), JSON.stringify([{ id: `agent-${stamp}`, files: ['a.ts'] }]));
}

describe('the folder-plans registry and its watchers', function () {
  this.timeout(60000);
  let api: WaveScopeApi;
  const made: string[] = [];
  const subscriptions: vscode.Disposable[] = [];

  before(async () => {
    const extension = vscode.extensions.getExtension<WaveScopeApi>(extensionId);
    assert.ok(extension, 'Wave Scope is installed');
    api = await extension.activate();
  });

  after(() => {
    for (const subscription of subscriptions.splice(0)) subscription.dispose();
    for (const root of made) rmSync(root, { recursive: true, force: true });
  });

  it('finds the repository of a folder without blocking, and hands out one plan per folder', async () => {
    const { folder, root } = repoFolder('registry-one', 90);
    made.push(root);
    const [first, second] = await Promise.all([api.plans.get(folder), api.plans.get(folder)]);
    assert.equal(first, second);
    assert.equal(first.repoRoot, root);
    assert.deepEqual(await first.files(), ['a.ts']);
    api.plans.forget(folder);
  });

  it('a forgotten folder’s watchers are disposed and report nothing more; the others keep watching', async () => {
    const kept = repoFolder('registry-kept', 91);
    const gone = repoFolder('registry-gone', 92);
    made.push(kept.root, gone.root);
    // The plan's folder exists before the watchers start: a file written into a folder created after
    // the watch began can be missed by inotify (the folder is watched only once its creation is seen).
    writePlanFile(kept.root, 0);
    writePlanFile(gone.root, 0);
    const heard: string[] = [];
    subscriptions.push(api.plans.onDidChangeDiskPlan((plan) => heard.push(plan.folder.name)));
    await Promise.all([api.plans.get(kept.folder), api.plans.get(gone.folder)]);
    const goneWatchers = api.plans.watchersOf(gone.folder);
    assert.ok(goneWatchers, 'the folder is watched');
    // Both watchers work before the folder is forgotten...
    let stamp = 0;
    await untilAfterPokes(
      'both folders to report their plan change',
      () => {
        stamp += 1;
        if (!heard.includes('registry-kept')) writePlanFile(kept.root, stamp);
        if (!heard.includes('registry-gone')) writePlanFile(gone.root, stamp);
      },
      () => heard.includes('registry-kept') && heard.includes('registry-gone'),
    ).catch((error: Error) => {
      throw new Error(`${error.message}; heard: ${heard.join(', ') || 'nothing'}`);
    });
    // ...and after it, only the kept folder's does.
    api.plans.forget(gone.folder);
    assert.equal(goneWatchers.disposed, true);
    assert.equal(api.plans.watchersOf(gone.folder), undefined);
    heard.length = 0;
    writePlanFile(gone.root, stamp + 1);
    writePlanFile(kept.root, stamp + 1);
    await until('the kept folder to report its second change', () => heard.includes('registry-kept'));
    assert.deepEqual(heard.filter((name) => name === 'registry-gone'), [], 'the forgotten folder reported nothing');
    api.plans.forget(kept.folder);
  });
});
