import assert from 'node:assert/strict';
import { amendCommandLine, amendLedger, checkAmendment } from '../../../src/planner/dispatch/amendment';
import type { AmendInput } from '../../../src/planner/dispatch/amendment';
import { dispatchedDigests, joinDigests } from '../../../src/planner/dispatch/digestJoin';
import type { Liveness } from '../../../src/planner/dispatch/liveness';
import { allRecords, emptyLedger, recordKey, updateLedger } from '../../../src/planner/dispatch/sessionLedger';
import type { LedgerRecord } from '../../../src/planner/dispatch/sessionLedger';

const NOW = Date.parse('2026-11-30T12:00:00.000Z');
const iso = new Date(NOW).toISOString();
const records = [
  { id: 'alice', files: ['src/a/**'] },
  { id: 'bob', files: ['src/b/**'] },
  { id: 'coordinator', files: ['README.md'] },
];
const carol: LedgerRecord = { id: 'carol', desc: 'carol', useId: 'toolu_c', files: ['lib/**'], at: iso };
const aliceRecord: LedgerRecord = { id: 'alice', desc: 'alice', useId: 'toolu_a', files: ['src/a/**'], at: iso, agent: 'alice' };
const ledger = updateLedger(emptyLedger('s1', 's1|w2|implementation', iso), { waveKey: 's1|w2|implementation', now: iso, add: [carol, aliceRecord] });

function input(extra: Partial<AmendInput>): AmendInput {
  return { agentId: 'alice', add: ['docs/a.md'], reason: 'the guide names the new flag', records, ledger: { kind: 'ok', ledger }, liveness: new Map(), canProbe: true, now: NOW, ...extra };
}

describe('checkAmendment', () => {
  it('disjoint from the declarations and from every sibling in flight: ok, the wave\'s records with the new entries', () => {
    const check = checkAmendment(input({}));
    assert.equal(check.kind, 'ok');
    if (check.kind !== 'ok') return;
    assert.deepEqual(check.added, ['docs/a.md']);
    assert.deepEqual(check.records.find((record) => record.id === 'alice')?.files, ['src/a/**', 'docs/a.md']);
  });

  it('refused when a sibling of the plan owns the path, naming it and a witness', () => {
    const check = checkAmendment(input({ add: ['src/**/*.ts'] }));
    assert.equal(check.kind, 'refused-declared');
    if (check.kind !== 'refused-declared') return;
    assert.equal(check.conflicts[0]?.sibling, 'bob');
    assert.match(check.conflicts[0]?.witness ?? '', /^src\/b\/.+\.ts$/);
  });

  it('the coordinator\'s record counts as a sibling', () => {
    assert.equal(checkAmendment(input({ add: ['README.md'] })).kind, 'refused-declared');
  });

  it('a ledger sibling colliding: probe it first; in flight → refused; finished → ok', () => {
    const step = checkAmendment(input({ add: ['lib/x.ts'] }));
    assert.equal(step.kind, 'probe');
    const running: Liveness = { inFlight: true, evidence: 'awaiting-result', ttlExpired: false, since: iso };
    const refused = checkAmendment(input({ add: ['lib/x.ts'], liveness: new Map([[recordKey(carol), running]]) }));
    assert.equal(refused.kind, 'refused-in-flight');
    assert.equal(refused.kind === 'refused-in-flight' ? refused.conflicts[0]?.sibling : '', 'carol');
    const finished: Liveness = { inFlight: false, evidence: 'sync-result', ttlExpired: false, since: iso };
    assert.equal(checkAmendment(input({ add: ['lib/x.ts'], liveness: new Map([[recordKey(carol), finished]]) })).kind, 'ok');
  });

  const invalid: Array<[string, Partial<AmendInput>, RegExp]> = [
    ['an empty reason', { reason: '  ' }, /--reason/],
    ['no entry', { add: [] }, /--add/],
    ['an agent the wave does not declare', { agentId: 'zed' }, /not declared/],
    ['the coordinator', { agentId: 'coordinator' }, /coordinator/],
    ['an entry the grammar refuses', { add: ['../x'] }, /climbs out/],
    ['an entry the agent already owns', { add: ['src/a/**'] }, /already declares/],
  ];
  for (const [name, extra, pattern] of invalid) {
    it(`invalid: ${name}`, () => {
      const check = checkAmendment(input(extra));
      assert.equal(check.kind, 'invalid');
      assert.match(check.kind === 'invalid' ? check.problems.join(' ') : '', pattern);
    });
  }

  it('the ledger: the agent\'s own records claim the new entries', () => {
    const next = amendLedger(ledger, 2, 'alice', ['docs/a.md'], NOW);
    assert.deepEqual(allRecords(next).map(({ record }) => record.files), [['lib/**'], ['src/a/**', 'docs/a.md']]);
    assert.deepEqual(allRecords(amendLedger(ledger, 3, 'alice', ['docs/a.md'], NOW)).map(({ record }) => record.files), [['lib/**'], ['src/a/**']], 'another wave\'s records are left alone');
  });

  it('the command line an agent can relay', () => {
    assert.equal(amendCommandLine(2, 'alice', ['docs/a.md', 'src/x y.ts']), "wave-scope amend --wave 2 --agent alice --add docs/a.md --add 'src/x y.ts' --reason '<why the agent needs it>'");
  });
});

