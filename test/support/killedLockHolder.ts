// Takes the plan-write lock of the checkout named by its argument, says so, and is killed with SIGKILL while
// holding it: what a `wave-scope` process killed mid-write leaves (test/node/planWriteLock.test.ts).
import { planWriteLockAt } from '../../src/node/planWriteLock';

const root = process.argv[2];
if (root === undefined) throw new Error('usage: killedLockHolder.ts ROOT');
const lock = planWriteLockAt(root, 0)();
process.stdout.write(lock.held ? 'held\n' : `not held: ${lock.problem}\n`);
process.kill(process.pid, 'SIGKILL');
