import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, readSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const moduleUnderTest = resolve(__dirname, '../../src/node/descriptorOutput.ts');

/**
 * Runs, in a child process, a write of `size` bytes through writeAllToDescriptor to the FIFO at `fifo`,
 * opened non-blocking (as a pipe Node has touched is), with the given timeout. The child prints `open` once
 * its descriptor is open, and exits 0 when the write returned, 1 with the error's code when it threw.
 */
function startWriter(fifo: string, size: number, timeoutMs: number) {
  const script = `
    const { openSync, constants } = require('node:fs');
    const { writeAllToDescriptor } = require(${JSON.stringify(moduleUnderTest)});
    const fd = openSync(${JSON.stringify(fifo)}, constants.O_WRONLY | constants.O_NONBLOCK);
    process.stderr.write('open\\n');
    try { writeAllToDescriptor(fd, 'x'.repeat(${size}), ${timeoutMs}); } catch (error) { process.stderr.write(error.code + '\\n'); process.exit(1); }
  `;
  return spawn(process.execPath, ['--import', 'tsx', '-e', script], { stdio: ['ignore', 'ignore', 'pipe'] });
}

function lines(stream: NodeJS.ReadableStream): { next(): Promise<string>; all: string[] } {
  const all: string[] = [];
  const waiting: Array<(line: string) => void> = [];
  let buffered = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    buffered += chunk;
    for (let end = buffered.indexOf('\n'); end !== -1; end = buffered.indexOf('\n')) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      all.push(line);
      waiting.shift()?.(line);
    }
  });
  let read = 0;
  return { next: () => (read < all.length ? Promise.resolve(all[read++] as string) : new Promise((done) => waiting.push((line) => (read++, done(line))))), all };
}

describe('writeAllToDescriptor: a whole reply through a non-blocking pipe', () => {
  let dir: string;
  let fifo: string;
  beforeEach(() => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-fifo-')));
    fifo = join(dir, 'reply');
    assert.equal(spawnSync('mkfifo', [fifo]).status, 0, 'mkfifo (coreutils) makes the pipe');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('waits while the reader leaves the pipe full, and delivers every byte once it drains', async () => {
    // The read end first, so the writer's non-blocking open finds a reader.
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const size = 300_000;
    const writer = startWriter(fifo, size, 30_000);
    const said = lines(writer.stderr);
    assert.equal(await said.next(), 'open');
    const exited = new Promise<number | null>((done) => writer.on('exit', (code) => done(code)));
    // A reader that looks every few milliseconds: the writer fills the pipe (64 KiB here) long before, and
    // meets EAGAIN again and again until it is drained.
    let received = 0;
    const chunk = Buffer.alloc(65_536);
    let finished: number | null | undefined;
    void exited.then((code) => (finished = code));
    while (finished === undefined || received < size) {
      let count = 0;
      try {
        count = readSync(reader, chunk, 0, chunk.length, null);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
      }
      received += count;
      if (count === 0) await new Promise((tick) => setTimeout(tick, 5));
      if (finished !== undefined && count === 0 && received < size) break;
    }
    closeSync(reader);
    assert.equal(await exited, 0, said.all.join('\n'));
    assert.equal(received, size);
  });

  it('gives up with EAGAIN when nobody reads within the timeout', async () => {
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      const writer = startWriter(fifo, 300_000, 300);
      const said = lines(writer.stderr);
      const code = await new Promise<number | null>((done) => writer.on('exit', (exit) => done(exit)));
      assert.equal(code, 1);
      assert.deepEqual(said.all, ['open', 'EAGAIN']);
    } finally {
      closeSync(reader);
    }
  });
});
