// The planner end to end: Debian's Chromium drives the real workbench (code-server) with Wave Scope
// loaded, on a fresh git repository. Drag two tree entries onto two agents, type a colliding glob, see
// the collision on both entries with its witness, resolve it with one action, save, and read the
// declarations and the manifest back from disk. Every test opens its own repository in a fresh page and
// builds the state it needs with the steps below, so a failing test cannot take the ones after it down.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { artifactPath, plannerFrame, runCommand } from '../support/codeServer.mjs';
import { addAgents, chooseTheme, keptDraftRecords, openPlannerFixture, typeEntry, until } from './plannerSupport.mjs';

const readJson = (path) => JSON.parse(readFileSync(path, 'utf8'));

describe('the planner in the browser', function () {
  const planners = openPlannerFixture();

  /** A fresh copy of the demo repository, its workbench in a fresh page, the planner open on it. */
  const openPlanner = ({ untracked } = {}) => planners.open({ untracked, row: 'README.md' });

  const withNotes = { untracked: { 'notes/todo.md': '- plan\n' } };

  /** README.md onto agent-1, the docs folder onto agent-2 (as docs/). */
  async function dragFileAndFolder({ planner, lane, entry }) {
    await planner.locator('.tree-row[data-path="README.md"]').dragTo(lane('agent-1'));
    await entry('agent-1', 'README.md').waitFor({ timeout: 10000 });
    await planner.locator('.tree-row[data-path="docs"]').dragTo(lane('agent-2'));
    await entry('agent-2', 'docs/').waitFor({ timeout: 10000 });
  }

  /** agent-1 also claims every Markdown file: it collides with agent-2's docs/. */
  async function typeCollidingGlob(ctx) {
    await typeEntry(ctx, 'agent-1', '**/*.md');
    await ctx.planner.locator('.entry.collides').nth(1).waitFor({ timeout: 5000 });
  }

  async function narrowTheGlob({ planner }) {
    await planner.locator('button.resolve-narrow[data-agent="agent-1"]').click();
    await planner.locator('.collision').waitFor({ state: 'detached', timeout: 5000 });
  }

  async function saveOk({ planner }) {
    await planner.locator('button.save').click();
    await planner.locator('.save-status[data-tone="ok"]').waitFor({ timeout: 15000 });
  }

  it('opens from the command palette and shows the repository tree, untracked files included', async () => {
    const { planner } = await openPlanner(withNotes);
    const top = await planner.locator('.tree-row').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-path')));
    for (const expected of ['docs', 'src', 'notes', 'README.md']) assert.ok(top.includes(expected), `tree shows ${expected}: ${top.join(', ')}`);
    assert.match((await planner.locator('.tree-summary').textContent()) ?? '', /^\d+ files$/);
  });

  it('adds two agents as lanes', async () => {
    const ctx = await openPlanner();
    await ctx.planner.locator('button.add-agent').click();
    await ctx.planner.locator('button.add-agent').click();
    await ctx.lane('agent-2').waitFor({ timeout: 10000 });
    assert.equal(await ctx.planner.locator('.lane').count(), 2);
  });

  it('drags a file onto one agent and a folder onto the other (the folder becomes dir/)', async () => {
    const ctx = await openPlanner();
    await addAgents(ctx, 2);
    const { planner, lane, entry } = ctx;
    await planner.locator('.tree-row[data-path="README.md"]').dragTo(lane('agent-1'));
    await entry('agent-1', 'README.md').waitFor({ timeout: 10000 });
    await planner.locator('.tree-row[data-path="docs"]').dragTo(lane('agent-2'));
    await entry('agent-2', 'docs/').waitFor({ timeout: 10000 });
    assert.equal((await entry('agent-2', 'docs/').locator('.match-count').textContent())?.trim(), '2', 'docs/ matches its two files');
    assert.equal(await planner.locator('.entry.collides').count(), 0);
  });

  it('a typed glob that collides lights up on both entries with the witness and the other agent', async () => {
    const ctx = await openPlanner(withNotes);
    await addAgents(ctx, 2);
    await dragFileAndFolder(ctx);
    const { page, planner, lane, entry } = ctx;
    const input = lane('agent-1').locator('.glob-input');
    await input.fill('**/*.md');
    await input.press('Enter');
    const glob = entry('agent-1', '**/*.md');
    await glob.waitFor({ timeout: 10000 });
    await planner.locator('.entry.collides').nth(1).waitFor({ timeout: 5000 });
    assert.match((await glob.getAttribute('class')) ?? '', /\bcollides\b/);
    assert.match((await entry('agent-2', 'docs/').getAttribute('class')) ?? '', /\bcollides\b/);
    // The details live in the entry's hover (its badge names the count), not in wrapped red lines.
    assert.equal((await glob.locator('.collision-badge').textContent())?.trim(), '1');
    const globNote = (await glob.locator('.entry-hover').textContent()) ?? '';
    const folderNote = (await entry('agent-2', 'docs/').locator('.entry-hover').textContent()) ?? '';
    assert.match(globNote, /Collides with agent-2 \(docs\/\): 2 existing files owned by both, e\.g\. docs\/(architecture|ordering)\.md/);
    assert.match(folderNote, /Collides with agent-1 \(\*\*\/\*\.md\): 2 existing files owned by both, e\.g\. docs\/(architecture|ordering)\.md/);
    // Hovering the badge shows the card.
    await glob.locator('.collision-badge').hover();
    await glob.locator('.entry-hover').waitFor({ state: 'visible', timeout: 5000 });
    assert.equal(await planner.locator('.collision').count(), 1);
    // The tree marks the contested folder too.
    assert.match((await planner.locator('.tree-row[data-path="docs"]').getAttribute('class')) ?? '', /contested/);
    await page.screenshot({ path: artifactPath('planner-collision.png') });
  });

  it('refuses to save while the wave collides, and keeps the draft', async () => {
    const ctx = await openPlanner(withNotes);
    await addAgents(ctx, 2);
    await dragFileAndFolder(ctx);
    await typeCollidingGlob(ctx);
    const { planner, entry, fixture } = ctx;
    await planner.locator('button.save').click();
    await planner.locator('.save-status[data-tone="error"]').waitFor({ timeout: 15000 });
    assert.equal((await planner.locator('.save-status .status-text').textContent())?.trim(), 'Not saved');
    assert.match((await planner.locator('.save-problem').textContent()) ?? '', /not disjoint/);
    assert.equal(existsSync(join(fixture.root, '.claude', 'filescopes')), false, 'nothing was written');
    assert.equal(await entry('agent-1', '**/*.md').count(), 1, 'the draft is kept');
  });

  it('one action resolves the collision (narrow the glob)', async () => {
    const ctx = await openPlanner(withNotes);
    await addAgents(ctx, 2);
    await dragFileAndFolder(ctx);
    await typeCollidingGlob(ctx);
    const { planner, entry } = ctx;
    const narrow = planner.locator('button.resolve-narrow[data-agent="agent-1"]');
    await narrow.click();
    await planner.locator('.collision').waitFor({ state: 'detached', timeout: 5000 });
    assert.equal(await planner.locator('.entry.collides').count(), 0);
    assert.equal(await entry('agent-1', '**/*.md').count(), 0, 'the glob was narrowed away');
    assert.equal(await entry('agent-1', 'notes/todo.md').count(), 1, 'narrowed to the files agent-2 does not own');
  });

  it('saves: per-agent files, the wave sidecar and the manifest are on disk', async () => {
    const ctx = await openPlanner(withNotes);
    await addAgents(ctx, 2);
    await dragFileAndFolder(ctx);
    await typeCollidingGlob(ctx);
    await narrowTheGlob(ctx);
    const { planner, fixture } = ctx;
    await planner.locator('button.save').click();
    await planner.locator('.save-status[data-tone="ok"]').waitFor({ timeout: 15000 });
    const dir = join(fixture.root, '.claude', 'filescopes');
    assert.deepEqual(readJson(join(dir, 'wave-1', 'agent-1.json')), ['README.md', 'notes/todo.md']);
    assert.deepEqual(readJson(join(dir, 'wave-1', 'agent-2.json')), ['docs/']);
    assert.deepEqual(
      readJson(join(dir, 'wave-1.scopes.json')).map((record) => [record.id, record.files]),
      [
        ['agent-1', ['README.md', 'notes/todo.md']],
        ['agent-2', ['docs/']],
      ],
    );
    const manifest = readJson(join(fixture.root, '.claude', 'wave-scope.json'));
    assert.equal(manifest.wave, 1);
    assert.equal(manifest.role, 'builder');
    for (const path of ['README.md', 'notes/todo.md', 'docs/']) assert.ok(manifest.allowedPaths.includes(path), `allowedPaths has ${path}: ${manifest.allowedPaths}`);
    assert.match((await planner.locator('.save-status .status-text').textContent())?.trim() ?? '', /^Saved at \d\d:\d\d$/);
  });

  it('follows a change on disk: another writer adds an agent, the planner shows it', async () => {
    const ctx = await openPlanner();
    await addAgents(ctx, 2);
    await dragFileAndFolder(ctx);
    await saveOk(ctx);
    const { lane, entry, fixture } = ctx;
    const dir = join(fixture.root, '.claude', 'filescopes');
    const records = readJson(join(dir, 'wave-1.scopes.json'));
    records.push({ id: 'agent-3', files: ['src/ui/'] });
    writeFileSync(join(dir, 'wave-1', 'agent-3.json'), JSON.stringify(['src/ui/']));
    writeFileSync(join(dir, 'wave-1.scopes.json'), JSON.stringify(records));
    await lane('agent-3').waitFor({ timeout: 20000 });
    assert.equal(await entry('agent-3', 'src/ui/').count(), 1);
  });

  it('keyboard: arrow to a file in the tree and press 2 to assign it to the second agent', async () => {
    const ctx = await openPlanner();
    await addAgents(ctx, 2);
    const { page, planner, entry } = ctx;
    const tree = planner.locator('.tree');
    await tree.focus();
    await page.keyboard.press('End');
    const last = await planner.locator('.tree-row.active').getAttribute('data-path');
    assert.ok(last, 'a row is active');
    await page.keyboard.press('2');
    await entry('agent-2', last.includes('.') ? last : `${last}/`).waitFor({ timeout: 5000 });
  });

  it('an unsaved draft survives a reload of the window (the panel is restored with it)', async function () {
    this.timeout(180000);
    const ctx = await openPlanner();
    await addAgents(ctx, 2);
    await dragFileAndFolder(ctx);
    const { page, lane } = ctx;
    const draftEntries = await lane('agent-2').locator('.entry').evaluateAll((items) => items.map((item) => item.getAttribute('data-entry')));
    assert.equal((await ctx.planner.locator('.save-status .status-text').textContent())?.trim(), 'Unsaved changes');
    // The condition, not a pause: the extension has kept this draft (its copy outlives the webview's).
    await until('the extension to keep the draft', () =>
      keptDraftRecords(planners.session.server.stateDir).some(
        (record) => record.dirty && JSON.stringify(record.draft.waves).includes('"docs/"') && JSON.stringify(record.draft.waves).includes('"README.md"'),
      ),
    );
    // A person reloads with VS Code's own command: it persists the open editors before the page goes
    // (a browser reload does not wait for that, so a tab opened seconds earlier can be lost to it).
    await runCommand(page, 'Developer: Reload Window');
    await page.locator('.monaco-workbench').waitFor({ timeout: 90000 });
    const planner = plannerFrame(page);
    await planner.locator('.lane[data-agent="agent-2"]').waitFor({ timeout: 60000 });
    await planner.locator('.tree-row').first().waitFor({ timeout: 30000 });
    // Read as a condition: the restored panel's frame may be replaced once more while it settles, which
    // ends a reading begun in the old one ("Execution context was destroyed"); the next reading is in the new.
    const settled = async (read) => {
      try {
        return await read();
      } catch (error) {
        if (/Execution context was destroyed|frame was detached|Target closed/.test(String(error))) return undefined;
        throw error;
      }
    };
    let restored;
    await until('the restored draft in the planner', async () => {
      restored = await settled(() => planner.locator('.lane[data-agent="agent-2"] .entry').evaluateAll((items) => items.map((item) => item.getAttribute('data-entry'))));
      return JSON.stringify(restored) === JSON.stringify(draftEntries);
    }, 60000).catch(() => undefined);
    assert.deepEqual(restored, draftEntries);
    let status;
    await until('the restored draft\'s status', async () => {
      status = (await settled(() => planner.locator('.save-status .status-text').textContent()))?.trim();
      return status === 'Unsaved changes';
    }, 30000).catch(() => undefined);
    assert.equal(status, 'Unsaved changes');
  });

  it('every control has an accessible name, and the tree is a tree of tree items', async () => {
    const ctx = await openPlanner(withNotes);
    await addAgents(ctx, 2);
    await dragFileAndFolder(ctx);
    await typeCollidingGlob(ctx);
    const { planner } = ctx;
    const unnamed = await planner.locator('button, input, [role="tab"], [role="treeitem"], [role="separator"]').evaluateAll((elements) =>
      elements
        .filter((element) => {
          const labelled = [...(element.labels ?? [])].map((label) => label.textContent ?? '').join('').trim();
          const name =
            element.getAttribute('aria-label') ||
            element.getAttribute('label') ||
            element.getAttribute('title') ||
            element.textContent?.trim() ||
            labelled;
          return !name;
        })
        .map((element) => element.outerHTML.slice(0, 120)),
    );
    assert.deepEqual(unnamed, []);
    assert.equal(await planner.locator('[role="tree"]').count(), 1);
    const levels = await planner.locator('[role="treeitem"]').evaluateAll((items) => items.map((item) => item.getAttribute('aria-level')));
    assert.ok(levels.length > 0 && levels.every((level) => Number(level) >= 1), `aria-level on every row: ${levels}`);
    assert.equal(await planner.locator('[role="tablist"] [role="tab"][aria-selected="true"]').count(), 1);
  });

  for (const [theme, dark] of [
    ['Dark High Contrast', true],
    ['Light Modern', false],
  ]) {
    it(`follows the colour theme: ${theme}`, async () => {
      const ctx = await openPlanner();
      await addAgents(ctx, 2);
      const { page, planner } = ctx;
      const background = await chooseTheme(page, ctx, theme, { dark });
      const text = await planner.locator('.lane-header .agent-name').first().evaluate((element) => getComputedStyle(element).color);
      assert.notEqual(text, background, 'text stays readable on the background');
      await page.screenshot({ path: artifactPath(`planner-${theme.replace(/\s+/g, '-').toLowerCase()}.png`) });
    });
  }
});
