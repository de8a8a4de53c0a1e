import assert from 'node:assert/strict';
import { recordBinding, resolveSubagentScope, subagentTranscriptPaths } from '../../../src/planner/dispatch/subagentBinding';
import { allRecords, emptyLedger, promptDigest, updateLedger } from '../../../src/planner/dispatch/sessionLedger';
import type { LedgerRead, LedgerRecord, SessionLedger } from '../../../src/planner/dispatch/sessionLedger';

const NOW = '2026-11-30T12:00:00.000Z';
const KEY = 's1|w2|implementation';

function record(id: string, prompt: string, files: string[], extra: Partial<LedgerRecord> = {}): LedgerRecord {
  return { id, desc: id, useId: `toolu_${id}`, files, at: NOW, prompt: promptDigest(prompt), ...extra };
}

function ledger(...records: LedgerRecord[]): SessionLedger {
  return updateLedger(emptyLedger('s1', KEY, NOW), { waveKey: KEY, now: NOW, add: records });
}

describe('resolveSubagentScope', () => {
  const alice = record('alice', 'prompt of alice', ['src/a/**'], { agent: 'alice' });
  const bob = record('bob', 'prompt of bob', ['src/b/**']);
  const ok: LedgerRead = { kind: 'ok', ledger: ledger(alice, bob) };

  it('binds by the prompt the subagent transcript opens with', () => {
    const scope = resolveSubagentScope({ agentId: 'a17', ledger: ok, leadingTexts: ['prompt of bob'] });
    assert.equal(scope.kind, 'bound');
    if (scope.kind !== 'bound') return;
    assert.equal(scope.via, 'prompt');
    assert.equal(scope.placed.record.id, 'bob');
    assert.deepEqual(scope.files, ['src/b/**']);
    assert.equal(scope.agent, undefined);
    assert.equal(scope.wave, 2);
  });

  it('names the session\'s other dispatches of the same wave as peers, by declared agent or id, with their claims', () => {
    const carol = record('carol', 'prompt of carol', ['src/c/x.ts']);
    const otherWave = 's1|w3|implementation';
    const withOtherWave = updateLedger(ledger(alice, bob, carol), { waveKey: otherWave, now: NOW, add: [record('dave', 'prompt of dave', ['src/d/x.ts'])] });
    const scope = resolveSubagentScope({ agentId: 'a20', ledger: { kind: 'ok', ledger: withOtherWave }, leadingTexts: ['prompt of carol'] });
    assert.deepEqual(scope.kind === 'bound' ? scope.peers : scope.kind, [
      { agent: 'alice', entries: ['src/a/**'] },
      { agent: 'bob', entries: ['src/b/**'] },
    ]);
  });

  it('a dispatch that named a declared agent binds to it (the write gate then uses its scope file)', () => {
    const scope = resolveSubagentScope({ agentId: 'a18', ledger: ok, leadingTexts: ['something', 'prompt of alice'] });
    assert.equal(scope.kind === 'bound' ? scope.agent : undefined, 'alice');
  });

  it('a recorded binding wins, without reading the transcript', () => {
    const bound = recordBinding(ledger(alice, bob), allRecords(ledger(alice, bob))[1] as never, 'a19', Date.parse(NOW));
    const scope = resolveSubagentScope({ agentId: 'a19', ledger: { kind: 'ok', ledger: bound }, leadingTexts: undefined });
    assert.equal(scope.kind === 'bound' ? `${scope.via}:${scope.placed.record.id}` : scope.kind, 'ledger:bob');
  });

  it('a record bound to another subagent is not taken again (a retry with the same prompt binds the new record)', () => {
    const first = record('bob', 'same prompt', ['src/b/**'], { useId: 'toolu_1', bound: { agentId: 'old', via: 'prompt', at: NOW } });
    const retry = record('bob', 'same prompt', ['src/b/**'], { useId: 'toolu_2' });
    const scope = resolveSubagentScope({ agentId: 'new', ledger: { kind: 'ok', ledger: ledger(first, retry) }, leadingTexts: ['same prompt'] });
    assert.equal(scope.kind === 'bound' ? scope.placed.record.useId : scope.kind, 'toolu_2');
  });

  const fallbacks: Array<[string, Parameters<typeof resolveSubagentScope>[0], string]> = [
    ['no agent_id (Claude Code before 2.1.64, other CLIs)', { agentId: undefined, ledger: ok, leadingTexts: ['prompt of bob'] }, 'no-agent-id'],
    ['no ledger', { agentId: 'a1', ledger: { kind: 'absent' }, leadingTexts: ['prompt of bob'] }, 'no-ledger'],
    ['a corrupt ledger', { agentId: 'a1', ledger: { kind: 'corrupt', problem: 'x' }, leadingTexts: ['prompt of bob'] }, 'ledger-corrupt'],
    ['no subagent transcript', { agentId: 'a1', ledger: ok, leadingTexts: undefined }, 'no-subagent-transcript'],
    ['a prompt no dispatch had', { agentId: 'a1', ledger: ok, leadingTexts: ['another prompt'] }, 'no-matching-dispatch'],
    ['a prompt two unbound dispatches had', { agentId: 'a1', ledger: { kind: 'ok', ledger: ledger(record('x', 'twin', ['a']), record('y', 'twin', ['b'])) }, leadingTexts: ['twin'] }, 'ambiguous'],
  ];
  for (const [name, input, reason] of fallbacks) {
    it(`falls back to the wave's union: ${name}`, () => {
      assert.deepEqual(resolveSubagentScope(input), { kind: 'union', reason });
    });
  }
});

describe('subagentTranscriptPaths', () => {
  it('the 2.1.2+ layout first, then the older one', () => {
    assert.deepEqual(subagentTranscriptPaths('/home/u/.claude/projects/-repo/abc-123.jsonl', 'a1b2c3'), [
      '/home/u/.claude/projects/-repo/abc-123/subagents/agent-a1b2c3.jsonl',
      '/home/u/.claude/projects/-repo/agent-a1b2c3.jsonl',
    ]);
  });
  it('an agent_id that could climb out of the directory names no file', () => {
    for (const hostile of ['../x', 'a/b', '..', '', 'a\0b']) assert.deepEqual(subagentTranscriptPaths('/p/s.jsonl', hostile), []);
  });
});
