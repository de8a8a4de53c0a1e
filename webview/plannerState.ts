// The planner's state and every change to it, as a pure reducer: no DOM, no host, testable in Node.
// The view dispatches actions; the reducer returns a new state (or the same one when nothing changed).
// Every change of the draft is an edit with an undo entry; what a save said is kept only while it is
// still about the draft on screen, so the header never shows a status that stopped being true.
import { isAgentId, MAX_AGENT_ID_LENGTH } from '../src/planner/plan/agentId';
import { literalEntryOf } from '../src/planner/scope/literalEntry';
import { foldCase, normalizeScopeEntry, ScopeEntryError } from '../src/planner/scope/scopeEntry';
import { nextLaneColor } from '../src/protocol/laneColors';
import type {
  AgentDraft,
  ClaimConflictSummary,
  CollisionSummary,
  EditorNarrowing,
  PlanDraft,
  OverwriteChoice,
  SaveOutcome,
  StaleManifestSummary,
  StaleWaveSummary,
  WaveDraft,
} from '../src/protocol/plannerProtocol';
import { overwriteChoiceOf, planAsSaved, PLANNER_STATE_VERSION } from '../src/protocol/plannerProtocol';
import { count } from './wording';

/** One step back (or forward) in the draft's history. */
export interface HistoryEntry {
  /** The draft before the edit (for undo) or after it (for redo). */
  draft: PlanDraft;
  /** The wave whose tab was open, so undo shows where the change happened. */
  selectedWave: number | undefined;
  /** What the edit did, for a person ("Remove agent api"). */
  label: string;
}

/** What the last save said, kept only while it is still true of the draft on screen. */
export type SaveStatus =
  | { kind: 'idle' }
  | { kind: 'saving'; draftKey: string }
  | { kind: 'saved'; at: number }
  | {
      kind: 'refused';
      draftKey: string;
      message: string;
      collisions: CollisionSummary[];
      claimConflicts: ClaimConflictSummary[];
      /** Waves someone changed on disk after the draft was made (step `stale`): load the disk, or overwrite them. */
      staleWaves: StaleWaveSummary[];
      /** The manifest (its wave, its role, or removed), changed on disk after the draft was made (step `stale`), if so. */
      staleManifest?: StaleManifestSummary | undefined;
    }
  | { kind: 'failed'; draftKey: string; message: string; uncertain: boolean };

/** A message shown at one input (the Settings editor's inline validation), not in a banner. */
export interface FieldMessage {
  /** Which input: `agent:<wave>:<id>`, `role:<wave>`, `number:<wave>`, `new-agent:<wave>`. */
  field: string;
  kind: 'error' | 'note';
  text: string;
}

/** Everything the webview persists (with `setState`) and renders. */
export interface PlannerState {
  version: typeof PLANNER_STATE_VERSION;
  /** The draft being edited. */
  draft: PlanDraft;
  /** The plan on disk when last read; `dirty` compares against it. */
  diskPlan: PlanDraft;
  /**
   * The plan on disk the draft was edited from: equal to `diskPlan` whenever the draft is clean. When the
   * disk changes under unsaved edits the two differ, and only then does the planner offer to load the disk.
   */
  base: PlanDraft;
  /** The wave whose tab is open. */
  selectedWave: number | undefined;
  /** Whether the draft differs from the plan on disk. */
  dirty: boolean;
  /** The lane that keyboard assignment and `Enter` in the tree target. */
  targetAgent: string | undefined;
  /** Filter text of the file tree. */
  filter: string;
  /** All files, or only the ones no agent of the open wave owns. */
  treeMode: 'all' | 'unassigned';
  /** Width of the file tree in CSS pixels (the splitter). */
  treeWidth: number;
  /** Expanded folders of the file tree (repository-relative, no trailing slash). */
  expanded: string[];
  /** A problem that belongs to no input (a drop that was refused); cleared by the next action. */
  notice: string | undefined;
  /** The message of one input (an id that was adjusted, a role that was refused). */
  fieldMessage: FieldMessage | undefined;
  /** Edits that can be undone (oldest first) and redone (next first). */
  history: { past: HistoryEntry[]; future: HistoryEntry[] };
  /** What the last save said. */
  save: SaveStatus;
  /** The workspace folder this planner belongs to (so VS Code can restore the panel for it). */
  folderUri?: string;
  /** When the draft (or its saved/clean status) last changed, ms since the epoch; set by the view. */
  updatedAt?: number;
}

