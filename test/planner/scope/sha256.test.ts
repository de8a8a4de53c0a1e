// sha256Hex must give node:crypto's digest of the same string, byte for byte, or every digest recorded
// before it (ledgers, scope digest lines in prompts, hashed session ids) would stop matching.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { sha256Hex, sha256HexPure, useNativeSha256 } from '../../../src/planner/scope/sha256';

const nodeSha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

describe('sha256Hex', () => {
  // The pure-JS hash is what the hooks use; the CLI hands node:crypto's in (useNativeSha256).
  it('is the SHA-256 test vector of "abc" and of the empty text', () => {
    assert.equal(sha256HexPure('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    assert.equal(sha256HexPure(''), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  it('equals node:crypto on any text, lone surrogates included', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (text) => {
        assert.equal(sha256HexPure(text), nodeSha256(text), JSON.stringify(text));
      }),
      { numRuns: 3000 },
    );
  });

  it('equals node:crypto on texts around the 64-byte block boundaries', () => {
    for (let length = 0; length <= 200; length += 1) {
      const text = 'é'.repeat(length % 3) + 'x'.repeat(length);
      assert.equal(sha256HexPure(text), nodeSha256(text), `length ${length}`);
    }
  });

  it('uses the hash handed in by useNativeSha256, which gives the same digests', () => {
    const calls: string[] = [];
    const replaced = useNativeSha256((text) => {
      calls.push(text);
      return nodeSha256(text);
    });
    try {
      assert.equal(sha256Hex('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
      assert.deepEqual(calls, ['abc']);
    } finally {
      useNativeSha256(replaced);
    }
    assert.equal(sha256Hex('abc'), sha256HexPure('abc'));
  });
});
