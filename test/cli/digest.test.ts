import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { scopeDigest, scopeEchoInstruction } from '../../src/planner/scope/scopeDigest';
import { runBuiltCli } from '../support/builtCli';
import { createTempGitRepo } from '../support/tempGitRepo';
import type { TempGitRepo } from '../support/tempGitRepo';

describe('wave-scope digest (built CLI, real git repository)', () => {
  let repo: TempGitRepo;
  beforeEach(() => {
    repo = createTempGitRepo({ initialFiles: { 'src/a.ts': 'a' } });
    runBuiltCli(['materialize', '--state-dir', '.claude', '--wave', '2'], {
      cwd: repo.root,
      input: JSON.stringify([{ id: 'alice', files: ['src/b.ts', 'src/a.ts'] }]),
    });
  });
  afterEach(() => repo.remove());
  const run = (args: string[]) => runBuiltCli(['digest', ...args], { cwd: repo.root });

  it('prints the digest of the agent\'s normalised, sorted entries', () => {
    const result = run(['--wave', '2', '--agent', 'alice']);
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stdout, `${scopeDigest(['src/a.ts', 'src/b.ts'])}\n`);
  });

  it('--instruction prints the line for the agent prompt', () => {
    const result = run(['--wave', '2', '--agent', 'alice', '--instruction']);
    assert.equal(result.stdout, `${scopeEchoInstruction(scopeDigest(['src/a.ts', 'src/b.ts']))}\n`);
  });

  it('finds the state directory by resolution, or takes --state-dir', () => {
    mkdirSync(join(repo.root, 'other/filescopes/wave-2'), { recursive: true });
    writeFileSync(join(repo.root, 'other/filescopes/wave-2/alice.json'), '["x"]');
    assert.equal(run(['--wave', '2', '--agent', 'alice', '--state-dir', 'other']).stdout, `${scopeDigest(['x'])}\n`);
  });

  const errors: Array<[string, string[], number, RegExp]> = [
    ['no --wave', ['--agent', 'alice'], 1, /^ERROR: --wave is required\nRun "wave-scope digest --help"/],
    ['no --agent', ['--wave', '2'], 1, /^ERROR: --agent is required\n/],
    ['a bad wave', ['--wave', 'two', '--agent', 'alice'], 1, /^ERROR: --wave must be a positive integer, got "two"\n/],
    ['an unknown agent', ['--wave', '2', '--agent', 'bob'], 1, /^ERROR: agent "bob" has no scope file in wave 2 \(.*bob\.json\)\n$/],
    ['a wave without declarations', ['--wave', '9', '--agent', 'alice'], 1, /^ERROR: agent "alice" has no scope file in wave 9/],
    ['a hostile agent id', ['--wave', '2', '--agent', '../../x'], 1, /^ERROR: agent id "\.\.\/\.\.\/x" must match/],
    ['an unknown option', ['--wave', '2', '--agent', 'alice', '--frob'], 1, /^ERROR: Unknown option '--frob'/],
  ];
  for (const [name, args, status, pattern] of errors) {
    it(`exits ${status} for ${name}`, () => {
      const result = run(args);
      assert.equal(result.status, status);
      assert.match(result.stderr, pattern);
      assert.equal(result.stdout, '');
    });
  }

  it('exits 1 for a scope file that is not an array of strings', () => {
    writeFileSync(join(repo.root, '.claude/filescopes/wave-2/alice.json'), '{"files": []}');
    const result = run(['--wave', '2', '--agent', 'alice']);
    assert.equal(result.status, 1);
    assert.match(result.stderr, /is not a JSON array of path strings/);
  });
});
