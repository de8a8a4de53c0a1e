// Issue 14, bugs 3, 5 and 6 as state logic: every draft edit undoes and redoes, a refused save's message
// lives only as long as the draft it was about, and "Load plan from disk" is offered only when the disk
// really changed under the draft's base.
import assert from 'node:assert/strict';
import type { PlanDraft, SaveOutcome } from '../../src/protocol/plannerProtocol';
import {
  diskChangedUnderDraft,
  draftKey,
  HISTORY_LIMIT,
  initialState,
  reduce,
  reduceAll,
  redoLabel,
  removalCounts,
  selectedWave,
  undoLabel,
} from '../../webview/plannerState';
import type { PlannerAction, PlannerState } from '../../webview/plannerState';

function run(actions: PlannerAction[], from: PlannerState = initialState()): PlannerState {
  return actions.reduce((state, action) => reduce(state, action), from);
}

function plan(waves: Record<number, Record<string, string[]>>, activeWave: number | undefined = 1, roles: Record<number, string> = {}): PlanDraft {
  return {
    version: 1,
    activeWave,
    waves: Object.entries(waves).map(([wave, agents]) => ({
      wave: Number(wave),
      role: roles[Number(wave)] ?? 'builder',
      agents: Object.entries(agents).map(([id, entries]) => ({ id, color: '#3794ff', entries })),
    })),
  };
}

/** A draft with two waves and three agents: the starting point of every edit below. */
const start = () => initialState(plan({ 1: { api: ['src/api/'], ui: ['src/ui/App.tsx'] }, 2: { docs: ['docs/'] } }));

describe('planner history: undo and redo of every draft edit (issue 14, bug 3)', () => {
  const edits: { name: string; action: PlannerAction }[] = [
    { name: 'add a wave', action: { type: 'addWave' } },
    { name: 'renumber a wave', action: { type: 'renumberWave', wave: 2, to: 5 } },
    { name: 'delete a wave', action: { type: 'deleteWave', wave: 2 } },
    { name: 'set a role', action: { type: 'setRole', wave: 1, role: 'reviewer' } },
    { name: 'make another wave active', action: { type: 'setActiveWave', wave: 2 } },
    { name: 'make no wave active', action: { type: 'setActiveWave', wave: undefined } },
    { name: 'add an agent', action: { type: 'addAgent', wave: 1, id: 'tests' } },
    { name: 'ensure an agent (Explorer assignment)', action: { type: 'ensureAgent', wave: 3, agentId: 'new' } },
    { name: 'rename an agent', action: { type: 'renameAgent', wave: 1, agentId: 'ui', to: 'frontend' } },
    { name: 'remove an agent', action: { type: 'removeAgent', wave: 1, agentId: 'api' } },
    { name: 'change a colour', action: { type: 'setAgentColor', wave: 1, agentId: 'api', color: '#ff0000' } },
    { name: 'add entries', action: { type: 'addEntries', wave: 1, agentId: 'ui', entries: ['src/ui/Cart.tsx', 'README.md'] } },
    { name: 'remove an entry', action: { type: 'removeEntry', wave: 1, agentId: 'api', entry: 'src/api/' } },
    { name: 'narrow an entry', action: { type: 'replaceEntry', wave: 1, agentId: 'api', entry: 'src/api/', with: ['src/api/a.ts', 'src/api/b.ts'] } },
  ];
  for (const { name, action } of edits) {
    it(`${name}: undo restores the draft before, redo the draft after`, () => {
      const before = start();
      const edited = reduce(before, action);
      assert.notDeepEqual(edited.draft, before.draft, 'the edit changed the draft');
      assert.ok(undoLabel(edited), 'the edit has an undo entry with a label');
      const undone = reduce(edited, { type: 'undo' });
      assert.deepEqual(undone.draft, before.draft);
      assert.equal(undone.dirty, false, 'back at the disk plan: clean');
      assert.equal(redoLabel(undone), undoLabel(edited));
      const redone = reduce(undone, { type: 'redo' });
      assert.deepEqual(redone.draft, edited.draft);
      assert.equal(redone.dirty, edited.dirty);
    });
  }

  it('loading the plan from disk (dropping the draft) is undoable too', () => {
    let state = reduce(start(), { type: 'addEntries', wave: 1, agentId: 'ui', entries: ['x.md'] });
    const draft = state.draft;
    state = reduce(state, { type: 'adoptDisk' });
    assert.equal(state.dirty, false);
    state = reduce(state, { type: 'undo' });
    assert.deepEqual(state.draft, draft);
  });

  it('undo shows the tab where the change happened', () => {
    let state = reduce(start(), { type: 'selectWave', wave: 2 });
    state = reduce(state, { type: 'removeAgent', wave: 2, agentId: 'docs' });
    state = reduce(state, { type: 'selectWave', wave: 1 });
    state = reduce(state, { type: 'undo' });
    assert.equal(state.selectedWave, 2);
    assert.deepEqual(selectedWave(state)?.agents.map((agent) => agent.id), ['docs']);
  });

  it('a new edit after undo drops the redo entries', () => {
    let state = run([{ type: 'addWave' }, { type: 'undo' }], start());
    assert.ok(redoLabel(state));
    state = reduce(state, { type: 'setRole', wave: 1, role: 'r' });
    assert.equal(redoLabel(state), undefined);
  });

  it('what is not an edit (tabs, filter, folders, target) leaves the history alone', () => {
    const state = run(
      [
        { type: 'selectWave', wave: 2 },
        { type: 'setFilter', filter: 'x' },
        { type: 'toggleFolder', folder: 'src' },
        { type: 'setTargetAgent', agentId: 'docs' },
        { type: 'setTreeMode', mode: 'unassigned' },
        { type: 'setTreeWidth', width: 300 },
      ],
      start(),
    );
    assert.deepEqual(state.history, { past: [], future: [] });
  });

  it('a refused edit (a duplicate id) adds no history', () => {
    const state = reduce(start(), { type: 'addAgent', wave: 1, id: 'api' });
    assert.deepEqual(state.history.past, []);
    assert.equal(state.fieldMessage?.kind, 'error');
  });

  it('several actions of one gesture are one undo step (reduceAll)', () => {
    const before = start();
    const state = reduceAll(
      before,
      [{ type: 'ensureAgent', wave: 4, agentId: 'ops' }, { type: 'selectWave', wave: 4 }, { type: 'addEntries', wave: 4, agentId: 'ops', entries: ['infra/'] }],
      'Assign infra/ to ops',
    );
    assert.equal(state.history.past.length, 1);
    assert.equal(undoLabel(state), 'Assign infra/ to ops');
    assert.deepEqual(reduce(state, { type: 'undo' }).draft, before.draft);
  });

  it(`keeps the last ${HISTORY_LIMIT} edits`, () => {
    let state = start();
    for (let i = 0; i < HISTORY_LIMIT + 20; i += 1) state = reduce(state, { type: 'setRole', wave: 1, role: `r${i}` });
    assert.equal(state.history.past.length, HISTORY_LIMIT);
  });

  it('counts what a destructive action would take, for its confirmation', () => {
    const wave = selectedWave(start());
    assert.ok(wave);
    assert.deepEqual(removalCounts(wave), { agents: 2, entries: 2 });
    assert.deepEqual(removalCounts(wave, 'api'), { agents: 1, entries: 1 });
  });
});

