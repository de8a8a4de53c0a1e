// A request that gets no answer: the extension host is frozen (SIGSTOP, as a hung or swamped host
// would be) while the planner saves. The save request times out and the planner says so instead of
// showing "Saving…" forever; once the host runs again, the late save lands on disk and the planner,
// which follows the plan on disk, shows it saved. Its own code-server: the host's request timeout is
// shortened for it, and freezing a host must not touch the shared one.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { artifactPath, plannerFrame, runCommand } from '../support/codeServer.mjs';
import { ownWorkbenchFixture } from './plannerSupport.mjs';

const TIMEOUT_MS = 3000;

/** The extension host processes of a code-server (its process group), newest last. */
function extensionHosts(pgid) {
  return execFileSync('ps', ['-eo', 'pid=,pgid=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .filter((match) => match && Number(match[2]) === pgid && /--type=extensionHost/.test(match[3]))
    .map((match) => Number(match[1]))
    .sort((a, b) => a - b);
}

describe('the planner when the extension does not answer', function () {
  const own = ownWorkbenchFixture('wave-scope-timeout-', { env: { WAVE_SCOPE_PLANNER_REQUEST_TIMEOUT_MS: String(TIMEOUT_MS) } });
  let frozen;

  afterEach(() => {
    if (frozen !== undefined) process.kill(frozen, 'SIGCONT');
    frozen = undefined;
  });

  it('a save that gets no answer times out with a message, and the late save shows once the host is back', async function () {
    this.timeout(180000);
    const { page, server } = own.workbench;
    await runCommand(page, 'Wave Scope: Open Planner');
    const planner = plannerFrame(page);
    await planner.locator('.tree-row[data-path="README.md"]').waitFor({ timeout: 60000 });
    await planner.locator('button.add-agent').click();
    const input = planner.locator('.lane[data-agent="agent-1"] .glob-input');
    await input.fill('docs/');
    await input.press('Enter');
    await planner.locator('.entry[data-entry="docs/"]').waitFor({ timeout: 10000 });

    const hosts = extensionHosts(server.pid);
    assert.equal(hosts.length, 1, `one extension host in the group: ${hosts.join(', ')}`);
    frozen = hosts[0];
    process.kill(frozen, 'SIGSTOP');
    await planner.locator('button.save').click();
    await planner.locator('.save-status[data-tone="error"]').waitFor({ timeout: TIMEOUT_MS + 20000 });
    assert.equal((await planner.locator('.save-status .status-text').textContent())?.trim(), 'Save not confirmed');
    const status = (await planner.locator('.save-problem').textContent()) ?? '';
    assert.match(status, /Wave Scope did not answer in time \(No answer to savePlan within 3 s\): the plan may or may not be saved/);
    assert.equal(await planner.locator('.entry[data-entry="docs/"]').count(), 1, 'the draft is kept');
    await page.screenshot({ path: artifactPath('planner-request-timeout.png') });

    process.kill(frozen, 'SIGCONT');
    frozen = undefined;
    // The host now handles the save it was sent; the planner follows the plan on disk.
    // A host that was stopped works through its backlog first (watchers, the plan worker): on a loaded machine that takes a while.
    await planner.locator('.save-status .status-text', { hasText: /^Saved$/ }).waitFor({ timeout: 90000 });
    assert.ok(existsSync(join(own.fixture.root, '.claude', 'filescopes', 'wave-1', 'agent-1.json')), 'the late save was written');
  });
});
