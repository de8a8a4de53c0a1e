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
// - A lock is made whole under a name of its own (`plan-write.lock.new.<pid>.<token>`: the directory and its
//   holder file) and then renamed into place. A rename onto a lock that stands there fails, so there is one
//   holder at a time, and no lock is ever seen without its holder.
// - A lock whose holder's process provably no longer runs (this host, this pid namespace, this boot; the pid
//   gone, or taken by a process started later) is taken over at once: killed with SIGKILL or Ctrl-C, a writer
//   leaves its lock behind. A lock whose holder's process runs is waited for as long as it runs if it was
//   taken on the process's main thread (a writer suspended with Ctrl-Z keeps it); one taken in a worker
//   thread (the planner's Save) is taken over once it is PLAN_WRITE_LOCK_STALE_MS old, as is any lock whose
//   holder cannot be checked (another host, another container, no readable holder file).
// - A lock is removed, by a taker or by its holder letting go, only once claimed: its holder file renamed, in
//   the lock directory, to a name of the claimer's own. One rename wins, so one remover at a time, however
//   long any of them stalls; the claimed file is read back, and a claim of another lock than the one meant
//   (taken meanwhile) is given back. A lock with no readable holder file is claimed by a file created in it.
//   A claim's name begins with its remover's pid: one a remover killed in the act left is taken over in turn
//   (or given back, when the holder file it took names a holder that runs).
import { randomBytes } from 'node:crypto';
import { lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, renameSync, rmdirSync, unlinkSync, writeFileSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join, relative, sep } from 'node:path';
import { threadId } from 'node:worker_threads';
import { ensureRealDirectory } from './eventLog';
import { isProcessGone, sleepSync } from './processes';
import { readOwnControlFile } from './hookFileSystem';
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

export const PLAN_WRITE_LOCK_FILE = `${ORCHESTRATOR_DIR_NAME}/plan-write.lock`;

/** The file in the lock directory that names its holder. */
const HOLDER_FILE = 'holder.json';

/** The holder file is a few hundred bytes; anything larger is not one. */
const MAX_HOLDER_BYTES = 4096;

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

/**
 * Process `pid` as `/proc/<pid>/stat` gives it: its state (field 3; `Z` for a zombie, which has ended and
 * waits to be reaped) and when it started, in clock ticks since boot (field 22); undefined where unknown.
 */
function processStat(pid: number | 'self'): { state: string; started: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold anything, spaces and ')' too: fields are counted after its last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const started = Number(fields[19]);
    return fields[0] !== undefined && Number.isSafeInteger(started) ? { state: fields[0], started } : undefined;
  } catch {
    return undefined;
  }
}

let procfsIsOwn: boolean | undefined;

/**
 * Whether `/proc` speaks of this process's pid namespace, so that `/proc/<pid>` is the process a holder's pid
 * names: not in a pid namespace made without a `/proc` of its own (`unshare -pf` without `--mount-proc`), where
 * `/proc/self` is this process under another pid. True where there is no `/proc` at all (only `kill` is asked).
 */
function procfsOwn(): boolean {
  if (procfsIsOwn === undefined) {
    try {
      const stat = readFileSync('/proc/self/stat', 'utf8');
      procfsIsOwn = Number(stat.slice(0, stat.indexOf(' '))) === process.pid;
    } catch {
      procfsIsOwn = true;
    }
  }
  return procfsIsOwn;
}

let identity: Omit<LockHolder, 'at' | 'token'> | undefined;

