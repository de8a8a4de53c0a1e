// Verifying a revision range against an agent's published scope: the backstop for work done on any
// machine. Every path the range changes must lie in the agent's scope (its entries plus the test
// siblings its wave's role grants where no other agent of the wave claims them, exactly what the write
// gate lets it write): added, modified and deleted paths, both sides of a rename, the destination of a
// copy, a type change, and a submodule added, removed or moved to another commit. git's `diff --raw -z`
// output is parsed here; running git is the caller's business.
import { isNormalisedPath } from '../scope/scopeAlgebra';
import { compileScopeEntry } from '../scope/scopeEntry';
import type { CompiledScopeEntry } from '../scope/scopeEntry';
import type { WaveRival } from '../scope/testSiblings';
import { effectiveEntries } from './claimConflicts';
import { isClaimLive } from './claims';
import type { Claim } from './claims';
import { publishedWaveDir, waveOfPlanPath } from './planRef';
import type { DecodedPlan } from './planRef';

/** The kind of change a path underwent in the range. */
export type ChangeKind =
  | 'added'
  | 'modified'
  | 'deleted'
  | 'renamed-from'
  | 'renamed-to'
  | 'copied-to'
  | 'type-changed'
  | 'submodule-added'
  | 'submodule-removed'
  | 'submodule-bumped';

/** One changed path of the range. */
export interface RangeChange {
  /** The path; when it is not valid UTF-8, as git quotes it (`"src/b\\377/x"`), with `undecodable` set. */
  path: string;
  kind: ChangeKind;
  /** For `renamed-to` and `copied-to`: where it came from; for `renamed-from`: where it went. */
  counterpart?: string;
  /** The path's bytes are not UTF-8: no scope entry can name it, so it is outside every scope. */
  undecodable?: true;
  /** In a verdict's `outside` only: a test sibling of the agent's that this other agent of the wave claims too. */
  contestedBy?: string;
  /**
   * In a verdict's `outside` only: a test sibling of the agent's that another clone's live claim holds (its
   * agent `agent`; null when that claim's wave cannot be read, so nothing can be proven against it).
   */
  claimedBy?: { clone: string; cloneName: string; wave: number; agent: string | null };
  /**
   * Changed only by a merge of head into base, at a path no change of the range names: base renamed files
   * since the fork, and the merge carries head's change along the rename (mergeOnlyChanges).
   */
  viaMerge?: true;
}

const GITLINK = '160000';

function classify(status: string, oldMode: string, newMode: string): ChangeKind | undefined {
  switch (status) {
    case 'A':
      return newMode === GITLINK ? 'submodule-added' : 'added';
    case 'D':
      return oldMode === GITLINK ? 'submodule-removed' : 'deleted';
    case 'M':
      return oldMode === GITLINK && newMode === GITLINK ? 'submodule-bumped' : 'modified';
    case 'T':
      return 'type-changed';
    default:
      return undefined;
  }
}

/** git's raw diff could not be read (an unknown status letter, a truncated record). */
export class RawDiffError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RawDiffError';
  }
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
// For a record's header, which is ASCII when git wrote it (anything else fails its pattern anyway).
const lenientUtf8 = new TextDecoder('utf-8');
const ESCAPES: Record<number, string> = { 7: '\\a', 8: '\\b', 9: '\\t', 10: '\\n', 11: '\\v', 12: '\\f', 13: '\\r', 34: '\\"', 92: '\\\\' };

/** `bytes` quoted as git quotes a path it will not print as is (core.quotePath): octal for every byte outside printable ASCII. */
export function quotePathLikeGit(bytes: Uint8Array): string {
  let quoted = '"';
  for (const byte of bytes) {
    const escape = ESCAPES[byte];
    if (escape !== undefined) quoted += escape;
    else if (byte < 0x20 || byte >= 0x7f) quoted += `\\${byte.toString(8).padStart(3, '0')}`;
    else quoted += String.fromCharCode(byte);
  }
  return `${quoted}"`;
}

