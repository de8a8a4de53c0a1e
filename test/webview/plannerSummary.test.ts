// The summary at the top of the planner (issue 14: summary first; bugs 5 and 13): one save status that
// is always true, counts that agree with what the list below shows, and the one next action.
import assert from 'node:assert/strict';
import type { PlanDraft, SaveOutcome } from '../../src/protocol/plannerProtocol';
import { collisionReason, collisionNote, resolutionLabel } from '../../webview/collisionText';
import { DraftAnalyses, MatchCache } from '../../webview/planAnalysis';
import { initialState, reduce } from '../../webview/plannerState';
import type { PlannerAction, PlannerState } from '../../webview/plannerState';
import { summarize } from '../../webview/plannerSummary';
import type { WaveFacts } from '../../webview/plannerSummary';
import { count } from '../../webview/wording';

const files = ['README.md', 'docs/a.md', 'docs/b.md', 'src/a.ts', 'src/b.ts'];

function plan(waves: Record<number, Record<string, string[]>>, activeWave: number | undefined): PlanDraft {
  return {
    version: 1,
    activeWave,
    waves: Object.entries(waves).map(([wave, agents]) => ({
      wave: Number(wave),
      role: 'builder',
      agents: Object.entries(agents).map(([id, entries]) => ({ id, color: '#3794ff', entries })),
    })),
  };
}

/** The facts the controller computes, from the real analysis. */
function factsOf(state: PlannerState): Map<number, WaveFacts> {
  const analyses = new DraftAnalyses(new MatchCache(files));
  return new Map(
    state.draft.waves.map((wave) => {
      const analysis = analyses.of(wave);
      return [wave.wave, { collisions: analysis.collisions.length, unowned: analysis.unowned, claimConflicts: 0 }];
    }),
  );
}

function summaryOf(state: PlannerState, options: { trusted?: boolean; ready?: boolean } = {}) {
  return summarize({ state, facts: factsOf(state), trusted: options.trusted ?? true, ready: options.ready ?? true, analysed: true });
}

function run(state: PlannerState, actions: PlannerAction[]): PlannerState {
  return actions.reduce((current, action) => reduce(current, action), state);
}

