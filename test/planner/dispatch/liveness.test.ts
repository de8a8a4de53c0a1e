import assert from 'node:assert/strict';
import { join } from 'node:path';
import fc from 'fast-check';
import { IN_FLIGHT_TTL_MS, leadingUserTexts, notificationBodies, tagText, TranscriptProbe, withTtl } from '../../../src/planner/dispatch/liveness';
import type { LivenessEvidence, ProbeTarget } from '../../../src/planner/dispatch/liveness';
import { probeTranscript } from '../../../src/node/transcriptLines';
import { answerApart, sourcePath } from '../../support/answerApart';

const fixtures = join(__dirname, '..', '..', 'fixtures', 'transcripts');

interface Case {
  /** What the row shows. */
  name: string;
  target: { useId?: string; desc?: string; at: string };
  now: string;
  inFlight: boolean;
  evidence: LivenessEvidence;
  ttlExpired?: boolean;
  exclude?: string;
}

function check(file: string, cases: Case[]): void {
  for (const row of cases) {
    it(`${file}: ${row.name}`, () => {
      const target: ProbeTarget = { key: 'k', desc: row.target.desc ?? '', at: row.target.at, ...(row.target.useId !== undefined ? { useId: row.target.useId } : {}) };
      const outcome = probeTranscript(join(fixtures, file), [target], row.exclude, Date.parse(row.now));
      assert.equal(outcome.probe, 'read');
      const liveness = outcome.liveness.get('k');
      assert.ok(liveness !== undefined);
      assert.equal(liveness.evidence, row.evidence);
      assert.equal(liveness.inFlight, row.inFlight);
      assert.equal(liveness.ttlExpired, row.ttlExpired ?? false);
    });
  }
}

describe('liveness probe: synchronous dispatches (sync.jsonl)', () => {
  const at = '2026-11-30T14:00:05.000Z';
  check('sync.jsonl', [
    { name: 'a result with the <usage> trailer is a completion', target: { useId: 'toolu_sync_parser', at }, now: '2026-11-30T14:20:00Z', inFlight: false, evidence: 'sync-result' },
    { name: 'an error result is a completion', target: { useId: 'toolu_sync_cli', at }, now: '2026-11-30T14:20:00Z', inFlight: false, evidence: 'error-result' },
    { name: '"This agent\'s report was delivered" is a completion', target: { useId: 'toolu_sync_notes', at }, now: '2026-11-30T14:20:00Z', inFlight: false, evidence: 'report-delivered' },
    { name: 'no result yet: running, whatever the clock says', target: { useId: 'toolu_sync_docs', at }, now: '2026-11-30T18:00:00Z', inFlight: true, evidence: 'awaiting-result' },
    { name: 'a result in no known form proves nothing: in flight inside the TTL', target: { useId: 'toolu_sync_bench', at }, now: '2026-11-30T14:20:00Z', inFlight: true, evidence: 'unrecognised-result' },
    { name: 'a result in no known form, past the TTL: no longer binding', target: { useId: 'toolu_sync_bench', at }, now: '2026-11-30T14:40:00Z', inFlight: false, evidence: 'unrecognised-result', ttlExpired: true },
    { name: 'an id the transcript does not have: in flight until the TTL', target: { useId: 'toolu_unknown', at }, now: '2026-11-30T14:20:00Z', inFlight: true, evidence: 'not-in-transcript' },
    { name: 'by description, one of two dispatches still running: in flight', target: { desc: 'Audit docs', at }, now: '2026-11-30T14:20:00Z', inFlight: true, evidence: 'awaiting-result' },
    { name: 'by description, the current dispatch excluded: finished', target: { desc: 'Audit docs', at }, now: '2026-11-30T14:20:00Z', inFlight: false, evidence: 'sync-result', exclude: 'toolu_sync_docs' },
    { name: 'by description, its one dispatch finished', target: { desc: 'Parser work', at }, now: '2026-11-30T14:20:00Z', inFlight: false, evidence: 'sync-result' },
    { name: 'the id decides before the description', target: { useId: 'toolu_sync_docs2', desc: 'Audit docs', at }, now: '2026-11-30T14:20:00Z', inFlight: false, evidence: 'sync-result' },
  ]);
});

