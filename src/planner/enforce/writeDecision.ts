// The write gate's decision, as a pure function of what the hook has already read: the resolved
// targets, the manifest's state, the writer's own scope. No I/O here, so every branch is tested
// in-process and the fuzz test can run it a hundred thousand times.
//
// Posture: fail closed. Only three things allow a write: no wave is active (no manifest), the
// manifest provably belongs to another session, or every destination of every target is covered.
// Everything the gate cannot prove is a deny, including a manifest it cannot read.
//
// One decision is taken per manifest that governs the write (writeGate.ts finds them and keeps the
// strictest answer), against that manifest's write root.
import { CONTROL_STATE, NESTED_CONTROL_STATE, controlStateOf } from '../plan/controlState';
import { compileScopeEntry, foldCase, normalizeScopeEntry } from '../scope/scopeEntry';
import type { TestSiblingOptions, WaveRival } from '../scope/testSiblings';
import type { ResolvedWriteTarget, WriteTargetProblem } from './writeTarget';
import { isWithin } from './writeTarget';

/** The part of a wave manifest the write gate reads (a structural subset of `WaveManifest`). */
export interface EnforcedManifest {
  readonly wave: number;
  readonly role: string;
  readonly enforcement: 'strict' | 'warn' | 'off';
  readonly allowedPaths: readonly string[];
  /** The wave was proven disjoint with case folded (WaveManifest.ignoreCase). */
  readonly ignoreCase?: boolean;
}

/** What the hook found where the manifest should be. */
export type ManifestState =
  | { readonly kind: 'missing' }
  | {
      /** Present but unusable: unreadable, not JSON, or schema-invalid. `problems` say what is wrong. */
      readonly kind: 'invalid';
      readonly path: string;
      readonly problems: readonly string[];
    }
  | {
      readonly kind: 'loaded';
      readonly path: string;
      readonly manifest: EnforcedManifest;
      /** The session binding's verdict (`classifyManifestSession`). */
      readonly session: 'own' | 'foreign' | 'unknown';
    };

/**
 * Whether the wave's manifest says it was proven disjoint with case folded (WaveManifest.ignoreCase). What
 * lets a write or a commit in folds case only then: git's config, which a shell can turn, never widens a
 * wave proven with case compared.
 */
export function provenIgnoringCase(manifest: ManifestState): boolean {
  return manifest.kind === 'loaded' && manifest.manifest.ignoreCase === true;
}

/** The writing agent's own declaration, when the writer is known (`WAVE_SCOPE_AGENT`, a bound subagent). */
export type AgentScopeState =
  | {
      readonly kind: 'loaded';
      readonly agent: string;
      readonly path: string;
      readonly entries: readonly string[];
      /**
       * `dispatch`: a subagent's claim from the dispatch ledger, not a declaration: it only narrows, so
       * even an absolute entry counts only where `allowedPaths` covers it too (it never does).
       */
      readonly origin?: 'declaration' | 'dispatch';
      /**
       * The wave's other agents and what they declare (its aggregate's other records): a test sibling of
       * this agent's is granted only where none of them claims the path, by declaring it or as a sibling of
       * its own (src/planner/scope/testSiblings.ts). For a dispatch claim: the wave's declared agents and
       * the session's other dispatches of the wave, but those the claim overlaps.
       */
      readonly rivals?: readonly WaveRival[];
    }
  | { readonly kind: 'unusable'; readonly agent: string; readonly path: string; readonly problem: string };

