import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runBuiltCli } from '../support/builtCli';
import { assertEachPlantRefused, plantsInWave } from '../support/plantedLinks';
import { createTempGitRepo } from '../support/tempGitRepo';
import type { TempGitRepo } from '../support/tempGitRepo';

describe('wave-scope materialize (built CLI, real git repository)', () => {
  let repo: TempGitRepo;
  beforeEach(() => {
    repo = createTempGitRepo({ initialFiles: { 'src/a.ts': 'a', 'src/lib/b.ts': 'b', 'README.md': '#' } });
  });
  afterEach(() => repo.remove());

  const run = (args: string[], input: unknown) =>
    runBuiltCli(['materialize', ...args], { cwd: repo.root, input: typeof input === 'string' ? input : JSON.stringify(input) });
  const records = [
    { id: 'alice', files: ['src/a.ts', './src//new.ts'] },
    { id: 'bob', files: ['src/lib'] },
    { id: 'coordinator', files: ['README.md'] },
  ];
  const stateFiles = () => {
    const dir = join(repo.root, '.claude', 'filescopes');
    if (!existsSync(dir)) return [];
    return readdirSync(dir, { recursive: true }).map(String).sort();
  };

  it('writes both shapes, normalised, with directory promotion, and says so', () => {
    const result = run(['--state-dir', '.claude', '--wave', '3'], records);
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stdout, 'wave 3: wrote 3 per-agent files, aggregate .claude/filescopes/wave-3.scopes.json\n');
    assert.equal(result.stderr, '');
    assert.deepEqual(stateFiles(), ['wave-3', 'wave-3.scopes.json', 'wave-3/alice.json', 'wave-3/bob.json', 'wave-3/coordinator.json']);
    assert.deepEqual(JSON.parse(readFileSync(join(repo.root, '.claude/filescopes/wave-3/bob.json'), 'utf8')), ['src/lib/']);
    assert.deepEqual(JSON.parse(readFileSync(join(repo.root, '.claude/filescopes/wave-3.scopes.json'), 'utf8')), [
      { id: 'alice', files: ['src/a.ts', 'src/new.ts'] },
      { id: 'bob', files: ['src/lib/'] },
      { id: 'coordinator', files: ['README.md'] },
    ]);
  });

  // Found by red-team review, 2026-12-06: materialize rewrote the active wave with overlapping scopes,
  // and the write gate let alice write bob's file.
  it('refuses (exit 1) the active wave, which only plan write writes, and writes nothing', () => {
    const planned = runBuiltCli(['plan', 'write', '--wave', '2', '--role', 'implementation'], { cwd: repo.root, input: JSON.stringify([{ id: 'alice', files: ['src/a.ts'] }, { id: 'bob', files: ['src/lib/'] }]) });
    assert.equal(planned.status, 0, planned.stderr);
    const before = stateFiles().map((path) => [path, existsSync(join(repo.root, '.claude/filescopes', path)) && path.endsWith('.json') ? readFileSync(join(repo.root, '.claude/filescopes', path), 'utf8') : '']);
    const result = run(['--state-dir', '.claude', '--wave', '2'], [{ id: 'alice', files: ['src/'] }, { id: 'bob', files: ['src/lib/'] }]);
    assert.equal(result.status, 1, result.stderr);
    assert.match(result.stderr, /ERROR: wave 2 is the active wave \(\.claude\/wave-scope\.json names it\): .* write them with "wave-scope plan write --wave 2"/);
    const after = stateFiles().map((path) => [path, existsSync(join(repo.root, '.claude/filescopes', path)) && path.endsWith('.json') ? readFileSync(join(repo.root, '.claude/filescopes', path), 'utf8') : '']);
    assert.deepEqual(after, before, 'nothing written');
    assert.equal(run(['--state-dir', '.claude', '--wave', '3'], records).status, 0, 'another wave is written');
  });

  it('--json prints the written and removed paths', () => {
    run(['--state-dir', '.claude', '--wave', '1'], [{ id: 'old', files: ['x'] }]);
    const result = run(['--state-dir', '.claude', '--wave', '1', '--json'], [{ id: 'alice', files: ['src/a.ts'] }]);
    assert.equal(result.status, 0, result.stderr);
    const stateDir = join(repo.root, '.claude');
    assert.deepEqual(JSON.parse(result.stdout), {
      wave: 1,
      stateDir,
      written: [join(stateDir, 'filescopes/wave-1/alice.json'), join(stateDir, 'filescopes/wave-1.scopes.json')],
      removed: [join(stateDir, 'filescopes/wave-1.scopes.json'), join(stateDir, 'filescopes/wave-1/old.json')],
    });
  });

  it('re-running the same wave converges to exactly the new declaration', () => {
    run(['--state-dir', '.claude', '--wave', '2'], [{ id: 'a', files: ['x'] }, { id: 'b', files: ['y'] }]);
    const second = run(['--state-dir', '.claude', '--wave', '2'], [{ id: 'b', files: ['y2'] }]);
    assert.equal(second.stdout, 'wave 2: wrote 1 per-agent file, removed 1 stale, aggregate .claude/filescopes/wave-2.scopes.json\n');
    assert.deepEqual(stateFiles(), ['wave-2', 'wave-2.scopes.json', 'wave-2/b.json']);
    const snapshot = readFileSync(join(repo.root, '.claude/filescopes/wave-2.scopes.json'), 'utf8');
    run(['--state-dir', '.claude', '--wave', '2'], [{ id: 'b', files: ['y2'] }]);
    assert.equal(readFileSync(join(repo.root, '.claude/filescopes/wave-2.scopes.json'), 'utf8'), snapshot);
  });

  it('--warn-missing names absent plain paths and their agents on stderr only', () => {
    const plain = run(['--state-dir', '.claude', '--wave', '1'], records);
    const warned = run(['--state-dir', '.claude', '--wave', '1', '--warn-missing'], [...records, { id: 'carol', files: ['docs/**', 'gone/'] }]);
    assert.equal(warned.status, 0);
    assert.equal(warned.stderr, 'WARNING: agent "alice" declares "src/new.ts", which does not exist (pass --new-file src/new.ts if the wave creates it)\n');
    assert.equal(warned.stdout, plain.stdout.replace('3 per-agent files', '4 per-agent files'));
  });

  it('--warn-missing does not change stdout or the exit code', () => {
    const without = run(['--state-dir', '.claude', '--wave', '1'], records);
    const withFlag = run(['--state-dir', '.claude', '--wave', '1', '--warn-missing'], records);
    assert.equal(withFlag.stdout, without.stdout);
    assert.equal(withFlag.status, without.status);
    assert.notEqual(withFlag.stderr, without.stderr);
  });

  it('--new-file exempts a declared file from --warn-missing', () => {
    const result = run(['--state-dir', '.claude', '--wave', '1', '--warn-missing', '--new-file', 'src/new.ts'], records);
    assert.equal(result.status, 0);
    assert.equal(result.stderr, '');
  });

  it('resolves a relative --state-dir from the working directory', () => {
    repo.write({ 'sub/keep.txt': '' });
    const result = runBuiltCli(['materialize', '--state-dir', 'here', '--wave', '1'], { cwd: join(repo.root, 'sub'), input: '[{"id":"a","files":["src/a.ts"]}]' });
    assert.equal(result.status, 0, result.stderr);
    assert.ok(existsSync(join(repo.root, 'sub/here/filescopes/wave-1/a.json')));
  });

  const usageErrors: Array<[string, string[], string, RegExp]> = [
    ['no --state-dir', ['--wave', '1'], '[]', /^ERROR: --state-dir is required\nRun "wave-scope materialize --help" for its options\.\n$/],
    ['no --wave', ['--state-dir', '.claude'], '[]', /^ERROR: --wave is required\n/],
    ['--wave 0', ['--state-dir', '.claude', '--wave', '0'], '[]', /^ERROR: --wave must be a positive integer, got "0"\n/],
    ['--wave abc', ['--state-dir', '.claude', '--wave', 'abc'], '[]', /^ERROR: --wave must be a positive integer, got "abc"\n/],
    ['an unknown option', ['--state-dir', '.claude', '--wave', '1', '--frob'], '[]', /^ERROR: Unknown option '--frob'/],
    ['a positional argument', ['--state-dir', '.claude', '--wave', '1', 'extra'], '[]', /^ERROR: unexpected argument "extra"\n/],
    ['empty stdin', ['--state-dir', '.claude', '--wave', '1'], '', /^ERROR: no records on stdin: pipe a JSON array of \{"id", "files"\} records into the command\n/],
    ['stdin that is not JSON', ['--state-dir', '.claude', '--wave', '1'], '[{', /^ERROR: the records on stdin are not valid JSON: /],
  ];
  for (const [name, args, input, pattern] of usageErrors) {
    it(`exits 1 and writes nothing for ${name}`, () => {
      const result = run(args, input);
      assert.equal(result.status, 1);
      assert.match(result.stderr, pattern);
      assert.equal(result.stdout, '');
      assert.deepEqual(stateFiles(), []);
    });
  }

  const inputErrors: Array<[string, unknown, string[], string[]]> = [
    ['an empty array', [], [], ['ERROR: the input is an empty array: a wave declares at least one record']],
    ['a bad id and a bad entry', [{ id: 'a/b', files: ['../x'] }], [], [
      'ERROR: record #1: id "a/b" must match ^[A-Za-z0-9][A-Za-z0-9_-]*$ (letters, digits, "_" and "-"; it becomes a file name)',
      'ERROR: record "a/b", entry "../x": scope entry "../x" climbs out of the repository with "..": scopes name files inside the repository',
    ]],
    ['an undeclared --new-file', [{ id: 'a', files: ['src/a.ts'] }], ['--new-file', 'src/zzz.ts'], [
      'ERROR: --new-file "src/zzz.ts" is not declared by any record: a new file must be one of the declared paths, spelled exactly',
    ]],
  ];
  for (const [name, input, extra, lines] of inputErrors) {
    it(`exits 1, names every problem and writes nothing for ${name}`, () => {
      const result = run(['--state-dir', '.claude', '--wave', '1', ...extra], input);
      assert.equal(result.status, 1);
      assert.equal(result.stderr, `${[...lines, 'ERROR: nothing was written.'].join('\n')}\n`);
      assert.deepEqual(stateFiles(), []);
    });
  }

  it('refuses an entry inside the state directory it writes', () => {
    const result = run(['--state-dir', '.claude', '--wave', '1'], [{ id: 'a', files: ['.claude/filescopes/**'] }]);
    assert.equal(result.status, 1);
    assert.match(result.stderr, /^ERROR: record "a", entry "\.claude\/filescopes\/\*\*": lies inside the state directory "\.claude\/"/);
    assert.deepEqual(stateFiles(), []);
  });

  it('warns when the state directory is not one the hooks read', () => {
    const result = run(['--state-dir', 'plans', '--wave', '1'], [{ id: 'a', files: ['src/a.ts'] }]);
    assert.equal(result.status, 0);
    assert.equal(result.stderr, 'WARNING: plans is not one of .pi, .cursor, .codex, .claude at the repository root: the hooks will not read these declarations\n');
  });

  it('refuses (exit 1) a .claude that is a symbolic link, naming it, and writes nothing through it', () => {
    const outside = join(repo.root, '..', `${repo.root.split('/').pop()}-outside`);
    mkdirSync(outside);
    try {
      symlinkSync(outside, join(repo.root, '.claude'));
      const result = run(['--state-dir', '.claude', '--wave', '1'], records);
      assert.equal(result.status, 1, result.stderr);
      assert.match(result.stderr, /^ERROR: \.claude is a symbolic link where materialize writes the plan: .* Nothing was written\.\n$/);
      assert.deepEqual(readdirSync(outside), []);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('refuses (exit 1) a symbolic link or a directory planted where it would write or remove a declaration file or pass to one, naming it, and writes nothing', () => {
    assert.equal(run(['--state-dir', '.claude', '--wave', '2'], records).status, 0);
    // The next declaration changes bob's entries and drops the coordinator: the writer would remove the
    // aggregate, write each per-agent file, remove the coordinator's and write the aggregate.
    const next = [records[0], { id: 'bob', files: ['src/lib/b.ts'] }];
    assertEachPlantRefused(repo.root, join(repo.root, '.claude'), plantsInWave(2, 'bob', 'coordinator'), 'materialize', () => run(['--state-dir', '.claude', '--wave', '2'], next));
    assert.equal(run(['--state-dir', '.claude', '--wave', '2'], next).status, 0);
    assert.deepEqual(stateFiles(), ['wave-2', 'wave-2.scopes.json', 'wave-2/alice.json', 'wave-2/bob.json']);
  });

  it('refuses (exit 1) a file where the state directory goes', () => {
    writeFileSync(join(repo.root, 'blocker'), 'a file where the state directory should be');
    const result = run(['--state-dir', 'blocker', '--wave', '1'], records);
    assert.equal(result.status, 1);
    assert.match(result.stderr, /^ERROR: blocker is not a directory where materialize writes the plan: /);
  });

  it('exits 2 on a file-system error', () => {
    // Outside the repository the state directory is its own confinement root, and a file on its way there is
    // an error of the file system, met by the first write.
    const blocker = join(repo.root, '..', `${repo.root.split('/').pop()}-blocker`);
    writeFileSync(blocker, 'a file where a directory should be');
    try {
      const result = run(['--state-dir', join(blocker, 'state'), '--wave', '1'], records);
      assert.equal(result.status, 2);
      assert.match(result.stderr, /^ERROR: file-system error, the wave's aggregate is not written: /);
    } finally {
      rmSync(blocker, { force: true });
    }
  });

  it('prints its usage with --help', () => {
    const result = run(['--help'], '');
    assert.equal(result.status, 0);
    assert.match(result.stdout, /^Usage: wave-scope materialize --state-dir DIR --wave N/);
  });

  it('prints a typo warning for each suspicious entry on stdin, and still writes (exit 0)', () => {
    const result = run(['--state-dir', '.claude', '--wave', '2'], [
      { id: 'alice', files: ['src/{a.ts,}', 'src/lib/**/*.{ts'] },
      { files: ['README.md'], id: 'coordinator' },
    ]);
    assert.equal(result.status, 0, result.stderr);
    assert.equal(
      result.stderr,
      'WARNING: record "alice" on stdin: scope entry "src/{a.ts,}" has an empty alternative between its braces, so it also names every file beneath src/ (remove the stray comma if that is not meant)\n' +
        'WARNING: record "alice" on stdin: scope entry "src/lib/**/*.{ts" has an unclosed "{" in "*.{ts", which is read as a literal "{", not as a list of alternatives\n',
    );
    assert.deepEqual(JSON.parse(readFileSync(join(repo.root, '.claude/filescopes/wave-2/alice.json'), 'utf8')), ['src/{a.ts,}', 'src/lib/**/*.{ts']);
  });

  it('prints the warnings before refusing invalid input, whose exit code stays 1', () => {
    const result = run(['--state-dir', '.claude', '--wave', '2'], [
      { id: 'alice', files: ['src/[a', '../outside.ts'] },
    ]);
    assert.equal(result.status, 1);
    assert.match(result.stderr, /^WARNING: record "alice" on stdin: scope entry "src\/\[a" has an unclosed "\["/);
    assert.match(result.stderr, /\nERROR: .*climbs out of the repository/);
    assert.deepEqual(stateFiles(), []);
  });
});
