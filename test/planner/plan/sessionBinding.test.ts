import assert from 'node:assert/strict';
import { classifyManifestSession, manifestSessionIds, processLocalSessionIds, writerSessionBinding } from '../../../src/planner/plan/sessionBinding';

describe('processLocalSessionIds', () => {
  const table: Array<[string, { payloadSessionIds?: unknown[]; env: Record<string, string | undefined> }, string[]]> = [
    ['nothing at all', { env: {} }, []],
    ['the env var only', { env: { CLAUDE_CODE_SESSION_ID: 'env-1' } }, ['env-1']],
    ['the payload only', { payloadSessionIds: ['pay-1'], env: {} }, ['pay-1']],
    ['both, different: the union', { payloadSessionIds: ['pay-1'], env: { CLAUDE_CODE_SESSION_ID: 'env-1' } }, ['pay-1', 'env-1']],
    ['both, equal: one id', { payloadSessionIds: ['same'], env: { CLAUDE_CODE_SESSION_ID: 'same' } }, ['same']],
    ['values are trimmed', { payloadSessionIds: ['  pay-1 \n'], env: { CLAUDE_CODE_SESSION_ID: '\tenv-1 ' } }, ['pay-1', 'env-1']],
    ['whitespace-only values are dropped', { payloadSessionIds: ['   '], env: { CLAUDE_CODE_SESSION_ID: ' \t ' } }, []],
    ['non-strings in the payload are dropped', { payloadSessionIds: [null, 7, {}, 'ok'], env: {} }, ['ok']],
    ['other env vars are not identity', { env: { SESSION_ID: 'x', CLAUDE_SESSION: 'y' } }, []],
  ];
  for (const [name, input, expected] of table) {
    it(name, () => assert.deepEqual([...processLocalSessionIds(input)], expected));
  }
});

describe('classifyManifestSession', () => {
  const mine = new Set(['me', 'my-sub']);
  const none = new Set<string>();
  const table: Array<[string, unknown, ReadonlySet<string>, string]> = [
    ['no ids in the manifest', { wave: 1 }, mine, 'unknown'],
    ['an own session_id', { session_id: 'me' }, mine, 'own'],
    ['an own id after trimming', { session_id: ' me ' }, mine, 'own'],
    ['own semantic id, foreign raw id', { session_id: 'peer', semantic_session_id: 'my-sub' }, mine, 'own'],
    ['ids, none ours', { session_id: 'peer' }, mine, 'foreign'],
    ['ids, but we have none', { session_id: 'peer' }, none, 'unknown'],
    ['an empty id names nobody', { session_id: '' }, mine, 'unknown'],
    ['a blank id names nobody', { session_id: '   ', semantic_session_id: '' }, mine, 'unknown'],
    ['legacy session key, foreign', { session: 'peer' }, mine, 'foreign'],
    ['legacy semantic_session key, own', { semantic_session: 'me' }, mine, 'own'],
    ['a corrupt manifest (nothing parsed)', undefined, mine, 'unknown'],
    ['an array', ['me'], mine, 'unknown'],
    ['a non-string id', { session_id: 42 }, mine, 'unknown'],
  ];
  for (const [name, manifest, ownIds, verdict] of table) {
    it(`${name} → ${verdict}`, () => assert.equal(classifyManifestSession(manifest, ownIds), verdict));
  }

  it('lists the ids a manifest names, current keys first, without duplicates', () => {
    assert.deepEqual(manifestSessionIds({ session: 'a', session_id: 'b', semantic_session_id: 'b' }), ['b', 'a']);
  });
});

describe('writerSessionBinding', () => {
  it('binds to the first own id', () => assert.deepEqual(writerSessionBinding(new Set(['a', 'b'])), { session_id: 'a' }));
  it('omits the keys without an id', () => assert.deepEqual(writerSessionBinding(new Set()), {}));
});
