// Collision detection for a wave: every pair of agents whose declared scopes share a path.
//
// Comparing every entry of every agent with every other would be quadratic in the whole wave (20 million
// pairs for 64 agents × 100 entries). Two entries can only share a path when one's literal directory prefix
// is a prefix of the other's, so entries are filed in a tree by that prefix and each entry is compared only
// with the globs filed on its own path from the root; plain paths meet plain paths through one hash map.
// Each distinct pair of spellings is decided once, exactly (src/planner/scope/scopeAlgebra.ts), then reported for
// every pair of agents that declared it.
import { FileIndex } from './fileIndex';
import { checkedWitness, compiledEntry, intersectCompiled, knownWitness, respelledWitness } from './scopeAlgebra';
import type { CompiledEntries } from './scopeAlgebra';
import { ProofBudget } from './scopeAutomaton';
import { foldCase, inNfc } from './scopeEntry';
import type { CompiledScopeEntry } from './scopeEntry';

/** One agent's declared scope: its id and its entries (normalised spellings). */
export interface ScopeRecord {
  /** The agent id; `<unnamed#i>` (1-based position) when the input had none. */
  id: string;
  /** Normalised scope entries, duplicates removed, in the order given. */
  files: string[];
}

/** Two agents that both claim at least one path. */
export interface Collision {
  /** The two agent ids, in the order their records appear. */
  agents: [string, string];
  /** The entry of each agent (same order as `agents`), normalised spellings. */
  entries: [string, string];
  /** `concrete` when either entry is a plain path, `glob` when both are patterns. */
  kind: 'concrete' | 'glob';
  /** A path both entries name: a known file when one is known, otherwise a synthesised one. */
  witness: string;
}

/**
 * What two colliding agents both claim, as the reports word it: their two entries and a path both name
 * (`src/ and src/ui/x.tsx (for example src/ui/x.tsx)`); one entry when both wrote the same one, with the
 * example only when it says more than the entry does.
 */
export function claimedText(entries: readonly [string, string], witness: string): string {
  const [first, second] = entries;
  if (first !== second) return `${first} and ${second} (for example ${witness})`;
  return first === witness ? first : `${first} (for example ${witness})`;
}

export interface CollisionReport {
  /** True when no two agents share a path and no id is used twice. */
  ok: boolean;
  collisions: Collision[];
  /** Ids used by more than one record (compared case-insensitively), each once, as first spelled. */
  duplicateIds: string[];
}

export interface CollisionOptions {
  /** Known repository files, for real witnesses. */
  knownFiles?: FileIndex | readonly string[];
  ignoreCase?: boolean;
  /** Pairs of alternatives the proof may compare (default PROOF_PAIR_BUDGET); past it, ScopeProofTooComplex is thrown. */
  pairBudget?: number;
  /** Where entries are compiled and kept, for a caller that asks again about the same entries (else the shared cache). */
  compiled?: CompiledEntries;
  /**
   * The position of the one record whose collisions are wanted: only pairs with it are proven and reported,
   * and only they spend the budget (the dispatch guard asks about one new record against earlier ones, whose
   * overlaps among themselves are not its business). Default: every pair.
   */
  against?: number;
}

interface Claim {
  readonly entry: CompiledScopeEntry;
  /** Positions of the records that declare this entry, ascending. */
  readonly owners: number[];
}

interface PrefixNode {
  readonly children: Map<string, PrefixNode>;
  readonly globs: Claim[];
}

function newNode(): PrefixNode {
  return { children: new Map(), globs: [] };
}

function duplicateIdsOf(records: readonly ScopeRecord[]): { duplicates: string[]; identity: string[] } {
  const firstSpelling = new Map<string, string>();
  const counts = new Map<string, number>();
  const identity = records.map((record) => foldCase(record.id));
  records.forEach((record, index) => {
    const key = identity[index] as string;
    if (!firstSpelling.has(key)) firstSpelling.set(key, record.id);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  });
  const duplicates = [...counts].filter(([, count]) => count > 1).map(([key]) => firstSpelling.get(key) as string);
  return { duplicates, identity };
}

/**
 * Every pair of agents that share a path, with both entries, the kind and a witness; and the ids used twice.
 * Records with the same id (case-insensitively) are reported in `duplicateIds`, never as colliding with each
 * other. Entries must be normalised (see `parseScopeRecords`).
 */
