// A hook's reply written whole to a descriptor that may be a non-blocking pipe.
//
// The hook bundles write fds 1 and 2 synchronously (creating Node's stream objects costs more than a
// decision). A pipe can still be non-blocking: the agent CLI may hand one over that way, and Node makes
// fd 1 non-blocking as soon as anything touches `process.stdout`. A reply larger than the pipe's buffer
// (64 KiB on Linux: a backstop reply naming a few thousand paths) then meets EAGAIN until the reader
// drains it, and a reply cut there is no reply at all (found by red-team review, 2026-12-06).
import { writeSync } from 'node:fs';

/** How long a reader may leave a full pipe undrained before the write gives up (an agent CLI's own hook timeout is about this). */
export const REPLY_WRITE_TIMEOUT_MS = 60_000;

// Atomics.wait on a private cell is a sleep that blocks only this thread, with no busy loop.
const pauseCell = new Int32Array(new SharedArrayBuffer(4));

/**
 * Writes all of `text` to `fd`, waiting (1 ms, doubling to 50 ms) whenever the descriptor answers EAGAIN,
 * for at most `timeoutMs` in all. Throws what writeSync throws otherwise, or the EAGAIN once time is up.
 */
export function writeAllToDescriptor(fd: number, text: string, timeoutMs = REPLY_WRITE_TIMEOUT_MS): void {
  const bytes = Buffer.from(text, 'utf8');
  const deadline = Date.now() + timeoutMs;
  let pause = 1;
  for (let offset = 0; offset < bytes.length; ) {
    try {
      offset += writeSync(fd, bytes, offset);
      pause = 1;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN' || Date.now() >= deadline) throw error;
      Atomics.wait(pauseCell, 0, 0, pause);
      pause = Math.min(pause * 2, 50);
    }
  }
}
