import assert from 'node:assert/strict';
import {
  diskChangedUnderDraft,
  emptyDraft,
  initialState,
  isPlannerState,
  narrowingFit,
  overwriteOf,
  reduce,
  restoreState,
  sameDraft,
  selectedWave,
  staleChangesOf,
  staleWavesOf,
} from '../../webview/plannerState';
import type { PlannerAction, PlannerState } from '../../webview/plannerState';
import type { EditorNarrowing, PlanDraft, SaveOutcome } from '../../src/protocol/plannerProtocol';
import { compileScopeEntry } from '../../src/planner/scope/scopeEntry';
import { rowEntry } from '../../webview/fileTree';

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

  // What a typed id becomes: kept, adjusted with a note (a file name cannot hold a space), or refused.
  const idCases: { typed: string; id: string | undefined; note: boolean }[] = [
    { typed: 'builder-a', id: 'builder-a', note: false },
    { typed: 'Agent_2', id: 'Agent_2', note: false },
    { typed: 'frontend dev', id: 'frontend-dev', note: true },
    { typed: '  api  ', id: 'api', note: false },
    { typed: '-leading-dash', id: 'leading-dash', note: true },
    { typed: '../escape', id: 'escape', note: true },
    { typed: 'ui/cart', id: 'ui-cart', note: true },
    { typed: '---', id: undefined, note: false },
    { typed: 'a'.repeat(129), id: undefined, note: false },
  ];
  for (const { typed, id, note } of idCases) {
    const shown = JSON.stringify(typed.length > 20 ? `${typed.slice(0, 8)}…(${typed.length})` : typed);
    it(`agent id ${shown} ${id === undefined ? 'is refused at its input' : `becomes ${id}${note ? ' with a note' : ''}`}`, () => {
      const state = run([{ type: 'addAgent', wave: 1, id: typed }]);
      assert.deepEqual(selectedWave(state)?.agents.map((agent) => agent.id), id === undefined ? [] : [id]);
      if (id === undefined) assert.equal(state.fieldMessage?.kind, 'error');
      else assert.equal(state.fieldMessage?.kind, note ? 'note' : undefined, state.fieldMessage?.text);
      if (note) assert.match(state.fieldMessage?.text ?? '', new RegExp(`became "${id}"`));
    });
  }

  it('renaming to "frontend dev" makes "frontend-dev" with a note at that lane, not an error', () => {
    const state = run([{ type: 'addAgent', wave: 1, id: 'x' }, { type: 'renameAgent', wave: 1, agentId: 'x', to: 'frontend dev' }]);
    assert.deepEqual(selectedWave(state)?.agents.map((agent) => agent.id), ['frontend-dev']);
    assert.deepEqual(state.fieldMessage && { field: state.fieldMessage.field, kind: state.fieldMessage.kind }, { field: 'agent:1:frontend-dev', kind: 'note' });
  });

  it('refuses a second agent with the same id in one wave', () => {
    const state = run([{ type: 'addAgent', wave: 1, id: 'x' }, { type: 'addAgent', wave: 1, id: 'x' }]);
    assert.equal(selectedWave(state)?.agents.length, 1);
    assert.match(state.fieldMessage?.text ?? '', /already has an agent "x"/);
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
    assert.match(refused.fieldMessage?.text ?? '', /already a wave 2/);
    assert.equal(refused.fieldMessage?.field, 'number:7');
    state = reduce(state, { type: 'deleteWave', wave: 7 });
    assert.deepEqual(state.draft.waves.map((wave) => wave.wave), [1, 2]);
    assert.equal(state.draft.activeWave, undefined);
    assert.equal(state.selectedWave, 2, 'the neighbour of the deleted tab opens');
  });

  it('sets a role per wave and refuses an empty one', () => {
    let state = run([{ type: 'setRole', wave: 1, role: ' reviewer ' }]);
    assert.equal(selectedWave(state)?.role, 'reviewer');
    state = reduce(state, { type: 'setRole', wave: 1, role: '  ' });
    assert.equal(selectedWave(state)?.role, 'reviewer');
    assert.equal(state.fieldMessage?.kind, 'error');
  });

  it('narrows by replacing one entry with files, in place', () => {
    const state = run([
      { type: 'addAgent', wave: 1, id: 'x' },
      { type: 'addEntries', wave: 1, agentId: 'x', entries: ['a.md', 'src/', 'z.md'] },
      { type: 'replaceEntry', wave: 1, agentId: 'x', entry: 'src/', with: ['src/a.ts', 'src/b.ts'] },
    ]);
    assert.deepEqual(selectedWave(state)?.agents[0]?.entries, ['a.md', 'src/a.ts', 'src/b.ts', 'z.md']);
  });

  // A file whose name holds glob characters: its bare name is a glob that names its look-alike instead.
  const globNamed = ['src/a[1].ts', 'docs/[draft] *notes?.md', ' lead.ts'];
  const lookAlikes = ['src/a1.ts', 'docs/d xnotesy.md', 'lead.ts'];
  function namedBy(entry: string): string[] {
    const compiled = compileScopeEntry(entry);
    return [...globNamed, ...lookAlikes].filter((file) => compiled.matches(file));
  }

  it('a tree row dropped or assigned onto an agent names exactly that file or folder', () => {
    const state = run([
      { type: 'addAgent', wave: 1, id: 'x' },
      { type: 'addEntries', wave: 1, agentId: 'x', entries: [...globNamed.map((file) => rowEntry(file, false) as string), rowEntry('docs/[draft] *', true) as string] },
    ]);
    const entries = selectedWave(state)?.agents[0]?.entries ?? [];
    assert.equal(state.notice, undefined);
    assert.deepEqual(entries.slice(0, 3).map(namedBy), globNamed.map((file) => [file]));
    assert.equal(compileScopeEntry(entries[3] ?? '').matches('docs/[draft] */a.md'), true);
    assert.equal(compileScopeEntry(entries[3] ?? '').matches('docs/d x/a.md'), false);
  });

  it('a narrowing names exactly the files it keeps', () => {
    const state = run([
      { type: 'addAgent', wave: 1, id: 'x' },
      { type: 'addEntries', wave: 1, agentId: 'x', entries: ['src/', 'docs/'] },
      { type: 'replaceEntry', wave: 1, agentId: 'x', entry: 'src/', with: ['src/a[1].ts'] },
    ]);
    const entries = selectedWave(state)?.agents[0]?.entries ?? [];
    assert.deepEqual(namedBy(entries[0] ?? ''), ['src/a[1].ts']);
  });

  // `\` is a separator to the grammar: the file `src/x\..\..\lib\` written as it is would be the entry `lib/`.
  it('a file no entry can name (a backslash in its name): no row entry, and a narrowing keeping it is refused', () => {
    const file = 'src/x\\..\\..\\lib\\';
    assert.equal(rowEntry(file, false), undefined);
    const state = run([
      { type: 'addAgent', wave: 1, id: 'x' },
      { type: 'addEntries', wave: 1, agentId: 'x', entries: ['src/'] },
      { type: 'replaceEntry', wave: 1, agentId: 'x', entry: 'src/', with: ['src/a.ts', file] },
    ]);
    assert.deepEqual(selectedWave(state)?.agents[0]?.entries, ['src/']);
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
    assert.equal(diskChangedUnderDraft(state), true);
    state = reduce(state, { type: 'adoptDisk' });
    assert.deepEqual(selectedWave(state)?.agents[0]?.entries, ['z.md']);
    assert.equal(state.dirty, false);
  });

  it('loading the disk replaces a clean draft', () => {
    const state = reduce(initialState(diskWith({ a: ['x.md'] })), { type: 'loadDisk', diskPlan: diskWith({ b: ['q.md'] }) });
    assert.deepEqual(selectedWave(state)?.agents.map((agent) => agent.id), ['b']);
    assert.equal(state.dirty, false);
    assert.equal(diskChangedUnderDraft(state), false);
  });

  it('a successful save makes the draft the disk plan', () => {
    let state = run([{ type: 'addAgent', wave: 1, id: 'x' }]);
    state = reduce(state, { type: 'saveFinished', outcome: { ok: true, wavesWritten: [1], message: 'saved' }, draft: state.draft, at: 0 });
    assert.equal(state.dirty, false);
    assert.ok(sameDraft(state.draft, state.diskPlan));
  });

  describe('the manifest a base records', () => {
    it('a successful save makes the manifest it wrote the base\'s, even where there was none', () => {
      let state = initialState({ ...diskWith({}), manifest: null });
      state = reduce(state, { type: 'addAgent', wave: 1, id: 'x' });
      state = reduce(state, { type: 'setRole', wave: 1, role: 'review' });
      state = reduce(state, { type: 'saveFinished', outcome: { ok: true, wavesWritten: [1], manifestWave: 1, message: 'saved' }, draft: state.draft, at: 0 });
      assert.deepEqual(state.base.manifest, { wave: 1, role: 'review' });
      assert.deepEqual(state.diskPlan.manifest, { wave: 1, role: 'review' });
    });

    it('a successful save that names no active wave leaves the manifest the base recorded', () => {
      let state = initialState({ ...diskWith({ a: ['x.md'] }), manifest: { wave: 1, role: 'builder' } });
      state = reduce(state, { type: 'setActiveWave', wave: undefined });
      state = reduce(state, { type: 'saveFinished', outcome: { ok: true, wavesWritten: [1], message: 'saved' }, draft: state.draft, at: 0 });
      assert.deepEqual(state.base.manifest, { wave: 1, role: 'builder' });
    });

    it('a manifest removed under unsaved edits is a change on disk, though the plan reads the same', () => {
      // An empty wave 1 named active reads the same with or without the manifest: only the record tells.
      let state = initialState({ ...diskWith({}), manifest: { wave: 1, role: 'builder' } });
      state = reduce(state, { type: 'addAgent', wave: 1, id: 'x' });
      state = reduce(state, { type: 'loadDisk', diskPlan: { ...diskWith({}), manifest: null } });
      assert.equal(diskChangedUnderDraft(state), true);
      assert.deepEqual(state.base.manifest, { wave: 1, role: 'builder' }, 'the base is still the plan the draft was made from');
    });

    it('a plan that does not record the manifest (an older one) raises no offer for it', () => {
      let state = initialState(diskWith({}));
      state = reduce(state, { type: 'addAgent', wave: 1, id: 'x' });
      state = reduce(state, { type: 'loadDisk', diskPlan: { ...diskWith({}), manifest: null } });
      assert.equal(diskChangedUnderDraft(state), false);
    });
  });

  describe('a save refused because the plan on disk changed after the draft was made', () => {
    const refusal: SaveOutcome = {
      ok: false,
      step: 'stale',
      message: 'Not saved: the plan on disk changed after this draft was made, and saving would undo that. Wave 1 (the draft would write over it): agent late was added (z.md).',
      collisions: [],
      staleWaves: [
        {
          wave: 1,
          action: 'write',
          changes: ['agent late was added (z.md)'],
          onDisk: [
            { id: 'a', entries: ['x.md'] },
            { id: 'late', entries: ['z.md'] },
          ],
        },
      ],
    };
    const diskNow = (): PlanDraft => ({
      ...diskWith({ a: ['x.md'] }),
      waves: [{ wave: 1, role: 'builder', agents: [{ id: 'a', color: '#3794ff', entries: ['x.md'] }, { id: 'late', color: '#3794ff', entries: ['z.md'] }] }],
    });
    /** The person's draft (y.md added), refused; the host then reports the plan on disk it found. */
    const refused = (): PlannerState => {
      let state = initialState(diskWith({ a: ['x.md'] }));
      state = reduce(state, { type: 'addEntries', wave: 1, agentId: 'a', entries: ['y.md'] });
      state = reduce(state, { type: 'saveStarted' });
      state = reduce(state, { type: 'saveFinished', outcome: refusal, draft: state.draft, at: 0 });
      return reduce(state, { type: 'loadDisk', diskPlan: diskNow() });
    };

    it('keeps the draft unsaved and the refusal with the waves it names', () => {
      const state = refused();
      assert.equal(state.save.kind, 'refused');
      assert.equal(state.dirty, true);
      assert.deepEqual(selectedWave(state)?.agents.map((agent) => [agent.id, agent.entries]), [['a', ['x.md', 'y.md']]]);
      assert.deepEqual(staleWavesOf(state).map(({ wave, changes }) => ({ wave, changes })), [{ wave: 1, changes: ['agent late was added (z.md)'] }]);
      assert.equal(state.save.kind === 'refused' && state.save.message, refusal.message);
    });

    it('an overwrite names each changed wave exactly as the refusal found it on disk', () => {
      assert.deepEqual(overwriteOf(refused()), {
        overwrite: [
          {
            wave: 1,
            agents: [
              { id: 'a', entries: ['x.md'] },
              { id: 'late', entries: ['z.md'] },
            ],
          },
        ],
      });
    });

    it('a refusal for the manifest alone is one too: it names the change and overwrites the manifest as it was on disk', () => {
      const change = 'the manifest now names wave 3 (it named wave 1 when the draft was made); saving would make wave 1 active';
      let state = initialState(diskWith({ a: ['x.md'] }));
      state = reduce(state, { type: 'addEntries', wave: 1, agentId: 'a', entries: ['y.md'] });
      state = reduce(state, {
        type: 'saveFinished',
        outcome: { ok: false, step: 'stale', message: 'Not saved.', collisions: [], staleWaves: [], staleManifest: { onDisk: { wave: 3, role: 'builder' }, base: { wave: 1, role: 'builder' }, draft: { wave: 1, role: 'builder' }, change } },
        draft: state.draft,
        at: 0,
      });
      assert.deepEqual(staleChangesOf(state), [change]);
      assert.deepEqual(overwriteOf(state), { overwrite: [], overwriteManifest: { wave: 3, role: 'builder' } });
    });

    it('a refusal for a manifest removed from disk: an overwrite names "nothing there", also after a reload', () => {
      const change = 'the manifest was removed from disk (it named wave 1 with the role builder when the draft was made), so no wave is active; saving would write it again, to make wave 1 active with the role builder';
      let state = initialState({ ...diskWith({ a: ['x.md'] }), manifest: { wave: 1, role: 'builder' } });
      state = reduce(state, { type: 'addEntries', wave: 1, agentId: 'a', entries: ['y.md'] });
      const staleManifest = { onDisk: null, base: { wave: 1, role: 'builder' }, draft: { wave: 1, role: 'builder' }, change };
      state = reduce(state, { type: 'saveFinished', outcome: { ok: false, step: 'stale', message: 'Not saved.', collisions: [], staleWaves: [], staleManifest }, draft: state.draft, at: 0 });
      assert.deepEqual(staleChangesOf(state), [change]);
      assert.deepEqual(overwriteOf(state), { overwrite: [], overwriteManifest: null });
      const restored = restoreState(JSON.parse(JSON.stringify(state)));
      assert.ok(restored);
      assert.deepEqual(overwriteOf(restored), { overwrite: [], overwriteManifest: null });
    });

    it('an edit after the refusal drops it: there is nothing left to overwrite until a save says so again', () => {
      const state = reduce(refused(), { type: 'addEntries', wave: 1, agentId: 'a', entries: ['w.md'] });
      assert.equal(state.save.kind, 'idle');
      assert.deepEqual(staleWavesOf(state), []);
      assert.equal(overwriteOf(state), undefined);
    });

    it('loading the plan from disk drops the refusal, shows the disk, and undo brings the draft back', () => {
      let state = reduce(refused(), { type: 'adoptDisk' });
      assert.equal(state.dirty, false);
      assert.deepEqual(selectedWave(state)?.agents.map((agent) => agent.id), ['a', 'late']);
      assert.ok(sameDraft(state.base, diskNow()), 'the disk is the base of what is edited next');
      assert.equal(overwriteOf(state), undefined);
      state = reduce(state, { type: 'undo' });
      assert.deepEqual(selectedWave(state)?.agents.map((agent) => [agent.id, agent.entries]), [['a', ['x.md', 'y.md']]]);
    });

    it('a refusal persisted by an older build of this version has nothing to overwrite', () => {
      const state = refused();
      const older = JSON.parse(JSON.stringify(state)) as { save: Record<string, unknown> };
      delete older.save.staleWaves;
      const restored = restoreState(older);
      assert.ok(restored);
      assert.deepEqual(staleWavesOf(restored), []);
      assert.equal(overwriteOf(restored), undefined);
    });
  });

  describe('a narrowing made by the editor’s Narrow (DidNarrowNotification)', () => {
    // On disk when the draft was made: api owns src/api/, ui its server.ts. The Narrow gives api the rest.
    const base = diskWith({ api: ['src/api/'], ui: ['src/api/server.ts'] });
    const narrowedDraft = diskWith({ api: ['src/api/a.ts', 'src/api/b.ts'], ui: ['src/api/server.ts'] });
    // Then another writer gave api the README too.
    const diskNow = diskWith({ api: ['src/api/', 'README.md'], ui: ['src/api/server.ts'] });
    const stale: SaveOutcome = {
      ok: false,
      step: 'stale',
      message: 'Not saved: the plan on disk changed after this draft was made.',
      collisions: [],
      staleWaves: [{ wave: 1, action: 'write', changes: ['agent api now owns README.md'], onDisk: [{ id: 'api', entries: ['src/api/', 'README.md'] }, { id: 'ui', entries: ['src/api/server.ts'] }] }],
    };
    const saved: SaveOutcome = { ok: true, wavesWritten: [1], manifestWave: 1, message: 'Saved wave 1.' };
    const narrowing = (outcome: SaveOutcome, narrowed: PlanDraft = narrowedDraft): EditorNarrowing => ({
      wave: 1,
      agentId: 'api',
      entry: 'src/api/',
      files: ['src/api/a.ts', 'src/api/b.ts'],
      narrowed,
      base,
      outcome,
    });
    const lanes = (state: PlannerState) => Object.fromEntries(state.draft.waves[0]?.agents.map((agent) => [agent.id, [...agent.entries].sort()]) ?? []);
    /** The planner's draft with an unsaved agent docs, made from `base`; the disk then changed under it. */
    const withDocs = (): PlannerState => {
      let state = reduce(initialState(base), { type: 'addAgent', wave: 1, id: 'docs' });
      state = reduce(state, { type: 'addEntries', wave: 1, agentId: 'docs', entries: ['docs/'] });
      return reduce(state, { type: 'loadDisk', diskPlan: diskNow });
    };
    const take = (state: PlannerState, outcome: SaveOutcome, narrowed?: PlanDraft) => reduce(state, { type: 'takeNarrowing', narrowing: narrowing(outcome, narrowed), at: 5 });

    it('refused: an unsaved draft gets the narrowing as one edit, keeps its own edits and base, and shows the refusal', () => {
      const before = withDocs();
      assert.equal(narrowingFit(before, narrowing(stale)), 'fits');
      const state = take(before, stale);
      assert.deepEqual(lanes(state), { api: ['src/api/a.ts', 'src/api/b.ts'], ui: ['src/api/server.ts'], docs: ['docs/'] });
      assert.ok(sameDraft(state.base, base), 'still compared with the plan it was made from');
      assert.equal(state.dirty, true);
      assert.equal(state.history.past.length, before.history.past.length + 1, 'one edit');
      assert.deepEqual(overwriteOf(state), { overwrite: [{ wave: 1, agents: [{ id: 'api', entries: ['src/api/', 'README.md'] }, { id: 'ui', entries: ['src/api/server.ts'] }] }] });
      const undone = reduce(state, { type: 'undo' });
      assert.ok(sameDraft(undone.draft, before.draft), 'undo gives the draft back as it was');
      assert.equal(undone.save.kind, 'idle', 'and the refusal, which was about the narrowed draft, goes');
    });

    it('refused: a draft edited from another plan on disk gets the narrowing without the refusal, which was not about it', () => {
      let before = reduce(withDocs(), { type: 'adoptDisk' });
      before = reduce(before, { type: 'addEntries', wave: 1, agentId: 'ui', entries: ['src/ui/'] });
      const state = take(before, stale);
      assert.deepEqual(lanes(state).api, ['README.md', 'src/api/a.ts', 'src/api/b.ts']);
      assert.deepEqual(lanes(state).ui, ['src/api/server.ts', 'src/ui/']);
      assert.ok(sameDraft(state.base, diskNow));
      assert.equal(state.save.kind, 'idle');
    });

    it('refused: a draft without unsaved edits gives way to the narrowed draft, with its base and the refusal; undo shows the plan on disk again', () => {
      const before = initialState(diskNow);
      assert.equal(narrowingFit(before, narrowing(stale)), 'unedited');
      const state = take(before, stale);
      assert.ok(sameDraft(state.draft, narrowedDraft));
      assert.ok(sameDraft(state.base, base));
      assert.ok(sameDraft(state.diskPlan, diskNow));
      assert.equal(state.dirty, true);
      assert.ok(diskChangedUnderDraft(state));
      assert.notEqual(overwriteOf(state), undefined);
      assert.ok(sameDraft(reduce(state, { type: 'undo' }).draft, diskNow));
    });

    it('refused: a draft that is the narrowed one already takes only the refusal', () => {
      const before = reduce(initialState(diskNow), { type: 'loadDisk', diskPlan: diskNow, keepDraft: narrowedDraft, keepBase: base });
      assert.equal(narrowingFit(before, narrowing(stale)), 'same');
      const state = take(before, stale);
      assert.equal(state.draft, before.draft);
      assert.equal(state.history.past.length, before.history.past.length);
      assert.equal(state.save.kind, 'refused');
    });

    it('refused: a draft without the narrowed entry is left alone until the person chooses the narrowed draft, which undo takes back', () => {
      const before = reduce(withDocs(), { type: 'removeEntry', wave: 1, agentId: 'api', entry: 'src/api/' });
      assert.equal(narrowingFit(before, narrowing(stale)), 'apart');
      assert.equal(take(before, stale), before, 'nothing dropped without asking');
      const state = reduce(before, { type: 'adoptNarrowed', narrowing: narrowing(stale), at: 5 });
      assert.ok(sameDraft(state.draft, narrowedDraft));
      assert.ok(sameDraft(state.base, base));
      assert.equal(state.save.kind, 'refused');
      assert.ok(sameDraft(reduce(state, { type: 'undo' }).draft, before.draft), 'undo brings the draft that was replaced back');
    });

    it('saved: the narrowing is made on the draft, whose own unsaved edits stay on top of the saved plan', () => {
      const before = reduce(reduce(initialState(base), { type: 'addAgent', wave: 1, id: 'docs' }), { type: 'addEntries', wave: 1, agentId: 'docs', entries: ['docs/'] });
      const state = take(before, saved);
      assert.deepEqual(lanes(state), { api: ['src/api/a.ts', 'src/api/b.ts'], ui: ['src/api/server.ts'], docs: ['docs/'] });
      assert.ok(sameDraft(state.diskPlan, narrowedDraft) && sameDraft(state.base, narrowedDraft), 'the saved plan is the disk and the base');
      assert.equal(state.dirty, true, 'docs is still unsaved');
      assert.equal(state.save.kind, 'saved');
    });

    it('saved: a draft without unsaved edits is the narrowed plan, clean', () => {
      const state = take(initialState(base), saved);
      assert.ok(sameDraft(state.draft, narrowedDraft));
      assert.equal(state.dirty, false);
      assert.equal(state.save.kind, 'saved');
    });

    it('saved: a draft without the narrowed entry keeps its edits over the saved plan', () => {
      const before = reduce(withDocs(), { type: 'removeAgent', wave: 1, agentId: 'api' });
      const state = take(before, saved);
      assert.ok(sameDraft(state.draft, before.draft));
      assert.ok(sameDraft(state.diskPlan, narrowedDraft));
      assert.equal(state.dirty, true);
    });

    it('shows the wave the narrowing was made in', () => {
      let before = reduce(withDocs(), { type: 'addWave' });
      assert.equal(before.selectedWave, 2);
      before = take(before, stale);
      assert.equal(before.selectedWave, 1);
    });
  });

  it('toggles folders and keeps the filter', () => {
    let state = run([{ type: 'toggleFolder', folder: 'src' }, { type: 'setFilter', filter: 'ts' }]);
    assert.deepEqual(state.expanded, ['src']);
    assert.equal(state.filter, 'ts');
    state = reduce(state, { type: 'toggleFolder', folder: 'src', expanded: false });
    assert.deepEqual(state.expanded, []);
  });

  it('persisted state of another version is not accepted; an older build of this version is completed', () => {
    const older: Record<string, unknown> = { ...initialState() };
    delete older.base;
    delete older.history;
    delete older.save;
    const restored = restoreState(older);
    assert.ok(restored);
    assert.deepEqual(restored.history, { past: [], future: [] });
    assert.equal(restored.base, restored.diskPlan);
    assert.equal(isPlannerState(initialState()), true);
    assert.equal(isPlannerState({ ...initialState(), version: 2 }), false);
    assert.equal(isPlannerState(undefined), false);
    assert.equal(isPlannerState({ draft: emptyDraft() }), false);
  });
});
