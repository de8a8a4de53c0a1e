// One writer of the plan-write lock stress test (test/node/planWriteLock.test.ts): until the file named by its
// third argument exists, takes the lock of the checkout named by its first, marks itself the one inside (a
// file created only if none is there), and lets go; it appends `held <pid>` to the log named by its second
// for every hold, and an OVERLAP line whenever it finds another process inside that still runs. The test kills writers at random
// points meanwhile, so some die holding the lock, placing it, claiming it or letting it go.
import { appendFileSync, closeSync, constants, existsSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { planWriteLockAt } from '../../src/node/planWriteLock';

const [root, log, stop] = process.argv.slice(2);
if (root === undefined || log === undefined || stop === undefined) throw new Error('usage: lockStressWriter.ts ROOT LOG STOP');
const inside = join(root, 'inside');
const take = planWriteLockAt(root, 5000);

/** Whether `pid` is a process that runs: not gone, and not a zombie (killed, not yet reaped by the test). */
function runs(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] !== 'Z';
  } catch {
    return false;
  }
}

while (!existsSync(stop)) {
  const lock = take();
  if (!lock.held) continue;
  for (;;) {
    try {
      const fd = openSync(inside, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      break;
    } catch {
      const other = Number(readFileSync(inside, { encoding: 'utf8', flag: 'a+' }));
      if (other > 0 && other !== process.pid && runs(other)) {
        appendFileSync(log, `OVERLAP ${process.pid} found ${other} inside\n`);
        break;
      }
      // Left by a writer that died inside: cleared, as the lock it held was taken over.
      try {
        unlinkSync(inside);
      } catch {
        // Cleared by another.
      }
    }
  }
  appendFileSync(log, `held ${process.pid}\n`);
  const until = performance.now() + 1;
  while (performance.now() < until);
  try {
    if (readFileSync(inside, 'utf8') === String(process.pid)) unlinkSync(inside);
  } catch {
    // Cleared by another writer that found this one gone.
  }
  lock.release();
}
