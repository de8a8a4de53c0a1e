// Exact decisions about glob languages, without any list of files.
//
// Every supported entry denotes a regular language of paths, so it has a finite automaton. Each entry becomes
// a nondeterministic automaton over the characters of a whole path (`/` included); two questions are then
// answered exactly:
//   - intersection: is there a path both automata accept? (product construction, searched cheapest-first so
//     the witness reads like a real path);
//   - inclusion: is every path one automaton accepts also accepted by a set of others? (the product of one
//     automaton with the subset construction of the others, searched for a counterexample).
// The alphabet is all UTF-16 code units, which is too large to enumerate, so each step only considers one
// representative character per class of characters that every transition in play treats alike (the
// classes are bounded by the range ends the transitions mention).
//
// Paths are normalised repository paths: no empty segment, no `.` or `..` segment. The searches carry a small
// tracker of the current segment ("empty", ".", "..", "other") so that they only ever accept such paths.
import type { CharSet, ParsedScopeEntry, PatternSegment } from './scopeEntry';
import { foldUnit } from './scopeEntry';

const SLASH = 0x2f;
const DOT = 0x2e;

interface Edge {
  /** Characters this edge reads; undefined: the edge reads `/`. */
  readonly set: CharSet | undefined;
  readonly to: number;
}

/** A nondeterministic automaton without epsilon moves (closures are folded into the start set and edges). */
export interface PathAutomaton {
  readonly starts: readonly number[];
  readonly accepting: readonly boolean[];
  readonly edges: ReadonlyArray<readonly Edge[]>;
}

class AutomatonBuilder {
  readonly edges: Edge[][] = [];
  readonly epsilons: number[][] = [];
  readonly accepting: boolean[] = [];

  state(): number {
    this.edges.push([]);
    this.epsilons.push([]);
    this.accepting.push(false);
    return this.edges.length - 1;
  }

  edge(from: number, set: CharSet | undefined, to: number): void {
    (this.edges[from] as Edge[]).push({ set, to });
  }

  epsilon(from: number, to: number): void {
    (this.epsilons[from] as number[]).push(to);
  }

  /** Adds one brace alternative starting at a fresh state; returns that state. */
  alternative(segments: readonly PatternSegment[]): number {
    const start = this.state();
    let current = start;
    segments.forEach((segment, index) => {
      const isLast = index === segments.length - 1;
      if (segment.kind === 'globstar') {
        // `current` starts the next segment after any number of whole `seg/` prefixes; at the end of the
        // pattern one segment or more (minimatch: `a/**` does not match `a`).
        const inside = this.state();
        this.edge(current, ANY, inside);
        this.edge(inside, ANY, inside);
        this.edge(inside, undefined, current);
        if (isLast) this.accepting[inside] = true;
        return;
      }
      for (const token of segment.tokens) {
        if (token.kind === 'star') {
          const loop = this.state();
          this.epsilon(current, loop);
          this.edge(loop, ANY, loop);
          current = loop;
        } else {
          const next = this.state();
          this.edge(current, token.set, next);
          current = next;
        }
      }
      if (isLast) this.accepting[current] = true;
      else {
        const next = this.state();
        this.edge(current, undefined, next);
        current = next;
      }
    });
    return start;
  }

  closure(state: number): number[] {
    const seen = new Set([state]);
    const stack = [state];
    while (stack.length > 0) {
      for (const next of this.epsilons[stack.pop() as number] as number[]) {
        if (!seen.has(next)) {
          seen.add(next);
          stack.push(next);
        }
      }
    }
    return [...seen];
  }

  build(starts: number[]): PathAutomaton {
    const closures = this.edges.map((_, state) => this.closure(state));
    const edges = closures.map((closure) => {
      const out: Edge[] = [];
      for (const member of closure) {
        for (const edge of this.edges[member] as Edge[]) {
          for (const target of closures[edge.to] as number[]) out.push({ set: edge.set, to: target });
        }
      }
      return out;
    });
    const accepting = closures.map((closure) => closure.some((member) => this.accepting[member]));
    const startSet = new Set(starts.flatMap((start) => closures[start] as number[]));
    return { starts: [...startSet], accepting, edges };
  }
}

