// A built-CLI run that meets the plan-write lock held by the test: the lock is taken in this process, the
// command started, and once it has come as far as the lock (lockAttemptProbe.cjs tells, so no fixed sleep
// is needed) the test's own change is made, as another writer holding the lock would, and the lock let go.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { planWriteLockAt } from '../../src/node/planWriteLock';
import { cleanEnv, runBuiltCliAsync } from './builtCli';
import type { CliRun } from './builtCli';

const probePreload = join(__dirname, 'lockAttemptProbe.cjs');

/** Runs `args` in `root` (input on stdin) while holding its lock; `meanwhile` runs once the command waits for it. */
export async function runWhileLockHeld(root: string, args: string[], input: string, meanwhile: () => void): Promise<CliRun> {
  const probeDir = mkdtempSync(join(tmpdir(), 'wave-scope-lock-probe-'));
  const probe = join(probeDir, 'attempts.log');
  writeFileSync(probe, '');
  const lock = planWriteLockAt(root, 0)();
  assert.equal(lock.held, true, 'the test holds the lock');
  try {
    const running = runBuiltCliAsync(args, { cwd: root, input, env: cleanEnv({ NODE_OPTIONS: `--require ${probePreload}`, LOCK_PROBE_LOG: probe }) });
    for (const deadline = Date.now() + 20_000; !readFileSync(probe, 'utf8').includes('attempt'); ) {
      assert.ok(Date.now() < deadline, `wave-scope ${args[0] ?? ''} came as far as the lock`);
      await new Promise((wake) => setTimeout(wake, 10));
    }
    meanwhile();
    if (lock.held) lock.release();
    return await running;
  } finally {
    if (lock.held) lock.release();
    rmSync(probeDir, { recursive: true, force: true });
  }
}