export function findCollisions(records: readonly ScopeRecord[], options: CollisionOptions = {}): CollisionReport {
  const given = options.knownFiles;
  const ignoreCase = options.ignoreCase ?? (given instanceof FileIndex ? given.ignoreCase : false);
  const kept = options.compiled;
  const compile = kept !== undefined ? (spelling: string) => kept.of(spelling, ignoreCase) : (spelling: string) => compiledEntry(spelling, ignoreCase);
  const { duplicates, identity } = duplicateIdsOf(records);

  // Who declares what: one claim per distinct spelling. Compared in Unicode NFC, as every gate compares
  // entries and paths (the write gate, the commit guard, the backstop, verify): two spellings the gates
  // take for one path (`café` and `cafe` + U+0301, `K` and KELVIN SIGN) are one path here too.
  const claims = new Map<string, Claim>();
  records.forEach((record, position) => {
    for (const spelling of new Set(record.files.map(inNfc))) {
      const claim = claims.get(spelling);
      if (claim === undefined) claims.set(spelling, { entry: compile(spelling), owners: [position] });
      else if (claim.owners[claim.owners.length - 1] !== position) claim.owners.push(position);
    }
  });

  // Globs go into the prefix tree; plain paths are grouped by their comparison key. With case kept that key is
  // the claim's own spelling, so each group is one claim: the groups are then the plain claims in their order,
  // without a second map of every plain path (a full session ledger holds over 200,000).
  const root = newNode();
  const plainByKey = new Map<string, Claim[]>();
  const plainGroups: Claim[][] = [];
  for (const claim of claims.values()) {
    if (claim.entry.kind === 'plain') {
      if (!ignoreCase) {
        plainGroups.push([claim]);
        continue;
      }
      const key = foldCase(claim.entry.spelling);
      const group = plainByKey.get(key);
      if (group === undefined) {
        const started = [claim];
        plainByKey.set(key, started);
        plainGroups.push(started);
      } else group.push(claim);
      continue;
    }
    let node = root;
    for (const segment of claim.entry.literalPrefix) {
      let child = node.children.get(segment);
      if (child === undefined) {
        child = newNode();
        node.children.set(segment, child);
      }
      node = child;
    }
    node.globs.push(claim);
  }

  const meetings: Array<{ left: Claim; right: Claim; witness: string }> = [];
  const budget = new ProofBudget(options.pairBudget);
  const against = options.against;
  const meet = (left: Claim, right: Claim) => {
    if (!sharesAnAgentPair(left, right, identity, against)) return;
    const result = intersectCompiled(left.entry, right.entry, budget);
    if (result.overlaps) meetings.push({ left, right, witness: result.witness });
  };

  // Plain against plain: the same path (or the same claim declared by several agents).
  for (const group of plainGroups) {
    group.forEach((left, index) => {
      meet(left, left);
      for (const right of group.slice(index + 1)) meet(left, right);
    });
  }
  // Everything against the globs filed on its path from the root. Two globs filed in the same node are met
  // once, from the later of the two.
  for (const claim of claims.values()) {
    const path = claim.entry.literalPrefix;
    let node: PrefixNode | undefined = root;
    for (let depth = 0; node !== undefined; depth += 1) {
      const ownPosition = claim.entry.kind === 'glob' && depth === path.length ? node.globs.indexOf(claim) : -1;
      for (const [position, glob] of node.globs.entries()) {
        if (ownPosition !== -1 && position > ownPosition) break;
        meet(glob, claim);
      }
      node = depth < path.length ? node.children.get(path[depth] as string) : undefined;
    }
  }

  // The file list is only needed for witnesses, so a disjoint wave never pays for indexing it.
  const knownFiles = given === undefined || meetings.length === 0 ? undefined : given instanceof FileIndex ? given : new FileIndex(given, { ignoreCase });
  const witnessFor = realWitnesses(knownFiles);
  const collisions: Collision[] = [];
  // Report order: by the first agent's record, the second's, then each entry's place in its record: four numbers
  // for each collision, side by side (a full ledger against one glob collides through every one of its entries).
  // The places of a record's entries are looked up only when it collides.
  const order: number[] = [];
  const entryPlaces = new Map<number, Map<string, number>>();
  const place = (position: number, spelling: string) => {
    let places = entryPlaces.get(position);
    if (places === undefined) {
      places = new Map((records[position] as ScopeRecord).files.map((file, index) => [file, index]));
      entryPlaces.set(position, places);
    }
    return places.get(spelling) ?? 0;
  };
  for (const { left, right, witness: synthesised } of meetings) {
    const witness = knownFiles === undefined ? synthesised : witnessFor(left.entry, right.entry) ?? respelledWitness(left.entry, right.entry, synthesised, knownFiles);
    const kind = left.entry.kind === 'plain' || right.entry.kind === 'plain' ? 'concrete' : 'glob';
    for (const leftOwner of left.owners) {
      for (const rightOwner of right.owners) {
        if (identity[leftOwner] === identity[rightOwner] || (left === right && leftOwner > rightOwner)) continue;
        if (against !== undefined && leftOwner !== against && rightOwner !== against) continue;
        const leftFirst = leftOwner < rightOwner;
        const firstOwner = leftFirst ? leftOwner : rightOwner;
        const secondOwner = leftFirst ? rightOwner : leftOwner;
        const firstEntry = (leftFirst ? left : right).entry.spelling;
        const secondEntry = (leftFirst ? right : left).entry.spelling;
        collisions.push({
          agents: [(records[firstOwner] as ScopeRecord).id, (records[secondOwner] as ScopeRecord).id],
          entries: [firstEntry, secondEntry],
          kind,
          witness,
        });
        order.push(firstOwner, secondOwner, place(firstOwner, firstEntry), place(secondOwner, secondEntry));
      }
    }
  }
  const byOrder = (a: number, b: number) => {
    for (let key = 0; key < 4; key += 1) {
      const difference = (order[a * 4 + key] as number) - (order[b * 4 + key] as number);
      if (difference !== 0) return difference;
    }
    return 0;
  };
  return {
    ok: collisions.length === 0 && duplicates.length === 0,
    collisions: collisions.map((_, index) => index).sort(byOrder).map((index) => collisions[index] as Collision),
    duplicateIds: duplicates,
  };
}