const ANY: CharSet = { negated: true, ranges: [] };

const automata = new WeakMap<ParsedScopeEntry, PathAutomaton>();

/** The automaton of a parsed entry (all its brace alternatives), built once per parsed entry. */
export function automatonOf(entry: ParsedScopeEntry): PathAutomaton {
  let automaton = automata.get(entry);
  if (automaton === undefined) {
    const builder = new AutomatonBuilder();
    const starts = entry.alternatives.map((alternative) => builder.alternative(alternative));
    automaton = builder.build(starts);
    automata.set(entry, automaton);
  }
  return automaton;
}

/**
 * Whether the automaton accepts `path`, read one UTF-16 code unit at a time with every live state at once:
 * time linear in the path's length times the automaton's size, however many `**` and `*` its entry has
 * (compileScopeEntry's matcher for an entry a backtracking regex could take exponential time on).
 */
export function acceptsPath(automaton: PathAutomaton, path: string): boolean {
  let current = automaton.starts;
  for (let position = 0; position < path.length && current.length > 0; position += 1) {
    const code = path.charCodeAt(position);
    const next = new Set<number>();
    for (const state of current) {
      for (const edge of automaton.edges[state] as Edge[]) {
        if (edge.set === undefined ? code === SLASH : inSet(edge.set, code)) next.add(edge.to);
      }
    }
    current = [...next];
  }
  return current.some((state) => automaton.accepting[state] === true);
}

function inSet(set: CharSet, code: number): boolean {
  if (code === SLASH) return false;
  let inside = false;
  for (const [low, high] of set.ranges) {
    if (code < low) break;
    if (code <= high) {
      inside = true;
      break;
    }
  }
  return inside !== set.negated;
}

/**
 * Characters a witness must never use: NUL, and (in ignore-case mode) every code unit foldCase changes
 * (`A`, `É`, `Σ`), which a folded path never holds: the gate folds a path before it matches, so a witness
 * holding one would not be a path both entries name as the gate reads it (found by red-team review,
 * 2026-12-06: `docs/[!é]` against `docs/[É]` stopped the proof on the witness `docs/É`).
 */
function isExcluded(code: number, ignoreCase: boolean): boolean {
  return code === 0 || code === SLASH || (ignoreCase && foldUnit(code) !== code);
}

/** Characters a person reads easily, tried first so witnesses look like real names. */
const PREFERRED = [...'xabcdefghijklmnopqrstuvwyz0123456789_-'].map((char) => char.charCodeAt(0));
const PREFERRED_SET = new Set(PREFERRED);

/**
 * One representative of every class of characters that the given sets treat alike, nicest first. The class
 * boundaries are the ends of every range, plus the characters with a role of their own (NUL, `.`, `/`, and
 * the ASCII upper-case block in ignore-case mode); every class has its lowest member among the boundaries.
 */
function representatives(sets: readonly CharSet[], ignoreCase: boolean, budget?: Pick<ProofBudget, 'chargeStep'>): number[] {
  const key = `${ignoreCase ? 'i' : 's'}${sets.map(setId).join(',')}`;
  let cached = representativeCache.get(key);
  if (cached === undefined) {
    // Telling the classes apart tests each range end against every set: about (ranges)² work, which the
    // steps of the search did not count, so classes of 20,000 members ran for minutes under any budget
    // (found by red-team review, 2026-12-06). A step is taken for every RANGE_WORK_PER_STEP of it.
    const ranges = sets.reduce((sum, set) => sum + set.ranges.length, 0);
    budget?.chargeStep(Math.floor((ranges * ranges) / RANGE_WORK_PER_STEP));
    if (representativeCache.size > 100_000) representativeCache.clear();
    cached = computeRepresentatives(sets, ignoreCase);
    representativeCache.set(key, cached);
  }
  return cached;
}

const setIds = new WeakMap<CharSet, number>();
let nextSetId = 0;
const representativeCache = new Map<string, number[]>();

const idsByContent = new Map<string, number>();

/** One id per distinct set content, so equal sets from different entries share cached representatives. */
function setId(set: CharSet): number {
  let id = setIds.get(set);
  if (id === undefined) {
    const content = `${set.negated ? '^' : ''}${set.ranges.map(([low, high]) => `${low}-${high}`).join(',')}`;
    id = idsByContent.get(content);
    if (id === undefined) {
      id = nextSetId++;
      idsByContent.set(content, id);
    }
    setIds.set(set, id);
  }
  return id;
}

