// Run inside a pid namespace that sees another namespace's /proc (test/node/planWriteLock.test.ts): one
// process takes the plan-write lock of the checkout named by the argument and holds it; another then tries
// to take it for a short while. Prints what each got.
import { spawn } from 'node:child_process';
import { planWriteLockAt } from '../../src/node/planWriteLock';

const [root, role] = process.argv.slice(2);
if (root === undefined) throw new Error('usage: namespaceLockPair.ts ROOT');
if (role === 'hold') {
  const lock = planWriteLockAt(root, 0)();
  process.stdout.write(lock.held ? 'held\n' : `not held: ${lock.problem}\n`);
  setTimeout(() => (lock.held ? lock.release() : undefined), 3000);
} else {
  const holder = spawn(process.execPath, ['--import', 'tsx', __filename, root, 'hold'], { stdio: ['ignore', 'pipe', 'inherit'] });
  holder.stdout.once('data', (chunk: Buffer) => {
    const held = chunk.toString().trim();
    const taker = planWriteLockAt(root, 300)();
    process.stdout.write(`holder: ${held}; taker: ${taker.held ? 'took it' : 'waited'}\n`);
    if (taker.held) taker.release();
    holder.kill();
  });
}
