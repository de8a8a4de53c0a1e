// A set of literal prefixes (the leading literal segments of scope entries), asked whether any member
// agrees with a given prefix on every segment both have (scopeAlgebra's prefixesCompatible): the necessary
// condition for two entries to share a path, which lets a caller leave out pairs before any proof. The
// members are filed as a tree of segments, so one question costs the length of the prefix asked about,
// however many members there are. Asking each member in turn costs their number per question, which for
// two large sides is the product of their sizes: 3,000 prompt entries against a ledger of 237,000 took the
// dispatch guard 14 s that way.

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