/** The one character of a single-character set (a literal), or undefined. */
function soleCharacter(set: CharSet): number | undefined {
  if (set.negated || set.ranges.length !== 1) return undefined;
  const [low, high] = set.ranges[0] as readonly [number, number];
  return low === high ? low : undefined;
}

/**
 * The characters to try on a step that reads `left` and `right` together: one per class both treat alike.
 * A literal on either side is the only character that can be read (the common case, decided without search).
 */
function stepCharacters(left: CharSet, right: CharSet, ignoreCase: boolean, budget?: ProofBudget): number[] {
  const single = soleCharacter(left) ?? soleCharacter(right);
  if (single !== undefined) return inSet(left, single) && inSet(right, single) && !isExcluded(single, ignoreCase) ? [single] : [];
  return representatives([left, right], ignoreCase, budget);
}

/** How much of the classes' work (range ends times ranges, see representatives) one search step stands for. */
const RANGE_WORK_PER_STEP = 64;

function computeRepresentatives(sets: readonly CharSet[], ignoreCase: boolean): number[] {
  const boundaries = new Set<number>([1, DOT, DOT + 1, SLASH + 1, 0x41, 0x5b]);
  for (const set of sets) {
    for (const [low, high] of set.ranges) {
      boundaries.add(low);
      if (high < 0xffff) boundaries.add(high + 1);
    }
  }
  const chosen: number[] = [];
  const classKey = (code: number) => sets.map((set) => (inSet(set, code) ? '1' : '0')).join('') + (code === DOT ? '.' : '');
  const seenClasses = new Set<string>();
  const sorted = [...boundaries].sort((a, b) => a - b);
  const nextBoundary = new Map(sorted.map((code, index) => [code, sorted[index + 1] ?? 0x10000]));
  for (const candidate of [...PREFERRED, ...sorted]) {
    let code = candidate;
    // Between two boundaries every character is in the same sets: an excluded one (upper case, in
    // ignore-case mode) stands for its class through the next one that is not excluded, if any.
    const end = nextBoundary.get(candidate) ?? candidate + 1;
    while (code < end && isExcluded(code, ignoreCase)) code += 1;
    if (code >= end) continue;
    const key = classKey(code);
    if (seenClasses.has(key)) continue;
    seenClasses.add(key);
    chosen.push(code);
  }
  return chosen;
}

/** The segment tracker: 0 empty so far, 1 ".", 2 "..", 3 anything else (a valid segment). */
function track(tracker: number, code: number): number {
  if (code !== DOT) return 3;
  return tracker === 3 ? 3 : tracker + 1;
}

/** Characters are cheap, a segment that starts with a dot costs more: witnesses avoid hidden files when they can. */
function cost(tracker: number, code: number): number {
  return tracker === 0 && code === DOT ? 4 : PREFERRED_SET.has(code) ? 1 : 2;
}

interface SearchNode {
  readonly key: string;
  readonly parent: SearchNode | undefined;
  readonly code: number;
}

function spell(node: SearchNode): string {
  const codes: number[] = [];
  for (let current: SearchNode | undefined = node; current?.parent !== undefined; current = current.parent) codes.push(current.code);
  return String.fromCharCode(...codes.reverse());
}

/** A cheapest-first search over small integer costs (a bucket queue). */
class BucketQueue<T> {
  // Each bucket is read from `next` on (Array.shift would move the whole bucket on every pop).
  private readonly buckets: Array<{ items: T[]; next: number }> = [];
  private lowest = 0;
  private count = 0;

  push(priority: number, item: T): void {
    (this.buckets[priority] ??= { items: [], next: 0 }).items.push(item);
    this.lowest = Math.min(this.lowest, priority);
    this.count += 1;
  }

