// The dispatch guard's matrix (reference document 002, section 4.1, and docs/hooks.md), row by row, through
// the built CLI as Claude Code runs it. Each test fails if its row's behaviour changes.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runPreDispatch } from '../../src/cli/commands/preDispatch';
import { LOCK_BUDGET_MS } from '../../src/node/dispatchLedgerStore';
import { MAX_CONTROL_FILE_BYTES } from '../../src/node/hookFileSystem';
import { formatLedger } from '../../src/planner/dispatch/sessionLedger';
import type { LedgerRecord } from '../../src/planner/dispatch/sessionLedger';
import { scopeDigest, scopeEchoInstruction } from '../../src/planner/scope/scopeDigest';
import { builtCliPath, cleanEnv, runBuiltCli, runBuiltCliAsync, runBuiltCliWithin } from '../support/builtCli';
import { createTempGitRepo } from '../support/tempGitRepo';
import type { TempGitRepo } from '../support/tempGitRepo';
import {
  dispatchPayload,
  holdLock,
  lastEvent,
  ledgerIds,
  ledgerPath,
  planWave,
  preDispatch,
  readEvents,
  readLedgerFile,
  replyOf,
  scopedPrompt,
  SESSION,
  transcript,
} from './dispatchHelpers';

const dist = join(builtCliPath, '..');

