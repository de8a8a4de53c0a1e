import assert from 'node:assert/strict';
import {
  isDidAssignNotification,
  isDraftChangedCommand,
  isPlanDraft,
  isReadyRequest,
  isReplyMessage,
  isSavePlanRequest,
  isStoredDraftRecord,
} from '../../src/protocol/plannerProtocol';

const draft = { version: 1, activeWave: 1, waves: [{ wave: 1, role: 'builder', agents: [{ id: 'a', color: '#3794ff', entries: ['src/'] }] }] };

describe('planner protocol guards', () => {
  const drafts: [string, unknown, boolean][] = [
    ['a good draft', draft, true],
    ['no active wave', { ...draft, activeWave: undefined }, true],
    ['another version', { ...draft, version: 2 }, false],
    ['wave 0', { ...draft, waves: [{ wave: 0, role: 'builder', agents: [] }] }, false],
    ['a fractional wave', { ...draft, waves: [{ wave: 1.5, role: 'builder', agents: [] }] }, false],
    ['entries not strings', { ...draft, waves: [{ wave: 1, role: 'b', agents: [{ id: 'a', color: '#000000', entries: [1] }] }] }, false],
    ['null', null, false],
  ];
  for (const [name, value, expected] of drafts) {
    it(`isPlanDraft: ${name}`, () => assert.equal(isPlanDraft(value), expected));
  }

  const messages: [string, (value: unknown) => boolean, unknown, boolean][] = [
    ['ready request', isReadyRequest, { kind: 'request', id: 1, method: 'ready', params: { stateVersion: 1 } }, true],
    ['ready without id', isReadyRequest, { kind: 'request', method: 'ready', params: {} }, false],
    ['save request', isSavePlanRequest, { kind: 'request', id: 2, method: 'savePlan', params: { draft } }, true],
    ['save with a broken draft', isSavePlanRequest, { kind: 'request', id: 2, method: 'savePlan', params: { draft: {} } }, false],
    ['draft changed', isDraftChangedCommand, { kind: 'command', method: 'draftChanged', params: { draft, contested: ['a'], dirty: true, updatedAt: 1 } }, true],
    ['draft changed without a time', isDraftChangedCommand, { kind: 'command', method: 'draftChanged', params: { draft, contested: ['a'], dirty: true } }, false],
    ['stored draft record', isStoredDraftRecord, { draft, dirty: false, updatedAt: 5 }, true],
    ['stored draft record of another version', isStoredDraftRecord, { draft: { ...draft, version: 2 }, dirty: true, updatedAt: 5 }, false],
    ['draft changed as a request', isDraftChangedCommand, { kind: 'request', method: 'draftChanged', params: { draft, contested: [], dirty: true } }, false],
    ['reply', isReplyMessage, { kind: 'reply', id: 3, result: {} }, true],
    ['assign', isDidAssignNotification, { kind: 'notification', method: 'didAssign', params: { wave: 1, agentId: 'a', entries: ['x'] } }, true],
    ['assign without entries', isDidAssignNotification, { kind: 'notification', method: 'didAssign', params: { wave: 1, agentId: 'a' } }, false],
  ];
  for (const [name, guard, value, expected] of messages) {
    it(`guard: ${name}`, () => assert.equal(guard(value), expected));
  }
});
