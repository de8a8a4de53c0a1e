#!/usr/bin/env node
// End-to-end runner: mocha over test/e2e/**/*.e2e.mjs (plain ES module specs that drive Debian's
// Chromium with playwright-core against code-server with Wave Scope loaded).
//
//   node test/e2e/run.mjs [--fixture DIR | --workspace PATH] [--grep RE] [--env KEY=VALUE]... [--timeout MS]
//
//   --fixture DIR      copied into a fresh temporary git repository opened by default (default: demo/repo)
//   --workspace PATH   open PATH as it is instead
//   --grep RE          only the tests whose full title matches
//   --env KEY=VALUE    extra environment for code-server and its extension host (repeatable)
//   --timeout MS       per-test timeout (default 120000)
// Also through the environment: WAVE_SCOPE_E2E_FIXTURE, WAVE_SCOPE_E2E_WORKSPACE, WAVE_SCOPE_E2E_GREP.
// Writes the tally to $WAVE_SCOPE_TEST_RESULTS (counting reporter); screenshots of failed tests and
// the code-server log go to test/e2e/output/. Needs `npm run build` first.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Mocha from 'mocha';
import { artifactPath, ensureCodeServer, log } from '../support/codeServer.mjs';
import { startRunner, writeTally } from '../extension/hostReport.mjs';
import { closeSession, configureSession, currentSession } from './session.mjs';

const here = dirname(fileURLToPath(import.meta.url));

function specFiles(directory) {
  return readdirSync(directory, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.e2e.mjs') && !name.startsWith('output/'))
    .sort()
    .map((name) => join(directory, name));
}

async function main() {
  const start = startRunner(import.meta.url, process.argv.slice(2), { strings: ['fixture', 'workspace', 'grep', 'timeout'] });
  if ('exitCode' in start) return start.exitCode;
  const { options } = start;
  try {
    // Install (or find) code-server before mocha starts, so a broken setup fails here and clearly.
    process.env.WAVE_SCOPE_CODE_SERVER = ensureCodeServer();
  } catch (error) {
    console.log(error.message);
    writeTally(undefined, error.message);
    return 1;
  }

  configureSession({
    fixture: options.fixture ?? process.env.WAVE_SCOPE_E2E_FIXTURE,
    workspace: options.workspace ?? process.env.WAVE_SCOPE_E2E_WORKSPACE,
    env: options.env,
  });

  const mocha = new Mocha({
    ui: 'bdd',
    timeout: Number(options.timeout ?? 120000),
    forbidOnly: true,
    forbidPending: true,
    reporter: createRequire(import.meta.url).resolve('../support/countingReporter.cjs'),
    rootHooks: {
      async afterEach() {
        const test = this.currentTest;
        const session = currentSession();
        if (test?.state !== 'failed' || !session) return;
        for (const [index, page] of session.browser.context.pages().entries()) {
          const shot = artifactPath(`failed-${test.fullTitle()}-${index}.png`);
          await page.screenshot({ path: shot }).catch(() => {});
          console.log(`    screenshot: ${shot}`);
        }
      },
    },
  });
  const grep = options.grep ?? process.env.WAVE_SCOPE_E2E_GREP;
  if (grep) mocha.grep(grep);
  const files = specFiles(here);
  for (const file of files) mocha.addFile(file);
  log(`${files.length} end-to-end spec file(s)`);

  let failures = 0;
  try {
    await mocha.loadFilesAsync();
    failures = await new Promise((resolve) => mocha.run(resolve));
  } catch (error) {
    console.log(`loading the end-to-end specs failed: ${error.stack ?? error}`);
    writeTally(undefined, `loading the end-to-end specs failed: ${error.message ?? error}`);
    failures = 1;
  }
  const session = currentSession();
  if (session) {
    writeFileSync(artifactPath('code-server.log'), readFileSync(session.server.logFile, 'utf8'));
    if (failures > 0) {
      console.log(`--- code-server log (tail)\n${session.server.logTail(40)}`);
      if (session.browser.errors.length > 0) console.log(`browser errors:\n  ${session.browser.errors.slice(-20).join('\n  ')}`);
    }
  }
  await closeSession();
  return failures > 0 ? 1 : 0;
}

process.exitCode = await main();