  pop(): [number, T] | undefined {
    if (this.count === 0) return undefined;
    for (;;) {
      const bucket = this.buckets[this.lowest];
      if (bucket !== undefined && bucket.next < bucket.items.length) break;
      this.lowest += 1;
    }
    const bucket = this.buckets[this.lowest] as { items: T[]; next: number };
    const item = bucket.items[bucket.next] as T;
    bucket.next += 1;
    if (bucket.next === bucket.items.length) {
      bucket.items = [];
      bucket.next = 0;
    }
    this.count -= 1;
    return [this.lowest, item];
  }
}

/** Pairs of alternatives one proof compares at most (about a second of work); see ProofBudget. */
export const PROOF_PAIR_BUDGET = 2_000_000;

/**
 * Steps (pairs of edges tried, and characters tried on them) one proof's searches for common paths take at
 * most (about a second of work); see ProofBudget. Entries any person writes stay far below it.
 */
export const COMMON_PATH_STEP_BUDGET = 2_000_000;

/**
 * The scopes asked about are too large to prove disjoint within the proof's budget (brace lists of
 * hundreds of alternatives on both sides, thousands of root-level globs). A proof never guesses: whoever
 * asked must refuse the plan as unproven, never take it as disjoint.
 */
export class ScopeProofTooComplex extends Error {
  constructor(readonly detail: string) {
    super(`the scopes are too complex to prove disjoint (${detail}): write fewer or shorter brace lists and globs`);
    this.name = 'ScopeProofTooComplex';
  }
}

/**
 * The work left to one proof: pairs of alternatives compared, and steps of the searches for a path two
 * entries share. Its cost grows with the product of the alternatives it compares and of the automata it
 * searches, and a plan from anyone who can push to the plan ref can be written to make those products
 * huge: past either budget the proof stops with ScopeProofTooComplex instead of running for hours. One
 * budget serves a whole proof, so many searches that each stay just under it cannot add up either.
 */
export class ProofBudget {
  private pairsLeft: number;
  private stepsLeft: number;
  constructor(
    readonly pairs: number = PROOF_PAIR_BUDGET,
    readonly steps: number = COMMON_PATH_STEP_BUDGET,
  ) {
    this.pairsLeft = pairs;
    this.stepsLeft = steps;
  }

  /** Takes `count` pairs of alternatives; throws ScopeProofTooComplex when they run out. */
  chargePairs(count: number): void {
    this.pairsLeft -= count;
    if (this.pairsLeft < 0) throw new ScopeProofTooComplex(`more than ${this.pairs} pairs of alternatives to compare`);
  }

  /** Takes `count` search steps (one by default); throws ScopeProofTooComplex when they run out. */
  chargeStep(count = 1): void {
    this.stepsLeft -= count;
    if (this.stepsLeft < 0) throw new ScopeProofTooComplex(`common paths that take more than ${this.steps} steps to search`);
  }
}

/**
 * A path both automata accept, or undefined when there is none. Exact: the product automaton is finite and
 * searched completely, unless that takes the steps `budget` has left (ScopeProofTooComplex). The path
 * returned is a cheapest one (short, plain characters, no hidden segments unless the patterns demand them).
 */
export function findCommonPath(left: PathAutomaton, right: PathAutomaton, ignoreCase: boolean, budget: ProofBudget = new ProofBudget()): string | undefined {
  const queue = new BucketQueue<{ a: number; b: number; tracker: number; node: SearchNode }>();
  const settled = new Set<string>();
  for (const a of left.starts) {
    for (const b of right.starts) {
      const key = `${a},${b},0`;
      queue.push(0, { a, b, tracker: 0, node: { key, parent: undefined, code: 0 } });
    }
  }
  for (let entry = queue.pop(); entry !== undefined; entry = queue.pop()) {
    const [distance, { a, b, tracker, node }] = entry;
    if (settled.has(node.key)) continue;
    settled.add(node.key);
    if (tracker === 3 && left.accepting[a] && right.accepting[b]) return spell(node);
    for (const leftEdge of left.edges[a] as Edge[]) {
      for (const rightEdge of right.edges[b] as Edge[]) {
        budget.chargeStep();
        if (leftEdge.set === undefined || rightEdge.set === undefined) {
          if (leftEdge.set === undefined && rightEdge.set === undefined && tracker === 3) {
            const key = `${leftEdge.to},${rightEdge.to},0`;
            if (!settled.has(key)) queue.push(distance + 1, { a: leftEdge.to, b: rightEdge.to, tracker: 0, node: { key, parent: node, code: SLASH } });
          }
          continue;
        }
        for (const code of stepCharacters(leftEdge.set, rightEdge.set, ignoreCase, budget)) {
          budget.chargeStep();
          if (!inSet(leftEdge.set, code) || !inSet(rightEdge.set, code)) continue;
          const nextTracker = track(tracker, code);
          const key = `${leftEdge.to},${rightEdge.to},${nextTracker}`;
          if (!settled.has(key)) {
            queue.push(distance + cost(tracker, code), { a: leftEdge.to, b: rightEdge.to, tracker: nextTracker, node: { key, parent: node, code } });
          }
        }
      }
    }
  }
  return undefined;
}

