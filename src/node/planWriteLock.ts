// The plan-write lock of a checkout (src/planner/plan/planWriteLock.ts says why there is one):
// `.orchestrator/plan-write.lock` under the checkout's root, a directory made with mkdir (atomic: one maker
// wins), holding `holder.json`, which names the process that made it. One lock per checkout, whichever
// state directory a writer writes: writes of a plan take a fraction of a second, so writers of two state
// directories rarely wait on each other, and a writer never has to know which state directories another reads.
//
// Not proper-lockfile (which the dispatch ledger's lock uses): a plan lock must be judged by whether its
// holder still runs, not by a time that only an event loop refreshes (every writer holds it through
// synchronous work, and a person may suspend one for minutes), and it must be let go only by its own holder.
// proper-lockfile dates a lock to the second, has no notion of a holder, and removes the lock on release
// whoever holds it by then.
//
// The rules:
// - A lock whose holder is a process of this host and pid namespace, on its main thread, is the holder's for
//   as long as that process runs, however long that is; once no such process runs (killed with SIGKILL, say,
//   which leaves no time to let go), it is taken over at once.
// - Any other lock (one made in a worker thread, such as the planner's Save, whose process outlives it; one of
//   another host or container; one whose holder file is missing or unreadable) is taken over once it is
//   PLAN_WRITE_LOCK_STALE_MS old.
// - A takeover first renames the lock directory aside, which only one taker can do, and removes it only if it
//   is still the lock it judged (the same holder token); a release removes the lock only if it is still its own.
import { randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readlinkSync, readSync, renameSync, rmdirSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, relative, sep } from 'node:path';
import { threadId } from 'node:worker_threads';
import { ensureRealDirectory } from './eventLog';
import { isProcessGone } from './processes';
import type { PlanWriteLock, TakePlanWriteLock } from '../planner/plan/planWriteLock';
import { ORCHESTRATOR_DIR_NAME } from '../planner/plan/stateDirNames';

/**
 * How long a writer waits for the lock another holds. A plan write takes tens of milliseconds to a second
 * (its proof), so a writer that waits this long is waiting on one that is stuck, suspended or dead.
 */
export const PLAN_WRITE_LOCK_BUDGET_MS = 5000;

/**
 * A lock whose holder cannot be checked (see the rules above) is taken over once it is this old: well above the
 * longest save (a whole draft's proofs).
 */
export const PLAN_WRITE_LOCK_STALE_MS = 30_000;

export const PLAN_WRITE_LOCK_FILE = `${ORCHESTRATOR_DIR_NAME}/plan-write.lock`;

/** The file in the lock directory that names its holder. */
const HOLDER_FILE = 'holder.json';

/** The holder file is a few hundred bytes; anything larger is not one. */
const MAX_HOLDER_BYTES = 4096;

const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;

/** Who holds a lock, as its holder wrote it into the lock directory. */
interface LockHolder {
  pid: number;
  /** The holder's thread (0: the process's main thread): a worker thread may end while its process runs on. */
  thread: number;
  host: string;
  /** The pid namespace (`/proc/self/ns/pid`), where there is one: a pid means nothing in another. */
  pidNamespace: string | null;
  /** When the lock was taken (ms since the epoch). */
  at: number;
  /** This taking of the lock, and no other. */
  token: string;
}

/** The lock of the checkout at `root`, taken when asked for (TakePlanWriteLock). */
export function planWriteLockAt(root: string, budgetMs: number = PLAN_WRITE_LOCK_BUDGET_MS): TakePlanWriteLock {
  return () => takePlanWriteLock(root, budgetMs);
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

function sleep(ms: number): void {
  if (ms > 0) Atomics.wait(sleeper, 0, 0, ms);
}

function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null ? (error as { code?: string }).code : undefined;
}

function pidNamespace(): string | null {
  try {
    return readlinkSync('/proc/self/ns/pid');
  } catch {
    return null;
  }
}