/** This process and thread as a holder names them: the same for every lock it takes, so read once. */
function ownIdentity(): Omit<LockHolder, 'at' | 'token'> {
  // Where `/proc` is another namespace's, this process cannot name itself so that others can check it: it
  // names no namespace, and its lock is judged by its time.
  identity ??= procfsOwn()
    ? { pid: process.pid, thread: threadId, host: hostname(), pidNamespace: pidNamespace(), boot: bootId(), started: processStat('self')?.started ?? null }
    : { pid: process.pid, thread: threadId, host: hostname(), pidNamespace: null, boot: null, started: null };
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
    if (placed === 'held') {
      sweepPlacingLeftovers(lockPath, me);
      return { held: true, release: () => releaseIfOwn(lockPath, token) };
    }
    if (placed !== 'busy') return cannot(placed.error);
    const judged = judgeLock(lockPath, Date.now(), me);
    let again = judged.verdict === 'gone';
    if (judged.verdict === 'take-over') {
      const outcome = takeOver(lockPath, judged);
      if (typeof outcome === 'object') return cannot(outcome.error);
      again = outcome === 'removed';
    }
    last = judged.holder ?? last;
    // Once the place was freed, at once (a few times in a row at most: a place that keeps changing is waited on).
    if (again && quickTurns++ < 16) continue;
    const remaining = budgetMs - (Date.now() - started);
    if (remaining <= 0) break;
    sleepSync(Math.min(remaining, 5 + Math.floor(Math.random() * 20)));
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
  const made = `${lockPath}.new.${process.pid}.${holder.token}`;
  try {
    mkdirSync(made);
  } catch (error) {
    return { error: (error as Error).message };
  }
  try {
    // Created (`wx`: O_EXCL, which follows no link), never opened where a name stands.
    writeFileSync(join(made, HOLDER_FILE), JSON.stringify(holder), { flag: 'wx', mode: 0o644 });
  } catch (error) {
    removeLockDirectory(made);
    return { error: (error as Error).message };
  }
  try {
    // Onto nothing, or onto an empty directory (a lock being taken over, between its holder file's removal
    // and its own): never onto a lock that stands, a link or a file.
    renameSync(made, lockPath);
    return 'held';
  } catch (error) {
    removeLockDirectory(made);
    // Busy when something stands there (a lock, a link, a file; Windows refuses any rename onto a directory
    // with EPERM), which is judged next, and may be gone by then; otherwise the file system refused the rename.
    const code = errorCode(error);
    const busy = code === 'ENOTEMPTY' || code === 'EEXIST' || code === 'ENOTDIR' || code === 'EISDIR' || (process.platform === 'win32' && code === 'EPERM');
    return busy ? 'busy' : { error: (error as Error).message };
  }
}

/**
 * Removes what writers killed while placing their lock left (`plan-write.lock.new.<pid>.<token>`, made but
 * never renamed into place): those whose holder's process provably no longer runs, or that are stale. Run
 * holding the lock. Each is only ever a writer's own until it is placed, so one whose writer runs is left.
 */
