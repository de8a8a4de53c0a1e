// Leaving out pairs of entries that cannot meet before any proof: two entries share no path when their
// literal prefixes (leading literal segments) differ in a segment both have (scopeAlgebra's
// prefixesCompatible). Here the prefixes are read off spellings in the form the engine compares them
// (spelledLiteralPrefix), and one side's are filed in a tree of segments (LiteralPrefixSet), so asking
// about an entry costs the length of its prefix, however many entries the other side has. Asking each of
// them in turn costs their number per question, which for two large sides is the product of their sizes:
// 3,000 prompt entries against a ledger of 237,000 took the dispatch guard 14 s that way.

import { foldCase } from './scopeEntry';

// Characters that may make a segment anything but itself (the grammar refuses some of them, but a prefix
// that stops early is only less selective, never wrong).
const SPECIAL_IN_SEGMENT = /[*?[\]{}()!@+\\]/;
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/**
 * The leading segments of a spelling's literal segments in the form the collision engine compares them:
 * up to the first with a character that may make it anything but itself or (with `ignoreCase`) one
 * outside printable ASCII, where folding a path whole and folding it character by character (both of
 * which the engine does) can disagree. A list with an empty, `.` or `..` segment is not a normalised
 * spelling's and gets the empty prefix. The segments must be those of a spelling in Unicode NFC, the form
 * the engine compares entries in (an NFD `é` names the same paths as the NFC one).
 */
export function comparablePrefix(segments: readonly string[], ignoreCase: boolean): string[] {
  if (segments.some((segment) => segment === '' || segment === '.' || segment === '..')) return [];
  const prefix: string[] = [];
  for (const segment of segments) {
    if (SPECIAL_IN_SEGMENT.test(segment) || (ignoreCase && !PRINTABLE_ASCII.test(segment))) break;
    prefix.push(ignoreCase ? foldCase(segment) : segment);
  }
  return prefix;
}

/**
 * Leading segments every path a normalised entry names starts with, read off its spelling without
 * parsing it (a brace segment ends it): a prefix of the engine's literal prefix (ScopeEntry.literalPrefix)
 * of the entry in NFC, so two entries whose spelled prefixes differ in a segment both have cannot share a
 * path. Shorter is only less selective: no pair that can meet is ever ruled out.
 */
export function spelledLiteralPrefix(entry: string, ignoreCase: boolean): string[] {
  const spelling = entry.normalize('NFC');
  return comparablePrefix((spelling.endsWith('/') ? spelling.slice(0, -1) : spelling).split('/'), ignoreCase);
}

interface PrefixNode {
  /** Whether a member ends here. */
  end: boolean;
  readonly children: Map<string, PrefixNode>;
}

function newNode(): PrefixNode {
  return { end: false, children: new Map() };
}

/** Literal prefixes, each a list of path segments, compared segment by segment as spelled (fold case before adding and asking when case is to be ignored). */
export class LiteralPrefixSet {
  private readonly root = newNode();

  /** Adds one prefix; the empty prefix agrees with every prefix. */
  add(prefix: readonly string[]): void {
    let node = this.root;
    for (const segment of prefix) {
      let child = node.children.get(segment);
      if (child === undefined) {
        child = newNode();
        node.children.set(segment, child);
      }
      node = child;
    }
    node.end = true;
  }

  /**
   * Whether some member and `prefix` agree on every segment both have, that is, one of them is a
   * segment-wise prefix of the other: exactly `members.some((member) => prefixesCompatible(member, prefix))`.
   */
  meets(prefix: readonly string[]): boolean {
    let node = this.root;
    for (const segment of prefix) {
      // A member that ends here is a prefix of `prefix`.
      if (node.end) return true;
      const child = node.children.get(segment);
      if (child === undefined) return false;
      node = child;
    }
    // `prefix` is a prefix of the member ending here, or of every member below.
    return node.end || node.children.size > 0;
  }
}