describe('liveness probe: asynchronous dispatches (async.jsonl)', () => {
  const at = '2026-11-30T14:14:26.000Z';
  check('async.jsonl', [
    { name: 'a completed notification after the launch receipt finishes it', target: { useId: 'toolu_async_api', at }, now: '2026-11-30T14:30:00Z', inFlight: false, evidence: 'notification' },
    { name: 'a notification in a queue-operation record finishes it', target: { useId: 'toolu_async_db', at }, now: '2026-11-30T14:30:00Z', inFlight: false, evidence: 'notification' },
    { name: 'the launch receipt is not a completion (decoy notifications in a tool result and in assistant text ignored)', target: { useId: 'toolu_async_ui', at }, now: '2026-11-30T14:30:00Z', inFlight: true, evidence: 'launch-receipt' },
    { name: 'a non-terminal status is not a completion', target: { useId: 'toolu_async_ops', at }, now: '2026-11-30T14:30:00Z', inFlight: true, evidence: 'launch-receipt' },
    { name: 'the launch receipt past the TTL: no longer binding', target: { useId: 'toolu_async_ui', at }, now: '2026-11-30T14:50:00Z', inFlight: false, evidence: 'launch-receipt', ttlExpired: true },
  ]);
});

describe('liveness probe: forked dispatches (forked.jsonl)', () => {
  const at = '2026-11-30T15:00:02.000Z';
  check('forked.jsonl', [
    { name: '"Fork started" is not a completion', target: { useId: 'toolu_fork_lint', at }, now: '2026-11-30T15:10:00Z', inFlight: true, evidence: 'fork-started' },
    { name: 'a completed notification finishes a fork', target: { useId: 'toolu_fork_types', at }, now: '2026-11-30T15:10:00Z', inFlight: false, evidence: 'notification' },
  ]);
});

describe('liveness probe: resumed dispatches (resumed.jsonl)', () => {
  const at = '2026-11-30T16:00:03.000Z';
  check('resumed.jsonl', [
    { name: 'resumed by SendMessage, then completed under the message\'s id', target: { useId: 'toolu_res_core', at }, now: '2026-11-30T16:55:00Z', inFlight: false, evidence: 'notification' },
    { name: 'resumed by SendMessage and not finished since: in flight', target: { useId: 'toolu_res_web', at }, now: '2026-11-30T16:55:00Z', inFlight: true, evidence: 'resumed' },
    { name: 'the TTL of a resumed run counts from the resume', target: { useId: 'toolu_res_web', at }, now: '2026-11-30T17:05:00Z', inFlight: false, evidence: 'resumed', ttlExpired: true },
    { name: 'a SendMessage that reached nobody re-opens nothing', target: { useId: 'toolu_res_cfg', at }, now: '2026-11-30T16:55:00Z', inFlight: false, evidence: 'sync-result' },
    { name: 'resumed the old way (a dispatch naming it in "resume"): in flight', target: { useId: 'toolu_res_docs', at: '2026-11-30T16:40:00.000Z' }, now: '2026-11-30T16:55:00Z', inFlight: true, evidence: 'resumed' },
  ]);
});

