// The plan-write lock of a checkout (src/node/planWriteLock.ts), on a real file system with real processes:
// one writer at a time, a lock whose holder is gone taken over at once and one whose holder runs never, a
// release that frees only its own lock, and no link, second name or FIFO written through or waited on.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, linkSync, lutimesSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, renameSync, rmdirSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { PLAN_WRITE_LOCK_BUDGET_MS, PLAN_WRITE_LOCK_FILE, PLAN_WRITE_LOCK_STALE_MS, planWriteLockAt, releaseLockOfStoppedThread } from '../../src/node/planWriteLock';

const support = join(__dirname, '..', 'support');

function ownPidNamespace(): string | null {
  try {
    return readlinkSync('/proc/self/ns/pid');
  } catch {
    return null;
  }
}

/** A pid no process has now (a process that has ended). */
function deadPid(): number {
  const ended = spawnSync(process.execPath, ['-e', '0']);
  assert.equal(ended.status, 0);
  return ended.pid as number;
}

describe('planWriteLock: one writer of a checkout\'s plan at a time', () => {
  let root: string;
  let lockPath: string;
  beforeEach(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-plan-lock-')));
    lockPath = join(root, ...PLAN_WRITE_LOCK_FILE.split('/'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const holderFile = () => join(lockPath, 'holder.json');
  /** A lock as a holder with these particulars left it. */
  const plantLock = (holder: { pid: number; thread?: number; host?: string; at?: number; token?: string; boot?: string; started?: number }) => {
    mkdirSync(lockPath, { recursive: true });
    const particulars = { thread: 0, host: hostname(), pidNamespace: ownPidNamespace(), at: Date.now(), token: 'planted', ...holder };
    writeFileSync(holderFile(), JSON.stringify(particulars));
  };
  const takeNow = (budgetMs = 100) => planWriteLockAt(root, budgetMs)();

  it('makes a second writer wait out its budget and refuses it, naming the lock, its holder and how to free it; released, the next takes it at once', () => {
    const first = takeNow(0);
    assert.equal(first.held, true);
    assert.ok(existsSync(holderFile()), 'the holder is named in the lock');
    const second = takeNow(150);
    assert.equal(second.held, false);
    if (second.held) return;
    assert.match(second.problem, new RegExp(`another Wave Scope command .* is writing this checkout's plan: it holds \\.orchestrator/plan-write\\.lock, held by process ${process.pid} since \\d{4}-`));
    assert.match(second.problem, /did not let go within 0\.15 s\. Nothing was written; run this again once it has finished/);
    assert.match(second.problem, /removing the directory \.orchestrator\/plan-write\.lock frees it at once/);
    if (first.held) first.release();
    assert.equal(existsSync(lockPath), false, 'released: the lock directory is gone');
    const third = takeNow(0);
    assert.equal(third.held, true);
    if (third.held) third.release();
  });

  it('takes over at once a lock whose holder was killed with SIGKILL (no time to let go)', () => {
    const killed = spawnSync(process.execPath, ['--import', 'tsx', join(support, 'killedLockHolder.ts'), root], { encoding: 'utf8' });
    assert.equal(killed.signal, 'SIGKILL', killed.stderr);
    assert.equal(killed.stdout, 'held\n');
    assert.ok(existsSync(lockPath), 'the killed holder left its lock');
    const started = Date.now();
    const next = takeNow(3000);
    assert.equal(next.held, true, next.held ? '' : next.problem);
    assert.ok(Date.now() - started < 1500, 'taken over without waiting for the lock to go stale');
    if (next.held) next.release();
  });

  it('never takes over a lock whose holder still runs on this host, however old (a writer suspended with Ctrl-Z)', () => {
    plantLock({ pid: process.ppid, at: Date.now() - 10 * PLAN_WRITE_LOCK_STALE_MS });
    assert.equal(takeNow().held, false);
  });

  it('takes over a lock it cannot check the holder of (another host, a worker thread, no holder file) once it is stale, and not before', () => {
    const cases: Array<[string, (at: number) => void]> = [
      ['another host', (at) => plantLock({ pid: deadPid(), host: `not-${hostname()}`, at })],
      ['a worker thread of a live process', (at) => plantLock({ pid: process.pid, thread: 7, at })],
      [
        'no readable holder file',
        (at) => {
          mkdirSync(lockPath, { recursive: true });
          writeFileSync(holderFile(), '{"pid":');
          utimesSync(lockPath, new Date(at), new Date(at));
        },
      ],
    ];
    for (const [what, plant] of cases) {
      plant(Date.now() - 1000);
      assert.equal(takeNow().held, false, `${what}: young, waited for`);
      rmSync(lockPath, { recursive: true, force: true });
      plant(Date.now() - PLAN_WRITE_LOCK_STALE_MS - 5000);
      const taken = takeNow();
      assert.equal(taken.held, true, `${what}: stale, taken over`);
      if (taken.held) taken.release();
      assert.equal(existsSync(lockPath), false);
    }
    // Dated far ahead (by hand, or a clock far off), it would never go stale: taken over.
    plantLock({ pid: deadPid(), host: `not-${hostname()}`, at: Date.now() + 24 * 3600 * 1000 });
    const future = takeNow();
    assert.equal(future.held, true);
    if (future.held) future.release();
  });

  it('takes over at once a lock whose holder\'s process provably no longer runs: its pid taken by a process started later, an earlier boot, a worker thread of a process that is gone', () => {
    const ownStart = Number(readFileSync(`/proc/${process.ppid}/stat`, 'utf8').split(') ')[1]!.split(' ')[19]);
    const cases: Array<[string, () => void]> = [
      ['the pid taken again', () => plantLock({ pid: process.ppid, started: ownStart + 1 })],
      ['an earlier boot', () => plantLock({ pid: process.ppid, boot: '00000000-0000-4000-8000-000000000000' })],
      ['a worker thread of a process that is gone', () => plantLock({ pid: deadPid(), thread: 3 })],
    ];
    for (const [what, plant] of cases) {
      plant();
      const taken = takeNow(0);
      assert.equal(taken.held, true, what);
      if (taken.held) taken.release();
    }
    // The same process, started when it says: still running, waited for.
    plantLock({ pid: process.ppid, started: ownStart });
    assert.equal(takeNow(50).held, false, 'the holder as named runs');
  });

  it('takes at once the place of an empty directory (a lock of an earlier version, or one being taken over), never that of a named lock', () => {
    mkdirSync(lockPath, { recursive: true });
    const taken = takeNow(0);
    assert.equal(taken.held, true);
    if (taken.held) taken.release();
  });

  it('takes over at once a lock whose holder is a zombie (ended, never reaped by its parent)', async () => {
    // sh starts a short sleep and becomes a long one, which never waits for it: the short one stays a zombie.
    const parent = spawn('sh', ['-c', 'sleep 0.01 & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const zombie = Number(await new Promise<string>((resolve) => parent.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString()))));
      const stat = () => readFileSync(`/proc/${zombie}/stat`, 'utf8').split(') ')[1]!.split(' ');
      for (const deadline = Date.now() + 5000; stat()[0] !== 'Z'; ) {
        assert.ok(Date.now() < deadline, 'the short sleep ended');
        await new Promise((wake) => setTimeout(wake, 10));
      }
      plantLock({ pid: zombie, started: Number(stat()[19]) });
      const taken = takeNow(0);
      assert.equal(taken.held, true);
      if (taken.held) taken.release();
    } finally {
      parent.kill('SIGKILL');
    }
  });

  it('in a pid namespace whose /proc is another\'s (made without a /proc of its own), never takes over a live holder for a dead one', () => {
    // Both writers in one such namespace (bubblewrap with --unshare-pid and the host's /proc): /proc/<pid>
    // there is another process than the pid names, so the holder cannot be checked, and its lock is waited for.
    const script = join(support, 'namespaceLockPair.ts');
    const run = spawnSync('bwrap', ['--unshare-pid', '--bind', '/', '/', '--dev', '/dev', '--', process.execPath, '--import', 'tsx', script, root], { encoding: 'utf8', cwd: join(__dirname, '..', '..') });
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout.trim(), 'holder: held; taker: waited', run.stderr);
  });

  it('one remover at a time: a lock claimed by another (its holder file renamed for removal) is left to it', () => {
    plantLock({ pid: deadPid() });
    renameSync(holderFile(), join(lockPath, 'claimed.other-taker'));
    assert.equal(takeNow(100).held, false, 'claimed by another: no holder named, and freshly changed, so waited for');
    // The other taker finishes its removal.
    rmSync(join(lockPath, 'claimed.other-taker'));
    rmdirSync(lockPath);
    const taken = takeNow(0);
    assert.equal(taken.held, true);
    if (taken.held) taken.release();
  });

  it('takes over a lock whose holder was killed while letting go (its holder file claimed, the claim left), once it has been left alone two seconds', () => {
    const dead = deadPid();
    plantLock({ pid: dead });
    renameSync(holderFile(), join(lockPath, `claimed.${dead}.left`));
    assert.equal(takeNow(50).held, false, 'just claimed: a claim in progress is waited for');
    const old = new Date(Date.now() - 3000);
    utimesSync(lockPath, old, old);
    const taken = takeNow(0);
    assert.equal(taken.held, true, 'an abandoned claim is taken over in turn');
    if (taken.held) taken.release();
  });

  it('sweeps, when it next takes the lock, what writers killed while placing theirs left, and nothing of a writer that runs', () => {
    const placing = (token: string, pid: number) => {
      const path = `${lockPath}.new.${token}`;
      mkdirSync(path, { recursive: true });
      writeFileSync(join(path, 'holder.json'), JSON.stringify({ pid, thread: 0, host: hostname(), pidNamespace: ownPidNamespace(), at: Date.now(), token }));
      return path;
    };
    const dead = placing('deadwriter', deadPid());
    const running = placing('runningwriter', process.ppid);
    const taken = takeNow(0);
    assert.equal(taken.held, true);
    if (taken.held) taken.release();
    assert.equal(existsSync(dead), false, 'a killed writer\'s leftover is removed');
    assert.equal(existsSync(running), true, 'a running writer\'s is left');
  });

  it('a release frees only its own lock: one taken over from it meanwhile stays its new holder\'s', () => {
    const first = takeNow(0);
    assert.equal(first.held, true);
    // The first holder's lock goes stale as one of another host would (it was suspended, say): the second takes it over.
    const holder = JSON.parse(readFileSync(holderFile(), 'utf8'));
    writeFileSync(holderFile(), JSON.stringify({ ...holder, host: `not-${hostname()}`, at: Date.now() - PLAN_WRITE_LOCK_STALE_MS - 5000 }));
    const second = takeNow();
    assert.equal(second.held, true);
    if (first.held) first.release();
    assert.ok(existsSync(holderFile()), 'the first holder\'s release left the second\'s lock alone');
    assert.equal(takeNow(50).held, false, 'so a third writer still waits');
    if (second.held) second.release();
    assert.equal(existsSync(lockPath), false);
  });

  it('lets exactly one of many writers in when they take over a dead holder\'s lock at the same moment', async function () {
    this.timeout(60_000);
    plantLock({ pid: deadPid() });
    const log = join(root, 'turns.log');
    const writers = Array.from({ length: 6 }, () => new Promise<number | null>((resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', join(support, 'lockTurnTaker.ts'), root, log], { stdio: 'ignore' });
      child.on('exit', (code) => resolve(code));
    }));
    assert.deepEqual(await Promise.all(writers), [0, 0, 0, 0, 0, 0]);
    const lines = readFileSync(log, 'utf8').trim().split('\n');
    assert.equal(lines.length, 12);
    for (let i = 0; i < lines.length; i += 2) {
      const [begin, end] = [lines[i]!.split(' '), lines[i + 1]!.split(' ')];
      assert.deepEqual([begin[0], end[0], begin[1]], ['begin', 'end', end[1]], `turns interleaved: ${lines.join(' | ')}`);
    }
  });

  it('never lets two writers hold it at once while writers are killed at random points (placing, claiming, holding, letting go)', async function () {
    this.timeout(60_000);
    const log = join(root, 'stress.log');
    const stop = join(root, 'stop');
    writeFileSync(log, '');
    const heldBy = () => readFileSync(log, 'utf8').split('\n').filter((line) => line.startsWith('held '));
    const running = new Map<number, ReturnType<typeof spawn>>();
    let started = 0;
    let killed = 0;
    const startWriter = (): Promise<void> => {
      if (existsSync(stop)) return Promise.resolve();
      started += 1;
      const child = spawn(process.execPath, ['--import', 'tsx', join(support, 'lockStressWriter.ts'), root, log, stop], { stdio: 'ignore' });
      running.set(child.pid as number, child);
      return new Promise((resolve) => child.on('exit', () => {
        running.delete(child.pid as number);
        resolve(startWriter());
      }));
    };
    const killer = setInterval(() => {
      // Only writers that have held the lock once (Node's start, slow on a loaded machine, is not the lock):
      // now and then one of them dies wherever it is.
      const ready = new Set(heldBy().map((line) => Number(line.split(' ')[1])));
      const candidates = [...running.keys()].filter((pid) => ready.has(pid));
      if (candidates.length > 0 && Math.random() < 0.5) {
        running.get(candidates[Math.floor(Math.random() * candidates.length)]!)?.kill('SIGKILL');
        killed += 1;
      }
    }, 40);
    const writers = Promise.all(Array.from({ length: 5 }, () => startWriter()));
    // Until enough has happened to mean something, however slow the machine: then the writers stop.
    for (const deadline = Date.now() + 40_000; (heldBy().length < 300 || killed < 20) && Date.now() < deadline; ) {
      await new Promise((wake) => setTimeout(wake, 100));
    }
    writeFileSync(stop, '');
    await writers;
    clearInterval(killer);
    const lines = readFileSync(log, 'utf8').split('\n');
    const holds = lines.filter((line) => line.startsWith('held ')).length;
    assert.deepEqual(lines.filter((line) => line.startsWith('OVERLAP')), [], `${started} writers, ${killed} killed, ${holds} holds`);
    assert.ok(holds > 50 && killed > 5, `enough holds and kills to mean something: ${holds} holds, ${killed} killed`);
    const leftovers = () => readdirSync(join(root, '.orchestrator')).filter((name) => name.includes('.new.') || name.includes('.taken-over.'));
    // What a writer killed while placing its lock left, before it named itself, is known by the pid in its
    // name once it is a couple of seconds old: a writer that takes the lock after that removes it. So is a
    // claim left by a writer killed while letting go (or taking over), once the lock has been left alone as
    // long: the next writer waits its whole budget, which is longer.
    for (const deadline = Date.now() + 15_000; ; ) {
      const next = takeNow(PLAN_WRITE_LOCK_BUDGET_MS);
      assert.equal(next.held, true, 'the lock the last writer left is taken over');
      if (next.held) next.release();
      if (leftovers().length === 0) break;
      assert.ok(Date.now() < deadline, `still left over: ${leftovers().join(', ')}`);
      await new Promise((wake) => setTimeout(wake, 100));
    }
  });

  it('never writes through a name planted in its way, nor waits on a FIFO: a hard link or a FIFO as the holder file, a link as the lock or as .orchestrator', () => {
    const elsewhere = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-plan-lock-elsewhere-')));
    try {
      const precious = join(elsewhere, 'precious');
      writeFileSync(precious, 'kept\n');
      // A stale lock whose holder file is a second name of a file outside: taken over, the file untouched.
      mkdirSync(lockPath, { recursive: true });
      linkSync(precious, holderFile());
      utimesSync(lockPath, new Date(0), new Date(0));
      const overLink = takeNow();
      assert.equal(overLink.held, true);
      if (overLink.held) overLink.release();
      assert.equal(readFileSync(precious, 'utf8'), 'kept\n', 'the file the second name leads to is untouched');

      // A FIFO as the holder file: read without waiting on it (a young lock: waited for, then refused).
      mkdirSync(lockPath);
      assert.equal(spawnSync('mkfifo', [holderFile()]).status, 0);
      assert.equal(takeNow(100).held, false);
      rmSync(lockPath, { recursive: true, force: true });

      // A symbolic link as the lock: judged by its own time (young: waited for), never followed; old, moved aside.
      writeFileSync(join(elsewhere, 'holder.json'), readFileSync(precious));
      symlinkSync(elsewhere, lockPath);
      assert.equal(takeNow(50).held, false);
      lutimesSync(lockPath, new Date(0), new Date(0));
      const overSymlink = takeNow();
      assert.equal(overSymlink.held, true, 'an old link is taken over (renamed aside)');
      if (overSymlink.held) overSymlink.release();
      assert.deepEqual(readdirSync(elsewhere).sort(), ['holder.json', 'precious'], 'nothing made or removed in the directory the link leads to');

      rmSync(join(root, '.orchestrator'), { recursive: true });
      symlinkSync(elsewhere, join(root, '.orchestrator'));
      const refused = takeNow(0);
      assert.equal(refused.held, false);
      if (!refused.held) assert.match(refused.problem, /plan-write lock \.orchestrator\/plan-write\.lock cannot be taken \(refusing to write through the symbolic link .*\); nothing was written/);
      assert.deepEqual(readdirSync(elsewhere).sort(), ['holder.json', 'precious'], 'no lock made through the link');
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it('releaseLockOfStoppedThread lets go of the lock a stopped worker thread of this process held, and of no other', () => {
    plantLock({ pid: process.pid, thread: 4 });
    assert.equal(releaseLockOfStoppedThread(root, 5), false, 'another thread\'s');
    assert.ok(existsSync(lockPath));
    assert.equal(releaseLockOfStoppedThread(root, 4), true);
    assert.equal(existsSync(lockPath), false);
    plantLock({ pid: process.pid, thread: 0 });
    assert.equal(releaseLockOfStoppedThread(root, 0), false, 'never the main thread\'s: it runs');
    rmSync(lockPath, { recursive: true });
    plantLock({ pid: deadPid(), thread: 4 });
    assert.equal(releaseLockOfStoppedThread(root, 4), false, 'never another process\'s');
  });
});
