// Node runs its asynchronous file operations on libuv's thread pool, four threads unless
// UV_THREADPOOL_SIZE says otherwise when the pool starts (on the process's first asynchronous file,
// DNS, zlib or crypto call). A sync that writes a 64-agent wave fsyncs its 66 staged files together:
// with four threads they run four at a time, about seventeen journal commits in a row; with more, the file
// system commits them in a few (on the VM measured in docs/sync.md, 66 fsyncs took 8-10 ms with 4 threads,
// 5.5-6 ms with 16, 3.5-4.5 ms with 64). Each thread costs its start, and on a machine of few cores the
// threads woken together take the processor from the thread that has work to do meanwhile: 16 finish the
// fsyncs within the work sync does while it waits on them (docs/sync.md, Speed). The pool's size is read
// once, so it is chosen here, before any other use.
import { access } from 'node:fs';

/** The threads a sync asks for. */
export const SYNC_WRITE_THREADS = 16;

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