describe('liveness probe: details', () => {
  it('answers every target of one pass, each by its own key', () => {
    const at = '2026-11-30T14:00:05.000Z';
    const outcome = probeTranscript(
      join(fixtures, 'sync.jsonl'),
      [
        { key: 'a', useId: 'toolu_sync_parser', desc: '', at },
        { key: 'b', useId: 'toolu_sync_docs', desc: '', at },
      ],
      undefined,
      Date.parse('2026-11-30T14:20:00Z'),
    );
    assert.equal(outcome.liveness.get('a')?.inFlight, false);
    assert.equal(outcome.liveness.get('b')?.inFlight, true);
  });

  it('skips lines that are not JSON (a transcript being written may end in half a line)', () => {
    const probe = new TranscriptProbe([{ key: 'k', useId: 'toolu_x', desc: '', at: '2026-11-30T10:00:00Z' }]);
    const lines = [
      JSON.stringify({ type: 'assistant', message: { content: [{ type: 'tool_use', id: 'toolu_x', name: 'Agent', input: { description: 'd' } }] } }),
      '{"type":"user","message":{"content":[{"tool_use_id":"toolu_x","type":"tool_re',
    ];
    lines.forEach((line, index) => probe.wants(line) && probe.accept(line, index + 1));
    assert.equal(probe.malformedLines, 1);
    assert.equal(probe.result(Date.parse('2026-11-30T10:05:00Z')).get('k')?.evidence, 'awaiting-result');
  });

  it('wants only lines that can matter', () => {
    const probe = new TranscriptProbe([{ key: 'k', useId: 'toolu_x', desc: '', at: '2026-11-30T10:00:00Z' }]);
    assert.equal(probe.wants('{"type":"user","message":{"content":"hello"}}'), false);
    assert.equal(probe.wants('{"tool_use_id":"toolu_x"}'), true);
    assert.equal(probe.wants('<task-notification>'), true);
  });

  it('no transcript: in flight until the TTL, then not', () => {
    const target = { key: 'k', desc: 'd', at: '2026-11-30T10:00:00.000Z' };
    assert.equal(probeTranscript(undefined, [target], undefined, Date.parse('2026-11-30T10:10:00Z')).liveness.get('k')?.inFlight, true);
    assert.equal(probeTranscript('/nonexistent/t.jsonl', [target], undefined, Date.parse('2026-11-30T10:10:00Z')).probe, 'no-transcript');
    assert.equal(probeTranscript('relative.jsonl', [target], undefined, Date.parse('2026-11-30T10:10:00Z')).probe, 'no-transcript');
    const after = withTtl('no-transcript', target.at, Date.parse(target.at) + IN_FLIGHT_TTL_MS + 1);
    assert.deepEqual([after.inFlight, after.ttlExpired], [false, true]);
    const before = withTtl('no-transcript', target.at, Date.parse(target.at) + IN_FLIGHT_TTL_MS - 1);
    assert.deepEqual([before.inFlight, before.ttlExpired], [true, false]);
  });

  it('reads the prompt a subagent transcript opens with', () => {
    const lines = [
      JSON.stringify({ type: 'user', isSidechain: true, agentId: 'a1', message: { role: 'user', content: 'the prompt' } }),
      JSON.stringify({ type: 'assistant', message: { content: [{ type: 'text', text: 'ok' }] } }),
      JSON.stringify({ type: 'user', message: { content: [{ type: 'text', text: 'part one' }, { type: 'text', text: 'part two' }] } }),
    ];
    assert.deepEqual(leadingUserTexts(lines), ['the prompt', 'part one', 'part two', 'part one\npart two']);
  });
});

describe('liveness probe: notifications are read in time linear in the text', () => {
  // The regexes the readers replaced, kept here as the definition they must agree with.
  const regexBodies = (text: string) => [...text.matchAll(/<task-notification>([\s\S]*?)<\/task-notification>/g)].map((match) => match[1] as string);
  const regexTag = (body: string, name: string) => {
    const match = new RegExp(`<${name}>\\s*([^<]*?)\\s*</${name}>`).exec(body);
    return match?.[1] === undefined || match[1] === '' ? undefined : match[1];
  };
  const piece = fc.constantFrom('<task-notification>', '</task-notification>', '<status>', '</status>', '<task-id>', '</task-id>', '<', '>', '/', ' ', '\n', '\u00a0', 'completed', 'x');

  it('finds the same notification bodies and tag texts as the regexes did', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), (pieces) => {
        const text = pieces.join('');
        assert.deepEqual(notificationBodies(text), regexBodies(text));
        for (const name of ['status', 'task-id']) assert.equal(tagText(text, name), regexTag(text, name), `${name} in ${JSON.stringify(text)}`);
      }),
      { numRuns: 2000 },
    );
  });

  it('answers at once for a line full of unclosed tags and blanks (the regexes took quadratic time)', async function () {
    // Run apart, so that a reader that takes minutes fails the test at its timeout instead of holding this process.
    this.timeout(30_000);
    const answers = await answerApart(`
      const { notificationBodies, tagText } = require(${sourcePath('src/planner/dispatch/liveness.ts')});
      const unclosed = '<task-notification>'.repeat(200000);
      const blanks = '<status>' + ' '.repeat(2000000) + 'x';
      parentPort.postMessage([notificationBodies(unclosed).length, tagText(blanks, 'status') === undefined, tagText(blanks + '</status>', 'status')]);`);
    assert.deepEqual(answers, [0, true, 'x']);
  });
});
