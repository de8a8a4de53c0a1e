// The plan in the editor, on screen: a plan on disk whose active wave has a collision shows the
// status bar item (wave, agents, collisions), the contested file's problem in the Problems panel, and
// the Explorer's marks; screenshots of each are kept in test/e2e/output/ (editor-marks-*.png).
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { artifactPath, chooseCodeAction, makeFixtureRepo, plannerFrame, quickOpen, repoRoot, runCommand } from '../support/codeServer.mjs';
import { useWorkbench } from './session.mjs';

/** api owns src/api/; ui owns src/ui/ and src/api/server.ts: one collision, on server.ts. */
function writeCollidingPlan(root) {
  const agents = { api: ['src/api/'], ui: ['src/ui/', 'src/api/server.ts'] };
  const dir = join(root, '.claude', 'filescopes', 'wave-1');
  mkdirSync(dir, { recursive: true });
  for (const [id, files] of Object.entries(agents)) writeFileSync(join(dir, `${id}.json`), `${JSON.stringify(files, null, 2)}\n`);
  const records = Object.entries(agents).map(([id, files]) => ({ id, files }));
  writeFileSync(join(root, '.claude', 'filescopes', 'wave-1.scopes.json'), `${JSON.stringify(records, null, 2)}\n`);
  const manifest = { version: 1, wave: 1, role: 'implementation', enforcement: 'strict', allowedPaths: ['src/api/', 'src/ui/'], blockedCommands: [] };
  writeFileSync(join(root, '.claude', 'wave-scope.json'), `${JSON.stringify(manifest, null, 2)}\n`);
}

describe('the plan in the editor, on screen', function () {
  this.timeout(180000);
  let session;
  let page;
  /** A folder of its own (the demo repository): the shared workspace's view state stays untouched. */
  let fixture;
  const root = () => fixture.root;

  before(async function () {
    this.timeout(240000);
    session = await useWorkbench();
    fixture = makeFixtureRepo({}, { copyFrom: join(repoRoot, 'demo', 'repo'), prefix: 'wave-scope-editor-marks-' });
    writeCollidingPlan(root());
    // Loaded after the plan is on disk: the extension activates on it (workspaceContains).
    page = await session.openFolder(root());
  });

  after(() => fixture?.remove());

  it('shows the active wave, its agents and its collision in the status bar', async () => {
    const item = page.locator('.statusbar-item', { hasText: 'Wave 1' });
    await item.first().waitFor({ timeout: 60000 });
    const text = (await item.first().textContent())?.trim() ?? '';
    assert.match(text, /Wave 1 · 2 agents · 1 collision/);
    await page.screenshot({ path: artifactPath('editor-marks-status-bar.png') });
  });

  it('lists the contested file in the Problems panel, naming both agents and the witness', async () => {
    // Open the contested file (Quick Open), which also reveals it in the Explorer.
    await quickOpen(page, 'src/api/server.ts');
    await page.keyboard.press('Control+Shift+M');
    const row = page.locator('.markers-panel .monaco-list-row', { hasText: 'is contested' });
    await row.first().waitFor({ timeout: 30000 });
    const text = (await row.first().textContent()) ?? '';
    for (const part of ['Wave 1', 'api (src/api/)', 'ui (src/api/server.ts)', 'witness src/api/server.ts']) assert.ok(text.includes(part), `${part} in: ${text}`);
    await page.screenshot({ path: artifactPath('editor-marks-problems.png') });
  });

  it('Open in Planner, the contested file\'s quick fix, opens the planner on that collision', async () => {
    await quickOpen(page, 'src/api/server.ts');
    await chooseCodeAction(page, 'Open in Planner');
    const frame = plannerFrame(page);
    const focused = frame.locator('.collision:has(.collision-why[data-witness="src/api/server.ts"]) .resolve:focus');
    await focused.waitFor({ timeout: 60000 });
    await page.screenshot({ path: artifactPath('editor-marks-open-in-planner.png') });
    // Back to the file for the next test.
    await page.locator('.tab', { hasText: 'server.ts' }).first().click();
  });

  it('marks the contested file in the Explorer', async () => {
    const row = page.locator('.explorer-folders-view .monaco-list-row[aria-label*="server.ts"]');
    await row.first().waitFor({ timeout: 30000 });
    // The decoration's badge is drawn by CSS; its tooltip (the title of the label) carries the text.
    const title = await row.first().locator('.monaco-icon-label').first().getAttribute('title');
    assert.ok(title === null || title.includes('server.ts'), `the row is the file's: ${title}`);
    const decorated = await row.first().locator('.monaco-decoration-itemlabel, [class*="monaco-decoration"]').count();
    assert.ok(decorated > 0, 'the Explorer row carries a file decoration');
    await page.screenshot({ path: artifactPath('editor-marks-explorer.png') });
  });

  it('shows on the planner\'s lane that an agent is in flight, then finished, as the dispatch ledger says', async () => {
    const writeLedger = (at) => {
      const key = 'e2e|w1|implementation';
      const ledger = { version: 1, session: 'e2e', waveKey: key, updated: at, waves: { [key]: [{ id: 'api', desc: 'api', files: ['src/api/'], at, agent: 'api' }] } };
      mkdirSync(join(root(), '.orchestrator'), { recursive: true });
      writeFileSync(join(root(), '.orchestrator', 'wave-dispatch-scopes.e2e.json'), `${JSON.stringify(ledger, null, 2)}\n`);
    };
    writeLedger(new Date().toISOString());
    await runCommand(page, 'Wave Scope: Open Planner');
    const frame = plannerFrame(page);
    const badge = frame.locator('.lane[data-agent="api"] .lane-activity');
    await badge.waitFor({ timeout: 60000 });
    await frame.locator('.lane[data-agent="api"] .lane-activity[data-state="in-flight"]').waitFor({ timeout: 30000 });
    assert.equal((await badge.textContent())?.trim(), 'in flight');
    await page.screenshot({ path: artifactPath('editor-marks-lane-in-flight.png') });
    // Dispatched 40 minutes ago with no evidence: finished by the TTL.
    writeLedger(new Date(Date.now() - 40 * 60_000).toISOString());
    await frame.locator('.lane[data-agent="api"] .lane-activity[data-state="finished"]').waitFor({ timeout: 30000 });
    assert.equal((await badge.textContent())?.trim(), 'finished (presumed)');
    await page.screenshot({ path: artifactPath('editor-marks-lane-finished.png') });
  });
});
