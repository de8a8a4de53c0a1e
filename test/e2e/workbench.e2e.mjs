// Smoke test of the browser path: code-server serves the workbench for the fixture folder in Chromium,
// and Wave Scope's planner command is offered in the command palette.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { artifactPath, repoRoot, showInPalette } from '../support/codeServer.mjs';
import { useWorkbench } from './session.mjs';

const openPlannerTitle = 'Wave Scope: Open Planner';

describe('workbench in code-server', function () {
  let session;
  let page;

  before(async function () {
    this.timeout(240000);
    session = await useWorkbench();
    page = await session.openFolder();
  });

  it('shows the fixture folder and its files in the Explorer', async () => {
    const rows = page.locator('.explorer-folders-view .monaco-list-row');
    await rows.first().waitFor({ timeout: 30000 });
    const header = await page.locator('.explorer-viewlet .pane-header').first().textContent();
    assert.ok(
      header?.toUpperCase().includes(basename(session.workspace).toUpperCase()),
      `Explorer is titled after the folder: ${header}`,
    );
    // Whatever fixture the run was given: the Explorer's top level is the folder's top level.
    const onDisk = readdirSync(session.workspace).filter((name) => name !== '.git');
    const shown = (await rows.allTextContents()).map((text) => text.trim());
    assert.ok(shown.length > 0, 'the Explorer lists something');
    for (const name of shown) assert.ok(onDisk.includes(name), `${name} is in ${session.workspace}`);
    if (onDisk.length <= 15) assert.deepEqual([...shown].sort(), [...onDisk].sort());
  });

  it('the manifest contributes the planner command under the Wave Scope category', () => {
    const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8'));
    const titles = (manifest.contributes?.commands ?? []).map(
      (command) => `${command.category ? `${command.category}: ` : ''}${command.title}`,
    );
    assert.ok(titles.includes(openPlannerTitle), `package.json contributes "${openPlannerTitle}" (has: ${titles.join(', ') || 'none'})`);
  });

  it(`the command palette lists "${openPlannerTitle}"`, async () => {
    try {
      const labels = await showInPalette(page, openPlannerTitle, { timeoutMs: 60000 });
      assert.ok(
        labels.some((label) => label.startsWith(openPlannerTitle)),
        `a row starts with "${openPlannerTitle}": ${labels.join(' | ')}`,
      );
      await page.screenshot({ path: artifactPath('workbench-palette.png') });
    } finally {
      await page.keyboard.press('Escape');
    }
  });
});
