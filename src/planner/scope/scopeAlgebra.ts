// The scope algebra's two questions about entries, answered exactly and without any list of files:
// can two entries name the same path (`intersects`), and does a list of entries cover an entry (`covers`).
import { automatonOf, checkInclusion, findCommonPath, ProofBudget, surelyDisjoint } from './scopeAutomaton';
import { FileIndex } from './fileIndex';
import { LiteralPrefixIndex } from './literalPrefixSet';
import { compileScopeEntry, normalizeScopeEntry } from './scopeEntry';
import type { CompiledScopeEntry, GrammarOptions } from './scopeEntry';

export interface AlgebraOptions extends GrammarOptions {
  /** Known repository files: a witness is taken from them when one exists. */
  files?: FileIndex | readonly string[];
}

export type Intersection = { readonly overlaps: false } | { readonly overlaps: true; readonly witness: string };

/** What the engine found wrong with its own answer. */
export type ScopeEngineBugReason = 'witness-not-shared' | 'counterexample-not-escaping';

/**
 * A bug in the scope engine, caught by the engine checking its own answer before returning it: a witness that is
 * not a normalised path both entries name, or a counterexample that does not escape the allowed entries. Never a
 * verdict about the user's input; callers report it as an internal error and decide nothing from it.
 */
export class ScopeEngineBug extends Error {
  constructor(
    readonly reason: ScopeEngineBugReason,
    /** The entries (normalised spellings) the engine was asked about. */
    readonly entries: readonly string[],
    /** The path that failed the check. */
    readonly path: string,
  ) {
    super(
      reason === 'witness-not-shared'
        ? `internal error in the scope engine (please report it): the witness ${JSON.stringify(path)} it found for ${entries.map((entry) => JSON.stringify(entry)).join(' and ')} is not a path both entries name`
        : `internal error in the scope engine (please report it): the counterexample ${JSON.stringify(path)} it found for ${JSON.stringify(entries[0])} does not escape ${entries.slice(1).map((entry) => JSON.stringify(entry)).join(', ') || 'the empty list'}`,
    );
    this.name = 'ScopeEngineBug';
  }
}

/** A segment that is empty, `.` or `..`, with what bounds it (the start or end of the path, or a slash). */
const DEGENERATE_SEGMENT = /(?:^|\/)\.{0,2}(?:\/|$)/;

/**
 * A repository path in normal form: non-empty segments, none of them `.` or `..`. One pattern test rather
 * than a split: verify judges every path of a range with it.
 */
export function isNormalisedPath(path: string): boolean {
  return !path.includes('\0') && !DEGENERATE_SEGMENT.test(path);
}

/** The engine's check of a coverage counterexample: named by `target`, by none of `allowed`; throws ScopeEngineBug when not. */
export function checkedCounterexample(target: CompiledScopeEntry, allowed: readonly CompiledScopeEntry[], path: string): string {
  if (!isNormalisedPath(path) || !target.matches(path) || allowed.some((entry) => entry.matches(path))) {
    throw new ScopeEngineBug('counterexample-not-escaping', [target.spelling, ...allowed.map((entry) => entry.spelling)], path);
  }
  return path;
}

/** The engine's check of every witness before it leaves the engine; throws ScopeEngineBug when it fails. */
export function checkedWitness(left: CompiledScopeEntry, right: CompiledScopeEntry, witness: string): string {
  if (!isNormalisedPath(witness) || !left.matches(witness) || !right.matches(witness)) {
    throw new ScopeEngineBug('witness-not-shared', [left.spelling, right.spelling], witness);
  }
  return witness;
}

export type Coverage =
  | { readonly covered: true }
  /** `undecided`: the check ran out of budget; the entry counts as not covered. */
  | { readonly covered: false; readonly undecided: boolean; readonly counterexample?: string };

const compiledCache = new Map<string, CompiledScopeEntry>();

