// A short, stable fingerprint of one agent's scope. The coordinator puts it into the agent's prompt
// beside the FILE-SCOPE block and asks the agent to echo it; a report that echoes it proves the
// block's line made the round trip (not that the agent obeyed it). Algorithm (docs/file-formats.md):
// normalise every entry, drop duplicates, sort by UTF-16 code units, join with "\n" and end with
// "\n", SHA-256 over the UTF-8 bytes, first 16 hex digits, prefixed "ws1-".
import { sha256Hex } from './sha256';
import { normalizeScopeEntry } from './scopeEntry';

/** Prefix naming the digest algorithm's version. */
export const SCOPE_DIGEST_PREFIX = 'ws1-';

/** The line an agent is asked to end its report with. */
export const SCOPE_ECHO_LABEL = 'SCOPE-ECHO:';

/** The canonical text that is hashed: normalised, deduplicated, sorted entries, one per line. */
export function canonicalScopeText(entries: readonly string[]): string {
  const normalised = [...new Set(entries.map((entry) => normalizeScopeEntry(entry)))];
  normalised.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return normalised.map((entry) => `${entry}\n`).join('');
}

/**
 * The digest of a scope: `ws1-` and 16 hex digits. Independent of entry order, duplicates and
 * spelling variants the grammar normalises away. Throws ScopeEntryError for an invalid entry.
 */
export function scopeDigest(entries: readonly string[]): string {
  const hash = sha256Hex(canonicalScopeText(entries));
  return `${SCOPE_DIGEST_PREFIX}${hash.slice(0, 16)}`;
}

/** The one line a coordinator puts into an agent's prompt beside its FILE-SCOPE block. */
export function scopeEchoInstruction(digest: string): string {
  return `Scope digest ${digest}: end your report with the line "${SCOPE_ECHO_LABEL} ${digest}" so the coordinator can confirm your FILE-SCOPE block reached you.`;
}

/** The digest an agent's report echoes (the last SCOPE-ECHO line), or undefined. */
export function extractScopeEcho(report: string): string | undefined {
  const pattern = /SCOPE-ECHO:\s*(ws1-[0-9a-f]{16})\b/g;
  let last: string | undefined;
  for (const match of report.matchAll(pattern)) last = match[1];
  return last;
}