export interface WriteDecisionInput {
  /**
   * Every destination of every target, located against `writeRoot` (writeTarget.ts's
   * locateDestinations): each must be allowed. Those with `role: 'spelled'` are judged for control
   * state only.
   */
  readonly targets: readonly ResolvedWriteTarget[];
  readonly manifest: ManifestState;
  /** Set when the writer is known (`WAVE_SCOPE_AGENT`, a bound subagent): the target must lie in its own scope. */
  readonly agentScope?: AgentScopeState;
  /** True when the caller is a dispatched agent (payload `agent_id`, `WAVE_SCOPE_AGENT`, or an isolated worktree). */
  readonly dispatchedAgent: boolean;
  /**
   * Canonical absolute paths of control state beyond the catalogue's repository-relative entries
   * (which every target inside the write root is checked against, at the root and at any depth): git
   * directories, hooks directories, included git config files, and where each catalogue path of the
   * roots really leads when a link is on its way. A dispatched agent may never write them.
   */
  readonly controlPaths: readonly string[];
  /**
   * Canonical absolute paths the coordinator (a caller that is not a dispatched agent) may write
   * whatever the scope says: the wave's own declarations (manifest, `filescopes/`). They are never
   * part of `allowedPaths`, yet the coordinator must be able to plan the next wave.
   */
  readonly coordinatorPaths?: readonly string[];
  /** Canonical absolute top level of the checkout relative entries apply to. */
  readonly writeRoot: string;
  /**
   * Fold case where folding lets a write in: the grants (the agent's, the wave's backing), the
   * coordinator's own paths. Only where git surely folds (gitConfig.ts, GitConfigScan.ignoreCase).
   */
  readonly ignoreCase?: boolean;
  /**
   * Fold case where folding only refuses: the control-state check, another agent's claim on a test
   * sibling. Wherever git may fold (GitConfigScan.mayIgnoreCase); absent, `ignoreCase`.
   */
  readonly mayIgnoreCase?: boolean;
  /**
   * Entries plus the test siblings they imply (the wave's role decides which); applied to the agent's own
   * scope and to each rival's. With `namedLike`, only the entries that may have a sibling of that last
   * segment are expanded (TestSiblingOptions.namedLike). Absent: no siblings.
   */
  readonly expandEntries?: (entries: readonly string[], namedLike?: TestSiblingOptions['namedLike']) => readonly string[];
}

/** Why one target is refused; machine-readable. */
export type ViolationKind = 'invalid-path' | 'control-file' | 'outside-root' | 'outside-scope' | 'no-agent-scope' | 'agent-scope-unbacked';

export interface WriteViolation {
  readonly kind: ViolationKind;
  /** The target as the payload spelled it. */
  readonly raw: string;
  /** The canonical destination (repository-relative when inside the write root, else absolute). */
  readonly shown: string;
  readonly problem?: WriteTargetProblem | string;
  /** `outside-scope` only: the target is a test sibling of the agent's, which this other agent of the wave claims too. */
  readonly contestedBy?: string;
}

/** The gate's answer. A refusal is data, never an exception. */
export type WriteDecision =
  | {
      readonly decision: 'allow';
      /** Why nothing was checked, when nothing was. */
      readonly because: 'no-manifest' | 'foreign-session' | 'enforcement-off' | 'covered' | 'not-a-write';
    }
  | {
      readonly decision: 'deny' | 'warn';
      readonly violations: readonly WriteViolation[];
      /** The entries the target was checked against (agent scope or `allowedPaths`). */
      readonly allowed: readonly string[];
      /** Where `allowed` came from. */
      readonly against: 'manifest' | 'agent';
      readonly agent?: string;
      /** `dispatch` when the agent's scope is a subagent's dispatch claim (see AgentScopeState). */
      readonly agentOrigin?: 'dispatch';
      readonly manifestPath: string;
      readonly wave: number;
    }
  | {
      /** The manifest is present but unusable. */
      readonly decision: 'deny-invalid-manifest';
      readonly manifestPath: string;
      readonly problems: readonly string[];
    };

function isAbsoluteEntry(entry: string): boolean {
  return entry.startsWith('/');
}

/** A matcher over one list of grants: relative entries for the write root, absolute ones anywhere. */
export interface CompiledGrants {
  readonly entries: readonly string[];
  covers(target: ResolvedWriteTarget): boolean;
}

