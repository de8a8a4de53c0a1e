// The proof that a wave is disjoint from every wave another clone still claims, with the same exact engine
// as a local wave (src/planner/scope/collisions.ts). Each agent is compared by its declared entries plus
// the plain test siblings its wave's role grants (`src/a.ts` → `src/a.test.ts`, which the write gate lets
// it write), so two clones are never both allowed one test file next to a source file. Entries and siblings
// are compared in Unicode NFC, as the gates compare them. The glob siblings (`test/**/a.test.ts`) are left
// out of the proof: they name every same-named test anywhere in a tree, so any two waves owning an
// `index.ts` would collide; the local proof leaves all siblings out for the same reason. `verify` does
// count them: it checks what the gate allows.
import { findCollisions } from '../scope/collisions';
import type { ScopeRecord } from '../scope/collisions';
import type { FileIndex } from '../scope/fileIndex';
import { comparablePrefix, LiteralPrefixSet, spelledLiteralPrefix } from '../scope/literalPrefixSet';
import { compiledEntry } from '../scope/scopeAlgebra';
import { foldCase, inNfc, parseScopeEntry } from '../scope/scopeEntry';
import type { CompiledScopeEntry } from '../scope/scopeEntry';
import { DEFAULT_TEST_SIBLING_RULES, expandTestSiblings } from '../scope/testSiblings';
import type { Claim } from './claims';

/** One wave's scopes: its agents' records and the role that selects their test siblings. */
export interface WaveScopes {
  role: string;
  records: readonly ScopeRecord[];
}

/** A wave another clone claims, with its scopes. */
export interface ClaimedWaveScopes extends WaveScopes {
  claim: Claim;
  /** Whether the clone that published the wave folds case (its `published.json` says `ignoreCase`). */
  ignoreCase?: boolean;
}

/** One of our agents and one of theirs that can write the same path. */
export interface ClaimConflict {
  /** Our agent and its entry (normalised; a test sibling when `testSibling`). */
  agent: string;
  entry: string;
  testSibling: boolean;
  /** The other clone's claim, agent and entry. */
  other: {
    clone: string;
    cloneName: string;
    wave: number;
    session: string | null;
    claimedAt: string;
    expiresAt: string;
    agent: string;
    entry: string;
    testSibling: boolean;
  };
  /** `concrete` when either entry is a plain path, `glob` when both are patterns. */
  kind: 'concrete' | 'glob';
  /** A path both entries name: a known file when one is known, otherwise a synthesised one. */
  witness: string;
}

export interface ClaimConflictOptions {
  /**
   * Whether this clone folds case. The proof folds case when this clone or the clone of any claimed wave
   * (ClaimedWaveScopes.ignoreCase) does: on a case-insensitive clone two spellings that differ in case are
   * one file, which its agent and ours could then both write.
   */
  ignoreCase?: boolean;
  /** Known repository files, for real witnesses. */
  knownFiles?: FileIndex | readonly string[];
}

// The characters that make a sibling spelling a pattern (the sibling templates only add `*` and `**`).
const GLOB_CHARACTERS = /[*?[\]{}]/;

/**
 * An agent's effective entries: its declared (normalised) entries first, then their test siblings (only
 * the plain ones unless `globSiblings`). Siblings are spelled from normalised plain paths by the rules'
 * templates, so they are normalised already; nothing here parses an entry (a 64-agent wave has thousands
 * of siblings, and the engine compiles each once anyway).
 */
export function effectiveEntries(
  files: readonly string[],
  role: string,
  options: { globSiblings?: boolean } = {},
): { entries: string[]; siblings: Set<string> } {
  const declared = new Set(files);
  const entries: string[] = [];
  const siblings = new Set<string>();
  for (const entry of expandTestSiblings(files, { role })) {
    if (declared.has(entry)) {
      entries.push(entry);
      continue;
    }
    if (options.globSiblings !== true && GLOB_CHARACTERS.test(entry)) continue;
    entries.push(entry);
    siblings.add(entry);
  }
  return { entries, siblings };
}

/**
 * Leading segments every path a normalised entry names starts with (spelledLiteralPrefix). A spelling with
 * braces is parsed: its alternatives may share more leading segments than its spelling does. The entry is
 * in NFC already (findClaimConflicts takes every entry so before anything is spelled from it, and a test
 * sibling spelled from an NFC entry joins its pieces with ASCII, so it stays NFC).
 */
function spelledPrefix(entry: string, ignoreCase: boolean): string[] {
  if (!entry.includes('{')) return spelledLiteralPrefix(entry, ignoreCase);
  return comparablePrefix(parseScopeEntry(entry, { ignoreCase }).literalPrefix, ignoreCase);
}

