// The temporary files a killed write leaves behind, and their removal. createTemporaryFile (src/node/atomicFile.ts)
// names each `<file>.<pid>.<stamp>.tmp`; a process that stops normally removes those it did not rename into
// place, but one that is killed (SIGKILL, the OOM killer, a power cut) leaves them, spares and reserved files
// made ahead included, and nothing else ever removed them: an outside review counted 12,725 after 22 killed
// syncs of an 800-agent wave. Every reader ignores them; they only fill the disk and the directory listings.
//
// A sync removes them (sweepLeftoversWhile), under rules that leave no doubt a file is one of ours and
// belongs to no live write:
// - only in the directories we write, listed one by one, never through a link and never into a directory
//   we do not know: a state directory (the manifest; in filescopes/ the aggregates and the spares; in
//   filescopes/wave-<N>/ the per-agent files) and the clone's own `<git-dir>/wave-scope/` (cloneState.ts);
// - only a regular file whose name is exactly one temporaryPathFor makes, for a file we write there;
// - only when the process that made it is gone (signalling its pid fails with ESRCH) and the file has not
//   been modified for an hour (LEFTOVER_MINIMUM_AGE_MS). The pid alone would not do: a container sharing the
//   checkout numbers its processes on its own, and the pid of its live sync may be free here.
// A sweep is housekeeping: whatever it cannot list, read or remove is left quietly, and it never changes
// the outcome of the command that runs it.
//
// What it costs a sync: a sweep that finds nothing is a few directory listings, but in a fresh process every
// first call is interpreted, and it comes to about a millisecond of the main thread. So a clone sweeps at
// most once an hour while nothing is left over (cloneState.ts keeps the time; a leftover is not removed
// before it is an hour old anyway), and every sync while leftovers remain. It runs while git fetches when
// the main thread gets a turn before the fetch ends (a remote across a network leaves it plenty; a local one,
// on two cores busy with git, none), and the rest as the sync ends, its removals then bounded in time.
import { lstatSync, readdirSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseTemporaryFileName } from './atomicFile';
import { ensureRealParents, openRealDirectory } from './declarationFs';
import type { HeldDirectory } from './declarationFs';
import { isProcessGone } from './processes';
import { SPARE_FILE_NAME } from './stagedWrites';
import { agentIdOfFileName, filescopesPath, waveDirPath, waveOfDirName, waveOfSidecarName } from '../planner/plan/declarationPaths';
import { FILESCOPES_DIR_NAME, MANIFEST_FILE_NAME } from '../planner/plan/stateDirNames';

/**
 * How long a leftover must have gone unmodified before it is removed. A write fills its temporary file
 * within moments of making it (a spare or a reserved file made ahead waits for one git fetch); an hour is
 * far beyond any of those, and leftovers piling up over hours are still removed the same day.
 */
export const LEFTOVER_MINIMUM_AGE_MS = 60 * 60 * 1000;

/** How often a clone sweeps while the last sweep left nothing behind: the age a leftover must reach. */
export const LEFTOVER_SWEEP_INTERVAL_MS = LEFTOVER_MINIMUM_AGE_MS;

/**
 * How long a sync spends removing leftovers once its fetch has ended (LeftoverSweep.finish): some thirty
 * files in a fresh process on the VM of docs/sync.md. A sweep left short by it goes on in the next sync.
 */
export const LEFTOVER_REMOVAL_BUDGET_MS = 2;

/** A directory to look in: which of its files are ours, and which of its subdirectories to look in too. */
export interface LeftoverDirectory {
  /** The directory's path. */
  readonly path: string;
  /** Whether `name` is a file we write here (a temporary file made for it is one of ours). */
  isOurFile(name: string): boolean;
  /** The subdirectory named `name` to look in as well, when it is one of ours; undefined for any other. */
  subdirectory?(name: string): LeftoverDirectory | undefined;
}

/** A place to sweep: `directory` and what lies below it, reached from `root` without passing a link. */
export interface LeftoverPlace {
  /** The state directory's write confinement, or the git directory: no link below it is followed. */
  readonly root: string;
  readonly directory: LeftoverDirectory;
}

/** When a temporary file of ours counts as left over. */
export interface LeftoverRules {
  /** The time to measure a file's age against (ms since the epoch). */
  now: number;
  minimumAgeMs: number;
  /** Whether no process with this pid exists (isProcessGone). */
  isGone(pid: number): boolean;
}

/** The rules a command sweeps by: a dead pid, an hour without change, measured from now. */
export function leftoverRules(): LeftoverRules {
  return { now: Date.now(), minimumAgeMs: LEFTOVER_MINIMUM_AGE_MS, isGone: isProcessGone };
}