/** The characters a segment pattern surely starts with and surely ends with (literal tokens at each end). */
function literalEnds(segment: PatternSegment & { kind: 'pattern' }): { head: string; tail: string; whole: boolean } {
  const chars = segment.tokens.map((token) => (token.kind === 'chars' ? soleCharacter(token.set) : undefined));
  const firstOpen = chars.findIndex((char) => char === undefined);
  if (firstOpen === -1) {
    const whole = String.fromCharCode(...(chars as number[]));
    return { head: whole, tail: whole, whole: true };
  }
  let lastOpen = chars.length - 1;
  while (chars[lastOpen] !== undefined) lastOpen -= 1;
  return {
    head: String.fromCharCode(...(chars.slice(0, firstOpen) as number[])),
    tail: String.fromCharCode(...(chars.slice(lastOpen + 1) as number[])),
    whole: false,
  };
}

/** False only when the two segment patterns surely share no segment (their literal ends disagree). */
function segmentsMayMeet(left: PatternSegment, right: PatternSegment): boolean {
  if (left.kind === 'globstar' || right.kind === 'globstar') return true;
  const a = literalEnds(left);
  const b = literalEnds(right);
  if (a.whole && b.whole) return a.head === b.head;
  const prefixCompatible = a.head.startsWith(b.head) || b.head.startsWith(a.head);
  const suffixCompatible = a.tail.endsWith(b.tail) || b.tail.endsWith(a.tail);
  return prefixCompatible && suffixCompatible;
}

/** The segments at fixed distances from one end, up to the first `**` met from that end. */
function fixedRun(segments: readonly PatternSegment[], fromEnd: boolean): PatternSegment[] {
  const ordered = fromEnd ? [...segments].reverse() : [...segments];
  const stop = ordered.findIndex((segment) => segment.kind === 'globstar');
  return stop === -1 ? ordered : ordered.slice(0, stop);
}

/**
 * A cheap, sound pre-check: true when two alternatives surely name no common path, because the segments
 * at the same distance from the start (before any `**`) or from the end (after the last `**`) cannot
 * match one segment, or because two globstar-free alternatives differ in length. False means "search".
 */
export function surelyDisjoint(left: readonly PatternSegment[], right: readonly PatternSegment[]): boolean {
  const leftFixed = !left.some((segment) => segment.kind === 'globstar');
  const rightFixed = !right.some((segment) => segment.kind === 'globstar');
  if (leftFixed && rightFixed && left.length !== right.length) return true;
  for (const fromEnd of [false, true]) {
    const a = fixedRun(left, fromEnd);
    const b = fixedRun(right, fromEnd);
    const shared = Math.min(a.length, b.length);
    for (let index = 0; index < shared; index += 1) if (!segmentsMayMeet(a[index] as PatternSegment, b[index] as PatternSegment)) return true;
  }
  return false;
}

/** Explored states after which an inclusion check gives up and says it cannot decide. */
export const INCLUSION_STATE_BUDGET = 200_000;

export type InclusionResult =
  | { readonly included: true }
  | { readonly included: false; readonly counterexample: string }
  | { readonly included: undefined };

/**
 * Whether every path `inner` accepts is accepted by at least one of `outers`. Exact (a counterexample is a
 * path `inner` accepts and none of `outers` does) unless the subset construction exceeds the budget, and
 * no single outer alone is proven to include `inner`, in which case the answer is `included: undefined`.
 */
