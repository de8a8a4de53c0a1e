import assert from 'node:assert/strict';
import fc from 'fast-check';
import { decideDispatch } from '../../../src/planner/dispatch/dispatchDecision';
import type { DispatchVerdict } from '../../../src/planner/dispatch/dispatchDecision';
import { scopeCheckedEvent, sessionHash } from '../../../src/planner/dispatch/dispatchEvents';
import type { DispatchRequest } from '../../../src/planner/dispatch/dispatchRequest';
import { analyseDispatchScope } from '../../../src/planner/dispatch/dispatchScope';
import { emptyLedger, recordKey, updateLedger } from '../../../src/planner/dispatch/sessionLedger';

const NOW = Date.parse('2026-11-30T12:00:00.000Z');

/** Every string value anywhere in the event, keys excluded. */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (typeof value === 'object' && value !== null) return Object.values(value).flatMap(strings);
  return [];
}

const CLOSED = new Set([
  'wave_dispatch.scope_checked', 'allow', 'deny', 'clear', '6a', '7', '9', '10', '10a', '11', 'Agent', 'Task', 'other', 'none', 'sync', 'async', 'worktree',
  'present', 'absent', 'unknown', 'ok', 'no-fence', 'unterminated-fence', 'empty-block', 'plain', 'bullet', 'backtick', 'comma', 'quoted', 'json',
  'declared', 'no-manifest', 'matched', 'conflict', 'recorded', 'not-persisted', 'not-recorded', 'write-failed', 'read', 'held', 'unlocked', 'probe', 'lock', 'git',
  'awaiting-result', 'no-transcript', 'escapes-root', 'negation', 'bad-quoting', 'id', 'digest', 'description',
]);

describe('scope_checked events: counts and closed enums only', () => {
  it('carry no path, no glob, no prompt text and no description, whatever the dispatch', () => {
    // Upper-case letters no field name, enum, hex digest or ISO time contains: a hit is a real leak.
    const word = fc.string({ unit: fc.constantFrom(...'QXJKWVY'.split('')), minLength: 4, maxLength: 8 });
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 4 }), word, word, fc.boolean(), (dirs, file, secret, collide) => {
        const entry = `${dirs.join('/')}/${file}.ts`;
        const prompt = `Secret plan ${secret}.\nFILE-SCOPE\n\`\`\`\n${entry}\n../${secret}\n\`\`\`\n`;
        const request: DispatchRequest = { toolName: 'Agent', description: `desc-${secret}`, prompt, background: false, sessionId: 'session-secret', useId: 'toolu_x' };
        const scope = analyseDispatchScope({ ...request, prompt: prompt.replace(`../${secret}\n`, '') }, { kind: 'none', reason: 'no-manifest' });
        const prior = { id: `prior-${secret}`, desc: `prior-${secret}`, useId: 'toolu_p', files: [collide ? entry : `other/${file}.md`], at: new Date(NOW).toISOString() };
        const ledger = updateLedger(emptyLedger('s', 'k', prior.at), { waveKey: 'k', now: prior.at, add: [prior] });
        const step = decideDispatch({
          request, scope, waveKey: 'k', ledger: { kind: 'ok', ledger }, now: NOW, canProbe: false,
          liveness: new Map([[recordKey(prior), { inFlight: true, evidence: 'awaiting-result', ttlExpired: false, since: prior.at }]]),
        });
        const verdict = (step as { verdict: DispatchVerdict }).verdict;
        const withInvalid = analyseDispatchScope(request, { kind: 'none', reason: 'no-manifest' });
        for (const event of [
          scopeCheckedEvent({ now: NOW, request, wave: 2, declaredSource: 'declared', scope, outcome: verdict, verdict }),
          scopeCheckedEvent({ now: NOW, request, wave: 2, declaredSource: 'declared', scope: withInvalid, outcome: { decision: 'deny', row: '6a' } }),
        ]) {
          const text = JSON.stringify(event);
          for (const leak of [entry, secret, dirs.join('/'), 'session-secret', 'toolu_']) assert.ok(!text.includes(leak), `${leak} leaked into ${text}`);
          for (const value of strings(event)) {
            const allowed = CLOSED.has(value) || /^ws1-[0-9a-f]{16}$/.test(value) || /^[0-9a-f]{12}$/.test(value) || !Number.isNaN(Date.parse(value));
            assert.ok(allowed, `${JSON.stringify(value)} is not a closed enum, a digest, a hash or a time`);
          }
        }
      }),
      { numRuns: 200 },
    );
  });

  it('name the row that decided and carry the scope digest and the echo facts', () => {
    const request: DispatchRequest = { toolName: 'Agent', description: 'd', prompt: 'FILE-SCOPE\n```\nsrc/a.ts\n```\n', background: true, sessionId: 's1' };
    const scope = analyseDispatchScope(request, { kind: 'none', reason: 'no-manifest' });
    const event = scopeCheckedEvent({ now: NOW, request, wave: null, declaredSource: 'no-manifest', scope, outcome: { decision: 'allow', row: 'clear' } });
    assert.equal(event.row, 'clear');
    assert.equal(event.mode, 'async');
    assert.equal(event.scope_digest, scope.scopeDigest);
    assert.equal(event.echo_instruction_present, false);
    assert.equal(event.digest_consistent, null);
    assert.equal(event.session, sessionHash('s1'));
  });
});
