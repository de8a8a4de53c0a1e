// The settings the editor integration reads (src/extension/settings.ts) against what package.json
// contributes: every one is contributed with a scope and a markdownDescription, the defaults agree,
// and a changed value reaches the accessor (and the marks) in the real host.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { settings } from '../../src/extension/settings';
import { extensionId, until, waveScopeApi } from './hostSupport';

interface Contributed {
  type: string;
  default: unknown;
  scope?: string;
  markdownDescription?: string;
  enum?: string[];
}

describe('the waveScope.* settings', () => {
  let properties: Record<string, Contributed>;

  before(async () => {
    await waveScopeApi();
    const extension = vscode.extensions.getExtension(extensionId);
    assert.ok(extension);
    const manifest = JSON.parse(readFileSync(join(extension.extensionPath, 'package.json'), 'utf8')) as { contributes: { configuration: { properties: Record<string, Contributed> } } };
    properties = manifest.contributes.configuration.properties;
  });

  const read: [string, () => unknown][] = [
    ['waveScope.decorations.enabled', () => settings.decorationsEnabled()],
    ['waveScope.decorations.style', () => settings.decorationStyle()],
    ['waveScope.decorations.outsideScope', () => settings.outsideScope()],
    ['waveScope.decorations.draftWaves', () => settings.draftWaves()],
    ['waveScope.plan.ignoreCase', () => settings.ignoreCase()],
    ['waveScope.plan.stateDirectory', () => settings.stateDirectory()],
    ['waveScope.hooks.install', () => settings.hookTargets()],
  ];

  for (const [key, accessor] of read) {
    it(`${key} is contributed with a scope and a description, and its default is what the accessor reads`, () => {
      const contributed = properties[key];
      assert.ok(contributed, `${key} is contributed`);
      assert.ok(contributed.scope, `${key} has a scope`);
      assert.ok((contributed.markdownDescription ?? '').length > 20, `${key} has a markdownDescription`);
      assert.deepEqual(accessor(), contributed.default);
    });
  }

  it('a changed decoration style reaches the accessor, and the marks follow it', async () => {
    const configuration = vscode.workspace.getConfiguration('waveScope.decorations');
    await configuration.update('style', 'contested', vscode.ConfigurationTarget.Global);
    try {
      await until('the new style', () => settings.decorationStyle() === 'contested');
    } finally {
      await configuration.update('style', undefined, vscode.ConfigurationTarget.Global);
    }
    await until('the default style again', () => settings.decorationStyle() === 'owners');
  });
});
