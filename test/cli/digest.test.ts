import assert from 'node:assert/strict';
import { linkSync, mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
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

  it('reads the scope file as the dispatch guard does: one that is a link, lies through one or has a second name is unreadable (exit 2), never the file it leads to', () => {
    const scopeFile = join(repo.root, '.claude/filescopes/wave-2/alice.json');
    writeFileSync(join(repo.root, 'src/wide.json'), '["**"]');
    rmSync(scopeFile);
    symlinkSync(join(repo.root, 'src/wide.json'), scopeFile);
    const linked = run(['--wave', '2', '--agent', 'alice']);
    assert.equal(linked.status, 2);
    assert.match(linked.stderr, /^ERROR: .*alice\.json cannot be read: .*alice\.json is a symbolic link: Wave Scope reads its control files only as regular files/);
    assert.equal(linked.stdout, '');

    rmSync(scopeFile);
    writeFileSync(join(repo.root, 'src/mine.json'), '["src/a.ts"]');
    linkSync(join(repo.root, 'src/mine.json'), scopeFile);
    const secondName = run(['--wave', '2', '--agent', 'alice']);
    assert.equal(secondName.status, 2);
    assert.match(secondName.stderr, /has 2 links/);

    // The wave's directory moved into src/ and linked back: nothing through it is read.
    rmSync(scopeFile);
    writeFileSync(scopeFile, '["src/a.ts"]');
    renameSync(join(repo.root, '.claude/filescopes/wave-2'), join(repo.root, 'src/wave-2'));
    symlinkSync(join(repo.root, 'src/wave-2'), join(repo.root, '.claude/filescopes/wave-2'));
    const throughLink = run(['--wave', '2', '--agent', 'alice']);
    assert.equal(throughLink.status, 2);
    assert.match(throughLink.stderr, /is reached through the symbolic link .*filescopes\/wave-2/);
  });

  it('exits 1 for a scope file that is not an array of strings', () => {
    writeFileSync(join(repo.root, '.claude/filescopes/wave-2/alice.json'), '{"files": []}');
    const result = run(['--wave', '2', '--agent', 'alice']);
    assert.equal(result.status, 1);
    assert.match(result.stderr, /is not a JSON array of path strings/);
  });
});
