// The plan-write lock of a checkout (src/planner/plan/planWriteLock.ts says why there is one):
// `.orchestrator/plan-write.lock` under the checkout's root, a directory holding `holder.json`, which names
// the process that holds it. One lock per checkout, whichever state directory a writer writes: writes of a
// plan take a fraction of a second, so writers of two state directories rarely wait on each other, and a
// writer never has to know which state directories another one reads.
//
// Not proper-lockfile (which the dispatch ledger's lock uses): a plan lock must be judged by whether its
// holder still runs, not by a time that only an event loop refreshes (every writer holds it through
// synchronous work, and a person may suspend one for minutes), and it must be let go only by its holder.
// proper-lockfile dates a lock to the second, has no notion of a holder, and removes the lock on release
// whoever holds it by then.
//
// How it holds:
// - A lock is made whole under a name of its own (`plan-write.lock.new.<token>`: the directory and its
//   holder file) and then renamed into place. A rename onto a lock that stands there fails, so there is one
//   holder at a time, and no lock is ever seen without its holder.
// - A lock whose holder's process provably no longer runs (this host, this pid namespace, this boot; the pid
//   gone, or taken by a process started later) is taken over at once: killed with SIGKILL or Ctrl-C, a writer
//   leaves its lock behind. A lock whose holder's process runs is waited for as long as it runs if it was
//   taken on the process's main thread (a writer suspended with Ctrl-Z keeps it); one taken in a worker
//   thread (the planner's Save) is taken over once it is PLAN_WRITE_LOCK_STALE_MS old, as is any lock whose
//   holder cannot be checked (another host, another container, no readable holder file).
// - A takeover is made by one taker at a time, under `plan-write.lock.taking-over` (a directory held for
//   the few system calls it takes), and only if what stands at the lock's place is still exactly what was
//   judged; a release removes the lock only if it is still its holder's (the same token).
import { randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readFileSync, readlinkSync, readSync, renameSync, rmdirSync, unlinkSync, writeSync } from 'node:fs';
import type { Stats } from 'node:fs';
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
 * A lock whose holder cannot be checked (see above) is taken over once it is this old: well above the
 * longest save (a whole draft's proofs).
 */
export const PLAN_WRITE_LOCK_STALE_MS = 30_000;

/** A takeover's own lock is held for a few system calls; one older than this was left by a taker that died. */
const TAKEOVER_STALE_MS = 5000;

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
  /** The boot (`/proc/sys/kernel/random/boot_id`), where known: no process of an earlier boot runs. */
  boot: string | null;
  /** When the holder's process started, in clock ticks since boot (`/proc/<pid>/stat`), where known: a pid taken again has another. */
  started: number | null;
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

function bootId(): string | null {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || null;
  } catch {
    return null;
  }
}

/** When process `pid` started, in clock ticks since boot (field 22 of `/proc/<pid>/stat`); null where unknown. */
function processStart(pid: number | 'self'): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold anything, spaces and ')' too: fields are counted after its last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const started = Number(fields[19]);
    return Number.isSafeInteger(started) ? started : null;
  } catch {
    return null;
  }
}

let identity: Omit<LockHolder, 'at' | 'token'> | undefined;

/** This process and thread as a holder names them: the same for every lock it takes, so read once. */
function ownIdentity(): Omit<LockHolder, 'at' | 'token'> {
  identity ??= { pid: process.pid, thread: threadId, host: hostname(), pidNamespace: pidNamespace(), boot: bootId(), started: processStart('self') };
  return identity;
}

function lockPathOf(root: string): string {
  return join(root, ...PLAN_WRITE_LOCK_FILE.split('/'));
}

function takePlanWriteLock(root: string, budgetMs: number): PlanWriteLock {
  const lockPath = lockPathOf(root);
  const shown = relative(root, lockPath).split(sep).join('/');
  const cannot = (why: string): PlanWriteLock => ({ held: false, problem: `the plan-write lock ${shown} cannot be taken (${why}); nothing was written` });
  try {
    // Refuses an `.orchestrator` that is a symbolic link: the lock is never made through one.
    ensureRealDirectory(root, ORCHESTRATOR_DIR_NAME);
  } catch (error) {
    return cannot((error as Error).message);
  }
  const me = ownIdentity();
  const started = Date.now();
  let last: LockHolder | undefined;
  let quickTurns = 0;
  for (;;) {
    const token = randomBytes(12).toString('hex');
    const placed = placeLock(lockPath, { ...me, at: Date.now(), token });
    if (placed === 'held') return { held: true, release: () => releaseIfOwn(lockPath, token) };
    if (placed !== 'busy') return cannot(placed.error);
    const judged = judgeLock(lockPath, Date.now(), me);
    let again = judged.verdict === 'gone';
    if (judged.verdict === 'take-over') {
      const outcome = takeOver(lockPath, judged);
      if (typeof outcome === 'object') return cannot(outcome.error);
      again = outcome === 'taken-over';
    }
    last = judged.holder ?? last;
    // Once the place was freed, at once (a few times in a row at most: a place that keeps changing is waited on).
    if (again && quickTurns++ < 16) continue;
    const remaining = budgetMs - (Date.now() - started);
    if (remaining <= 0) break;
    sleep(Math.min(remaining, 5 + Math.floor(Math.random() * 20)));
  }
  const who = last === undefined ? '' : `, held by process ${last.pid}${last.host === me.host ? '' : ` on ${last.host}`} since ${new Date(last.at).toISOString()}`;
  return {
    held: false,
    problem:
      `another Wave Scope command (plan write, materialize, amend, sync or the planner's Save) is writing this checkout's plan: it holds ${shown}${who}, and it did not let go within ${budgetMs / 1000} s. ` +
      `Nothing was written; run this again once it has finished. A lock whose holder's process no longer runs is taken over at once; one taken elsewhere (another machine, a container) or in a worker thread, once it is ${PLAN_WRITE_LOCK_STALE_MS / 1000} s old; ` +
      `if no Wave Scope command is running here, removing the directory ${shown} frees it at once`,
  };
}

