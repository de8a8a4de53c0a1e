// Shared by the two in-host runners (code-server and @vscode/test-electron): print the report the
// suite wrote inside the extension host, and turn it into the tally test/runAll.mjs reads.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Reads the in-host report, or returns undefined when the suite never wrote one. */
export function readHostReport(file) {
  if (!existsSync(file)) return undefined;
  return JSON.parse(readFileSync(file, 'utf8'));
}

/** Prints mocha's lines as the extension host recorded them. */
export function printHostReport(report) {
  for (const line of report.lines) console.log(line);
}

/**
 * Writes {passed, failed, skipped, failures} to $WAVE_SCOPE_TEST_RESULTS. A run that produced no
 * report, or whose runner failed outside mocha, adds one failure named after `problem`.
 */
export function writeTally(report, problem) {
  const tally = {
    passed: report?.passed ?? 0,
    failed: report?.failed ?? 0,
    skipped: report?.skipped ?? 0,
    failures: [...(report?.failures ?? [])],
  };
  if (problem) {
    tally.failed += 1;
    tally.failures.push({ title: 'in-host test run', error: problem });
  }
  const target = process.env.WAVE_SCOPE_TEST_RESULTS;
  if (target) {
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, JSON.stringify(tally, null, 2));
  }
  return tally;
}

/** The usage text of a runner: the comment block at the top of its own file (after the shebang). */
function usageOf(runnerUrl) {
  const lines = readFileSync(fileURLToPath(runnerUrl), 'utf8').split('\n').slice(1);
  const end = lines.findIndex((line) => !line.startsWith('//'));
  return lines
    .slice(0, end === -1 ? lines.length : end)
    .map((line) => line.replace(/^\/\/ ?/, ''))
    .join('\n');
}

/**
 * The start every runner shares: reads `--name value` options (`strings`), `--flag` switches (`flags`) and
 * repeated `--env KEY=VALUE` with Node's own parser, answers `--help` with the runner's header comment, and
 * refuses to run without a build. Returns `{ options }` (with `env` as an object), or `{ exitCode }` after
 * saying why (and writing a failed tally, so a broken run never reads as passed).
 */
export function startRunner(runnerUrl, argv, { strings, flags = [] }) {
  const usage = usageOf(runnerUrl);
  const fail = (problem, exitCode) => {
    console.error(exitCode === 2 ? `${problem}\n\n${usage}` : problem);
    writeTally(undefined, problem);
    return { exitCode };
  };
  let values;
  try {
    const options = { help: { type: 'boolean' }, env: { type: 'string', multiple: true } };
    for (const name of strings) options[name] = { type: 'string' };
    for (const name of flags) options[name] = { type: 'boolean' };
    ({ values } = parseArgs({ args: argv, options, strict: true, allowPositionals: false }));
  } catch (error) {
    return fail(error.message, 2);
  }
  if (values.help) {
    console.log(usage);
    return { exitCode: 0 };
  }
  const env = {};
  for (const pair of values.env ?? []) {
    const equals = pair.indexOf('=');
    if (equals <= 0) return fail(`--env takes KEY=VALUE, got ${pair}`, 2);
    env[pair.slice(0, equals)] = pair.slice(equals + 1);
  }
  if (!existsSync(join(repoRoot, 'dist', 'extension.js'))) return fail('dist/extension.js is missing: run "npm run build" first', 1);
  return { options: { ...values, env } };
}
