// What the planner's components are given: the model of one render (state, analysis, summary) and the
// controls they call back. The controller (webview/plannerView.ts) builds both; components only read
// the model and call the controls, so every rule lives in the pure modules beside them.
import type { AgentActivityView, ClaimConflictSummary, ClaimSummary } from '../../src/protocol/plannerProtocol';
import type { FolderNode } from '../fileTree';
import type { MatchCache, WaveAnalysis } from '../planAnalysis';
import type { AbsoluteRoot, PlannerAction, PlannerState } from '../plannerState';
import type { Summary, WaveFacts } from '../plannerSummary';

/** Other clones' claims as the host last reported them. */
export interface ClaimsModel {
  claims: ClaimSummary[];
  conflicts: ClaimConflictSummary[];
  problem: string | undefined;
}

export interface PlannerModel {
  state: PlannerState;
  folderName: string;
  ready: boolean;
  trusted: boolean;
  /** Why the planner could not load, or a problem reading the plan on disk. */
  loadProblem: string | undefined;
  diskProblem: string | undefined;
  /** The open wave's analysis; undefined until the match index is built (the tree paints first). */
  analysis: WaveAnalysis | undefined;
  /** Facts of every wave (collisions for the tabs, unowned counts). */
  facts: ReadonlyMap<number, WaveFacts>;
  summary: Summary;
  cache: MatchCache;
  tree: FolderNode;
  /** Repository files an agent can own (control state left out). */
  fileCount: number;
  controlFiles: ReadonlySet<string>;
  ignoreCase: boolean;
  absoluteRoots: readonly AbsoluteRoot[];
  claims: ClaimsModel;
  /** Agents the dispatch ledgers know, in flight or finished (`ledger show --json`, through the host). */
  activity: readonly AgentActivityView[];
  /** Labels of what undo and redo would do, if anything. */
  undoLabel: string | undefined;
  redoLabel: string | undefined;
}

/** A question the planner asks before a destructive action. */
export interface ConfirmRequest {
  title: string;
  /** What will go, with counts. */
  body: string;
  confirmLabel: string;
  /** The safe button's label; `Cancel` unless the choice needs naming. */
  cancelLabel?: string;
}

export interface PlannerControls {
  dispatch(action: PlannerAction): void;
  save(): void;
  /** Saves again over the waves a refused save found changed on disk, confirming first. */
  overwrite(): void;
  openFile(path: string): void;
  /** Asks for confirmation (a modal dialog); resolves true when confirmed. */
  confirm(request: ConfirmRequest): Promise<boolean>;
  /** Focuses the first element matching `selector` after the next render (it may not exist yet). */
  focusAfterRender(selector: string, fallback?: string): void;
  /** Deletes a wave, confirming first when it has agents. */
  deleteWave(wave: number): void;
  /** Removes an agent, confirming first when it has entries. */
  removeAgent(wave: number, agentId: string): void;
  /** Drops the draft for the plan on disk, confirming first (undo brings the draft back). */
  adoptDisk(): void;
  /** The entries a drop carries (tree rows, or files from VS Code's Explorer). */
  entriesFromDrop(data: DataTransfer | null): string[];
  /** Reports how long a drop took to paint its result (benchmarks read it). */
  droppedAt(started: number): void;
}

/** The drag type of the planner's own tree rows. */
export const DRAG_TYPE = 'application/x-wave-scope-entries';
