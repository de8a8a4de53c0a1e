// The editor's Narrow while the planner is open, in the real browser. Someone changes wave 1 on disk under
// the planner's unsaved draft, so the Narrow (the contested file's quick fix) is refused; Open Planner, the
// refusal's first button, makes the narrowing on the planner's draft, whose own edit stays, and the planner
// shows the refusal with what changed. A draft that lost the narrowed entry meanwhile is not replaced
// without asking; keeping it says the narrowing was not added.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chooseCodeAction, quickOpen } from '../support/codeServer.mjs';
import { openPlannerFixture, typeEntry, until } from './plannerSupport.mjs';

/** Writes wave 1 as another writer would: the per-agent files, then the aggregate. */
function writeWave1(root, agents) {
  const dir = join(root, '.claude', 'filescopes', 'wave-1');
  mkdirSync(dir, { recursive: true });
  for (const [id, files] of Object.entries(agents)) writeFileSync(join(dir, `${id}.json`), JSON.stringify(files));
  writeFileSync(join(root, '.claude', 'filescopes', 'wave-1.scopes.json'), JSON.stringify(Object.entries(agents).map(([id, files]) => ({ id, files }))));
}

/** api owns src/api/; ui owns src/ui/ and src/api/server.ts: one collision, on server.ts. Wave 1 is active. */
function writeCollidingPlan(root) {
  writeWave1(root, { api: ['src/api/'], ui: ['src/ui/', 'src/api/server.ts'] });
  const manifest = { version: 1, wave: 1, role: 'implementation', enforcement: 'strict', allowedPaths: ['src/api/', 'src/ui/'], blockedCommands: [] };
  writeFileSync(join(root, '.claude', 'wave-scope.json'), `${JSON.stringify(manifest, null, 2)}\n`);
}

/** Runs the quick fix "Narrow api's src/api/ …" on server.ts, as a person at the lightbulb menu would, and confirms it. */
async function narrowApiFromTheEditor(page) {
  await quickOpen(page, 'src/api/server.ts');
  await chooseCodeAction(page, "Narrow api's src/api/ so ui keeps the shared files");
  const dialog = page.locator('.monaco-dialog-box');
  await dialog.waitFor({ timeout: 10000 });
  await dialog.locator('.monaco-button', { hasText: 'Narrow and Save' }).click();
}

/** The refusal's message in VS Code: waits for it and presses its button `label`. */
async function answerRefusal(page, label) {
  const toast = page.locator('.notification-toast', { hasText: 'the plan on disk changed' });
  await toast.first().waitFor({ timeout: 30000 });
  await toast.first().locator('.monaco-button', { hasText: label }).click();
}

describe("the editor's Narrow while the planner is open", function () {
  const planners = openPlannerFixture();

  /** The planner on the colliding plan with an unsaved edit (ui also gets docs/), then wave 1 changed on disk and a Narrow refused. */
  async function refusedNarrow() {
    const ctx = await planners.open({ prepare: (fixture) => writeCollidingPlan(fixture.root) });
    const { planner, page, fixture } = ctx;
    await ctx.lane('ui').waitFor({ timeout: 20000 });
    await typeEntry(ctx, 'ui', 'docs/');
    // Someone else gives api the README too (a `plan write`, a sync, another window).
    writeWave1(fixture.root, { api: ['src/api/', 'README.md'], ui: ['src/ui/', 'src/api/server.ts'] });
    await planner.locator('.disk-changed').waitFor({ timeout: 20000 });
    const apiFile = join(fixture.root, '.claude', 'filescopes', 'wave-1', 'api.json');
    const onDisk = readFileSync(apiFile, 'utf8');
    await narrowApiFromTheEditor(page);
    return { ...ctx, apiFile, onDisk };
  }

  it('refused for changes on disk: Open Planner makes the narrowing on the planner’s draft, keeps its edit and shows the refusal there', async function () {
    this.timeout(240000);
    const ctx = await refusedNarrow();
    const { planner, page } = ctx;
    await answerRefusal(page, 'Open Planner');
    await ctx.entry('api', 'src/api/routes/orders.ts').waitFor({ timeout: 30000 });
    assert.equal(await ctx.entry('api', 'src/api/').count(), 0, 'narrowed');
    assert.equal(await ctx.entry('api', 'src/api/server.ts').count(), 0, 'ui keeps the shared file');
    assert.equal(await ctx.entry('ui', 'docs/').count(), 1, 'the planner’s own unsaved edit stays');
    const refusal = planner.locator('.save-stale');
    await refusal.waitFor({ timeout: 20000 });
    assert.match((await refusal.textContent()) ?? '', /agent api now owns README\.md/);
    assert.equal(await refusal.locator('.overwrite-disk').count(), 1);
    assert.equal(await planner.locator('.disk-changed').count(), 0, 'one banner for one decision');
    assert.equal(readFileSync(ctx.apiFile, 'utf8'), ctx.onDisk, 'nothing was written');
  });

  it('refused, and the planner’s draft lost the narrowed entry meanwhile: it asks, and keeping the draft says the narrowing was not added', async function () {
    this.timeout(240000);
    const ctx = await refusedNarrow();
    const { planner, page } = ctx;
    // Before answering the message, the person removes api's src/api/ in the planner.
    await page.locator('.tab', { hasText: 'Wave Planner' }).first().click();
    const entry = ctx.entry('api', 'src/api/');
    await entry.hover();
    await entry.locator('.remove-entry').click();
    await until('the entry removed', async () => (await entry.count()) === 0);
    await answerRefusal(page, 'Open Planner');
    const dialog = planner.locator('dialog.confirm');
    await dialog.waitFor({ timeout: 30000 });
    assert.match((await dialog.textContent()) ?? '', /no longer has that entry/);
    assert.equal((await dialog.locator('.confirm-no').textContent())?.trim(), 'Keep this draft');
    await dialog.locator('.confirm-no').click();
    const notice = planner.locator('.notice');
    await notice.waitFor({ timeout: 10000 });
    assert.match((await notice.textContent()) ?? '', /narrowing api’s src\/api\/ in wave 1 was not added/);
    assert.equal(await ctx.entry('api', 'src/api/routes/orders.ts').count(), 0, 'the draft was kept as it was');
    assert.equal(await ctx.entry('ui', 'docs/').count(), 1);
    assert.equal(readFileSync(ctx.apiFile, 'utf8'), ctx.onDisk, 'nothing was written');
  });
});

