import assert from 'node:assert/strict';
import * as v from 'valibot';
import type { CommandType, NotificationType, RequestType, WireMessage } from '../../src/protocol/ipc';
import { IpcEndpoint } from '../../src/protocol/ipc';
import {
  DidAssignNotification,
  DraftChangedCommand,
  isPlanDraft,
  overwriteChoiceOf,
  planAsSaved,
  PLANNER_PROTOCOL,
  PlanDraftSchema,
  ReadyRequest,
  SavePlanRequest,
} from '../../src/protocol/plannerProtocol';

const draft = { version: 1, activeWave: 1, waves: [{ wave: 1, role: 'builder', agents: [{ id: 'a', color: '#3794ff', entries: ['src/'] }] }] };

/** Whether an endpoint that handles `type` hands `message` to its handler (the checks both sides run). */
async function accepts(type: RequestType | CommandType | NotificationType, message: unknown): Promise<boolean> {
  let handled = false;
  const endpoint = new IpcEndpoint({ post: () => undefined });
  if (type.kind === 'request') {
    endpoint.onRequest(type, () => {
      handled = true;
      return undefined;
    });
  } else if (type.kind === 'command') {
    endpoint.onCommand(type, () => {
      handled = true;
    });
  } else {
    endpoint.onNotification(type, () => {
      handled = true;
    });
  }
  await endpoint.receive(message);
  return handled;
}

/** Whether a reply with this envelope (and the pending request's id) settles that request. */
async function settlesRequest(reply: Record<string, unknown>, { sameId = true } = {}): Promise<boolean> {
  const posted: WireMessage[] = [];
  const endpoint = new IpcEndpoint({ post: (message) => posted.push(message) });
  let settled = false;
  const answer = endpoint.sendRequest({ ...ReadyRequest, result: v.unknown() }, { stateVersion: 1 }).then(
    () => (settled = true),
    () => (settled = true),
  );
  const request = posted[0];
  assert.equal(request?.kind, 'request');
  const id = request.kind === 'request' ? request.id : 0;
  await endpoint.receive({ ...reply, id: sameId ? id : id + 1 });
  await Promise.resolve();
  const result = settled;
  endpoint.close();
  await answer;
  return result;
}

describe('planner protocol guards', () => {
  const drafts: [string, unknown, boolean][] = [
    ['a good draft', draft, true],
    ['no active wave', { ...draft, activeWave: undefined }, true],
    ['another version', { ...draft, version: 2 }, false],
    ['wave 0', { ...draft, waves: [{ wave: 0, role: 'builder', agents: [] }] }, false],
    ['a fractional wave', { ...draft, waves: [{ wave: 1.5, role: 'builder', agents: [] }] }, false],
    ['a fractional active wave', { ...draft, activeWave: 1.5 }, false],
    ['active wave 0', { ...draft, activeWave: 0 }, false],
    ['a negative active wave', { ...draft, activeWave: -1 }, false],
    ['entries not strings', { ...draft, waves: [{ wave: 1, role: 'b', agents: [{ id: 'a', color: '#000000', entries: [1] }] }] }, false],
    ['null', null, false],
    ['read from disk with a manifest', { ...draft, manifest: { wave: 1, role: 'builder' } }, true],
    ['read from disk without a manifest', { ...draft, manifest: null }, true],
    ['a manifest of wave 0', { ...draft, manifest: { wave: 0, role: 'builder' } }, false],
    ['a manifest without a role', { ...draft, manifest: { wave: 1 } }, false],
  ];
  for (const [name, value, expected] of drafts) {
    it(`isPlanDraft: ${name}`, () => assert.equal(isPlanDraft(value), expected));
  }

  const messages: [string, RequestType | CommandType | NotificationType, unknown, boolean][] = [
    ['ready request', ReadyRequest, { kind: 'request', id: 1, method: 'ready', params: { stateVersion: 1 } }, true],
    ['ready without id', ReadyRequest, { kind: 'request', method: 'ready', params: {} }, false],
    ['save request', SavePlanRequest, { kind: 'request', id: 2, method: 'savePlan', params: { draft } }, true],
    ['save with a broken draft', SavePlanRequest, { kind: 'request', id: 2, method: 'savePlan', params: { draft: {} } }, false],
    [
      'save overwriting a wave as it was on disk',
      SavePlanRequest,
      { kind: 'request', id: 2, method: 'savePlan', params: { draft, base: draft, overwrite: [{ wave: 1, agents: [{ id: 'a', entries: ['src/'] }] }] } },
      true,
    ],
    ['save overwriting a manifest removed from disk', SavePlanRequest, { kind: 'request', id: 2, method: 'savePlan', params: { draft, base: draft, overwriteManifest: null } }, true],
    [
      'save overwriting a manifest as it was on disk',
      SavePlanRequest,
      { kind: 'request', id: 2, method: 'savePlan', params: { draft, base: draft, overwriteManifest: { wave: 2, role: 'review' } } },
      true,
    ],
    ['save overwriting a manifest of wave 0', SavePlanRequest, { kind: 'request', id: 2, method: 'savePlan', params: { draft, overwriteManifest: { wave: 0, role: 'b' } } }, false],
    ['save overwriting "everything"', SavePlanRequest, { kind: 'request', id: 2, method: 'savePlan', params: { draft, base: draft, overwrite: true } }, false],
    ['save overwriting wave 0', SavePlanRequest, { kind: 'request', id: 2, method: 'savePlan', params: { draft, overwrite: [{ wave: 0, agents: [] }] } }, false],
    ['draft changed', DraftChangedCommand, { kind: 'command', method: 'draftChanged', params: { draft, contested: ['a'], dirty: true, updatedAt: 1 } }, true],
    ['draft changed without a time', DraftChangedCommand, { kind: 'command', method: 'draftChanged', params: { draft, contested: ['a'], dirty: true } }, false],
    ['draft changed as a request', DraftChangedCommand, { kind: 'request', method: 'draftChanged', params: { draft, contested: [], dirty: true } }, false],
    ['assign', DidAssignNotification, { kind: 'notification', method: 'didAssign', params: { wave: 1, agentId: 'a', entries: ['x'] } }, true],
    ['assign without entries', DidAssignNotification, { kind: 'notification', method: 'didAssign', params: { wave: 1, agentId: 'a' } }, false],
  ];
  for (const [name, type, value, expected] of messages) {
    it(`guard: ${name}`, async () => assert.equal(await accepts(type, value), expected));
  }

  it('guard: reply', async () => assert.equal(await settlesRequest({ kind: 'reply', result: {} }), true));
  it('guard: a reply to another request', async () => assert.equal(await settlesRequest({ kind: 'reply', result: {} }, { sameId: false }), false));
});

