// How the extension keeps a folder's draft (its own storage format, not a protocol message): the
// record's schema, and a round trip through the extension's real store, file and workspaceState.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as v from 'valibot';
import * as vscode from 'vscode';
import { StoredDraftRecordSchema } from '../../src/extension/draftStore';
import type { WaveScopeApi } from '../../src/extension/extension';

const extensionId = 'wave-scope.wave-scope';
const draft = { version: 1 as const, activeWave: 1, waves: [{ wave: 1, role: 'builder', agents: [{ id: 'a', color: '#3794ff', entries: ['src/'] }] }] };

describe('the kept draft record', () => {
  const records: [string, unknown, boolean][] = [
    ['stored draft record', { draft, dirty: false, updatedAt: 5 }, true],
    ['stored draft record of another version', { draft: { ...draft, version: 2 }, dirty: true, updatedAt: 5 }, false],
    ['without its time', { draft, dirty: true }, false],
    ['not an object', 'draft', false],
  ];
  for (const [name, value, expected] of records) {
    it(`schema: ${name}`, () => assert.equal(v.safeParse(StoredDraftRecordSchema, value).success, expected));
  }

  it('round-trips through the extension’s store, written at once to its storage file', async () => {
    const api = await vscode.extensions.getExtension<WaveScopeApi>(extensionId)?.activate();
    assert.ok(api);
    const folder = vscode.workspace.workspaceFolders?.[0];
    assert.ok(folder);
    const plan = await api.plans.get(folder);
    const before = await plan.drafts.read();
    const record = { draft, dirty: true, updatedAt: Date.now() };
    try {
      await plan.drafts.write(record);
      assert.deepEqual(await plan.drafts.read(), record);
      assert.deepEqual(await plan.drafts.unsavedDraft(), draft);
      const file = plan.drafts.file;
      assert.ok(file, 'the extension has a storage folder on disk');
      assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), record);
      assert.equal(plan.drafts.look().colors.a, '#3794ff', 'the lane colour is remembered');
    } finally {
      await plan.drafts.write(before ?? { draft: plan.diskPlan().plan, dirty: false, updatedAt: Date.now() });
    }
  });
});
