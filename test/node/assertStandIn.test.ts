// The assert stand-in of dist/dispatch.js (src/node/assertStandIn.cjs) must answer signal-exit's one call
// as Node's assert.equal would: pass on loosely equal values, throw an AssertionError with the message otherwise.
import assert from 'node:assert';
import { createRequire } from 'node:module';

const standIn = createRequire(__filename)('../../src/node/assertStandIn.cjs') as { equal(actual: unknown, expected: unknown, message?: string): void };

describe('assertStandIn', () => {
  const pairs: Array<[unknown, unknown]> = [
    ['function', 'function'],
    ['object', 'function'],
    [1, '1'],
    [0, false],
    [null, undefined],
    [Number.NaN, Number.NaN],
    [1, 2],
    ['', 'function'],
  ];
  for (const [actual, expected] of pairs) {
    it(`answers equal(${String(actual)}, ${String(expected)}) as assert.equal does`, () => {
      let real: unknown;
      let ours: unknown;
      try {
        assert.equal(actual, expected, 'a callback must be provided');
      } catch (error) {
        real = error;
      }
      try {
        standIn.equal(actual, expected, 'a callback must be provided');
      } catch (error) {
        ours = error;
      }
      assert.equal(ours === undefined, real === undefined, 'both pass or both throw');
      if (real !== undefined) {
        assert.equal((ours as Error).name, 'AssertionError');
        assert.equal((ours as Error).message, 'a callback must be provided');
      }
    });
  }
});