export function checkInclusion(inner: PathAutomaton, outers: readonly PathAutomaton[], ignoreCase: boolean): InclusionResult {
  const verdict = searchInclusion(inner, outers, ignoreCase, INCLUSION_STATE_BUDGET);
  if (verdict.included !== undefined || outers.length < 2) return verdict;
  // The union's subset construction ran out of budget: the subsets of several automata multiply (braces and
  // classes in each), while one outer alone may still accept all of `inner` (`**/*` beside such entries).
  // Each alone is a construction over one automaton, and what one accepts the union accepts. Together they
  // get one more budget's worth, so this costs at most twice the union's search.
  const budget = Math.floor(INCLUSION_STATE_BUDGET / outers.length);
  return outers.some((outer) => searchInclusion(inner, [outer], ignoreCase, budget).included === true) ? { included: true } : verdict;
}

/** checkInclusion's search over the union of `outers`, giving up past `budget` explored states. */
function searchInclusion(inner: PathAutomaton, outers: readonly PathAutomaton[], ignoreCase: boolean, budget: number): InclusionResult {
  // The outers become one automaton: their states renumbered into one range, their start sets unioned.
  const offsets: number[] = [];
  let total = 0;
  for (const outer of outers) {
    offsets.push(total);
    total += outer.edges.length;
  }
  const outerEdges: Edge[][] = [];
  const outerAccepting: boolean[] = [];
  outers.forEach((outer, index) => {
    const offset = offsets[index] as number;
    outer.edges.forEach((edges) => outerEdges.push(edges.map((edge) => ({ set: edge.set, to: edge.to + offset }))));
    outerAccepting.push(...outer.accepting);
  });
  const outerStarts = outers.flatMap((outer, index) => outer.starts.map((start) => start + (offsets[index] as number)));

  const subsetKey = (subset: readonly number[]) => subset.join('.');
  type Item = { state: number; subset: number[]; tracker: number; node: SearchNode };
  // Cheapest-first like `findCommonPath`, so a counterexample reads like a real path too.
  const queue = new BucketQueue<Item>();
  const settled = new Set<string>();
  const startSubset = [...new Set(outerStarts)].sort((x, y) => x - y);
  // The classes' work (see representatives) counts against the same budget as the states explored.
  let classWork = 0;
  const charged = { chargeStep: (count = 1) => void (classWork += count) };
  for (const state of inner.starts) {
    const key = `${state}|${subsetKey(startSubset)}|0`;
    queue.push(0, { state, subset: startSubset, tracker: 0, node: { key, parent: undefined, code: 0 } });
  }
  for (let entry = queue.pop(); entry !== undefined; entry = queue.pop()) {
    const [distance, { state, subset, tracker, node }] = entry;
    if (settled.has(node.key)) continue;
    settled.add(node.key);
    if (settled.size + classWork > budget) return { included: undefined };
    if (tracker === 3 && inner.accepting[state] && !subset.some((member) => outerAccepting[member])) {
      return { included: false, counterexample: spell(node) };
    }
    const innerEdges = inner.edges[state] as Edge[];
    const outgoing = subset.flatMap((member) => outerEdges[member] as Edge[]);
    const visit = (target: number, code: number, nextTracker: number, price: number) => {
      const reads = (edge: Edge) => (code === SLASH ? edge.set === undefined : edge.set !== undefined && inSet(edge.set, code));
      const nextSubset = [...new Set(outgoing.filter(reads).map((edge) => edge.to))].sort((x, y) => x - y);
      const key = `${target}|${subsetKey(nextSubset)}|${nextTracker}`;
      if (!settled.has(key)) queue.push(distance + price, { state: target, subset: nextSubset, tracker: nextTracker, node: { key, parent: node, code } });
    };
    for (const edge of innerEdges) {
      if (edge.set === undefined) {
        if (tracker === 3) visit(edge.to, SLASH, 0, 1);
        continue;
      }
      const sets = [edge.set, ...outgoing.flatMap((out) => (out.set === undefined ? [] : [out.set]))];
      for (const code of representatives(sets, ignoreCase, charged)) {
        if (inSet(edge.set, code)) visit(edge.to, code, track(tracker, code), cost(tracker, code));
      }
    }
  }
  return { included: true };
}
