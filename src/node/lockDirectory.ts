// A lock that is a directory (proper-lockfile's kind), taken synchronously with a time budget. Two locks use
// it: a session's dispatch ledger (dispatchLedgerStore.ts) and a checkout's plan (planWriteLock.ts). Its
// holders all hold it through synchronous work, so proper-lockfile's refreshing of the lock's time never
// gets a turn: a lock is taken over once it is older than its stale time, which each lock sets above the
// longest its holders keep it. A lock may also name its holder (a file beside it), so that one whose holder
// is provably gone (killed with SIGKILL, which leaves no time to let go) is taken over at once.
import { lockSync } from 'proper-lockfile';
import { closeSync, constants, mkdirSync, openSync, readFileSync, readlinkSync, realpathSync, rmdirSync, statSync, unlinkSync, utimesSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { isProcessGone } from './processes';

const sleeper = new Int32Array(new SharedArrayBuffer(4));

// The calls proper-lockfile's synchronous mode makes, and nothing else: it copies the object it is given,
// and copying Node's whole `fs` module wakes its lazy parts (on the dispatch hook's path that is a measurable cost).
const lockFs = { mkdirSync, realpathSync, rmdirSync, statSync, utimesSync };

function sleep(ms: number): void {
  if (ms > 0) Atomics.wait(sleeper, 0, 0, ms);
}

function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null ? (error as { code?: string }).code : undefined;
}

/** A lock taken (`held`), or, past the budget or on an error, not taken, with why. */
export type LockDirectoryOutcome =
  | { readonly held: true; readonly waitedMs: number; release(): void }
  | { readonly held: false; readonly waitedMs: number; readonly problem: string; readonly busy: boolean };

export interface LockDirectoryOptions {
  /** How long to wait for a lock another process holds. */
  budgetMs: number;
  /** A lock whose time is older than this is taken over (its holder died). */
  staleMs: number;
  clock?: () => number;
  /**
   * Name the holder in `<lockPath>.holder` (its process, host and pid namespace), and take over at once a
   * lock whose named holder is a process of this host and namespace that no longer runs.
   */
  namesHolder?: boolean;
}

/**
 * Takes the lock directory `lockPath` (guarding `guarded`), retrying with a short random pause until the
 * budget has passed. Never throws. `busy` tells a lock another process held all along from any other
 * failure (a directory that cannot be made, for one).
 */
export function acquireLockDirectory(guarded: string, lockPath: string, options: LockDirectoryOptions): LockDirectoryOutcome {
  const clock = options.clock ?? Date.now;
  const started = clock();
  for (;;) {
    try {
      const release = lockSync(guarded, {
        lockfilePath: lockPath,
        realpath: false,
        fs: lockFs,
        stale: options.staleMs,
        update: Math.min(1000, Math.floor(options.staleMs / 2)),
        // A compromised lock (its directory removed by hand, or taken over as stale) only ends this holder's claim on it.
        onCompromised: () => undefined,
      });
      if (options.namesHolder === true) nameHolder(lockPath);
      let released = false;
      return {
        held: true,
        waitedMs: clock() - started,
        release() {
          if (released) return;
          released = true;
          if (options.namesHolder === true) forgetHolder(lockPath);
          try {
            release();
          } catch {
            // Already gone (taken over as stale, or removed): nothing left to release.
          }
        },
      };
    } catch (error) {
      if (errorCode(error) !== 'ELOCKED') return { held: false, waitedMs: clock() - started, problem: (error as Error).message, busy: false };
      // A live lock's time is at most now, so one dated past now plus the stale time was set so by hand
      // (`touch -d tomorrow`): it would never go stale (proper-lockfile compares with the past only), and
      // every taker would wait out its budget; it is taken over (found by red-team review, 2026-12-06).
      if (takeOverFutureLock(lockPath, clock(), options.staleMs)) continue;
      if (options.namesHolder === true && takeOverFromGoneHolder(lockPath)) continue;
    }
    const remaining = options.budgetMs - (clock() - started);
    if (remaining <= 0) return { held: false, waitedMs: clock() - started, problem: 'the lock is held by another process', busy: true };
    sleep(Math.min(remaining, 5 + Math.floor(Math.random() * 20)));
  }
}

