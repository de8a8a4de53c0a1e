// The differential property test of issue 9: random entries (braces with `/`, `..` and `.` inside and after
// groups, empty and comma-less braces, ranges, unclosed brackets and braces), read by the engine and by minimatch
// under the documented normalisation (test/support/globOracle.ts), in both case modes. For every entry the two
// readers must agree on acceptance and on every path of a bounded universe; for every pair of entries the engine's
// verdict must agree with a brute force over that universe, and every witness must be a normalised path both
// entries name.
//
// A pool of entries is drawn with fast-check from one seed, and every pair of the pool is checked (bitsets over the
// universe make the brute force cheap). The seed is random unless SCOPE_PROPERTY_SEED is set; every failure
// message starts with it, so a failure is replayed with `SCOPE_PROPERTY_SEED=<seed> npx mocha …`.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { intersects } from '../../../src/planner/scope/scopeAlgebra';
import { compileScopeEntry, normalizeScopeEntry, ScopeEntryError } from '../../../src/planner/scope/scopeEntry';
import { entryArbitrary, enumeratePaths, isNormalisedPath, oracleAlternativeMatcher, oracleRead, samplePaths } from '../../support/globOracle';

const seed = process.env.SCOPE_PROPERTY_SEED === undefined ? Math.floor(Math.random() * 0x7fffffff) : Number(process.env.SCOPE_PROPERTY_SEED);
/** Accepted entries per case mode: every pair of them is checked, so 150 gives 11,325 pairs per mode. */
const POOL = Number(process.env.SCOPE_PROPERTY_POOL ?? 150);
/** Entries drawn per mode; the ones both readers reject only count towards the rejection checks. */
const DRAWN = POOL * 3;

/** A bitset over the universe. */
class PathSet {
  readonly words: Uint32Array;
  constructor(size: number) {
    this.words = new Uint32Array(Math.ceil(size / 32));
  }
  add(index: number): void {
    (this.words[index >>> 5] as number) |= 1 << (index & 31);
  }
  firstShared(other: PathSet): number {
    for (let word = 0; word < this.words.length; word += 1) {
      const both = (this.words[word] as number) & (other.words[word] as number);
      if (both !== 0) return word * 32 + (31 - Math.clz32(both & -both));
    }
    return -1;
  }
  equals(other: PathSet): boolean {
    return this.words.every((word, index) => word === other.words[index]);
  }
}

