// Shared by the two in-host runners (code-server and @vscode/test-electron): print the report the
// suite wrote inside the extension host, and turn it into the tally test/runAll.mjs reads.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

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

/** `--name value` options, `--flag` switches and repeated `--env K=V`; unknown options are an error. */
export function parseRunnerArgs(argv, known, flags = []) {
  const options = { env: {} };
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index];
    const name = argument.replace(/^--/, '');
    if (name === 'help') return { ...options, help: true };
    if (argument.startsWith('--') && flags.includes(name)) {
      options[name] = true;
      continue;
    }
    if (!argument.startsWith('--') || !(known.includes(name) || name === 'env')) {
      const all = [...known, 'env', ...flags].map((k) => `--${k}`).join(' ');
      throw new Error(`unknown argument ${argument}; known: ${all}`);
    }
    const value = argv[index + 1];
    if (value === undefined) throw new Error(`${argument} needs a value`);
    index += 1;
    if (name === 'env') {
      const equals = value.indexOf('=');
      if (equals <= 0) throw new Error(`--env takes KEY=VALUE, got ${value}`);
      options.env[value.slice(0, equals)] = value.slice(equals + 1);
    } else {
      options[name] = value;
    }
  }
  return options;
}
