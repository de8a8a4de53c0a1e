// Claims from other clones in the planner (issue 13, the planner half): a wave another clone published and
// claims on the remote's plan ref is listed, an entry of the draft that overlaps it carries a badge whose
// hover names the clone, the wave and the agent, and Save refuses the overlapping wave and keeps the draft.
// The other clone is a real clone of a real bare remote, and it publishes with the built CLI.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addAgents, openPlannerFixture, runWaveScope, typeEntry } from './plannerSupport.mjs';


const git = (cwd, ...args) => execFileSync('git', args, { cwd, encoding: 'utf8' });

describe('the planner with claims from other clones', function () {
  const planners = openPlannerFixture();

  it('shows another clone’s claim, marks the overlapping entry, and refuses to save the overlapping wave', async function () {
    this.timeout(150000);
    const ctx = await planners.open({
      prepare: (fixture) => {
        // A bare remote seeded from this repository, and a second clone of it that claims wave 3.
        const shared = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-planner-claims-')));
        planners.fixtures.push({ remove: () => rmSync(shared, { recursive: true, force: true }) });
        const bare = join(shared, 'remote.git');
        git(shared, 'clone', '--quiet', '--bare', fixture.root, bare);
        git(fixture.root, 'remote', 'add', 'origin', bare);
        const other = join(shared, 'other');
        git(shared, 'clone', '--quiet', bare, other);
        runWaveScope(other, ['plan', 'write', '--wave', '3', '--role', 'builder'], { input: JSON.stringify([{ id: 'alice', files: ['src/api/'] }]), session: 'sess-other' });
        runWaveScope(other, ['publish'], { session: 'sess-other' });
        // This clone fetches the plan ref (release of a wave it does not hold only fetches and says so).
        runWaveScope(fixture.root, ['release', '--wave', '3']);
      },
    });
    const { planner, lane, entry, fixture } = ctx;
    const claim = planner.locator('.claims .claim');
    await claim.first().waitFor({ timeout: 30000 });
    assert.match((await claim.first().textContent()) ?? '', /Wave 3 claimed in clone .*other.* since \d\d:\d\d, until \d\d:\d\d:\s*1 agent/);

    await addAgents(ctx, 2);
    await typeEntry(ctx, 'agent-1', 'src/api/server.ts');
    await typeEntry(ctx, 'agent-2', 'docs/');
    const badge = entry('agent-1', 'src/api/server.ts').locator('.claim-badge');
    await badge.waitFor({ timeout: 30000 });
    assert.match((await entry('agent-1', 'src/api/server.ts').locator('.entry-hover').textContent()) ?? '', /Claimed in clone .*other.*: wave 3, agent alice \(src\/api\/\), at src\/api\/server\.ts/);
    assert.equal(await entry('agent-2', 'docs/').locator('.claim-badge').count(), 0, 'an entry outside the claim is not marked');
    const conflict = planner.locator('.claim-conflict[data-agent="agent-1"][data-entry="src/api/server.ts"]');
    await conflict.waitFor({ timeout: 10000 });
    const said = ((await conflict.textContent()) ?? '').replace(/\s+/g, ' ');
    assert.match(said, /agent-1 src\/api\/server\.ts overlaps wave 3 claimed by clone \S*other since \d\d:\d\d: alice src\/api\/ Both would own src\/api\/server\.ts/);

    await planner.locator('button.save').click();
    await planner.locator('.save-status[data-tone="error"]').waitFor({ timeout: 20000 });
    assert.match(
      ((await planner.locator('.save-problem').textContent()) ?? '').replace(/\s+/g, ' '),
      // The entry and its test siblings (which the save unions in) each overlap.
      /Not saved: the plan overlaps a wave another clone claims \(\d+ overlaps; wave 1: agent-1 \(src\/api\/[^)]*\) and alice \(src\/api\/\) of wave 3 claimed by clone .*other.* both own src\/api\/\S+\)\. The draft is kept\./,
    );
    assert.equal(existsSync(join(fixture.root, '.claude', 'filescopes', 'wave-1')), false, 'nothing was written');
    assert.equal(await entry('agent-1', 'src/api/server.ts').count(), 1, 'the draft is kept');

    // Without the overlap the same wave saves.
    await conflict.locator('.resolve').click();
    await lane('agent-1').locator('.claim-badge').waitFor({ state: 'detached', timeout: 10000 });
    await typeEntry(ctx, 'agent-1', 'README.md');
    await planner.locator('button.save').click();
    await planner.locator('.save-status[data-tone="ok"]').waitFor({ timeout: 20000 });
    assert.ok(existsSync(join(fixture.root, '.claude', 'filescopes', 'wave-1', 'agent-1.json')), 'saved once nothing overlaps');
  });
});
