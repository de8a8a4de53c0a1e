// The planner in a real extension host (code-server, its workbench open in Chromium, so the webview
// really runs): commands drive the planner, the webview computes collisions, and saving writes
// through the safe chain. Files on disk are checked, nothing is mocked. Every test starts from a closed
// planner, no plan on disk and no kept draft, and builds what it needs itself: one failure cannot take
// the tests after it down.
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { WaveScopeApi } from '../../src/extension/extension';
import type { DraftValidation } from '../../src/planner/plan/draftSave';
import type { PlanDraft, SaveOutcome } from '../../src/protocol/plannerProtocol';
import { hostFolder, startFromNoPlan, until } from './hostSupport';

function entriesOf(draft: PlanDraft | undefined, wave: number, agentId: string): string[] | undefined {
  return draft?.waves.find((item) => item.wave === wave)?.agents.find((agent) => agent.id === agentId)?.entries;
}

/** Every file under `dir` with its content. */
function snapshot(dir: string): [string, string][] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => statSync(join(dir, name)).isFile())
    .sort()
    .map((name) => [name, readFileSync(join(dir, name), 'utf8')]);
}

describe('the planner in a real extension host', function () {
  this.timeout(60000);
  let api: WaveScopeApi;
  let folder: vscode.WorkspaceFolder;
  const uri = (path: string) => vscode.Uri.joinPath(folder.uri, ...path.split('/'));
  const stateDir = () => join(folder.uri.fsPath, '.claude');

  before(async () => {
    ({ api, folder } = await hostFolder());
  });

  /** Closes the planner, removes the plan on disk and drops the kept draft. */
  const startClean = () => startFromNoPlan({ api, folder }, ['.claude']);

  beforeEach(startClean);
  after(startClean);

  /** Opens the planner and waits until its webview has answered ready and reported its draft. */
  async function openPlanner() {
    await vscode.commands.executeCommand('waveScope.openPlanner', folder.uri);
    const panel = await until('a planner panel', () => api.panelFor(folder));
    await until('the webview ready request', () => panel.isReady, 45000);
    await until('the first draft report of the webview', () => panel.latestDraft);
    return panel;
  }

  /** api owns src/api/, ui owns two files of src/ui (the planner opens for the first assignment). */
  async function assignApiAndUi() {
    await vscode.commands.executeCommand('waveScope.assignToAgent', uri('src/api'), [uri('src/api')], { wave: 1, agentId: 'api' });
    await vscode.commands.executeCommand('waveScope.assignToAgent', uri('src/ui/App.tsx'), [uri('src/ui/App.tsx'), uri('src/ui/Cart.tsx')], {
      wave: 1,
      agentId: 'ui',
    });
    const panel = await until('a planner panel', () => api.panelFor(folder));
    return until('both assignments in the draft', () => {
      const latest = panel.latestDraft;
      return entriesOf(latest, 1, 'ui')?.length === 2 && entriesOf(latest, 1, 'api')?.length === 1 ? latest : undefined;
    });
  }

  /** ui also claims src/api/server.ts, which api owns through src/api/. */
  async function assignCollision() {
    await vscode.commands.executeCommand('waveScope.assignToAgent', uri('src/api/server.ts'), undefined, { wave: 1, agentId: 'ui' });
    await until('the Explorer decoration of the contested file', () => api.decorations.isContested(uri('src/api/server.ts')));
    await until('the collision in the draft', () => entriesOf(api.panelFor(folder)?.latestDraft, 1, 'ui')?.length === 3);
  }

  async function saveOk() {
    const outcome = (await vscode.commands.executeCommand('waveScope.savePlan', folder.uri)) as SaveOutcome;
    assert.equal(outcome.ok, true, outcome.message);
  }

  it('opens the planner webview, which loads its script and completes the ready handshake', async () => {
    await vscode.commands.executeCommand('waveScope.openPlanner', folder.uri);
    const panel = await until('a planner panel', () => api.panelFor(folder));
    assert.equal(panel.panel.viewType, 'waveScope.planner');
    assert.match(panel.panel.webview.html, /Content-Security-Policy/);
    assert.match(panel.panel.webview.html, /script-src 'nonce-[A-Za-z0-9]{32}'/);
    await until('the webview ready request', () => panel.isReady, 45000);
    await until('the first draft report of the webview', () => panel.latestDraft);
  });

  it('Assign to Agent… from the Explorer adds a folder as dir/ and a file as itself, creating the agents', async () => {
    const draft = await assignApiAndUi();
    assert.deepEqual(entriesOf(draft, 1, 'api'), ['src/api/']);
    assert.deepEqual(entriesOf(draft, 1, 'ui'), ['src/ui/App.tsx', 'src/ui/Cart.tsx']);
  });

  it('saves a disjoint wave through the safe chain: both shapes and the manifest', async () => {
    await assignApiAndUi();
    const outcome = (await vscode.commands.executeCommand('waveScope.savePlan', folder.uri)) as SaveOutcome;
    assert.equal(outcome.ok, true, outcome.message);
    const api1 = JSON.parse(readFileSync(join(stateDir(), 'filescopes', 'wave-1', 'api.json'), 'utf8'));
    const ui1 = JSON.parse(readFileSync(join(stateDir(), 'filescopes', 'wave-1', 'ui.json'), 'utf8'));
    const sidecar = JSON.parse(readFileSync(join(stateDir(), 'filescopes', 'wave-1.scopes.json'), 'utf8'));
    const manifest = JSON.parse(readFileSync(join(stateDir(), 'wave-scope.json'), 'utf8'));
    assert.deepEqual(api1, ['src/api/']);
    assert.deepEqual(ui1, ['src/ui/App.tsx', 'src/ui/Cart.tsx']);
    assert.deepEqual(
      sidecar.map((record: { id: string; files: string[] }) => [record.id, record.files]),
      [
        ['api', ['src/api/']],
        ['ui', ['src/ui/App.tsx', 'src/ui/Cart.tsx']],
      ],
    );
    assert.equal(manifest.wave, 1);
    assert.equal(manifest.version, 1);
    assert.ok(manifest.allowedPaths.includes('src/api/') || manifest.allowedPaths.some((path: string) => path.startsWith('src/api')));
  });

  it('a colliding assignment is contested live: Explorer decoration and validation with the witness', async () => {
    await assignApiAndUi();
    await vscode.commands.executeCommand('waveScope.assignToAgent', uri('src/api/server.ts'), undefined, { wave: 1, agentId: 'ui' });
    const contested = uri('src/api/server.ts');
    await until('the Explorer decoration of the contested file', () => api.decorations.isContested(contested));
    assert.equal(api.decorations.isContested(uri('src/api/routes/orders.ts')), false, 'a file only api owns is not contested');
    const validation = (await vscode.commands.executeCommand('waveScope.validatePlan', folder.uri)) as DraftValidation;
    assert.equal(validation.ok, false);
    const wave1 = validation.waves.find((wave) => wave.wave === 1);
    assert.deepEqual(
      wave1?.collisions.map((collision) => [...collision.agents].sort().join('+') + '@' + collision.witness),
      ['api+ui@src/api/server.ts'],
    );
  });

  it('refuses to save a wave that is not disjoint, writes nothing, and keeps the draft', async () => {
    await assignApiAndUi();
    await saveOk();
    await assignCollision();
    const before = snapshot(stateDir());
    assert.ok(before.length >= 4, 'the earlier save left files to compare');
    const outcome = (await vscode.commands.executeCommand('waveScope.savePlan', folder.uri)) as SaveOutcome;
    assert.equal(outcome.ok, false);
    assert.match(outcome.message, /not disjoint/);
    assert.ok(!outcome.ok && outcome.collisions.some((collision) => collision.witness === 'src/api/server.ts'));
    assert.deepEqual(snapshot(stateDir()), before, 'nothing on disk changed');
    assert.deepEqual(entriesOf(api.panelFor(folder)?.latestDraft, 1, 'ui'), ['src/ui/App.tsx', 'src/ui/Cart.tsx', 'src/api/server.ts']);
  });

  it('an unsaved draft survives closing and reopening the planner', async () => {
    await assignApiAndUi();
    await assignCollision();
    api.panelFor(folder)?.close();
    await until('the panel to close', () => api.panelFor(folder) === undefined);
    await vscode.commands.executeCommand('waveScope.openPlanner', folder.uri);
    const panel = await until('a new planner panel', () => api.panelFor(folder));
    await until('the new webview to be ready', () => panel.isReady, 45000);
    const draft = await until('the restored draft', () => panel.latestDraft);
    assert.deepEqual(entriesOf(draft, 1, 'ui'), ['src/ui/App.tsx', 'src/ui/Cart.tsx', 'src/api/server.ts']);
  });

  it('palette commands reach the open planner: Add Wave and Add Agent', async () => {
    const panel = await openPlanner();
    const wavesBefore = panel.latestDraft?.waves.map((wave) => wave.wave) ?? [];
    await vscode.commands.executeCommand('waveScope.addWave', folder.uri);
    const next = Math.max(0, ...wavesBefore) + 1;
    await until(`wave ${next} in the draft`, () => panel.latestDraft?.waves.some((wave) => wave.wave === next));
    await vscode.commands.executeCommand('waveScope.addAgent', folder.uri);
    const added = await until('an agent in the new wave', () => panel.latestDraft?.waves.find((wave) => wave.wave === next)?.agents[0]);
    assert.equal(added.id, 'agent-1');
    assert.deepEqual(added.entries, []);
  });

  it('Install Hooks runs the bundled installer in the repository (trusted workspace)', async () => {
    // The installer writes the settings of the state directory a plan is in.
    await assignApiAndUi();
    await saveOk();
    // The choice and the confirmation a person gives in the pickers (hooks.test.ts covers the preview).
    const options = { folderUri: folder.uri.toString(), targets: ['claude', 'git'], confirm: true, preview: false };
    const result = (await vscode.commands.executeCommand('waveScope.installHooks', options)) as { done: boolean; message: string };
    assert.equal(result.done, true, result.message);
    const settings = JSON.parse(readFileSync(join(stateDir(), 'settings.json'), 'utf8'));
    assert.match(JSON.stringify(settings.hooks), /wave-scope/);
    assert.match(readFileSync(join(folder.uri.fsPath, '.git', 'hooks', 'pre-commit'), 'utf8'), /wave-scope/);
  });

  it('reports how long the tree took to show, measured in the webview', async () => {
    const before = api.timings.length;
    await openPlanner();
    const timing = await until('a treeShown timing', () => api.timings.slice(before).find((item) => item.name === 'treeShown'));
    assert.ok(timing.milliseconds > 0 && timing.milliseconds < 10000, `treeShown ${timing.milliseconds} ms`);
  });
});
