import assert from 'node:assert/strict';
import { runBuiltCli } from '../support/builtCli';

describe('wave-scope (built dist/cli.js)', () => {
  it('prints its usage with --help and exits 0', () => {
    const run = runBuiltCli(['--help']);
    assert.equal(run.status, 0);
    assert.match(run.stdout, /^Usage: wave-scope <command>/);
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
