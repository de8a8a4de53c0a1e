#!/usr/bin/env node
// `npm test`: builds, then runs every suite, whatever an earlier one did, and ends with one line
// `N passed, N failed`. Exit code 0 only when every suite ran and nothing failed.
//
// A suite is a command that writes its tally ({passed, failed, skipped, failures}) to the JSON file
// named by WAVE_SCOPE_TEST_RESULTS. A suite that exits non-zero without a tally counts as one failure:
// a runner that crashed must never read as "nothing failed".
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const output = join(root, '.test-output');
rmSync(output, { recursive: true, force: true });
mkdirSync(output, { recursive: true });

/** Checks that are not mocha suites count as one test each. */
const suites = [
  { name: 'build', command: ['npm', 'run', 'build'], single: true },
  { name: 'typecheck', command: ['npm', 'run', 'typecheck'], single: true },
  { name: 'lint', command: ['npm', 'run', 'lint'], single: true },
  // Installs Debian's bubblewrap for the confinement tests of `run --confine` (in the mocha suite, which
  // `uses` it: the suite runs either way, and without bubblewrap those tests fail, never skip).
  { name: 'bubblewrap setup', command: ['bash', 'test/support/setupBubblewrap.sh'], single: true, provides: 'bubblewrap' },
  { name: 'unit, planner and CLI (mocha)', command: ['npx', 'mocha', '--reporter', 'test/support/countingReporter.cjs'], uses: 'bubblewrap' },
  // Real-host suites. The setup step installs what they need (Debian chromium, code-server) once; when it
  // fails, every suite that `needs` it counts as failed without running.
  { name: 'browser host setup', command: ['bash', 'test/support/setupBrowserHost.sh'], single: true, provides: 'browser host' },
  {
    name: 'packaging (VSIX)',
    command: ['npx', 'mocha', '--no-config', '-n', 'import=tsx', '--extension', 'ts', '--forbid-only', '--forbid-pending',
      '--reporter', 'test/support/countingReporter.cjs', 'test/packaging/vsix.test.ts'],
    needs: 'browser host',
  },
  { name: 'extension host (code-server)', command: ['node', 'test/extension/runHostTests.mjs'], needs: 'browser host' },
  { name: 'end-to-end (Chromium + code-server)', command: ['node', 'test/e2e/run.mjs'], needs: 'browser host' },
];

const only = process.argv.slice(2);
let passed = 0;
let failed = 0;
let skipped = 0;
const failures = [];
const provided = new Set();
const selected = (suite) => only.length === 0 || only.some((word) => suite.name.includes(word));

for (const [index, suite] of suites.entries()) {
  const neededBySelected = suite.provides && suites.some((other) => (other.needs === suite.provides || other.uses === suite.provides) && selected(other));
  if (!selected(suite) && !neededBySelected) continue;
  if (suite.needs && !provided.has(suite.needs)) {
    failed += 1;
    failures.push(`${suite.name}: not run, its ${suite.needs} setup failed`);
    console.log(`\n=== ${suite.name}: not run, its ${suite.needs} setup failed (counted as a failure)`);
    continue;
  }
  const results = join(output, `suite-${index}.json`);
  console.log(`\n=== ${suite.name}: ${suite.command.join(' ')}`);
  const started = Date.now();
  const run = spawnSync(suite.command[0], suite.command.slice(1), {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, WAVE_SCOPE_TEST_RESULTS: results },
  });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const exitedCleanly = run.status === 0;
  if (suite.single) {
    if (exitedCleanly) {
      passed += 1;
      if (suite.provides) provided.add(suite.provides);
    } else {
      failed += 1;
      failures.push(`${suite.name} (exit ${run.status ?? run.signal})`);
    }
  } else if (existsSync(results)) {
    const tally = JSON.parse(readFileSync(results, 'utf8'));
    passed += tally.passed;
    failed += tally.failed;
    skipped += tally.skipped ?? 0;
    failures.push(...tally.failures.map((failure) => `${suite.name}: ${failure.title}: ${failure.error}`));
    if (!exitedCleanly && tally.failed === 0) {
      failed += 1;
      failures.push(`${suite.name}: exited ${run.status ?? run.signal} although no test failed`);
    }
  } else {
    failed += 1;
    failures.push(`${suite.name}: produced no results (exit ${run.status ?? run.signal})`);
  }
  console.log(`=== ${suite.name}: done in ${seconds} s (exit ${run.status ?? run.signal})`);
}

if (failures.length > 0) {
  console.log('\nFailures:');
  for (const failure of failures) console.log(`  - ${failure}`);
}
console.log(`\n${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`);
process.exitCode = failed > 0 || passed === 0 ? 1 : 0;
