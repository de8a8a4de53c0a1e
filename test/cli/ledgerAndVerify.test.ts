import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { scopeDigest } from '../../src/planner/scope/scopeDigest';
import { cleanEnv, runBuiltCli, runBuiltCliAsync } from '../support/builtCli';
import { createTempGitRepo } from '../support/tempGitRepo';
import type { TempGitRepo } from '../support/tempGitRepo';
import { dispatchPayload, holdLock, lastEvent, ledgerPath, planWave, preDispatch, SESSION, scopedPrompt, transcript } from './dispatchHelpers';

describe('wave-scope ledger (built CLI)', () => {
  let repo: TempGitRepo;
  const ledger = (args: string[], session?: string) => runBuiltCli(['ledger', ...args], { cwd: repo.root, env: cleanEnv(session === undefined ? {} : { CLAUDE_CODE_SESSION_ID: session }) });

  beforeEach(() => {
    repo = createTempGitRepo({ initialFiles: { 'README.md': 'r\n' } });
    const transcriptPath = join(repo.root, '.test-transcript.jsonl');
    transcript.write(transcriptPath, [transcript.dispatch('toolu_a', 'alpha'), transcript.syncResult('toolu_a'), transcript.dispatch('toolu_b', 'beta')]);
    preDispatch(dispatchPayload({ cwd: repo.root, description: 'alpha', prompt: scopedPrompt(['src/a/**']), useId: 'toolu_a', transcriptPath }));
    preDispatch(dispatchPayload({ cwd: repo.root, description: 'beta', prompt: scopedPrompt(['src/b/**']), useId: 'toolu_b', transcriptPath }));
    preDispatch(dispatchPayload({ cwd: repo.root, description: 'peer', prompt: scopedPrompt(['src/p/**']), useId: 'toolu_p', session: 'peer-session', transcriptPath: null }));
  });
  afterEach(() => repo.remove());

  it('show: who is in flight, who finished, since when', () => {
    const run = ledger(['show'], SESSION);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, new RegExp(`wave-dispatch-scopes\\.${SESSION}\\.json: wave key ${SESSION}\\|w\\?\\|\\?`));
    assert.match(run.stdout, /alpha: finished \(its report came back\), since .*, 1 entry/);
    assert.match(run.stdout, /beta: in flight \(its dispatch has not returned yet\)/);
    assert.doesNotMatch(run.stdout, /peer/);
  });

  it('show --json: the documents, liveness included', () => {
    const document = JSON.parse(ledger(['show', '--json'], SESSION).stdout) as { version: number; ledgers: Array<{ current: boolean; records: Array<{ id: string; liveness: { inFlight: boolean; evidence: string } }> }> };
    assert.equal(document.version, 1);
    assert.deepEqual(document.ledgers[0]?.records.map((record) => [record.id, record.liveness.inFlight, record.liveness.evidence]), [['alpha', false, 'sync-result'], ['beta', true, 'awaiting-result']]);
  });

  it('show without a session lists every session\'s ledger', () => {
    const run = ledger(['show']);
    assert.match(run.stdout, /wave-dispatch-scopes\.peer-session\.json/);
    assert.match(run.stdout, new RegExp(`wave-dispatch-scopes\\.${SESSION}\\.json`));
  });

  it('reset removes this session\'s file only, and says so in the events', () => {
    assert.equal(ledger(['reset']).status, 1, 'no session: refused');
    const run = ledger(['reset'], SESSION);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stderr, /removed .*wave-dispatch-scopes\..*\.json \(2 records\)/);
    assert.equal(existsSync(ledgerPath(repo.root)), false);
    assert.equal(existsSync(ledgerPath(repo.root, 'peer-session')), true, 'another session\'s ledger is never touched');
    const event = lastEvent(repo.root, 'wave_dispatch.ledger_reset');
    assert.deepEqual([event.outcome, event.records_removed], ['removed', 2]);
    assert.match(ledger(['reset'], SESSION).stderr, /nothing to reset/);
  });

  it('reset while a hook holds the lock: exit 1, nothing removed', async function () {
    this.timeout(60_000);
    const holder = holdLock(join(repo.root, '.orchestrator', `wave-dispatch-scopes.${SESSION}.lock`));
    let run;
    try {
      run = await runBuiltCliAsync(['ledger', 'reset'], { cwd: repo.root, env: cleanEnv({ CLAUDE_CODE_SESSION_ID: SESSION }) });
    } finally {
      holder.release();
    }
    assert.equal(run.status, 1);
    assert.match(run.stderr, /is locked by a running hook/);
    assert.equal(existsSync(ledgerPath(repo.root)), true);
  });

  it('bad arguments', () => {
    assert.equal(ledger(['frob']).status, 1);
    assert.equal(ledger(['reset', '--json'], SESSION).status, 1);
    assert.equal(ledger(['show', '--nope']).status, 1);
  });
});

