// The clone's own files in its git directory (src/node/cloneState.ts), on real files: here, the record of
// the last complete sweep of leftovers, which lets the syncs within the hour after it skip theirs.
import assert from 'node:assert/strict';
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { areLeftoversDue, markLeftoversSwept } from '../../src/node/cloneState';

const HOUR = 60 * 60 * 1000;

describe('node/cloneState (real files)', () => {
  let dir: string;
  let gitDir: string;
  let record: string;
  beforeEach(() => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-clone-state-')));
    gitDir = join(dir, '.git');
    mkdirSync(join(gitDir, 'wave-scope'), { recursive: true });
    record = join(gitDir, 'wave-scope', 'leftovers-swept');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  describe('areLeftoversDue and markLeftoversSwept', () => {
    it('a sweep is due until one is recorded, then not for the interval, then again', () => {
      assert.equal(areLeftoversDue(gitDir, Date.now(), HOUR), true, 'never swept');
      markLeftoversSwept(gitDir);
      assert.equal(statSync(record).size, 0);
      assert.equal(areLeftoversDue(gitDir, Date.now(), HOUR), false, 'just swept');
      assert.equal(areLeftoversDue(gitDir, Date.now() + HOUR - 60_000, HOUR), false, 'a minute short of the hour');
      assert.equal(areLeftoversDue(gitDir, Date.now() + HOUR + 60_000, HOUR), true, 'an hour on');
      const twoHoursAgo = new Date(Date.now() - 2 * HOUR);
      utimesSync(record, twoHoursAgo, twoHoursAgo);
      assert.equal(areLeftoversDue(gitDir, Date.now(), HOUR), true);
      markLeftoversSwept(gitDir);
      assert.equal(areLeftoversDue(gitDir, Date.now(), HOUR), false, 'marking again moves the time, the file stays empty');
      assert.equal(statSync(record).size, 0);
    });

    it('a record dated ahead, or anything but a file, counts as none; marking never writes through a link', () => {
      markLeftoversSwept(gitDir);
      const ahead = new Date(Date.now() + 2 * HOUR);
      utimesSync(record, ahead, ahead);
      assert.equal(areLeftoversDue(gitDir, Date.now(), HOUR), true, 'a clock set back does not put sweeps off');

      rmSync(record);
      const elsewhere = join(dir, 'elsewhere');
      writeFileSync(elsewhere, 'kept');
      const old = new Date(Date.now() - 5 * HOUR);
      utimesSync(elsewhere, old, old);
      symlinkSync(elsewhere, record);
      assert.equal(areLeftoversDue(gitDir, Date.now(), HOUR), true, 'a link is not a record');
      markLeftoversSwept(gitDir);
      assert.equal(lstatSync(record).isSymbolicLink(), true, 'the link is left as it is');
      assert.equal(readFileSync(elsewhere, 'utf8'), 'kept');
      assert.ok(Date.now() - statSync(elsewhere).mtimeMs > 4 * HOUR, 'the file it points to was not touched');
      assert.equal(areLeftoversDue(gitDir, Date.now(), HOUR), true);

      rmSync(record);
      mkdirSync(record);
      markLeftoversSwept(gitDir);
      assert.equal(areLeftoversDue(gitDir, Date.now(), HOUR), true, 'a directory is not a record');

      rmSync(join(gitDir, 'wave-scope'), { recursive: true });
      markLeftoversSwept(gitDir);
      assert.equal(areLeftoversDue(gitDir, Date.now(), HOUR), true, 'no wave-scope directory: nothing recorded, quietly');
    });
  });
});