/** A path of the diff: its text, or git's quoting of its bytes when they are not UTF-8. */
function decodePath(bytes: Uint8Array): { path: string; undecodable?: true } {
  try {
    return { path: strictUtf8.decode(bytes) };
  } catch {
    return { path: quotePathLikeGit(bytes), undecodable: true };
  }
}

/** The NUL-separated fields of `bytes` (the last one empty when the output ends with NUL, as git's does). */
function splitFields(bytes: Uint8Array): Uint8Array[] {
  const fields: Uint8Array[] = [];
  let start = 0;
  for (let index = bytes.indexOf(0); index !== -1; index = bytes.indexOf(0, start)) {
    fields.push(bytes.subarray(start, index));
    start = index + 1;
  }
  fields.push(bytes.subarray(start));
  return fields;
}

/**
 * Parses `git diff --raw -z` output (`:<old mode> <new mode> <old id> <new id> <status>\0<path>\0`, and for
 * a rename or copy `\0<from>\0<to>\0`) into changes. A rename yields two changes, one per side. Paths are
 * git's bytes (a string is taken as its UTF-8); one that is not UTF-8 is kept, quoted, and marked. An
 * unmerged or unknown record throws RawDiffError: a verifier that skipped what it cannot read would pass it.
 */
export function parseRawDiff(output: Uint8Array | string): RangeChange[] {
  // The common case, every path UTF-8, is decoded at once and split as text (a NUL never sits inside a
  // UTF-8 sequence, so both splits agree); only output that is not UTF-8 is taken apart field by field.
  let text: string | undefined;
  if (typeof output === 'string') text = output;
  else {
    try {
      text = strictUtf8.decode(output);
    } catch {
      text = undefined;
    }
  }
  const fields: Array<Uint8Array | string> = text !== undefined ? text.split('\0') : splitFields(output as Uint8Array);
  const asText = (field: Uint8Array | string) => (typeof field === 'string' ? field : lenientUtf8.decode(field));
  const decoded = (field: Uint8Array | string): { path: string; undecodable?: true } => (typeof field === 'string' ? { path: field } : decodePath(field));
  // A verified range has thousands of records: each change is one object, built without spreading.
  const change = (field: Uint8Array | string, kind: ChangeKind, counterpart?: string): RangeChange => {
    const { path, undecodable } = decoded(field);
    const made: RangeChange = counterpart === undefined ? { path, kind } : { path, kind, counterpart };
    if (undecodable === true) made.undecodable = true;
    return made;
  };
  const changes: RangeChange[] = [];
  let index = 0;
  while (index < fields.length) {
    const header = asText(fields[index] as Uint8Array | string);
    index += 1;
    if (header === '' && index >= fields.length) break;
    const match = RAW_HEADER.exec(header.charCodeAt(0) === 10 ? header.slice(1) : header);
    if (match === null) throw new RawDiffError(`cannot read the diff record ${JSON.stringify(header.slice(0, 80))}`);
    const [, oldMode, newMode, status] = match as unknown as [string, string, string, string];
    const firstField = fields[index];
    if (firstField === undefined || firstField.length === 0) throw new RawDiffError(`the diff record ${JSON.stringify(header)} names no path`);
    index += 1;
    if (status === 'R' || status === 'C') {
      const secondField = fields[index];
      if (secondField === undefined || secondField.length === 0) {
        throw new RawDiffError(`the ${status === 'R' ? 'rename' : 'copy'} record of ${JSON.stringify(decoded(firstField).path)} names no destination`);
      }
      index += 1;
      const first = change(firstField, 'renamed-from');
      const second = change(secondField, status === 'R' ? 'renamed-to' : 'copied-to', first.path);
      if (status === 'R') {
        first.counterpart = second.path;
        changes.push(first);
      }
      changes.push(second);
      continue;
    }
    const kind = classify(status, oldMode, newMode);
    if (kind === undefined) throw new RawDiffError(`the diff reports status ${status} for ${JSON.stringify(decoded(firstField).path)}, which a verification cannot judge`);
    changes.push(change(firstField, kind));
  }
  return changes;
}

