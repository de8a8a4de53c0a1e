// SHA-256 of a text's UTF-8 bytes, as lower-case hex: the hash behind every digest Wave Scope records (scope
// digests, prompt digests, hashed session ids). By default it is computed by @noble/hashes, a small audited
// pure-JS implementation, rather than node:crypto: loading node:crypto (and the stream modules it pulls in)
// is the largest single cost of starting a dispatch or write hook, and these digests hash a few kilobytes.
// A process that loads node:crypto anyway (the CLI) hands its native hash in through
// `useNativeSha256`: a sync of a 64-agent wave hashes every scope twice, and the pure-JS hash, cold in a
// fresh process, costs it about 10 ms where the native one costs 1.
// The bytes are those node:crypto hashes for a string (TextEncoder's UTF-8: a lone surrogate becomes
// U+FFFD), so every digest already on disk stays valid; test/planner/scope/sha256.test.ts holds the two equal.
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

/** A SHA-256 of a text's UTF-8 bytes, as 64 lower-case hex digits. */
export type Sha256Hex = (text: string) => string;

const pureSha256Hex: Sha256Hex = (text) => bytesToHex(sha256(utf8ToBytes(text)));

let implementation: Sha256Hex = pureSha256Hex;

/** The SHA-256 of `text`'s UTF-8 bytes, 64 lower-case hex digits. */
export function sha256Hex(text: string): string {
  return implementation(text);
}

/**
 * Makes `sha256Hex` use `native` (node:crypto's hash, given by a process that has loaded it) from now on,
 * and returns the hash it replaces. Only a hash that gives the same digests may be handed in; the CLI's
 * entry does it once, at start.
 */
export function useNativeSha256(native: Sha256Hex): Sha256Hex {
  const replaced = implementation;
  implementation = native;
  return replaced;
}

/** The pure-JS hash, whichever `sha256Hex` uses (for the test that holds the two equal). */
export const sha256HexPure: Sha256Hex = pureSha256Hex;