// The hook reads a manifest of hundreds of entries for one or two targets, so it must not compile
// them all. The scope engine decides every match; in front of it sits a necessary condition that
// costs one string comparison: an entry in normal form (only ordinary file-name characters, no `./`,
// `//` or `..`) can match a path only if the path starts with the entry's literal part (the whole
// entry when it has no glob character, else everything up to the last `/` before the first glob
// character), and, unless it names a directory or holds a brace, only if the path ends with the entry's
// last segment when that segment is literal (`test/**\/total.test.ts`: a wave's test siblings). An entry
// is compiled, once, only when a target passes those tests; an entry not in normal form is always handed
// to the engine.
const ORDINARY = /^[\p{L}\p{N}\p{M}._\- /]+$/u;
const GLOB_CHARACTER = /[*?[{]/;

function isNormalLiteral(text: string): boolean {
  return (
    ORDINARY.test(text) &&
    !text.startsWith('/') &&
    !text.startsWith('./') &&
    !text.includes('//') &&
    !/(^|\/)\.\.?(\/|$)/.test(text) &&
    text.trim() === text
  );
}

/**
 * Whether two entries, both certainly literal paths in normal form, name a common path: the same path, or
 * one a directory (`…/`) holding the other. By their spelling only, so it can miss an overlap (a glob, a
 * case variant, any other spelling) but never finds one that is not there.
 */
export function literalEntriesOverlap(a: string, b: string): boolean {
  if (!isNormalLiteral(a) || !isNormalLiteral(b)) return false;
  return a === b || (a.endsWith('/') && b.startsWith(a)) || (b.endsWith('/') && a.startsWith(b));
}

function fold(text: string, ignoreCase?: boolean): string {
  return ignoreCase ? foldCase(text) : text;
}

/** The literal every path an entry can match starts with ('' when nothing can be said cheaply). */
function literalPrefix(entry: string): string {
  const glob = entry.search(GLOB_CHARACTER);
  const prefix = glob === -1 ? entry : entry.slice(0, entry.lastIndexOf('/', glob) + 1);
  return prefix !== '' && isNormalLiteral(prefix) ? prefix : '';
}

/**
 * The literal last segment every path an entry can match ends with ('' when nothing can be said cheaply):
 * a path names exactly one file, so `test/**\/total.test.ts` can only match a path whose last segment is
 * `total.test.ts`. Only for an entry with no brace (whose alternatives could end differently) that does
 * not name a directory.
 */
function literalLastSegment(entry: string): string {
  if (entry.endsWith('/') || entry.includes('{')) return '';
  const segment = lastSegment(entry);
  return segment !== '.' && segment !== '..' && !GLOB_CHARACTER.test(segment) && isNormalLiteral(segment) ? segment : '';
}

function lastSegment(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** A matcher compiled by the engine on first use; an entry the grammar rejects matches nothing. */
function lazyEngineMatcher(compile: () => string, ignoreCase?: boolean): (path: string) => boolean {
  let matcher: ((path: string) => boolean) | undefined;
  return (path) => {
    if (matcher === undefined) {
      try {
        const compiled = compileScopeEntry(compile(), { ignoreCase });
        matcher = (candidate) => compiled.matches(candidate);
      } catch {
        matcher = () => false;
      }
    }
    return matcher(path);
  };
}

/**
 * Compiles grants. Relative entries go through the scope engine's grammar; an absolute entry (a grant
 * outside the checkout, e.g. a memory directory) is matched by the same engine against the absolute
 * destination with the leading `/` removed on both sides. An entry the grammar rejects grants
 * nothing: a malformed grant can only make the gate stricter.
 */
export function compileGrants(entries: readonly string[], options: { writeRoot: string; ignoreCase?: boolean }): CompiledGrants {
  const relative: Array<(path: string) => boolean> = [];
  const absolute: Array<(path: string) => boolean> = [];
  const { ignoreCase } = options;
  for (const raw of entries) {
    const entry = raw.normalize('NFC');
    if (isAbsoluteEntry(entry) && !isWithin(options.writeRoot, entry.replace(/\/+$/, ''), ignoreCase)) {
      absolute.push(lazyEngineMatcher(() => normalizeScopeEntry(entry.slice(1), { ignoreCase }), ignoreCase));
      continue;
    }
    const prefix = fold(literalPrefix(entry), ignoreCase);
    const last = fold(literalLastSegment(entry), ignoreCase);
    const matches = lazyEngineMatcher(() => normalizeScopeEntry(entry, { repoRoot: options.writeRoot, ignoreCase }), ignoreCase);
    relative.push((path) => {
      if (prefix === '' && last === '') return matches(path);
      const folded = fold(path, ignoreCase);
      if (!folded.startsWith(prefix)) return false;
      if (last !== '' && folded !== last && !folded.endsWith(`/${last}`)) return false;
      return matches(path);
    });
  }
  return {
    entries,
    covers(target) {
      if (target.kind === 'inside') return relative.some((matches) => matches(target.relative));
      if (target.kind === 'outside') {
        const path = target.absolute.slice(1);
        return absolute.some((matches) => matches(path));
      }
      return false;
    },
  };
}

// The catalogue's entries compile to automata; most paths share no segment with any of them, and a
// path can only be control state if one of its segments is a literal segment some entry starts with
// (`.git`, `.claude`, `AGENTS.md`, …), so that lookup runs first.
const controlSegments = new Map<boolean, Set<string>>();

function leadingSegments(ignoreCase: boolean): Set<string> {
  let segments = controlSegments.get(ignoreCase);
  if (segments === undefined) {
    segments = new Set();
    for (const { entry } of [...CONTROL_STATE, ...NESTED_CONTROL_STATE]) {
      const first = entry.replace(/^\*\*\//, '').split('/')[0] ?? '';
      segments.add(ignoreCase ? foldCase(first) : first);
    }
    controlSegments.set(ignoreCase, segments);
  }
  return segments;
}

/** Whether a repository-relative path is control state by the catalogue (at the root, or at any depth). */
export function isCatalogueControl(relative: string, ignoreCase = false): boolean {
  const segments = leadingSegments(ignoreCase);
  const parts = relative.split('/');
  if (!parts.some((part) => segments.has(ignoreCase ? foldCase(part) : part))) return false;
  return controlStateOf(relative, { ignoreCase }) !== undefined;
}

function isControlPath(target: ResolvedWriteTarget, controlPaths: readonly string[], ignoreCase?: boolean): boolean {
  if (target.kind === 'invalid') return false;
  if (target.kind === 'inside' && isCatalogueControl(target.relative, ignoreCase)) return true;
  return controlPaths.some((control) => isWithin(control, target.absolute, ignoreCase));
}

function isCoordinatorPath(target: ResolvedWriteTarget, coordinatorPaths: readonly string[], ignoreCase?: boolean): boolean {
  if (target.kind === 'invalid') return false;
  return coordinatorPaths.some((path) => isWithin(path, target.absolute, ignoreCase));
}

function shownOf(target: ResolvedWriteTarget): string {
  if (target.kind === 'inside') return target.relative;
  if (target.kind === 'outside') return target.absolute;
  return target.raw;
}

/** Decides one write. Pure; never throws for any input the types admit. */
export function decideWrite(input: WriteDecisionInput, grants?: CompiledGrants): WriteDecision {
  const { manifest } = input;
  if (manifest.kind === 'missing') return { decision: 'allow', because: 'no-manifest' };
  if (manifest.kind === 'invalid') {
    return { decision: 'deny-invalid-manifest', manifestPath: manifest.path, problems: manifest.problems };
  }
  if (manifest.session === 'foreign') return { decision: 'allow', because: 'foreign-session' };
  const enforcement = manifest.manifest.enforcement;

  const agentScope = input.agentScope;
  const against: 'manifest' | 'agent' = agentScope === undefined ? 'manifest' : 'agent';
  // What the agent declares (or the wave's union, for a writer not known) grants outright; the agent's test
  // siblings only where no rival claims the path.
  let granted: readonly string[] = manifest.manifest.allowedPaths;
  let siblings: readonly string[] = [];
  if (agentScope !== undefined) {
    granted = agentScope.kind === 'loaded' ? agentScope.entries : [];
    if (input.expandEntries !== undefined && agentScope.kind === 'loaded') {
      const declared = new Set(granted);
      siblings = input.expandEntries(granted).filter((entry) => !declared.has(entry));
    }
  }
  const allowed = siblings.length === 0 ? granted : [...granted, ...siblings];
  const options = { writeRoot: input.writeRoot, ignoreCase: input.ignoreCase };
  const mayIgnoreCase = input.mayIgnoreCase ?? input.ignoreCase;
  // A rival's claim refuses a sibling of the agent's: it folds wherever git may fold.
  const rivalOptions = { writeRoot: input.writeRoot, ignoreCase: mayIgnoreCase };
  const compiled = grants ?? compileGrants(granted, options);
  const siblingGrants = siblings.length === 0 ? undefined : compileGrants(siblings, options);
  let rivalClaims: Array<{ agent: string; entries: readonly string[]; declaredSet: ReadonlySet<string>; declared: CompiledGrants }> | undefined;
  /**
   * The rival claiming `target` (a path only a sibling of the agent's covers), when one does. A wave of 64
   * agents brings thousands of entries, and a hook process runs cold: of the rivals' entries only those
   * that may have a sibling named like the target are expanded (TestSiblingOptions.namedLike), and of
   * their siblings only those whose last segment is the target's are compiled (a sibling is spelled from
   * a plain file name, so its last segment is literal; one that is not is compiled too). Their declared
   * entries are compiled always.
   */
  const claimingRival = (target: ResolvedWriteTarget): string | undefined => {
    if (target.kind !== 'inside') return undefined;
    rivalClaims ??= (agentScope?.kind === 'loaded' ? (agentScope.rivals ?? []) : []).map((rival) => ({
      agent: rival.agent,
      entries: rival.entries,
      declaredSet: new Set(rival.entries),
      declared: compileGrants(rival.entries, rivalOptions),
    }));
    const last = lastSegment(target.relative);
    const name = fold(last, mayIgnoreCase);
    const namedLike = { lastSegment: last, ...(mayIgnoreCase !== undefined ? { ignoreCase: mayIgnoreCase } : {}) };
    return rivalClaims.find((rival) => {
      if (rival.declared.covers(target)) return true;
      if (input.expandEntries === undefined) return false;
      const named = input.expandEntries(rival.entries, namedLike).filter((entry) => {
        if (rival.declaredSet.has(entry)) return false;
        const sibling = lastSegment(entry.normalize('NFC'));
        return GLOB_CHARACTER.test(sibling) || sibling.includes('}') || fold(sibling, mayIgnoreCase) === name;
      });
      return named.length > 0 && compileGrants(named, rivalOptions).covers(target);
    })?.agent;
  };
  // An agent's own scope counts only where the wave's union backs it: a per-agent file that grants
  // more than allowedPaths was not written by the plan that computed the union. (An absolute grant
  // outside the checkout, such as a memory directory, has no counterpart in allowedPaths, which holds
  // no absolute entry; it counts when the aggregate declares it, which the caller has checked.)
  let wave: CompiledGrants | undefined;
  const waveCovers = (target: ResolvedWriteTarget) => {
    wave ??= compileGrants(manifest.manifest.allowedPaths, options);
    return wave.covers(target);
  };

  const hard: WriteViolation[] = [];
  const soft: WriteViolation[] = [];
  const seen = new Set<string>();
  const push = (list: WriteViolation[], violation: WriteViolation) => {
    const key = `${violation.kind}\0${violation.raw}`;
    if (seen.has(key)) return;
    seen.add(key);
    list.push(violation);
  };
  for (const target of input.targets) {
    const shown = shownOf(target);
    if (target.kind === 'invalid') {
      push(hard, { kind: 'invalid-path', raw: target.raw, shown, problem: target.problem });
      continue;
    }
    if (input.dispatchedAgent && isControlPath(target, input.controlPaths, mayIgnoreCase)) {
      push(hard, { kind: 'control-file', raw: target.raw, shown });
      continue;
    }
    // A spelling is not a place: it is judged for control state above, and nothing else.
    if (target.role === 'spelled') continue;
    if (!input.dispatchedAgent && isCoordinatorPath(target, input.coordinatorPaths ?? [], input.ignoreCase)) continue;
    if (agentScope !== undefined && agentScope.kind === 'unusable') {
      // No scope, no write: whatever the enforcement level says.
      push(hard, { kind: 'no-agent-scope', raw: target.raw, shown, problem: agentScope.problem });
      continue;
    }
    let covered = compiled.covers(target);
    if (!covered && siblingGrants?.covers(target) === true) {
      const rival = claimingRival(target);
      if (rival !== undefined) {
        push(soft, { kind: 'outside-scope', raw: target.raw, shown, contestedBy: rival });
        continue;
      }
      covered = true;
    }
    if (covered) {
      const declaredOutside = target.kind === 'outside' && agentScope?.kind === 'loaded' && agentScope.origin !== 'dispatch';
      if (agentScope === undefined || declaredOutside || waveCovers(target)) continue;
      push(hard, { kind: 'agent-scope-unbacked', raw: target.raw, shown });
      continue;
    }
    push(soft, { kind: target.kind === 'outside' ? 'outside-root' : 'outside-scope', raw: target.raw, shown });
  }

  // Control files, unresolvable paths and scopes nothing backs are refused whatever the enforcement level says.
  if (hard.length === 0 && (soft.length === 0 || enforcement === 'off')) {
    return { decision: 'allow', because: soft.length === 0 ? 'covered' : 'enforcement-off' };
  }
  const decision = hard.length > 0 || enforcement === 'strict' ? 'deny' : 'warn';
  return {
    decision,
    violations: [...hard, ...soft],
    allowed,
    against,
    ...(agentScope !== undefined ? { agent: agentScope.agent } : {}),
    ...(agentScope?.kind === 'loaded' && agentScope.origin === 'dispatch' ? { agentOrigin: 'dispatch' as const } : {}),
    manifestPath: manifest.path,
    wave: manifest.manifest.wave,
  };
}
