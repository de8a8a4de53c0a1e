// Runs a probe in a worker thread and waits for its one message, for a test of code that could hang (a
// regex that backtracks for minutes): the worker is stopped at the deadline, so such code fails the test
// instead of holding the test process, which a synchronous hang in the test itself would.
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

/**
 * The message `source` posts (CommonJS, run in a worker with tsx registered, so it can `require` a `.ts`
 * file by its absolute path: `sourcePath` gives one under src/), or a rejection when none comes in `ms`.
 */
export async function answerApart(source: string, ms = 10_000): Promise<unknown> {
  const worker = new Worker(`require('tsx/cjs');\nconst { parentPort } = require('node:worker_threads');\n${source}`, { eval: true });
  try {
    return await new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer within ${ms / 1000} s`)), ms);
      worker.once('message', (message) => {
        clearTimeout(timer);
        resolve(message);
      });
      worker.once('error', reject);
    });
  } finally {
    await worker.terminate();
  }
}

/** The absolute path of a source file, for a probe to `require` (`src/planner/scope/scopeEntry.ts`). */
export function sourcePath(relative: string): string {
  return JSON.stringify(join(__dirname, '..', '..', relative));
}