function sweepPlacingLeftovers(lockPath: string, me: Omit<LockHolder, 'at' | 'token'>): void {
  const directory = dirname(lockPath);
  const prefix = `${basename(lockPath)}.new.`;
  let names: string[];
  try {
    names = readdirSync(directory).filter((name) => name.startsWith(prefix));
  } catch {
    return;
  }
  for (const name of names) {
    const path = join(directory, name);
    try {
      const entry = lstatSync(path);
      if (!entry.isDirectory()) continue;
      const holder = readHolder(path);
      const age = Math.abs(Date.now() - (holder?.at ?? entry.mtimeMs));
      // Named, it is judged as a lock is; killed before it was named, by the pid its name begins with.
      const maker = pidOfName(name, prefix);
      const gone = holder !== undefined ? holderIsGone(holder, me) : maker !== undefined && isProcessGone(maker) && age > ABANDONED_AFTER_MS ? true : undefined;
      if (gone === true || (gone === undefined && age > PLAN_WRITE_LOCK_STALE_MS)) removeLockDirectory(path);
    } catch {
      // Gone meanwhile.
    }
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

/** The holder file of the lock directory `lockPath` (readHolderFile); undefined when there is none to read. */
function readHolder(lockPath: string): LockHolder | undefined {
  return readHolderFile(join(lockPath, HOLDER_FILE));
}

/**
 * A holder file at `path`, read as Wave Scope's control files are (readOwnControlFile: a regular file with
 * one name, reached from the checkout's root through real directories, never waited on as a FIFO), within a
 * holder file's size; undefined when it is missing or is not one. Every holder file (in a lock, a lock being
 * placed, or a claim) lies three levels below the checkout's root: `.orchestrator/<lock>/<file>`.
 */
function readHolderFile(path: string): LockHolder | undefined {
  try {
    const file = readOwnControlFile(dirname(dirname(dirname(path))), path, { maxBytes: MAX_HOLDER_BYTES });
    if (file === undefined) return undefined;
    const parsed = JSON.parse(file.text) as Partial<LockHolder>;
    if (typeof parsed.pid !== 'number' || !Number.isSafeInteger(parsed.pid) || parsed.pid <= 0) return undefined;
    if (typeof parsed.thread !== 'number' || typeof parsed.host !== 'string' || typeof parsed.at !== 'number' || typeof parsed.token !== 'string') return undefined;
    const orNull = <T>(value: T | null | undefined, kind: 'string' | 'number'): T | null | false => (value === undefined || value === null ? null : typeof value === kind ? value : false);
    const [namespace, boot, started] = [orNull(parsed.pidNamespace, 'string'), orNull(parsed.boot, 'string'), orNull(parsed.started, 'number')];
    if (namespace === false || boot === false || started === false) return undefined;
    return { pid: parsed.pid, thread: parsed.thread, host: parsed.host, pidNamespace: namespace, boot, started, at: parsed.at, token: parsed.token };
  } catch {
    return undefined;
  }
}

/** What stood at the lock's place when it was judged, and the verdict. */
interface Judged {
  verdict: 'wait' | 'take-over' | 'gone';
  holder: LockHolder | undefined;
  entry: Stats | undefined;
  /** A claim a remover killed in the act left in the lock directory (abandonedClaim), to be taken over in turn. */
  abandoned?: string;
}

/**
 * Whether the holder's process provably no longer runs: it ran on this host, in this pid namespace and this
 * boot, and its pid is free or belongs to a process started at another time. Undefined when that cannot be
 * told (another host or container).
 */
function holderIsGone(holder: LockHolder, me: Omit<LockHolder, 'at' | 'token'>): boolean | undefined {
  if (holder.host !== me.host || holder.pidNamespace !== me.pidNamespace || !procfsOwn()) return undefined;
  if (holder.boot !== null && me.boot !== null && holder.boot !== me.boot) return true;
  if (isProcessGone(holder.pid)) return true;
  const now = processStat(holder.pid);
  if (now === undefined) return false;
  return now.state === 'Z' || (holder.started !== null && now.started !== holder.started);
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
  if (holder === undefined && entry.isDirectory()) {
    const abandoned = abandonedClaim(lockPath, entry, now);
    if (abandoned !== undefined) {
      // The claim holds the holder file it took: a claim of a lock whose holder still runs (taken by mistake,
      // its remover killed before it gave it back) is given back, and the lock waited for.
      // (The lock itself names no holder meanwhile: `holder` stays undefined, as takeOver's look again expects.)
      const claimed = readHolderFile(join(lockPath, abandoned));
      const gone = claimed === undefined ? true : holderIsGone(claimed, me);
      if (gone === true || (gone === undefined && Math.abs(now - (claimed?.at ?? 0)) > PLAN_WRITE_LOCK_STALE_MS)) return { verdict: 'take-over', holder: undefined, entry, abandoned };
      giveBack(lockPath, abandoned);
      return { verdict: 'wait', holder: claimed, entry };
    }
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

/** Short-lived names of a remover's own (a claim, in a lock directory): its pid first, so that one a remover killed in the act left can be told. */
function newClaim(): string {
  return `${process.pid}.${randomBytes(12).toString('hex')}`;
}

/** A name made by a process: `<pid>.<random>` after `prefix`, the pid read back; undefined for any other name. */
function pidOfName(name: string, prefix: string): number | undefined {
  if (!name.startsWith(prefix)) return undefined;
  const pid = Number(name.slice(prefix.length).split('.')[0]);
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
}

/** A claim or a placing is a few system calls long: one this old whose process is gone was left by a process killed in it. */
const ABANDONED_AFTER_MS = 2000;

/**
 * A claim in the lock directory at `lockPath` that a remover killed in the act left: its process gone, and
 * older than ABANDONED_AFTER_MS. Without it, the directory (its holder file claimed away) would name no holder
 * and wait for its stale time.
 */
function abandonedClaim(lockPath: string, directory: Stats, now: number): string | undefined {
  // A claim changes the directory's time (a rename or a creation in it): unchanged this long, no claim is in progress.
  if (Math.abs(now - directory.mtimeMs) <= ABANDONED_AFTER_MS) return undefined;
  try {
    for (const name of readdirSync(lockPath)) {
      const pid = pidOfName(name, 'claimed.');
      if (pid !== undefined && isProcessGone(pid)) return name;
    }
  } catch {
    // Gone meanwhile.
  }
  return undefined;
}

/**
 * Claims the lock directory at `lockPath` for removal: its holder file renamed to `claimed.<claim>` in it
 * (one rename wins), then read back. `claimed` when it names `token`; otherwise the file is given back and
 * `not-now` (another claimer was first, or the lock is not the one meant: taken again meanwhile). While a
 * claim is out, the directory is not empty, so no lock can be placed onto it, and it reads as a lock with no
 * holder, whose young time makes everyone wait.
 */
function claimLock(lockPath: string, token: string, claim: string): 'claimed' | 'not-now' | { error: string } {
  const holderPath = join(lockPath, HOLDER_FILE);
  const claimPath = join(lockPath, `claimed.${claim}`);
  try {
    renameSync(holderPath, claimPath);
  } catch (error) {
    const code = errorCode(error);
    return code === 'ENOENT' || code === 'ENOTDIR' ? 'not-now' : { error: (error as Error).message };
  }
  if (readHolderFile(claimPath)?.token === token) return 'claimed';
  giveBack(lockPath, `claimed.${claim}`);
  return 'not-now';
}

/**
 * Removes a claimed lock directory: the claim, then the directory. Once the claim is gone, a writer may place
 * its lock onto the empty directory before it is removed: the removal then fails, and that lock stands. A
 * directory with more in it than the claim is moved aside (no lock can be placed onto it meanwhile).
 */
function removeClaimed(lockPath: string, claim: string): 'removed' | { error: string } {
  try {
    unlinkSync(join(lockPath, `claimed.${claim}`));
  } catch {
    // Gone already.
  }
  try {
    rmdirSync(lockPath);
    return 'removed';
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT') return 'removed';
    if (code !== 'ENOTEMPTY' && code !== 'EEXIST') return { error: (error as Error).message };
  }
  // A lock placed onto the emptied directory meanwhile holds a holder file, or a claim of it (a lock is never
  // without one of the two): it stands. (Its directory may even have the old one's inode number, freed and
  // given again, so that cannot tell them apart.) What holds neither, but something, is what the old lock held
  // besides: nothing can be placed onto a directory that is not empty, so it is moved aside.
  let names: string[];
  try {
    names = readdirSync(lockPath);
  } catch {
    return 'removed';
  }
  if (names.length === 0 || names.some((name) => name === HOLDER_FILE || name.startsWith('claimed.'))) return 'removed';
  return moveAside(lockPath);
}

/**
 * Puts a claimed holder file back as the lock's holder file. No other holder file can stand there meanwhile:
 * one is only ever made in a lock before it is placed, and a directory with a claim in it cannot be replaced.
 */
function giveBack(lockPath: string, claimName: string): void {
  try {
    renameSync(join(lockPath, claimName), join(lockPath, HOLDER_FILE));
  } catch {
    // The claim is gone (taken over in turn as abandoned): nothing to give back.
  }
}

function moveAside(lockPath: string): 'removed' | { error: string } {
  try {
    renameSync(lockPath, `${lockPath}.taken-over.${process.pid}.${randomBytes(6).toString('hex')}`);
    return 'removed';
  } catch (error) {
    return errorCode(error) === 'ENOENT' ? 'removed' : { error: (error as Error).message };
  }
}

/**
 * Takes the judged lock out of the way if what stands at the lock's place is still what was judged:
 * `removed`; `not-now` when another taker was first or the lock changed (the caller judges again); an
 * error the file system gave (a read-only `.orchestrator`, say), which ends the wait. A named lock is claimed
 * by its holder file; one that names no holder, by a claim file created in it (one creation wins), checked
 * to lie in the very directory judged; anything else found there (a link, a file) is moved aside, renamed,
 * never followed or deleted.
 */
function takeOver(lockPath: string, judged: Judged): 'removed' | 'not-now' | { error: string } {
  if (!stillJudged(lockPath, judged) || judged.entry === undefined) return 'not-now';
  const claim = newClaim();
  if (judged.holder !== undefined) {
    const claimed = claimLock(lockPath, judged.holder.token, claim);
    if (claimed !== 'claimed') return claimed;
    return removeClaimed(lockPath, claim);
  }
  if (judged.abandoned !== undefined) {
    try {
      renameSync(join(lockPath, judged.abandoned), join(lockPath, `claimed.${claim}`));
    } catch (error) {
      const code = errorCode(error);
      return code === 'ENOENT' || code === 'ENOTDIR' ? 'not-now' : { error: (error as Error).message };
    }
    return removeClaimed(lockPath, claim);
  }
  if (!judged.entry.isDirectory()) {
    // A link or a file: no lock can be placed onto it, so only another taker moves it; the look just made
    // (stillJudged) leaves a window of a few microseconds in which one would have to move it and a writer place its lock.
    return moveAside(lockPath);
  }
  try {
    writeFileSync(join(lockPath, `claimed.${claim}`), '', { flag: 'wx', mode: 0o644 });
  } catch (error) {
    const code = errorCode(error);
    return code === 'ENOENT' || code === 'EEXIST' || code === 'ENOTDIR' ? 'not-now' : { error: (error as Error).message };
  }
  // Created in whatever directory stands there now. A lock (placed meanwhile) always holds a readable holder
  // file or a claim of it; this claim is then taken back, as it is when another claim is there (another
  // taker at it). Otherwise the directory is the one judged, and what it holds besides this claim is not a
  // lock's: an unreadable holder file is removed with it.
  const own = `claimed.${claim}`;
  let names: string[];
  try {
    names = readdirSync(lockPath);
  } catch {
    names = [];
  }
  if (readHolder(lockPath) !== undefined || names.some((name) => name.startsWith('claimed.') && name !== own)) {
    try {
      unlinkSync(join(lockPath, own));
    } catch {
      // Gone with the directory.
    }
    return 'not-now';
  }
  try {
    unlinkSync(join(lockPath, HOLDER_FILE));
  } catch {
    // None there, or not a file (left for the directory to be moved aside with it).
  }
  return removeClaimed(lockPath, claim);
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

/** Lets go of the lock at `lockPath` if it is still the one taken with `token` (claimed, so that no taker removes it meanwhile). */
function releaseIfOwn(lockPath: string, token: string): void {
  const claim = newClaim();
  if (claimLock(lockPath, token, claim) === 'claimed') removeClaimed(lockPath, claim);
}
