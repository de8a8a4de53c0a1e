// Stands in for Node's `assert` inside proper-lockfile's copy of signal-exit, in dist/dispatch.js only
// (esbuild.mjs maps that one import here). signal-exit 3 calls exactly one function of it,
// `assert.equal(actual, expected, message)`, to check that its exit handler is a function. Loading the real
// module builds its coloured error output, which opens process.stderr as a stream: together a measurable
// part of every dispatch hook's start, for a check that cannot fail in our use.
'use strict';

module.exports = {
  /** assert.equal's loose comparison (NaN equals NaN), throwing an AssertionError-named Error otherwise. */
  equal(actual, expected, message) {
    // Loose on purpose: assert.equal is `==`.
    if (actual == expected || (actual !== actual && expected !== expected)) return;
    const error = new Error(message === undefined ? `${String(actual)} == ${String(expected)}` : String(message));
    error.name = 'AssertionError';
    error.code = 'ERR_ASSERTION';
    throw error;
  },
};