/** The text of a spelling before its first glob character, up to its last `/`, when it is an ordinary directory path. */
function textualPrefix(spelling: string): string {
  const glob = spelling.search(/[*?[{]/);
  if (glob === -1) return '';
  const prefix = spelling.slice(0, spelling.lastIndexOf('/', glob) + 1);
  return prefix !== '' && /^[\p{L}\p{N}\p{M}._\- /]+$/u.test(prefix) && isNormalisedPath(prefix.slice(0, -1)) ? prefix : '';
}

interface PoolEntry {
  readonly raw: string;
  readonly spelling: string;
  readonly matches: (path: string) => boolean;
  readonly named: PathSet;
}

const replay = `seed ${seed} (replay with SCOPE_PROPERTY_SEED=${seed})`;

function fail(message: string): never {
  assert.fail(`${replay}: ${message}`);
}

/** Runs `check`, so that anything it throws (an engine bug included) names the seed. */
function seeded(check: () => void): void {
  try {
    check();
  } catch (error) {
    if (error instanceof Error && !error.message.startsWith(replay)) error.message = `${replay}: ${error.message}`;
    throw error;
  }
}

for (const ignoreCase of [false, true]) {
  describe(`scope engine against minimatch, every pair of ${POOL} random entries${ignoreCase ? ' (ignore case)' : ''}`, function () {
    this.timeout(600_000);
    const mode = { ignoreCase };
    const raws = fc.sample(entryArbitrary(ignoreCase), { seed: seed + (ignoreCase ? 1 : 0), numRuns: DRAWN });
    const pool: PoolEntry[] = [];
    let universe: string[] = [];

    before(() => seeded(() => {
      const readings = raws.map((raw) => ({ raw, reading: oracleRead(raw, ignoreCase) }));
      const base = enumeratePaths(ignoreCase ? ['a', 'A', 'b', '.'] : ['a', 'b', '.'], 2, 3);
      const samples = readings.flatMap(({ reading }) => (reading.ok ? samplePaths(reading, ignoreCase) : []));
      universe = [...new Set([...base, ...samples])];
      for (const { raw, reading } of readings) {
        if (pool.length === POOL) break;
        let spelling: string | undefined;
        try {
          spelling = normalizeScopeEntry(raw, mode);
        } catch (error) {
          if (!(error instanceof ScopeEntryError)) throw error;
          if (reading.ok) fail(`the engine rejects ${JSON.stringify(raw)} (${error.reason}: ${error.message}), minimatch reads it as ${reading.patterns.join(' | ')}`);
          if (error.reason !== reading.reason) fail(`${JSON.stringify(raw)} is rejected as ${error.reason} by the engine, as ${reading.reason} by the oracle`);
          continue;
        }
        if (!reading.ok) fail(`the engine accepts ${JSON.stringify(raw)} as ${JSON.stringify(spelling)}, the oracle rejects it (${reading.reason})`);
        if (normalizeScopeEntry(spelling, mode) !== spelling) fail(`normalising ${JSON.stringify(raw)} is not idempotent: ${spelling} → ${normalizeScopeEntry(spelling, mode)}`);
        const named = new PathSet(universe.length);
        const compiled = compileScopeEntry(spelling, mode);
        const ofSpelling = oracleRead(spelling, ignoreCase);
        if (!ofSpelling.ok) fail(`the oracle rejects the spelling ${JSON.stringify(spelling)} of ${JSON.stringify(raw)}`);
        universe.forEach((path, index) => {
          const expected = reading.matches(path);
          if (compiled.matches(path) !== expected) fail(`${JSON.stringify(raw)} (spelled ${spelling}) on ${path}: engine ${!expected}, minimatch ${expected}`);
          if (ofSpelling.matches(path) !== expected) fail(`the spelling ${JSON.stringify(spelling)} of ${JSON.stringify(raw)} changes what it names: ${path}`);
          if (expected) named.add(index);
        });
        // The write gate prefilters grants by the text before their first glob character (compileGrants): when
        // that text is an ordinary directory path, every path the entry names must start with it.
        const prefix = textualPrefix(spelling);
        if (prefix !== '') {
          universe.forEach((path, index) => {
            if ((named.words[index >>> 5] as number) & (1 << (index & 31)) && !(ignoreCase ? path.toLowerCase().startsWith(prefix.toLowerCase()) : path.startsWith(prefix))) {
              fail(`${JSON.stringify(raw)} is stored as ${spelling}, whose literal start ${prefix} is not the start of ${path}, a path it names`);
            }
          });
        }
        if (compiled.kind === 'plain') {
          if (!isNormalisedPath(spelling) || !reading.matches(spelling)) fail(`${JSON.stringify(raw)} is plain, but its spelling ${spelling} is not a path it names`);
          universe.forEach((path, index) => {
            if (path !== spelling && (named.words[index >>> 5] as number) & (1 << (index & 31)) && !(ignoreCase && path.toLowerCase() === spelling.toLowerCase())) {
              fail(`${JSON.stringify(raw)} is plain (${spelling}) but also names ${path}`);
            }
          });
        }
        pool.push({ raw, spelling, matches: reading.matches, named });
      }
    }));

    it('every entry reads as minimatch reads it, and its spelling names the same paths', () => {
      // The checks run while the pool is built; this says how much was checked, and that the pool is not trivial.
      assert.equal(pool.length, POOL, `${replay}: only ${pool.length} of ${DRAWN} entries drawn are accepted`);
      assert.ok(universe.length > 1000);
    });

    it('every pair: the verdict agrees with the brute force, and every witness is a normalised path both name', () => seeded(() => {
      let pairs = 0;
      let overlapping = 0;
      for (let i = 0; i < pool.length; i += 1) {
        const left = pool[i] as PoolEntry;
        for (let j = i; j < pool.length; j += 1) {
          const right = pool[j] as PoolEntry;
          pairs += 1;
          let result: ReturnType<typeof intersects>;
          try {
            result = intersects(left.raw, right.raw, mode);
          } catch (error) {
            fail(`${JSON.stringify(left.raw)} ∩ ${JSON.stringify(right.raw)} threw: ${(error as Error).message}`);
          }
          const shared = left.named.firstShared(right.named);
          if (result.overlaps) {
            overlapping += 1;
            const { witness } = result;
            if (!isNormalisedPath(witness)) fail(`witness ${JSON.stringify(witness)} of ${JSON.stringify(left.raw)} ∩ ${JSON.stringify(right.raw)} is not a normalised path`);
            if (!left.matches(witness) || !right.matches(witness)) {
              fail(`witness ${JSON.stringify(witness)} of ${JSON.stringify(left.raw)} ∩ ${JSON.stringify(right.raw)} is not named by both (minimatch: ${left.matches(witness)}, ${right.matches(witness)})`);
            }
          } else if (shared !== -1) {
            fail(`${JSON.stringify(left.raw)} and ${JSON.stringify(right.raw)} both name ${universe[shared]}, yet intersects says they do not meet`);
          }
        }
      }
      assert.equal(pairs, (POOL * (POOL + 1)) / 2);
      assert.ok(overlapping > pairs / 20 && overlapping < pairs, `${overlapping} of ${pairs} pairs overlap, the pool is degenerate`);
    }));
  });
}

describe('the oracle itself (test/support/globOracle.ts)', () => {
  it('reads a path spelt like one of its refusals as that path, and still refuses what it refuses', () => {
    for (const name of ['empty', 'names-root', 'escapes-root', 'absolute-outside-root']) {
      const reading = oracleRead(name);
      assert.ok(reading.ok, `${name}: ${reading.ok ? '' : reading.reason}`);
      assert.deepEqual(reading.patterns, [name]);
      assert.equal(reading.matches(name), true);
      assert.equal(oracleAlternativeMatcher(`${name}/`)(`${name}/x.ts`), true);
    }
    const refusals = ['', '.', 'a/..', '../a', '/a'].map((entry) => {
      const reading = oracleRead(entry);
      return reading.ok ? reading.patterns : reading.reason;
    });
    assert.deepEqual(refusals, ['empty', 'names-root', 'names-root', 'escapes-root', 'absolute-outside-root']);
  });
});
