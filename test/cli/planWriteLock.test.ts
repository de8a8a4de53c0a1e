// The checkout's plan-write lock, as every writer of a plan takes it: the built CLI's plan write, materialize
// and amend, and the planner's Save (src/node/planWriteLock.ts). Each test holds the lock in this process, as
// another writer would, so the command waits out its budget of PLAN_WRITE_LOCK_BUDGET_MS and refuses.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { saveDraftToDisk } from '../../src/extension/planFiles';
import { nodeDeclarationFs } from '../../src/node/declarationFs';
import { PLAN_WRITE_LOCK_BUDGET_MS, planWriteLockAt } from '../../src/node/planWriteLock';
import { saveDraft } from '../../src/planner/plan/draftSave';
import { writeWavePlan } from '../../src/planner/plan/planWriter';
import type { DeclarationFs } from '../../src/planner/plan/declarationStore';
import type { PlanDraft } from '../../src/protocol/plannerProtocol';
import { builtCliPath, cleanEnv, runBuiltCli } from '../support/builtCli';
import { runWhileLockHeld } from '../support/lockHeldRun';
import { createTempGitRepo } from '../support/tempGitRepo';
import type { TempGitRepo } from '../support/tempGitRepo';

const lockRefusal = /another Wave Scope command \(plan write, materialize, amend, sync or the planner's Save\) is writing this checkout's plan: it holds \.orchestrator\/plan-write\.lock/;

describe('the plan-write lock (built CLI and the planner\'s Save, real git repository)', function () {
  this.timeout(PLAN_WRITE_LOCK_BUDGET_MS * 4);
  let repo: TempGitRepo;
  beforeEach(() => {
    repo = createTempGitRepo({ initialFiles: { 'src/a/x.ts': 'x\n', 'src/b/y.ts': 'y\n', 'src/c/z.ts': 'z\n', 'README.md': '#\n' } });
  });
  afterEach(() => repo.remove());

  const cli = (args: string[], input = '') => runBuiltCli(args, { cwd: repo.root, input, env: cleanEnv() });
  const read = (path: string) => readFileSync(join(repo.root, path), 'utf8');
  const planOne = () => {
    const written = cli(['plan', 'write', '--wave', '1', '--role', 'implementation'], JSON.stringify([{ id: 'alice', files: ['src/a/'] }, { id: 'bob', files: ['src/b/'] }]));
    assert.equal(written.status, 0, written.stderr);
  };
  /** Runs `act` while this process holds the checkout's plan-write lock. */
  const whileLocked = <T>(act: () => T): T => {
    const lock = planWriteLockAt(repo.root, 0)();
    assert.equal(lock.held, true);
    try {
      return act();
    } finally {
      if (lock.held) lock.release();
    }
  };

  it('plan write waits for the lock another writer holds, then refuses (exit 1, step state-dir), writing nothing; once it is free, it writes', () => {
    planOne();
    const before = [read('.claude/wave-scope.json'), read('.claude/filescopes/wave-1.scopes.json')];
    const records = JSON.stringify([{ id: 'carol', files: ['src/c/'] }]);
    const started = Date.now();
    const refused = whileLocked(() => cli(['plan', 'write', '--wave', '2', '--role', 'implementation'], records));
    assert.equal(refused.status, 1, refused.stderr);
    assert.ok(Date.now() - started >= PLAN_WRITE_LOCK_BUDGET_MS - 100, 'it waited for the lock first');
    assert.match(refused.stderr, /^ERROR: plan write stopped at step "state-dir": another Wave Scope command/m);
    assert.match(refused.stderr, lockRefusal);
    assert.deepEqual([read('.claude/wave-scope.json'), read('.claude/filescopes/wave-1.scopes.json')], before);
    assert.equal(existsSync(join(repo.root, '.claude/filescopes/wave-2.scopes.json')), false);
    const written = cli(['plan', 'write', '--wave', '2', '--role', 'implementation'], records);
    assert.equal(written.status, 0, written.stderr);
    assert.equal(JSON.parse(read('.claude/wave-scope.json')).wave, 2);
    assert.equal(existsSync(join(repo.root, '.orchestrator/plan-write.lock')), false, 'the lock is let go after the write');
  });

  it('plan write without --state-dir chooses its state directory holding the lock: a plan put into an earlier one while it waited is where it writes', async () => {
    const written = await runWhileLockHeld(repo.root, ['plan', 'write', '--wave', '2', '--role', 'implementation'], JSON.stringify([{ id: 'carol', files: ['src/c/'] }]), () => {
      // Another writer, holding the lock, puts a plan into .pi (which comes before .claude in the order the hooks look).
      const other = writeWavePlan({ repoRoot: repo.root, stateDir: join(repo.root, '.pi'), wave: 1, role: 'implementation', records: [{ id: 'alice', files: ['src/a/'] }], ownIds: new Set() }, nodeDeclarationFs(repo.root));
      assert.equal(other.ok, true);
    });
    assert.equal(written.status, 0, written.stderr);
    assert.match(written.stdout, /planned: \.pi\/wave-scope\.json/);
    assert.equal(JSON.parse(read('.pi/wave-scope.json')).wave, 2, 'written where the hooks read the plan');
    assert.equal(existsSync(join(repo.root, '.claude')), false);
  });

  it('materialize and amend refuse the same way, writing nothing', () => {
    planOne();
    const before = [read('.claude/wave-scope.json'), read('.claude/filescopes/wave-1.scopes.json')];
    const [materialized, amended] = whileLocked(() => [
      cli(['materialize', '--state-dir', '.claude', '--wave', '3'], JSON.stringify([{ id: 'carol', files: ['src/c/'] }])),
      cli(['amend', '--wave', '1', '--agent', 'alice', '--add', 'src/c/', '--reason', 'needs it', '--session', 'sess-lock']),
    ]);
    assert.equal(materialized?.status, 1, materialized?.stderr);
    assert.match(materialized?.stderr ?? '', /^ERROR: materialize stopped: another Wave Scope command/m);
    assert.equal(existsSync(join(repo.root, '.claude/filescopes/wave-3.scopes.json')), false);
    assert.equal(amended?.status, 1, amended?.stderr);
    assert.match(amended?.stderr ?? '', /^ERROR: the amended plan could not be written \(step "state-dir"\): another Wave Scope command/m);
    assert.match(amended?.stderr ?? '', lockRefusal);
    assert.deepEqual([read('.claude/wave-scope.json'), read('.claude/filescopes/wave-1.scopes.json')], before);
  });

  const draft: PlanDraft = {
    version: 1,
    activeWave: 1,
    waves: [{ wave: 1, role: 'implementation', agents: [{ id: 'alice', color: '#3794ff', entries: ['src/a/'] }, { id: 'bob', color: '#e5a000', entries: ['src/b/'] }] }],
  };
  const files = ['README.md', 'src/a/x.ts', 'src/b/y.ts', 'src/c/z.ts'];

  it('the planner\'s Save refuses while another writer holds the lock, keeping the draft and writing nothing', () => {
    const saved = whileLocked(() => saveDraftToDisk(repo.root, draft, { ignoreCase: false, files, stateDirName: '.claude' }));
    assert.equal(saved.ok, false);
    if (saved.ok) return;
    assert.equal(saved.step, 'state-dir');
    assert.match(saved.message, /^Not saved: another Wave Scope command/);
    assert.match(saved.message, /The draft is kept\.$/);
    assert.equal(existsSync(join(repo.root, '.claude')), false);
  });

  // Found by red-team review, 2026-12-06: a `plan write` landing between the Save's staleness check and its
  // first write was written over without a refusal. Now it cannot land there: it waits for the lock the
  // Save holds, and (the Save outlasting its budget here) is refused, its plan unwritten and not lost.
  it('a plan write started between the Save\'s staleness check and its writes cannot land between them', () => {
    planOne();
    const grown: PlanDraft = { ...draft, waves: [{ ...draft.waves[0]!, agents: [...draft.waves[0]!.agents, { id: 'dave', color: '#00ff00', entries: ['README.md'] }] }] };
    let interleaved: ReturnType<typeof spawnSync> | undefined;
    const fsAt = (root: string): DeclarationFs => {
      const inner = nodeDeclarationFs(root);
      const first = () => {
        interleaved ??= spawnSync(process.execPath, [builtCliPath, 'plan', 'write', '--wave', '1', '--role', 'implementation'], {
          cwd: repo.root,
          input: JSON.stringify([{ id: 'carol', files: ['src/c/'] }]),
          env: cleanEnv({ CLAUDE_CODE_SESSION_ID: 'other-session' }),
          encoding: 'utf8',
        });
      };
      return {
        ...inner,
        writeAtomic: (path, text) => {
          first();
          inner.writeAtomic(path, text);
        },
        remove: (path) => {
          first();
          return inner.remove(path);
        },
      };
    };
    const saved = saveDraft(grown, {
      repoRoot: repo.root,
      ignoreCase: false,
      files,
      stateDirName: '.claude',
      ownIds: new Set(),
      keepBinding: true,
      fsAt,
      lockPlan: planWriteLockAt(repo.root),
      // The plan on disk the draft was edited from: wave 1 as planOne wrote it.
      base: { ...draft, manifest: { wave: 1, role: 'implementation' } },
    });
    assert.equal(saved.ok, true, saved.message);
    assert.ok(interleaved !== undefined, 'the other writer ran in the window');
    assert.equal(interleaved.status, 1, String(interleaved.stderr));
    assert.match(String(interleaved.stderr), lockRefusal);
    const aggregate = JSON.parse(read('.claude/filescopes/wave-1.scopes.json')) as Array<{ id: string }>;
    assert.deepEqual(aggregate.map((record) => record.id).sort(), ['alice', 'bob', 'dave'], 'the Save wrote what it checked; the other writer wrote nothing it would overwrite');
  });
});
