// Loaded into a `wave-scope` process with --require (NODE_OPTIONS): each time the process tries to put its
// plan-write lock in place (src/node/planWriteLock.ts renames it there), a line goes to the file named by
// LOCK_PROBE_LOG. A test that holds the lock waits for that line to know the command has come as far as the
// lock (and is waiting for it) before it changes the plan, with no fixed sleep. Nothing else changes.
const fs = require('node:fs');
const renameSync = fs.renameSync;
fs.renameSync = function (from, to, ...rest) {
  if (typeof to === 'string' && to.endsWith('plan-write.lock') && process.env.LOCK_PROBE_LOG) fs.appendFileSync(process.env.LOCK_PROBE_LOG, `attempt ${process.pid}\n`);
  return renameSync.call(this, from, to, ...rest);
};
