import assert from 'node:assert/strict';
import { formatTurnRecord, newTurnId, parseTurnRecord, turnRecordPath } from '../../../src/planner/backstop/turnRecord';
import type { TurnRecord } from '../../../src/planner/backstop/turnRecord';

const RECORD: TurnRecord = {
  version: 1,
  turn: '20261201T120000Z-42',
  wave: 2,
  agent: 'alice',
  status: 'finished',
  startedAt: '2026-12-01T12:00:00.000Z',
  finishedAt: '2026-12-01T12:00:05.000Z',
  program: 'claude',
  confined: true,
  stateDir: '/repo/.claude',
  scopeFile: '/repo/.claude/filescopes/wave-2/alice.json',
  headBefore: { ref: 'refs/heads/main', commit: 'a'.repeat(40) },
  headAfter: { ref: 'refs/heads/main', commit: 'a'.repeat(40) },
  exit: { code: 0 },
  verdict: 'in-scope',
  changes: [{ path: 'src/a.ts', kind: 'modified', before: '100644 x', after: '100644 y' }],
  commits: [],
};

describe('backstop: the turn record', () => {
  it('round-trips, and refuses what is not a record', () => {
    assert.deepEqual(parseTurnRecord(formatTurnRecord(RECORD)), RECORD);
    const damaged: unknown[] = [
      'not json',
      [],
      { ...RECORD, version: 2 },
      { ...RECORD, wave: 0 },
      { ...RECORD, agent: '../x' },
      { ...RECORD, status: 'done' },
      { ...RECORD, verdict: 'fine' },
      { ...RECORD, headBefore: 'main' },
      { ...RECORD, changes: [{ path: 'a', kind: 'renamed' }] },
      { ...RECORD, committed: { paths: [] } },
    ];
    for (const value of damaged) assert.equal(parseTurnRecord(typeof value === 'string' ? value : JSON.stringify(value)), undefined, JSON.stringify(value).slice(0, 60));
  });

  it('lives at .orchestrator/backstop/turns/wave<N>/<agent>.json, for safe names only', () => {
    assert.equal(turnRecordPath('/repo', 2, 'alice'), '/repo/.orchestrator/backstop/turns/wave2/alice.json');
    assert.throws(() => turnRecordPath('/repo', 2, '../alice'));
    assert.throws(() => turnRecordPath('/repo', 1.5, 'alice'));
  });

  it('ids sort by start time', () => {
    assert.equal(newTurnId(new Date('2026-12-01T12:34:56.789Z'), 4242), '20261201T123456Z-4242');
  });
});
