// The command table in a real extension host: one entry per command package.json contributes, and
// every command runs behind the boundary (a failure is caught, logged and shown, never thrown at the
// caller).
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { registerCommands } from '../../src/extension/commands/command';
import type { CommandServices } from '../../src/extension/commands/command';
import { COMMANDS } from '../../src/extension/commands/commandTable';
import type { WaveScopeApi } from '../../src/extension/extension';
import { Log } from '../../src/extension/log';
import { saveDraftToDisk } from '../../src/extension/planFiles';
import { overwriteChoiceOf } from '../../src/protocol/plannerProtocol';
import type { PlanDraft, SaveOutcome } from '../../src/protocol/plannerProtocol';
import { hostFolder, startFromNoPlan, until } from './hostSupport';
import type { HostFolder } from './hostSupport';
import type { FolderPlan } from '../../src/extension/folderPlan';

const extensionId = 'wave-scope.wave-scope';

describe('the command table', () => {
  it('has exactly the commands package.json contributes, each once', () => {
    const extension = vscode.extensions.getExtension(extensionId);
    assert.ok(extension);
    const manifest = JSON.parse(readFileSync(join(extension.extensionPath, 'package.json'), 'utf8'));
    const contributed = (manifest.contributes.commands as { command: string }[]).map(({ command }) => command).sort();
    assert.deepEqual(COMMANDS.map(({ id }) => id).sort(), contributed);
    assert.equal(new Set(COMMANDS.map(({ id }) => id)).size, COMMANDS.length);
  });

  it('catches a command that throws: the caller gets undefined, not the exception', async () => {
    const api = await vscode.extensions.getExtension<WaveScopeApi>(extensionId)?.activate();
    assert.ok(api);
    const log = new Log();
    const subscriptions: vscode.Disposable[] = [log];
    let ran = false;
    const services: CommandServices = { extensionUri: vscode.Uri.file('/'), log, plans: api.plans, planners: api.planners, decorations: api.decorations, insights: api.insights };
    registerCommands(subscriptions, services, [
      {
        id: 'waveScopeTest.fails',
        name: 'Failing on purpose',
        async run() {
          ran = true;
          throw new Error('on purpose');
        },
      },
    ]);
    try {
      assert.equal(await vscode.commands.executeCommand('waveScopeTest.fails'), undefined);
      assert.equal(ran, true);
    } finally {
      for (const subscription of subscriptions) subscription.dispose();
    }
    assert.equal((await vscode.commands.getCommands(true)).includes('waveScopeTest.fails'), false, 'its registration was disposed with the subscriptions');
  });
});

/**
 * Runs `body` on the host folder started from no plan (its `.claude` removed), with its folder plan (whose
 * repository root is known), and leaves the folder with no plan again, its notifications cleared.
 */
async function onNoPlan(body: (context: HostFolder & { plan: FolderPlan; repoRoot: string }) => Promise<void>): Promise<void> {
  const host = await hostFolder();
  await startFromNoPlan(host, ['.claude']);
  try {
    const plan = await host.api.plans.get(host.folder);
    assert.ok(plan.repoRoot);
    await body({ ...host, plan, repoRoot: plan.repoRoot });
  } finally {
    await vscode.commands.executeCommand('notifications.clearAll');
    await startFromNoPlan(host, ['.claude']);
  }
}

/** A plan whose active wave 1 (role `builder` unless given) has one agent, docs, owning `entries`. */
function docsWave(entries: string[], role = 'builder'): PlanDraft {
  return { version: 1, activeWave: 1, waves: [{ wave: 1, role, agents: [{ id: 'docs', color: '#3794ff', entries }] }] };
}

describe('the palette Save refused for changes on disk', () => {
  it('offers to open the planner first, so the changes can be seen before anything is overwritten', async () => {
    await onNoPlan(async ({ api, folder, plan, repoRoot }) => {
      const saved = await api.planners.save(folder, docsWave(['docs/']), undefined);
      assert.ok(saved.ok, saved.message);
      // An unsaved draft made from that plan, kept with it as its base; then another writer changes wave 1.
      await plan.drafts.write({ draft: docsWave(['docs/', 'README.md']), dirty: true, updatedAt: Date.now(), base: docsWave(['docs/']) });
      const files = await plan.files();
      assert.ok(saveDraftToDisk(repoRoot, docsWave(['docs/architecture.md']), { ignoreCase: plan.ignoreCase, files, stateDirName: '.claude' }).ok);
      const declaration = join(repoRoot, '.claude', 'filescopes', 'wave-1', 'docs.json');
      const onDisk = readFileSync(declaration, 'utf8');
      const outcome = (await vscode.commands.executeCommand('waveScope.savePlan')) as SaveOutcome | undefined;
      assert.equal(outcome?.ok === false && outcome.step, 'stale');
      // The message's primary button (its first) is the safe one.
      const deadline = Date.now() + 20_000;
      while (api.panelFor(folder) === undefined) {
        assert.ok(Date.now() < deadline, 'the planner opened from the refusal');
        await vscode.commands.executeCommand('notification.acceptPrimaryAction');
        await new Promise((wake) => setTimeout(wake, 100));
      }
      assert.equal(readFileSync(declaration, 'utf8'), onDisk, 'nothing was overwritten');
    });
  });
});

