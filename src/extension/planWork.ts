// The work the extension hands to its worker thread (planWorker.ts), so the extension host's own
// thread never waits on it: saving a whole draft (every declaration written and fsynced: seconds for a
// large plan) and the analysis behind the editor's marks (who owns which of the repository's files,
// collisions, the coordinator's files, the problems of each declaration file on disk). No `vscode`
// here: this module runs inside the worker (planWorkerMain.ts), or in the host's thread when no worker
// can start. Every answer is plain data that survives structured cloning.
import { join, relative, sep } from 'node:path';
import { nodePlanReadingFs } from '../node/declarationFs';
import { findCoordinatorAssignments, coordinatorFileOf } from '../planner/plan/coordinatorFiles';
import type { CoordinatorAssignment } from '../planner/plan/coordinatorFiles';
import { DeclarationChecker, manifestTextProblems } from '../planner/plan/declarationProblems';
import type { TextProblem } from '../planner/plan/declarationProblems';
import { waveDirPath, waveSidecarPath, agentIdOfFileName } from '../planner/plan/declarationPaths';
import { listDeclaredWaves, readWaveDeclaration } from '../planner/plan/declarationStore';
import { controlDirOf } from '../planner/plan/declarationInput';
import { validateDraft } from '../planner/plan/draftSave';
import type { DraftPlan, DraftSaveResult, DraftValidation } from '../planner/plan/draftSave';
import { processLocalSessionIds } from '../planner/plan/sessionBinding';
import { resolveStateDir } from '../planner/plan/stateDir';
import { MANIFEST_FILE_NAME } from '../planner/plan/stateDirNames';
import { narrowedEntry, waveOwnership } from '../planner/plan/waveOwnership';
import type { OwnershipClaim } from '../planner/plan/waveOwnership';
import type { ManifestOnDisk, WaveOnDisk } from '../planner/plan/staleWaves';
import { FileIndex } from '../planner/scope/fileIndex';
import type { RememberedLook } from './draftStore';
import { readDiskPlan, saveDraftToDisk } from './planFiles';

/** Save a whole draft through the planner's one draft save. */
export interface SaveWork {
  readonly repoRoot: string;
  readonly draft: DraftPlan;
  readonly ignoreCase: boolean;
  readonly files: readonly string[];
  /** One of STATE_DIR_NAMES, or undefined to resolve the state directory as the CLI does. */
  readonly stateDirName: string | undefined;
  /** The plan on disk the draft was edited from (SaveDraftOptions.base), when known. */
  readonly base?: DraftPlan | undefined;
  /** Waves changed on disk since the base that the person chose to overwrite (SaveDraftOptions.overwrite). */
  readonly overwrite?: readonly WaveOnDisk[] | undefined;
  /** The manifest on disk the person chose to write over, null for none (SaveDraftOptions.overwriteManifest). */
  readonly overwriteManifest?: ManifestOnDisk | null | undefined;
}

/** One wave of the plan to analyse: the planner's draft wave (lane colours included). */
export interface InsightWave {
  readonly wave: number;
  readonly role: string;
  readonly agents: readonly { readonly id: string; readonly color?: string; readonly entries: readonly string[] }[];
}

/** The plan analysed: the planner's draft shape. */
export interface InsightDraft {
  readonly waves: readonly InsightWave[];
  readonly activeWave?: number | undefined;
}

/** Analyse a folder's plan for the editor. */
export interface InsightWork {
  readonly repoRoot: string;
  /** The plan the planner shows (its draft or the kept one); absent: the plan on disk, read here. */
  readonly draft: InsightDraft | undefined;
  /** The lane colours and roles the planner remembers, for a plan read from disk. */
  readonly remembered: RememberedLook;
  readonly files: readonly string[];
  readonly ignoreCase: boolean;
  /** Analyse every wave, not only the one the manifest names. */
  readonly draftWaves: boolean;
}

/** A way to narrow one side of a collision (the planner's Narrow). */
export interface Narrowing {
  readonly agent: string;
  readonly entry: string;
  /** The agent the narrowed entry gives way to. */
  readonly other: string;
  /** What the entry would become: the files it keeps. */
  readonly files: readonly string[];
}

/** One collision, with the ways to narrow it. */
export interface CollisionInsight {
  readonly agents: readonly [string, string];
  readonly entries: readonly [string, string];
  readonly kind: 'concrete' | 'glob';
  readonly witness: string;
  readonly narrowings: readonly Narrowing[];
}