function takePlanWriteLock(root: string, budgetMs: number): PlanWriteLock {
  const lockPath = join(root, ...PLAN_WRITE_LOCK_FILE.split('/'));
  const shown = relative(root, lockPath).split(sep).join('/');
  const cannot = (why: string): PlanWriteLock => ({ held: false, problem: `the plan-write lock ${shown} cannot be taken (${why}); nothing was written` });
  try {
    // Refuses an `.orchestrator` that is a symbolic link: the lock is never made through one.
    ensureRealDirectory(root, ORCHESTRATOR_DIR_NAME);
  } catch (error) {
    return cannot((error as Error).message);
  }
  const me: LockHolder = { pid: process.pid, thread: threadId, host: hostname(), pidNamespace: pidNamespace(), at: 0, token: randomBytes(12).toString('hex') };
  const started = Date.now();
  let last: LockHolder | undefined;
  for (;;) {
    try {
      // mkdir never follows a link at its last component: a link planted there is EEXIST, and judged below.
      mkdirSync(lockPath);
      const named = nameHolder(lockPath, { ...me, at: Date.now() });
      return { held: true, release: () => (named ? releaseIfOwn(lockPath, me.token) : releaseUnnamed(lockPath)) };
    } catch (error) {
      if (errorCode(error) !== 'EEXIST') return cannot((error as Error).message);
    }
    const judged = judgeLock(lockPath, Date.now());
    if (judged.verdict === 'take-over') {
      takeOver(lockPath, judged.holder?.token);
      continue;
    }
    last = judged.holder;
    const remaining = budgetMs - (Date.now() - started);
    if (remaining <= 0) break;
    sleep(Math.min(remaining, 5 + Math.floor(Math.random() * 20)));
  }
  const who = last === undefined ? '' : `, held by process ${last.pid}${last.host === me.host ? '' : ` on ${last.host}`} since ${new Date(last.at).toISOString()}`;
  return {
    held: false,
    problem:
      `another Wave Scope command (plan write, materialize, amend, sync or the planner's Save) is writing this checkout's plan: it holds ${shown}${who}, and it did not let go within ${budgetMs / 1000} s. ` +
      `Nothing was written; run this again once it has finished. A lock whose holder no longer runs is taken over at once, one made elsewhere (another machine, a container, a worker thread) once it is ${PLAN_WRITE_LOCK_STALE_MS / 1000} s old; ` +
      `if no Wave Scope command is running here, removing the directory ${shown} frees it at once`,
  };
}

/**
 * Writes the holder file into the lock directory just made. Created, never opened if it exists (a name planted
 * there between the mkdir and this, a link or a second name of another file, is never written through): then
 * the lock names no holder, and is taken over only once it is stale.
 */
