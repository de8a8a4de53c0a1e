// The redesigned planner end to end (issue 14): what a person does and what only the real browser shows.
// Confirmation with counts and undo/redo (bug 3), Ctrl+S (bug 7), absolute paths and inline errors that
// keep the text (bug 8), typo warnings (bug 9), counts and keyboard focus when resolving (bug 13), no
// false "Load plan from disk" (bug 6), the tree (unassigned view, owners, control state hidden, resizing,
// open beside) and the empty states. Every test opens its own repository in a fresh page.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCommand } from '../support/codeServer.mjs';
import { addAgents, focusPlanner, inPlanner, keptDraftRecords, openPlannerFixture, plannerContext, typeEntry, until } from './plannerSupport.mjs';

const readJson = (path) => JSON.parse(readFileSync(path, 'utf8'));

describe('the redesigned planner in the browser', function () {
  const planners = openPlannerFixture();
  const open = planners.open;

  it('destructive actions on non-empty waves and agents ask first, with counts; Ctrl+Z and the palette undo and redo them', async function () {
    this.timeout(180000);
    const ctx = await open();
    const { page, planner } = ctx;
    await addAgents(ctx, 2);
    await typeEntry(ctx, 'agent-1', 'README.md');
    await typeEntry(ctx, 'agent-1', 'docs/');
    await typeEntry(ctx, 'agent-2', 'src/api/');

    // Remove agent: a dialog with the count of its entries; Cancel keeps it.
    await ctx.lane('agent-1').locator('.remove-agent').click();
    const dialog = planner.locator('dialog.confirm');
    await dialog.waitFor({ timeout: 5000 });
    assert.match((await dialog.textContent()) ?? '', /agent-1 owns 2 entries in wave 1/);
    await dialog.locator('.confirm-no').click();
    await dialog.waitFor({ state: 'hidden', timeout: 5000 });
    assert.equal(await ctx.lane('agent-1').count(), 1, 'cancel keeps the agent');

    // Delete wave (settings strip) asks with the counts of agents and entries, and deletes when confirmed.
    await planner.locator('.wave-settings-toggle').click();
    await planner.locator('.delete-wave').click();
    await dialog.waitFor({ timeout: 5000 });
    assert.match((await dialog.textContent()) ?? '', /Wave 1 has 2 agents and 3 entries/);
    await dialog.locator('.confirm-yes').click();
    await planner.locator('.wave-tab').first().waitFor({ state: 'detached', timeout: 5000 });
    await planner.locator('.add-wave-first').waitFor({ timeout: 5000 });

    // Ctrl+Z brings it back (the keyboard focus anywhere in the planner but a text field).
    await focusPlanner(ctx);
    await page.keyboard.press('Control+z');
    await ctx.lane('agent-1').waitFor({ timeout: 5000 });
    assert.deepEqual(await ctx.lane('agent-1').locator('.entry').evaluateAll((items) => items.map((item) => item.dataset.entry)), ['README.md', 'docs/']);
    // Ctrl+Shift+Z redoes the deletion, the palette's Undo Planner Edit undoes it again.
    await focusPlanner(ctx);
    await page.keyboard.press('Control+Shift+z');
    await planner.locator('.add-wave-first').waitFor({ timeout: 5000 });
    await runCommand(page, 'Wave Scope: Undo Planner Edit');
    await ctx.lane('agent-2').waitFor({ timeout: 10000 });
    await runCommand(page, 'Wave Scope: Redo Planner Edit');
    await planner.locator('.add-wave-first').waitFor({ timeout: 10000 });
    await runCommand(page, 'Wave Scope: Undo Planner Edit');
    await ctx.lane('agent-2').waitFor({ timeout: 10000 });

    // Delete on the focused tab asks too; an empty wave goes without a question.
    await planner.locator('.add-wave').click();
    await planner.locator('.wave-tab[data-wave="2"][aria-selected="true"]').waitFor({ timeout: 5000 });
    await planner.locator('.wave-tab[data-wave="2"]').focus();
    await page.keyboard.press('Delete');
    await planner.locator('.wave-tab[data-wave="2"]').waitFor({ state: 'detached', timeout: 5000 });
    assert.equal(await dialog.isVisible(), false, 'no question for an empty wave');
    await planner.locator('.wave-tab[data-wave="1"]').focus();
    await page.keyboard.press('Delete');
    await dialog.waitFor({ timeout: 5000 });
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden', timeout: 5000 });
    assert.equal(await planner.locator('.wave-tab[data-wave="1"]').count(), 1, 'Escape cancels');
  });

  it('after a refused save, deleting the colliding wave leaves no stale refusal and no stale count', async function () {
    this.timeout(120000);
    const ctx = await open();
    const { planner } = ctx;
    await planner.locator('.add-wave').click();
    await planner.locator('.wave-tab[data-wave="2"][aria-selected="true"]').waitFor({ timeout: 5000 });
    await addAgents(ctx, 2);
    await typeEntry(ctx, 'agent-1', 'docs/');
    await typeEntry(ctx, 'agent-2', '**/*.md');
    await planner.locator('.wave-tab[data-wave="2"] .tab-badge').waitFor({ timeout: 5000 });
    await planner.locator('button.save').click();
    await planner.locator('.save-problem').waitFor({ timeout: 15000 });
    assert.match((await planner.locator('.save-problem').textContent()) ?? '', /wave 2/);
    await planner.locator('.wave-settings-toggle').click();
    await planner.locator('.delete-wave').click();
    await planner.locator('dialog.confirm .confirm-yes').click();
    await planner.locator('.wave-tab[data-wave="2"]').waitFor({ state: 'detached', timeout: 5000 });
    assert.equal(await planner.locator('.save-problem').count(), 0, 'the refusal went with the draft it was about');
    assert.equal(await planner.locator('.fact-collisions').getAttribute('data-count'), '0');
    assert.equal(await planner.locator('.tab-badge').count(), 0);
    // Back to the plan on disk, which holds nothing yet: the status says that, nothing stale.
    assert.equal((await planner.locator('.save-status .status-text').textContent())?.trim(), 'No plan saved yet');
  });

  it('Ctrl+S in the planner saves the plan (a keybinding with a when clause on the planner)', async function () {
    this.timeout(120000);
    const ctx = await open();
    const { page, planner, fixture } = ctx;
    await addAgents(ctx, 1);
    await typeEntry(ctx, 'agent-1', 'docs/');
    await focusPlanner(ctx);
    await page.keyboard.press('Control+s');
    await planner.locator('.save-status[data-tone="ok"]').waitFor({ timeout: 20000 });
    assert.deepEqual(readJson(join(fixture.root, '.claude', 'filescopes', 'wave-1', 'agent-1.json')), ['docs/']);
    // Right after an edit (no pause): what is on screen is what is saved.
    await typeEntry(ctx, 'agent-1', 'README.md');
    await page.keyboard.press('Control+s');
    await until('the second save on disk', () => {
      try {
        return readJson(join(fixture.root, '.claude', 'filescopes', 'wave-1', 'agent-1.json')).includes('README.md');
      } catch {
        return false;
      }
    });
  });

  it('an absolute path from Copy Path is accepted; a refused entry keeps its text and marks the field', async function () {
    this.timeout(120000);
    const ctx = await open();
    const { planner, lane, fixture } = ctx;
    await addAgents(ctx, 1);
    await typeEntry(ctx, 'agent-1', join(fixture.root, 'src', 'api', 'server.ts'), { expect: 'src/api/server.ts' });
    await typeEntry(ctx, 'agent-1', `${join(fixture.root, 'docs')}`, { expect: 'docs/' });
    const input = lane('agent-1').locator('.glob-input');
    for (const [typed, reason] of [
      ['/etc/passwd', /outside the repository root/],
      ['../elsewhere/x.ts', /climbs out of the repository/],
      ['!src/**', /starts with "!"/],
    ]) {
      await input.fill(typed);
      await input.press('Enter');
      const message = lane('agent-1').locator('.lane-add .field-message.is-error');
      await message.waitFor({ timeout: 5000 });
      assert.match((await message.textContent()) ?? '', reason);
      assert.equal(await input.inputValue(), typed, 'the typed text is kept');
      assert.equal(await input.getAttribute('aria-invalid'), 'true');
      assert.equal(await input.evaluate((element) => element === document.activeElement), true, 'the field keeps the focus');
    }
    // Fixing the text clears the mark.
    await input.fill('README.md');
    assert.equal(await input.getAttribute('aria-invalid'), 'false');
    await input.press('Enter');
    await ctx.entry('agent-1', 'README.md').waitFor({ timeout: 5000 });
    assert.equal(await input.inputValue(), '');
    assert.equal(await planner.locator('.notice').count(), 0, 'no banner: the problem was shown at its field');
  });

  it('a broken glob gets an inline warning at the input and a mark on its entry', async function () {
    this.timeout(120000);
    const ctx = await open();
    const { lane, entry } = ctx;
    await addAgents(ctx, 1);
    const input = lane('agent-1').locator('.glob-input');
    await input.fill('src/**/*.{ts');
    const warnings = lane('agent-1').locator('.lane-add .field-message.is-warning');
    await warnings.first().waitFor({ timeout: 5000 });
    const text = (await warnings.allTextContents()).join(' ');
    assert.match(text, /unclosed "\{"/);
    assert.match(text, /names none of the files/);
    await input.press('Enter');
    await entry('agent-1', 'src/**/*.{ts').waitFor({ timeout: 5000 });
    const mark = entry('agent-1', 'src/**/*.{ts').locator('.warning-badge');
    await mark.waitFor({ timeout: 5000 });
    assert.match((await entry('agent-1', 'src/**/*.{ts').locator('.entry-hover').textContent()) ?? '', /unclosed "\{"/);
    await input.fill('src/[abc');
    await warnings.first().waitFor({ timeout: 5000 });
    assert.match((await warnings.allTextContents()).join(' '), /unclosed "\["/);
  });

  it('counts agree with the list; resolving by keyboard keeps the focus in the list; buttons follow the agents named', async function () {
    this.timeout(120000);
    const ctx = await open();
    const { page, planner } = ctx;
    await addAgents(ctx, 3);
    await typeEntry(ctx, 'agent-1', 'src/api/');
    await typeEntry(ctx, 'agent-2', 'src/api/server.ts');
    await typeEntry(ctx, 'agent-1', 'docs/');
    await typeEntry(ctx, 'agent-3', '**/*.md');
    const items = planner.locator('.collision-list > .collision');
    // src/api/ × server.ts (a file both own), src/api/ × **/*.md (only a path both would own), docs/ × **/*.md.
    await until('three collisions listed', async () => (await items.count()) === 3);
    assert.equal(await planner.locator('.fact-collisions').getAttribute('data-count'), '3');
    assert.equal((await planner.locator('.collision-count').textContent())?.trim(), '3 collisions');
    assert.equal((await planner.locator('.collisions .section-count').textContent())?.trim(), '3');
    assert.equal((await planner.locator('.wave-tab.selected .tab-badge').textContent())?.trim(), '3');
    assert.deepEqual(await items.evaluateAll((cards) => cards.map((card) => card.dataset.kind)), ['existing', 'future', 'existing']);
    // The buttons name the agents in the order the sentence does.
    for (const index of [0, 1, 2]) {
      const named = (await items.nth(index).getAttribute('data-agents')).split(' ');
      const order = await items.nth(index).locator('.resolve').evaluateAll((buttons) => buttons.map((button) => button.dataset.agent));
      assert.deepEqual([...new Set(order)], named, `resolutions of collision ${index + 1} follow ${named.join(', ')}`);
    }
    // Keyboard: focus the first resolution and press Enter, again and again; the focus stays in the list.
    await items.first().locator('.resolve').first().focus();
    for (let left = await items.count(); left > 0; ) {
      await page.keyboard.press('Enter');
      await until('a collision to go', async () => (await items.count()) < left);
      left = await items.count();
      const focus = await inPlanner(ctx, () => {
        const active = document.activeElement;
        return { inList: Boolean(active?.closest('ws-collisions')), id: active?.id, text: active?.textContent?.trim() };
      });
      assert.ok(focus.inList, `focus is in the collisions: ${JSON.stringify(focus)}`);
      if (left === 0) assert.equal(focus.id, 'collisions-heading', 'with none left, the heading holds the focus');
      assert.equal(await planner.locator('.fact-collisions').getAttribute('data-count'), String(left), 'the header counts what the list shows');
    }
  });

  it('reopened with an unsaved draft and nothing changed on disk, it does not offer to load the disk; a real change does', async function () {
    this.timeout(150000);
    const ctx = await open({
      prepare: (fixture) => {
        mkdirSync(join(fixture.root, '.claude', 'filescopes', 'wave-1'), { recursive: true });
        writeFileSync(join(fixture.root, '.claude', 'filescopes', 'wave-1', 'api.json'), JSON.stringify(['src/api/']));
        writeFileSync(join(fixture.root, '.claude', 'filescopes', 'wave-1.scopes.json'), JSON.stringify([{ id: 'api', files: ['src/api/'] }]));
      },
    });
    const { page, fixture } = ctx;
    await ctx.lane('api').waitFor({ timeout: 20000 });
    await typeEntry(ctx, 'api', 'README.md');
    await until('the extension to keep the draft with its base', () =>
      keptDraftRecords(planners.session.server.stateDir).some((record) => record.dirty && record.base && JSON.stringify(record.draft).includes('README.md')),
    );
    await runCommand(page, 'View: Close All Editors');
    await page.locator('iframe.webview').first().waitFor({ state: 'detached', timeout: 15000 });
    await runCommand(page, 'Wave Scope: Open Planner');
    const again = plannerContext(page, fixture);
    await again.entry('api', 'README.md').waitFor({ timeout: 60000 });
    await again.planner.locator('body[data-tree-shown-ms]').waitFor({ state: 'attached', timeout: 30000 });
    assert.equal(await again.planner.locator('.disk-changed').count(), 0, 'no false offer');
    // Another writer changes the plan on disk: now the offer is true.
    writeFileSync(join(fixture.root, '.claude', 'filescopes', 'wave-1', 'api.json'), JSON.stringify(['src/']));
    writeFileSync(join(fixture.root, '.claude', 'filescopes', 'wave-1.scopes.json'), JSON.stringify([{ id: 'api', files: ['src/'] }]));
    await again.planner.locator('.disk-changed').waitFor({ timeout: 20000 });
    assert.equal(await again.entry('api', 'README.md').count(), 1, 'the draft is kept');
    await again.planner.locator('.adopt-disk').click();
    await again.planner.locator('dialog.confirm .confirm-yes').click();
    await again.entry('api', 'src/').waitFor({ timeout: 5000 });
    assert.equal(await again.planner.locator('.disk-changed').count(), 0);
  });

  it('the tree: control state hidden, an unassigned view with its count, owners on folders, resizable, a file opens beside', async function () {
    this.timeout(150000);
    const ctx = await open({ files: { '.claude/settings.json': '{}\n', 'AGENTS.md': '# agents\n', '.claude/agents/helper.md': 'x\n' } });
    const { page, planner } = ctx;
    for (const hidden of ['.claude', 'AGENTS.md']) assert.equal(await planner.locator(`.tree-row[data-path="${hidden}"]`).count(), 0, `${hidden} is hidden`);
    const total = Number(/(\d+) files/.exec((await planner.locator('.tree-summary').textContent()) ?? '')?.[1]);
    const unassigned = planner.locator('.tree-mode-unassigned .segment-count');
    await unassigned.waitFor({ timeout: 10000 });
    assert.equal(Number(await unassigned.textContent()), total, 'nothing is owned yet');
    await addAgents(ctx, 1);
    await planner.locator('.tree-row[data-path="docs"]').dragTo(ctx.lane('agent-1'));
    await ctx.entry('agent-1', 'docs/').waitFor({ timeout: 10000 });
    await until('the unassigned count to drop by the two docs', async () => Number(await unassigned.textContent()) === total - 2);
    assert.equal((await planner.locator('.tree-row[data-path="docs"] .owner-name').textContent())?.trim(), 'agent-1', 'the folder shows its owner');
    assert.match((await planner.locator('.unowned-count').textContent()) ?? '', new RegExp(`${total - 2} unowned files`));
    await planner.locator('.tree-mode-unassigned').click();
    await until('the docs folder to leave the unassigned view', async () => (await planner.locator('.tree-row[data-path="docs"]').count()) === 0);
    assert.match((await planner.locator('.tree-summary').textContent()) ?? '', new RegExp(`${total - 2} unowned files`));
    await planner.locator('.tree-mode-all').click();
    await planner.locator('.tree-row[data-path="docs"]').waitFor({ timeout: 5000 });

    // The splitter: by pointer and by keyboard.
    const before = (await planner.locator('.tree-pane').boundingBox()).width;
    const splitter = planner.locator('.splitter');
    const box = await splitter.boundingBox();
    // The webview's frames sit inside the page: move the real mouse over the splitter and drag.
    await page.mouse.move(box.x + box.width / 2, box.y + 40);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2 + 80, box.y + 40, { steps: 5 });
    await page.mouse.up();
    await until('the tree to widen', async () => (await planner.locator('.tree-pane').boundingBox()).width > before + 60);
    const wide = (await planner.locator('.tree-pane').boundingBox()).width;
    await splitter.focus();
    await page.keyboard.press('ArrowLeft');
    await until('the tree to narrow by a step', async () => Math.abs((await planner.locator('.tree-pane').boundingBox()).width - (wide - 16)) < 2);

    // Double-click opens the file beside the planner: two editor groups, the planner still on screen.
    await planner.locator('.tree-row[data-path="README.md"]').dblclick();
    await page.locator('.tabs-container .tab', { hasText: 'README.md' }).waitFor({ timeout: 15000 });
    assert.equal(await page.locator('.editor-group-container').count(), 2, 'beside, in a second group');
    assert.equal(await planner.locator('.summary').isVisible(), true, 'the planner stays in view');
  });

  it('empty states: a new wave, an empty agent, a filter with no match each say one sentence and offer one action', async function () {
    this.timeout(120000);
    const ctx = await open();
    const { planner } = ctx;
    await planner.locator('.add-wave').click();
    const board = planner.locator('.board-empty');
    await board.waitFor({ timeout: 5000 });
    assert.match((await board.textContent()) ?? '', /Wave 2 has no agents yet/);
    assert.equal((await planner.locator('.next-action').textContent())?.trim(), 'Add an agent');
    await board.locator('button.add-agent').click();
    await ctx.lane('agent-1').waitFor({ timeout: 5000 });
    assert.equal(await planner.locator('.agent-name').evaluate((element) => element === document.activeElement), true, 'the new lane’s name is ready to type');
    assert.match((await ctx.lane('agent-1').locator('.lane-empty').textContent()) ?? '', /Drop files or folders here/);
    await planner.locator('.tree-filter').fill('no-such-file-anywhere');
    const empty = planner.locator('.tree-empty');
    await empty.waitFor({ timeout: 5000 });
    assert.match((await empty.textContent()) ?? '', /No files match “no-such-file-anywhere”/);
    await empty.locator('.clear-filter').click();
    await planner.locator('.tree-row').first().waitFor({ timeout: 5000 });
    assert.equal(await planner.locator('.tree-filter').inputValue(), '');
  });

  it('Explorer badges follow the active wave, not the open tab', async function () {
    this.timeout(120000);
    const ctx = await open();
    const { page, planner } = ctx;
    await addAgents(ctx, 2);
    await typeEntry(ctx, 'agent-1', 'README.md');
    await typeEntry(ctx, 'agent-2', '*.md');
    await planner.locator('.entry.collides').first().waitFor({ timeout: 5000 });
    // The Explorer row of README.md carries the contested badge.
    // VS Code draws a decoration's badge as generated content (::after) of the row's label.
    const readme = page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'README.md' }).first();
    const badged = () =>
      readme.evaluate((row) => [...row.querySelectorAll('*')].some((element) => getComputedStyle(element, '::after').content.includes('⚠')));
    await until('the Explorer badge on README.md', badged, 20000);
    await planner.locator('.add-wave').click();
    await planner.locator('.wave-tab[data-wave="2"][aria-selected="true"]').waitFor({ timeout: 5000 });
    await planner.locator('.board-empty').waitFor({ timeout: 5000 });
    // Give the (immediate) draft report time to reach the host: the badge must still be there after it.
    await until('the host to keep the draft with wave 2', () => keptDraftRecords(planners.session.server.stateDir).some((record) => record.draft.waves.length === 2));
    // The marks are recomputed (in the plan worker) after every draft report: wait for them to settle. A
    // mark that followed the open tab would stay cleared, and this fails.
    await until('the Explorer badge on README.md to stay while wave 2 is open (an empty open tab does not clear the active wave’s marks)', badged, 20000);
  });
});