/**
 * The files a plan write leaves temporary files for in `stateDir` (writes confined to `confinement`): the
 * manifest; in filescopes/, each wave's aggregate and the spares (makeSpareFiles); in filescopes/wave-<N>/,
 * the per-agent files.
 */
export function stateDirLeftovers(confinement: string, stateDir: string): LeftoverPlace {
  const waveDirectory = (name: string): LeftoverDirectory | undefined => {
    const wave = waveOfDirName(name);
    return wave === undefined ? undefined : { path: waveDirPath(stateDir, wave), isOurFile: (file) => agentIdOfFileName(file) !== undefined };
  };
  const filescopes: LeftoverDirectory = {
    path: filescopesPath(stateDir),
    isOurFile: (name) => name === SPARE_FILE_NAME || waveOfSidecarName(name) !== undefined,
    subdirectory: waveDirectory,
  };
  return {
    root: confinement,
    directory: { path: stateDir, isOurFile: (name) => name === MANIFEST_FILE_NAME, subdirectory: (name) => (name === FILESCOPES_DIR_NAME ? filescopes : undefined) },
  };
}

/** A sweep under way: what it has removed, and how it ends. */
export interface LeftoverSweep {
  /** The paths of the leftovers removed so far. */
  readonly removed: readonly string[];
  /** Settles when the sweep stops running in slices: it has looked everywhere, or `going` said no. */
  readonly slicesOver: Promise<void>;
  /**
   * Ends the sweep at once, on this thread: looks through whatever it has not looked at yet, spends at most
   * about `removalBudgetMs` more on removing the leftovers it finds, and closes what it holds open. True when
   * no leftover it found was left for lack of that time (the next sweep may then wait:
   * LEFTOVER_SWEEP_INTERVAL_MS). Never throws; once ended, does nothing more.
   */
  finish(removalBudgetMs: number): boolean;
}

/** One sweep's progress, shared by its steps. */
interface Sweeping {
  readonly rules: LeftoverRules;
  readonly removed: string[];
  /** The time (ms) still to be spent on removals: unbounded while git fetches, finish's budget after. */
  removalTimeLeft: number;
  /** Set when a leftover was left because that time was spent. */
  leftForLater: boolean;
}

// The longest the sweep runs before giving the event loop a turn. The command it runs beside notices that
// its own wait is over (the git fetch ending) only between two slices, so this is the most a slice can
// delay it by.
const SLICE_MS = 0.5;

/**
 * Sweeps `places` (in this order, each depth-first) on the event loop, in slices, while `going()` holds
 * (sync: while git fetches), and pauses when it does not; `finish` then ends it. Each leftover found is
 * removed under `rules` (leftoverRules by default).
 */
export function sweepLeftoversWhile(places: readonly LeftoverPlace[], going: () => boolean, rules: LeftoverRules = leftoverRules()): LeftoverSweep {
  const sweeping: Sweeping = { rules, removed: [], removalTimeLeft: Infinity, leftForLater: false };
  const steps = sweepSteps(places, sweeping);
  let done = false;
  let endSlices: () => void = () => undefined;
  const slicesOver = new Promise<void>((resolve) => (endSlices = resolve));
  let next: NodeJS.Immediate | undefined = setImmediate(() => slice());
  /** Runs steps while `more()` says so; false once the sweep has ended (looked everywhere, or failed). */
  const run = (more: () => boolean): boolean => {
    try {
      while (!done && more()) done = steps.next().done === true;
    } catch {
      // Housekeeping: whatever went wrong, the rest waits for a later sweep.
      done = true;
    }
    return !done;
  };
  const slice = () => {
    next = undefined;
    const until = performance.now() + SLICE_MS;
    let yielded = false;
    const unfinished = run(() => {
      if (!going()) return false;
      yielded = performance.now() >= until;
      return !yielded;
    });
    if (unfinished && yielded) next = setImmediate(slice);
    else endSlices();
  };
  let ended = false;
  return {
    removed: sweeping.removed,
    slicesOver,
    finish(removalBudgetMs) {
      if (ended) return !sweeping.leftForLater;
      ended = true;
      if (next !== undefined) clearImmediate(next);
      next = undefined;
      sweeping.removalTimeLeft = removalBudgetMs;
      run(() => true);
      done = true;
      closeQuietly(steps);
      endSlices();
      return !sweeping.leftForLater;
    },
  };
}

