// The quick start's main job: a window opened on a repository that holds a plan, with
// `waveScope.planner.openOnStartup` on, shows the planner by itself with that plan's collisions marked
// (what `npm run demo` does on the demo repository).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeFixtureRepo, plannerFrame, repoRoot, startOwnWorkbench } from '../support/codeServer.mjs';

describe('the planner opens by itself on a repository with a plan (openOnStartup)', function () {
  let workbench;
  let fixture;

  before(async function () {
    this.timeout(240000);
    fixture = makeFixtureRepo({}, { copyFrom: join(repoRoot, 'demo', 'repo'), prefix: 'wave-scope-startup-' });
    const materialize = spawnSync(process.execPath, [join(repoRoot, 'dist', 'cli.js'), 'materialize', '--state-dir', '.claude', '--wave', '1'], {
      cwd: fixture.root,
      input: readFileSync(join(repoRoot, 'demo', 'wave-1.json'), 'utf8'),
      encoding: 'utf8',
    });
    assert.equal(materialize.status, 0, materialize.stderr);
    workbench = await startOwnWorkbench(fixture.root, { settings: { 'waveScope.planner.openOnStartup': true } });
  });

  after(async () => {
    await workbench?.close();
    fixture?.remove();
  });

  it('shows the demo plan with its collisions marked, without any command', async function () {
    this.timeout(120000);
    const planner = plannerFrame(workbench.page);
    for (const agent of ['api', 'ui', 'docs']) await planner.locator(`.lane[data-agent="${agent}"]`).waitFor({ timeout: 90000 });
    await planner.locator('.entry.collides').first().waitFor({ timeout: 30000 });
    assert.ok((await planner.locator('.entry.collides').count()) >= 4, 'both sides of the demo collisions are marked');
  });
});