describe('the palette Save over a manifest changed on disk since the draft was made', () => {
  it('is refused for a manifest removed and for a role changed, writing nothing; an overwrite writes over exactly that', async () => {
    await onNoPlan(async ({ api, folder, plan, repoRoot }) => {
      const manifestFile = join(repoRoot, '.claude', 'wave-scope.json');
      const readManifest = () => JSON.parse(readFileSync(manifestFile, 'utf8')) as { wave: number; role: string };
      const withDocs = (base: PlanDraft, entries: string[]): PlanDraft => ({ ...base, waves: docsWave(entries).waves });
      /** Keeps an unsaved draft made from the plan on disk now, as the planner would, and returns that plan (its base). */
      const keepDraftFromDisk = async (entries: string[]) => {
        const base = plan.diskPlan().plan;
        await plan.drafts.write({ draft: withDocs(base, entries), dirty: true, updatedAt: Date.now(), base });
        return base;
      };
      const paletteSave = async () => (await vscode.commands.executeCommand('waveScope.savePlan')) as SaveOutcome | undefined;

      // The first save into an empty state directory: the base names wave 1 active, with no manifest behind it.
      const emptyBase = await keepDraftFromDisk(['docs/']);
      assert.equal(emptyBase.manifest, null);
      const first = await paletteSave();
      assert.ok(first?.ok, first?.message);
      assert.equal(readManifest().wave, 1);

      // A draft made from that plan; then the wave is ended on disk (its manifest removed).
      await keepDraftFromDisk(['docs/', 'README.md']);
      rmSync(manifestFile);
      const removed = await paletteSave();
      assert.ok(removed && !removed.ok, removed?.message);
      assert.equal(removed.step, 'stale');
      assert.equal(removed.staleManifest?.onDisk, null);
      assert.match(removed.message, /The manifest was removed from disk \(it named wave 1 with the role builder when the draft was made\)/);
      assert.equal(existsSync(manifestFile), false, 'the removal was not undone');
      // Overwrite Changes on Disk: saves again naming "nothing there".
      const kept = await plan.drafts.read();
      assert.ok(kept?.dirty);
      const overwritten = await api.planners.save(folder, kept.draft, kept.base, overwriteChoiceOf(removed));
      assert.ok(overwritten.ok, overwritten.message);
      assert.equal(readManifest().wave, 1);

      // A draft made from that plan; then the active wave is given another role on disk.
      await keepDraftFromDisk(['docs/']);
      const files = await plan.files();
      const review = docsWave(['docs/', 'README.md'], 'review');
      assert.ok(saveDraftToDisk(repoRoot, review, { ignoreCase: plan.ignoreCase, files, stateDirName: '.claude' }).ok);
      const manifestBefore = readFileSync(manifestFile, 'utf8');
      const retitled = await paletteSave();
      assert.ok(retitled && !retitled.ok, retitled?.message);
      assert.deepEqual(retitled.staleManifest?.onDisk, { wave: 1, role: 'review' });
      assert.match(retitled.message, /the role review \(it was builder when the draft was made\)/);
      assert.equal(readFileSync(manifestFile, 'utf8'), manifestBefore, 'the manifest was not written');
    });
  });

  it('with the planner open on an unsaved draft, the palette Save is refused for a manifest removed since', async function () {
    this.timeout(90000);
    await onNoPlan(async ({ api, folder, plan, repoRoot }) => {
      const saved = await api.planners.save(folder, docsWave(['docs/']), undefined);
      assert.ok(saved.ok, saved.message);
      const base = plan.diskPlan().plan;
      await plan.drafts.write({ draft: { ...base, waves: docsWave(['docs/', 'README.md']).waves }, dirty: true, updatedAt: Date.now(), base });
      await vscode.commands.executeCommand('waveScope.openPlanner', folder.uri);
      const panel = await until('the planner', () => api.panelFor(folder));
      await until('the planner ready', () => panel.isReady, 45000);
      await until('the first draft report of the planner', () => panel.latestDraft);
      assert.deepEqual(panel.latestBase?.manifest, { wave: 1, role: 'builder' }, 'the base of the open planner records the manifest');
      const manifestFile = join(repoRoot, '.claude', 'wave-scope.json');
      rmSync(manifestFile);
      const outcome = (await vscode.commands.executeCommand('waveScope.savePlan')) as SaveOutcome | undefined;
      assert.ok(outcome && !outcome.ok, outcome?.message);
      assert.equal(outcome.staleManifest?.onDisk, null);
      assert.equal(existsSync(manifestFile), false, 'the removal was not undone');
    });
  });
});
