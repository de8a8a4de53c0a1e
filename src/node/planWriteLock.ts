// The plan-write lock of a checkout (src/planner/plan/planWriteLock.ts says why there is one):
// `.orchestrator/plan-write.lock` under the checkout's root, a lock directory (lockDirectory.ts). One lock per
// checkout, whichever state directory a writer writes: writes of a plan take a fraction of a second, so
// writers of two state directories rarely wait on each other, and a writer never has to know which state
// directories another one reads.
import { join, relative, sep } from 'node:path';
import { ensureRealDirectory } from './eventLog';
import { acquireLockDirectory, lockTakenAt } from './lockDirectory';
import type { PlanWriteLock, TakePlanWriteLock } from '../planner/plan/planWriteLock';
import { ORCHESTRATOR_DIR_NAME } from '../planner/plan/stateDirNames';

/**
 * How long a writer waits for the lock another holds. A plan write takes tens of milliseconds to a second
 * (its proof), so a writer that waits this long is waiting on one that is stuck or dead.
 */
export const PLAN_WRITE_LOCK_BUDGET_MS = 5000;

/**
 * A lock older than this is taken over: its holder died. Every holder keeps it through synchronous work that
 * never refreshes it (lockDirectory.ts), so this is well above the longest save (a whole draft's proofs).
 */
export const PLAN_WRITE_LOCK_STALE_MS = 30_000;

export const PLAN_WRITE_LOCK_FILE = `${ORCHESTRATOR_DIR_NAME}/plan-write.lock`;

/** The lock of the checkout at `root`, taken when asked for (TakePlanWriteLock). */
export function planWriteLockAt(root: string, budgetMs: number = PLAN_WRITE_LOCK_BUDGET_MS): TakePlanWriteLock {
  return () => takePlanWriteLock(root, budgetMs);
}

function takePlanWriteLock(root: string, budgetMs: number): PlanWriteLock {
  const lockPath = join(root, ...PLAN_WRITE_LOCK_FILE.split('/'));
  const shown = relative(root, lockPath).split(sep).join('/');
  try {
    // Refuses an `.orchestrator` that is a symbolic link: the lock is never made through one.
    ensureRealDirectory(root, ORCHESTRATOR_DIR_NAME);
  } catch (error) {
    return { held: false, problem: `the plan-write lock ${shown} cannot be taken (${(error as Error).message}); nothing was written` };
  }
  const lock = acquireLockDirectory(join(root, ORCHESTRATOR_DIR_NAME, 'plan-write'), lockPath, { budgetMs, staleMs: PLAN_WRITE_LOCK_STALE_MS, namesHolder: true });
  if (lock.held) return { held: true, release: () => lock.release() };
  if (!lock.busy) return { held: false, problem: `the plan-write lock ${shown} cannot be taken (${lock.problem}); nothing was written` };
  const takenAt = lockTakenAt(lockPath);
  const age = takenAt === undefined ? '' : `, taken ${Math.max(0, Math.round((Date.now() - takenAt) / 1000))} s ago`;
  return {
    held: false,
    problem:
      `another Wave Scope command (plan write, materialize, amend, sync or the planner's Save) is writing this checkout's plan: it holds ${shown}${age}, and it did not let go within ${budgetMs / 1000} s. ` +
      `Nothing was written; run this again once it has finished. A lock whose holder died is taken over once it is ${PLAN_WRITE_LOCK_STALE_MS / 1000} s old; ` +
      `if no Wave Scope command is running here, removing the directory ${shown} frees it at once`,
  };
}
