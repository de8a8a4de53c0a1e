import assert from 'node:assert/strict';
import { emptyDraft, initialState, isPlannerState, reduce, sameDraft, selectedWave } from '../../webview/plannerState';
import type { PlannerAction, PlannerState } from '../../webview/plannerState';
import type { PlanDraft } from '../../src/protocol/plannerProtocol';

function run(actions: PlannerAction[], from: PlannerState = initialState()): PlannerState {
  return actions.reduce((state, action) => reduce(state, action), from);
}

function diskWith(entries: Record<string, string[]>, activeWave: number | undefined = 1): PlanDraft {
  return {
    version: 1,
    activeWave,
    waves: [{ wave: 1, role: 'builder', agents: Object.entries(entries).map(([id, list]) => ({ id, color: '#3794ff', entries: list })) }],
  };
}

describe('planner state reducer', () => {
  it('starts clean on the disk plan, with the active wave selected', () => {
    const state = initialState(diskWith({ a: ['src/'] }));
    assert.equal(state.dirty, false);
    assert.equal(state.selectedWave, 1);
    assert.deepEqual(selectedWave(state)?.agents.map((agent) => agent.id), ['a']);
  });

  it('adds agents with distinct ids and colours, and marks the draft dirty', () => {
    const state = run([{ type: 'addAgent', wave: 1 }, { type: 'addAgent', wave: 1 }]);
    const agents = selectedWave(state)?.agents ?? [];
    assert.deepEqual(agents.map((agent) => agent.id), ['agent-1', 'agent-2']);
    assert.notEqual(agents[0]?.color, agents[1]?.color);
    assert.equal(state.dirty, true);
    assert.equal(state.targetAgent, 'agent-2');
  });

  const entryCases: { name: string; typed: string[]; expected: string[]; notice: boolean }[] = [
    { name: 'a plain path', typed: ['src/a.ts'], expected: ['src/a.ts'], notice: false },
    { name: 'a folder with a trailing slash', typed: ['src/'], expected: ['src/'], notice: false },
    { name: 'a glob', typed: ['src/**/*.ts'], expected: ['src/**/*.ts'], notice: false },
    { name: 'a messy path, normalised', typed: ['./src//b.ts'], expected: ['src/b.ts'], notice: false },
    { name: 'backslashes', typed: ['src\\c.ts'], expected: ['src/c.ts'], notice: false },
    { name: 'the same entry twice, kept once', typed: ['a.md', 'a.md'], expected: ['a.md'], notice: false },
    { name: 'a path escaping the root, refused', typed: ['../etc/passwd'], expected: [], notice: true },
    { name: 'an empty entry, refused', typed: ['   '], expected: [], notice: true },
    { name: 'a negation, refused', typed: ['!src/**'], expected: [], notice: true },
  ];
  for (const { name, typed, expected, notice } of entryCases) {
    it(`addEntries: ${name}`, () => {
      const state = run([{ type: 'addAgent', wave: 1, id: 'builder-a' }, { type: 'addEntries', wave: 1, agentId: 'builder-a', entries: typed }]);
      assert.deepEqual(selectedWave(state)?.agents[0]?.entries, expected);
      assert.equal(state.notice !== undefined, notice, state.notice);
    });
  }

  const idCases: [string, boolean][] = [
    ['builder-a', true],
    ['Agent_2', true],
    ['-leading-dash', false],
    ['has space', false],
    ['../escape', false],
    ['a'.repeat(129), false],
  ];
  for (const [id, accepted] of idCases) {
    it(`agent id ${JSON.stringify(id.length > 20 ? `${id.slice(0, 8)}…(${id.length})` : id)} is ${accepted ? 'accepted' : 'refused'}`, () => {
      const state = run([{ type: 'addAgent', wave: 1, id }]);
      assert.equal(selectedWave(state)?.agents.length, accepted ? 1 : 0);
      assert.equal(state.notice === undefined, accepted);
    });
  }

  it('refuses a second agent with the same id in one wave', () => {
    const state = run([{ type: 'addAgent', wave: 1, id: 'x' }, { type: 'addAgent', wave: 1, id: 'x' }]);
    assert.equal(selectedWave(state)?.agents.length, 1);
    assert.match(state.notice ?? '', /already has an agent "x"/);
  });

  it('renames an agent and keeps it the assignment target', () => {
    const state = run([{ type: 'addAgent', wave: 1, id: 'x' }, { type: 'renameAgent', wave: 1, agentId: 'x', to: 'y' }]);
    assert.deepEqual(selectedWave(state)?.agents.map((agent) => agent.id), ['y']);
    assert.equal(state.targetAgent, 'y');
  });

  it('removes an agent and clears the target', () => {
    const state = run([{ type: 'addAgent', wave: 1, id: 'x' }, { type: 'removeAgent', wave: 1, agentId: 'x' }]);
    assert.deepEqual(selectedWave(state)?.agents, []);
    assert.equal(state.targetAgent, undefined);
  });

  it('sets a lane colour and refuses what is not a colour', () => {
    let state = run([{ type: 'addAgent', wave: 1, id: 'x' }, { type: 'setAgentColor', wave: 1, agentId: 'x', color: '#ABCDEF' }]);
    assert.equal(selectedWave(state)?.agents[0]?.color, '#abcdef');
    state = reduce(state, { type: 'setAgentColor', wave: 1, agentId: 'x', color: 'red;background:url(x)' });
    assert.equal(selectedWave(state)?.agents[0]?.color, '#abcdef');
    assert.ok(state.notice);
  });

  it('adds, renumbers, activates and deletes waves', () => {
    let state = run([{ type: 'addWave' }, { type: 'addWave' }]);
    assert.deepEqual(state.draft.waves.map((wave) => wave.wave), [1, 2, 3]);
    assert.equal(state.selectedWave, 3);
    state = run([{ type: 'setActiveWave', wave: 3 }, { type: 'renumberWave', wave: 3, to: 7 }], state);
    assert.deepEqual(state.draft.waves.map((wave) => wave.wave), [1, 2, 7]);
    assert.equal(state.draft.activeWave, 7);
    assert.equal(state.selectedWave, 7);
    const refused = reduce(state, { type: 'renumberWave', wave: 7, to: 2 });
    assert.deepEqual(refused.draft, state.draft);
    assert.match(refused.notice ?? '', /already a wave 2/);
    state = reduce(state, { type: 'deleteWave', wave: 7 });
    assert.deepEqual(state.draft.waves.map((wave) => wave.wave), [1, 2]);
    assert.equal(state.draft.activeWave, undefined);
    assert.equal(state.selectedWave, 1);
  });

  it('sets a role per wave and refuses an empty one', () => {
    let state = run([{ type: 'setRole', wave: 1, role: ' reviewer ' }]);
    assert.equal(selectedWave(state)?.role, 'reviewer');
    state = reduce(state, { type: 'setRole', wave: 1, role: '  ' });
    assert.equal(selectedWave(state)?.role, 'reviewer');
    assert.ok(state.notice);
  });

  it('narrows by replacing one entry with files, in place', () => {
    const state = run([
      { type: 'addAgent', wave: 1, id: 'x' },
      { type: 'addEntries', wave: 1, agentId: 'x', entries: ['a.md', 'src/', 'z.md'] },
      { type: 'replaceEntry', wave: 1, agentId: 'x', entry: 'src/', with: ['src/a.ts', 'src/b.ts'] },
    ]);
    assert.deepEqual(selectedWave(state)?.agents[0]?.entries, ['a.md', 'src/a.ts', 'src/b.ts', 'z.md']);
  });

  it('ensureAgent creates a missing wave and agent once', () => {
    const state = run([{ type: 'ensureAgent', wave: 4, agentId: 'docs' }, { type: 'ensureAgent', wave: 4, agentId: 'docs' }]);
    assert.deepEqual(state.draft.waves.map((wave) => wave.wave), [1, 4]);
    assert.deepEqual(state.draft.waves[1]?.agents.map((agent) => agent.id), ['docs']);
  });

  it('is clean again when the draft returns to the disk plan, whatever the entry order', () => {
    const disk = diskWith({ a: ['x.md', 'y.md'] });
    let state = initialState(disk);
    state = reduce(state, { type: 'removeEntry', wave: 1, agentId: 'a', entry: 'x.md' });
    assert.equal(state.dirty, true);
    state = reduce(state, { type: 'addEntries', wave: 1, agentId: 'a', entries: ['x.md'] });
    assert.equal(state.dirty, false);
  });

  it('loading the disk keeps a dirty draft and says the disk changed under it', () => {
    let state = initialState(diskWith({ a: ['x.md'] }));
    state = reduce(state, { type: 'addEntries', wave: 1, agentId: 'a', entries: ['y.md'] });
    state = reduce(state, { type: 'loadDisk', diskPlan: diskWith({ a: ['z.md'] }) });
    assert.deepEqual(selectedWave(state)?.agents[0]?.entries, ['x.md', 'y.md']);
    assert.equal(state.diskChangedUnderDraft, true);
    state = reduce(state, { type: 'adoptDisk' });
    assert.deepEqual(selectedWave(state)?.agents[0]?.entries, ['z.md']);
    assert.equal(state.dirty, false);
  });

  it('loading the disk replaces a clean draft', () => {
    const state = reduce(initialState(diskWith({ a: ['x.md'] })), { type: 'loadDisk', diskPlan: diskWith({ b: ['q.md'] }) });
    assert.deepEqual(selectedWave(state)?.agents.map((agent) => agent.id), ['b']);
    assert.equal(state.dirty, false);
    assert.equal(state.diskChangedUnderDraft, false);
  });

  it('savedDraft makes the draft the disk plan', () => {
    let state = run([{ type: 'addAgent', wave: 1, id: 'x' }]);
    state = reduce(state, { type: 'savedDraft', draft: state.draft });
    assert.equal(state.dirty, false);
    assert.ok(sameDraft(state.draft, state.diskPlan));
  });

  it('toggles folders and keeps the filter', () => {
    let state = run([{ type: 'toggleFolder', folder: 'src' }, { type: 'setFilter', filter: 'ts' }]);
    assert.deepEqual(state.expanded, ['src']);
    assert.equal(state.filter, 'ts');
    state = reduce(state, { type: 'toggleFolder', folder: 'src', expanded: false });
    assert.deepEqual(state.expanded, []);
  });

  it('persisted state of another version is not accepted', () => {
    assert.equal(isPlannerState(initialState()), true);
    assert.equal(isPlannerState({ ...initialState(), version: 2 }), false);
    assert.equal(isPlannerState(undefined), false);
    assert.equal(isPlannerState({ draft: emptyDraft() }), false);
  });
});