/** Removes the lock directory at `lockPath` when its time lies further ahead than `staleMs`; whether it did. */
function takeOverFutureLock(lockPath: string, now: number, staleMs: number): boolean {
  try {
    if (statSync(lockPath).mtimeMs - now <= staleMs) return false;
    rmdirSync(lockPath);
    return true;
  } catch {
    return false;
  }
}

/** When the lock directory at `lockPath` was last taken or refreshed, in ms since the epoch; undefined when there is none. */
export function lockTakenAt(lockPath: string): number | undefined {
  try {
    return statSync(lockPath).mtimeMs;
  } catch {
    return undefined;
  }
}

/** Who holds a lock: written beside it by its holder, read by whoever waits for it. */
interface LockHolder {
  pid: number;
  host: string;
  /** The pid namespace (`/proc/self/ns/pid`), where there is one: a pid means nothing in another. */
  pidNamespace: string | null;
  /** The lock directory's time when this holder took it: a holder file left by an earlier lock never matches. */
  lockTime: number;
}

function holderPath(lockPath: string): string {
  return `${lockPath}.holder`;
}

function pidNamespace(): string | null {
  try {
    return readlinkSync('/proc/self/ns/pid');
  } catch {
    return null;
  }
}

/** Writes who holds the lock just taken at `lockPath`. Best effort: without it, a dead holder's lock waits for its stale time. */
function nameHolder(lockPath: string): void {
  try {
    const holder: LockHolder = { pid: process.pid, host: hostname(), pidNamespace: pidNamespace(), lockTime: statSync(lockPath).mtimeMs };
    // Never through a symbolic link planted in its place.
    const fd = openSync(holderPath(lockPath), constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | (constants.O_NOFOLLOW ?? 0), 0o644);
    try {
      writeSync(fd, JSON.stringify(holder));
    } finally {
      closeSync(fd);
    }
  } catch {
    // Not named: the lock is taken over only once it is stale.
  }
}

function forgetHolder(lockPath: string): void {
  try {
    unlinkSync(holderPath(lockPath));
  } catch {
    // Already gone, or never written.
  }
}

/** Reads the holder file beside `lockPath`; undefined when there is none or it is not one. */
function readHolder(lockPath: string): LockHolder | undefined {
  try {
    const fd = openSync(holderPath(lockPath), constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
    let text: string;
    try {
      text = readFileSync(fd, 'utf8');
    } finally {
      closeSync(fd);
    }
    const parsed = JSON.parse(text) as Partial<LockHolder>;
    if (typeof parsed.pid !== 'number' || !Number.isSafeInteger(parsed.pid) || parsed.pid <= 0) return undefined;
    if (typeof parsed.host !== 'string' || typeof parsed.lockTime !== 'number') return undefined;
    if (parsed.pidNamespace !== null && typeof parsed.pidNamespace !== 'string') return undefined;
    return { pid: parsed.pid, host: parsed.host, pidNamespace: parsed.pidNamespace, lockTime: parsed.lockTime };
  } catch {
    return undefined;
  }
}

/**
 * Removes the lock at `lockPath` when the holder it names is provably gone: a process of this host and pid
 * namespace that no longer runs, named for this very lock (its time unchanged since). Anything less certain
 * (no holder file, another host, a container's pid, a lock refreshed since) leaves it to its stale time. The
 * lock is looked at again just before it is removed, so a lock taken meanwhile by another waiter is left to
 * it; what remains between that look and the removal is the window proper-lockfile's own stale takeover has.
 */
function takeOverFromGoneHolder(lockPath: string): boolean {
  try {
    const holder = readHolder(lockPath);
    if (holder === undefined || holder.host !== hostname() || holder.pidNamespace !== pidNamespace() || holder.pid === process.pid) return false;
    if (statSync(lockPath).mtimeMs !== holder.lockTime || !isProcessGone(holder.pid)) return false;
    if (statSync(lockPath).mtimeMs !== holder.lockTime) return false;
    rmdirSync(lockPath);
    return true;
  } catch {
    return false;
  }
}
