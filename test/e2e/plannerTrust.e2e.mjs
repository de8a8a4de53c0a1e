// Workspace trust: in Restricted Mode the planner plans (tree, lanes, live collisions) but does not
// write declarations. Runs its own code-server with workspace trust enabled (the shared session trusts
// every folder). Each test opens (or reveals) the planner itself.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { plannerFrame, runCommand } from '../support/codeServer.mjs';
import { ownWorkbenchFixture } from './plannerSupport.mjs';

describe('the planner in Restricted Mode', function () {
  const own = ownWorkbenchFixture('wave-scope-untrusted-', { trustWorkspaces: false });

  /** Open Planner (it reveals the planner when it is open) and wait for its tree. */
  async function openPlanner() {
    await runCommand(own.workbench.page, 'Wave Scope: Open Planner');
    const planner = plannerFrame(own.workbench.page);
    await planner.locator('.tree-row[data-path="README.md"]').waitFor({ timeout: 60000 });
    return planner;
  }

  it('opens and plans: tree, lanes and a live collision', async () => {
    const planner = await openPlanner();
    await planner.locator('button.add-agent').click();
    await planner.locator('button.add-agent').click();
    for (const agent of ['agent-1', 'agent-2']) {
      const input = planner.locator(`.lane[data-agent="${agent}"] .glob-input`);
      await input.fill('README.md');
      await input.press('Enter');
    }
    await planner.locator('.entry.collides').nth(1).waitFor({ timeout: 10000 });
  });

  it('says saving needs trust, and its Save button is disabled', async () => {
    const planner = await openPlanner();
    await planner.locator('.untrusted').waitFor({ timeout: 10000 });
    assert.match((await planner.locator('.untrusted').textContent()) ?? '', /saving needs a trusted workspace/);
    assert.equal(await planner.locator('button.save').getAttribute('disabled'), '');
    assert.equal(existsSync(join(own.fixture.root, '.claude')), false, 'nothing written');
  });
});