describe('planner protocol declarations', () => {
  it('names every message once, by kind', () => {
    const all = [...PLANNER_PROTOCOL.requests, ...PLANNER_PROTOCOL.commands, ...PLANNER_PROTOCOL.notifications];
    const names = all.map((type) => `${type.kind}:${type.method}`);
    assert.deepEqual([...new Set(names)], names);
    for (const type of PLANNER_PROTOCOL.notifications) assert.match(type.method, /^did[A-Z]/, `${type.method} is a DidXxx notification`);
    for (const type of PLANNER_PROTOCOL.requests) assert.ok(type.timeoutMs > 0, `${type.method} has a timeout`);
  });

  it('keeps only normalised repository-relative contested paths of a changed draft: the others never become marks', () => {
    const change = v.parse(DraftChangedCommand.params, {
      draft,
      contested: ['src/a.ts', 'docs/x y.md', '../outside.ts', 'src/../../etc/passwd', '/etc/passwd', './src/a.ts', 'src//a.ts', 'src/', '', 'src\\..\\..\\x'],
      dirty: true,
      updatedAt: 1,
    });
    assert.deepEqual(change.contested, ['src/a.ts', 'docs/x y.md']);
  });

  it('reads a draft whose "no active wave" was written as null (a JSON copy) as undefined', () => {
    const parsed = v.parse(PlanDraftSchema, { ...draft, activeWave: null });
    assert.equal(parsed.activeWave, undefined);
    assert.equal('activeWave' in parsed && parsed.activeWave === null, false);
  });

  it('an overwrite of a refusal for a removed manifest names "nothing there" (null), not "no choice" (absent)', () => {
    const choice = overwriteChoiceOf({
      ok: false,
      step: 'stale',
      message: 'Not saved.',
      collisions: [],
      staleWaves: [],
      staleManifest: { onDisk: null, base: { wave: 1, role: 'builder' }, draft: { wave: 1, role: 'builder' }, change: 'removed' },
    });
    assert.deepEqual(choice, { overwrite: [], overwriteManifest: null });
    const sent = v.parse(SavePlanRequest.params, { draft, ...choice });
    assert.equal(sent.overwriteManifest, null);
  });

  it('a saved plan records the manifest the save wrote, or the base\'s when it named no active wave', () => {
    const plan = v.parse(PlanDraftSchema, draft);
    const base = { ...plan, manifest: { wave: 1, role: 'implementation' } };
    assert.deepEqual(planAsSaved({ ...plan, manifest: null }, base).manifest, { wave: 1, role: 'builder' });
    assert.deepEqual(planAsSaved({ ...plan, activeWave: undefined, manifest: null }, base).manifest, { wave: 1, role: 'implementation' });
    assert.equal(planAsSaved({ ...plan, activeWave: undefined, manifest: null }, undefined).manifest, undefined, 'not known: not recorded');
    // The save removed the manifest the draft was made from (its wave made inactive): none is there now.
    assert.equal(planAsSaved({ ...plan, activeWave: undefined }, base, { manifestRemoved: true }).manifest, null);
    // The manifest written is bound to the session the outcome names (it kept the binding of the one it replaced).
    assert.deepEqual(planAsSaved(plan, base, { manifestBoundTo: 'sess-42' }).manifest, { wave: 1, role: 'builder', boundTo: 'sess-42' });
    assert.deepEqual(v.parse(PlanDraftSchema, { ...plan, manifest: { wave: 1, role: 'builder', boundTo: 'sess-42' } }).manifest, { wave: 1, role: 'builder', boundTo: 'sess-42' }, 'the binding travels in the protocol');
  });
});