/** One wave as the editor shows it. */
export interface WaveInsight {
  readonly wave: number;
  readonly role: string;
  /** True for the wave the manifest names (or will, when saved). */
  readonly active: boolean;
  readonly agents: readonly { readonly id: string; readonly color: string; readonly entries: readonly string[] }[];
  /** File → its owners (the active wave only; empty for other waves). */
  readonly owners: readonly (readonly [string, readonly OwnershipClaim[]])[];
  /** Files two or more agents own, with every owner. */
  readonly contested: readonly { readonly file: string; readonly claims: readonly OwnershipClaim[] }[];
  readonly collisions: readonly CollisionInsight[];
  readonly duplicateIds: readonly string[];
  readonly coordinatorAssignments: readonly CoordinatorAssignment[];
}

/** The problems of one file on disk (repository-relative path). */
export interface FileProblems {
  readonly path: string;
  readonly problems: readonly TextProblem[];
}

/** What the editor shows of a folder's plan. */
export interface PlanInsightData {
  /** The plan that was analysed (the draft given, or the plan on disk as the planner would load it). */
  readonly draft: InsightDraft;
  /** A problem reading the plan on disk, for a person. */
  readonly diskProblem: string | undefined;
  /** The state directory the hooks read (repository-relative). */
  readonly stateDir: string;
  /** Whether anything of a plan is on disk: a manifest or a declared wave. */
  readonly planOnDisk: boolean;
  readonly activeWave: number | undefined;
  readonly waves: readonly WaveInsight[];
  /** The repository's files the coordinator keeps (coordinatorFiles.ts). */
  readonly coordinatorFiles: readonly string[];
  /** Every agent of every wave of the plan that owns a coordinator file. */
  readonly coordinatorAssignments: readonly (CoordinatorAssignment & { readonly wave: number })[];
  /** Every declaration file and manifest on disk that has problems. */
  readonly fileProblems: readonly FileProblems[];
  /** How long the analysis took in the worker (ms). */
  readonly milliseconds: number;
}

/** Every kind of work, its parameters and its answer. */
/** Proving a draft disjoint, wave by wave (Validate Plan, the Explorer's marks without a planner). */
export interface ValidateWork {
  readonly draft: DraftPlan;
  readonly files: readonly string[];
  readonly ignoreCase: boolean;
}

export interface PlanWorkTypes {
  save: { params: SaveWork; result: DraftSaveResult };
  insight: { params: InsightWork; result: PlanInsightData };
  validate: { params: ValidateWork; result: DraftValidation };
}
export type PlanWorkKind = keyof PlanWorkTypes;

function repoRelative(repoRoot: string, path: string): string {
  return relative(repoRoot, path).split(sep).join('/');
}

function save(work: SaveWork): DraftSaveResult {
  return saveDraftToDisk(work.repoRoot, work.draft, { ignoreCase: work.ignoreCase, files: work.files, stateDirName: work.stateDirName, base: work.base, overwrite: work.overwrite, overwriteManifest: work.overwriteManifest });
}

function waveInsight(wave: InsightWave, active: boolean, index: FileIndex): WaveInsight {
  const ownership = waveOwnership(wave.wave, wave.agents, index);
  const collisions = ownership.collisions.map((collision) => {
    const narrowings: Narrowing[] = [];
    for (const side of [0, 1] as const) {
      const agent = collision.agents[side];
      const entry = collision.entries[side];
      const other = collision.agents[1 - side] as string;
      const files = narrowedEntry(wave.agents, agent, entry, other, index);
      if (files !== undefined) narrowings.push({ agent, entry, other, files });
    }
    return { agents: collision.agents, entries: collision.entries, kind: collision.kind, witness: collision.witness, narrowings };
  });
  return {
    wave: wave.wave,
    role: wave.role,
    active,
    agents: wave.agents.map((agent) => ({ id: agent.id, color: agent.color ?? '', entries: [...agent.entries] })),
    owners: active ? [...ownership.owners] : [],
    contested: ownership.contested.map((file) => ({ file, claims: ownership.owners.get(file) ?? [] })),
    collisions,
    duplicateIds: ownership.duplicateIds,
    coordinatorAssignments: findCoordinatorAssignments(
      wave.agents.map((agent) => ({ id: agent.id, files: [...agent.entries] })),
      { files: index, ignoreCase: index.ignoreCase },
    ),
  };
}

