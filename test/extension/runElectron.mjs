#!/usr/bin/env node
// The same in-host suite through @vscode/test-electron, for machines that can download VS Code
// desktop (`npm run test:vscode`). CI here cannot reach the VS Code update server and uses
// runHostTests.mjs (code-server) instead; on such a machine this runner fails with a clear message.
//
//   node test/extension/runElectron.mjs [--fixture DIR | --workspace PATH] [--grep RE] [--env KEY=VALUE]...
//
// WAVE_SCOPE_VSCODE_VERSION picks the version to download (default 1.100.3, the VS Code inside the
// code-server we test with; engines.vscode must not be newer). WAVE_SCOPE_VSCODE_EXECUTABLE uses a VS
// Code already on disk instead. On Linux without a display, run it under `xvfb-run -a`.
import { mkdtempSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { downloadAndUnzipVSCode, runTests } from '@vscode/test-electron';
import { makeFixtureRepo, repoRoot } from '../support/codeServer.mjs';
import { buildHostTests } from './buildHostTests.mjs';
import { printHostReport, readHostReport, startRunner, writeTally } from './hostReport.mjs';

const version = process.env.WAVE_SCOPE_VSCODE_VERSION ?? '1.100.3';
const cachePath = join(process.env.WAVE_SCOPE_E2E_CACHE ?? join(homedir(), '.cache', 'wave-scope-e2e'), 'vscode-test');

async function main() {
  const start = startRunner(import.meta.url, process.argv.slice(2), { strings: ['fixture', 'workspace', 'grep'] });
  if ('exitCode' in start) return start.exitCode;
  const { options } = start;

  let executable = process.env.WAVE_SCOPE_VSCODE_EXECUTABLE;
  if (!executable) {
    try {
      console.log(`downloading VS Code ${version} into ${cachePath} (once)`);
      executable = await downloadAndUnzipVSCode({ version, cachePath, timeout: 20000 });
    } catch (error) {
      const problem =
        `could not download VS Code ${version} from the VS Code update server ` +
        `(${error instanceof Error ? error.message : String(error)}). ` +
        'This runner needs a machine that reaches update.code.visualstudio.com, or ' +
        'WAVE_SCOPE_VSCODE_EXECUTABLE pointing at a VS Code on disk. Here, run the same suite in ' +
        'code-server instead: npm run test:host';
      console.log(problem);
      writeTally(undefined, problem);
      return 1;
    }
  }
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) {
    console.log('note: no DISPLAY; VS Code desktop needs one on Linux: run this under `xvfb-run -a`');
  }

  const built = await buildHostTests();
  const reportFile = join(built.dir, 'report.json');
  const workspaceOption = options.workspace ?? process.env.WAVE_SCOPE_HOST_WORKSPACE;
  const fixture = workspaceOption
    ? undefined
    : makeFixtureRepo({}, {
        copyFrom: resolve(options.fixture ?? process.env.WAVE_SCOPE_HOST_FIXTURE ?? join(repoRoot, 'demo', 'repo')),
        prefix: 'wave-scope-host-fixture-',
      });
  const workspace = workspaceOption ? resolve(workspaceOption) : fixture.root;
  const userData = mkdtempSync(join(tmpdir(), 'wave-scope-vscode-user-'));
  const grep = options.grep ?? process.env.WAVE_SCOPE_HOST_GREP;
  let problem;
  try {
    await runTests({
      vscodeExecutablePath: executable,
      extensionDevelopmentPath: repoRoot,
      extensionTestsPath: built.entry,
      extensionTestsEnv: {
        ...options.env,
        WAVE_SCOPE_HOST_REPORT: reportFile,
        WAVE_SCOPE_HOST_WORKSPACE: workspace,
        ...(grep ? { WAVE_SCOPE_HOST_GREP: grep } : {}),
      },
      launchArgs: [
        workspace,
        '--disable-extensions',
        '--disable-workspace-trust',
        '--skip-welcome',
        '--skip-release-notes',
        '--user-data-dir',
        userData,
      ],
    });
  } catch (error) {
    problem = `VS Code reported a failed run: ${error instanceof Error ? error.message : String(error)}`;
  } finally {
    fixture?.remove();
    rmSync(userData, { recursive: true, force: true });
  }
  const report = readHostReport(reportFile);
  rmSync(built.dir, { recursive: true, force: true });
  if (report) printHostReport(report);
  // A failing test already rejects run(); count the rejection only when no test recorded the failure.
  const tally = writeTally(report, report && report.failed > 0 ? undefined : (problem ?? (report ? undefined : 'no report written')));
  console.log(`in-host (VS Code desktop ${version}): ${tally.passed} passed, ${tally.failed} failed`);
  return tally.failed > 0 || tally.passed === 0 ? 1 : 0;
}

process.exitCode = await main();
