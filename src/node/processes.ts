// Other processes, as the file system's leftovers name them (a temporary file's pid, a lock's holder), and
// this one's synchronous wait for them.

/** Whether no process has this pid: signalling it fails with ESRCH. A process we may not signal (EPERM) exists. */
export function isProcessGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/** Blocks this thread for `ms` milliseconds (a lock's taker between two tries: its callers are synchronous). */
export function sleepSync(ms: number): void {
  if (ms > 0) Atomics.wait(sleeper, 0, 0, ms);
}
