// Other processes, as the file system's leftovers name them (a temporary file's pid, a lock's holder).

/** Whether no process has this pid: signalling it fails with ESRCH. A process we may not signal (EPERM) exists. */
export function isProcessGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
