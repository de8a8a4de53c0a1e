#!/usr/bin/env node
// Runs the in-host suite (test/extension/**/*.test.ts) inside code-server's real extension host.
//
//   node test/extension/runHostTests.mjs [--fixture DIR | --workspace PATH] [--grep RE]
//                                        [--env KEY=VALUE]... [--timeout SECONDS]
//
//   --fixture DIR      copy DIR into a fresh temporary git repository and open that (default: demo/repo)
//   --workspace PATH   open PATH as it is (a folder, or a .code-workspace file for multi-root)
//   --grep RE          run only the tests whose full title matches
//   --env KEY=VALUE    extra environment for the extension host (repeatable)
//   --timeout SECONDS  give up when the suite has not finished (default 300)
//   --untrusted        open the workspace in Restricted Mode (workspace trust enabled, not granted);
//                      the tests see WAVE_SCOPE_HOST_UNTRUSTED=1
// The same through the environment: WAVE_SCOPE_HOST_FIXTURE, WAVE_SCOPE_HOST_WORKSPACE,
// WAVE_SCOPE_HOST_GREP. Needs `npm run build` first (dist/extension.js is what the host loads).
//
// Steps: bundle the suite, start code-server with Wave Scope and the harness extension installed,
// open the workbench in Chromium (that starts the extension host, where the harness runs the suite),
// wait for the harness to report, print mocha's lines, write the tally to $WAVE_SCOPE_TEST_RESULTS.
// Exit 0 only when at least one test ran and none failed.
import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  artifactPath,
  harnessExtensionDir,
  launchChromium,
  log,
  makeFixtureRepo,
  openWorkbench,
  repoRoot,
  startCodeServer,
} from '../support/codeServer.mjs';
import { buildHostTests } from './buildHostTests.mjs';
import { printHostReport, readHostReport, startRunner, writeTally } from './hostReport.mjs';


function exthostLogTails(stateDir, lines = 30) {
  const found = [];
  const walk = (dir) => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/exthost.*\.log$/i.test(entry.name)) found.push(path);
    }
  };
  walk(join(stateDir, 'user-data', 'logs'));
  return found.map((file) => `--- ${file}\n${readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n')}`);
}

async function main() {
  const start = startRunner(import.meta.url, process.argv.slice(2), { strings: ['fixture', 'workspace', 'grep', 'timeout'], flags: ['untrusted'] });
  if ('exitCode' in start) return start.exitCode;
  const { options } = start;
  const timeoutMs = Number(options.timeout ?? 300) * 1000;
  const workspaceOption = options.workspace ?? process.env.WAVE_SCOPE_HOST_WORKSPACE;
  const fixtureOption = options.fixture ?? process.env.WAVE_SCOPE_HOST_FIXTURE ?? join(repoRoot, 'demo', 'repo');
  const grep = options.grep ?? process.env.WAVE_SCOPE_HOST_GREP;
  const untrusted = options.untrusted === true || process.env.WAVE_SCOPE_HOST_UNTRUSTED === '1';


  let server;
  let browser;
  let fixture;
  let report;
  let problem;
  let built;
  try {
    built = await buildHostTests();
    log(`bundled ${built.tests.length} in-host test file(s) into ${built.dir}`);
    const reportFile = join(built.dir, 'report.json');
    const doneFile = join(built.dir, 'done.json');

    let workspace;
    if (workspaceOption) {
      workspace = resolve(workspaceOption);
      if (!existsSync(workspace)) throw new Error(`workspace ${workspace} does not exist`);
    } else {
      fixture = makeFixtureRepo({}, { copyFrom: resolve(fixtureOption), prefix: 'wave-scope-host-fixture-' });
      workspace = fixture.root;
    }
    log(`workspace ${workspace}`);

    server = await startCodeServer({
      extensions: [repoRoot, harnessExtensionDir],
      trustWorkspaces: !untrusted,
      env: {
        WAVE_SCOPE_HOST_UNTRUSTED: untrusted ? '1' : '0',
        ...options.env,
        WAVE_SCOPE_HOST_TESTS: built.entry,
        WAVE_SCOPE_HOST_DONE: doneFile,
        WAVE_SCOPE_HOST_REPORT: reportFile,
        WAVE_SCOPE_HOST_WORKSPACE: workspace,
        ...(grep ? { WAVE_SCOPE_HOST_GREP: grep } : {}),
      },
    });
    log(`code-server ${server.url} (pid ${server.pid}) is healthy`);

    browser = await launchChromium();
    await openWorkbench(browser.page, server.folderUrl(workspace));
    log('workbench visible; the harness runs the suite in the extension host');

    const waitFor = async (file, ms) => {
      const until = Date.now() + ms;
      while (!existsSync(file) && Date.now() < until) await new Promise((wake) => setTimeout(wake, 250));
      return existsSync(file);
    };
    if (!(await waitFor(`${doneFile}.claimed`, 90000))) {
      throw new Error('the harness extension did not start in the extension host within 90 s (see the logs below)');
    }
    const deadline = Date.now() + timeoutMs;
    while (!existsSync(doneFile) && Date.now() < deadline) await new Promise((wake) => setTimeout(wake, 250));
    if (!existsSync(doneFile)) throw new Error(`the in-host suite did not finish within ${timeoutMs / 1000} s`);
    const done = JSON.parse(readFileSync(doneFile, 'utf8'));
    report = readHostReport(reportFile);
    if (!report) problem = `the harness finished without a report: ${done.error ?? 'no error given'}`;
    else if (done.code !== 0 && report.failed === 0) problem = done.error ?? 'run() rejected';
    log(`suite finished (harness code ${done.code})`);
  } catch (error) {
    problem = error instanceof Error ? error.message : String(error);
  }

  if (report) printHostReport(report);
  const tally = writeTally(report, problem);
  const failed = tally.failed > 0 || tally.passed === 0;
  if (failed) {
    if (problem) console.log(`in-host run problem: ${problem}`);
    if (browser) {
      const shot = artifactPath('host-tests-failure.png');
      await browser.page.screenshot({ path: shot }).catch(() => {});
      console.log(`screenshot: ${shot}`);
      if (browser.errors.length > 0) console.log(`browser errors:\n  ${browser.errors.slice(-20).join('\n  ')}`);
    }
    if (server) {
      console.log(`--- code-server log (tail)\n${server.logTail(40)}`);
      for (const tail of exthostLogTails(server.stateDir)) console.log(tail);
    }
  }
  await browser?.close();
  await server?.stop();
  fixture?.remove();
  if (built) rmSync(built.dir, { recursive: true, force: true });
  console.log(`in-host: ${tally.passed} passed, ${tally.failed} failed`);
  return failed ? 1 : 0;
}

process.exitCode = await main();
