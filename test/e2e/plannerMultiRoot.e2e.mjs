// Multi-root: every workspace folder has its own plan. The planner asks which folder, shows that
// folder's repository, and saves into that repository only. Each test opens the workspace afresh and
// picks its folder itself.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeFixtureRepo, plannerFrame, runCommand } from '../support/codeServer.mjs';
import { useWorkbench } from './session.mjs';

describe('the planner in a multi-root workspace', function () {
  let session;
  let alpha;
  let beta;
  let workspaceFile;

  before(async function () {
    this.timeout(240000);
    session = await useWorkbench();
    alpha = makeFixtureRepo({ 'alpha-only.ts': 'export {};\n', 'shared/a.ts': 'export {};\n' }, { prefix: 'wave-scope-alpha-' });
    beta = makeFixtureRepo({ 'beta-only.ts': 'export {};\n', 'lib/b.ts': 'export {};\n' }, { prefix: 'wave-scope-beta-' });
    workspaceFile = join(alpha.root, '..', `${alpha.root.split('/').pop()}.code-workspace`);
    writeFileSync(workspaceFile, JSON.stringify({ folders: [{ path: alpha.root }, { path: beta.root }] }));
  });

  after(() => {
    if (workspaceFile) rmSync(workspaceFile, { force: true });
    alpha?.remove();
    beta?.remove();
  });

  /** The workspace in a fresh page, Open Planner, and the beta folder picked. */
  async function openBetaPlanner() {
    // The workbench shows before it has read the workspace file: wait until both folders are in. Now and
    // then VS Code for the web gives up that read while it loads ("Unable to read file …code-workspace
    // (Canceled)") and shows a workspace with no folder at all; that is the workbench's load, not the
    // planner, so the workspace is opened once more (and said in the log) before the test goes on.
    const foldersIn = async (page, timeout) => {
      for (const root of [alpha.root, beta.root]) {
        await page.locator('.explorer-folders-view .monaco-list-row', { hasText: root.split('/').pop() }).first().waitFor({ timeout });
      }
    };
    let page = await session.openFolder(workspaceFile);
    try {
      await foldersIn(page, 30000);
    } catch (error) {
      console.log(`    the workspace showed no folders (${error.message.split('\n')[0]}): opening it again`);
      page = await session.openFolder(workspaceFile);
      await foldersIn(page, 60000);
    }
    await runCommand(page, 'Wave Scope: Open Planner');
    const pick = page.locator('.quick-input-list .monaco-list-row', { hasText: beta.root.split('/').pop() });
    await pick.first().waitFor({ timeout: 20000 });
    await pick.first().click();
    const planner = plannerFrame(page);
    await planner.locator('.tree-row[data-path="beta-only.ts"]').waitFor({ timeout: 60000 });
    return planner;
  }

  it('asks for the folder and shows only that repository', async () => {
    const planner = await openBetaPlanner();
    assert.equal(await planner.locator('.tree-row[data-path="alpha-only.ts"]').count(), 0);
  });

  it('saves into the chosen folder only', async () => {
    const planner = await openBetaPlanner();
    await planner.locator('button.add-agent').click();
    const input = planner.locator('.lane[data-agent="agent-1"] .glob-input');
    await input.fill('lib/');
    await input.press('Enter');
    await planner.locator('.entry[data-entry="lib/"]').waitFor({ timeout: 10000 });
    await planner.locator('button.save').click();
    await planner.locator('.save-status[data-tone="ok"]').waitFor({ timeout: 15000 });
    assert.deepEqual(JSON.parse(readFileSync(join(beta.root, '.claude', 'filescopes', 'wave-1', 'agent-1.json'), 'utf8')), ['lib/']);
    assert.equal(existsSync(join(alpha.root, '.claude')), false, 'the other folder has no plan written');
  });
});
