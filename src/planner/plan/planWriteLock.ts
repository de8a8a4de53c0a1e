// One writer of a checkout's plan at a time. Every writer (plan write, materialize, amend, sync, the
// planner's Save) decides on what the state directory holds and then writes; two of them at once could each
// decide on what the other was about to replace, and the second would write over the first unseen. Each
// holds this lock from its first reading that a decision rests on to its last write. The lock itself is the
// Node side's (src/node/planWriteLock.ts); the chain only asks for it, so it stays free of the file system.

/** The lock taken, or why it could not be (nothing may then be written). */
export type PlanWriteLock = { readonly held: true; release(): void } | { readonly held: false; readonly problem: string };

/** Takes the plan-write lock (waiting for it a while when another writer holds it). */
export type TakePlanWriteLock = () => PlanWriteLock;

/** `write` run holding the lock `take` gives (and run as it is without one); the refusal when the lock could not be had. */
export function underPlanWriteLock<T>(take: TakePlanWriteLock | undefined, write: () => T): { ok: true; value: T } | { ok: false; problem: string } {
  if (take === undefined) return { ok: true, value: write() };
  const lock = take();
  if (!lock.held) return { ok: false, problem: lock.problem };
  try {
    return { ok: true, value: write() };
  } finally {
    lock.release();
  }
}
