// The ledger's writer and remover (src/node/dispatchLedgerStore.ts) on a real file system: the text written
// is the formatted ledger, nothing is left beside it, and a planted link (at the ledger or as `.orchestrator/`)
// is refused rather than written or removed through.
import assert from 'node:assert/strict';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { acquireLedgerLock, removeLedger, writeLedger } from '../../src/node/dispatchLedgerStore';
import { ledgerLocation } from '../../src/node/ledgerFile';
import { emptyLedger, formatLedger, waveKeyOf } from '../../src/planner/dispatch/sessionLedger';

describe('dispatchLedgerStore: writeLedger and removeLedger', () => {
  let root: string;
  let outside: string;
  beforeEach(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-ledger-store-')));
    outside = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-ledger-outside-')));
  });
  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });
  const ledger = () => emptyLedger('s1', waveKeyOf('s1', 2, 'implementation'), '2026-12-02T04:00:00.000Z');

  it('creates .orchestrator/ and writes exactly the formatted ledger, with no temporary file left', () => {
    const location = ledgerLocation(root, 's1');
    assert.deepEqual(writeLedger(location, ledger()), ledger(), 'it returns the ledger it wrote');
    assert.equal(readFileSync(location.ledgerPath, 'utf8'), formatLedger(ledger()));
    assert.deepEqual(readdirSync(join(root, '.orchestrator')), [location.ledgerPath.split('/').pop()]);
    writeLedger(location, ledger());
    assert.equal(readdirSync(join(root, '.orchestrator')).length, 1, 'a rewrite replaces the file');
  });

  it('refuses to replace a symbolic link at the ledger, and leaves its target alone', () => {
    const location = ledgerLocation(root, 's1');
    mkdirSync(join(root, '.orchestrator'));
    writeFileSync(join(outside, 'victim.json'), 'keep\n');
    symlinkSync(join(outside, 'victim.json'), location.ledgerPath);
    assert.throws(() => writeLedger(location, ledger()), /symbolic link/);
    assert.throws(() => removeLedger(location), /symbolic link/);
    assert.equal(readFileSync(join(outside, 'victim.json'), 'utf8'), 'keep\n');
    assert.ok(lstatSync(location.ledgerPath).isSymbolicLink());
  });

  it('refuses .orchestrator/ when it is a link to another directory', () => {
    symlinkSync(outside, join(root, '.orchestrator'));
    const location = ledgerLocation(root, 's1');
    assert.throws(() => writeLedger(location, ledger()), /symbolic link/);
    writeFileSync(join(outside, location.ledgerPath.split('/').pop() as string), 'keep\n');
    assert.throws(() => removeLedger(location), /symbolic link/);
    assert.deepEqual(readdirSync(outside), [location.ledgerPath.split('/').pop()]);
  });

  it('refuses a directory where the ledger should be', () => {
    const location = ledgerLocation(root, 's1');
    mkdirSync(location.ledgerPath, { recursive: true });
    assert.throws(() => writeLedger(location, ledger()), /not a regular file/);
  });

  it('removes an existing ledger (true) and reports a missing one, or a missing .orchestrator/, as false', () => {
    const location = ledgerLocation(root, 's1');
    assert.equal(removeLedger(location), false);
    assert.ok(!existsSync(join(root, '.orchestrator')), 'a removal creates nothing');
    writeLedger(location, ledger());
    assert.equal(removeLedger(location), true);
    assert.ok(!existsSync(location.ledgerPath));
    assert.equal(removeLedger(location), false);
  });
});

describe('dispatchLedgerStore: the ledger lock', () => {
  let root: string;
  beforeEach(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-ledger-lock-')));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  // Found by red-team review, 2026-12-06: a lock dated in the future never went stale, and every hook waited
  // out its budget.
  it('takes over a lock dated further ahead than the stale time, and leaves a live one to its holder', () => {
    const location = ledgerLocation(root, 's1');
    mkdirSync(join(root, '.orchestrator'), { recursive: true });
    mkdirSync(location.lockPath);
    const tomorrow = new Date(Date.now() + 24 * 3600 * 1000);
    utimesSync(location.lockPath, tomorrow, tomorrow);
    const taken = acquireLedgerLock(location, 200);
    assert.equal(taken.held, true, taken.problem);
    const waiting = acquireLedgerLock(location, 50);
    assert.equal(waiting.held, false, 'a live lock, refreshed now, is not taken over');
    taken.release();
    waiting.release();
  });
});