describe('planner summary: one status that is always true (issue 14, bug 5)', () => {
  const disk = plan({ 1: { a: ['src/'] } }, 1);
  const saved: SaveOutcome = { ok: true, wavesWritten: [1], message: 'Saved 1 wave' };
  const refused: SaveOutcome = { ok: false, message: 'Not saved: the plan is not disjoint.', collisions: [] };

  const cases: { name: string; state: () => PlannerState; text: RegExp; tone: string }[] = [
    { name: 'the disk plan, untouched', state: () => initialState(disk), text: /^Saved$/, tone: 'ok' },
    { name: 'an edit', state: () => run(initialState(disk), [{ type: 'addAgent', wave: 1, id: 'b' }]), text: /^Unsaved changes$/, tone: 'pending' },
    {
      name: 'saved, then edited: unsaved, never a stale "Saved"',
      state: () => {
        const edited = run(initialState(disk), [{ type: 'addAgent', wave: 1, id: 'b' }]);
        return run(reduce(edited, { type: 'saveFinished', outcome: saved, draft: edited.draft, at: Date.UTC(2026, 0, 1, 10, 42) }), [
          { type: 'addAgent', wave: 1, id: 'c' },
        ]);
      },
      text: /^Unsaved changes$/,
      tone: 'pending',
    },
    {
      name: 'just saved',
      state: () => {
        const edited = run(initialState(disk), [{ type: 'addAgent', wave: 1, id: 'b' }]);
        return reduce(edited, { type: 'saveFinished', outcome: saved, draft: edited.draft, at: 0 });
      },
      text: /^Saved at \d\d:\d\d$/,
      tone: 'ok',
    },
    {
      name: 'refused',
      state: () => {
        const edited = run(initialState(disk), [{ type: 'addAgent', wave: 1, id: 'b' }]);
        return reduce(edited, { type: 'saveFinished', outcome: refused, draft: edited.draft, at: 0 });
      },
      text: /^Not saved$/,
      tone: 'error',
    },
    {
      name: 'refused, then fixed: the refusal is gone with the draft it was about',
      state: () => {
        const edited = run(initialState(disk), [{ type: 'addAgent', wave: 1, id: 'b' }]);
        return run(reduce(edited, { type: 'saveFinished', outcome: refused, draft: edited.draft, at: 0 }), [{ type: 'removeAgent', wave: 1, agentId: 'b' }]);
      },
      text: /^Saved$/,
      tone: 'ok',
    },
    { name: 'saving', state: () => reduce(run(initialState(disk), [{ type: 'addAgent', wave: 1, id: 'b' }]), { type: 'saveStarted' }), text: /^Saving…$/, tone: 'pending' },
  ];
  for (const { name, state, text, tone } of cases) {
    it(name, () => {
      const summary = summaryOf(state());
      assert.match(summary.status.text, text);
      assert.equal(summary.status.tone, tone);
    });
  }

  it('a repository without a plan: nothing claims to be saved or enforced', () => {
    // What the host reads for a repository without any plan: an empty wave 1 the manifest will name.
    const summary = summaryOf(initialState(plan({ 1: {} }, 1)));
    assert.equal(summary.status.text, 'No plan saved yet');
    assert.equal(summary.enforcement, 'Active once saved');
  });

  it('before the host answered, nothing claims to be saved', () => {
    assert.match(summaryOf(initialState(disk), { ready: false }).status.text, /Loading/);
    assert.equal(summaryOf(initialState(disk), { ready: false }).canSave, false);
  });

  it('"Saved" never hides that nothing is enforced: a saved wave that is not active says so, with Make active', () => {
    const summary = summaryOf(initialState(plan({ 1: { a: ['src/'] } }, undefined)));
    assert.equal(summary.status.text, 'Saved');
    assert.equal(summary.active, false);
    assert.match(summary.enforcement, /nothing enforces/);
    assert.deepEqual(summary.next, { kind: 'makeActive', label: 'Make active', wave: 1 });
  });

  it('an active, saved, disjoint wave says the hooks enforce it, and asks for nothing', () => {
    const summary = summaryOf(initialState(disk));
    assert.match(summary.enforcement, /hooks enforce/);
    assert.equal(summary.next, undefined);
  });

  it('a manifest bound to an agent session: the header names the session, before and after an edit, and the hover says whom the hooks hold', () => {
    const session = '0f2c9a61-5b7e-4d3a-9c1e-7a8b9c0d1e2f';
    const bound: PlanDraft = { ...disk, manifest: { wave: 1, role: 'builder', boundTo: session } };
    let summary = summaryOf(initialState(bound));
    assert.equal(summary.enforcement, 'Active, bound to agent session 0f2c9a61…');
    assert.match(summary.enforcementDetail ?? '', /bound to the agent session 0f2c9a61-5b7e-4d3a-9c1e-7a8b9c0d1e2f\. The write gate holds that session's edits to this wave, .*but lets other agent sessions' edits through; the commit guard holds every commit to it\. .*a save keeps this binding\./);
    // An edit keeps saying so: the wave on disk is still enforced for that session.
    summary = summaryOf(reduce(initialState(bound), { type: 'addEntries', wave: 1, agentId: 'a', entries: ['README.md'] }));
    assert.equal(summary.enforcement, 'Active, bound to agent session 0f2c9a61…');
    // A bound manifest naming a wave with no agents on disk yet: enforced once saved, for that session still
    // (a save keeps the binding of the manifest it replaces).
    const empty: PlanDraft = { ...plan({ 1: {} }, 1), manifest: { wave: 1, role: 'builder', boundTo: session } };
    summary = summaryOf(reduce(initialState(empty), { type: 'addAgent', wave: 1 }));
    assert.equal(summary.enforcement, 'Active once saved, bound to agent session 0f2c9a61…');
    // A short id is shown whole; an unbound manifest says nothing of sessions.
    assert.equal(summaryOf(initialState({ ...disk, manifest: { wave: 1, role: 'builder', boundTo: 'sess-42' } })).enforcement, 'Active, bound to agent session sess-42');
    summary = summaryOf(initialState({ ...disk, manifest: { wave: 1, role: 'builder' } }));
    assert.equal(summary.enforcement, 'Active: the hooks enforce this wave');
    assert.equal(summary.enforcementDetail, undefined);
  });

  it('Restricted mode: Save is not offered as possible', () => {
    assert.equal(summaryOf(initialState(disk), { trusted: false }).canSave, false);
  });
});

