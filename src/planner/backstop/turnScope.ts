// Which changes of a turn lie outside the scope, decided by the write gate's own rules: every change
// (a created, modified or deleted path) is judged as if it were a write by the same caller, through
// `decideWrite` (src/planner/enforce/writeDecision.ts). So the backstop and the gate can never disagree
// about a path: the same grants (the agent's own scope and its test siblings, or the wave's
// `allowedPaths`), the same control state, the same case rule.
import { decideWrite } from '../enforce/writeDecision';
import type { AgentScopeState, ManifestState, ViolationKind } from '../enforce/writeDecision';
import type { ResolvedWriteTarget } from '../enforce/writeTarget';
import { expandTestSiblings } from '../scope/testSiblings';
import type { PathChange } from './snapshotDiff';

/** Everything a judgement reads, already loaded by the caller. */
export interface JudgeContext {
  readonly manifest: ManifestState;
  /** The caller's own scope, when an agent is named (`WAVE_SCOPE_AGENT`, `run --agent`). */
  readonly agentScope?: AgentScopeState;
  /** The wave's role: the agent's own scope gets the test siblings the wave's union gave it. */
  readonly role?: string;
  /** A dispatched agent may never change control state, whatever its scope says. */
  readonly dispatchedAgent: boolean;
  /** Canonical absolute control paths (see `controlPathsOf` in src/planner/enforce/writeGate.ts). */
  readonly controlPaths: readonly string[];
  /** Canonical absolute paths the coordinator may change whatever the scope says. */
  readonly coordinatorPaths?: readonly string[];
  /** Canonical absolute top level of the work tree the changes were seen in. */
  readonly writeRoot: string;
  readonly ignoreCase?: boolean;
}

/** One change the scope does not allow, and why. */
export interface ChangeViolation {
  readonly change: PathChange;
  readonly kind: ViolationKind;
  readonly problem?: string;
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

function targetOf(change: PathChange, writeRoot: string): ResolvedWriteTarget {
  // Paths from git are repository-relative already; the gate compares them in NFC.
  const relative = change.path.replace(/\/$/, '').normalize('NFC');
  return { kind: 'inside', raw: change.path, relative, absolute: writeRoot === '/' ? `/${relative}` : `${writeRoot}/${relative}` };
}

/** Judges every change of a turn (or of one shell call) against the scope that applies to its caller. */
export function judgeChanges(changes: readonly PathChange[], context: JudgeContext): ChangeJudgement {
  const { manifest } = context;
  const entries =
    context.agentScope?.kind === 'loaded' ? context.agentScope.entries : manifest.kind === 'loaded' ? manifest.manifest.allowedPaths : [];
  const role = context.role;
  const decision = decideWrite({
    targets: changes.map((change) => targetOf(change, context.writeRoot)),
    manifest,
    ...(context.agentScope !== undefined ? { agentScope: context.agentScope } : {}),
    ...(role !== undefined ? { expandEntries: (scope: readonly string[]) => expandTestSiblings(scope, { role }) } : {}),
    dispatchedAgent: context.dispatchedAgent,
    controlPaths: context.controlPaths,
    ...(context.coordinatorPaths !== undefined ? { coordinatorPaths: context.coordinatorPaths } : {}),
    writeRoot: context.writeRoot,
    ...(context.ignoreCase !== undefined ? { ignoreCase: context.ignoreCase } : {}),
  });
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

/**
 * The manifest a `wave-scope run` turn is judged under: always strict, for the named wave, whatever
 * the state directory's manifest says (`run` is the coordinator's explicit request to check this
 * agent). The agent's own scope file decides; no scope file or an empty one allows nothing.
 */
export function strictTurnManifest(wave: number, path: string, role: string | undefined): ManifestState {
  return {
    kind: 'loaded',
    path,
    session: 'own',
    manifest: { wave, role: role ?? '', enforcement: 'strict', allowedPaths: [] },
  };
}