const RAW_HEADER = /^:([0-7]{6}) ([0-7]{6}) [0-9a-f]+ [0-9a-f]+ ([A-Z])([0-9]*)$/;

/** The paths of `git diff --name-only -z` output, decoded as parseRawDiff decodes paths. */
export function parseNameList(output: Uint8Array): string[] {
  return splitFields(output)
    .filter((field) => field.length > 0)
    .map((field) => decodePath(field).path);
}

/**
 * The changes of several diffs of one head (against each of its merge bases), each change once, in the
 * order first seen; with `tipPaths` (the paths base and head disagree on), only the changes at those
 * paths: where the two tips agree, the merge keeps what base has, whatever either merge base held.
 */
export function mergeRangeChanges(diffs: readonly (readonly RangeChange[])[], tipPaths?: ReadonlySet<string>): RangeChange[] {
  // One diff lists each change once already (the usual case: one merge base).
  if (diffs.length === 1 && tipPaths === undefined) return [...(diffs[0] as readonly RangeChange[])];
  const seen = new Set<string>();
  const merged: RangeChange[] = [];
  for (const changes of diffs) {
    for (const change of changes) {
      const key = JSON.stringify([change.kind, change.path, change.counterpart ?? null]);
      if (seen.has(key) || (tipPaths !== undefined && !tipPaths.has(change.path))) continue;
      seen.add(key);
      merged.push(change);
    }
  }
  return merged;
}

/**
 * The changes of a merge of head into base (its tree diffed against base) at paths no change of the range
 * names, as its side or its counterpart, marked `viaMerge`. Every other change of the merge is one of the
 * range's, judged already: head's own changes, and conflicted files, which head changed too.
 */
export function mergeOnlyChanges(rangeChanges: readonly RangeChange[], mergeChanges: readonly RangeChange[]): RangeChange[] {
  const named = new Set<string>();
  for (const change of rangeChanges) {
    named.add(change.path);
    if (change.counterpart !== undefined) named.add(change.counterpart);
  }
  return mergeChanges.filter((change) => !named.has(change.path)).map((change) => ({ ...change, viaMerge: true as const }));
}

/** The scope a branch is verified against: the agent's published entries, its wave's role, and the wave's other agents. */
export interface VerifyScope {
  entries: readonly string[];
  role: string;
  /** The wave's other agents with their published entries: a test sibling they claim is not the agent's. */
  rivals: readonly WaveRival[];
  /**
   * Other clones' live claims, asked for only when a change lies in a test sibling alone that no agent of
   * the wave claims: a sibling one of them holds is not the agent's either.
   */
  foreignClaims?: () => readonly ForeignClaim[];
}

/**
 * Another clone's live claim, as a test sibling is weighed against it: by its agents' declared entries and
 * plain test siblings, what publish proves two clones' waves disjoint by (docs/sync.md). Its glob siblings
 * are left out for the reason publish leaves them out: any two waves owning an `index.ts` would contest
 * every `index.test.ts`.
 */
export interface ForeignClaim {
  clone: string;
  cloneName: string;
  wave: number;
  /** The claimed wave's role, case rule and agents; absent when the wave cannot be read (it then holds every sibling). */
  declared?: { role: string; ignoreCase: boolean; agents: readonly WaveRival[] };
}

export interface RangeVerification {
  ok: boolean;
  /** How many changes were checked (a rename counts twice). */
  checked: number;
  /** The changes outside the scope, in diff order. */
  outside: RangeChange[];
  /** The entries checked against (declared plus test siblings). */
  effective: string[];
}

