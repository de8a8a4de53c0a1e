// A plan an agent session wrote in the planner: its manifest is bound to that session, so the write gate
// holds that session's edits to the wave (and those of processes without a session id), not other agent
// sessions' edits; the commit guard holds every commit. The planner has no session of its own; its header
// says whose plan it shows, the hover says who is held, and a Save keeps the binding. The plan is written by the built CLI as the agent session would write it. The header is kept
// in test/e2e/output/planner-session-bound.png.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { artifactPath } from '../support/codeServer.mjs';
import { layoutProblems, openPlannerFixture, runWaveScope, typeEntry, until } from './plannerSupport.mjs';

const SESSION = '0f2c9a61-5b7e-4d3a-9c1e-7a8b9c0d1e2f';

describe('the planner over a plan bound to an agent session', function () {
  const planners = openPlannerFixture();

  it('says the wave is bound to that session, whom the hooks hold, and a save keeps the manifest bound to it', async function () {
    this.timeout(150000);
    const ctx = await planners.open({
      prepare: (fixture) => {
        const records = [
          { id: 'api', files: ['src/api/'] },
          { id: 'docs', files: ['docs/'] },
        ];
        runWaveScope(fixture.root, ['plan', 'write', '--wave', '1', '--role', 'builder'], { input: JSON.stringify(records), session: SESSION });
      },
    });
    const { planner, fixture } = ctx;
    const pill = planner.locator('.state-pill');
    const pillText = async () => ((await pill.textContent()) ?? '').replace(/\s+/g, ' ').trim();
    await until('the header names the session', async () => (await pillText()) === 'Active, bound to agent session 0f2c9a61…', 30000);
    assert.match(
      (await pill.getAttribute('title')) ?? '',
      /^The manifest is bound to the agent session 0f2c9a61-5b7e-4d3a-9c1e-7a8b9c0d1e2f\. The write gate holds that session's edits to this wave, .* but lets other agent sessions' edits through; the commit guard holds every commit to it\. .* a save keeps this binding\.$/,
    );

    await typeEntry(ctx, 'docs', 'README.md');
    await planner.locator('button.save').click();
    await planner.locator('.save-status[data-tone="ok"]').waitFor({ timeout: 20000 });
    const manifest = JSON.parse(readFileSync(join(fixture.root, '.claude', 'wave-scope.json'), 'utf8'));
    assert.equal(manifest.session_id, SESSION, 'the save kept the binding');
    assert.ok(manifest.allowedPaths.includes('README.md'), 'the save wrote the edit');
    assert.equal(await pillText(), 'Active, bound to agent session 0f2c9a61…');
    await ctx.page.screenshot({ path: artifactPath('planner-session-bound.png') });

    // The longer header fits a narrow window too.
    try {
      await ctx.page.setViewportSize({ width: 600, height: 700 });
      await planner.locator('html').evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
      const { overflow, clipped } = await layoutProblems(ctx);
      assert.deepEqual({ overflow, clipped }, { overflow: [], clipped: [] });
      await ctx.page.screenshot({ path: artifactPath('planner-session-bound-600x700.png') });
    } finally {
      await ctx.page.setViewportSize({ width: 1440, height: 900 });
    }
  });
});