describe('joinDigests: every verdict', () => {
  const declared = [
    { id: 'a', files: [], digest: 'ws1-aaaaaaaaaaaaaaaa' },
    { id: 'b', files: [], digest: 'ws1-bbbbbbbbbbbbbbbb' },
    { id: 'c', files: [], digest: 'ws1-cccccccccccccccc' },
    { id: 'd', files: [], digest: 'ws1-dddddddddddddddd' },
    { id: 'e1', files: [], digest: 'ws1-eeeeeeeeeeeeeeee' },
    { id: 'e2', files: [], digest: 'ws1-eeeeeeeeeeeeeeee' },
    { id: 'coordinator', files: [], digest: 'ws1-ffffffffffffffff' },
  ];
  it('joins on the digest', () => {
    const join = joinDigests({
      declared,
      dispatched: ['ws1-aaaaaaaaaaaaaaaa', 'ws1-bbbbbbbbbbbbbbbb', 'ws1-9999999999999999'],
      echoed: ['ws1-aaaaaaaaaaaaaaaa', 'ws1-cccccccccccccccc', 'ws1-8888888888888888'],
      transportObserved: true,
    });
    assert.deepEqual(
      join.rows.map((row) => [row.agents.join('+') || row.digest, row.verdict]),
      [
        ['a', 'matched'],
        ['b', 'injected-not-echoed'],
        ['c', 'echoed-not-injected'],
        ['d', 'injection-missing'],
        ['e1+e2', 'duplicate-claim'],
        ['ws1-8888888888888888', 'digest-unknown'],
        ['ws1-9999999999999999', 'digest-unknown'],
      ],
    );
  });
  it('two reports echoing one digest is a duplicate claim', () => {
    const join = joinDigests({ declared: declared.slice(0, 1), dispatched: ['ws1-aaaaaaaaaaaaaaaa'], echoed: ['ws1-aaaaaaaaaaaaaaaa', 'ws1-aaaaaaaaaaaaaaaa'], transportObserved: true });
    assert.equal(join.rows[0]?.verdict, 'duplicate-claim');
  });
  it('the send side from the events: allowed dispatches of the wave only', () => {
    const lines = [
      JSON.stringify({ event: 'wave_dispatch.scope_checked', wave: 2, decision: 'allow', scope_digest: 'ws1-aaaaaaaaaaaaaaaa', session: 'h1' }),
      JSON.stringify({ event: 'wave_dispatch.scope_checked', wave: 2, decision: 'deny', scope_digest: 'ws1-bbbbbbbbbbbbbbbb', session: 'h1' }),
      JSON.stringify({ event: 'wave_dispatch.scope_checked', wave: 3, decision: 'allow', scope_digest: 'ws1-cccccccccccccccc', session: 'h1' }),
      JSON.stringify({ event: 'wave_dispatch.scope_checked', wave: 2, decision: 'allow', scope_digest: 'ws1-dddddddddddddddd', session: 'h2' }),
      'not json wave_dispatch.scope_checked',
    ];
    assert.deepEqual(dispatchedDigests(lines, 2), { digests: ['ws1-aaaaaaaaaaaaaaaa', 'ws1-dddddddddddddddd'], observed: true });
    assert.deepEqual(dispatchedDigests(lines, 2, 'h1'), { digests: ['ws1-aaaaaaaaaaaaaaaa'], observed: true });
    assert.deepEqual(dispatchedDigests(lines, 9), { digests: [], observed: false });
  });
});
