// The in-host suite entry: runs inside a real VS Code extension host (code-server through the
// harness extension, or VS Code desktop through @vscode/test-electron's extensionTestsPath). It runs
// mocha in-process over every bundled `*.test.js` beside it, then writes a report the outer runner
// prints and tallies.
import { mkdirSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Mocha from 'mocha';

/** One test or hook outcome. */
export interface HostTestRecord {
  fullTitle: string;
  state: 'passed' | 'failed';
  durationMs: number;
  error?: string;
}

/** What the in-host run reports to the outer runner (through the file named by WAVE_SCOPE_HOST_REPORT). */
export interface HostTestReport {
  passed: number;
  failed: number;
  skipped: number;
  failures: { title: string; error: string }[];
  tests: HostTestRecord[];
  /** Spec-reporter-like lines, printed by the outer runner. */
  lines: string[];
  durationMs: number;
  files: string[];
}

function describeError(error: unknown): string {
  if (error instanceof Error) return error.stack ?? `${error.name}: ${error.message}`;
  return String(error);
}

function createCollector(report: HostTestReport) {
  return class HostReportCollector extends Mocha.reporters.Base {
    constructor(runner: Mocha.Runner, options?: Mocha.MochaOptions) {
      super(runner, options);
      let depth = 0;
      const pad = () => '  '.repeat(depth);
      const { constants } = Mocha.Runner;
      runner.on(constants.EVENT_SUITE_BEGIN, (suite: Mocha.Suite) => {
        if (suite.root) return;
        report.lines.push(`${pad()}${suite.title}`);
        depth += 1;
      });
      runner.on(constants.EVENT_SUITE_END, (suite: Mocha.Suite) => {
        if (!suite.root) depth -= 1;
      });
      runner.on(constants.EVENT_TEST_PASS, (test: Mocha.Test) => {
        report.tests.push({ fullTitle: test.fullTitle(), state: 'passed', durationMs: test.duration ?? 0 });
        report.lines.push(`${pad()}✔ ${test.title} (${test.duration ?? 0} ms)`);
      });
      runner.on(constants.EVENT_TEST_FAIL, (test: Mocha.Runnable, error: unknown) => {
        const message = describeError(error);
        report.tests.push({ fullTitle: test.fullTitle(), state: 'failed', durationMs: test.duration ?? 0, error: message });
        report.failures.push({ title: test.fullTitle(), error: error instanceof Error ? error.message : String(error) });
        report.lines.push(`${pad()}✘ ${test.title}`);
        report.lines.push(...message.split('\n').map((line) => `${pad()}    ${line}`));
      });
      runner.on(constants.EVENT_TEST_PENDING, (test: Mocha.Test) => {
        report.lines.push(`${pad()}- ${test.title} (pending)`);
      });
    }
  };
}

function bundledTestFiles(directory: string): string[] {
  return readdirSync(directory, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.test.js'))
    .sort()
    .map((name) => join(directory, name));
}

/** Runs the suite and returns the report (also written to $WAVE_SCOPE_HOST_REPORT when set). */
export async function runHostSuite(): Promise<HostTestReport> {
  const report: HostTestReport = {
    passed: 0,
    failed: 0,
    skipped: 0,
    failures: [],
    tests: [],
    lines: [],
    durationMs: 0,
    files: [],
  };
  const mocha = new Mocha({
    ui: 'bdd',
    color: false,
    timeout: Number(process.env.WAVE_SCOPE_HOST_TIMEOUT_MS ?? 60000),
    forbidOnly: true,
    forbidPending: true,
    reporter: createCollector(report),
  });
  const grep = process.env.WAVE_SCOPE_HOST_GREP;
  if (grep) mocha.grep(grep);
  report.files = bundledTestFiles(__dirname);
  for (const file of report.files) mocha.addFile(file);
  const started = Date.now();
  await new Promise<void>((resolve, reject) => {
    try {
      const runner = mocha.run(() => {
        report.passed = runner.stats?.passes ?? 0;
        report.failed = runner.stats?.failures ?? 0;
        report.skipped = runner.stats?.pending ?? 0;
        resolve();
      });
    } catch (error) {
      // A test file that throws while loading lands here: report it as a failure, not a silent pass.
      reject(error);
    }
  }).catch((error: unknown) => {
    report.failed += 1;
    report.failures.push({ title: 'loading the in-host test files', error: describeError(error) });
    report.lines.push(`✘ loading the in-host test files`, ...describeError(error).split('\n').map((line) => `    ${line}`));
  });
  report.durationMs = Date.now() - started;
  report.lines.push('', `${report.passed} passing, ${report.failed} failing (${report.durationMs} ms in the extension host)`);

  const target = process.env.WAVE_SCOPE_HOST_REPORT;
  if (target) {
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(`${target}.partial`, JSON.stringify(report, null, 2));
    renameSync(`${target}.partial`, target);
  }
  return report;
}

/** The extensionTestsPath contract: resolves when every test passed, rejects otherwise. */
export async function run(): Promise<void> {
  const report = await runHostSuite();
  if (report.failed > 0) throw new Error(`${report.failed} in-host test(s) failed:\n${report.lines.join('\n')}`);
  if (report.passed === 0) throw new Error(`no in-host test ran (files: ${report.files.join(', ') || 'none'})`);
}