describe('planner save status (issue 14, bugs 3 and 5)', () => {
  const refused: SaveOutcome = {
    ok: false,
    message: 'Not saved: the plan is not disjoint, 1 collision (wave 2: a and b both own x). The draft is kept.',
    collisions: [{ wave: 2, agents: ['a', 'b'], entries: ['x', 'x'], witness: 'x' }],
  };

  it('a refusal lasts only while the draft is the one that was refused: deleting the wave drops it', () => {
    let state = run([{ type: 'addWave' }, { type: 'addAgent', wave: 2, id: 'a' }, { type: 'addAgent', wave: 2, id: 'b' }], start());
    state = reduce(state, { type: 'saveStarted' });
    state = reduce(state, { type: 'saveFinished', outcome: refused, draft: state.draft, at: 1 });
    assert.equal(state.save.kind, 'refused');
    state = reduce(state, { type: 'deleteWave', wave: 2 });
    assert.deepEqual(state.save, { kind: 'idle' }, 'no stale refusal lists the deleted wave');
    // Undo brings the refused draft back, and with it nothing stale: the refusal was dropped.
    state = reduce(state, { type: 'undo' });
    assert.equal(state.save.kind, 'idle');
  });

  it('a refusal survives what does not change the draft (another tab, the filter)', () => {
    let state = reduce(start(), { type: 'saveFinished', outcome: refused, draft: start().draft, at: 1 });
    state = run([{ type: 'selectWave', wave: 2 }, { type: 'setFilter', filter: 'a' }], state);
    assert.equal(state.save.kind, 'refused');
  });

  it('saved, then edited: the draft is dirty and the save status no longer claims anything about it', () => {
    let state = reduce(start(), { type: 'addAgent', wave: 1, id: 'x' });
    state = reduce(state, { type: 'saveFinished', outcome: { ok: true, wavesWritten: [1], message: 'ok' }, draft: state.draft, at: 5 });
    assert.equal(state.dirty, false);
    assert.deepEqual(state.save, { kind: 'saved', at: 5 });
    state = reduce(state, { type: 'removeAgent', wave: 1, agentId: 'x' });
    assert.equal(state.dirty, true);
  });

  it('edits made while a save ran stay unsaved on top of what was saved', () => {
    let state = reduce(start(), { type: 'addAgent', wave: 1, id: 'x' });
    const saving = state.draft;
    state = reduce(state, { type: 'saveStarted' });
    state = reduce(state, { type: 'addAgent', wave: 1, id: 'y' });
    state = reduce(state, { type: 'saveFinished', outcome: { ok: true, wavesWritten: [1], message: 'ok' }, draft: saving, at: 5 });
    // What was saved, with the manifest the save wrote (the base of the next save).
    assert.deepEqual(state.diskPlan, { ...saving, manifest: { wave: 1, role: 'builder' } });
    assert.equal(state.dirty, true);
  });

  it('a save that timed out is resolved when the disk shows the draft', () => {
    let state = reduce(start(), { type: 'addAgent', wave: 1, id: 'x' });
    state = reduce(state, { type: 'saveFailed', message: 'no answer', uncertain: true });
    assert.equal(state.save.kind, 'failed');
    state = reduce(state, { type: 'loadDisk', diskPlan: state.draft });
    assert.equal(state.dirty, false);
    assert.deepEqual(state.save, { kind: 'idle' });
  });

  it('the refusal is keyed by the draft, whatever the order of its entries', () => {
    const draft = plan({ 1: { a: ['x', 'y'] } });
    const reordered = plan({ 1: { a: ['y', 'x'] } });
    assert.equal(draftKey(draft), draftKey(reordered));
  });
});

