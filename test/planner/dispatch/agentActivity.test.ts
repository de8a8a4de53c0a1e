import assert from 'node:assert/strict';
import { agentActivities } from '../../../src/planner/dispatch/agentActivity';
import { IN_FLIGHT_TTL_MS } from '../../../src/planner/dispatch/liveness';

function record(id: string, at: string, liveness: unknown, extra: Record<string, unknown> = {}) {
  return { waveKey: 's1|w2|implementation', id, desc: id, files: ['src/'], at, liveness, ...extra };
}

function document(records: unknown[], more: unknown[] = []) {
  return { version: 1, root: '/repo', session: null, ledgers: [{ path: '.orchestrator/x.json', session: 's1', current: false, found: true, problem: null, records }, ...more] };
}

describe('agentActivities', () => {
  it('gives each declared agent of each wave its state from the latest dispatch', () => {
    const report = agentActivities(
      document([
        record('alice', '2026-12-01T10:00:00.000Z', { inFlight: false, evidence: 'sync-result', ttlExpired: false, since: '2026-12-01T10:00:00.000Z' }),
        record('Bob work', '2026-12-01T10:01:00.000Z', { inFlight: true, evidence: 'awaiting-result', ttlExpired: false, since: '2026-12-01T10:01:00.000Z' }, { agent: 'bob' }),
        { ...record('carol', '2026-12-01T10:02:00.000Z', { inFlight: false, evidence: 'launch-receipt', ttlExpired: true, since: '2026-12-01T09:00:00.000Z' }), waveKey: 's1|w?|?' },
      ]),
    );
    assert.deepEqual(
      report.activities.map((activity) => [activity.wave, activity.agent, activity.state, activity.presumed, activity.evidence]),
      [
        [2, 'alice', 'finished', false, 'sync-result'],
        [2, 'bob', 'in-flight', false, 'awaiting-result'],
        [undefined, 'carol', 'finished', true, 'launch-receipt'],
      ],
    );
    assert.equal(report.nextExpiry, undefined, 'a dispatch awaiting its result is not bounded by the TTL');
  });

  it('keeps an agent in flight while any of its dispatches is, and counts them across sessions', () => {
    const report = agentActivities(
      document(
        [record('alice', '2026-12-01T10:00:00.000Z', { inFlight: true, evidence: 'launch-receipt', ttlExpired: false, since: '2026-12-01T10:00:00.000Z' })],
        [{ path: 'b', session: 's2', found: true, problem: null, records: [record('alice', '2026-12-01T11:00:00.000Z', { inFlight: false, evidence: 'notification', ttlExpired: false, since: '2026-12-01T11:00:00.000Z' })] }],
      ),
    );
    assert.deepEqual(report.activities.map((activity) => [activity.agent, activity.state, activity.dispatches, activity.session]), [['alice', 'in-flight', 2, 's1']]);
    assert.equal(report.nextExpiry, Date.parse('2026-12-01T10:00:00.000Z') + IN_FLIGHT_TTL_MS);
  });

  it('reads a record without liveness as in flight (no evidence of an end), and reports unusable ledgers', () => {
    const report = agentActivities(document([record('alice', '2026-12-01T10:00:00.000Z', null)], [{ path: 'c.json', session: 's3', found: true, problem: 'not JSON', records: [] }]));
    assert.deepEqual(report.activities.map((activity) => activity.state), ['in-flight']);
    assert.deepEqual(report.problems, ['c.json: not JSON']);
  });

  it('refuses a document of another shape without throwing', () => {
    for (const value of [null, [], { version: 2, ledgers: [] }, { version: 1 }]) {
      const report = agentActivities(value);
      assert.deepEqual(report.activities, []);
      assert.equal(report.problems.length, 1);
    }
  });
});
