// Which changes of a turn lie outside the scope, decided by the write gate's own rules: every change
// (a created, modified or deleted path) is judged as if it were a write by the same caller, through
// the gate's own `decideUnderRules` (src/planner/enforce/writeGate.ts). So the backstop and the gate can never disagree
// about a path: the same grants (the agent's own scope and its test siblings, or the wave's
// `allowedPaths`), the same control state, the same case rule.
import { decideUnderRules } from '../enforce/writeGate';
import type { DecisionRules } from '../enforce/writeGate';
import type { ManifestState, ViolationKind } from '../enforce/writeDecision';
import { locateDestination } from '../enforce/writeTarget';
import type { ResolvedWriteTarget } from '../enforce/writeTarget';
import type { PathChange } from './snapshotDiff';
import { hasUndecodableName } from './gitOutput';

/**
 * Everything a judgement reads, already loaded by the caller: the write gate's own rules for one wave
 * and caller (`gateRulesAt` for a hook call; `wave-scope run` builds its own strict turn rules).
 */
export type JudgeContext = DecisionRules;

/** One change the scope does not allow, and why. */
export interface ChangeViolation {
  readonly change: PathChange;
  readonly kind: ViolationKind;
  readonly problem?: string;
  /** `outside-scope` only: a test sibling of the agent's that this other agent of the wave claims too. */
  readonly contestedBy?: string;
}

/** What the judgement found. */
export type ChangeJudgement =
  | {
      /** Nothing was checked: no wave is active, it is another session's, or its enforcement is off. */
      readonly verdict: 'not-checked';
      readonly because: 'no-manifest' | 'foreign-session' | 'enforcement-off';
    }
  | {
      /** The manifest exists but cannot be used: nothing can be vouched for (fail closed). */
      readonly verdict: 'invalid-manifest';
      readonly manifestPath: string;
      readonly problems: readonly string[];
    }
  | {
      /** `in-scope`: every change is allowed. `out-of-scope`: some are not. `warn`: some are not, and enforcement is `warn`. */
      readonly verdict: 'in-scope' | 'out-of-scope' | 'warn';
      readonly violations: readonly ChangeViolation[];
      /** The entries the changes were judged against. */
      readonly allowed: readonly string[];
      readonly against: 'manifest' | 'agent';
      readonly agent?: string;
      readonly wave: number;
      readonly manifestPath: string;
    };

function targetOf(change: PathChange, changesRoot: string, writeRoot: string, ignoreCase: boolean | undefined): ResolvedWriteTarget {
  // Which file a name that is not UTF-8 stands for cannot be told: it is never in a scope (nor committed).
  if (hasUndecodableName(change.path)) return { kind: 'invalid', raw: change.path, problem: 'undecodable-name' };
  // Paths from git are relative to the work tree they were seen in; the gate compares them in NFC.
  const relative = change.path.replace(/\/$/, '').normalize('NFC');
  const absolute = changesRoot === '/' ? `/${relative}` : `${changesRoot}/${relative}`;
  if (changesRoot === writeRoot) return { kind: 'inside', raw: change.path, relative, absolute };
  return locateDestination(change.path, absolute, writeRoot, ignoreCase !== undefined ? { ignoreCase } : {});
}

/**
 * Judges every change of a turn (or of one shell call) against the scope that applies to its caller.
 * `changesRoot`: the work tree the changes' paths are relative to (default: the rules' write root).
 */
export function judgeChanges(changes: readonly PathChange[], context: JudgeContext, changesRoot: string = context.writeRoot): ChangeJudgement {
  const { manifest } = context;
  const entries =
    context.agentScope?.kind === 'loaded' ? context.agentScope.entries : manifest.kind === 'loaded' ? manifest.manifest.allowedPaths : [];
  const decision = decideUnderRules(
    context,
    // Located as the gate locates a target: inside the write root wherever git may fold case.
    changes.map((change) => targetOf(change, changesRoot, context.writeRoot, context.mayIgnoreCase ?? context.ignoreCase)),
  );
  if (decision.decision === 'deny-invalid-manifest') {
    return { verdict: 'invalid-manifest', manifestPath: decision.manifestPath, problems: decision.problems };
  }
  const wave = manifest.kind === 'loaded' ? manifest.manifest.wave : 0;
  const manifestPath = manifest.kind === 'missing' ? '' : manifest.path;
  const against = context.agentScope === undefined ? 'manifest' : 'agent';
  const agent = context.agentScope?.agent;
  if (decision.decision === 'allow') {
    if (decision.because === 'no-manifest' || decision.because === 'foreign-session' || decision.because === 'enforcement-off') {
      return { verdict: 'not-checked', because: decision.because };
    }
    return { verdict: 'in-scope', violations: [], allowed: entries, against, ...(agent !== undefined ? { agent } : {}), wave, manifestPath };
  }
  const byPath = new Map(changes.map((change) => [change.path, change]));
  const violations = decision.violations.map((violation) => ({
    change: byPath.get(violation.raw) as PathChange,
    kind: violation.kind,
    ...(violation.problem !== undefined ? { problem: String(violation.problem) } : {}),
    ...(violation.contestedBy !== undefined ? { contestedBy: violation.contestedBy } : {}),
  }));
  return {
    verdict: decision.decision === 'deny' ? 'out-of-scope' : 'warn',
    violations,
    allowed: decision.allowed,
    against: decision.against,
    ...(decision.agent !== undefined ? { agent: decision.agent } : {}),
    wave: decision.wave,
    manifestPath: decision.manifestPath,
  };
}

const VERDICT_SEVERITY: Record<ChangeJudgement['verdict'], number> = { 'not-checked': 0, 'in-scope': 1, warn: 2, 'out-of-scope': 3, 'invalid-manifest': 4 };

/**
 * Judges the changes under every wave that governs them (the gate's `governingWaves`) and keeps the
 * strictest judgement, as the write gate keeps its strictest decision: a nested wave can only add
 * restrictions. The first context wins a tie (the binding wave comes first).
 */
export function judgeChangesStrictest(changes: readonly PathChange[], contexts: readonly JudgeContext[], changesRoot: string): ChangeJudgement {
  let strictest: ChangeJudgement = { verdict: 'not-checked', because: 'no-manifest' };
  for (const context of contexts) {
    const judgement = judgeChanges(changes, context, changesRoot);
    if (VERDICT_SEVERITY[judgement.verdict] > VERDICT_SEVERITY[strictest.verdict]) strictest = judgement;
  }
  return strictest;
}

/**
 * The manifest a `wave-scope run` turn is judged under: always strict, for the named wave, whatever
 * the state directory's manifest says (`run` is the coordinator's explicit request to check this
 * agent). The agent's own scope file decides; no scope file or an empty one allows nothing. `union` is
 * what backs that scope, as the write gate requires of every per-agent scope: the wave's `allowedPaths`
 * when the state directory's manifest is this wave's, else the agent's own entries with their test
 * siblings (its aggregate, which `readAgentScope` checked, is then the only backing there is).
 */
export function strictTurnManifest(wave: number, path: string, role: string | undefined, union: readonly string[], ignoreCase = false): ManifestState {
  return {
    kind: 'loaded',
    path,
    session: 'own',
    // Case folds only as the state directory's manifest of this wave was proven (WaveManifest.ignoreCase).
    manifest: { wave, role: role ?? '', enforcement: 'strict', allowedPaths: union, ...(ignoreCase ? { ignoreCase } : {}) },
  };
}
