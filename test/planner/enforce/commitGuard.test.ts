// The commit guard's decision and the session evidence it weighs, as pure functions (the built CLI
// is tested in test/cli/commitGuard.test.ts).
import assert from 'node:assert/strict';
import { checkStagedChanges, declaredFiles, parseNameStatusZ, parseSessionStart } from '../../../src/planner/enforce/commitGuard';
import type { CommitGuardInput } from '../../../src/planner/enforce/commitGuard';
import { formatSessionRecord, nextSessionRecord, parseSessionRecord, weighSessionEvidence } from '../../../src/planner/enforce/sessionRecord';

const ROOT = '/r';
const loaded = (fields: { wave?: number; enforcement?: 'strict' | 'warn' | 'off'; allowedPaths: string[] }) =>
  ({ kind: 'loaded', path: `${ROOT}/.claude/wave-scope.json`, manifest: { wave: fields.wave ?? 2, role: 'implementation', enforcement: fields.enforcement ?? 'strict', allowedPaths: fields.allowedPaths }, session: 'unknown' }) as const;
const input = (overrides: Partial<CommitGuardInput>): CommitGuardInput => ({
  changes: [{ status: 'M', paths: ['src/a.ts'] }],
  manifest: loaded({ allowedPaths: ['src/'] }),
  sidecars: [],
  controlPaths: ['.claude/wave-scope.json', '.claude/filescopes/'],
  repoRoot: ROOT,
  ...overrides,
});

describe('commitGuard: parseNameStatusZ', () => {
  it('reads one- and two-path records, renames and copies both sides', () => {
    assert.deepEqual(parseNameStatusZ('M\0a.ts\0R100\0old.ts\0new.ts\0C075\0x\0y\0D\0gone\0'), [
      { status: 'M', paths: ['a.ts'] },
      { status: 'R100', paths: ['old.ts', 'new.ts'] },
      { status: 'C075', paths: ['x', 'y'] },
      { status: 'D', paths: ['gone'] },
    ]);
    assert.deepEqual(parseNameStatusZ(''), []);
  });
  it('refuses a truncated record', () => {
    assert.throws(() => parseNameStatusZ('R100\0only-one\0'), /middle of a record/);
    assert.throws(() => parseNameStatusZ('M\0'), /middle of a record/);
  });
});

describe('commitGuard: checkStagedChanges', () => {
  const table: Array<{ name: string; input: Partial<CommitGuardInput>; ok?: boolean; kind: string; verdicts?: string[] }> = [
    { name: 'in scope', input: {}, ok: true, kind: 'checked', verdicts: ['allowed'] },
    { name: 'out of scope', input: { changes: [{ status: 'M', paths: ['lib/b.ts'] }] }, ok: false, kind: 'checked', verdicts: ['blocked'] },
    { name: 'a rename is judged on both sides', input: { changes: [{ status: 'R100', paths: ['src/a.ts', 'lib/a.ts'] }] }, ok: false, kind: 'checked', verdicts: ['allowed', 'blocked'] },
    { name: 'a submodule bump outside the scope', input: { changes: [{ status: 'M', paths: ['vendor/lib'] }] }, ok: false, kind: 'checked', verdicts: ['blocked'] },
    { name: 'the wave\'s own declarations', input: { changes: [{ status: 'A', paths: ['.claude/filescopes/wave-2/a.json'] }] }, ok: true, kind: 'checked', verdicts: ['control-state'] },
    { name: 'warn lets it through and still names it', input: { manifest: loaded({ enforcement: 'warn', allowedPaths: ['src/'] }), changes: [{ status: 'M', paths: ['lib/b.ts'] }] }, ok: true, kind: 'checked', verdicts: ['blocked'] },
    { name: 'off stands down', input: { manifest: loaded({ enforcement: 'off', allowedPaths: [] }) }, kind: 'stand-down' },
    { name: 'no manifest stands down', input: { manifest: { kind: 'missing' } }, kind: 'stand-down' },
    { name: 'a broken manifest', input: { manifest: { kind: 'invalid', path: 'm', problems: ['x'] } }, kind: 'invalid-manifest' },
  ];
  for (const { name, input: overrides, ok, kind, verdicts } of table) {
    it(name, () => {
      const result = checkStagedChanges(input(overrides));
      assert.equal(result.kind, kind);
      if (result.kind === 'checked') {
        assert.equal(result.ok, ok);
        assert.deepEqual(result.results.map((line) => line.verdict), verdicts);
      }
    });
  }

  const sidecar = (mtimeMs: number) => ({ wave: 1, path: 's', mtimeMs, records: [{ id: 'alice', files: ['lib/'] }, { id: 'peer-session-x', files: ['docs/'] }] });
  it('an earlier wave counts only from its sidecar, not older than the session start; never a peer session\'s record', () => {
    const changes = [{ status: 'M', paths: ['lib/b.ts'] }, { status: 'M', paths: ['docs/c.md'] }];
    const counted = checkStagedChanges(input({ changes, sidecars: [sidecar(2000)], sessionStartMs: 1000 }));
    assert.ok(counted.kind === 'checked');
    assert.deepEqual(counted.results.map((line) => [line.verdict, line.wave]), [['earlier-wave', 1], ['blocked', undefined]]);
    for (const sessionStartMs of [undefined, 3000]) {
      const result = checkStagedChanges(input({ changes, sidecars: [sidecar(2000)], ...(sessionStartMs !== undefined ? { sessionStartMs } : {}) }));
      assert.ok(result.kind === 'checked' && result.results.every((line) => line.verdict === 'blocked'), String(sessionStartMs));
    }
  });

  it('declaredFiles reads records and skips what is malformed or a peer\'s', () => {
    assert.deepEqual(declaredFiles([{ id: 'a', files: ['x', 1, 'y'] }, { id: 'peer-session-1', files: ['z'] }, null, 'junk', { files: ['w'] }]), ['x', 'y']);
    assert.deepEqual(declaredFiles({}), []);
  });

  it('parseSessionStart reads ms and ISO 8601, nothing else', () => {
    assert.equal(parseSessionStart('1700000000000'), 1700000000000);
    assert.equal(parseSessionStart('2026-12-01T00:00:00Z'), Date.parse('2026-12-01T00:00:00Z'));
    assert.equal(parseSessionStart('soon'), undefined);
    assert.equal(parseSessionStart(' '), undefined);
  });
});