describe('wave-scope digest --verify (built CLI)', () => {
  let repo: TempGitRepo;
  const declared = { alice: ['src/a/'], bob: ['src/b/'], carol: ['src/c/'], dave: ['src/d/'] };
  beforeEach(() => {
    repo = createTempGitRepo({ initialFiles: { 'src/a/x.ts': 'x\n', 'src/b/x.ts': 'x\n', 'src/c/x.ts': 'x\n', 'src/d/x.ts': 'x\n' } });
    planWave(repo, 1, [...Object.entries(declared).map(([id, files]) => ({ id, files })), { id: 'coordinator', files: ['README.md'] }]);
    for (const id of ['alice', 'bob'] as const) {
      preDispatch(dispatchPayload({ cwd: repo.root, description: id, prompt: scopedPrompt(declared[id], `AGENT-ID: ${id}\n`), useId: `toolu_${id}`, transcriptPath: null }));
    }
  });
  afterEach(() => repo.remove());

  const verify = (...args: string[]) => runBuiltCli(['digest', '--verify', '--wave', '1', ...args], { cwd: repo.root, env: cleanEnv() });
  const report = (name: string, digest: string) => {
    const path = join(repo.root, `${name}.report.md`);
    writeFileSync(path, `Done.\nSCOPE-ECHO: ${digest}\n`);
    return path;
  };

  it('joins declared, dispatched and echoed digests with every verdict', () => {
    const run = verify('--echo', report('alice', scopeDigest(declared.alice)), '--echo', report('carol', scopeDigest(declared.carol)), '--echo', report('stray', 'ws1-0123456789abcdef'), '--json');
    assert.equal(run.status, 1, 'not every digest matched');
    const join = JSON.parse(run.stdout) as { transportObserved: boolean; rows: Array<{ agents: string[]; digest: string; verdict: string }> };
    assert.equal(join.transportObserved, true);
    assert.deepEqual(
      join.rows.map((row) => [row.agents.join(',') || row.digest, row.verdict]),
      [
        ['alice', 'matched'],
        ['bob', 'injected-not-echoed'],
        ['carol', 'echoed-not-injected'],
        ['dave', 'injection-missing'],
        ['ws1-0123456789abcdef', 'digest-unknown'],
      ],
    );
  });

  it('two reports echoing one digest: duplicate-claim', () => {
    const digest = scopeDigest(declared.alice);
    const run = verify('--echo', report('one', digest), '--echo', report('two', digest));
    assert.match(run.stdout, /^duplicate-claim\s+ws1-[0-9a-f]{16}\s+alice/m);
  });

  it('exit 0 when every declared digest matched', () => {
    const subset = createTempGitRepo({ initialFiles: { 'src/a/x.ts': 'x\n' } });
    try {
      planWave(subset, 1, [{ id: 'alice', files: ['src/a/'] }]);
      preDispatch(dispatchPayload({ cwd: subset.root, description: 'alice', prompt: scopedPrompt(['src/a/']), useId: 'toolu_a', transcriptPath: null }));
      const path = join(subset.root, 'r.md');
      writeFileSync(path, `SCOPE-ECHO: ${scopeDigest(['src/a/'])}\n`);
      const run = runBuiltCli(['digest', '--verify', '--wave', '1', '--echo', path], { cwd: subset.root, env: cleanEnv() });
      assert.equal(run.status, 0, run.stdout + run.stderr);
      assert.match(run.stdout, /^matched\s+ws1-/);
    } finally {
      subset.remove();
    }
  });

  it('reads the aggregate as the dispatch guard does: one replaced by a link is unusable (exit 2), never the file it leads to', () => {
    const aggregate = join(repo.root, '.claude/filescopes/wave-1.scopes.json');
    const copy = join(repo.root, 'src/aggregate.json');
    writeFileSync(copy, readFileSync(aggregate));
    rmSync(aggregate);
    symlinkSync(copy, aggregate);
    const run = verify('--echo', report('alice', scopeDigest(declared.alice)));
    assert.equal(run.status, 2);
    assert.match(run.stderr, /^ERROR: wave 1 has no readable aggregate: .*wave-1\.scopes\.json cannot be read: .*is a symbolic link/);
    assert.equal(run.stdout, '');
    const none = runBuiltCli(['digest', '--verify', '--wave', '9'], { cwd: repo.root, env: cleanEnv() });
    assert.equal(none.status, 1);
    assert.match(none.stderr, /^ERROR: wave 9 has no readable aggregate: .*wave-9\.scopes\.json does not exist\n/);
  });

  it('says when the transport was not observed, and rejects mixed flags', () => {
    const fresh = createTempGitRepo({ initialFiles: { 'src/a/x.ts': 'x\n' } });
    try {
      planWave(fresh, 1, [{ id: 'alice', files: ['src/a/'] }]);
      const run = runBuiltCli(['digest', '--verify', '--wave', '1'], { cwd: fresh.root, env: cleanEnv() });
      assert.equal(run.status, 1);
      assert.match(run.stderr, /no dispatch of wave 1 was seen by the dispatch guard/);
      assert.match(run.stdout, /^injection-missing/);
    } finally {
      fresh.remove();
    }
    assert.equal(verify('--agent', 'alice').status, 1);
    assert.equal(runBuiltCli(['digest', '--wave', '1', '--agent', 'alice', '--json'], { cwd: repo.root, env: cleanEnv() }).status, 1);
    assert.equal(verify('--echo', join(repo.root, 'missing.md')).status, 2);
  });
});
