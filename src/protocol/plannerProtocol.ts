// Every message between the planner webview and the extension host, in one place.
//   XxxCommand            webview → host, fire and forget
//   XxxRequest            webview → host, answered by one ReplyMessage with the same id
//   DidXxxNotification    host → webview
// The webview sends ReadyRequest first; the host queues its notifications until it has seen it.
// Only types and type guards live here: both sides import this file, nothing else of each other.

/** Version of the persisted webview state and of stored drafts; anything else is dropped. */
export const PLANNER_STATE_VERSION = 1;

/** One agent of one wave in the planner's draft. */
export interface AgentDraft {
  /** Agent id; becomes `<state-dir>/filescopes/wave-<N>/<id>.json`. */
  id: string;
  /** Lane colour, a CSS hex colour `#rrggbb`; only the planner remembers it. */
  color: string;
  /** Normalised scope entries (plain paths, `dir/`, globs), in the order they were added. */
  entries: string[];
}

/** One wave of the draft. */
export interface WaveDraft {
  /** Positive wave number; the wave's name on disk is `wave-<N>`. */
  wave: number;
  /** The role the manifest records for this wave. */
  role: string;
  agents: AgentDraft[];
}

/** The whole plan of one workspace folder as the planner edits it. */
export interface PlanDraft {
  version: typeof PLANNER_STATE_VERSION;
  waves: WaveDraft[];
  /** The wave the manifest names (the one agents run now), if any. */
  activeWave: number | undefined;
}

/** A collision as the host reports it after a refused save. */
export interface CollisionSummary {
  wave: number;
  agents: [string, string];
  entries: [string, string];
  witness: string;
}

/** Outcome of a save, also sent when the save was started from the command palette. */
export type SaveOutcome =
  | { ok: true; wavesWritten: number[]; manifestWave: number | undefined; message: string }
  | { ok: false; message: string; step?: string; collisions: CollisionSummary[] };

/** A draft as the host keeps it between sessions (and window reloads). */
export interface StoredDraftRecord {
  draft: PlanDraft;
  /** Whether it had unsaved changes; a clean record means "the plan on disk is current". */
  dirty: boolean;
  /** When the webview changed it (ms since the epoch); the newer of two copies wins. */
  updatedAt: number;
}

/** What the host knows about the folder, answered to ReadyRequest. */
export interface ReadyResult {
  /** Workspace folder name, for the title. */
  folderName: string;
  /** The workspace folder's URI; the webview keeps it so a restored panel finds its folder again. */
  folderUri: string;
  /** URI of the repository root (`file:///…`), to turn files dropped from the Explorer into paths. */
  rootUri: string;
  /** Repository-relative files: tracked plus untracked and not ignored. */
  files: string[];
  /** Whether paths compare case-insensitively (git's core.ignorecase). */
  ignoreCase: boolean;
  /** The plan as it is on disk now. */
  diskPlan: PlanDraft;
  /** The last draft the host kept for this folder, if any; the webview keeps whichever is newer. */
  storedDraft: StoredDraftRecord | undefined;
  /** Writing declarations needs a trusted workspace. */
  trusted: boolean;
  /** A problem reading the plan from disk, for a person. */
  diskProblem: string | undefined;
}

// ---- webview → host ----------------------------------------------------------------------------

/** First message of the webview: asks for the folder's files and plan. */
export interface ReadyRequest {
  kind: 'request';
  id: number;
  method: 'ready';
  params: { stateVersion: number };
}

/** Save the draft through the safe chain. Answered with a SaveOutcome. */
export interface SavePlanRequest {
  kind: 'request';
  id: number;
  method: 'savePlan';
  params: { draft: PlanDraft };
}

/** The draft changed in the webview; the host keeps it (reload survival, decorations, palette commands). */
export interface DraftChangedCommand {
  kind: 'command';
  method: 'draftChanged';
  params: { draft: PlanDraft; contested: string[]; dirty: boolean; updatedAt: number };
}

/** Open a repository file in an editor. */
export interface OpenFileCommand {
  kind: 'command';
  method: 'openFile';
  params: { path: string };
}

/** Measured timings the webview reports (benchmarks read them from the host log). */
export interface ReportTimingCommand {
  kind: 'command';
  method: 'reportTiming';
  params: { name: string; milliseconds: number };
}

export type WebviewRequest = ReadyRequest | SavePlanRequest;
export type WebviewCommand = DraftChangedCommand | OpenFileCommand | ReportTimingCommand;
export type WebviewMessage = WebviewRequest | WebviewCommand;

// ---- host → webview ----------------------------------------------------------------------------

/** The answer to one request, matched by id: a result or an error. */
export interface ReplyMessage {
  kind: 'reply';
  id: number;
  result?: unknown;
  error?: { message: string; reason?: string };
}

/** The plan on disk changed (file watcher) or was reloaded. */
export interface DidLoadPlanNotification {
  kind: 'notification';
  method: 'didLoadPlan';
  params: { diskPlan: PlanDraft; problem: string | undefined };
}

/** The repository's file list changed. */
export interface DidChangeFilesNotification {
  kind: 'notification';
  method: 'didChangeFiles';
  params: { files: string[] };
}

