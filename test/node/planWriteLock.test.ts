// The plan-write lock of a checkout (src/node/planWriteLock.ts over src/node/lockDirectory.ts), on a real
// file system with real processes: one writer at a time, a dead holder's lock taken over, never a link
// written through.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, realpathSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { PLAN_WRITE_LOCK_FILE, PLAN_WRITE_LOCK_STALE_MS, planWriteLockAt } from '../../src/node/planWriteLock';

describe('planWriteLock: one writer of a checkout\'s plan at a time', () => {
  let root: string;
  let lockPath: string;
  beforeEach(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-plan-lock-')));
    lockPath = join(root, ...PLAN_WRITE_LOCK_FILE.split('/'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const holderFile = () => `${lockPath}.holder`;
  /** A lock directory as a holder of `pid` on `host` left it, named for this lock. */
  const plantLock = (pid: number, host = hostname()) => {
    mkdirSync(lockPath, { recursive: true });
    writeFileSync(holderFile(), JSON.stringify({ pid, host, pidNamespace: ownPidNamespace(), lockTime: statSync(lockPath).mtimeMs }));
  };
  const ownPidNamespace = () => {
    try {
      return readlinkSync('/proc/self/ns/pid');
    } catch {
      return null;
    }
  };
  const deadPid = () => {
    const ended = spawnSync(process.execPath, ['-e', '0']);
    assert.equal(ended.status, 0);
    return ended.pid as number;
  };

  it('makes a second writer wait out its budget and refuses it, naming the lock and how to free it; released, the next takes it at once', () => {
    const first = planWriteLockAt(root)();
    assert.equal(first.held, true);
    assert.ok(existsSync(lockPath), 'the lock directory is there while it is held');
    const second = planWriteLockAt(root, 150)();
    assert.equal(second.held, false);
    if (second.held) return;
    assert.match(second.problem, /another Wave Scope command .* is writing this checkout's plan: it holds \.orchestrator\/plan-write\.lock, taken \d+ s ago, and it did not let go within 0\.15 s/);
    assert.match(second.problem, /Nothing was written; run this again once it has finished/);
    assert.match(second.problem, new RegExp(`taken over once it is ${PLAN_WRITE_LOCK_STALE_MS / 1000} s old`));
    assert.match(second.problem, /removing the directory \.orchestrator\/plan-write\.lock frees it at once/);
    first.release();
    assert.equal(existsSync(lockPath), false, 'released: the lock directory is gone');
    assert.equal(existsSync(holderFile()), false, 'and so is the file naming its holder');
    const third = planWriteLockAt(root, 0)();
    assert.equal(third.held, true);
    if (third.held) third.release();
  });

  it('takes over at once a lock whose holder was killed with SIGKILL (no time to let go)', () => {
    const killed = spawnSync(process.execPath, ['--import', 'tsx', join(__dirname, '..', 'support', 'killedLockHolder.ts'), root], { encoding: 'utf8' });
    assert.equal(killed.signal, 'SIGKILL', killed.stderr);
    assert.equal(killed.stdout, 'held\n');
    assert.ok(existsSync(lockPath), 'the killed holder left its lock');
    const started = Date.now();
    const next = planWriteLockAt(root, 3000)();
    assert.equal(next.held, true, next.held ? '' : next.problem);
    assert.ok(Date.now() - started < 1500, 'taken over without waiting for the lock to go stale');
    if (next.held) next.release();
  });

  it('leaves a lock to its stale time when its holder may still run: a live process, one of another host, or no holder named', () => {
    for (const [what, plant] of [
      ['a live process', () => plantLock(process.ppid)],
      ['a process of another host', () => plantLock(deadPid(), `not-${hostname()}`)],
      ['no holder named', () => mkdirSync(lockPath, { recursive: true })],
    ] as const) {
      plant();
      const waiting = planWriteLockAt(root, 100)();
      assert.equal(waiting.held, false, what);
      rmSync(lockPath, { recursive: true, force: true });
      rmSync(holderFile(), { force: true });
    }
    // The same dead process, of this host: taken over.
    plantLock(deadPid());
    const taken = planWriteLockAt(root, 100)();
    assert.equal(taken.held, true, 'a dead holder of this host');
    if (taken.held) taken.release();
  });

  it('does not take over a lock taken again since its dead holder named it (the holder file is another lock\'s)', () => {
    plantLock(deadPid());
    const later = new Date(Date.now() + 2000);
    utimesSync(lockPath, later, later);
    const waiting = planWriteLockAt(root, 100)();
    assert.equal(waiting.held, false);
  });

  it('takes over a lock older than its stale time', () => {
    mkdirSync(lockPath, { recursive: true });
    const old = new Date(Date.now() - PLAN_WRITE_LOCK_STALE_MS - 5000);
    utimesSync(lockPath, old, old);
    const taken = planWriteLockAt(root, 200)();
    assert.equal(taken.held, true);
    if (taken.held) taken.release();
  });

  it('never writes through a link: an .orchestrator that is one is refused, a holder file that is one is left as it is', () => {
    const elsewhere = mkdtempSync(join(tmpdir(), 'wave-scope-plan-lock-elsewhere-'));
    try {
      writeFileSync(join(elsewhere, 'precious'), 'kept\n');
      mkdirSync(join(root, '.orchestrator'));
      symlinkSync(join(elsewhere, 'precious'), holderFile());
      const held = planWriteLockAt(root, 0)();
      assert.equal(held.held, true);
      if (held.held) held.release();
      assert.equal(readFileSync(join(elsewhere, 'precious'), 'utf8'), 'kept\n', 'the file the link leads to is untouched');

      rmSync(join(root, '.orchestrator'), { recursive: true });
      symlinkSync(elsewhere, join(root, '.orchestrator'));
      const refused = planWriteLockAt(root, 0)();
      assert.equal(refused.held, false);
      if (!refused.held) assert.match(refused.problem, /plan-write lock \.orchestrator\/plan-write\.lock cannot be taken \(refusing to write through the symbolic link .*\); nothing was written/);
      assert.equal(existsSync(join(elsewhere, 'plan-write.lock')), false, 'no lock made through the link');
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });
});
