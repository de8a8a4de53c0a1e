// startThreadPool (src/node/threadPool.ts), in real Node processes: the probe below is bundled with esbuild
// and run by plain node (under tsx the loader has started the pool before any test code runs). It ties up
// six of the pool's threads in blocking opens of FIFOs nobody writes, then asks for one stat: with the
// default four threads the stat waits behind them, with a wider pool a thread is free and it is answered.
// The probe gives the stat two seconds, then frees the FIFOs and says what happened.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildSync } from 'esbuild';

const PROBE = `
import { close, constants, open, openSync, stat } from 'node:fs';
import { startThreadPool } from './src/node/threadPool';
const [fifoList, threads, startedBefore] = process.argv.slice(2);
if (startedBefore === 'yes') stat('.', () => undefined);
if (Number(threads) > 0) startThreadPool(Number(threads));
const fifos = fifoList.split(',');
for (const fifo of fifos) open(fifo, 'r', (error, descriptor) => { if (!error) close(descriptor, () => undefined); });
let settled = false;
const settle = (answered) => {
  if (settled) return;
  settled = true;
  console.log(JSON.stringify({ answered, variable: process.env.UV_THREADPOOL_SIZE ?? null }));
  // Each FIFO opened for reading and writing (which never blocks on Linux) and held until the probe exits:
  // an open blocked on it returns, and so does one still queued behind the others, whenever a thread starts
  // it. (Opened write-only and closed at once, a FIFO whose reader had not started yet was refused, and the
  // open that started later blocked for good, holding the process at exit.)
  for (const fifo of fifos) openSync(fifo, constants.O_RDWR);
};
stat('.', () => settle(true));
setTimeout(() => settle(false), 2000).unref();
`;

describe('node/threadPool (real processes)', () => {
  let dir: string;
  let probe: string;
  before(() => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-pool-')));
    const built = buildSync({ stdin: { contents: PROBE, loader: 'ts', resolveDir: resolve(__dirname, '..', '..') }, bundle: true, platform: 'node', format: 'cjs', write: false });
    probe = join(dir, 'probe.js');
    writeFileSync(probe, built.outputFiles[0]?.text ?? '');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  let round = 0;
  /** Runs the probe with six FIFOs of its own; what it printed. */
  const runProbe = (threads: number, options: { env?: NodeJS.ProcessEnv; startedBefore?: boolean } = {}) => {
    round += 1;
    const fifos = Array.from({ length: 6 }, (_, i) => join(dir, `round${round}-fifo${i}`));
    execFileSync('mkfifo', fifos);
    const env = { ...process.env, ...options.env };
    if (options.env?.UV_THREADPOOL_SIZE === undefined) delete env.UV_THREADPOOL_SIZE;
    const output = execFileSync(process.execPath, [probe, fifos.join(','), String(threads), options.startedBefore === true ? 'yes' : 'no'], { env, encoding: 'utf8', timeout: 20_000 });
    return JSON.parse(output) as { answered: boolean; variable: string | null };
  };

  it('with the default pool, six blocked threads hold up the next request (the probe can tell)', () => {
    assert.deepEqual(runProbe(0), { answered: false, variable: null });
  });

  it('starts a wider pool, and leaves no UV_THREADPOOL_SIZE behind for child processes', () => {
    assert.deepEqual(runProbe(8), { answered: true, variable: null });
  });

  it("keeps the size the user chose with UV_THREADPOOL_SIZE", () => {
    assert.deepEqual(runProbe(8, { env: { UV_THREADPOOL_SIZE: '4' } }), { answered: false, variable: '4' });
  });

  it('changes nothing once the pool has started', () => {
    assert.deepEqual(runProbe(8, { startedBefore: true }), { answered: false, variable: null });
  });
});
