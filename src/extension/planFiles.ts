// The extension's bridge to the plan on disk. Reading goes through readPlan; saving through the
// planner's one draft save (src/planner/plan/draftSave.ts: every wave proven disjoint first, then the
// safe chain), with the Node file system. (Hooks are installed through the bundled CLI: cliRunner.ts.)
import { nodeDeclarationFs, nodePlanReadingFs } from '../node/declarationFs';
import { planWriteLockAt } from '../node/planWriteLock';
import { nodeLocateFileSystem } from '../node/hookFileSystem';
import { governingCheckoutElsewhere } from '../planner/enforce/repoLocation';
import { draftStateDir, saveDraft } from '../planner/plan/draftSave';
import type { DraftPlan, DraftSaveResult } from '../planner/plan/draftSave';
import type { ManifestOnDisk, WaveOnDisk } from '../planner/plan/staleWaves';
import { readPlan } from '../planner/plan/planReader';
import type { PlanView } from '../planner/plan/planReader';
import { processLocalSessionIds } from '../planner/plan/sessionBinding';
import { laneColorAt } from '../protocol/laneColors';
import type { PlanDraft } from '../protocol/plannerProtocol';
import type { RememberedLook } from './draftStore';

const DEFAULT_ROLE = 'builder';

/**
 * The absolute state directory a save of this repository writes (draftStateDir): `stateDirName` is the
 * `waveScope.plan.stateDirectory` setting (`auto` or one of the state directories). Undefined when no
 * state directory is free (the save refuses then, saying why).
 */
export function saveStateDirOf(repoRoot: string, stateDirName: string | undefined): string | undefined {
  const resolved = draftStateDir(repoRoot, stateDirName, processLocalSessionIds({ env: process.env }), () => nodeDeclarationFs(repoRoot));
  return 'stateDir' in resolved ? resolved.stateDir : undefined;
}

/**
 * The plan on disk as a planner draft, with the remembered colours and roles: read from `stateDir` (absolute;
 * the planner passes saveStateDirOf's, the directory its saves write and compare), else from the state
 * directory the hooks read.
 */
export function readDiskPlan(
  repoRoot: string,
  remembered: RememberedLook,
  ignoreCase: boolean,
  stateDir?: string,
): { plan: PlanDraft; problem: string | undefined } {
  const { colors, roles } = remembered;
  const ownIds = processLocalSessionIds({ env: process.env });
  // Read as the hooks read it: a plan file reached through a link or a second name shows as a problem, and
  // its text never becomes the draft a save would write back.
  const view = readPlan(repoRoot, { ownIds, ignoreCase, ...(stateDir === undefined ? {} : { stateDir }) }, nodePlanReadingFs(repoRoot));
  const problems: string[] = [];
  if (view.manifest.problem) problems.push(view.manifest.problem.message);
  const waves = view.waves.map((wave) => {
    if (wave.problems.length > 0) problems.push(`wave ${wave.wave}: ${wave.problems.join(' ')}`);
    return {
      wave: wave.wave,
      role: wave.active && view.manifest.role ? view.manifest.role : (roles[String(wave.wave)] ?? DEFAULT_ROLE),
      agents: wave.agents.map((agent, index) => ({
        id: agent.id,
        color: colors[agent.id] ?? laneColorAt(index),
        entries: agent.entries.map((entry) => entry.entry),
      })),
    };
  });
  // A manifest naming a wave without declarations still shows as a (empty) tab.
  if (view.activeWave !== null && !waves.some((wave) => wave.wave === view.activeWave)) {
    waves.push({ wave: view.activeWave, role: view.manifest.role ?? roles[String(view.activeWave)] ?? DEFAULT_ROLE, agents: [] });
    waves.sort((a, b) => a.wave - b.wave);
  }
  const plan: PlanDraft = {
    version: 1,
    waves: waves.length > 0 ? waves : [{ wave: 1, role: roles['1'] ?? DEFAULT_ROLE, agents: [] }],
    // A repository without any plan starts with wave 1 as the one the manifest will name.
    activeWave: view.activeWave ?? (view.waves.length === 0 && !view.manifest.found ? 1 : undefined),
    // What the manifest said, or that there was none: a save of a draft made from this plan compares it.
    // A manifest there but unusable is not recorded (a save compares it as a base of an older version would).
    ...manifestRecord(view.manifest),
  };
  return { plan, problem: problems.length > 0 ? problems.join(' ') : undefined };
}

/**
 * The manifest a plan read from disk records (PlanDraft.manifest): null when there was none; nothing when it
 * was there but unusable. A bound manifest records its session (the planner has none of its own, so it
 * shows whose plan it is editing).
 */
function manifestRecord(manifest: PlanView['manifest']): Pick<PlanDraft, 'manifest'> {
  if (!manifest.found) return { manifest: null };
  if (manifest.wave === null || manifest.role === null) return {};
  const [boundTo] = manifest.boundTo;
  return { manifest: { wave: manifest.wave, role: manifest.role, ...(boundTo === undefined ? {} : { boundTo }) } };
}

export interface SaveOptions {
  ignoreCase: boolean;
  files: readonly string[];
  /** One of STATE_DIR_NAMES; otherwise the state directory is resolved as the CLI does. */
  stateDirName?: string;
  /** The plan on disk the draft was edited from: only waves it had are removed (SaveDraftOptions.base). */
  base?: DraftPlan | undefined;
  /** Waves changed on disk since the base that the person chose to overwrite (SaveDraftOptions.overwrite). */
  overwrite?: readonly WaveOnDisk[] | undefined;
  /** The manifest on disk the person chose to write over, null for none (SaveDraftOptions.overwriteManifest). */
  overwriteManifest?: ManifestOnDisk | null | undefined;
}

/** Saves the whole draft into the repository at `repoRoot` (see saveDraft), bound to this process's session. */
export function saveDraftToDisk(repoRoot: string, draft: DraftPlan, options: SaveOptions): DraftSaveResult {
  return saveDraft(draft, {
    repoRoot,
    ignoreCase: options.ignoreCase,
    files: options.files,
    stateDirName: options.stateDirName,
    base: options.base,
    overwrite: options.overwrite,
    overwriteManifest: options.overwriteManifest,
    ownIds: processLocalSessionIds({ env: process.env }),
    // The planner has no session of its own: it edits the plan of the session the manifest names.
    keepBinding: true,
    fsAt: nodeDeclarationFs,
    lockPlan: planWriteLockAt(repoRoot),
    governedFrom: governingCheckoutElsewhere(repoRoot, nodeLocateFileSystem),
  });
}