/** The problems of every declaration file and of the manifest in the state directory the hooks read. */
function diskProblems(repoRoot: string, files: FileIndex, ownIds: ReadonlySet<string>): { stateDir: string; planOnDisk: boolean; fileProblems: FileProblems[] } {
  // Read as the hooks read them: a file reached through a link or a second name is reported unreadable.
  const fs = nodePlanReadingFs(repoRoot);
  const resolution = resolveStateDir(repoRoot, ownIds, fs);
  const stateDir = resolution.stateDir;
  const controlDir = controlDirOf(repoRoot, stateDir);
  const checker = new DeclarationChecker({ repoRoot, ignoreCase: files.ignoreCase, controlDir, files });
  const found = new Map<string, TextProblem[]>();
  const add = (path: string, problems: readonly TextProblem[]) => {
    if (problems.length === 0) return;
    const key = repoRelative(repoRoot, path);
    found.set(key, [...(found.get(key) ?? []), ...problems]);
  };
  const read = (path: string): string | undefined => {
    try {
      return fs.readText(path);
    } catch (error) {
      // A file the hooks would not read (a link, a second name, not a regular file): said on the file.
      add(path, [{ start: 0, end: 0, severity: 'error', code: 'unreadable', message: `the hooks cannot read this file: ${error instanceof Error ? error.message : String(error)}` }]);
      return undefined;
    }
  };
  const manifestFile = join(stateDir, MANIFEST_FILE_NAME);
  const manifestText = read(manifestFile);
  if (manifestText !== undefined) add(manifestFile, manifestTextProblems(manifestText));
  const waves = listDeclaredWaves(stateDir, fs);
  for (const wave of waves) {
    const sidecar = waveSidecarPath(stateDir, wave);
    const sidecarText = read(sidecar);
    if (sidecarText !== undefined) add(sidecar, checker.waveSidecarProblems(sidecarText));
    const dir = waveDirPath(stateDir, wave);
    for (const name of fs.listDir(dir) ?? []) {
      const id = agentIdOfFileName(name);
      if (id === undefined) continue;
      const path = join(dir, name);
      const text = read(path);
      if (text !== undefined) add(path, checker.agentScopeProblems(text, id));
    }
    // The two shapes against each other: what makes the hooks distrust a wave, on the file it is about.
    const declaration = readWaveDeclaration(stateDir, wave, fs, { ignoreCase: files.ignoreCase });
    if (declaration.status === 'inconsistent' || declaration.status === 'absent') {
      for (const problem of declaration.problems) {
        const stale = declaration.strayAgentFiles.find((id) => problem.includes(JSON.stringify(id)) && problem.startsWith('stale'));
        const target = stale !== undefined ? join(dir, `${stale}.json`) : declaration.status === 'absent' ? join(dir, `${declaration.agentFiles[0] ?? ''}.json`) : sidecar;
        add(target, [{ start: 0, end: 0, severity: 'error', code: `declaration-${declaration.status}`, message: problem }]);
      }
    }
  }
  return { stateDir: repoRelative(repoRoot, stateDir) || '.', planOnDisk: resolution.found || waves.length > 0, fileProblems: [...found].map(([path, problems]) => ({ path, problems })) };
}

function insight(work: InsightWork): PlanInsightData {
  const started = performance.now();
  const index = new FileIndex(work.files, { ignoreCase: work.ignoreCase });
  const disk = diskProblems(work.repoRoot, index, processLocalSessionIds({ env: process.env }));
  const read = work.draft === undefined ? readDiskPlan(work.repoRoot, work.remembered, work.ignoreCase) : undefined;
  const draft: InsightDraft = work.draft ?? (read?.plan as InsightDraft);
  const activeWave = draft.activeWave;
  const waves = draft.waves
    .filter((wave) => wave.wave === activeWave || work.draftWaves)
    .map((wave) => waveInsight(wave, wave.wave === activeWave, index));
  return {
    ...disk,
    draft,
    diskProblem: read?.problem,
    activeWave,
    waves,
    coordinatorFiles: work.files.filter((file) => coordinatorFileOf(file, { ignoreCase: work.ignoreCase }) !== undefined),
    coordinatorAssignments: draft.waves.flatMap((wave) =>
      (waves.find((item) => item.wave === wave.wave)?.coordinatorAssignments ??
        findCoordinatorAssignments(wave.agents.map((agent) => ({ id: agent.id, files: [...agent.entries] })), { files: index, ignoreCase: index.ignoreCase })
      ).map((assignment) => ({ ...assignment, wave: wave.wave })),
    ),
    milliseconds: performance.now() - started,
  };
}

/** Does one piece of work (in whichever thread calls it). */
export function runPlanWork<K extends PlanWorkKind>(kind: K, params: PlanWorkTypes[K]['params']): PlanWorkTypes[K]['result'] {
  switch (kind) {
    case 'save':
      return save(params as SaveWork) as PlanWorkTypes[K]['result'];
    case 'insight':
      return insight(params as InsightWork) as PlanWorkTypes[K]['result'];
    case 'validate': {
      const work = params as ValidateWork;
      return validateDraft(work.draft, work.files, work.ignoreCase) as PlanWorkTypes[K]['result'];
    }
    default:
      throw new Error(`unknown plan work ${String(kind)}`);
  }
}
