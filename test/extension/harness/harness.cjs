// Dev-only extension, loaded next to Wave Scope by test/extension/runHostTests.mjs. Once the workbench
// has started, it requires the module named by WAVE_SCOPE_HOST_TESTS and awaits its run() inside this
// real extension host: the same contract as VS Code's extensionTestsPath, which code-server does not
// honour from a URL on every version. When run() settles it writes {code, error} to
// WAVE_SCOPE_HOST_DONE, which the outer runner waits for.
const fs = require('node:fs');

async function activate() {
  const testsModule = process.env.WAVE_SCOPE_HOST_TESTS;
  const doneFile = process.env.WAVE_SCOPE_HOST_DONE;
  if (!testsModule || !doneFile) return;
  // A reloaded window starts a second extension host: run the suite once per server.
  const claim = `${doneFile}.claimed`;
  try {
    fs.writeFileSync(claim, String(process.pid), { flag: 'wx' });
  } catch (error) {
    // EEXIST: this server's suite already ran. Anything else ends up in the extension host log,
    // which the runner prints when the run fails.
    if (error.code !== 'EEXIST') console.error(`[wave-scope host test harness] cannot claim ${claim}: ${error}`);
    return;
  }
  let result;
  try {
    await require(testsModule).run();
    result = { code: 0 };
  } catch (error) {
    result = { code: 1, error: String((error && error.stack) || error) };
  }
  fs.writeFileSync(`${doneFile}.partial`, JSON.stringify(result));
  fs.renameSync(`${doneFile}.partial`, doneFile);
}

function deactivate() {}

module.exports = { activate, deactivate };