describe('planner summary: counts agree with the lists (issue 14, bug 13)', () => {
  it('the collision count is the number of collisions listed for the open wave; other waves are counted apart', () => {
    const state = initialState(plan({ 1: { a: ['src/'], b: ['src/a.ts'], c: ['src/b.ts'] }, 2: { d: ['**/*.md'], e: ['docs/'] } }, 1));
    const analyses = new DraftAnalyses(new MatchCache(files));
    const summary = summaryOf(state);
    const wave1 = state.draft.waves[0];
    assert.ok(wave1);
    assert.equal(summary.collisions, analyses.of(wave1).collisions.length);
    assert.equal(summary.collisions, 2);
    assert.equal(summary.collisionsElsewhere, 1);
    assert.deepEqual(summary.next, { kind: 'resolve', label: 'Resolve 2 collisions' });
  });

  it('counts are in words that agree with their number', () => {
    assert.equal(count(1, 'matching file'), '1 matching file');
    assert.equal(count(0, 'file'), '0 files');
    assert.equal(count(2, 'entry', 'entries'), '2 entries');
    assert.equal(summaryOf(initialState(plan({ 1: { a: ['src/'], b: ['src/a.ts'] } }, 1))).next?.label, 'Resolve 1 collision');
  });

  it('the unowned count is the files no agent of the open wave owns', () => {
    assert.equal(summaryOf(initialState(plan({ 1: { a: ['src/'] } }, 1))).unowned, 3);
  });

  it('explains both kinds of collision and labels each resolution with its agent and entry', () => {
    assert.equal(
      collisionReason({ agents: ['a', 'b'], entries: ['src/', '**/*.ts'], kind: 'concrete', witness: 'src/a.ts', shared: 2 }),
      'Both own 2 existing files, e.g. src/a.ts.',
    );
    assert.equal(
      collisionReason({ agents: ['a', 'b'], entries: ['gen/**', '**/*.ts'], kind: 'glob', witness: 'gen/x.ts', shared: 0 }),
      'No file today, but any path like gen/x.ts would be owned by both.',
    );
    assert.equal(
      collisionNote({ agents: ['a', 'b'], entries: ['gen/**', '**/*.ts'], kind: 'glob', witness: 'gen/x.ts', shared: 0 }, 0),
      'Collides with b (**/*.ts): no file today, but any path like gen/x.ts would be owned by both',
    );
    assert.equal(resolutionLabel({ kind: 'remove', agent: 'a', entry: 'src/' }), 'Remove src/ from a');
    assert.equal(resolutionLabel({ kind: 'narrow', agent: 'a', entry: 'src/', files: ['src/b.ts'] }), 'Narrow a’s src/ to src/b.ts');
    assert.equal(resolutionLabel({ kind: 'narrow', agent: 'a', entry: 'src/', files: ['x', 'y'] }), 'Narrow a’s src/ to its 2 files');
  });
});

describe('planner summary: the next action', () => {
  const cases: { name: string; draft: PlanDraft; actions?: PlannerAction[]; next: string | undefined }[] = [
    { name: 'collisions first', draft: plan({ 1: { a: ['src/'], b: ['src/a.ts'] } }, 1), next: 'resolve' },
    { name: 'an empty wave: add an agent', draft: plan({ 1: {} }, 1), next: 'addAgent' },
    { name: 'unsaved and disjoint: save', draft: plan({ 1: { a: ['src/'] } }, 1), actions: [{ type: 'addAgent', wave: 1, id: 'b' }], next: 'save' },
    { name: 'saved and not active: make active', draft: plan({ 1: { a: ['src/'] } }, undefined), next: 'makeActive' },
    { name: 'saved and active: nothing', draft: plan({ 1: { a: ['src/'] } }, 1), next: undefined },
    { name: 'no waves: add one', draft: { version: 1, waves: [], activeWave: undefined }, next: 'addWave' },
  ];
  for (const { name, draft, actions, next } of cases) {
    it(name, () => {
      assert.equal(summaryOf(run(initialState(draft), actions ?? [])).next?.kind, next);
    });
  }
});
