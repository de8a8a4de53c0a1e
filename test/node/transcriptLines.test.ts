import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { forEachLine, probeTranscript, readLeadingUserTexts } from '../../src/node/transcriptLines';
import { builtCliPath, cleanEnv } from '../support/builtCli';
import { createTempGitRepo } from '../support/tempGitRepo';
import { dispatchPayload, lastEvent, ledgerIds, replyOf, scopedPrompt } from '../cli/dispatchHelpers';

describe('transcript lines: streamed, never held whole', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'wave-scope-lines-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('yields every line across chunk boundaries, multi-byte characters split between chunks included', () => {
    const path = join(dir, 't.jsonl');
    // Lines of varying length around the 1 MiB chunk size, with a 3-byte character right at a boundary.
    const lines = ['é'.repeat(10), 'x'.repeat(1024 * 1024 - 3) + '€', 'short', '€'.repeat(400_000), 'last line without a line end'];
    writeFileSync(path, lines.join('\n'));
    const seen: string[] = [];
    const read = forEachLine(path, (line, seq) => {
      assert.equal(seq, seen.length + 1);
      seen.push(line);
    });
    assert.equal(read.kind, 'read');
    assert.deepEqual(seen, lines);
  });

  it('a missing file, a directory, and a file over the limit (not read at all)', () => {
    assert.equal(forEachLine(join(dir, 'none'), () => undefined).kind, 'missing');
    assert.equal(forEachLine(dir, () => undefined).kind, 'failed');
    const big = join(dir, 'big.jsonl');
    const fd = openSync(big, 'w');
    writeSync(fd, 'x', 10_000);
    closeSync(fd);
    let called = false;
    assert.deepEqual(forEachLine(big, () => (called = true), { maxBytes: 5_000 }), { kind: 'too-large', bytes: 10_001 });
    assert.equal(called, false);
  });

  it('reads a transcript over 100 MB in bounded memory and finds a completion at its very end', function () {
    this.timeout(300_000);
    const path = join(dir, 'huge.jsonl');
    const fd = openSync(path, 'w');
    const dispatch = JSON.stringify({ type: 'assistant', message: { content: [{ type: 'tool_use', id: 'toolu_far', name: 'Agent', input: { description: 'far' } }] } });
    writeSync(fd, `${dispatch}\n`);
    // 110 MB of ordinary traffic: tool results with large file contents (long lines) and small records.
    const filler = JSON.stringify({ type: 'user', message: { content: [{ type: 'tool_result', tool_use_id: 'toolu_read', content: 'z'.repeat(512 * 1024) }] } });
    const small = JSON.stringify({ type: 'assistant', message: { content: [{ type: 'text', text: 'thinking about it' }] } });
    let written = 0;
    while (written < 110 * 1024 * 1024) {
      written += writeSync(fd, `${filler}\n`);
      for (let index = 0; index < 50; index += 1) written += writeSync(fd, `${small}\n`);
    }
    const result = JSON.stringify({ type: 'user', message: { content: [{ type: 'tool_result', tool_use_id: 'toolu_far', content: [{ type: 'text', text: 'agentId: af\n<usage>total_tokens: 10</usage>' }] }] } });
    writeSync(fd, `${result}\n`);
    closeSync(fd);
    assert.ok(statSync(path).size > 100 * 1024 * 1024);

    const heapBefore = process.memoryUsage().heapUsed;
    let peak = 0;
    let lines = 0;
    const read = forEachLine(path, () => {
      lines += 1;
      if (lines % 2000 === 0) peak = Math.max(peak, process.memoryUsage().heapUsed - heapBefore);
    });
    assert.equal(read.kind, 'read');
    assert.ok(read.kind === 'read' && read.longestLine < 1024 * 1024, 'the longest line is one record, not the file');
    assert.ok(peak < 64 * 1024 * 1024, `heap grew by ${Math.round(peak / 1024 / 1024)} MiB while streaming`);

    const outcome = probeTranscript(path, [{ key: 'k', useId: 'toolu_far', desc: '', at: new Date().toISOString() }], undefined, Date.now());
    assert.equal(outcome.probe, 'read');
    assert.equal(outcome.liveness.get('k')?.evidence, 'sync-result');
    assert.equal(outcome.liveness.get('k')?.inFlight, false);
  });

  it('the hook reads a 100 MB+ transcript in a process whose heap is capped far below its size', function () {
    this.timeout(300_000);
    const repo = createTempGitRepo({ initialFiles: { 'src/a/x.ts': 'x\n' } });
    try {
      const path = join(repo.root, 'session.jsonl');
      const fd = openSync(path, 'w');
      writeSync(fd, `${JSON.stringify({ type: 'assistant', message: { content: [{ type: 'tool_use', id: 'toolu_1', name: 'Agent', input: { description: 'alpha' } }] } })}\n`);
      const filler = `${JSON.stringify({ type: 'user', message: { content: [{ type: 'tool_result', tool_use_id: 'toolu_read', content: 'q'.repeat(256 * 1024) }] } })}\n`.repeat(16);
      for (let written = 0; written < 105 * 1024 * 1024; ) written += writeSync(fd, filler);
      writeSync(fd, `${JSON.stringify({ type: 'user', message: { content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: '<usage>total_tokens: 5</usage>' }] }] } })}\n`);
      closeSync(fd);
      const run = (description: string, entries: string[], id: string) =>
        spawnSync(process.execPath, ['--max-old-space-size=48', builtCliPath, 'hook', 'pre-dispatch'], {
          input: dispatchPayload({ cwd: repo.root, description, prompt: scopedPrompt(entries), useId: id, transcriptPath: path }),
          encoding: 'utf8',
          env: cleanEnv(),
        });
      assert.equal(run('alpha', ['src/a/**'], 'toolu_1').stdout, '');
      const second = run('beta', ['src/a/x.ts'], 'toolu_2');
      assert.equal(second.status, 0, second.stderr);
      assert.equal(replyOf(second.stdout).decision, 'allow', second.stdout + second.stderr);
      assert.equal(lastEvent(repo.root).row, '10a', 'the completion at the end of the transcript was found');
      assert.deepEqual(ledgerIds(repo.root), ['beta']);
    } finally {
      repo.remove();
    }
  });

  it('reads the head of a subagent transcript, newest layout first', () => {
    const newer = join(dir, 'session', 'subagents', 'agent-a1.jsonl');
    const older = join(dir, 'agent-a1.jsonl');
    writeFileSync(older, `${JSON.stringify({ type: 'user', message: { content: 'old prompt' } })}\n`);
    assert.deepEqual(readLeadingUserTexts([newer, older]), ['old prompt']);
    assert.equal(readLeadingUserTexts([newer]), undefined);
  });
});
