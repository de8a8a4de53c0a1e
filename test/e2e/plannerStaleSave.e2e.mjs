// Save never writes over a wave someone changed on disk after the draft was made, in the real browser:
// another writer changes wave 1 while the person's draft has unsaved edits; Save is refused with what
// changed, nothing is written, and the refusal offers the two ways on. Overwrite (confirmed) writes the
// draft over exactly that change; after a second change elsewhere, Load plan from disk shows it instead.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openPlannerFixture, typeEntry } from './plannerSupport.mjs';

const readJson = (path) => JSON.parse(readFileSync(path, 'utf8'));

/** Writes wave 1 as another writer would: the per-agent files, then the aggregate. */
function writeWave1(root, records) {
  const dir = join(root, '.claude', 'filescopes', 'wave-1');
  mkdirSync(dir, { recursive: true });
  for (const record of records) writeFileSync(join(dir, `${record.id}.json`), JSON.stringify(record.files));
  writeFileSync(join(root, '.claude', 'filescopes', 'wave-1.scopes.json'), JSON.stringify(records));
}

describe('saving over a plan changed on disk after the draft was made', function () {
  const planners = openPlannerFixture();

  it('is refused with what changed, writes nothing; Overwrite writes over that change, Load plan from disk shows the next', async function () {
    this.timeout(180000);
    const ctx = await planners.open({ prepare: (fixture) => writeWave1(fixture.root, [{ id: 'api', files: ['src/api/'] }]) });
    const { planner, fixture } = ctx;
    const apiFile = join(fixture.root, '.claude', 'filescopes', 'wave-1', 'api.json');
    await ctx.lane('api').waitFor({ timeout: 20000 });
    await typeEntry(ctx, 'api', 'README.md');

    // Someone else gives api the docs too (a `plan write`, a sync, another window).
    writeWave1(fixture.root, [{ id: 'api', files: ['src/api/', 'docs/'] }]);
    await planner.locator('.disk-changed').waitFor({ timeout: 20000 });
    await planner.locator('button.save').click();
    const refusal = planner.locator('.save-stale');
    await refusal.waitFor({ timeout: 20000 });
    assert.match((await refusal.textContent()) ?? '', /Wave 1 \(the draft would write over it\): agent api now owns docs\//);
    assert.equal(await planner.locator('.disk-changed').count(), 0, 'one banner for one decision');
    assert.equal((await planner.locator('.save-status .status-text').textContent())?.trim(), 'Not saved');
    assert.deepEqual(readJson(apiFile), ['src/api/', 'docs/'], 'nothing was written');
    assert.equal(await ctx.entry('api', 'README.md').count(), 1, 'the draft is kept');

    // Overwrite asks first, naming the change it undoes; then the draft is the plan on disk.
    await refusal.locator('.overwrite-disk').click();
    const dialog = planner.locator('dialog.confirm');
    await dialog.waitFor({ timeout: 5000 });
    assert.match((await dialog.textContent()) ?? '', /wave 1: agent api now owns docs\//);
    await dialog.locator('.confirm-yes').click();
    await planner.locator('.save-status[data-tone="ok"]').waitFor({ timeout: 20000 });
    assert.deepEqual(readJson(apiFile), ['src/api/', 'README.md']);
    assert.equal(await planner.locator('.save-problem').count(), 0);

    // Once more: a new edit, another change on disk, Save refused; this time the person loads the disk.
    await typeEntry(ctx, 'api', 'src/ui/theme.css');
    writeWave1(fixture.root, [{ id: 'api', files: ['src/'] }]);
    await planner.locator('.disk-changed').waitFor({ timeout: 20000 });
    await planner.locator('button.save').click();
    await refusal.waitFor({ timeout: 20000 });
    assert.match((await refusal.textContent()) ?? '', /agent api now owns src\/ and no longer owns src\/api\/, README\.md/);
    await refusal.locator('.adopt-disk').click();
    await dialog.locator('.confirm-yes').click();
    await ctx.entry('api', 'src/').waitFor({ timeout: 5000 });
    assert.equal(await ctx.entry('api', 'src/ui/theme.css').count(), 0);
    assert.equal(await planner.locator('.save-problem').count(), 0, 'the refusal went with the draft it was about');
    assert.deepEqual(readJson(apiFile), ['src/'], 'still nothing written over');
  });
});
