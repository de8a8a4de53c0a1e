// SHA-256 of a text's UTF-8 bytes, as lower-case hex: the hash behind every digest Wave Scope records (scope
// digests, prompt digests, hashed session ids). It is computed by @noble/hashes, a small audited pure-JS
// implementation, rather than node:crypto: loading node:crypto (and the stream modules it pulls in) is
// the largest single cost of starting a dispatch or write hook, and these digests hash a few kilobytes.
// The bytes are those node:crypto hashes for a string (TextEncoder's UTF-8: a lone surrogate becomes
// U+FFFD), so every digest already on disk stays valid; test/planner/scope/sha256.test.ts holds the two equal.
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

/** The SHA-256 of `text`'s UTF-8 bytes, 64 lower-case hex digits. */
export function sha256Hex(text: string): string {
  return bytesToHex(sha256(utf8ToBytes(text)));
}
