// The removal of killed writes' temporary files (src/node/leftoverTemporaryFiles.ts), on real files, with real
// process ids: a pid is dead because the process was started and has ended, alive because it is this one. A
// leftover is planted as createTemporaryFile names it, made old with utimes (test/support/leftoverFiles.ts).
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { lstatSync, lutimesSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cloneStateLeftovers } from '../../src/node/cloneState';
import { LEFTOVER_MINIMUM_AGE_MS, stateDirLeftovers, sweepLeftovers, sweepLeftoversWhile } from '../../src/node/leftoverTemporaryFiles';
import { isProcessGone } from '../../src/node/processes';
import { makeOld, plantLeftover } from '../support/leftoverFiles';

const HOUR = 60 * 60 * 1000;

/** The pid of a process that has run and ended (checked: nothing has it now). */
function deadPid(): number {
  const ended = spawnSync(process.execPath, ['-e', '0']);
  assert.equal(typeof ended.pid, 'number');
  const pid = ended.pid as number;
  assert.equal(isProcessGone(pid), true, `pid ${pid} was taken again before the test could use it`);
  return pid;
}

/** Every name below `dir` (directories, links and files alike), relative to it, sorted. */
function everything(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort();
}

describe('node/leftoverTemporaryFiles (real files, real pids)', () => {
  let dir: string;
  let repo: string;
  let stateDir: string;
  let filescopes: string;
  let gitDir: string;
  beforeEach(() => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-leftovers-')));
    repo = join(dir, 'repo');
    stateDir = join(repo, '.claude');
    filescopes = join(stateDir, 'filescopes');
    gitDir = join(repo, '.git');
    mkdirSync(join(filescopes, 'wave-2'), { recursive: true });
    mkdirSync(join(gitDir, 'wave-scope'), { recursive: true });
    writeFileSync(join(filescopes, 'wave-2', 'alice.json'), '["src/a/"]\n');
    writeFileSync(join(gitDir, 'wave-scope', 'sync-state.json'), '{}\n');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const places = () => [stateDirLeftovers(repo, stateDir), cloneStateLeftovers(gitDir)];

  it('isProcessGone: true only for a pid no process has', () => {
    assert.equal(isProcessGone(process.pid), false);
    assert.equal(isProcessGone(process.ppid), false);
    assert.equal(isProcessGone(1), false, 'init exists (signalled, or refused with EPERM: either way there)');
    assert.equal(isProcessGone(deadPid()), true);
  });

  it('removes, in each directory we write, the old temporary files of dead processes made for the files we write there', () => {
    const dead = deadPid();
    const old = LEFTOVER_MINIMUM_AGE_MS + 60_000;
    const leftovers = [
      plantLeftover(stateDir, 'wave-scope.json', dead, old),
      plantLeftover(filescopes, 'staged', dead, old, ''),
      plantLeftover(filescopes, 'staged', dead, old, ''),
      plantLeftover(filescopes, 'wave-2.scopes.json', dead, old),
      plantLeftover(filescopes, 'wave-17.scopes.json', dead, 30 * 24 * HOUR),
      plantLeftover(join(filescopes, 'wave-2'), 'alice.json', dead, old),
      plantLeftover(join(filescopes, 'wave-2'), 'coordinator.json', dead, old),
      plantLeftover(join(filescopes, 'wave-9'), 'b_1-x.json', dead, old),
      plantLeftover(join(gitDir, 'wave-scope'), 'sync-state.json', dead, old),
      plantLeftover(join(gitDir, 'wave-scope'), 'sync-state.json', dead, old, ''),
      plantLeftover(join(gitDir, 'wave-scope'), 'plan-cache.json', dead, old),
    ];
    const before = everything(dir);
    const removed = sweepLeftovers(places());
    assert.deepEqual([...removed].sort(), [...leftovers].sort());
    assert.deepEqual(everything(dir), before.filter((name) => !leftovers.includes(join(dir, name))), 'nothing else was touched');
    assert.equal(readFileSync(join(filescopes, 'wave-2', 'alice.json'), 'utf8'), '["src/a/"]\n');
  });

  it('leaves a live process\'s files, recent files, names that are not exactly ours, and files of ours in the wrong directory', () => {
    const dead = deadPid();
    const old = LEFTOVER_MINIMUM_AGE_MS + 60_000;
    const wave2 = join(filescopes, 'wave-2');
    // Live processes: this one, its parent, init.
    plantLeftover(filescopes, 'staged', process.pid, old);
    plantLeftover(wave2, 'alice.json', process.ppid, old);
    plantLeftover(stateDir, 'wave-scope.json', 1, old);
    // Dead, but recent: a minute short of the age.
    plantLeftover(filescopes, 'staged', dead, LEFTOVER_MINIMUM_AGE_MS - 60_000);
    plantLeftover(join(gitDir, 'wave-scope'), 'sync-state.json', dead, 0);
    // Names like ours that are not: a file we do not write, an agent file name no agent id makes, no pid or stamp.
    plantLeftover(filescopes, 'notes.json', dead, old);
    plantLeftover(stateDir, 'settings.json', dead, old);
    plantLeftover(wave2, 'alice.txt', dead, old);
    plantLeftover(wave2, '-alice.json', dead, old);
    plantLeftover(join(filescopes, 'wave-02'), 'alice.json', dead, old);
    plantLeftover(join(gitDir, 'wave-scope'), 'clone.json', dead, old);
    for (const name of ['a0.json.tmp', 'alice.json.tmp', `alice.json.${dead}.abc.tmp`, `alice.json.${dead}.${Date.now().toString(36)}abcdef.tmp.bak`, `alice.json.0${dead}.${Date.now().toString(36)}abcdef.tmp`]) {
      writeFileSync(join(wave2, name), 'x');
      makeOld(join(wave2, name), old);
    }
    // Ours, in a directory where that file is not written.
    plantLeftover(stateDir, 'alice.json', dead, old);
    plantLeftover(stateDir, 'staged', dead, old);
    plantLeftover(wave2, 'wave-2.scopes.json', dead, old);
    plantLeftover(wave2, 'staged', dead, old);
    plantLeftover(filescopes, 'alice.json', dead, old);
    plantLeftover(join(gitDir, 'wave-scope'), 'wave-scope.json', dead, old);
    plantLeftover(repo, 'wave-scope.json', dead, old);
    plantLeftover(gitDir, 'sync-state.json', dead, old);
    // Directories we do not know, inside ours.
    plantLeftover(join(filescopes, 'other'), 'staged', dead, old);
    plantLeftover(join(wave2, 'nested'), 'alice.json', dead, old);
    plantLeftover(join(stateDir, 'hooks'), 'wave-scope.json', dead, old);
    plantLeftover(join(gitDir, 'wave-scope', 'old'), 'sync-state.json', dead, old);

    const before = everything(dir);
    assert.deepEqual(sweepLeftovers(places()), []);
    assert.deepEqual(everything(dir), before);
  });

  it('leaves a link, a directory and a FIFO named exactly like a leftover, and never follows a link to a directory', () => {
    const dead = deadPid();
    const old = LEFTOVER_MINIMUM_AGE_MS + 60_000;
    const outside = join(dir, 'outside');
    // Named as ours would be, by a leftover planted outside and moved in.
    const outsideFile = plantLeftover(outside, 'staged', dead, old, 'kept');
    const link = join(filescopes, outsideFile.slice(outside.length + 1));
    symlinkSync(outsideFile, link);
    const when = new Date(Date.now() - old);
    lutimesSync(link, when, when);
    const directory = plantLeftover(join(dir, 'scratch'), 'alice.json', dead, old);
    rmSync(directory);
    const named = join(filescopes, 'wave-2', directory.slice(join(dir, 'scratch').length + 1));
    mkdirSync(named);
    writeFileSync(join(named, 'inside'), 'user data');
    makeOld(named, old);
    const fifo = plantLeftover(join(dir, 'scratch'), 'wave-2.scopes.json', dead, old);
    rmSync(fifo);
    const fifoInside = join(filescopes, fifo.slice(join(dir, 'scratch').length + 1));
    execFileSync('mkfifo', [fifoInside]);
    makeOld(fifoInside, old);
    // A wave directory that is a link to a directory elsewhere holding leftovers of ours, and a state
    // directory that is a link.
    const elsewhere = join(dir, 'elsewhere');
    const throughLink = plantLeftover(elsewhere, 'alice.json', dead, old);
    symlinkSync(elsewhere, join(filescopes, 'wave-3'));
    const linkedState = join(dir, 'linked-state');
    const throughLinkedState = plantLeftover(linkedState, 'wave-scope.json', dead, old);
    symlinkSync(linkedState, join(repo, '.cursor'));

    const before = everything(dir);
    assert.deepEqual(sweepLeftovers([...places(), stateDirLeftovers(repo, join(repo, '.cursor'))]), []);
    assert.deepEqual(everything(dir), before);
    assert.equal(lstatSync(link).isSymbolicLink(), true);
    assert.equal(readFileSync(outsideFile, 'utf8'), 'kept');
    assert.equal(readFileSync(join(named, 'inside'), 'utf8'), 'user data');
    assert.equal(lstatSync(throughLink).isFile(), true);
    assert.equal(lstatSync(throughLinkedState).isFile(), true);
  });

  it('is quiet where there is nothing to sweep: places missing, a file where a directory should be', () => {
    rmSync(gitDir, { recursive: true });
    writeFileSync(gitDir, 'gitdir: elsewhere\n');
    rmSync(filescopes, { recursive: true });
    writeFileSync(filescopes, 'not a directory');
    assert.deepEqual(sweepLeftovers([...places(), stateDirLeftovers(join(dir, 'missing'), join(dir, 'missing', '.claude'))]), []);
  });

  describe('sweepLeftoversWhile', () => {
    it('sweeps on the event loop, not before the caller waits, while it is let', async () => {
      const dead = deadPid();
      const leftovers = Array.from({ length: 40 }, () => plantLeftover(filescopes, 'staged', dead, 2 * HOUR, ''));
      const sweep = sweepLeftoversWhile(places(), () => true);
      assert.deepEqual(sweep.removed, [], 'nothing is done before the caller waits');
      await sweep.slicesOver;
      assert.deepEqual([...sweep.removed].sort(), leftovers.sort());
      assert.deepEqual(readdirSync(filescopes).sort(), ['wave-2']);
      sweep.finish(Infinity);
      assert.equal(sweep.removed.length, leftovers.length, 'nothing more to do');
    });

    it('pauses when it is no longer let; finish looks through the rest, removing only within its budget', async () => {
      const dead = deadPid();
      const leftovers = Array.from({ length: 40 }, () => plantLeftover(filescopes, 'staged', dead, 2 * HOUR, ''));
      const remaining = () => readdirSync(filescopes).length - 1;
      // Let for five steps (a step is a listing, a share of its names, or a removal).
      let asked = 0;
      const paused = sweepLeftoversWhile(places(), () => (asked += 1) <= 5);
      await paused.slicesOver;
      assert.ok(paused.removed.length <= 5, `${paused.removed.length} removed`);
      const left = leftovers.length - paused.removed.length;
      assert.ok(left > 0);
      assert.equal(paused.finish(0), false, 'leftovers found and left for lack of time: not a complete sweep');
      assert.equal(remaining(), left, 'no time given, nothing more removed');
      assert.equal(paused.finish(Infinity), false, 'an ended sweep does nothing more');
      assert.equal(remaining(), left);

      const given = sweepLeftoversWhile(places(), () => false);
      assert.equal(given.finish(Infinity), true, 'given the time, it removes every one');
      assert.equal(remaining(), 0);
      await given.slicesOver;
      assert.equal(sweepLeftoversWhile(places(), () => false).finish(0), true, 'with nothing left over, a sweep without time for removals is complete');
    });
  });
});
