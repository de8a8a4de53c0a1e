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

interface PrefixNode<T> {
  /** What was filed with a prefix ending here, each with its place in the order of filing. */
  readonly here: Array<{ readonly order: number; readonly value: T }>;
  readonly children: Map<string, PrefixNode<T>>;
}

function newNode<T>(): PrefixNode<T> {
  return { here: [], children: new Map() };
}

/**
 * Values filed by literal prefix, each prefix a list of path segments compared segment by segment as
 * spelled (fold case before filing and asking when case is to be ignored). Two prefixes agree when one is
 * a segment-wise prefix of the other (scopeAlgebra's prefixesCompatible).
 */
export class LiteralPrefixIndex<T> {
  private readonly root = newNode<T>();
  private filed = 0;

  /** Files `value` under `prefix`; the empty prefix agrees with every prefix. */
  add(prefix: readonly string[], value: T): void {
    let node = this.root;
    for (const segment of prefix) {
      let child = node.children.get(segment);
      if (child === undefined) {
        child = newNode();
        node.children.set(segment, child);
      }
      node = child;
    }
    node.here.push({ order: this.filed, value });
    this.filed += 1;
  }

  /** Whether some filed prefix agrees with `prefix`: exactly `members.some((member) => prefixesCompatible(member, prefix))`. */
  meets(prefix: readonly string[]): boolean {
    let node = this.root;
    for (const segment of prefix) {
      // A member that ends here is a prefix of `prefix`.
      if (node.here.length > 0) return true;
      const child = node.children.get(segment);
      if (child === undefined) return false;
      node = child;
    }
    // `prefix` is a prefix of the member ending here, or of every member below.
    return node.here.length > 0 || node.children.size > 0;
  }

  /** The values filed under a prefix that agrees with `prefix`, in the order they were filed. */
  agreeingWith(prefix: readonly string[]): T[] {
    const found: Array<{ readonly order: number; readonly value: T }> = [];
    let node: PrefixNode<T> | undefined = this.root;
    for (const segment of prefix) {
      for (const filed of node.here) found.push(filed);
      node = node.children.get(segment);
      if (node === undefined) break;
    }
    if (node !== undefined) {
      const pending = [node];
      for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
        for (const filed of next.here) found.push(filed);
        for (const child of next.children.values()) pending.push(child);
      }
    }
    return found.sort((left, right) => left.order - right.order).map(({ value }) => value);
  }
}

/** Literal prefixes alone, for asking whether any agrees with one (LiteralPrefixIndex.meets). */
export class LiteralPrefixSet extends LiteralPrefixIndex<true> {
  /** Adds one prefix; the empty prefix agrees with every prefix. */
  override add(prefix: readonly string[]): void {
    super.add(prefix, true);
  }
}
