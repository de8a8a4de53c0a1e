// The plan worker (src/extension/planWorker.ts) in the real extension host: a worker thread that stops in
// the middle of a save, terminated by dispose() or dead of an error, leaves the checkout's plan-write lock
// it held, and its process (this host) runs on, so no other writer could tell the lock was abandoned
// before it went stale (src/node/planWriteLock.ts). The worker lets go of it.
import * as assert from 'node:assert/strict';
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PlanWorker } from '../../src/extension/planWorker';
import { planWriteLockAt } from '../../src/node/planWriteLock';
import { until } from './hostSupport';

/**
 * A stand-in for dist/planWorker.js whose save takes the plan-write lock as the real save's does (a lock
 * directory naming its holder: this process, this worker thread; the shape is src/node/planWriteLock.ts's)
 * and then never finishes (`hang`) or dies of an error (`throw`).
 */
function saveThatStops(directory: string, how: 'hang' | 'throw'): string {
  const bundle = join(directory, `save-that-${how}s.cjs`);
  writeFileSync(
    bundle,
    [
      "const { mkdirSync, readlinkSync, writeFileSync } = require('node:fs');",
      "const { hostname } = require('node:os');",
      "const { join } = require('node:path');",
      "const { parentPort, threadId } = require('node:worker_threads');",
      "const pidNamespace = () => { try { return readlinkSync('/proc/self/ns/pid'); } catch { return null; } };",
      "parentPort.on('message', ({ params }) => {",
      "  const lock = join(params.repoRoot, '.orchestrator', 'plan-write.lock');",
      "  mkdirSync(lock, { recursive: true });",
      "  writeFileSync(join(lock, 'holder.json'), JSON.stringify({ pid: process.pid, thread: threadId, host: hostname(), pidNamespace: pidNamespace(), at: Date.now(), token: 'stand-in' }));",
      how === 'hang' ? '  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);' : "  throw new Error('the save died');",
      '});',
      '',
    ].join('\n'),
  );
  return bundle;
}

describe('plan worker: a worker stopped in the middle of a save', function () {
  this.timeout(30_000);
  let root: string;
  let scripts: string;
  before(() => {
    scripts = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-plan-worker-scripts-')));
  });
  after(() => rmSync(scripts, { recursive: true, force: true }));
  beforeEach(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-plan-worker-')));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const lockPath = () => join(root, '.orchestrator', 'plan-write.lock');
  const save = (worker: PlanWorker) => worker.run('save', { repoRoot: root, draft: { waves: [] }, ignoreCase: false, files: [], stateDirName: '.claude' });

  for (const how of ['hang', 'throw'] as const) {
    it(how === 'hang' ? 'terminated by dispose() while it holds the lock: the lock is let go' : 'dead of an error while it holds the lock: the lock is let go, and the save fails', async () => {
      const reports: string[] = [];
      const worker = new PlanWorker(saveThatStops(scripts, how), (message) => reports.push(message));
      const saving = save(worker);
      const outcome = saving.then(() => 'saved', (error: Error) => error.message);
      if (how === 'hang') {
        await until('the worker to take the lock', () => existsSync(join(lockPath(), 'holder.json')));
        assert.equal(planWriteLockAt(root, 0)().held, false, 'while the worker runs, its lock is its own');
        worker.dispose();
      }
      assert.match(await outcome, how === 'hang' ? /the plan worker was stopped/ : /the plan worker stopped|the save died/);
      await until('the lock to be let go', () => !existsSync(lockPath()));
      const next = planWriteLockAt(root, 0)();
      assert.equal(next.held, true, 'the next writer takes it at once');
      if (next.held) next.release();
      await until('the report', () => reports.some((line) => line.includes(`the plan worker stopped in the middle of a save into ${root}; its plan-write lock was let go`)));
      worker.dispose();
    });
  }
});