/**
 * Checks every change against the scope. A path and the entries are compared in Unicode NFC, as the write
 * gate compares them; an entry the grammar refuses grants nothing, and a path that is not UTF-8, or not in
 * normal form (an empty, `.` or `..` segment: a tree git itself refuses to check out, which only plumbing
 * can make), lies in no scope. An empty scope grants nothing (every change is outside). `ignoreCase` is the
 * case rule the scope was proven under: folding only ever lets more paths in.
 */
export function verifyChanges(changes: readonly RangeChange[], scope: VerifyScope, options: { ignoreCase?: boolean } = {}): RangeVerification {
  const { entries: effective, siblings } = effectiveEntries(scope.entries, scope.role, { globSiblings: true });
  const compile = (entries: readonly string[], ignoreCase = options.ignoreCase) => {
    const compiled: CompiledScopeEntry[] = [];
    for (const entry of entries) {
      try {
        compiled.push(compileScopeEntry(entry.normalize('NFC'), { ignoreCase }));
      } catch {
        // Refused by the grammar: grants nothing.
      }
    }
    return (path: string) => compiled.some((entry) => entry.matches(path));
  };
  const declared = compile(effective.filter((entry) => !siblings.has(entry)));
  const sibling = compile([...siblings]);
  // Compiled only when a change lies in a sibling alone: most ranges never need the rivals' thousands of entries.
  let rivals: Array<{ agent: string; claims: (path: string) => boolean }> | undefined;
  const claimingRival = (path: string) => {
    rivals ??= scope.rivals.map((rival) => ({ agent: rival.agent, claims: compile(effectiveEntries(rival.entries, scope.role, { globSiblings: true }).entries) }));
    return rivals.find((candidate) => candidate.claims(path))?.agent;
  };
  // Likewise other clones' claims, read only then. Case is folded where either side's wave was proven folded.
  type Holder = { claim: ForeignClaim; agent: string | null; holds: (path: string) => boolean };
  let holders: Holder[] | undefined;
  const claimingClone = (path: string): RangeChange['claimedBy'] => {
    holders ??= (scope.foreignClaims?.() ?? []).flatMap((claim): Holder[] => {
      const declared = claim.declared;
      if (declared === undefined) return [{ claim, agent: null, holds: () => true }];
      const ignoreCase = options.ignoreCase === true || declared.ignoreCase;
      return declared.agents.map((agent) => ({ claim, agent: agent.agent, holds: compile(effectiveEntries(agent.entries, declared.role).entries, ignoreCase) }));
    });
    const holder = holders.find((candidate) => candidate.holds(path));
    return holder === undefined ? undefined : { clone: holder.claim.clone, cloneName: holder.claim.cloneName, wave: holder.claim.wave, agent: holder.agent };
  };
  const outside: RangeChange[] = [];
  for (const change of changes) {
    // A path git itself would refuse to check out (only plumbing makes one) lies in no scope.
    if (change.undecodable === true || !isNormalisedPath(change.path)) {
      outside.push(change);
      continue;
    }
    const spelled = change.path.normalize('NFC');
    if (declared(spelled)) continue;
    if (!sibling(spelled)) {
      outside.push(change);
      continue;
    }
    const rival = claimingRival(spelled);
    if (rival !== undefined) {
      outside.push({ ...change, contestedBy: rival });
      continue;
    }
    const claimedBy = claimingClone(spelled);
    if (claimedBy !== undefined) outside.push({ ...change, claimedBy });
  }
  return { ok: outside.length === 0, checked: changes.length, outside, effective };
}