/**
 * Whether every plain test sibling the rules can spell for a file lies below the file's directory: each
 * template starts with `{dir}/`, or is a pattern (pattern siblings are left out of the proof).
 */
const SIBLINGS_BELOW_THEIR_FILE = DEFAULT_TEST_SIBLING_RULES.every((rule) =>
  rule.siblings.every((template) => template.startsWith('{dir}/') || GLOB_CHARACTERS.test(template.replace(/\{(?:dir|name|ext)\}/g, ''))),
);

/** A prefix of every path a declared entry names and of every plain test sibling of it: a file's directory. */
function coveringPrefix(entry: string, ignoreCase: boolean): string[] {
  const prefix = spelledPrefix(entry, ignoreCase);
  return !entry.endsWith('/') && prefix.length > 0 && prefix.length === entry.split('/').length ? prefix.slice(0, -1) : prefix;
}

/** Who owns each of one side's entries: entry → (wave index, agent) pairs. */
type Owners = Map<string, Array<{ wave: number; id: string }>>;

function own(owners: Owners, entry: string, wave: number, id: string): void {
  const list = owners.get(entry);
  if (list === undefined) owners.set(entry, [{ wave, id }]);
  else list.push({ wave, id });
}

/**
 * Every pair of (our agent, another clone's agent) whose scopes share a path, with both entries and a
 * witness. Empty means our wave is disjoint from every wave in `claimed`. Pairs inside one wave are not
 * reported (each wave was proven disjoint by its own clone); neither are pairs between two other waves.
 *
 * Declared entries meet in the collision engine. The plain test siblings (thousands in a large wave, all
 * concrete paths) are matched as paths against the other side's compiled entries, each path only against
 * the entries filed under its own directories: the engine's own answer for a plain path against an entry
 * (it matches the path), without compiling every sibling.
 */