/** Sweeps `places` to the end, at once (a sweep finished before its first slice); returns the paths of the leftovers removed. */
export function sweepLeftovers(places: readonly LeftoverPlace[], rules: LeftoverRules = leftoverRules()): string[] {
  const sweep = sweepLeftoversWhile(places, () => false, rules);
  sweep.finish(Infinity);
  return [...sweep.removed];
}

/** The sweep of `places`, one step (a listing, a share of its names, a removal) per `next`; what it holds open is closed by `return`. */
function* sweepSteps(places: readonly LeftoverPlace[], sweeping: Sweeping): Generator<void, void, void> {
  // Each pid is asked once: the leftovers of one killed process come by the hundred.
  const gone = new Map<number, boolean>();
  const isGone = (pid: number) => {
    let answer = gone.get(pid);
    if (answer === undefined) gone.set(pid, (answer = pid !== process.pid && sweeping.rules.isGone(pid)));
    return answer;
  };
  for (const place of places) yield* sweepDirectory(place.root, place.directory, sweeping, isGone);
}

// How many names of a listing are looked at between two steps: a name that cannot be a leftover costs one
// match of a pattern, and a step per name would cost more than the look.
const NAMES_PER_STEP = 256;

/**
 * Lists `directory` by its path, once no link is found on it (`checked`: its parent's listing was, and it is
 * a directory itself), reading names only, as every listing a sync makes. What a name is, is asked (lstat)
 * only of the few that could be ours; a removal reaches the directory again, held open (reachDirectory), so a
 * directory swapped for a link in between is refused and nothing is removed there.
 */
function* sweepDirectory(
  root: string,
  directory: LeftoverDirectory,
  sweeping: Sweeping,
  isGone: (pid: number) => boolean,
  checked = false,
): Generator<void, void, void> {
  let names: string[];
  try {
    if (!(checked ? lstatSync(directory.path).isDirectory() : hasNoLinkOnTheWay(root, directory.path))) return;
    names = readdirSync(directory.path);
  } catch {
    // Gone, or not to be read: left for a later sweep.
    return;
  }
  yield;
  // Reached when the first leftover is found; null once it could not be.
  let held: HeldDirectory | null | undefined;
  try {
    for (let index = 0; index < names.length; index += 1) {
      if (index % NAMES_PER_STEP === NAMES_PER_STEP - 1) yield;
      const name = names[index] as string;
      const made = parseTemporaryFileName(name);
      if (made === undefined) {
        const inner = directory.subdirectory?.(name);
        if (inner !== undefined) yield* sweepDirectory(root, inner, sweeping, isGone, true);
        continue;
      }
      if (!directory.isOurFile(made.target) || !isGone(made.pid)) continue;
      if (sweeping.removalTimeLeft <= 0) {
        sweeping.leftForLater = true;
        continue;
      }
      const started = performance.now();
      held ??= reachDirectory(root, directory.path) ?? null;
      if (held === null) return;
      if (removeIfLeftOver(join(held.path, name), sweeping.rules)) sweeping.removed.push(join(directory.path, name));
      sweeping.removalTimeLeft -= performance.now() - started;
      yield;
    }
  } finally {
    held?.close();
  }
}

/** Removes the file at `path` when it is still a regular file that has not changed for the rules' age. */
function removeIfLeftOver(path: string, rules: LeftoverRules): boolean {
  try {
    const stat = lstatSync(path, { throwIfNoEntry: false });
    if (stat === undefined || !stat.isFile() || rules.now - stat.mtimeMs < rules.minimumAgeMs) return false;
    unlinkSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Whether `path` (inside `root`, or `root` itself) is a directory reached from `root` through no link. */
function hasNoLinkOnTheWay(root: string, path: string): boolean {
  try {
    // ensureRealParents checks the directories above a path, so it is asked about a name inside this one.
    return ensureRealParents(root, join(path, 'entry'), false);
  } catch {
    return false;
  }
}

/**
 * `path` with no link on the way, held open where the platform names a descriptor by a path
 * (openRealDirectory), so that a directory swapped for a link after the check cannot redirect a removal;
 * elsewhere its path, checked again. Undefined when it is missing, or a link or a file is on the way.
 */
function reachDirectory(root: string, path: string): HeldDirectory | undefined {
  try {
    const held = openRealDirectory(root, path);
    if (held !== undefined) return held;
    return hasNoLinkOnTheWay(root, path) ? { path, close: () => undefined } : undefined;
  } catch {
    return undefined;
  }
}

function closeQuietly(steps: Generator<void, void, void>): void {
  try {
    steps.return();
  } catch {
    // What it held is closed as far as it could be.
  }
}