/** The published scope of one agent, found on the plan ref. */
export type PublishedScopeLookup =
  | {
      ok: true;
      clone: string;
      cloneName: string;
      wave: number;
      agent: string;
      role: string;
      entries: string[];
      /** The wave's other agents and their entries (VerifyScope.rivals). */
      rivals: WaveRival[];
      /** The case rule the wave was proven under when it was published (published.json's `ignoreCase`). */
      ignoreCase: boolean;
    }
  /** No published wave `wave` declares the agent (of `clone`, when given). */
  | { ok: false; reason: 'none'; wavesWithNumber: string[] }
  /** Several clones published a wave `wave` that declares the agent: name the clone. */
  | { ok: false; reason: 'ambiguous'; clones: string[] }
  /** The wave is published but cannot be read: nothing can be verified against it. */
  | { ok: false; reason: 'unusable'; clone: string; problems: string[] };

/**
 * Finds agent `agent` of wave `wave` on the plan ref (of `clone` when given; otherwise the one clone whose
 * wave `wave` declares that agent). Agent ids compare exactly, as the per-agent file names do.
 */
export function findPublishedScope(plan: DecodedPlan, query: { wave: number; agent: string; clone?: string }): PublishedScopeLookup {
  const numbered = plan.waves.filter((wave) => wave.wave === query.wave && (query.clone === undefined || wave.clone === query.clone));
  const unusable = numbered.filter((wave) => wave.records === undefined || wave.manifest === undefined);
  // A wave that cannot be read might be the one that declares the agent (or a second one): fail closed.
  const broken = unusable[0];
  if (broken !== undefined) return { ok: false, reason: 'unusable', clone: broken.clone, problems: broken.problems };
  const declaring = numbered.filter((wave) => wave.records?.some((record) => record.id === query.agent) === true);
  if (declaring.length > 1) return { ok: false, reason: 'ambiguous', clones: declaring.map((wave) => wave.clone) };
  const found = declaring[0];
  if (found === undefined) return { ok: false, reason: 'none', wavesWithNumber: numbered.map((wave) => wave.clone) };
  const record = found.records?.find((candidate) => candidate.id === query.agent);
  return {
    ok: true,
    clone: found.clone,
    cloneName: found.info?.cloneName ?? found.clone,
    wave: found.wave,
    agent: query.agent,
    role: found.manifest?.role ?? '',
    entries: [...(record?.files ?? [])],
    rivals: (found.records ?? []).filter((other) => other.id !== query.agent).map((other) => ({ agent: other.id, entries: [...other.files] })),
    ignoreCase: found.info?.ignoreCase === true,
  };
}

/**
 * The live claims (at `now`) of clones other than `ownClone`, each with its wave as decoded in `plan` (a wave
 * missing from it, or one that cannot be read, leaves the claim without `declared`: it then holds every
 * sibling). `plan` must have been read with those waves wanted (claimedWavePaths).
 */
export function foreignClaimsOf(plan: DecodedPlan, ownClone: string, now: number): ForeignClaim[] {
  return plan.claims
    .filter((claim) => claim.clone !== ownClone && isClaimLive(claim, now))
    .map((claim) => {
      const wave = plan.waves.find((candidate) => candidate.clone === claim.clone && candidate.wave === claim.wave);
      const base = { clone: claim.clone, cloneName: claim.cloneName, wave: claim.wave };
      if (wave?.records === undefined || wave.manifest === undefined) return base;
      const agents = wave.records.map((record) => ({ agent: record.id, entries: [...record.files] }));
      return { ...base, declared: { role: wave.manifest.role, ignoreCase: wave.info?.ignoreCase === true, agents } };
    });
}

/** Whether a plan-tree path belongs to a wave some live claim of another clone than `ownClone` claims (for readFiles). */
export function claimedWavePaths(claims: readonly Claim[], ownClone: string, now: number): (path: string) => boolean {
  const claimed = new Set(claims.filter((claim) => claim.clone !== ownClone && isClaimLive(claim, now)).map((claim) => publishedWaveDir(claim.clone, claim.wave)));
  return (path) => {
    const wave = waveOfPlanPath(path);
    return wave === undefined || claimed.has(publishedWaveDir(wave.clone, wave.wave));
  };
}