/** Compiles a normalised spelling, reusing earlier compilations (entries repeat across agents and calls). */
export function compiledEntry(spelling: string, ignoreCase: boolean): CompiledScopeEntry {
  const key = `${ignoreCase ? 'i' : 's'}:${spelling}`;
  let compiled = compiledCache.get(key);
  if (compiled === undefined) {
    if (compiledCache.size > 50_000) compiledCache.clear();
    compiled = compileScopeEntry(spelling, { ignoreCase });
    compiledCache.set(key, compiled);
  }
  return compiled;
}

/** How much of its spellings `CompiledEntries` keeps by default: a full ledger (8 MiB) and a dispatch as large. */
const KEPT_CHARACTERS = 16 * 1024 * 1024;

/**
 * Entries compiled for one piece of work that asks about the same entries several times and may hold more of
 * them than the shared cache above keeps (the dispatch guard decides up to four times in one hook, each time
 * on a ledger of up to 240,000 entries, and the shared cache, cleared past 50,000, would compile them all
 * again each time). Never cleared: past its bound (the total length of the alternatives it keeps) it compiles
 * what is new without keeping it, so what it holds is reused to the end.
 */
export class CompiledEntries {
  /** By spelling: compiled as spelled, and with case ignored. */
  private readonly kept = [new Map<string, CompiledScopeEntry>(), new Map<string, CompiledScopeEntry>()] as const;
  private keptCharacters = 0;

  constructor(private readonly maxCharacters = KEPT_CHARACTERS) {}

  /** The compiled form of a normalised spelling, compiled once. */
  of(spelling: string, ignoreCase: boolean): CompiledScopeEntry {
    const kept = this.kept[ignoreCase ? 1 : 0];
    let compiled = kept.get(spelling);
    if (compiled === undefined) {
      compiled = compileScopeEntry(spelling, { ignoreCase });
      const size = compiled.kind === 'plain' ? spelling.length : compiled.expansions.reduce((total, expansion) => total + expansion.length, 0);
      if (this.keptCharacters + size <= this.maxCharacters) {
        kept.set(spelling, compiled);
        this.keptCharacters += size;
      }
    }
    return compiled;
  }
}

/** Whether one literal prefix is a segment-wise prefix of the other: otherwise the entries cannot meet. */
export function prefixesCompatible(left: readonly string[], right: readonly string[]): boolean {
  const shared = Math.min(left.length, right.length);
  for (let index = 0; index < shared; index += 1) if (left[index] !== right[index]) return false;
  return true;
}

/**
 * Whether some path is named by both compiled entries, with a synthesised witness path when so.
 * Exact for every pair of supported entries.
 */
export function intersectCompiled(left: CompiledScopeEntry, right: CompiledScopeEntry, budget: ProofBudget = new ProofBudget()): Intersection {
  budget.chargePairs(left.kind === 'plain' || right.kind === 'plain' ? 1 : left.alternatives.length * right.alternatives.length);
  if (!prefixesCompatible(left.literalPrefix, right.literalPrefix)) return { overlaps: false };
  // A plain entry's spelling is the one path it names (ParsedScopeEntry.kind), so it is its own witness.
  if (left.kind === 'plain') return right.matches(left.spelling) ? { overlaps: true, witness: checkedWitness(left, right, left.spelling) } : { overlaps: false };
  if (right.kind === 'plain') return left.matches(right.spelling) ? { overlaps: true, witness: checkedWitness(left, right, right.spelling) } : { overlaps: false };
  const mayMeet = left.alternatives.some((a) => right.alternatives.some((b) => !surelyDisjoint(a, b)));
  if (!mayMeet) return { overlaps: false };
  const witness = findCommonPath(automatonOf(left), automatonOf(right), left.ignoreCase, budget);
  return witness === undefined ? { overlaps: false } : { overlaps: true, witness: checkedWitness(left, right, witness) };
}

