// The quick start's main job: a window opened on a repository that holds a plan, with
// `waveScope.planner.openOnStartup` on, shows the planner by itself with that plan's collisions marked
// (what `npm run demo` does on the demo repository). After a reload of the window VS Code restores
// that planner, and open-on-startup must not open a second one beside it (issue 14, bug 1).
import assert from 'node:assert/strict';
import { plannerFrame, runCommand } from '../support/codeServer.mjs';
import { materializeDemoPlan, ownWorkbenchFixture } from './plannerSupport.mjs';

/** The planner tabs of the window (one per folder is the rule). */
const plannerTabs = (page) => page.locator('.tabs-container .tab', { hasText: 'Wave Planner' });

describe('the planner opens by itself on a repository with a plan (openOnStartup)', function () {
  const own = ownWorkbenchFixture('wave-scope-startup-', { settings: { 'waveScope.planner.openOnStartup': true } }, { prepare: (fixture) => materializeDemoPlan(fixture.root) });

  /** Waits until a planner shows the demo plan's three lanes and has painted its tree. */
  async function demoPlanShown() {
    const planner = plannerFrame(own.workbench.page);
    for (const agent of ['api', 'ui', 'docs']) await planner.locator(`.lane[data-agent="${agent}"]`).waitFor({ timeout: 90000 });
    await planner.locator('body[data-tree-shown-ms]').waitFor({ timeout: 30000 });
    return planner;
  }

  it('shows the demo plan with its collisions marked, without any command', async function () {
    this.timeout(120000);
    const planner = await demoPlanShown();
    await planner.locator('.entry.collides').first().waitFor({ timeout: 30000 });
    assert.ok((await planner.locator('.entry.collides').count()) >= 4, 'both sides of the demo collisions are marked');
  });

  it('after a reload of the window the folder still has one planner: the restored one', async function () {
    this.timeout(180000);
    const page = own.workbench.page;
    await demoPlanShown();
    assert.equal(await plannerTabs(page).count(), 1, 'one planner before the reload');
    await runCommand(page, 'Developer: Reload Window');
    await page.locator('.monaco-workbench').waitFor({ timeout: 90000 });
    await page.locator('.part.statusbar').waitFor({ timeout: 90000 });
    // Open-on-startup runs when the extension activates, before any planner has painted its tree: a
    // second planner would have its tab by the time the restored one shows the plan.
    await demoPlanShown();
    await plannerTabs(page).first().waitFor({ timeout: 30000 });
    assert.equal(await plannerTabs(page).count(), 1, (await plannerTabs(page).allTextContents()).join(' | '));
  });
});
