// The planner's state and every change to it, as a pure reducer: no DOM, no host, testable in Node.
// The view dispatches actions; the reducer returns a new state (or the same one when nothing changed).
import { isAgentId, MAX_AGENT_ID_LENGTH } from '../src/planner/plan/agentId';
import { foldCase, normalizeScopeEntry, ScopeEntryError } from '../src/planner/scope/scopeEntry';
import { nextLaneColor } from '../src/protocol/laneColors';
import type { AgentDraft, PlanDraft, WaveDraft } from '../src/protocol/plannerProtocol';
import { PLANNER_STATE_VERSION } from '../src/protocol/plannerProtocol';

/** Everything the webview persists (with `setState`) and renders. */
export interface PlannerState {
  version: typeof PLANNER_STATE_VERSION;
  /** The draft being edited. */
  draft: PlanDraft;
  /** The plan on disk when last read; `dirty` compares against it. */
  diskPlan: PlanDraft;
  /** The wave whose tab is open. */
  selectedWave: number | undefined;
  /** Whether the draft differs from the plan on disk. */
  dirty: boolean;
  /** The lane that keyboard assignment and `Enter` in the tree target. */
  targetAgent: string | undefined;
  /** Filter text of the file tree. */
  filter: string;
  /** Expanded folders of the file tree (repository-relative, no trailing slash). */
  expanded: string[];
  /** The last problem to show a person (bad glob, bad name); cleared by the next successful action. */
  notice: string | undefined;
  /** The disk changed while the draft had unsaved edits: the view offers to load it. */
  diskChangedUnderDraft: boolean;
  /** The workspace folder this planner belongs to (so VS Code can restore the panel for it). */
  folderUri?: string;
  /** When the draft (or its saved/clean status) last changed, ms since the epoch; set by the view. */
  updatedAt?: number;
}

export type PlannerAction =
  | { type: 'loadDisk'; diskPlan: PlanDraft; keepDraft?: PlanDraft }
  | { type: 'adoptDisk' }
  | { type: 'savedDraft'; draft: PlanDraft }
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
  | { type: 'replaceEntry'; wave: number; agentId: string; entry: string; with: string[] }
  | { type: 'setFilter'; filter: string }
  | { type: 'toggleFolder'; folder: string; expanded?: boolean }
  | { type: 'notify'; notice: string }
  | { type: 'dismissNotice' };

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
    selectedWave: diskPlan.activeWave ?? diskPlan.waves[0]?.wave,
    dirty: false,
    targetAgent: undefined,
    filter: '',
    expanded: [],
    notice: undefined,
    diskChangedUnderDraft: false,
  };
}

/** Whether `value` is persisted state of this version (anything else is dropped). */
export function isPlannerState(value: unknown): value is PlannerState {
  if (typeof value !== 'object' || value === null) return false;
  const state = value as Partial<PlannerState>;
  return (
    state.version === PLANNER_STATE_VERSION &&
    typeof state.draft === 'object' &&
    typeof state.diskPlan === 'object' &&
    Array.isArray(state.expanded) &&
    typeof state.filter === 'string'
  );
}

/** Canonical JSON of a draft, for comparing drafts regardless of colour. */
function draftKey(draft: PlanDraft): string {
  return JSON.stringify({
    active: draft.activeWave ?? null,
    waves: [...draft.waves]
      .sort((a, b) => a.wave - b.wave)
      .map((wave) => ({
        wave: wave.wave,
        role: wave.role,
        agents: [...wave.agents]
          .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
          .map((agent) => ({ id: agent.id, entries: [...agent.entries].sort() })),
      })),
  });
}

/** Whether two drafts declare the same plan (order of agents and entries and lane colours aside). */
export function sameDraft(a: PlanDraft, b: PlanDraft): boolean {
  return draftKey(a) === draftKey(b);
}

/** Normalises what a person typed or dropped; returns the entry or a message saying what is wrong. */
export function normalizeEntry(raw: string, options: { ignoreCase?: boolean } = {}): { entry: string } | { problem: string } {
  const trimmed = raw.trim();
  if (trimmed === '') return { problem: 'An entry cannot be empty.' };
  try {
    return { entry: normalizeScopeEntry(trimmed, { ignoreCase: options.ignoreCase }) };
  } catch (error) {
    if (error instanceof ScopeEntryError) return { problem: error.message };
    throw error;
  }
}