export type PlannerAction =
  | { type: 'loadDisk'; diskPlan: PlanDraft; keepDraft?: PlanDraft; keepBase?: PlanDraft }
  | { type: 'adoptDisk' }
  | { type: 'saveStarted' }
  | { type: 'saveFinished'; outcome: SaveOutcome; draft: PlanDraft | undefined; at: number }
  | { type: 'saveFailed'; message: string; uncertain: boolean }
  | { type: 'undo' }
  | { type: 'redo' }
  | { type: 'selectWave'; wave: number }
  | { type: 'addWave' }
  | { type: 'renumberWave'; wave: number; to: number }
  | { type: 'deleteWave'; wave: number }
  | { type: 'setRole'; wave: number; role: string }
  | { type: 'setActiveWave'; wave: number | undefined }
  | { type: 'addAgent'; wave: number; id?: string }
  | { type: 'ensureAgent'; wave: number; agentId: string }
  | { type: 'renameAgent'; wave: number; agentId: string; to: string }
  | { type: 'removeAgent'; wave: number; agentId: string }
  | { type: 'setAgentColor'; wave: number; agentId: string; color: string }
  | { type: 'setTargetAgent'; agentId: string | undefined }
  | { type: 'addEntries'; wave: number; agentId: string; entries: string[] }
  | { type: 'removeEntry'; wave: number; agentId: string; entry: string }
  /** Narrowing: `entry` becomes one entry per file of `with` (repository files, each named exactly). */
  | { type: 'replaceEntry'; wave: number; agentId: string; entry: string; with: string[] }
  /**
   * The editor's Narrow (DidNarrowNotification): the same narrowing made on this draft as one edit, then what
   * its save said. A draft without the narrowed entry is left as it is when the save was refused (see narrowingFit).
   */
  | { type: 'takeNarrowing'; narrowing: EditorNarrowing; at: number }
  /** The person chose the editor's narrowed draft in place of this one, which no longer had the narrowed entry. */
  | { type: 'adoptNarrowed'; narrowing: EditorNarrowing; at: number }
  | { type: 'setFilter'; filter: string }
  | { type: 'setTreeMode'; mode: 'all' | 'unassigned' }
  | { type: 'setTreeWidth'; width: number }
  | { type: 'toggleFolder'; folder: string; expanded?: boolean }
  | { type: 'notify'; notice: string }
  | { type: 'dismissNotice' }
  | { type: 'clearFieldMessage' };

/** How many edits undo remembers. */
export const HISTORY_LIMIT = 200;

/** The tree's width when nothing was chosen, and its bounds (CSS pixels). */
export const TREE_WIDTH = { initial: 264, min: 180, max: 560 } as const;

/** Options of the reducer: how entries are normalised. */
export interface ReduceOptions {
  ignoreCase?: boolean;
  /** Absolute folders of the repository, to make pasted absolute paths relative (see normalizeEntry). */
  absoluteRoots?: readonly AbsoluteRoot[];
}

/** An absolute spelling of a folder of the repository and that folder's repository-relative path. */
export interface AbsoluteRoot {
  path: string;
  repoRelative: string;
}

/** An empty plan: one wave with no agents. */
export function emptyDraft(): PlanDraft {
  return { version: PLANNER_STATE_VERSION, waves: [{ wave: 1, role: 'builder', agents: [] }], activeWave: undefined };
}

/** The state the planner starts from, before the host has answered. */
export function initialState(diskPlan: PlanDraft = emptyDraft()): PlannerState {
  return {
    version: PLANNER_STATE_VERSION,
    draft: diskPlan,
    diskPlan,
    base: diskPlan,
    selectedWave: diskPlan.activeWave ?? diskPlan.waves[0]?.wave,
    dirty: false,
    targetAgent: undefined,
    filter: '',
    treeMode: 'all',
    treeWidth: TREE_WIDTH.initial,
    expanded: [],
    notice: undefined,
    fieldMessage: undefined,
    history: { past: [], future: [] },
    save: { kind: 'idle' },
  };
}

/**
 * Persisted state of this version, completed with what an older build of the same version did not keep
 * (the base, the history, the tree's width); anything else is dropped (undefined).
 */
export function restoreState(value: unknown): PlannerState | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const state = value as Partial<PlannerState>;
  if (
    state.version !== PLANNER_STATE_VERSION ||
    typeof state.draft !== 'object' ||
    state.draft === null ||
    typeof state.diskPlan !== 'object' ||
    state.diskPlan === null ||
    !Array.isArray(state.expanded) ||
    typeof state.filter !== 'string'
  ) {
    return undefined;
  }
  const fresh = initialState(state.diskPlan);
  const history = state.history && Array.isArray(state.history.past) && Array.isArray(state.history.future) ? state.history : fresh.history;
  // A save under way when the page went is not under way any more; a refusal kept by an older build of
  // this version is completed.
  const kept = state.save && state.save.kind !== 'saving' ? state.save : fresh.save;
  const save: SaveStatus = kept.kind === 'refused' ? { ...kept, claimConflicts: kept.claimConflicts ?? [], staleWaves: kept.staleWaves ?? [] } : kept;
  return {
    ...fresh,
    ...state,
    base: state.base ?? state.diskPlan,
    treeMode: state.treeMode === 'unassigned' ? 'unassigned' : 'all',
    treeWidth: clampTreeWidth(state.treeWidth ?? TREE_WIDTH.initial),
    history,
    save,
    notice: undefined,
    fieldMessage: undefined,
  } as PlannerState;
}

/** Whether `value` is persisted state this build can restore. */
export function isPlannerState(value: unknown): value is PlannerState {
  return restoreState(value) !== undefined;
}

function clampTreeWidth(width: number): number {
  if (!Number.isFinite(width)) return TREE_WIDTH.initial;
  return Math.round(Math.min(TREE_WIDTH.max, Math.max(TREE_WIDTH.min, width)));
}

