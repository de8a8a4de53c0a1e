// The README's first quick-start line ends in `npm run demo`: this spec runs it as a user does (through
// npm, whose shell line must `exec` the script so a signal to npm's pid reaches it: issue 14, bug 12),
// opens the address it prints in Chromium, checks the planner shows the demo plan with its collisions,
// then stops it with SIGINT to the pid it was started as.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { freePort, launchChromium, openWorkbench, plannerFrame, repoRoot, signalGroup } from '../support/codeServer.mjs';
import { rmSync } from 'node:fs';

describe('npm run demo (scripts/demoPlanner.mjs)', function () {
  let demo;
  let browser;
  let output = '';
  let address;

  before(async function () {
    this.timeout(300000);
    const port = await freePort();
    // `npm run demo` as typed, not its script: the bug was in the layer npm adds (its shell kept SIGINT).
    // Its own process group, so that whatever the test finds, the after hook can stop all of it.
    demo = spawn('npm', ['run', 'demo', '--', '--port', String(port)], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    demo.stdout.on('data', (chunk) => (output += chunk));
    demo.stderr.on('data', (chunk) => (output += chunk));
    address = await new Promise((resolve, reject) => {
      const started = Date.now();
      const poll = setInterval(() => {
        const match = /Open this address in a browser:\s+(\S+)/.exec(output);
        if (match) {
          clearInterval(poll);
          resolve(match[1]);
        } else if (demo.exitCode !== null || Date.now() - started > 280000) {
          clearInterval(poll);
          reject(new Error(`the demo printed no address (exit ${demo.exitCode}):\n${output}`));
        }
      }, 200);
    });
    browser = await launchChromium({ quiet: true });
  });

  after(async () => {
    await browser?.close();
    // A demo that outlived its test (SIGINT not forwarded): INT to the whole group lets the demo stop its
    // code-server, then KILL whatever is left; otherwise its open pipes would keep this runner alive.
    if (demo?.pid !== undefined) {
      if (signalGroup(demo.pid, 'SIGINT')) {
        const deadline = Date.now() + 10000;
        while (Date.now() < deadline && signalGroup(demo.pid, 0)) await new Promise((wake) => setTimeout(wake, 100));
        signalGroup(demo.pid, 'SIGKILL');
      }
    }
    const repo = /Demo repository: (\S+)/.exec(output)?.[1];
    if (repo) rmSync(repo, { recursive: true, force: true });
  });

  it('prints a loopback address on the requested port', () => {
    assert.match(address, /^http:\/\/127\.0\.0\.1:\d+\/\?folder=/);
  });

  it('shows the planner on the demo plan with its collisions marked', async function () {
    this.timeout(180000);
    await openWorkbench(browser.page, address);
    const planner = plannerFrame(browser.page);
    for (const agent of ['api', 'ui', 'docs']) await planner.locator(`.lane[data-agent="${agent}"]`).waitFor({ timeout: 90000 });
    await planner.locator('.entry.collides').first().waitFor({ timeout: 30000 });
  });

  it('stops code-server and exits on SIGINT to the pid of npm run demo', async function () {
    this.timeout(30000);
    const exited = new Promise((resolve) => demo.once('exit', (code, signal) => resolve({ code, signal })));
    demo.kill('SIGINT');
    const { code, signal } = await exited;
    assert.ok(code === 0 || code === 130 || signal === 'SIGINT', `exit ${code} ${signal}\n${output}`);
    const response = await fetch(address).then(() => 'answered', () => 'refused');
    assert.equal(response, 'refused', 'code-server is gone');
  });
});
