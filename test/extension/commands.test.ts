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