/** The first known file (in code-unit order) both entries name, if there is one. */
export function knownWitness(left: CompiledScopeEntry, right: CompiledScopeEntry, files: FileIndex): string | undefined {
  // Look only beneath the longer literal prefix: every path both entries name lies there.
  const prefix = (left.literalPrefix.length >= right.literalPrefix.length ? left : right).literalPrefix.join('/');
  // The first in code-unit order, so the witness does not depend on the order the files came in.
  let first: string | undefined;
  for (const file of prefix === '' ? files.inAnyOrder() : files.filesUnder(prefix)) {
    if ((first === undefined || file < first) && left.matches(file) && right.matches(file) && isNormalisedPath(file)) first = file;
  }
  return first === undefined ? undefined : checkedWitness(left, right, first);
}

/**
 * Whether some path is named by both entries (raw or normalised spellings). Exact, glob against glob
 * included, and needs no list of files; when `files` is given, the witness is a known file if one exists.
 */
export function intersects(a: string, b: string, options: AlgebraOptions = {}): Intersection {
  const ignoreCase = options.ignoreCase ?? false;
  const left = compiledEntry(normalizeScopeEntry(a, options), ignoreCase);
  const right = compiledEntry(normalizeScopeEntry(b, options), ignoreCase);
  const result = intersectCompiled(left, right);
  if (!result.overlaps || options.files === undefined) return result;
  const files = options.files instanceof FileIndex ? options.files : new FileIndex(options.files, { ignoreCase });
  return { overlaps: true, witness: knownWitness(left, right, files) ?? respelledWitness(left, right, result.witness, files) };
}

/**
 * A synthesised witness in ignore-case mode, spelled as the known files spell it: a known file with the same fold
 * in its own spelling, otherwise the witness with its longest known leading directory respelled. Checked again.
 */
export function respelledWitness(left: CompiledScopeEntry, right: CompiledScopeEntry, witness: string, files: FileIndex): string {
  if (!files.ignoreCase || !left.ignoreCase) return witness;
  return checkedWitness(left, right, files.respell(witness));
}

/**
 * Whether every path `entry` names is named by some entry of `allowed`. Sound: never says covered when a path
 * is not. Exact for plain entries and for globs (the union of `allowed` is decided as a whole); only when the
 * subset construction exceeds its budget does it answer `undecided`, counting the entry as not covered.
 */
export function covers(allowed: readonly string[], entry: string, options: GrammarOptions = {}): Coverage {
  return coverage(allowed, options)(entry);
}

/**
 * `covers` for many entries against one list: `allowed` is normalised and compiled once, and its entries
 * filed by literal prefix, so each question looks up only the entries whose prefix agrees with its own.
 * Asking `covers` for each of n entries of one list against m of another normalises the m entries n times
 * over (a dispatch guard's same-id retry with thousands of entries took seconds that way).
 */
export function coverage(allowed: readonly string[], options: GrammarOptions = {}): (entry: string) => Coverage {
  const ignoreCase = options.ignoreCase ?? false;
  const index = new LiteralPrefixIndex<CompiledScopeEntry>();
  allowed.forEach((spelling) => {
    const compiled = compiledEntry(normalizeScopeEntry(spelling, options), ignoreCase);
    index.add(compiled.literalPrefix, compiled);
  });
  return (entry) => {
    const target = compiledEntry(normalizeScopeEntry(entry, options), ignoreCase);
    const candidates = index.agreeingWith(target.literalPrefix);
    const escaping = (path: string) => checkedCounterexample(target, candidates, path);
    if (target.kind === 'plain') {
      return candidates.some((candidate) => candidate.matches(target.spelling))
        ? { covered: true }
        : { covered: false, undecided: false, counterexample: escaping(target.spelling) };
    }
    const verdict = checkInclusion(
      automatonOf(target),
      candidates.map((candidate) => automatonOf(candidate)),
      ignoreCase,
    );
    if (verdict.included === true) return { covered: true };
    if (verdict.included === false) return { covered: false, undecided: false, counterexample: escaping(verdict.counterexample) };
    return { covered: false, undecided: true };
  };
}