describe('wave-scope hook pre-dispatch: the matrix (built CLI, real git repositories)', () => {
  let repo: TempGitRepo;
  let transcriptPath: string;
  beforeEach(() => {
    repo = createTempGitRepo({ initialFiles: { 'src/a/x.ts': 'x\n', 'src/b/y.ts': 'y\n', 'src/lib/z.ts': 'z\n', 'docs/guide.md': 'g\n' } });
    transcriptPath = join(repo.root, '.test-transcript.jsonl');
  });
  afterEach(() => repo.remove());

  // pre-dispatch as the agent CLI runs it, for a hook that could hang: killed after 15 s.
  const preDispatchWithin = (payload: string) => runBuiltCliWithin(['hook', 'pre-dispatch'], 15_000, { input: payload, env: cleanEnv() });
  const dispatch = (description: string, entries: string[], useId: string, extra: { env?: Record<string, string>; transcriptPath?: string | null } = {}) =>
    preDispatch(dispatchPayload({ cwd: repo.root, description, prompt: scopedPrompt(entries), useId, ...(extra.transcriptPath !== undefined ? { transcriptPath: extra.transcriptPath } : {}) }), extra.env);

  it('clear: disjoint agents are all allowed and all recorded', () => {
    for (const [name, entries, id] of [['alpha', ['src/a/**'], 'toolu_1'], ['beta', ['src/b/'], 'toolu_2'], ['gamma', ['docs/*.md'], 'toolu_3']] as const) {
      const run = dispatch(name, [...entries], id);
      assert.equal(run.status, 0, run.stderr);
      assert.equal(run.stdout, '', 'an allow prints nothing');
    }
    assert.deepEqual(ledgerIds(repo.root), ['alpha', 'beta', 'gamma']);
    const ledger = readLedgerFile(repo.root);
    assert.equal(ledger?.waveKey, `${SESSION}|w?|?`);
    assert.equal(ledger?.transcriptPath, transcriptPath);
    assert.deepEqual(readEvents(repo.root).map((event) => event.row), ['clear', 'clear', 'clear']);
  });

  it('row 11: an overlap with an agent still in flight is denied, naming it, both entries, a witness and what to do; nothing is recorded', () => {
    transcript.write(transcriptPath, [transcript.dispatch('toolu_1', 'alpha')]);
    assert.equal(dispatch('alpha', ['src/a/**'], 'toolu_1').stdout, '');
    const before = readFileSync(ledgerPath(repo.root), 'utf8');
    const run = dispatch('beta', ['src/**/*.ts'], 'toolu_2');
    const reply = replyOf(run.stdout);
    assert.equal(reply.decision, 'deny');
    assert.match(reply.text, /overlaps an agent of this session that is still running/);
    assert.match(reply.text, /"alpha".*claims "src\/a\/\*\*"; this dispatch claims "src\/\*\*\/\*\.ts"; both name "src\/a\/x\.ts"/);
    assert.match(reply.text, /its dispatch has not returned yet/);
    assert.match(reply.text, /give each file one owner.*wait until "alpha" has finished.*wave-scope amend/);
    assert.doesNotMatch(reply.text, /ledger reset/, 'positively running: no stale-ledger hint');
    assert.equal(readFileSync(ledgerPath(repo.root), 'utf8'), before, 'a deny is not persisted');
    const event = lastEvent(repo.root);
    assert.deepEqual([event.decision, event.row, event.collision_count, event.partners_in_flight, event.ledger_result], ['deny', '11', 1, 1, 'not-persisted']);
  });

  it('row 11 when the state looks stale: the deny names this session\'s ledger file', () => {
    assert.equal(dispatch('alpha', ['src/a/**'], 'toolu_1', { transcriptPath: null }).stdout, '');
    const reply = replyOf(dispatch('beta', ['src/a/x.ts'], 'toolu_2', { transcriptPath: null }).stdout);
    assert.equal(reply.decision, 'deny');
    assert.match(reply.text, /no transcript to check/);
    assert.ok(reply.text.includes(ledgerPath(repo.root)), reply.text);
    assert.match(reply.text, /wave-scope ledger reset/);
  });

  it('row 10a: an overlap with an agent that has finished is allowed, and the finished record is pruned', () => {
    transcript.write(transcriptPath, [transcript.dispatch('toolu_1', 'alpha'), transcript.syncResult('toolu_1')]);
    dispatch('alpha', ['src/a/**'], 'toolu_1');
    const run = dispatch('beta', ['src/a/x.ts'], 'toolu_2');
    assert.equal(run.stdout, '');
    assert.deepEqual(ledgerIds(repo.root), ['beta']);
    const event = lastEvent(repo.root);
    assert.deepEqual([event.row, event.partners_finished, event.removed_count, event.probe], ['10a', 1, 1, 'read']);
    assert.deepEqual(event.liveness_evidence, ['sync-result']);
  });

  it('row 10: the same agent id again, its first run finished: allowed, the record replaced (a retry never self-locks)', () => {
    transcript.write(transcriptPath, [transcript.dispatch('toolu_1', 'alpha'), { type: 'user', message: { content: [{ type: 'tool_result', tool_use_id: 'toolu_1', is_error: true, content: 'failed' }] } }]);
    dispatch('alpha', ['src/a/**'], 'toolu_1');
    assert.equal(dispatch('alpha', ['src/a/**'], 'toolu_9').stdout, '');
    assert.deepEqual(Object.values(readLedgerFile(repo.root)?.waves ?? {}).flat().map((record) => record.useId), ['toolu_9']);
    assert.equal(lastEvent(repo.root).row, '10');
  });

  it('row 10: the same tool_use_id again (the hook ran twice for one call): replaced without a probe', () => {
    dispatch('alpha', ['src/a/**'], 'toolu_1', { transcriptPath: null });
    assert.equal(dispatch('alpha', ['src/a/**', 'docs/guide.md'], 'toolu_1', { transcriptPath: null }).stdout, '');
    assert.deepEqual(Object.values(readLedgerFile(repo.root)?.waves ?? {}).flat().map((record) => record.files), [['src/a/**', 'docs/guide.md']]);
    assert.equal(lastEvent(repo.root).probe, 'none');
  });

  it('row 13: a partner the transcript has no evidence of counts as in flight until the TTL, then no longer', () => {
    transcript.write(transcriptPath, []);
    dispatch('alpha', ['src/a/**'], 'toolu_1');
    assert.equal(replyOf(dispatch('beta', ['src/a/x.ts'], 'toolu_2').stdout).decision, 'deny');
    assert.deepEqual(lastEvent(repo.root).liveness_evidence, ['not-in-transcript']);
    // Forty minutes later (the record's own time moved back): past the TTL, it no longer binds.
    const path = ledgerPath(repo.root);
    const ledger = JSON.parse(readFileSync(path, 'utf8')) as { waves: Record<string, Array<{ at: string }>> };
    for (const records of Object.values(ledger.waves)) for (const record of records) record.at = new Date(Date.now() - 40 * 60_000).toISOString();
    writeFileSync(path, JSON.stringify(ledger));
    assert.equal(dispatch('beta', ['src/a/x.ts'], 'toolu_2').stdout, '');
    assert.equal(lastEvent(repo.root).row, '10a');
  });

  it('row 13: a transcript over 256 MiB is no evidence (never a completion): in flight inside the TTL', () => {
    transcript.write(transcriptPath, [transcript.dispatch('toolu_1', 'alpha'), transcript.syncResult('toolu_1')]);
    truncateSync(transcriptPath, 256 * 1024 * 1024 + 1);
    dispatch('alpha', ['src/a/**'], 'toolu_1');
    assert.equal(replyOf(dispatch('beta', ['src/a/x.ts'], 'toolu_2').stdout).decision, 'deny');
    const event = lastEvent(repo.root);
    assert.equal(event.probe, 'too-large');
    assert.deepEqual(event.liveness_evidence, ['transcript-too-large']);
  });

  it('row 13: a transcript that is a FIFO is no evidence, read without waiting for a writer (a hung hook is an unlogged allow)', () => {
    assert.equal(spawnSync('mkfifo', [transcriptPath]).status, 0);
    dispatch('alpha', ['src/a/**'], 'toolu_1');
    const run = preDispatchWithin(dispatchPayload({ cwd: repo.root, description: 'beta', prompt: scopedPrompt(['src/a/x.ts']), useId: 'toolu_2' }));
    assert.equal(run.signal, null, 'the hook hung on the FIFO');
    assert.equal(replyOf(run.stdout).decision, 'deny');
    const event = lastEvent(repo.root);
    assert.deepEqual([event.row, event.probe], ['11', 'failed']);
  });

  it('an event log that is a FIFO is not waited on: the deny still comes (a hung hook would be an allow)', () => {
    dispatch('alpha', ['src/a/**'], 'toolu_1', { transcriptPath: null });
    rmSync(join(repo.root, '.orchestrator', 'metrics', 'events.jsonl'));
    assert.equal(spawnSync('mkfifo', [join(repo.root, '.orchestrator', 'metrics', 'events.jsonl')]).status, 0);
    const run = preDispatchWithin(dispatchPayload({ cwd: repo.root, description: 'beta', prompt: scopedPrompt(['src/a/x.ts']), useId: 'toolu_2', transcriptPath: null }));
    assert.equal(run.signal, null, 'the hook hung on the FIFO');
    assert.equal(replyOf(run.stdout).decision, 'deny');
  });

  it('a prompt with a long line of # (a Markdown separator) is read at once: the overlap it carries is denied', () => {
    dispatch('alpha', ['src/a/**'], 'toolu_1', { transcriptPath: null });
    const run = preDispatchWithin(dispatchPayload({ cwd: repo.root, description: 'beta', prompt: scopedPrompt(['src/a/x.ts'], `${'#'.repeat(72)}\nTask: beta\n${'#'.repeat(72)}\n`), useId: 'toolu_2', transcriptPath: null }));
    assert.equal(run.signal, null, 'the hook did not answer in time (the agent CLI would have let the dispatch through)');
    assert.equal(replyOf(run.stdout).decision, 'deny');
  });

  it('row 1: switched off by WAVE_SCOPE_DISPATCH_GUARD=off: exit 0, silent, nothing recorded, the row logged', () => {
    dispatch('alpha', ['src/a/**'], 'toolu_1', { transcriptPath: null });
    const run = dispatch('beta', ['src/a/x.ts'], 'toolu_2', { env: { WAVE_SCOPE_DISPATCH_GUARD: 'off', CLAUDE_PROJECT_DIR: repo.root } });
    assert.deepEqual([run.status, run.stdout, run.stderr], [0, '', '']);
    assert.deepEqual(ledgerIds(repo.root), ['alpha']);
    assert.equal(lastEvent(repo.root).row, '1');
  });

  it('row 2: the guard\'s code cannot be loaded: allow, GUARD INACTIVE on stderr, the row logged', () => {
    const lean = mkdtempSync(join(tmpdir(), 'wave-scope-lean-'));
    try {
      copyFileSync(join(dist, 'hook.js'), join(lean, 'hook.js'));
      writeFileSync(join(lean, 'dispatch.js'), 'this is not JavaScript (');
      const run = spawnSync(process.execPath, [join(lean, 'hook.js'), 'pre-dispatch'], {
        input: dispatchPayload({ cwd: repo.root, prompt: scopedPrompt(['src/a/**']), useId: 'toolu_1' }),
        env: cleanEnv(),
        encoding: 'utf8',
      });
      assert.equal(run.status, 0);
      assert.equal(run.stdout, '');
      assert.match(run.stderr, /^GUARD INACTIVE: /);
      assert.equal(lastEvent(repo.root).row, '2');
    } finally {
      rmSync(lean, { recursive: true, force: true });
    }
  });

  it('through the installed launcher: dist/dispatch.js is loaded on its own (not the write gate\'s bundle); a broken one goes through hook.js and is row 2', () => {
    assert.equal(runBuiltCli(['install-hooks', '--claude'], { cwd: repo.root, env: cleanEnv() }).status, 0);
    const launcher = join(repo.root, '.claude', 'wave-scope-hook.cjs');
    const copy = mkdtempSync(join(tmpdir(), 'wave-scope-cli-copy-'));
    try {
      for (const entry of ['cli.js', 'hook.js', 'dispatch.js', 'backstop-hook.js']) copyFileSync(join(dist, entry), join(copy, entry));
      const viaLauncher = (useId: string) =>
        spawnSync(process.execPath, [launcher, 'pre-dispatch', '--agent-cli', 'claude'], {
          input: dispatchPayload({ cwd: repo.root, prompt: scopedPrompt(['src/a/**']), useId }),
          env: cleanEnv({ WAVE_SCOPE_CLI: join(copy, 'cli.js'), CLAUDE_PROJECT_DIR: repo.root }),
          encoding: 'utf8',
        });
      // The write gate's bundle broken: the dispatch guard does not need it.
      writeFileSync(join(copy, 'hook.js'), 'this is not JavaScript (');
      const direct = viaLauncher('toolu_1');
      assert.deepEqual([direct.status, direct.stdout, direct.stderr], [0, '', '']);
      assert.equal(ledgerIds(repo.root).length, 1, 'the dispatch is recorded');
      assert.equal(lastEvent(repo.root).decision, 'allow');
      // The guard's own bundle broken: through hook.js, which says so and logs row 2.
      copyFileSync(join(dist, 'hook.js'), join(copy, 'hook.js'));
      writeFileSync(join(copy, 'dispatch.js'), 'this is not JavaScript (');
      const inactive = viaLauncher('toolu_2');
      assert.equal(inactive.status, 0);
      assert.match(inactive.stderr, /^GUARD INACTIVE: /);
      assert.equal(lastEvent(repo.root).row, '2');
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  const unreadable: Array<[string, string]> = [['empty stdin', ''], ['not JSON', '{tool_name'], ['not an object', '[1]']];
  for (const [name, input] of unreadable) {
    it(`row 3: ${name}: allow, the row logged`, () => {
      const run = preDispatch(input, { CLAUDE_PROJECT_DIR: repo.root }, repo.root);
      assert.deepEqual([run.status, run.stdout], [0, '']);
      assert.equal(lastEvent(repo.root).row, '3');
    });
  }

  it('row 4: a tool that is not the dispatch tool: allow, the row logged; `Task` (older versions) is the dispatch tool', () => {
    const other = preDispatch(dispatchPayload({ cwd: repo.root, prompt: scopedPrompt(['src/a/**']), toolName: 'TaskOutput', useId: 'toolu_1' }));
    assert.deepEqual([other.status, other.stdout], [0, '']);
    assert.equal(lastEvent(repo.root).row, '4');
    preDispatch(dispatchPayload({ cwd: repo.root, prompt: scopedPrompt(['src/a/**']), toolName: 'Task', useId: 'toolu_2', description: 'old' }));
    assert.deepEqual(ledgerIds(repo.root), ['old']);
  });

  it('row 5: no FILE-SCOPE marker and no declared agent named: allow, unrecorded, the row logged', () => {
    const run = preDispatch(dispatchPayload({ cwd: repo.root, prompt: 'Refactor src/a.', useId: 'toolu_1' }));
    assert.deepEqual([run.status, run.stdout], [0, '']);
    assert.equal(readLedgerFile(repo.root), undefined);
    const event = lastEvent(repo.root);
    assert.deepEqual([event.row, event.marker, event.injected], ['5', 'absent', false]);
  });

  it('row 6: a marker without a usable block: allow, unrecorded, the reason logged', () => {
    const run = preDispatch(dispatchPayload({ cwd: repo.root, prompt: 'FILE-SCOPE: src/a/** only', useId: 'toolu_1' }));
    assert.equal(run.stdout, '');
    assert.equal(readLedgerFile(repo.root), undefined);
    const event = lastEvent(repo.root);
    assert.deepEqual([event.row, event.block], ['6', 'no-fence']);
  });

  it('row 6a (ours): an entry the grammar refuses denies the dispatch, naming its line and why; nothing recorded', () => {
    const run = preDispatch(dispatchPayload({ cwd: repo.root, prompt: scopedPrompt(['src/a/**', '../secrets/key', '!src/b']), useId: 'toolu_1' }));
    const reply = replyOf(run.stdout);
    assert.equal(reply.decision, 'deny');
    assert.match(reply.text, /prompt line 5: scope entry "\.\.\/secrets\/key" climbs out of the repository/);
    assert.match(reply.text, /prompt line 6: scope entry "!src\/b" starts with "!"/);
    assert.equal(readLedgerFile(repo.root), undefined);
    const event = lastEvent(repo.root);
    assert.deepEqual([event.row, event.invalid_entry_count], ['6a', 2]);
    assert.deepEqual(event.invalid_reasons, ['escapes-root', 'negation']);
  });

  it('row 7: an unusable ledger: allow with a warning, and the ledger is rebuilt from this dispatch', () => {
    mkdirSync(join(repo.root, '.orchestrator'), { recursive: true });
    writeFileSync(ledgerPath(repo.root), '{"version": 1, "waves": ');
    const reply = replyOf(dispatch('alpha', ['src/a/**'], 'toolu_1').stdout);
    assert.equal(reply.decision, 'warn');
    assert.match(reply.text, /was unusable \(not JSON.*\) and was rebuilt from this dispatch/);
    assert.deepEqual(ledgerIds(repo.root), ['alpha']);
    const event = lastEvent(repo.root);
    assert.deepEqual([event.row, event.self_healed], ['7', true]);
  });

  it('the ledger never grows past what its readers accept: the oldest records go, and a running agent still denies', () => {
    // A long session's ledger just under the readers' cap, its newest record a running agent.
    const now = Date.now();
    const longName = (owner: string, index: number) => `gen/${owner}/${'n'.repeat(200)}-${index}.ts`;
    const waveKey = `${SESSION}|w?|?`;
    const alpha: LedgerRecord = { id: 'alpha', desc: 'alpha', useId: 'toolu_alpha', files: ['src/a/x.ts'], at: new Date(now).toISOString() };
    const oldRecord = (index: number): LedgerRecord => ({ id: `old${index}`, desc: `old${index}`, useId: `toolu_old${index}`, files: Array.from({ length: 100 }, (_, n) => longName(`old${index}`, n)), at: new Date(now - 20 * 60_000 + index).toISOString() });
    const seeded = (count: number) => formatLedger({ version: 1, session: SESSION, waveKey, updated: alpha.at, transcriptPath, waves: { [waveKey]: [...Array.from({ length: count }, (_, index) => oldRecord(index)), alpha] } });
    const perRecord = seeded(2).length - seeded(1).length;
    const text = seeded(Math.floor((MAX_CONTROL_FILE_BYTES - 64 * 1024 - seeded(0).length) / perRecord));
    assert.ok(text.length < MAX_CONTROL_FILE_BYTES && text.length > MAX_CONTROL_FILE_BYTES - 128 * 1024);
    mkdirSync(join(repo.root, '.orchestrator'), { recursive: true });
    writeFileSync(ledgerPath(repo.root), text);
    transcript.write(transcriptPath, [transcript.dispatch('toolu_alpha', 'alpha')]);
    // A dispatch whose record takes the ledger past the cap: recorded, with the oldest records dropped.
    assert.equal(dispatch('beta', Array.from({ length: 500 }, (_, n) => longName('beta', n)), 'toolu_beta').stdout, '');
    assert.ok(readFileSync(ledgerPath(repo.root)).length <= MAX_CONTROL_FILE_BYTES, 'the ledger stays readable');
    const ids = ledgerIds(repo.root);
    assert.ok(ids.includes('alpha') && ids.includes('beta') && !ids.includes('old0'), ids.slice(-3).join());
    // The event counts the records the file holds, not the ones the decision meant to write.
    const written = lastEvent(repo.root);
    assert.equal(written.ledger_result, 'recorded');
    assert.equal(written.ledger_records, ids.length);
    // The running agent's claim is still there to deny an overlap (not row 7, which forgets every claim).
    const reply = replyOf(dispatch('gamma', ['src/a/x.ts'], 'toolu_gamma').stdout);
    assert.equal(reply.decision, 'deny', reply.text);
    assert.equal(lastEvent(repo.root).row, '11');
  });

  it('row 8: git cannot list the files: the overlap is still found and denied, with a synthesised witness', () => {
    dispatch('alpha', ['src/a/**'], 'toolu_1', { transcriptPath: null });
    const run = dispatch('beta', ['src/**/*.ts'], 'toolu_2', { transcriptPath: null, env: { PATH: '/nonexistent' } });
    assert.equal(replyOf(run.stdout).decision, 'deny');
    const event = lastEvent(repo.root);
    assert.ok((event.degraded as string[]).includes('git'), JSON.stringify(event));
  });

  it('row 12: an unexpected failure allows, says so on stderr, and is logged', async () => {
    const stdout: string[] = [];
    const stderr: string[] = [];
    const code = await runPreDispatch([], {
      readStdin: () => Promise.reject(new Error('stdin exploded')),
      writeStdout: (text) => stdout.push(text),
      writeStderr: (text) => stderr.push(text),
      cwd: repo.root,
      env: cleanEnv(),
    });
    assert.equal(code, 0);
    assert.deepEqual(stdout, []);
    assert.match(stderr.join(''), /dispatch guard failed \(stdin exploded\); this dispatch was allowed unchecked/);
    assert.equal(lastEvent(repo.root).row, '12');
  });

  it(`row 14: a lock that cannot be had within ${LOCK_BUDGET_MS} ms: the cycle runs unlocked, says so, and never denies`, async function () {
    this.timeout(60_000);
    const holder = holdLock(join(repo.root, '.orchestrator', `wave-dispatch-scopes.${SESSION}.lock`));
    let run;
    try {
      run = await runBuiltCliAsync(['hook', 'pre-dispatch'], { input: dispatchPayload({ cwd: repo.root, description: 'alpha', prompt: scopedPrompt(['src/a/**']), useId: 'toolu_1', transcriptPath: null }) });
    } finally {
      holder.release();
    }
    const reply = replyOf(run.stdout);
    assert.equal(reply.decision, 'warn');
    assert.match(reply.text, new RegExp(`could not be had within ${LOCK_BUDGET_MS} ms; this dispatch was checked without it`));
    assert.deepEqual(ledgerIds(repo.root), ['alpha']);
    const event = lastEvent(repo.root);
    assert.equal(event.lock, 'unlocked');
    assert.ok((event.lock_wait_ms as number) >= LOCK_BUDGET_MS - 50);
    assert.ok((event.degraded as string[]).includes('lock'));
  });

  it('a stale lock (its holder died) is taken over', () => {
    const lock = join(repo.root, '.orchestrator', `wave-dispatch-scopes.${SESSION}.lock`);
    mkdirSync(lock, { recursive: true });
    const old = new Date(Date.now() - 60_000);
    utimesSync(lock, old, old);
    assert.equal(dispatch('alpha', ['src/a/**'], 'toolu_1', { transcriptPath: null }).stdout, '');
    assert.equal(lastEvent(repo.root).lock, 'held');
  });

  it('a marker in a quote or a list item has its block there: an overlap written that way is denied, not allowed unrecorded (row 6)', () => {
    dispatch('alpha', ['src/a/x.ts', 'src/b/y.ts'], 'toolu_1', { transcriptPath: null });
    const nested: Array<[string, string]> = [
      ['quoted', '> FILE-SCOPE — exactly these:\n> ```\n> src/b/y.ts\n> ```\n> Report when done.'],
      ['listed', 'Rules:\n- FILE-SCOPE:\n    ```\n    src/a/x.ts\n    ```\n- Report when done.'],
    ];
    for (const [name, prompt] of nested) {
      const reply = replyOf(preDispatch(dispatchPayload({ cwd: repo.root, description: name, prompt, useId: `toolu_${name}`, transcriptPath: null })).stdout);
      assert.equal(reply.decision, 'deny', `${name}: ${reply.text}`);
      assert.match(reply.text, /"alpha"/);
      assert.equal(lastEvent(repo.root).row, '11');
    }
  });

  it('an entry that names nothing and looks like several paths on one line, or a path with a comment, is reported; a real path spelled so is not', () => {
    let reply = replyOf(dispatch('alpha', ['src/a/x.ts, src/b/y.ts', 'docs/guide.md  # the guide'], 'toolu_1', { transcriptPath: null }).stdout);
    assert.equal(reply.decision, 'warn');
    assert.match(
      reply.text,
      /the FILE-SCOPE entries "src\/a\/x\.ts, src\/b\/y\.ts", "docs\/guide\.md {2}# the guide" name nothing in the repository and look like several paths on one line, or a path with a comment: every line of the block is one path, read as written, so the agent is held to those paths and refused the files meant\./,
    );
    // As written, they are the agent's claim: nothing else was recorded.
    assert.deepEqual(Object.values(readLedgerFile(repo.root)?.waves ?? {}).flat()[0]?.files, ['src/a/x.ts, src/b/y.ts', 'docs/guide.md  # the guide']);
    // A file whose name holds ", " is a path like any other.
    repo.write({ 'notes/draft, v2.md': 'n\n' });
    reply = replyOf(dispatch('beta', ['notes/draft, v2.md'], 'toolu_2', { transcriptPath: null }).stdout);
    assert.equal(reply.decision, 'allow', reply.text);
  });

  it('a plain entry naming a directory means everything beneath it (as in the plan)', () => {
    dispatch('alpha', ['src/lib'], 'toolu_1', { transcriptPath: null });
    assert.equal(replyOf(dispatch('beta', ['src/lib/z.ts'], 'toolu_2', { transcriptPath: null }).stdout).decision, 'deny');
  });

  it('--help prints the hooks\' usage and decides nothing', () => {
    for (const name of ['pre-dispatch', 'subagent-start']) {
      const run = runBuiltCli(['hook', name, '--help'], { env: cleanEnv(), cwd: repo.root });
      assert.equal(run.status, 0);
      assert.match(run.stdout, /^Usage: wave-scope hook pre-dispatch/);
    }
    assert.deepEqual(readEvents(repo.root), []);
  });

  it('dist/hook.js and dist/dispatch.js answer exactly as the full CLI does', () => {
    dispatch('alpha', ['src/a/**'], 'toolu_1', { transcriptPath: null });
    for (const entry of ['hook.js', 'dispatch.js']) {
      const run = spawnSync(process.execPath, [join(dist, entry), 'pre-dispatch'], {
        input: dispatchPayload({ cwd: repo.root, description: 'beta', prompt: scopedPrompt(['src/a/x.ts']), useId: 'toolu_2', transcriptPath: null }),
        env: cleanEnv(),
        encoding: 'utf8',
      });
      assert.equal(run.status, 0, run.stderr);
      assert.equal(replyOf(run.stdout).decision, 'deny', `${entry}: ${run.stdout}`);
    }
  });

  it('sessions never see each other\'s claims, and each has its own ledger file', () => {
    preDispatch(dispatchPayload({ cwd: repo.root, prompt: scopedPrompt(['src/a/**']), useId: 'toolu_1', session: 'session-one', transcriptPath: null }));
    const other = preDispatch(dispatchPayload({ cwd: repo.root, prompt: scopedPrompt(['src/a/**']), useId: 'toolu_2', session: 'session/two', transcriptPath: null }));
    assert.equal(other.stdout, '');
    assert.deepEqual(ledgerIds(repo.root, 'session-one'), ['work']);
    assert.deepEqual(ledgerIds(repo.root, 'session_two'), ['work']);
  });
});

describe('wave-scope hook pre-dispatch: the files the wave declares for the coordinator itself (row 11c)', () => {
  let repo: TempGitRepo;
  beforeEach(() => {
    repo = createTempGitRepo({ initialFiles: { 'src/a/x.ts': 'x\n', 'src/b/y.ts': 'y\n', 'docs/guide.md': 'g\n', 'README.md': 'r\n' } });
    planWave(repo, 3, [
      { id: 'alice', files: ['src/a/'] },
      { id: 'coordinator', files: ['docs/', 'README.md'] },
    ]);
  });
  afterEach(() => repo.remove());

  it('a dispatch claiming them is denied, naming the coordinator\'s entry, the dispatch\'s and a witness, and what to do; nothing recorded', () => {
    const run = preDispatch(dispatchPayload({ cwd: repo.root, description: 'docs writer', prompt: scopedPrompt(['docs/*.md']), useId: 'toolu_1', transcriptPath: null }));
    const reply = replyOf(run.stdout);
    assert.equal(reply.decision, 'deny', run.stdout);
    assert.match(reply.text, /^Wave Scope did not start this agent: its scope overlaps files the plan of wave 3 gives the coordinator itself/);
    assert.match(reply.text, /- the coordinator's declaration has "docs\/"; this dispatch claims "docs\/\*\.md"; both name "docs\/guide\.md"\./);
    assert.match(reply.text, /wave-scope plan write --wave 3/);
    assert.equal(readLedgerFile(repo.root), undefined, 'nothing recorded');
    const event = lastEvent(repo.root);
    assert.deepEqual([event.decision, event.row, event.coordinator_collision_count], ['deny', '11c', 1]);
  });

  it('a dispatch clear of them, and a declared agent dispatched with its own scope, go ahead', () => {
    assert.equal(preDispatch(dispatchPayload({ cwd: repo.root, description: 'tests', prompt: scopedPrompt(['src/b/y.ts']), useId: 'toolu_1', transcriptPath: null })).stdout, '');
    assert.equal(preDispatch(dispatchPayload({ cwd: repo.root, prompt: `${scopeEchoInstruction(scopeDigest(['src/a/']))}\n`, useId: 'toolu_2', transcriptPath: null })).stdout, '');
  });
});

describe('wave-scope hook pre-dispatch: declared agents of the active wave', () => {
  let repo: TempGitRepo;
  beforeEach(() => {
    repo = createTempGitRepo({ initialFiles: { 'src/a/x.ts': 'x\n', 'src/b/y.ts': 'y\n', 'docs/guide.md': 'g\n' } });
    planWave(repo, 2, [
      { id: 'alice', files: ['src/a/'] },
      { id: 'bob', files: ['src/b/', 'docs/guide.md'] },
    ]);
  });
  afterEach(() => repo.remove());

  it('the echo instruction\'s digest names the agent: its declared scope is checked even with no block', () => {
    const alice = scopeEchoInstruction(scopeDigest(['src/a/']));
    assert.equal(preDispatch(dispatchPayload({ cwd: repo.root, prompt: `Do your part.\n${alice}`, useId: 'toolu_1', transcriptPath: null })).stdout, '');
    const ledger = readLedgerFile(repo.root);
    assert.equal(ledger?.waveKey, `${SESSION}|w2|implementation`);
    const [record] = Object.values(ledger?.waves ?? {}).flat();
    assert.deepEqual([record?.id, record?.agent, record?.files], ['alice', 'alice', ['src/a/']]);
    const event = lastEvent(repo.root);
    assert.deepEqual([event.wave, event.declared_agent, event.echo_instruction_present, event.injected], [2, 'matched', true, false]);
    // A second dispatch of a different agent that reaches into alice's directory is denied.
    const reply = replyOf(preDispatch(dispatchPayload({ cwd: repo.root, prompt: scopedPrompt(['src/a/x.ts']), useId: 'toolu_2', transcriptPath: null })).stdout);
    assert.equal(reply.decision, 'deny');
    assert.match(reply.text, /"alice"/);
  });

  it('a block that disagrees with the declaration is reported, and both are claimed', () => {
    const run = preDispatch(dispatchPayload({ cwd: repo.root, prompt: scopedPrompt(['src/b/'], 'AGENT-ID: bob\n'), useId: 'toolu_1', transcriptPath: null }));
    const reply = replyOf(run.stdout);
    assert.equal(reply.decision, 'warn');
    assert.match(reply.text, /declared agent "bob", but its FILE-SCOPE block differs from the declaration; not in the block: "docs\/guide\.md"/);
    const event = lastEvent(repo.root);
    assert.deepEqual([event.row, event.prompt_scope_agrees, event.declared_agent], ['clear', false, 'matched']);
    assert.deepEqual(Object.values(readLedgerFile(repo.root)?.waves ?? {}).flat()[0]?.files, ['src/b/', 'docs/guide.md']);
  });

  it('the echo line of one agent beside the block of another is reported (digest_consistent: false)', () => {
    const prompt = scopedPrompt(['src/a/'], `${scopeEchoInstruction(scopeDigest(['src/b/', 'docs/guide.md']))}\n`);
    const reply = replyOf(preDispatch(dispatchPayload({ cwd: repo.root, prompt, useId: 'toolu_1', transcriptPath: null })).stdout);
    assert.equal(reply.decision, 'warn');
    assert.match(reply.text, /belong to different agents/);
    assert.equal(lastEvent(repo.root).digest_consistent, false);
  });
});

/**
 * Runs a bundle under a preload that records every module it requests (Module._load), from a scratch
 * directory of its own; `loaded` is the requests of that one run, one per line.
 */
function moduleRecorder(): { run(script: string, args: string[], input: string, env: NodeJS.ProcessEnv): { status: number | null; stderr: string; loaded: string }; remove(): void } {
  const probeDir = mkdtempSync(join(tmpdir(), 'wave-scope-loads-'));
  const record = join(probeDir, 'loaded.txt');
  const preload = join(probeDir, 'preload.cjs');
  writeFileSync(preload, `const Module = require('module'); const fs = require('fs'); const load = Module._load; Module._load = function (request, parent, isMain) { fs.appendFileSync(${JSON.stringify(record)}, request + '\\n'); return load.apply(this, arguments); };\n`);
  return {
    run(script, args, input, env) {
      writeFileSync(record, '');
      const run = spawnSync(process.execPath, ['--require', preload, script, ...args], { input, encoding: 'utf8', env });
      return { status: run.status, stderr: run.stderr, loaded: readFileSync(record, 'utf8') };
    },
    remove: () => rmSync(probeDir, { recursive: true, force: true }),
  };
}

describe('wave-scope hook: the write gate does not load the dispatch guard', () => {
  it('enforce-write through dist/hook.js never loads dist/dispatch.js, and hook.js carries none of it', () => {
    const repo = createTempGitRepo({ initialFiles: { 'src/a.ts': 'a\n' } });
    const recorder = moduleRecorder();
    try {
      const payload = JSON.stringify({ hook_event_name: 'PreToolUse', tool_name: 'Write', cwd: repo.root, session_id: 's', tool_input: { file_path: join(repo.root, 'src/a.ts'), content: '' } });
      const run = recorder.run(join(dist, 'hook.js'), ['enforce-write'], payload, cleanEnv());
      assert.equal(run.status, 0, run.stderr);
      assert.ok(run.loaded.includes('hook.js'), 'the preload saw the hook bundle load');
      assert.doesNotMatch(run.loaded, /dispatch\.js|preDispatch|proper-lockfile/);
      // The control: a dispatch hook through the same bundle does load it.
      assert.match(recorder.run(join(dist, 'hook.js'), ['pre-dispatch'], '', cleanEnv({ CLAUDE_PROJECT_DIR: repo.root })).loaded, /dispatch\.js/);
      const bundle = readFileSync(join(dist, 'hook.js'), 'utf8');
      for (const marker of ['Async agent launched successfully', 'Fork started', 'FILE-SCOPE', 'Lock file is already being held']) assert.ok(!bundle.includes(marker), `hook.js carries ${marker}`);
    } finally {
      repo.remove();
      recorder.remove();
    }
  });
});

describe('wave-scope hook pre-dispatch: what a dispatch loads', () => {
  it('a recorded dispatch through dist/dispatch.js loads neither node:crypto, assert, worker_threads nor write-file-atomic', () => {
    const repo = createTempGitRepo({ initialFiles: { 'README.md': 'r\n' } });
    const recorder = moduleRecorder();
    try {
      const payload = dispatchPayload({ cwd: repo.root, description: 'alpha', prompt: scopedPrompt(['src/a/']), useId: 'toolu_1', transcriptPath: null });
      const run = recorder.run(join(dist, 'dispatch.js'), ['pre-dispatch'], payload, cleanEnv());
      assert.equal(run.status, 0, run.stderr);
      // The dispatch was decided and recorded (a digest and a locked, atomic write of the ledger).
      assert.deepEqual(ledgerIds(repo.root), ['alpha']);
      const loaded = run.loaded.split('\n');
      assert.ok(loaded.includes('proper-lockfile') || loaded.some((name) => name.endsWith('dispatch.js')), 'the preload saw the bundle load');
      for (const heavy of ['crypto', 'node:crypto', 'assert', 'node:assert', 'worker_threads', 'node:worker_threads', 'write-file-atomic']) {
        assert.ok(!loaded.includes(heavy), `the dispatch hook loaded ${heavy}`);
      }
    } finally {
      repo.remove();
      recorder.remove();
    }
  });
});

describe('wave-scope hook pre-dispatch: a deny with many overlaps', () => {
  it('lists the first ten and counts the rest', () => {
    const repo = createTempGitRepo({ initialFiles: { 'README.md': 'r\n' } });
    try {
      const many = Array.from({ length: 14 }, (_, index) => `pkg/f${index}.ts`);
      preDispatch(dispatchPayload({ cwd: repo.root, description: 'alpha', prompt: scopedPrompt(many), useId: 'toolu_1', transcriptPath: null }));
      const reply = replyOf(preDispatch(dispatchPayload({ cwd: repo.root, description: 'beta', prompt: scopedPrompt(['pkg/*.ts']), useId: 'toolu_2', transcriptPath: null })).stdout);
      assert.equal(reply.decision, 'deny');
      assert.equal(reply.text.split('\n').filter((line) => line.startsWith('- "alpha"')).length, 10);
      assert.match(reply.text, /… and 4 more overlaps/);
      assert.equal(lastEvent(repo.root).collision_count, 14);
    } finally {
      repo.remove();
    }
  });
});