/**
 * Whether the two claims have owners from two different agents (otherwise there is nothing to report), one
 * of them the record at `against` when it is given.
 */
function sharesAnAgentPair(left: Claim, right: Claim, identity: readonly string[], against: number | undefined): boolean {
  for (const leftOwner of left.owners) {
    for (const rightOwner of right.owners) {
      if (identity[leftOwner] === identity[rightOwner]) continue;
      if (against === undefined || leftOwner === against || rightOwner === against) return true;
    }
  }
  return false;
}

/**
 * Known files that witness each colliding pair. A plain entry is its own witness (when it is a known
 * file). For two globs, only the files under the longer of their literal prefixes can be named by both,
 * so only those are tested; each distinct pair of spellings is searched once. Either entry of a pair may come
 * first: the witness is the same.
 */
function realWitnesses(knownFiles: FileIndex | undefined): (left: CompiledScopeEntry, right: CompiledScopeEntry) => string | undefined {
  if (knownFiles === undefined) return () => undefined;
  const found = new Map<string, string | undefined>();
  return (left, right) => {
    const own = (spelling: string) => {
      const known = knownFiles.spellingOf(spelling);
      return known === undefined ? undefined : checkedWitness(left, right, known);
    };
    if (left.kind === 'plain') return own(left.spelling);
    if (right.kind === 'plain') return own(right.spelling);
    const key = `${left.spelling}\0${right.spelling}`;
    if (!found.has(key)) found.set(key, knownWitness(left, right, knownFiles));
    return found.get(key);
  };
}

/**
 * Collisions found without known files, with the witnesses `findCollisions` gives them when it is given the files
 * (a known file both entries name, else the synthesised witness respelled as the files spell it); the rest of
 * each collision as it is. Which pairs collide, and in which order, does not depend on the files: a caller that
 * lists them only once a collision is found (the dispatch guard) need not decide every pair again. Each
 * collision's `witness` must be the one `findCollisions` synthesised for its `entries`.
 */
export function withKnownWitnesses<T extends { readonly entries: readonly [string, string]; readonly witness: string }>(
  collisions: readonly T[],
  knownFiles: FileIndex | readonly string[],
  options: { ignoreCase?: boolean; compiled?: CompiledEntries } = {},
): T[] {
  if (collisions.length === 0) return [];
  const ignoreCase = options.ignoreCase ?? (knownFiles instanceof FileIndex ? knownFiles.ignoreCase : false);
  const files = knownFiles instanceof FileIndex ? knownFiles : new FileIndex(knownFiles, { ignoreCase });
  const kept = options.compiled;
  const compile = (spelling: string) => (kept !== undefined ? kept.of(spelling, ignoreCase) : compiledEntry(spelling, ignoreCase));
  const witnessFor = realWitnesses(files);
  return collisions.map((collision) => {
    const left = compile(collision.entries[0]);
    const right = compile(collision.entries[1]);
    return { ...collision, witness: witnessFor(left, right) ?? respelledWitness(left, right, collision.witness, files) };
  });
}