function sortedAgents(wave: WaveDraft): { id: string; entries: string[] }[] {
  return [...wave.agents]
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((agent) => ({ id: agent.id, entries: [...agent.entries].sort() }));
}

/** Canonical JSON of a draft, for comparing drafts regardless of colour and order. */
export function draftKey(draft: PlanDraft): string {
  return JSON.stringify({
    active: draft.activeWave ?? null,
    waves: [...draft.waves].sort((a, b) => a.wave - b.wave).map((wave) => ({ wave: wave.wave, role: wave.role, agents: sortedAgents(wave) })),
  });
}

/** Whether two drafts declare the same plan (order of agents and entries and lane colours aside). */
export function sameDraft(a: PlanDraft, b: PlanDraft): boolean {
  return draftKey(a) === draftKey(b);
}

/**
 * Whether two drafts hold the same plan as far as the disk records it: waves, agents, entries, the active
 * wave and its role, and the manifest when both record it (an empty wave 1 reads the same with or without a
 * manifest naming it). The roles of the other waves live only in the planner's memory (they are not
 * written), so a changed role there never means that the disk changed.
 */
export function samePlanOnDisk(a: PlanDraft, b: PlanDraft): boolean {
  if (a.manifest !== undefined && b.manifest !== undefined) {
    const [one, other] = [a.manifest, b.manifest];
    if (one === null || other === null ? one !== other : one.wave !== other.wave || one.role !== other.role) return false;
  }
  const key = (draft: PlanDraft) =>
    JSON.stringify({
      active: draft.activeWave ?? null,
      waves: [...draft.waves]
        .sort((x, y) => x.wave - y.wave)
        .map((wave) => ({ wave: wave.wave, role: wave.wave === draft.activeWave ? wave.role : null, agents: sortedAgents(wave) })),
    });
  return key(a) === key(b);
}

/** Whether the plan on disk changed under unsaved edits (then, and only then, the planner offers to load it). */
export function diskChangedUnderDraft(state: PlannerState): boolean {
  return state.dirty && !samePlanOnDisk(state.base, state.diskPlan);
}

const WINDOWS_ABSOLUTE = /^[A-Za-z]:[\\/]/;

/** Whether a typed entry is an absolute path (POSIX, a Windows drive, or a `file:` URI). */
function isAbsoluteSpelling(text: string): boolean {
  return text.startsWith('/') || text.startsWith('\\\\') || WINDOWS_ABSOLUTE.test(text) || /^file:\/\//i.test(text);
}

