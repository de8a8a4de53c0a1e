// Takes the plan-write lock of the checkout named by its first argument, writes "begin <pid>" to the log
// named by its second, holds the lock a little, writes "end <pid>" and lets go: several of these started
// together show whether two ever held the lock at once (test/node/planWriteLock.test.ts).
import { appendFileSync } from 'node:fs';
import { planWriteLockAt } from '../../src/node/planWriteLock';

const [root, log] = process.argv.slice(2);
if (root === undefined || log === undefined) throw new Error('usage: lockTurnTaker.ts ROOT LOG');
const lock = planWriteLockAt(root, 30_000)();
if (!lock.held) {
  process.stderr.write(`${lock.problem}\n`);
  process.exit(2);
}
appendFileSync(log, `begin ${process.pid}\n`);
Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 30);
appendFileSync(log, `end ${process.pid}\n`);
lock.release();
