// The command table in a real extension host: one entry per command package.json contributes, and
// every command runs behind the boundary (a failure is caught, logged and shown, never thrown at the
// caller).
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { registerCommands } from '../../src/extension/commands/command';
import type { CommandServices } from '../../src/extension/commands/command';
import { COMMANDS } from '../../src/extension/commands/commandTable';
import type { WaveScopeApi } from '../../src/extension/extension';
import { Log } from '../../src/extension/log';
import { saveDraftToDisk } from '../../src/extension/planFiles';
import type { PlanDraft, SaveOutcome } from '../../src/protocol/plannerProtocol';
import { hostFolder, startFromNoPlan } from './hostSupport';

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

describe('the palette Save refused for changes on disk', () => {
  it('offers to open the planner first, so the changes can be seen before anything is overwritten', async () => {
    const host = await hostFolder();
    const { api, folder } = host;
    await startFromNoPlan(host, ['.claude']);
    try {
      const plan = await api.plans.get(folder);
      assert.ok(plan.repoRoot);
      const wave = (entries: string[]): PlanDraft => ({ version: 1, activeWave: 1, waves: [{ wave: 1, role: 'builder', agents: [{ id: 'docs', color: '#3794ff', entries }] }] });
      const saved = await api.planners.save(folder, wave(['docs/']), undefined);
      assert.ok(saved.ok, saved.message);
      // An unsaved draft made from that plan, kept with it as its base; then another writer changes wave 1.
      await plan.drafts.write({ draft: wave(['docs/', 'README.md']), dirty: true, updatedAt: Date.now(), base: wave(['docs/']) });
      const files = await plan.files();
      assert.ok(saveDraftToDisk(plan.repoRoot, wave(['docs/architecture.md']), { ignoreCase: plan.ignoreCase, files, stateDirName: '.claude' }).ok);
      const declaration = join(plan.repoRoot, '.claude', 'filescopes', 'wave-1', 'docs.json');
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
    } finally {
      await startFromNoPlan(host, ['.claude']);
    }
  });
});