/** A `file:` URI as a path (`file:///c%3A/x` → `c:/x`); anything else unchanged. */
function pathOfFileUri(text: string): string {
  if (!/^file:\/\//i.test(text)) return text;
  let path = text.replace(/^file:\/\/[^/]*/i, '');
  try {
    path = decodeURIComponent(path);
  } catch {
    // Not percent-encoded after all: keep it as typed.
  }
  return /^\/[A-Za-z]:\//.test(path) ? path.slice(1) : path;
}

/** What a typed or dropped entry became: the normalised entry (and a note when it was rewritten), or why not. */
export type NormalizedEntry = { entry: string; note?: string } | { problem: string };

/**
 * Normalises what a person typed or dropped. An absolute path inside the repository (pasted from the
 * Explorer's Copy Path, or a `file:` URI) is made relative to it, with a note; one outside it is refused.
 */
export function normalizeEntry(raw: string, options: ReduceOptions = {}): NormalizedEntry {
  const trimmed = raw.trim().replace(/^(["'])(.*)\1$/, '$2');
  if (trimmed === '') return { problem: 'An entry cannot be empty: type a path, a folder ending in / or a glob.' };
  try {
    if (!isAbsoluteSpelling(trimmed)) return { entry: normalizeScopeEntry(trimmed, { ignoreCase: options.ignoreCase }) };
    const path = pathOfFileUri(trimmed);
    const roots = options.absoluteRoots ?? [];
    let firstProblem: string | undefined;
    for (const root of roots) {
      try {
        const relative = normalizeScopeEntry(path, { ignoreCase: options.ignoreCase || WINDOWS_ABSOLUTE.test(root.path), repoRoot: root.path });
        const prefix = root.repoRelative.replace(/^\/+|\/+$/g, '');
        const entry = prefix === '' ? relative : normalizeScopeEntry(`${prefix}/${relative}`, { ignoreCase: options.ignoreCase });
        return { entry, note: `Made relative to the repository: ${entry}` };
      } catch (error) {
        if (!(error instanceof ScopeEntryError)) throw error;
        if (error.reason !== 'absolute-outside-root') return { problem: error.message };
        firstProblem ??= error.message;
      }
    }
    return { problem: firstProblem ?? `"${trimmed}" is an absolute path: write it relative to the repository root.` };
  } catch (error) {
    if (error instanceof ScopeEntryError) return { problem: error.message };
    throw error;
  }
}

/** Checks an agent id: it becomes a file name, so it is kept to letters, digits, `_` and `-`. */
export function agentIdProblem(id: string): string | undefined {
  if (!isAgentId(id)) {
    return `"${id}" cannot be an agent id: use up to ${MAX_AGENT_ID_LENGTH} letters, digits, "_" or "-", starting with a letter or digit.`;
  }
  return undefined;
}

/**
 * An agent id from what a person typed: spaces and other characters a file name should not have become
 * `-` ("frontend dev" → "frontend-dev"), with a note saying so; refused only when nothing usable is left.
 */
export function suggestAgentId(raw: string): { id: string; note?: string } | { problem: string } {
  const typed = raw.trim();
  if (typed === '') return { problem: 'An agent needs an id, for example "frontend".' };
  if (isAgentId(typed)) return { id: typed };
  const adjusted = typed
    .replace(/[^A-Za-z0-9_-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .replace(/-+$/, '');
  if (adjusted === '' || !isAgentId(adjusted)) {
    return { problem: agentIdProblem(typed) ?? `"${typed}" cannot be an agent id.` };
  }
  return { id: adjusted, note: `"${typed}" became "${adjusted}": agent ids are file names (letters, digits, "_" and "-").` };
}

function mapWave(draft: PlanDraft, wave: number, change: (wave: WaveDraft) => WaveDraft): PlanDraft {
  return { ...draft, waves: draft.waves.map((item) => (item.wave === wave ? change(item) : item)) };
}

function mapAgent(draft: PlanDraft, wave: number, agentId: string, change: (agent: AgentDraft) => AgentDraft): PlanDraft {
  return mapWave(draft, wave, (item) => ({
    ...item,
    agents: item.agents.map((agent) => (agent.id === agentId ? change(agent) : agent)),
  }));
}

function findWave(draft: PlanDraft, wave: number): WaveDraft | undefined {
  return draft.waves.find((item) => item.wave === wave);
}

/** A colour not yet used in the wave, or the next one round the palette. */
function nextColor(wave: WaveDraft): string {
  return nextLaneColor(wave.agents.map((agent) => agent.color));
}

/** A draft change, before history and status are applied to it. */
interface Edit {
  draft: PlanDraft;
  label: string;
  extra?: Partial<PlannerState>;
}

function problem(state: PlannerState, notice: string): PlannerState {
  return { ...state, notice };
}

function fieldProblem(state: PlannerState, field: string, text: string): PlannerState {
  return { ...state, fieldMessage: { field, kind: 'error', text }, notice: undefined };
}

/** Where the draft now stands against the disk: dirty, and the base (the disk, whenever the draft is clean). */
function settle(state: PlannerState): PlannerState {
  const dirty = !sameDraft(state.draft, state.diskPlan);
  return { ...state, dirty, base: dirty ? state.base : state.diskPlan };
}

/** A save's refusal or failure is about the draft it was given: any other draft drops it. */
function freshSave(save: SaveStatus, draft: PlanDraft): SaveStatus {
  if (save.kind === 'refused' || save.kind === 'failed' || save.kind === 'saving') return save.draftKey === draftKey(draft) ? save : { kind: 'idle' };
  return save;
}

/** Applies an edit: one undo entry, no redo, stale save messages dropped. */
function applyEdit(state: PlannerState, edit: Edit): PlannerState {
  if (edit.draft === state.draft) return { ...state, ...edit.extra };
  const past = [...state.history.past, { draft: state.draft, selectedWave: state.selectedWave, label: edit.label }].slice(-HISTORY_LIMIT);
  return settle({
    ...state,
    notice: undefined,
    fieldMessage: undefined,
    ...edit.extra,
    draft: edit.draft,
    history: { past, future: [] },
    save: freshSave(state.save, edit.draft),
  });
}

/** Shows `draft` again (undo or redo), with the tab where it changed. */
function travel(state: PlannerState, entry: HistoryEntry, history: PlannerState['history']): PlannerState {
  const waves = entry.draft.waves.map((wave) => wave.wave);
  const selected =
    entry.selectedWave !== undefined && waves.includes(entry.selectedWave)
      ? entry.selectedWave
      : state.selectedWave !== undefined && waves.includes(state.selectedWave)
        ? state.selectedWave
        : (entry.draft.activeWave ?? waves[0]);
  const wave = selected === undefined ? undefined : findWave(entry.draft, selected);
  const target = wave?.agents.some((agent) => agent.id === state.targetAgent) ? state.targetAgent : undefined;
  return settle({
    ...state,
    draft: entry.draft,
    selectedWave: selected,
    targetAgent: target,
    history,
    notice: undefined,
    fieldMessage: undefined,
    save: freshSave(state.save, entry.draft),
  });
}

/** The waves a refused save found changed on disk since its draft was made (empty for any other status). */
export function staleWavesOf(state: PlannerState): StaleWaveSummary[] {
  return state.save.kind === 'refused' ? state.save.staleWaves : [];
}

/** What a refused save found changed on disk since its draft was made, one sentence each (empty for any other status). */
export function staleChangesOf(state: PlannerState): string[] {
  if (state.save.kind !== 'refused') return [];
  const waves = state.save.staleWaves.map((stale) => `wave ${stale.wave}: ${stale.changes.join('; ')}`);
  const manifest = state.save.staleManifest;
  return manifest === undefined ? waves : [...waves, manifest.change];
}

/**
 * What an overwrite of the refused save names (SavePlanRequest.overwrite): each changed wave as the
 * refusal showed it on disk, so only that version is written over. Undefined when there is nothing to
 * overwrite: no such refusal, or it was about another draft (an edit since drops it).
 */
export function overwriteOf(state: PlannerState): OverwriteChoice | undefined {
  const save = state.save;
  if (save.kind !== 'refused' || freshSave(save, state.draft) !== save) return undefined;
  return overwriteChoiceOf({ ok: false, message: save.message, collisions: [], staleWaves: save.staleWaves, staleManifest: save.staleManifest });
}

/**
 * How an editor narrowing meets the draft on screen: `same` (the draft is the narrowed one already),
 * `unedited` (the draft has no unsaved edits: it is a plan on disk, and the narrowed draft takes its place),
 * `fits` (the draft's wave still gives the agent the narrowed entry: the narrowing is made again on it, its
 * unsaved edits kept) or `apart` (the entry is gone: only the narrowed draft in place of this one keeps it).
 */
export function narrowingFit(state: PlannerState, narrowing: EditorNarrowing): 'same' | 'unedited' | 'fits' | 'apart' {
  if (sameDraft(state.draft, narrowing.narrowed)) return 'same';
  if (!state.dirty) return 'unedited';
  const agent = findWave(state.draft, narrowing.wave)?.agents.find((item) => item.id === narrowing.agentId);
  return agent?.entries.includes(narrowing.entry) ? 'fits' : 'apart';
}

/** The narrowed draft in place of the one on screen, as one edit, with the base it was made from. */
function useNarrowed(state: PlannerState, narrowing: EditorNarrowing, label: string): PlannerState {
  return applyEdit(state, { draft: narrowing.narrowed, label, extra: { base: narrowing.base ?? state.base, selectedWave: narrowing.wave } });
}

/**
 * What an editor narrowing's save said, on the draft that now holds the narrowing. A save makes the narrowed
 * draft the plan on disk (edits on top stay unsaved). A refusal compared the disk with the base the narrowing
 * was made from: it is shown only when this draft was edited from that same plan on disk; a draft edited from
 * another (it followed the disk, or loaded it) already holds what changed, and its own save compares with that.
 */
function narrowingOutcome(state: PlannerState, narrowing: EditorNarrowing, at: number): PlannerState {
  const { outcome } = narrowing;
  if (outcome.ok) return reduce(state, { type: 'saveFinished', outcome, draft: narrowing.narrowed, at });
  if (narrowing.base === undefined || !samePlanOnDisk(state.base, narrowing.base)) return state;
  return reduce(state, { type: 'saveFinished', outcome, draft: undefined, at });
}

/** The label of the edit undo would take back, if any. */
export function undoLabel(state: PlannerState): string | undefined {
  return state.history.past[state.history.past.length - 1]?.label;
}

/** The label of the edit redo would make again, if any. */
export function redoLabel(state: PlannerState): string | undefined {
  return state.history.future[0]?.label;
}

/** Applies one action. Pure: the same state and action always give the same result. */
export function reduce(state: PlannerState, action: PlannerAction, options: ReduceOptions = {}): PlannerState {
  const edit = editOf(state, action, options);
  if (edit !== undefined) return 'state' in edit ? edit.state : applyEdit(state, edit);
  const { draft } = state;
  switch (action.type) {
    case 'loadDisk': {
      const keep = action.keepDraft ?? (state.dirty ? state.draft : undefined);
      const draftNow = keep ?? action.diskPlan;
      const waveNumbers = draftNow.waves.map((wave) => wave.wave);
      const selected =
        state.selectedWave !== undefined && waveNumbers.includes(state.selectedWave)
          ? state.selectedWave
          : (draftNow.activeWave ?? waveNumbers[0]);
      // The base of a kept draft: the one it came with, else (a record that did not keep one) the disk
      // now, which never raises a false "the disk changed" offer.
      const base = action.keepDraft !== undefined ? (action.keepBase ?? action.diskPlan) : keep !== undefined ? state.base : action.diskPlan;
      const next = settle({ ...state, diskPlan: action.diskPlan, draft: draftNow, base, selectedWave: selected });
      // A save that timed out and whose draft is now on disk did land.
      if (next.save.kind === 'failed' && next.save.uncertain && !next.dirty) return { ...next, save: { kind: 'idle' } };
      return { ...next, save: freshSave(next.save, draftNow) };
    }
    case 'saveStarted':
      return { ...state, save: { kind: 'saving', draftKey: draftKey(draft) }, notice: undefined };
    case 'saveFinished': {
      const { outcome } = action;
      if (outcome.ok) {
        // What was saved is the disk now, with the manifest the save wrote (or left alone); edits made while
        // the save ran stay unsaved on top of it.
        const saved = planAsSaved(action.draft ?? draft, state.base, outcome);
        return settle({ ...state, diskPlan: saved, base: saved, save: { kind: 'saved', at: action.at } });
      }
      return {
        ...state,
        save: {
          kind: 'refused',
          draftKey: draftKey(action.draft ?? draft),
          message: outcome.message,
          collisions: outcome.collisions,
          claimConflicts: outcome.claimConflicts ?? [],
          staleWaves: outcome.staleWaves ?? [],
          staleManifest: outcome.staleManifest,
        },
      };
    }
    case 'saveFailed':
      return { ...state, save: { kind: 'failed', draftKey: draftKey(draft), message: action.message, uncertain: action.uncertain } };
    case 'takeNarrowing': {
      const { narrowing } = action;
      const what = `${narrowing.agentId}’s ${narrowing.entry}`;
      switch (narrowingFit(state, narrowing)) {
        case 'same':
          return narrowingOutcome(state, narrowing, action.at);
        case 'unedited':
          return narrowingOutcome(useNarrowed(state, narrowing, `Narrow ${what} (from the editor)`), narrowing, action.at);
        case 'fits': {
          const shown = reduce(state, { type: 'selectWave', wave: narrowing.wave }, options);
          const edited = reduce(shown, { type: 'replaceEntry', wave: narrowing.wave, agentId: narrowing.agentId, entry: narrowing.entry, with: narrowing.files }, options);
          return narrowingOutcome(edited, narrowing, action.at);
        }
        case 'apart':
          // Saved: the disk holds the narrowing, this draft's own edits stay on top. Refused: keeping the
          // narrowing would replace this draft, which the person is asked about first (adoptNarrowed).
          return narrowing.outcome.ok ? narrowingOutcome(state, narrowing, action.at) : state;
      }
      return state;
    }
    case 'adoptNarrowed':
      return narrowingOutcome(useNarrowed(state, action.narrowing, `Use the draft with ${action.narrowing.agentId}’s ${action.narrowing.entry} narrowed`), action.narrowing, action.at);
    case 'undo': {
      const past = [...state.history.past];
      const entry = past.pop();
      if (!entry) return state;
      const future = [{ draft, selectedWave: state.selectedWave, label: entry.label }, ...state.history.future];
      return travel(state, entry, { past, future });
    }
    case 'redo': {
      const [entry, ...future] = state.history.future;
      if (!entry) return state;
      const past = [...state.history.past, { draft, selectedWave: state.selectedWave, label: entry.label }].slice(-HISTORY_LIMIT);
      return travel(state, entry, { past, future });
    }
    case 'selectWave':
      return findWave(draft, action.wave) && action.wave !== state.selectedWave
        ? { ...state, selectedWave: action.wave, targetAgent: undefined, fieldMessage: undefined }
        : state;
    case 'setTargetAgent':
      return state.targetAgent === action.agentId ? state : { ...state, targetAgent: action.agentId };
    case 'setFilter':
      return state.filter === action.filter ? state : { ...state, filter: action.filter };
    case 'setTreeMode':
      return state.treeMode === action.mode ? state : { ...state, treeMode: action.mode };
    case 'setTreeWidth': {
      const width = clampTreeWidth(action.width);
      return width === state.treeWidth ? state : { ...state, treeWidth: width };
    }
    case 'toggleFolder': {
      const isOpen = state.expanded.includes(action.folder);
      const open = action.expanded ?? !isOpen;
      if (open === isOpen) return state;
      return { ...state, expanded: open ? [...state.expanded, action.folder] : state.expanded.filter((f) => f !== action.folder) };
    }
    case 'notify':
      return { ...state, notice: action.notice };
    case 'dismissNotice':
      return state.notice === undefined ? state : { ...state, notice: undefined };
    case 'clearFieldMessage':
      return state.fieldMessage === undefined ? state : { ...state, fieldMessage: undefined };
    default:
      return state;
  }
}

/** The edit an action makes, a state it ends in without an edit (a refusal), or undefined when it is no edit. */
function editOf(state: PlannerState, action: PlannerAction, options: ReduceOptions): Edit | { state: PlannerState } | undefined {
  const { draft } = state;
  const refuse = (next: PlannerState) => ({ state: next });
  switch (action.type) {
    case 'adoptDisk':
      // Undoable like any edit: the draft it drops comes back with undo.
      return { draft: state.diskPlan, label: 'Load the plan from disk', extra: { base: state.diskPlan } };
    case 'addWave': {
      const next = Math.max(0, ...draft.waves.map((wave) => wave.wave)) + 1;
      const waves = [...draft.waves, { wave: next, role: 'builder', agents: [] }];
      return { draft: { ...draft, waves }, label: `Add wave ${next}`, extra: { selectedWave: next, targetAgent: undefined } };
    }
    case 'renumberWave': {
      const field = `number:${action.wave}`;
      if (!Number.isInteger(action.to) || action.to < 1) return refuse(fieldProblem(state, field, `Wave numbers are whole numbers from 1: "${action.to}" is not one.`));
      if (action.to === action.wave) return refuse(state);
      if (findWave(draft, action.to)) return refuse(fieldProblem(state, field, `There is already a wave ${action.to}.`));
      const renumbered = mapWave(draft, action.wave, (wave) => ({ ...wave, wave: action.to }));
      const next: PlanDraft = {
        ...renumbered,
        waves: [...renumbered.waves].sort((a, b) => a.wave - b.wave),
        activeWave: draft.activeWave === action.wave ? action.to : draft.activeWave,
      };
      return {
        draft: next,
        label: `Renumber wave ${action.wave} to ${action.to}`,
        extra: { selectedWave: state.selectedWave === action.wave ? action.to : state.selectedWave },
      };
    }
    case 'deleteWave': {
      if (!findWave(draft, action.wave)) return refuse(state);
      const waves = draft.waves.filter((wave) => wave.wave !== action.wave);
      const next: PlanDraft = { ...draft, waves, activeWave: draft.activeWave === action.wave ? undefined : draft.activeWave };
      const at = draft.waves.findIndex((wave) => wave.wave === action.wave);
      const selectedWave = state.selectedWave === action.wave ? (waves[Math.min(at, waves.length - 1)]?.wave ?? undefined) : state.selectedWave;
      return { draft: next, label: `Delete wave ${action.wave}`, extra: { selectedWave, targetAgent: undefined } };
    }
    case 'setRole': {
      const role = action.role.trim();
      const wave = findWave(draft, action.wave);
      if (!wave) return refuse(state);
      if (role === '') return refuse(fieldProblem(state, `role:${action.wave}`, 'A wave needs a role, for example "builder".'));
      if (role === wave.role) return refuse(state);
      return { draft: mapWave(draft, action.wave, (item) => ({ ...item, role })), label: `Set the role of wave ${action.wave} to ${role}` };
    }
    case 'setActiveWave':
      if (action.wave !== undefined && !findWave(draft, action.wave)) return refuse(state);
      if (draft.activeWave === action.wave) return refuse(state);
      return {
        draft: { ...draft, activeWave: action.wave },
        label: action.wave === undefined ? `Make wave ${draft.activeWave} inactive` : `Make wave ${action.wave} active`,
      };
    case 'addAgent': {
      const wave = findWave(draft, action.wave);
      if (!wave) return refuse(state);
      const field = `new-agent:${action.wave}`;
      let id: string;
      let note: string | undefined;
      if (action.id === undefined || action.id.trim() === '') {
        let counter = wave.agents.length + 1;
        while (wave.agents.some((agent) => agent.id === `agent-${counter}`)) counter += 1;
        id = `agent-${counter}`;
      } else {
        const suggested = suggestAgentId(action.id);
        if ('problem' in suggested) return refuse(fieldProblem(state, field, suggested.problem));
        id = suggested.id;
        note = suggested.note;
      }
      if (wave.agents.some((agent) => agent.id === id)) return refuse(fieldProblem(state, field, `Wave ${wave.wave} already has an agent "${id}".`));
      const agent: AgentDraft = { id, color: nextColor(wave), entries: [] };
      return {
        draft: mapWave(draft, action.wave, (item) => ({ ...item, agents: [...item.agents, agent] })),
        label: `Add agent ${id}`,
        extra: { targetAgent: id, fieldMessage: note ? { field: `agent:${action.wave}:${id}`, kind: 'note', text: note } : undefined },
      };
    }
    case 'ensureAgent': {
      if (!Number.isSafeInteger(action.wave) || action.wave < 1) return refuse(problem(state, `"${action.wave}" is not a wave number.`));
      let next = draft;
      if (!findWave(next, action.wave)) {
        const waves = [...next.waves, { wave: action.wave, role: 'builder', agents: [] }].sort((a, b) => a.wave - b.wave);
        next = { ...next, waves };
      }
      const wave = findWave(next, action.wave) as WaveDraft;
      if (wave.agents.some((agent) => agent.id === action.agentId)) {
        return next === draft ? refuse(state) : { draft: next, label: `Add wave ${action.wave}` };
      }
      const idProblem = agentIdProblem(action.agentId);
      if (idProblem) return refuse(problem(state, idProblem));
      const agent: AgentDraft = { id: action.agentId, color: nextColor(wave), entries: [] };
      return { draft: mapWave(next, action.wave, (item) => ({ ...item, agents: [...item.agents, agent] })), label: `Add agent ${action.agentId}` };
    }
    case 'renameAgent': {
      const wave = findWave(draft, action.wave);
      if (!wave || !wave.agents.some((agent) => agent.id === action.agentId)) return refuse(state);
      const field = `agent:${action.wave}:${action.agentId}`;
      const suggested = suggestAgentId(action.to);
      if ('problem' in suggested) return refuse(fieldProblem(state, field, suggested.problem));
      const to = suggested.id;
      if (to === action.agentId) {
        return refuse(suggested.note ? { ...state, fieldMessage: { field, kind: 'note', text: suggested.note } } : state);
      }
      if (wave.agents.some((agent) => agent.id === to)) return refuse(fieldProblem(state, field, `Wave ${wave.wave} already has an agent "${to}".`));
      return {
        draft: mapAgent(draft, action.wave, action.agentId, (agent) => ({ ...agent, id: to })),
        label: `Rename agent ${action.agentId} to ${to}`,
        extra: {
          targetAgent: state.targetAgent === action.agentId ? to : state.targetAgent,
          fieldMessage: suggested.note ? { field: `agent:${action.wave}:${to}`, kind: 'note', text: suggested.note } : undefined,
        },
      };
    }
    case 'removeAgent': {
      const wave = findWave(draft, action.wave);
      if (!wave || !wave.agents.some((agent) => agent.id === action.agentId)) return refuse(state);
      const next = mapWave(draft, action.wave, (item) => ({ ...item, agents: item.agents.filter((agent) => agent.id !== action.agentId) }));
      return {
        draft: next,
        label: `Remove agent ${action.agentId}`,
        extra: { targetAgent: state.targetAgent === action.agentId ? undefined : state.targetAgent },
      };
    }
    case 'setAgentColor': {
      if (!/^#[0-9a-fA-F]{6}$/.test(action.color)) return refuse(problem(state, `"${action.color}" is not a colour like #3794ff.`));
      const color = foldCase(action.color);
      const agent = findWave(draft, action.wave)?.agents.find((item) => item.id === action.agentId);
      if (!agent || agent.color === color) return refuse(state);
      return { draft: mapAgent(draft, action.wave, action.agentId, (item) => ({ ...item, color })), label: `Change the colour of ${action.agentId}` };
    }
    case 'addEntries': {
      const agent = findWave(draft, action.wave)?.agents.find((item) => item.id === action.agentId);
      if (!agent) return refuse(problem(state, `There is no agent "${action.agentId}" in wave ${action.wave}.`));
      const entries = [...agent.entries];
      const problems: string[] = [];
      const added: string[] = [];
      for (const raw of action.entries) {
        const normalized = normalizeEntry(raw, options);
        if ('problem' in normalized) problems.push(normalized.problem);
        else if (!entries.includes(normalized.entry)) {
          entries.push(normalized.entry);
          added.push(normalized.entry);
        }
      }
      const notice = problems.length > 0 ? problems.join(' ') : undefined;
      if (added.length === 0) return refuse(notice ? problem(state, notice) : { ...state, targetAgent: action.agentId });
      return {
        draft: mapAgent(draft, action.wave, action.agentId, (item) => ({ ...item, entries })),
        label: added.length === 1 ? `Add ${added[0]} to ${action.agentId}` : `Add ${count(added.length, 'entry', 'entries')} to ${action.agentId}`,
        extra: { notice, targetAgent: action.agentId },
      };
    }
    case 'removeEntry': {
      const agent = findWave(draft, action.wave)?.agents.find((item) => item.id === action.agentId);
      if (!agent || !agent.entries.includes(action.entry)) return refuse(state);
      return {
        draft: mapAgent(draft, action.wave, action.agentId, (item) => ({ ...item, entries: item.entries.filter((entry) => entry !== action.entry) })),
        label: `Remove ${action.entry} from ${action.agentId}`,
      };
    }
    case 'replaceEntry': {
      const agent = findWave(draft, action.wave)?.agents.find((item) => item.id === action.agentId);
      const at = agent?.entries.indexOf(action.entry) ?? -1;
      if (!agent || at < 0) return refuse(state);
      const named = action.with.map((file) => literalEntryOf(file));
      // A kept file no entry can name (src/planner/scope/literalEntry.ts): the narrowing cannot be written.
      if (named.some((entry) => entry === undefined)) return refuse(state);
      const kept = agent.entries.filter((entry) => entry !== action.entry);
      const added = (named as string[]).filter((entry) => !kept.includes(entry));
      kept.splice(at, 0, ...added);
      return {
        draft: mapAgent(draft, action.wave, action.agentId, (item) => ({ ...item, entries: kept })),
        label: `Narrow ${action.entry} (${action.agentId}) to ${added.length === 1 ? added[0] : `${added.length} files`}`,
      };
    }
    default:
      return undefined;
  }
}

/** The wave whose tab is open, if any. */
export function selectedWave(state: PlannerState): WaveDraft | undefined {
  return state.selectedWave === undefined ? undefined : findWave(state.draft, state.selectedWave);
}

/** How much a destructive action would take away: for its confirmation. */
export function removalCounts(wave: WaveDraft, agentId?: string): { agents: number; entries: number } {
  const agents = agentId === undefined ? wave.agents : wave.agents.filter((agent) => agent.id === agentId);
  return { agents: agents.length, entries: agents.reduce((sum, agent) => sum + agent.entries.length, 0) };
}

/**
 * Applies several actions as one edit: one undo entry, labelled `label`, takes all of them back (an
 * assignment from the Explorer creates a wave, an agent and its entries in one gesture).
 */
export function reduceAll(state: PlannerState, actions: readonly PlannerAction[], label: string, options: ReduceOptions = {}): PlannerState {
  let next: PlannerState = { ...state, history: { past: [], future: state.history.future } };
  for (const action of actions) next = reduce(next, action, options);
  const [first] = next.history.past;
  const past = first ? [...state.history.past, { ...first, label }].slice(-HISTORY_LIMIT) : state.history.past;
  return { ...next, history: { past, future: next.history.future } };
}
