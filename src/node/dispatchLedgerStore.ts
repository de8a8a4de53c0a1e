// The session ledger on disk: read, written atomically (temp file, fsync, rename), and changed only under
// its lock (`.orchestrator/wave-dispatch-scopes.<session>.lock`, a proper-lockfile directory). The lock
// has a time budget: a hook that cannot have it within the budget runs its cycle unlocked and says so
// (reference row 14: a lock problem must never deny a dispatch). An atomic write makes a write safe; only
// the lock makes the read-modify-write cycle safe. Where the ledger lives, and reading it, are in
// ledgerFile.ts (the write gate reads it too, and must not load the lock library to do so).
import { mkdirSync, realpathSync, rmdirSync, statSync, unlinkSync, utimesSync } from 'node:fs';
import type * as ProperLockfile from 'proper-lockfile';
import { dirname, resolve } from 'node:path';
import { writeFileAtomicSync } from './atomicFile';
import { ensureRealParents, isReplaceableFile } from './declarationFs';
import { ensureRealDirectory } from './eventLog';
import { MAX_CONTROL_FILE_BYTES } from './hookFileSystem';
import { sleepSync } from './processes';
import type { LedgerLocation } from './ledgerFile';
import { formatLedgerWithin } from '../planner/dispatch/sessionLedger';
import { ORCHESTRATOR_DIR_NAME } from '../planner/plan/stateDirNames';
import type { SessionLedger } from '../planner/dispatch/sessionLedger';

/**
 * How long a hook waits for the ledger lock before it runs unlocked. Longer than LOCK_STALE_MS on purpose:
 * a dead holder's lock is then taken over within the budget instead of sending every hook unlocked, and
 * sixteen hooks queued on a loaded machine still get their turn. A live holder keeps it a few milliseconds.
 */
export const LOCK_BUDGET_MS = 6000;

/** A lock older than this (its holder stopped refreshing it: it died) is taken over. */
export const LOCK_STALE_MS = 5000;

let loadedLockLibrary: typeof ProperLockfile | undefined;

/**
 * proper-lockfile, loaded the first time a ledger lock is taken, not with the module: loading it installs
 * signal handlers (signal-exit's, to remove its locks on the way out) that turn Ctrl-C into an event the
 * process handles only once its thread is free, so every command that merely bundles this module would
 * ignore Ctrl-C while it waits synchronously, for the plan-write lock among others (found by red-team review, 2026-12-06).
 */
function lockLibrary(): typeof ProperLockfile {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  loadedLockLibrary ??= require('proper-lockfile') as typeof ProperLockfile;
  return loadedLockLibrary;
}

// The calls proper-lockfile's synchronous mode makes, and nothing else: it copies the object it is given,
// and copying Node's whole `fs` module wakes its lazy parts (on the hook's path that is a measurable cost).
const lockFs = { mkdirSync, realpathSync, rmdirSync, statSync, utimesSync };

function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null ? (error as { code?: string }).code : undefined;
}

/** A held (or, past the budget, not held) lock. */
export interface LedgerLock {
  readonly held: boolean;
  readonly waitedMs: number;
  /** Why it is not held, when it is not. */
  readonly problem?: string;
  release(): void;
}

/**
 * Takes the ledger lock, retrying with a short random pause until `budgetMs` has passed. Never throws:
 * past the budget (or on any error) the lock is returned not held.
 */
export function acquireLedgerLock(location: LedgerLocation, budgetMs = LOCK_BUDGET_MS, clock: () => number = Date.now): LedgerLock {
  const started = clock();
  let problem = 'the lock is held by another hook';
  try {
    ensureRealDirectory(location.root, ORCHESTRATOR_DIR_NAME);
  } catch (error) {
    return { held: false, waitedMs: 0, problem: (error as Error).message, release() {} };
  }
  for (;;) {
    try {
      const release = lockLibrary().lockSync(location.ledgerPath, {
        lockfilePath: location.lockPath,
        realpath: false,
        fs: lockFs,
        stale: LOCK_STALE_MS,
        update: 1000,
        // A compromised lock (its directory removed by `ledger reset`) only ends this hook's claim on it.
        onCompromised: () => undefined,
      });
      let released = false;
      return {
        held: true,
        waitedMs: clock() - started,
        release() {
          if (released) return;
          released = true;
          try {
            release();
          } catch {
            // Already gone (taken over as stale, or reset): nothing left to release.
          }
        },
      };
    } catch (error) {
      if (errorCode(error) !== 'ELOCKED') {
        problem = (error as Error).message;
        break;
      }
      // A live lock's time is refreshed every second, so one dated past now plus the stale time was set so
      // by hand (`touch -d tomorrow`): it would never go stale (proper-lockfile compares with the past
      // only), and every hook would wait out its budget; it is taken over (found by red-team review, 2026-12-06).
      if (takeOverFutureLock(location.lockPath, clock())) continue;
    }
    const remaining = budgetMs - (clock() - started);
    if (remaining <= 0) break;
    sleepSync(Math.min(remaining, 5 + Math.floor(Math.random() * 20)));
  }
  return { held: false, waitedMs: clock() - started, problem, release() {} };
}

/** Removes the lock directory at `lockPath` when its time lies further ahead than LOCK_STALE_MS; whether it did. */
function takeOverFutureLock(lockPath: string, now: number): boolean {
  try {
    if (statSync(lockPath).mtimeMs - now <= LOCK_STALE_MS) return false;
    rmdirSync(lockPath);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether the ledger file is there, after checking, with the declarations' own confinement checks, that
 * `.orchestrator/` under the root is a real directory and that the file, when it exists, is a regular
 * file and not a link: a planted link cannot redirect a write or a removal. `create` makes a missing
 * `.orchestrator/`; without it, a missing one answers 'absent'. Throws on a refusal.
 */
function ledgerFileState(location: LedgerLocation, create: boolean): 'absent' | 'present' {
  const directory = resolve(location.root, ORCHESTRATOR_DIR_NAME);
  if (dirname(resolve(location.ledgerPath)) !== directory) throw new Error(`refusing to touch ${location.ledgerPath}: it is not in ${directory}`);
  if (!ensureRealParents(location.root, location.ledgerPath, create)) return 'absent';
  return isReplaceableFile(location.ledgerPath) ? 'present' : 'absent';
}

/**
 * Writes the ledger atomically (temp file, fsync, rename), refusing symbolic links under the root, within
 * the size its readers accept (readControlFile's cap; the oldest records go first). Throws on failure,
 * and when the newest record alone is over that size (the file is then left as it was). The directory is not fsynced after the rename: a power cut can then cost the last dispatch's
 * record (the guard fails open on a missing claim), never a torn file, and the hook saves a disk flush.
 * It writes through the one atomic writer of src/node/atomicFile.ts, which loads nothing beyond node:fs.
 * Returns the ledger as written: `ledger` without the records the size took.
 */
export function writeLedger(location: LedgerLocation, ledger: SessionLedger): SessionLedger {
  const within = formatLedgerWithin(ledger, MAX_CONTROL_FILE_BYTES);
  if (within === undefined) throw new Error(`its newest record alone is larger than the ${MAX_CONTROL_FILE_BYTES} bytes a ledger may hold`);
  ledgerFileState(location, true);
  writeFileAtomicSync(location.ledgerPath, within.text, { syncDirectory: false });
  return within.ledger;
}

/** Removes the ledger file; false when there was none. Throws on any other failure. */
export function removeLedger(location: LedgerLocation): boolean {
  if (ledgerFileState(location, false) === 'absent') return false;
  unlinkSync(location.ledgerPath);
  return true;
}