/** Assign paths to an agent (Explorer's "Assign to Agent…"); a new wave or agent is created first. A folder path ends with `/`. */
export interface DidAssignNotification {
  kind: 'notification';
  method: 'didAssign';
  params: { wave: number; agentId: string; entries: string[] };
}

/** A save ran (from the planner or the palette); show its outcome. */
export interface DidSaveNotification {
  kind: 'notification';
  method: 'didSave';
  params: { outcome: SaveOutcome; savedDraft: PlanDraft | undefined };
}

/** Workspace trust changed. */
export interface DidChangeTrustNotification {
  kind: 'notification';
  method: 'didChangeTrust';
  params: { trusted: boolean };
}

/** Run a planner action from a palette command (keyboard equivalents that live in VS Code). */
export interface DidRequestActionNotification {
  kind: 'notification';
  method: 'didRequestAction';
  params: { action: 'addWave' | 'addAgent' | 'focusFilter' };
}

export type HostNotification =
  | DidLoadPlanNotification
  | DidChangeFilesNotification
  | DidAssignNotification
  | DidSaveNotification
  | DidChangeTrustNotification
  | DidRequestActionNotification;
export type HostMessage = ReplyMessage | HostNotification;

// ---- type guards -------------------------------------------------------------------------------

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

/** Whether `value` is a stored draft record with a well-formed draft. */
export function isStoredDraftRecord(value: unknown): value is StoredDraftRecord {
  return isRecord(value) && isPlanDraft(value.draft) && typeof value.dirty === 'boolean' && typeof value.updatedAt === 'number';
}

/** Whether `value` is a well-formed draft of the current version. */
export function isPlanDraft(value: unknown): value is PlanDraft {
  if (!isRecord(value) || value.version !== PLANNER_STATE_VERSION || !Array.isArray(value.waves)) return false;
  if (value.activeWave !== undefined && value.activeWave !== null && typeof value.activeWave !== 'number') return false;
  return value.waves.every(
    (wave) =>
      isRecord(wave) &&
      Number.isInteger(wave.wave) &&
      (wave.wave as number) > 0 &&
      typeof wave.role === 'string' &&
      Array.isArray(wave.agents) &&
      wave.agents.every(
        (agent) =>
          isRecord(agent) && typeof agent.id === 'string' && typeof agent.color === 'string' && isStringArray(agent.entries),
      ),
  );
}

function hasMethod(value: unknown, kind: string, method: string): value is { params: Record<string, unknown> } {
  return isRecord(value) && value.kind === kind && value.method === method && isRecord(value.params);
}

export function isReadyRequest(value: unknown): value is ReadyRequest {
  return hasMethod(value, 'request', 'ready') && typeof (value as unknown as ReadyRequest).id === 'number';
}

export function isSavePlanRequest(value: unknown): value is SavePlanRequest {
  return (
    hasMethod(value, 'request', 'savePlan') &&
    typeof (value as unknown as SavePlanRequest).id === 'number' &&
    isPlanDraft(value.params.draft)
  );
}

export function isDraftChangedCommand(value: unknown): value is DraftChangedCommand {
  return (
    hasMethod(value, 'command', 'draftChanged') &&
    isPlanDraft(value.params.draft) &&
    isStringArray(value.params.contested) &&
    typeof value.params.dirty === 'boolean' &&
    typeof value.params.updatedAt === 'number'
  );
}

export function isOpenFileCommand(value: unknown): value is OpenFileCommand {
  return hasMethod(value, 'command', 'openFile') && typeof value.params.path === 'string';
}

export function isReportTimingCommand(value: unknown): value is ReportTimingCommand {
  return (
    hasMethod(value, 'command', 'reportTiming') &&
    typeof value.params.name === 'string' &&
    typeof value.params.milliseconds === 'number'
  );
}

export function isReplyMessage(value: unknown): value is ReplyMessage {
  return isRecord(value) && value.kind === 'reply' && typeof value.id === 'number';
}

export function isDidLoadPlanNotification(value: unknown): value is DidLoadPlanNotification {
  return hasMethod(value, 'notification', 'didLoadPlan') && isPlanDraft(value.params.diskPlan);
}

export function isDidChangeFilesNotification(value: unknown): value is DidChangeFilesNotification {
  return hasMethod(value, 'notification', 'didChangeFiles') && isStringArray(value.params.files);
}

export function isDidAssignNotification(value: unknown): value is DidAssignNotification {
  return (
    hasMethod(value, 'notification', 'didAssign') &&
    typeof value.params.wave === 'number' &&
    typeof value.params.agentId === 'string' &&
    isStringArray(value.params.entries)
  );
}

export function isDidSaveNotification(value: unknown): value is DidSaveNotification {
  return hasMethod(value, 'notification', 'didSave') && isRecord(value.params.outcome);
}

export function isDidChangeTrustNotification(value: unknown): value is DidChangeTrustNotification {
  return hasMethod(value, 'notification', 'didChangeTrust') && typeof value.params.trusted === 'boolean';
}

export function isDidRequestActionNotification(value: unknown): value is DidRequestActionNotification {
  return (
    hasMethod(value, 'notification', 'didRequestAction') &&
    ['addWave', 'addAgent', 'focusFilter'].includes(value.params.action as string)
  );
}