export function findClaimConflicts(ours: WaveScopes, claimed: readonly ClaimedWaveScopes[], options: ClaimConflictOptions = {}): ClaimConflict[] {
  if (claimed.length === 0 || ours.records.length === 0) return [];
  // One rule for publish, `plan show` and the planner, which all prove through here.
  const ignoreCase = options.ignoreCase === true || claimed.some((wave) => wave.ignoreCase === true);
  // Wave 0 is ours, wave i is claimed[i - 1]. Ids are made unique per wave (`<wave>:<id>`) for the engine,
  // so no id is "used twice" across waves. Every entry is taken in NFC before anything is spelled from it,
  // filed or matched, as the gates take it: a test sibling spelled from `café.ts` and another clone's
  // `cafe\u0301.test.ts` are one file to both gates, so they must be one here too (the engine alone
  // normalises, and the sibling passes below compare the spellings as they are).
  const waves: WaveScopes[] = [ours, ...claimed].map((wave) => ({
    role: wave.role,
    records: wave.records.map((record) => ({ id: record.id, files: [...new Set(record.files.map(inNfc))] })),
  }));

  // Two entries can only share a path when their literal prefixes agree on every segment both have (the
  // engine's own first test), so an agent none of whose entries agrees so with any entry of the other side
  // can meet nothing there. Such agents are left out before anything is compiled or any test sibling is
  // spelled: in waves that own separate directories, that is every agent. Exact: what is left out could
  // never be a conflict. A declared file stands for its plain siblings by its directory, which starts
  // every one of them (SIBLINGS_BELOW_THEIR_FILE); otherwise the siblings are spelled for this too.
  const prefixSets: [LiteralPrefixSet, LiteralPrefixSet] = [new LiteralPrefixSet(), new LiteralPrefixSet()];
  const prefixes = waves.map((wave, index) =>
    wave.records.map((record) => {
      const covering = SIBLINGS_BELOW_THEIR_FILE
        ? record.files.map((entry) => coveringPrefix(entry, ignoreCase))
        : effectiveEntries(record.files, wave.role).entries.map((entry) => spelledPrefix(entry, ignoreCase));
      for (const prefix of covering) prefixSets[index === 0 ? 0 : 1].add(prefix);
      return covering;
    }),
  );
  const effective = waves.map((wave, index) =>
    wave.records.map((record, position) => {
      const others = prefixSets[index === 0 ? 1 : 0];
      const meets = (prefixes[index]?.[position] ?? []).some((prefix) => others.meets(prefix));
      return meets ? { record, ...effectiveEntries(record.files, wave.role) } : undefined;
    }),
  );

  const declared: Array<{ wave: number; id: string }> = [];
  const records: ScopeRecord[] = [];
  const siblingsOf: [Owners, Owners] = [new Map(), new Map()];
  const declaredOf: [Owners, Owners] = [new Map(), new Map()];
  effective.forEach((agents, index) => {
    const side = index === 0 ? 0 : 1;
    for (const agent of agents) {
      if (agent === undefined) continue;
      const { record, entries, siblings } = agent;
      declared.push({ wave: index, id: record.id });
      records.push({ id: `${index}:${record.id}`, files: [...record.files] });
      for (const entry of entries) own(siblings.has(entry) ? siblingsOf[side] : declaredOf[side], entry, index, record.id);
    }
  });
  const claimOf = (wave: number) => (claimed[wave - 1] as ClaimedWaveScopes).claim;
  const conflicts: ClaimConflict[] = [];
  const push = (mine: { id: string }, mineEntry: string, mineSibling: boolean, theirs: { wave: number; id: string }, theirEntry: string, theirSibling: boolean, kind: 'concrete' | 'glob', witness: string) => {
    const claim = claimOf(theirs.wave);
    conflicts.push({
      agent: mine.id,
      entry: mineEntry,
      testSibling: mineSibling,
      other: {
        clone: claim.clone,
        cloneName: claim.cloneName,
        wave: claim.wave,
        session: claim.session,
        claimedAt: claim.claimedAt,
        expiresAt: claim.expiresAt,
        agent: theirs.id,
        entry: theirEntry,
        testSibling: theirSibling,
      },
      kind,
      witness,
    });
  };

  if (declaredOf[0].size + siblingsOf[0].size === 0 || declaredOf[1].size + siblingsOf[1].size === 0) return [];

  // Declared against declared: the engine.
  const byId = new Map(records.map((record, index) => [record.id, declared[index] as { wave: number; id: string }]));
  for (const collision of findCollisions(records, { ignoreCase, knownFiles: options.knownFiles }).collisions) {
    const left = byId.get(collision.agents[0]);
    const right = byId.get(collision.agents[1]);
    if (left === undefined || right === undefined || (left.wave === 0) === (right.wave === 0)) continue;
    if (left.wave === 0) push(left, collision.entries[0], false, right, collision.entries[1], false, collision.kind, collision.witness);
    else push(right, collision.entries[1], false, left, collision.entries[0], false, collision.kind, collision.witness);
  }

  // One side's plain siblings against the other side's declared entries (each sibling is its own witness).
  // The entries are filed by their literal directory prefix (compiled once, shared with the engine's
  // cache), and each sibling path is tested only against the entries filed under one of its ancestors.
  const siblingsAgainst = (siblingSide: 0 | 1) => {
    const siblings = siblingsOf[siblingSide];
    const entries = declaredOf[siblingSide === 0 ? 1 : 0];
    if (siblings.size === 0 || entries.size === 0) return;
    const byPrefix = new Map<string, CompiledScopeEntry[]>();
    for (const spelling of entries.keys()) {
      const compiled = compiledEntry(spelling, ignoreCase);
      const key = compiled.literalPrefix.join('/');
      byPrefix.set(key, [...(byPrefix.get(key) ?? []), compiled]);
    }
    for (const [path, owners] of siblings) {
      const key = ignoreCase ? foldCase(path) : path;
      const segments = key.split('/');
      for (let depth = 0; depth <= segments.length; depth += 1) {
        for (const entry of byPrefix.get(segments.slice(0, depth).join('/')) ?? []) {
          if (!entry.matches(path)) continue;
          for (const sibling of owners) {
            for (const holder of entries.get(entry.spelling) ?? []) {
              if (siblingSide === 0) push(sibling, path, true, holder, entry.spelling, false, 'concrete', path);
              else push(holder, entry.spelling, false, sibling, path, true, 'concrete', path);
            }
          }
        }
      }
    }
  };
  siblingsAgainst(0);
  siblingsAgainst(1);
  // Plain sibling against plain sibling: the same path.
  const fold = (path: string) => (ignoreCase ? foldCase(path) : path);
  const theirSiblings = new Map<string, string>([...siblingsOf[1].keys()].map((path) => [fold(path), path]));
  for (const [path, mine] of siblingsOf[0]) {
    const theirPath = theirSiblings.get(fold(path));
    if (theirPath === undefined) continue;
    for (const sibling of mine) for (const holder of siblingsOf[1].get(theirPath) ?? []) push(sibling, path, true, holder, theirPath, true, 'concrete', path);
  }
  return conflicts;
}
