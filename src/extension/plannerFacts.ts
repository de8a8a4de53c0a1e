// What the planner's host tells the webview besides the plan and the files, and what it checks before a
// save that the webview cannot: which repository files are control state (hidden in the tree: no agent
// can own them) and the other clones' claims, read from this clone's copy of the plan ref
// (src/node/claimsReader.ts) and proven against the draft with src/planner/sync's
// findConflictsWithClaims, which the webview may not import. The repository's absolute spellings come
// from FolderPlan.roots.
import { relative } from 'node:path';
import { nodePlanReadingFs } from '../node/declarationFs';
import { readClaimsView } from '../node/claimsReader';
import { controlStateOf } from '../planner/plan/controlState';
import { readPlan } from '../planner/plan/planReader';
import type { PlanView } from '../planner/plan/planReader';
import { processLocalSessionIds } from '../planner/plan/sessionBinding';
import type { ClaimsView } from '../planner/sync/claimsView';
import { findConflictsWithClaims } from '../planner/sync/claimsView';
import type { ClaimConflictSummary, ClaimSummary, PlanDraft } from '../protocol/plannerProtocol';
import { saveStateDirOf } from './planFiles';

/** The state directory a save writes to, repository-relative (`.claude`), as the save resolves it. */
export function plannedStateDir(repoRoot: string, configured: string | undefined): string | undefined {
  const stateDir = saveStateDirOf(repoRoot, configured);
  return stateDir === undefined ? undefined : relative(repoRoot, stateDir).replace(/\\/g, '/');
}

// Only a path with a dot-segment, or one of the root files agents read, can be control state: every other
// path skips the catalogue (a 20,000-file repository is checked in a few milliseconds).
const MAYBE_CONTROL = /(?:^|\/)\.|^(?:AGENTS|CLAUDE|GEMINI)\.md$/i;

/** The repository files that are control state (CONTROL_STATE, nested control files, the state directory). */
export function controlFilesAmong(files: readonly string[], options: { ignoreCase: boolean; stateDir: string | undefined }): string[] {
  const check = { ignoreCase: options.ignoreCase, stateDir: options.stateDir };
  return files.filter((file) => MAYBE_CONTROL.test(file) && controlStateOf(file, check) !== undefined);
}

/** Other clones' claims as the planner shows them, and the draft's overlaps with them. */
export interface DraftClaims {
  claims: ClaimSummary[];
  conflicts: ClaimConflictSummary[];
  problem: string | undefined;
}

/** The claims view of a repository: this clone's copy of the plan ref, compared with the plan on disk. */
export function readRepositoryClaims(repoRoot: string, options: { ignoreCase: boolean; files: readonly string[]; now: number }): { view: ClaimsView; plan: PlanView } {
  const plan = readPlan(repoRoot, { ownIds: processLocalSessionIds({ env: process.env }), ignoreCase: options.ignoreCase }, nodePlanReadingFs(repoRoot));
  return { view: readClaimsView(repoRoot, plan, options), plan };
}

function sameRecords(a: readonly { id: string; files: readonly string[] }[], b: readonly { id: string; files: readonly string[] }[]): boolean {
  const key = (records: readonly { id: string; files: readonly string[] }[]) =>
    JSON.stringify(
      [...records]
        .map((record) => ({ id: record.id, files: [...record.files].sort() }))
        .sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0)),
    );
  return key(a) === key(b);
}

/**
 * Proves every wave of the draft against the other clones' live claims. A wave that is exactly what the
 * disk holds takes the view's own verdict (which leaves out the claim a synced wave came from); any other
 * wave is proven with findConflictsWithClaims, as publish would prove it.
 */
export function draftClaims(draft: PlanDraft, read: { view: ClaimsView; plan: PlanView }, options: { ignoreCase: boolean; files: readonly string[]; now: number }): DraftClaims {
  const { view, plan } = read;
  const others = view.claims.filter((claim) => !claim.ownClone);
  const claims: ClaimSummary[] = others.map((claim) => ({
    clone: claim.clone,
    cloneName: claim.cloneName,
    wave: claim.wave,
    claimedAt: claim.claimedAt,
    expiresAt: claim.expiresAt,
    agents: claim.agents.map((agent) => ({ id: agent.id, files: [...agent.files] })),
    problems: [...claim.problems],
  }));
  const unreadable = others.filter((claim) => claim.problems.length > 0);
  const problems = [
    ...(view.problem ? [`Other clones' claims could not be read: ${view.problem}`] : []),
    ...unreadable.map((claim) => `Wave ${claim.wave} claimed in clone ${claim.cloneName} cannot be read, so nothing can be proven against it: ${claim.problems.join('; ')}`),
  ];
  const conflicts: ClaimConflictSummary[] = [];
  if (others.length > 0) {
    for (const wave of draft.waves) {
      if (wave.agents.length === 0) continue;
      const records = wave.agents.map((agent) => ({ id: agent.id, files: [...agent.entries] }));
      const disk = plan.waves.find((item) => item.wave === wave.wave);
      const unchanged = disk !== undefined && sameRecords(disk.agents.map((agent) => ({ id: agent.id, files: agent.entries.map((entry) => entry.entry) })), records);
      const found = unchanged
        ? view.conflicts.filter((conflict) => conflict.localWave === wave.wave)
        : findConflictsWithClaims({ role: wave.role, records }, view, { now: options.now, ignoreCase: options.ignoreCase, knownFiles: options.files });
      for (const conflict of found) {
        conflicts.push({
          wave: wave.wave,
          agent: conflict.agent,
          entry: conflict.entry,
          clone: conflict.other.clone,
          cloneName: conflict.other.cloneName,
          otherWave: conflict.other.wave,
          otherAgent: conflict.other.agent,
          otherEntry: conflict.other.entry,
          claimedAt: conflict.other.claimedAt,
          witness: conflict.witness,
          testSibling: conflict.testSibling,
        });
      }
    }
  }
  return { claims, conflicts, problem: problems.length > 0 ? problems.join(' ') : undefined };
}

/** The sentence of a save refused for overlaps with other clones' claims. */
export function describeClaimRefusal(conflicts: readonly ClaimConflictSummary[]): string {
  const first = conflicts[0];
  if (!first) return '';
  const pairs = conflicts.length === 1 ? '1 overlap' : `${conflicts.length} overlaps`;
  return (
    `Not saved: the plan overlaps a wave another clone claims (${pairs}; wave ${first.wave}: ${first.agent} (${first.entry}) and ` +
    `${first.otherAgent} (${first.otherEntry}) of wave ${first.otherWave} claimed by clone ${first.cloneName} both own ${first.witness}). The draft is kept.`
  );
}
