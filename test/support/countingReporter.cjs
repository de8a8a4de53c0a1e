// Mocha's spec reporter, plus a machine-readable tally for test/runAll.mjs.
// The tally goes to the file named by WAVE_SCOPE_TEST_RESULTS (when set).
const fs = require('node:fs');
const path = require('node:path');
const Mocha = require('mocha');

class CountingReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const failures = [];
    runner.on(Mocha.Runner.constants.EVENT_TEST_FAIL, (test, error) => {
      failures.push({ title: test.fullTitle(), error: String(error && error.message) });
    });
    runner.once(Mocha.Runner.constants.EVENT_RUN_END, () => {
      const target = process.env.WAVE_SCOPE_TEST_RESULTS;
      if (!target) return;
      const { passes, failures: failed, pending } = runner.stats;
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(target, JSON.stringify({ passed: passes, failed, skipped: pending, failures }, null, 2));
    });
  }
}

module.exports = CountingReporter;