describe('sessionRecord: what the commit guard believes', () => {
  it('a record round-trips; anything else is not one', () => {
    const record = nextSessionRecord(undefined, 's1', 1000);
    assert.deepEqual(parseSessionRecord(formatSessionRecord(record)), record);
    for (const text of ['', '{}', '[]', '{"version":2,"session_id":"s","started_at":1}', '{"version":1,"session_id":" ","started_at":1}', '{"version":1,"session_id":"s","started_at":-1}']) {
      assert.equal(parseSessionRecord(text), undefined, text);
    }
  });

  it('the same session keeps its first start (a resume or a compaction); another starts afresh', () => {
    const first = nextSessionRecord(undefined, 's1', 1000);
    assert.equal(nextSessionRecord(first, 's1', 5000).started_at, 1000);
    assert.equal(nextSessionRecord(first, 's2', 5000).started_at, 5000);
  });

  const record = { version: 1 as const, session_id: 's1', started_at: 1000 };
  const cases: Array<{ name: string; input: Parameters<typeof weighSessionEvidence>[0]; expected: unknown }> = [
    { name: 'the record of the bound session gives the start', input: { manifestSessions: ['s1'], record, environmentSessions: [] }, expected: { kind: 'trusted', sessionStartMs: 1000 } },
    { name: 'a record of another session gives none', input: { manifestSessions: ['s2'], record, environmentSessions: [] }, expected: { kind: 'trusted' } },
    { name: 'an unbound manifest gives none', input: { manifestSessions: [], record, environmentSessions: [] }, expected: { kind: 'trusted' } },
    { name: 'the shell claiming the bound session is fine', input: { manifestSessions: ['s1'], record, environmentSessions: ['s1'] }, expected: { kind: 'trusted', sessionStartMs: 1000 } },
    { name: 'the shell claiming another session contradicts the binding', input: { manifestSessions: ['s1'], record, environmentSessions: ['peer'] }, expected: { kind: 'contradiction', about: 'session', claimed: ['peer'], bound: ['s1'] } },
    { name: 'a later start from the shell narrows', input: { manifestSessions: ['s1'], record, environmentSessions: [], environmentStartMs: 2000 }, expected: { kind: 'trusted', sessionStartMs: 2000 } },
    { name: 'an earlier start from the shell contradicts the record', input: { manifestSessions: ['s1'], record, environmentSessions: [], environmentStartMs: 10 }, expected: { kind: 'contradiction', about: 'start', claimedMs: 10, recordedMs: 1000 } },
    { name: 'a start from the shell without a record is not believed', input: { manifestSessions: ['s1'], environmentSessions: [], environmentStartMs: 10 }, expected: { kind: 'trusted', ignoredStart: true } },
  ];
  for (const { name, input: given, expected } of cases) it(name, () => assert.deepEqual(weighSessionEvidence(given), expected));
});