function nameHolder(lockPath: string, holder: LockHolder): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(join(lockPath, HOLDER_FILE), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | O_NOFOLLOW, 0o644);
    writeSync(fd, JSON.stringify(holder));
    return true;
  } catch {
    // Unnamed: stale after PLAN_WRITE_LOCK_STALE_MS.
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * The holder file of the lock at `lockPath`: read only when it is a regular file with one name and of a
 * holder file's size (opened without following a link and without waiting on a FIFO); undefined otherwise.
 */
function readHolder(lockPath: string): LockHolder | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(join(lockPath, HOLDER_FILE), constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
    const stats = fstatSync(fd);
    if (!stats.isFile() || stats.nlink !== 1 || stats.size > MAX_HOLDER_BYTES) return undefined;
    const buffer = Buffer.alloc(MAX_HOLDER_BYTES + 1);
    const length = readSync(fd, buffer, 0, buffer.length, 0);
    const parsed = JSON.parse(buffer.subarray(0, length).toString('utf8')) as Partial<LockHolder>;
    if (typeof parsed.pid !== 'number' || !Number.isSafeInteger(parsed.pid) || parsed.pid <= 0) return undefined;
    if (typeof parsed.thread !== 'number' || typeof parsed.host !== 'string' || typeof parsed.at !== 'number' || typeof parsed.token !== 'string') return undefined;
    if (parsed.pidNamespace !== null && typeof parsed.pidNamespace !== 'string') return undefined;
    return { pid: parsed.pid, thread: parsed.thread, host: parsed.host, pidNamespace: parsed.pidNamespace, at: parsed.at, token: parsed.token };
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Whether the lock at `lockPath` is to be waited for or taken over, by the rules at the top of this file. */
function judgeLock(lockPath: string, now: number): { verdict: 'wait' | 'take-over'; holder: LockHolder | undefined } {
  let entry;
  try {
    entry = lstatSync(lockPath);
  } catch {
    // Gone meanwhile: the next mkdir decides.
    return { verdict: 'wait', holder: undefined };
  }
  // Only a real directory is looked into: a link planted in the lock's place is judged by its own time.
  const holder = entry.isDirectory() ? readHolder(lockPath) : undefined;
  if (holder !== undefined && holder.thread === 0 && holder.host === hostname() && holder.pidNamespace === pidNamespace()) {
    return { verdict: isProcessGone(holder.pid) ? 'take-over' : 'wait', holder };
  }
  const takenAt = holder?.at ?? entry.mtimeMs;
  // A time further ahead than the stale time was set so by hand (or by a clock far off): it would never go stale.
  const age = now - takenAt;
  return { verdict: age > PLAN_WRITE_LOCK_STALE_MS || age < -PLAN_WRITE_LOCK_STALE_MS ? 'take-over' : 'wait', holder };
}

/**
 * Takes the lock at `lockPath` out of the way: renamed aside (one taker wins), then removed if it is still the
 * lock that was judged (holder `token`). One taken again meanwhile by another is put back for its holder.
 * What is not removed (a directory with more in it than a holder file) stays aside, renamed, never deleted.
 */
function takeOver(lockPath: string, token: string | undefined): void {
  const aside = `${lockPath}.taken-over.${process.pid}.${randomBytes(6).toString('hex')}`;
  try {
    renameSync(lockPath, aside);
  } catch {
    // Another taker was first, or its holder let go: the next mkdir decides.
    return;
  }
  try {
    // Anything but a real directory (a link or a file planted in the lock's place) is left aside as it is, never looked into.
    if (!lstatSync(aside).isDirectory()) return;
  } catch {
    return;
  }
  if (readHolder(aside)?.token !== token) {
    try {
      renameSync(aside, lockPath);
    } catch {
      // A new lock stands there already; the one moved aside is released by its holder as no longer its own.
    }
    return;
  }
  try {
    unlinkSync(join(aside, HOLDER_FILE));
  } catch {
    // No holder file (a lock that named none).
  }
  try {
    rmdirSync(aside);
  } catch {
    // Not a lock directory of ours (more in it, or not a directory): left aside as it is.
  }
}

/** Lets go of a lock its holder could not name: removed only while nothing is in it (a name planted there keeps it until stale). */
function releaseUnnamed(lockPath: string): void {
  try {
    rmdirSync(lockPath);
  } catch {
    // Gone, or not empty: left to go stale.
  }
}

/**
 * Lets go of the lock of the checkout at `root` that worker thread `thread` of this process held when it
 * stopped (terminated, or dead of an error) in the middle of a write: its process runs on, so no other
 * writer could tell the lock was abandoned before it went stale. Whether there was such a lock.
 */
export function releaseLockOfStoppedThread(root: string, thread: number): boolean {
  const lockPath = join(root, ...PLAN_WRITE_LOCK_FILE.split('/'));
  const holder = readHolder(lockPath);
  if (holder === undefined || holder.pid !== process.pid || holder.thread !== thread || holder.thread === 0) return false;
  releaseIfOwn(lockPath, holder.token);
  return true;
}

/** Lets go of the lock at `lockPath` if it is still the one taken with `token` (not taken over since). */
function releaseIfOwn(lockPath: string, token: string): void {
  if (readHolder(lockPath)?.token !== token) return;
  try {
    unlinkSync(join(lockPath, HOLDER_FILE));
    rmdirSync(lockPath);
  } catch {
    // Already gone.
  }
}
