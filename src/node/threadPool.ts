// Node runs its asynchronous file operations on libuv's thread pool, four threads unless
// UV_THREADPOOL_SIZE says otherwise when the pool starts (on the process's first asynchronous file,
// DNS, zlib or crypto call). A sync that writes a 64-agent wave fsyncs its 66 staged files together:
// with four threads they run four at a time, about seventeen journal commits in a row; with a thread
// each, the file system commits them together (on the VM measured in docs/sync.md, 8-10 ms against
// 3.5-4.5 ms for 66 fsyncs). The pool's size is read once, so it is chosen here, before any other use.
import { access } from 'node:fs';

/** The threads a sync asks for: one per file of a 64-agent wave (its 64 agents' files, the aggregate, the manifest), about. */
export const SYNC_WRITE_THREADS = 64;

const SIZE_VARIABLE = 'UV_THREADPOOL_SIZE';

/**
 * Starts libuv's pool now with `threads` threads, unless the user chose a size (UV_THREADPOOL_SIZE set) or
 * the pool has already started (then nothing changes: its size is fixed for the life of the process). The
 * variable is set only for the moment the pool reads it, so child processes (git, hooks) do not inherit it.
 * Starting the threads takes a few milliseconds: callers do it while they wait on something else.
 */
export function startThreadPool(threads: number): void {
  if (process.env[SIZE_VARIABLE] !== undefined) return;
  process.env[SIZE_VARIABLE] = String(threads);
  try {
    // The first request queued on the pool starts it, synchronously, reading the variable.
    access('.', () => undefined);
  } finally {
    delete process.env[SIZE_VARIABLE];
  }
}