/** Checks an agent id: it becomes a file name, so it is kept to letters, digits, `.`, `_` and `-`. */
export function agentIdProblem(id: string): string | undefined {
  if (!isAgentId(id)) {
    return `"${id}" cannot be an agent id: use up to ${MAX_AGENT_ID_LENGTH} letters, digits, "_" or "-", starting with a letter or digit.`;
  }
  return undefined;
}

function withDraft(state: PlannerState, draft: PlanDraft, extra: Partial<PlannerState> = {}): PlannerState {
  return { ...state, ...extra, draft, dirty: !sameDraft(draft, state.diskPlan), notice: extra.notice };
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

function problem(state: PlannerState, notice: string): PlannerState {
  return { ...state, notice };
}

/** A colour not yet used in the wave, or the next one round the palette. */
function nextColor(wave: WaveDraft): string {
  return nextLaneColor(wave.agents.map((agent) => agent.color));
}

/** Applies one action. Pure: the same state and action always give the same result. */
export function reduce(state: PlannerState, action: PlannerAction, options: { ignoreCase?: boolean } = {}): PlannerState {
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
      const dirty = !sameDraft(draftNow, action.diskPlan);
      return {
        ...state,
        diskPlan: action.diskPlan,
        draft: draftNow,
        selectedWave: selected,
        dirty,
        diskChangedUnderDraft: dirty && keep !== undefined && !sameDraft(state.diskPlan, action.diskPlan),
      };
    }
    case 'adoptDisk':
      return { ...withDraft(state, state.diskPlan), diskChangedUnderDraft: false };
    case 'savedDraft':
      return { ...state, draft: action.draft, diskPlan: action.draft, dirty: false, diskChangedUnderDraft: false, notice: undefined };
    case 'selectWave':
      return findWave(draft, action.wave) ? { ...state, selectedWave: action.wave, targetAgent: undefined } : state;
    case 'addWave': {
      const next = Math.max(0, ...draft.waves.map((wave) => wave.wave)) + 1;
      const waves = [...draft.waves, { wave: next, role: 'builder', agents: [] }];
      return withDraft(state, { ...draft, waves }, { selectedWave: next, targetAgent: undefined });
    }
    case 'renumberWave': {
      if (!Number.isInteger(action.to) || action.to < 1) return problem(state, `Wave numbers are whole numbers from 1: "${action.to}" is not one.`);
      if (action.to === action.wave) return state;
      if (findWave(draft, action.to)) return problem(state, `There is already a wave ${action.to}.`);
      const renumbered = mapWave(draft, action.wave, (wave) => ({ ...wave, wave: action.to }));
      const next: PlanDraft = {
        ...renumbered,
        waves: [...renumbered.waves].sort((a, b) => a.wave - b.wave),
        activeWave: draft.activeWave === action.wave ? action.to : draft.activeWave,
      };
      return withDraft(state, next, { selectedWave: state.selectedWave === action.wave ? action.to : state.selectedWave });
    }
    case 'deleteWave': {
      if (!findWave(draft, action.wave)) return state;
      const waves = draft.waves.filter((wave) => wave.wave !== action.wave);
      const next: PlanDraft = { ...draft, waves, activeWave: draft.activeWave === action.wave ? undefined : draft.activeWave };
      const selectedWave = state.selectedWave === action.wave ? waves[0]?.wave : state.selectedWave;
      return withDraft(state, next, { selectedWave, targetAgent: undefined });
    }
    case 'setRole': {
      const role = action.role.trim();
      if (role === '') return problem(state, 'A wave needs a role (for example "builder").');
      return withDraft(state, mapWave(draft, action.wave, (wave) => ({ ...wave, role })));
    }
    case 'setActiveWave':
      if (action.wave !== undefined && !findWave(draft, action.wave)) return state;
      return withDraft(state, { ...draft, activeWave: action.wave });
    case 'addAgent': {
      const wave = findWave(draft, action.wave);
      if (!wave) return state;
      let id = action.id?.trim();
      if (id === undefined || id === '') {
        let counter = wave.agents.length + 1;
        while (wave.agents.some((agent) => agent.id === `agent-${counter}`)) counter += 1;
        id = `agent-${counter}`;
      }
      const idProblem = agentIdProblem(id);
      if (idProblem) return problem(state, idProblem);
      if (wave.agents.some((agent) => agent.id === id)) return problem(state, `Wave ${wave.wave} already has an agent "${id}".`);
      const agent: AgentDraft = { id, color: nextColor(wave), entries: [] };
      return withDraft(state, mapWave(draft, action.wave, (item) => ({ ...item, agents: [...item.agents, agent] })), {
        targetAgent: id,
      });
    }
    case 'ensureAgent': {
      let next = draft;
      if (!Number.isSafeInteger(action.wave) || action.wave < 1) return problem(state, `"${action.wave}" is not a wave number.`);
      if (!findWave(next, action.wave)) {
        const waves = [...next.waves, { wave: action.wave, role: 'builder', agents: [] }].sort((a, b) => a.wave - b.wave);
        next = { ...next, waves };
      }
      const wave = findWave(next, action.wave) as WaveDraft;
      if (wave.agents.some((agent) => agent.id === action.agentId)) {
        return next === draft ? state : withDraft(state, next);
      }
      const idProblem = agentIdProblem(action.agentId);
      if (idProblem) return problem(state, idProblem);
      const agent: AgentDraft = { id: action.agentId, color: nextColor(wave), entries: [] };
      return withDraft(state, mapWave(next, action.wave, (item) => ({ ...item, agents: [...item.agents, agent] })));
    }
    case 'renameAgent': {
      const wave = findWave(draft, action.wave);
      const to = action.to.trim();
      if (!wave || !wave.agents.some((agent) => agent.id === action.agentId) || to === action.agentId) return state;
      const idProblem = agentIdProblem(to);
      if (idProblem) return problem(state, idProblem);
      if (wave.agents.some((agent) => agent.id === to)) return problem(state, `Wave ${wave.wave} already has an agent "${to}".`);
      return withDraft(state, mapAgent(draft, action.wave, action.agentId, (agent) => ({ ...agent, id: to })), {
        targetAgent: state.targetAgent === action.agentId ? to : state.targetAgent,
      });
    }
    case 'removeAgent': {
      const next = mapWave(draft, action.wave, (wave) => ({
        ...wave,
        agents: wave.agents.filter((agent) => agent.id !== action.agentId),
      }));
      return withDraft(state, next, { targetAgent: state.targetAgent === action.agentId ? undefined : state.targetAgent });
    }
    case 'setAgentColor':
      if (!/^#[0-9a-fA-F]{6}$/.test(action.color)) return problem(state, `"${action.color}" is not a colour like #3794ff.`);
      return withDraft(state, mapAgent(draft, action.wave, action.agentId, (agent) => ({ ...agent, color: foldCase(action.color) })));
    case 'setTargetAgent':
      return { ...state, targetAgent: action.agentId };
    case 'addEntries': {
      const wave = findWave(draft, action.wave);
      const agent = wave?.agents.find((item) => item.id === action.agentId);
      if (!agent) return problem(state, `There is no agent "${action.agentId}" in wave ${action.wave}.`);
      const entries = [...agent.entries];
      const problems: string[] = [];
      for (const raw of action.entries) {
        const normalized = normalizeEntry(raw, options);
        if ('problem' in normalized) problems.push(normalized.problem);
        else if (!entries.includes(normalized.entry)) entries.push(normalized.entry);
      }
      const next = mapAgent(draft, action.wave, action.agentId, (item) => ({ ...item, entries }));
      return withDraft(state, next, { notice: problems.length > 0 ? problems.join(' ') : undefined, targetAgent: action.agentId });
    }
    case 'removeEntry':
      return withDraft(
        state,
        mapAgent(draft, action.wave, action.agentId, (agent) => ({
          ...agent,
          entries: agent.entries.filter((entry) => entry !== action.entry),
        })),
      );
    case 'replaceEntry': {
      const next = mapAgent(draft, action.wave, action.agentId, (agent) => {
        const at = agent.entries.indexOf(action.entry);
        if (at < 0) return agent;
        const kept = agent.entries.filter((entry) => entry !== action.entry);
        const added = action.with.filter((entry) => !kept.includes(entry));
        kept.splice(at, 0, ...added);
        return { ...agent, entries: kept };
      });
      return withDraft(state, next);
    }
    case 'setFilter':
      return { ...state, filter: action.filter };
    case 'toggleFolder': {
      const isOpen = state.expanded.includes(action.folder);
      const open = action.expanded ?? !isOpen;
      if (open === isOpen) return state;
      return { ...state, expanded: open ? [...state.expanded, action.folder] : state.expanded.filter((f) => f !== action.folder) };
    }
    case 'notify':
      return { ...state, notice: action.notice };
    case 'dismissNotice':
      return { ...state, notice: undefined };
  }
}

/** The wave whose tab is open, if any. */
export function selectedWave(state: PlannerState): WaveDraft | undefined {
  return state.selectedWave === undefined ? undefined : findWave(state.draft, state.selectedWave);
}