describe('planner "Load plan from disk" offer (issue 14, bug 6)', () => {
  const disk = plan({ 1: { api: ['src/api/'] } });
  const edited = plan({ 1: { api: ['src/api/', 'README.md'] } });

  it('reopened with a kept draft and nothing changed on disk: no offer', () => {
    // A fresh webview (initial state) gets the host's kept draft with its base, which is the disk now.
    const state = reduce(initialState(), { type: 'loadDisk', diskPlan: disk, keepDraft: edited, keepBase: disk });
    assert.equal(state.dirty, true);
    assert.equal(diskChangedUnderDraft(state), false);
  });

  it('reopened with a kept draft whose record has no base (an older one): no false offer', () => {
    const state = reduce(initialState(), { type: 'loadDisk', diskPlan: disk, keepDraft: edited });
    assert.equal(diskChangedUnderDraft(state), false);
  });

  it('reopened after the disk really changed since the draft was made: the offer', () => {
    const changed = plan({ 1: { api: ['src/'] } });
    const state = reduce(initialState(), { type: 'loadDisk', diskPlan: changed, keepDraft: edited, keepBase: disk });
    assert.equal(diskChangedUnderDraft(state), true);
  });

  it('the same disk plan read again (a second watcher event) keeps the offer as it was', () => {
    const changed = plan({ 1: { api: ['src/'] } });
    let state = reduce(initialState(disk), { type: 'addEntries', wave: 1, agentId: 'api', entries: ['README.md'] });
    state = reduce(state, { type: 'loadDisk', diskPlan: changed });
    assert.equal(diskChangedUnderDraft(state), true);
    state = reduce(state, { type: 'loadDisk', diskPlan: changed });
    assert.equal(diskChangedUnderDraft(state), true);
  });

  it('a role the disk does not record (an inactive wave) changing is no change on disk', () => {
    const base = plan({ 1: { a: ['x'] }, 2: { b: ['y'] } }, 1);
    const remembered = plan({ 1: { a: ['x'] }, 2: { b: ['y'] } }, 1, { 2: 'reviewer' });
    const state = reduce(initialState(), { type: 'loadDisk', diskPlan: remembered, keepDraft: plan({ 1: { a: ['x', 'z'] }, 2: { b: ['y'] } }, 1), keepBase: base });
    assert.equal(diskChangedUnderDraft(state), false);
  });

  it('no offer for a clean draft, nor once the draft is saved', () => {
    let state = reduce(initialState(disk), { type: 'loadDisk', diskPlan: plan({ 1: { z: ['q'] } }) });
    assert.equal(diskChangedUnderDraft(state), false);
    state = reduce(initialState(disk), { type: 'addEntries', wave: 1, agentId: 'api', entries: ['a.md'] });
    state = reduce(state, { type: 'loadDisk', diskPlan: plan({ 1: { z: ['q'] } }) });
    assert.equal(diskChangedUnderDraft(state), true);
    state = reduce(state, { type: 'saveFinished', outcome: { ok: true, wavesWritten: [1], message: 'ok' }, draft: state.draft, at: 1 });
    assert.equal(diskChangedUnderDraft(state), false);
  });
});
