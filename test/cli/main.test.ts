import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { builtCliPath, runBuiltCli } from '../support/builtCli';

describe('wave-scope (built dist/cli.js)', () => {
  it('prints its usage with --help and exits 0', () => {
    const run = runBuiltCli(['--help']);
    assert.equal(run.status, 0);
    assert.match(run.stdout, /^Usage: wave-scope <command>/);
  });

  it('prints the version package.json names with --version and exits 0', () => {
    const { version } = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version: string };
    const run = runBuiltCli(['--version']);
    assert.equal(run.status, 0);
    assert.equal(run.stdout, `wave-scope ${version}\n`);
    assert.equal(run.stderr, '');
    // Injected at build time (esbuild.mjs), so package.json is the one place it is written.
    assert.ok(!readFileSync(join(__dirname, '..', '..', 'src', 'cli', 'messages.ts'), 'utf8').includes(version), 'messages.ts hard-codes the version');
  });

  it('finishes quietly with its own exit code when the reader of its output has gone (`| head`)', async () => {
    // The pipe's read end is closed before the CLI has even started, so its first write meets EPIPE.
    const child = spawn(process.execPath, [builtCliPath, '--help'], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const status = await new Promise<number | null>((settle) => child.on('close', settle));
    assert.equal(stderr, '');
    assert.equal(status, 0);
  });

  it('names an unknown command on stderr and exits 2', () => {
    const run = runBuiltCli(['frobnicate']);
    assert.equal(run.status, 2);
    assert.equal(run.stderr, 'ERROR: unknown command "frobnicate". Run "wave-scope --help" for the list.\n');
  });

  it('exits 2 with the usage when no command is given', () => {
    const run = runBuiltCli([]);
    assert.equal(run.status, 2);
    assert.match(run.stdout, /^Usage:/);
  });
});