/**
 * Makes the lock whole under a name of its own, its holder file created in it (never opened where a name
 * stands), and renames it into place: `held`, or `busy` when a lock (or anything but an empty directory)
 * stands there. What was made is removed when it is not placed.
 */
function placeLock(lockPath: string, holder: LockHolder): 'held' | 'busy' | { error: string } {
  const made = `${lockPath}.new.${holder.token}`;
  try {
    mkdirSync(made);
  } catch (error) {
    return { error: (error as Error).message };
  }
  let fd: number | undefined;
  try {
    fd = openSync(join(made, HOLDER_FILE), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | O_NOFOLLOW, 0o644);
    writeSync(fd, JSON.stringify(holder));
  } catch (error) {
    removeLockDirectory(made);
    return { error: (error as Error).message };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  try {
    // Onto nothing, or onto an empty directory (a lock being taken over, between its holder file's removal
    // and its own): never onto a lock that stands, a link or a file.
    renameSync(made, lockPath);
    return 'held';
  } catch (error) {
    removeLockDirectory(made);
    const code = errorCode(error);
    return code === 'ENOTEMPTY' || code === 'EEXIST' || code === 'ENOTDIR' || code === 'EISDIR' ? 'busy' : { error: (error as Error).message };
  }
}

/** Removes a lock directory of ours: its holder file, then the directory. Quietly: what stays, stays. */
function removeLockDirectory(path: string): void {
  try {
    unlinkSync(join(path, HOLDER_FILE));
  } catch {
    // None there.
  }
  try {
    rmdirSync(path);
  } catch {
    // Gone, or not empty.
  }
}

/**
 * The holder file of the lock directory `lockPath`: read only when it is a regular file with one name and of
 * a holder file's size (opened without following a link and without waiting on a FIFO); undefined otherwise.
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
    const orNull = <T>(value: T | null | undefined, kind: 'string' | 'number'): T | null | false => (value === undefined || value === null ? null : typeof value === kind ? value : false);
    const [namespace, boot, started] = [orNull(parsed.pidNamespace, 'string'), orNull(parsed.boot, 'string'), orNull(parsed.started, 'number')];
    if (namespace === false || boot === false || started === false) return undefined;
    return { pid: parsed.pid, thread: parsed.thread, host: parsed.host, pidNamespace: namespace, boot, started, at: parsed.at, token: parsed.token };
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** What stood at the lock's place when it was judged, and the verdict. */
interface Judged {
  verdict: 'wait' | 'take-over' | 'gone';
  holder: LockHolder | undefined;
  entry: Stats | undefined;
}

/**
 * Whether the holder's process provably no longer runs: it ran on this host, in this pid namespace and this
 * boot, and its pid is free or belongs to a process started at another time. Undefined when that cannot be
 * told (another host or container).
 */
function holderIsGone(holder: LockHolder, me: Omit<LockHolder, 'at' | 'token'>): boolean | undefined {
  if (holder.host !== me.host || holder.pidNamespace !== me.pidNamespace) return undefined;
  if (holder.boot !== null && me.boot !== null && holder.boot !== me.boot) return true;
  if (isProcessGone(holder.pid)) return true;
  if (holder.started === null) return false;
  const now = processStart(holder.pid);
  return now !== null && now !== holder.started;
}

/** Whether the lock at `lockPath` is to be waited for or taken over, by the rules at the top of this file. */
function judgeLock(lockPath: string, now: number, me: Omit<LockHolder, 'at' | 'token'>): Judged {
  let entry: Stats;
  try {
    entry = lstatSync(lockPath);
  } catch {
    // Gone meanwhile: the next placing decides.
    return { verdict: 'gone', holder: undefined, entry: undefined };
  }
  // Only a real directory is looked into: a link planted in the lock's place is judged by its own time.
  const holder = entry.isDirectory() ? readHolder(lockPath) : undefined;
  if (holder !== undefined) {
    const gone = holderIsGone(holder, me);
    if (gone === true) return { verdict: 'take-over', holder, entry };
    if (gone === false && holder.thread === 0) return { verdict: 'wait', holder, entry };
  }
  const takenAt = holder?.at ?? entry.mtimeMs;
  // A time further ahead than the stale time was set so by hand (or by a clock far off): it would never go stale.
  const age = now - takenAt;
  return { verdict: age > PLAN_WRITE_LOCK_STALE_MS || age < -PLAN_WRITE_LOCK_STALE_MS ? 'take-over' : 'wait', holder, entry };
}

/** The same entry, unchanged: the same file, the same time, the same holder token (or still none readable). */
function stillJudged(lockPath: string, judged: Judged): boolean {
  let entry: Stats;
  try {
    entry = lstatSync(lockPath);
  } catch {
    return false;
  }
  if (judged.entry === undefined || entry.ino !== judged.entry.ino || entry.dev !== judged.entry.dev || entry.mtimeMs !== judged.entry.mtimeMs) return false;
  if (!entry.isDirectory()) return true;
  return readHolder(lockPath)?.token === judged.holder?.token;
}

/**
 * Takes the judged lock out of the way, under the takeover's own lock, if what stands at the lock's place is
 * still exactly what was judged: `taken-over`; `not-now` when another taker is at it or the lock changed
 * (the caller judges again); an error the file system gave (a read-only `.orchestrator`, say), which ends the
 * wait. A lock directory is removed (its holder file first, then itself); anything else found there (a link,
 * a file, a directory with more in it) is moved aside, renamed, never followed or deleted.
 */
function takeOver(lockPath: string, judged: Judged): 'taken-over' | 'not-now' | { error: string } {
  const guard = `${lockPath}.taking-over`;
  try {
    mkdirSync(guard);
  } catch (error) {
    if (errorCode(error) !== 'EEXIST') return { error: (error as Error).message };
    clearDeadTakeover(guard);
    return 'not-now';
  }
  try {
    if (!stillJudged(lockPath, judged)) return 'not-now';
    if (judged.entry?.isDirectory() === true) {
      try {
        unlinkSync(join(lockPath, HOLDER_FILE));
      } catch {
        // None readable there (a lock that named no holder).
      }
      try {
        rmdirSync(lockPath);
        return 'taken-over';
      } catch (error) {
        const code = errorCode(error);
        if (code === 'ENOENT') return 'taken-over';
        if (code !== 'ENOTEMPTY' && code !== 'EEXIST') return { error: (error as Error).message };
        // Not empty: either a lock placed onto it just now (its holder file in it: left to its holder) or
        // more than a holder file in the old one (no place can be placed onto that: moved aside below).
        const now = lstatSync(lockPath);
        if (now.ino !== judged.entry.ino || readHolder(lockPath) !== undefined) return 'not-now';
      }
    }
    renameSync(lockPath, `${lockPath}.taken-over.${process.pid}.${randomBytes(6).toString('hex')}`);
    return 'taken-over';
  } catch (error) {
    return errorCode(error) === 'ENOENT' ? 'not-now' : { error: (error as Error).message };
  } finally {
    try {
      rmdirSync(guard);
    } catch {
      // Cleared as a dead taker's by another: nothing left to let go.
    }
  }
}

/**
 * Removes a takeover's lock left by a taker that died in it (older than TAKEOVER_STALE_MS, or dated ahead by
 * more). Looked at twice, so that one taken again meanwhile is left; between the second look and the removal
 * a window of a few microseconds remains, in which a taker that is itself about to die would have to be.
 */
function clearDeadTakeover(guard: string): void {
  try {
    const first = lstatSync(guard);
    const age = Date.now() - first.mtimeMs;
    if (Math.abs(age) <= TAKEOVER_STALE_MS) return;
    const second = lstatSync(guard);
    if (second.ino !== first.ino || second.mtimeMs !== first.mtimeMs) return;
    rmdirSync(guard);
  } catch {
    // Gone, or not ours to remove: the next turn looks again.
  }
}

/**
 * Lets go of the lock of the checkout at `root` that worker thread `thread` of this process held when it
 * stopped (terminated, or dead of an error) in the middle of a write: its process runs on, so no other
 * writer could tell the lock was abandoned before it went stale. Whether there was such a lock.
 */
export function releaseLockOfStoppedThread(root: string, thread: number): boolean {
  const lockPath = lockPathOf(root);
  const holder = readHolder(lockPath);
  if (holder === undefined || holder.pid !== process.pid || holder.thread !== thread || holder.thread === 0) return false;
  releaseIfOwn(lockPath, holder.token);
  return true;
}

/**
 * Lets go of the lock at `lockPath` if it is still the one taken with `token` (not taken over since). Once
 * its holder file is gone, a writer may place its lock onto the empty directory before it is removed: the
 * removal then fails, and that lock stands.
 */
function releaseIfOwn(lockPath: string, token: string): void {
  if (readHolder(lockPath)?.token !== token) return;
  removeLockDirectory(lockPath);
}
