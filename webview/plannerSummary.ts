// The summary at the top of the planner, as data: the open wave's state (active or not, saved or not,
// its collisions, its unowned files, its overlaps with other clones), one status that is always true,
// and the one next action. Pure, so every count and every sentence is tested without a browser; the
// header component only lays it out.
import type { PlannerState } from './plannerState';
import { diskChangedUnderDraft, selectedWave } from './plannerState';
import { clockTime, count } from './wording';

/** What the planner knows about one wave besides its draft. */
export interface WaveFacts {
  collisions: number;
  unowned: number;
  /** Overlaps of this wave with waves other clones claim. */
  claimConflicts: number;
}

export interface SummaryInput {
  state: PlannerState;
  /** Facts of every wave of the draft, by wave number (a wave without facts yet counts as 0). */
  facts: ReadonlyMap<number, WaveFacts>;
  trusted: boolean;
  /** Whether the host has answered the ready request (before that nothing can be saved). */
  ready: boolean;
  /** Whether the match index is built (before that, unowned counts are not known yet). */
  analysed: boolean;
}

/** The tone of the status: how the header colours it (always next to its text). */
export type StatusTone = 'ok' | 'pending' | 'error' | 'info';

/** The one action the header offers first. */
export type NextAction =
  | { kind: 'resolve'; label: string }
  | { kind: 'resolveClaims'; label: string }
  | { kind: 'save'; label: string }
  | { kind: 'makeActive'; label: string; wave: number }
  | { kind: 'addAgent'; label: string; wave: number }
  | { kind: 'addWave'; label: string };

export interface Summary {
  /** "Wave 2", or "No waves". */
  title: string;
  /** Whether the open wave is the one the manifest names (in the draft). */
  active: boolean;
  /** The open wave's facts. */
  collisions: number;
  unowned: number | undefined;
  claimConflicts: number;
  /** Collisions in the draft's other waves (their tabs carry them). */
  collisionsElsewhere: number;
  /** One status, always true of the draft on screen. */
  status: { text: string; tone: StatusTone; detail?: string };
  /** What "saved" does not say: whether anything is enforced, and the agent session the manifest is bound to, if any. */
  enforcement: string;
  /** Who the hooks hold to the wave, in full, when the manifest is bound to one agent session (the header's hover). */
  enforcementDetail?: string;
  next: NextAction | undefined;
  /** Save is possible now (trusted, ready, not saving). */
  canSave: boolean;
}

const NO_FACTS: WaveFacts = { collisions: 0, unowned: 0, claimConflicts: 0 };

/** The summary of the open wave. */
export function summarize(input: SummaryInput): Summary {
  const { state, trusted, ready } = input;
  const wave = selectedWave(state);
  const facts = (wave && input.facts.get(wave.wave)) ?? NO_FACTS;
  let collisionsElsewhere = 0;
  for (const item of state.draft.waves) if (item.wave !== wave?.wave) collisionsElsewhere += input.facts.get(item.wave)?.collisions ?? 0;
  const active = wave !== undefined && state.draft.activeWave === wave.wave;
  const saving = state.save.kind === 'saving';
  const canSave = trusted && ready && !saving;

  let status: Summary['status'];
  const save = state.save;
  if (!ready) status = { text: 'Loading the plan…', tone: 'pending' };
  else if (save.kind === 'saving') status = { text: 'Saving…', tone: 'pending' };
  else if (save.kind === 'refused') status = { text: 'Not saved', tone: 'error', detail: save.message };
  else if (save.kind === 'failed') status = { text: save.uncertain ? 'Save not confirmed' : 'Not saved', tone: 'error', detail: save.message };
  else if (state.dirty) status = { text: 'Unsaved changes', tone: 'pending' };
  else if (save.kind === 'saved') status = { text: `Saved at ${clockTime(save.at)}`, tone: 'ok' };
  else if (!state.diskPlan.waves.some((item) => item.agents.length > 0)) status = { text: 'No plan saved yet', tone: 'info' };
  else status = { text: 'Saved', tone: 'ok', detail: 'The draft is the plan on disk.' };

  // Enforced means: the manifest on disk names this wave, and the wave on disk has agents.
  const diskWave = wave && state.diskPlan.waves.find((item) => item.wave === wave.wave);
  const enforcedOnDisk = wave !== undefined && state.diskPlan.activeWave === wave.wave && (diskWave?.agents.length ?? 0) > 0;
  // A manifest bound to an agent session holds that session's edits (and those of processes without a session
  // id), not other agent sessions' edits; the planner has none of its own, and a save keeps the binding of the
  // manifest it replaces, so it says so.
  const boundTo = state.diskPlan.manifest?.boundTo;
  const bound = boundTo === undefined ? '' : `, bound to agent session ${shortSession(boundTo)}`;
  let enforcement: string;
  if (!wave) enforcement = '';
  else if (active && enforcedOnDisk) enforcement = boundTo === undefined ? 'Active: the hooks enforce this wave' : `Active${bound}`;
  else if (active) enforcement = `Active once saved${bound}`;
  else if (enforcedOnDisk) enforcement = 'Not active once saved: nothing enforces it then';
  else enforcement = 'Not active: nothing enforces this wave';
  const enforcementDetail =
    wave !== undefined && active && boundTo !== undefined
      ? `The manifest is bound to the agent session ${boundTo}. The write gate holds that session's edits to this wave, and those of any process that carries no session id, but lets other agent sessions' edits through; the commit guard holds every commit to it. The planner has no session of its own: a save keeps this binding.`
      : undefined;

  let next: NextAction | undefined;
  const totalCollisions = facts.collisions + collisionsElsewhere;
  if (state.draft.waves.length === 0) next = { kind: 'addWave', label: 'Add a wave' };
  else if (!wave) next = undefined;
  else if (facts.collisions > 0) next = { kind: 'resolve', label: `Resolve ${count(facts.collisions, 'collision')}` };
  else if (facts.claimConflicts > 0) next = { kind: 'resolveClaims', label: `Resolve ${count(facts.claimConflicts, 'overlap')} with other clones` };
  else if (wave.agents.length === 0) next = { kind: 'addAgent', label: 'Add an agent', wave: wave.wave };
  else if (state.dirty && totalCollisions === 0) next = { kind: 'save', label: 'Save plan' };
  else if (!active && !state.dirty) next = { kind: 'makeActive', label: 'Make active', wave: wave.wave };

  return {
    title: wave ? `Wave ${wave.wave}` : 'No waves',
    active,
    collisions: facts.collisions,
    unowned: input.analysed ? facts.unowned : undefined,
    claimConflicts: facts.claimConflicts,
    collisionsElsewhere,
    status,
    enforcement,
    ...(enforcementDetail === undefined ? {} : { enforcementDetail }),
    next,
    canSave,
  };
}

/** A session id short enough for the header (ids are often UUIDs); the hover gives it whole. */
function shortSession(id: string): string {
  return id.length <= 12 ? id : `${id.slice(0, 8)}…`;
}

/** Whether the header offers to load the disk plan (only when the disk really changed under the draft). */
export function offersDiskLoad(state: PlannerState): boolean {
  return diskChangedUnderDraft(state);
}

/** The tab label's collision part: `3 collisions` for a screen reader, the number for the badge. */
export function tabCollisionLabel(collisions: number): string | undefined {
  return collisions > 0 ? count(collisions, 'collision') : undefined;
}
