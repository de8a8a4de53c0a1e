// Sixteen dispatch hooks (the built CLI) started at once on one session ledger, with a known pattern of
// overlaps: six pairs whose two agents share a path and four agents that share nothing. Whatever order
// the lock hands out, exactly one agent of each pair is allowed (the other is denied naming it), every
// single is allowed, every allowed dispatch is in the ledger (none lost), and none waited for the lock
// longer than its budget.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { LOCK_BUDGET_MS } from '../../src/node/dispatchLedgerStore';
import { builtCliPath, cleanEnv } from '../support/builtCli';
import { createTempGitRepo } from '../support/tempGitRepo';
import type { TempGitRepo } from '../support/tempGitRepo';
import { dispatchPayload, ledgerIds, readEvents, replyOf, scopedPrompt } from './dispatchHelpers';

interface Outcome {
  id: string;
  status: number | null;
  stdout: string;
  stderr: string;
}

function startHook(repo: TempGitRepo, id: string, entries: string[]): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [builtCliPath, 'hook', 'pre-dispatch'], { cwd: repo.root, env: cleanEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (status) => resolve({ id, status, stdout, stderr }));
    child.stdin.end(dispatchPayload({ cwd: repo.root, description: id, prompt: scopedPrompt(entries), useId: `toolu_${id}`, transcriptPath: null }));
  });
}

describe('wave-scope hook pre-dispatch: 16 hooks at once on one ledger', () => {
  let repo: TempGitRepo;
  before(() => {
    repo = createTempGitRepo({ initialFiles: { 'README.md': 'r\n' } });
  });
  after(() => repo.remove());

  it('allows exactly one agent of each overlapping pair and every single one, loses no record, and keeps every wait within the lock budget', async function () {
    this.timeout(120_000);
    const pairs = [0, 1, 2, 3, 4, 5];
    const singles = [0, 1, 2, 3];
    const plan: Array<[string, string[]]> = [
      ...pairs.flatMap((pair): Array<[string, string[]]> => [
        [`p${pair}a`, [`src/pair${pair}/**`]],
        [`p${pair}b`, [`src/pair${pair}/file.ts`, `other/p${pair}b.ts`]],
      ]),
      ...singles.map((single): [string, string[]] => [`s${single}`, [`solo/${single}/**`]]),
    ];
    assert.equal(plan.length, 16);
    const outcomes = await Promise.all(plan.map(([id, entries]) => startHook(repo, id, entries)));

    for (const outcome of outcomes) assert.equal(outcome.status, 0, `${outcome.id}: ${outcome.stderr}`);
    const decision = new Map(outcomes.map((outcome) => [outcome.id, replyOf(outcome.stdout)]));
    for (const pair of pairs) {
      const a = decision.get(`p${pair}a`);
      const b = decision.get(`p${pair}b`);
      const allowed = [a, b].filter((reply) => reply?.decision === 'allow');
      assert.equal(allowed.length, 1, `pair ${pair}: ${a?.decision} / ${b?.decision}`);
      const denied = a?.decision === 'deny' ? a : b;
      const winner = a?.decision === 'deny' ? `p${pair}b` : `p${pair}a`;
      assert.match(denied?.text ?? '', new RegExp(`"${winner}"`), `pair ${pair}: the deny names the agent that got the file`);
    }
    for (const single of singles) assert.equal(decision.get(`s${single}`)?.decision, 'allow', `s${single}`);

    const allowedIds = outcomes.filter((outcome) => decision.get(outcome.id)?.decision === 'allow').map((outcome) => outcome.id).sort();
    assert.equal(allowedIds.length, 10);
    assert.deepEqual(ledgerIds(repo.root).sort(), allowedIds, 'every allowed dispatch is in the ledger, and nothing else');

    const events = readEvents(repo.root).filter((event) => event.event === 'wave_dispatch.scope_checked');
    assert.equal(events.length, 16, 'one event per decision, none torn (every line parsed)');
    for (const event of events) {
      assert.equal(event.lock, 'held', 'no hook had to run unlocked');
      assert.ok((event.lock_wait_ms as number) <= LOCK_BUDGET_MS, `waited ${String(event.lock_wait_ms)} ms`);
    }
    assert.equal(events.filter((event) => event.decision === 'deny').length, 6);
  });
});
