import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { appendEvent, ensureRealDirectory } from '../../src/node/eventLog';
import { acquireLedgerLock } from '../../src/node/dispatchLedgerStore';
import { ledgerLocation } from '../../src/node/ledgerFile';

describe('event log: appends', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'wave-scope-events-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('appends one line per record, creating .orchestrator/metrics', () => {
    assert.equal(appendEvent(root, { event: 'a', n: 1 }), true);
    assert.equal(appendEvent(root, { event: 'b', n: 2 }), true);
    assert.equal(readFileSync(join(root, '.orchestrator/metrics/events.jsonl'), 'utf8'), '{"event":"a","n":1}\n{"event":"b","n":2}\n');
  });

  it('records of many processes appending at once never interleave (one write per record, O_APPEND)', async function () {
    this.timeout(120_000);
    const writers = 8;
    const each = 200;
    const script = `require('tsx/cjs'); const { appendEvent } = require(${JSON.stringify(join(__dirname, '..', '..', 'src', 'node', 'eventLog.ts'))}); for (let i = 0; i < ${each}; i++) appendEvent(process.argv[1], { event: 'w', writer: process.argv[2], i, pad: 'x'.repeat(2000) });`;
    await Promise.all(
      Array.from({ length: writers }, (_, writer) =>
        new Promise<void>((resolve, reject) => {
          const child = spawn(process.execPath, ['-e', script, root, String(writer)], { stdio: 'inherit' });
          child.on('error', reject);
          child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`writer ${writer} exited ${code}`))));
        }),
      ),
    );
    const lines = readFileSync(join(root, '.orchestrator/metrics/events.jsonl'), 'utf8').split('\n').filter((line) => line !== '');
    assert.equal(lines.length, writers * each);
    const seen = new Set(lines.map((line) => {
      const record = JSON.parse(line) as { writer: string; i: number };
      return `${record.writer}:${record.i}`;
    }));
    assert.equal(seen.size, writers * each, 'every record whole and once');
  });

  it('never writes through a symbolic link (a planted link cannot redirect the append)', () => {
    const target = join(root, 'victim.txt');
    writeFileSync(target, 'precious\n');
    mkdirSync(join(root, '.orchestrator/metrics'), { recursive: true });
    symlinkSync(target, join(root, '.orchestrator/metrics/events.jsonl'));
    assert.equal(appendEvent(root, { event: 'x' }), false);
    assert.equal(readFileSync(target, 'utf8'), 'precious\n');

    const other = mkdtempSync(join(tmpdir(), 'wave-scope-elsewhere-'));
    try {
      const second = mkdtempSync(join(tmpdir(), 'wave-scope-root-'));
      symlinkSync(other, join(second, '.orchestrator'));
      assert.equal(appendEvent(second, { event: 'x' }), false);
      assert.equal(existsSync(join(other, 'metrics')), false);
      assert.throws(() => ensureRealDirectory(second, '.orchestrator'), /symbolic link/);
      rmSync(second, { recursive: true, force: true });
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});

describe('ledger lock: a time budget', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'wave-scope-lock-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('is held once, then not past the budget while held, then again after release', () => {
    const location = ledgerLocation(root, 's1');
    const first = acquireLedgerLock(location);
    assert.equal(first.held, true);
    const second = acquireLedgerLock(location, 150);
    assert.equal(second.held, false);
    assert.ok(second.waitedMs >= 150 && second.waitedMs < 1500, `waited ${second.waitedMs} ms`);
    first.release();
    const third = acquireLedgerLock(location, 150);
    assert.equal(third.held, true);
    third.release();
  });

  it('a lock that cannot be created at all is reported not held, never thrown', () => {
    writeFileSync(join(root, '.orchestrator'), 'a file where the directory should be');
    const lock = acquireLedgerLock(ledgerLocation(root, 's1'), 100);
    assert.equal(lock.held, false);
    assert.match(lock.problem ?? '', /not a directory/);
  });
});
