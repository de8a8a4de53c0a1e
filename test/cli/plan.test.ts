import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runBuiltCli } from '../support/builtCli';
import { assertEachPlantRefused, plantAt, plantsInWave } from '../support/plantedLinks';
import type { Plant } from '../support/plantedLinks';
import { createTempGitRepo } from '../support/tempGitRepo';
import type { TempGitRepo } from '../support/tempGitRepo';

describe('wave-scope plan (built CLI, real git repository)', () => {
  let repo: TempGitRepo;
  beforeEach(() => {
    repo = createTempGitRepo({ initialFiles: { 'src/cart/total.ts': 'x', 'src/ui/button.ts': 'y', 'README.md': '#' } });
  });
  afterEach(() => repo.remove());

  const env = (session?: string) => {
    const copy = { ...process.env };
    delete copy.CLAUDE_CODE_SESSION_ID;
    if (session !== undefined) copy.CLAUDE_CODE_SESSION_ID = session;
    return copy;
  };
  const run = (args: string[], input: unknown = '', session?: string) =>
    runBuiltCli(['plan', ...args], { cwd: repo.root, input: typeof input === 'string' ? input : JSON.stringify(input), env: env(session) });
  const records = [
    { id: 'alice', files: ['src/cart/total.ts'] },
    { id: 'bob', files: ['src/ui/'] },
  ];
  const manifestAt = (dir = '.claude') => join(repo.root, dir, 'wave-scope.json');

  it('plan write runs the chain into .claude and binds the manifest to CLAUDE_CODE_SESSION_ID', () => {
    const result = run(['write', '--wave', '1', '--role', 'implementation'], records, '  sess-42 ');
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /^wave 1 \(implementation\) planned: \.claude\/wave-scope\.json grants \d+ entries; bound to session sess-42\n  alice: ws1-[0-9a-f]{16}\n  bob: ws1-[0-9a-f]{16}\n$/);
    const manifest = JSON.parse(readFileSync(manifestAt(), 'utf8'));
    assert.equal(manifest.session_id, 'sess-42');
    assert.ok(manifest.allowedPaths.includes('src/cart/total.test.ts'));
    assert.ok(existsSync(join(repo.root, '.claude/filescopes/wave-1/alice.json')));
  });

  it('plan write warns when an agent would own a lockfile or package manifest (through a folder too), and still writes the wave', () => {
    repo.write({ 'package-lock.json': '{}\n', 'packages/web/package.json': '{}\n' });
    repo.git('add', '--all');
    repo.git('commit', '--quiet', '-m', 'manifests');
    const result = run(['write', '--wave', '1', '--role', 'implementation'], [
      { id: 'alice', files: ['package-lock.json', 'src/cart/'] },
      { id: 'bob', files: ['packages/web/'] },
      { id: 'coordinator', files: ['package.json'] },
    ]);
    assert.equal(result.status, 0, result.stderr);
    const warnings = result.stderr.split('\n').filter((line) => line.startsWith('WARNING: '));
    assert.equal(warnings.filter((line) => /package-lock\.json/.test(line) && /alice/.test(line)).length, 1, result.stderr);
    assert.equal(warnings.filter((line) => /packages\/web\/package\.json/.test(line) && /bob/.test(line) && /through "packages\/web\/"/.test(line)).length, 1, result.stderr);
    assert.ok(!warnings.some((line) => /coordinator/.test(line.replace(/the coordinator/g, ''))), 'the coordinator may own them');
    assert.ok(existsSync(manifestAt()), 'a warning, never a refusal');
  });

  it('plan write without a session id over a bound manifest keeps its binding (a person\'s terminal does not take the plan over for every session), and says so', () => {
    assert.equal(run(['write', '--wave', '1', '--role', 'implementation'], records, 'sess-agent').status, 0);
    const result = run(['write', '--wave', '2', '--role', 'review'], records);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /^wave 2 \(review\) planned: .*; bound to session sess-agent\n/);
    assert.equal(JSON.parse(readFileSync(manifestAt(), 'utf8')).session_id, 'sess-agent');
  });

  it('plan write without a session id leaves the manifest unbound and says so', () => {
    const result = run(['write', '--wave', '1', '--role', 'implementation', '--enforcement', 'warn', '--blocked-command', 'git push'], records);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /unbound \(no session id in this process\)/);
    const manifest = JSON.parse(readFileSync(manifestAt(), 'utf8'));
    assert.equal('session_id' in manifest, false);
    assert.equal(manifest.enforcement, 'warn');
    assert.deepEqual(manifest.blockedCommands, ['git push']);
  });

  it('plan write refuses in a linked worktree, whose hooks read the main checkout\'s plan (it would never be enforced), naming both; --state-dir writes where it is told', () => {
    const worktree = `${repo.root}-session2`;
    repo.git('worktree', 'add', '--quiet', '-b', 'session2', worktree);
    try {
      const refused = runBuiltCli(['plan', 'write', '--wave', '1', '--role', 'implementation'], { cwd: worktree, input: JSON.stringify(records), env: env() });
      assert.equal(refused.status, 1, refused.stderr);
      assert.match(refused.stderr, /plan write stopped at step "state-dir": .*-session2 is a linked worktree of .*, and the hooks of every checkout of this repository read the plan of /);
      assert.match(refused.stderr, /give this session a clone of its own/);
      assert.equal(existsSync(join(worktree, '.claude/wave-scope.json')), false, 'nothing written');
      const told = runBuiltCli(['plan', 'write', '--wave', '1', '--role', 'implementation', '--state-dir', join(repo.root, '.claude')], { cwd: worktree, input: JSON.stringify(records), env: env() });
      assert.equal(told.status, 0, told.stderr);
      assert.equal(existsSync(manifestAt()), true, 'written into the main checkout, where the hooks read it');
    } finally {
      repo.git('worktree', 'remove', '--force', worktree);
    }
  });

  it('plan write --json prints the result document', () => {
    const result = run(['write', '--wave', '1', '--role', 'docs', '--json'], records, 's');
    const parsed = JSON.parse(result.stdout);
    assert.equal(parsed.ok, true);
    assert.equal(parsed.manifest.wave, 1);
    assert.deepEqual(parsed.manifest.allowedPaths, ['src/cart/total.ts', 'src/ui/']);
    assert.deepEqual(Object.keys(parsed.digests), ['alice', 'bob']);
  });

  it('plan write stops at assert-disjoint, names the pair and a witness, writes nothing, exits 1', () => {
    const result = run(['write', '--wave', '1', '--role', 'implementation'], [{ id: 'alice', files: ['src/**'] }, { id: 'bob', files: ['src/ui/'] }]);
    assert.equal(result.status, 1);
    assert.equal(
      result.stderr,
      'ERROR: plan write stopped at step "assert-disjoint": the declared scopes are not disjoint (1 problem); nothing was written\n' +
        'ERROR:   agents "alice" and "bob" both claim "src/ui/button.ts" ("src/**" and "src/ui/", glob)\n',
    );
    assert.equal(existsSync(join(repo.root, '.claude')), false);
  });

  it('plan write refuses a wave too complex to prove disjoint (unproven is not disjoint), writes nothing, exits 1, in seconds', () => {
    const braceList = (prefix: string) => `{${Array.from({ length: 1024 }, (_, index) => `${prefix}${index}`).join(',')}}`;
    const heavy = ['a', 'b'].map((id) => ({ id, files: [0, 1, 2].map((entry) => `**/*.${braceList(`${id}${entry}_`)}`) }));
    const result = run(['write', '--wave', '1', '--role', 'implementation'], heavy);
    assert.equal(result.status, 1, result.stderr);
    assert.match(result.stderr, /^ERROR: plan write stopped at step "assert-disjoint": the scopes are too complex to prove disjoint \(more than 2000000 pairs of alternatives to compare\): write fewer or shorter brace lists and globs; nothing was written\n/);
    assert.equal(existsSync(join(repo.root, '.claude')), false);
  });

  it('plan write --json on failure prints the failure document too', () => {
    const result = run(['write', '--wave', '1', '--role', 'implementation', '--json'], [{ id: 'a', files: ['x'] }, { id: 'b', files: ['x'] }]);
    assert.equal(result.status, 1);
    const parsed = JSON.parse(result.stdout);
    assert.equal(parsed.step, 'assert-disjoint');
    assert.deepEqual(parsed.collisions[0].agents, ['a', 'b']);
  });

  it("plan write writes beside another session's manifest, never over it", () => {
    mkdirSync(join(repo.root, '.claude'));
    const peer = '{"version":1,"wave":1,"role":"implementation","allowedPaths":["x"],"blockedCommands":[],"session_id":"peer"}';
    writeFileSync(manifestAt(), peer);
    const result = run(['write', '--wave', '1', '--role', 'implementation'], records, 'me');
    assert.equal(result.status, 0, result.stderr);
    assert.equal(readFileSync(manifestAt(), 'utf8'), peer);
    assert.equal(JSON.parse(readFileSync(manifestAt('.pi'), 'utf8')).session_id, 'me');
    const explicit = run(['write', '--wave', '1', '--role', 'implementation', '--state-dir', '.claude'], records, 'me');
    assert.equal(explicit.status, 1);
    assert.match(explicit.stderr, /^ERROR: plan write stopped at step "state-dir": .*belongs to another session; refusing to overwrite it/);
  });

  it('plan write refuses (exit 1) a symbolic link or a directory planted where it would write or remove a plan file or pass to one, naming it, and writes nothing', () => {
    const three = [...records, { id: 'carol', files: ['README.md'] }];
    assert.equal(run(['write', '--wave', '1', '--role', 'implementation'], three, 'me').status, 0);
    // The next plan changes bob's entries and drops carol: the chain would write the manifest's skeleton,
    // remove the aggregate, write each per-agent file, remove carol's, write the aggregate and the manifest.
    const next = [records[0], { id: 'bob', files: ['src/ui/button.ts'] }];
    const plants: Plant[] = [...plantsInWave(1, 'bob', 'carol'), { name: 'the manifest linked to a copy elsewhere', path: '.claude/wave-scope.json', kind: 'link' }];
    const stateDir = join(repo.root, '.claude');
    assertEachPlantRefused(repo.root, stateDir, plants, 'plan write', () => run(['write', '--wave', '1', '--role', 'implementation'], next, 'me'));
    const json = JSON.parse(run(['write', '--wave', '1', '--role', 'implementation', '--json'], next, 'me').stdout);
    assert.equal(json.ok, true);
    assert.deepEqual(JSON.parse(readFileSync(join(stateDir, 'filescopes/wave-1/bob.json'), 'utf8')), ['src/ui/button.ts']);
    assert.equal(existsSync(join(stateDir, 'filescopes/wave-1/carol.json')), false);
  });

  it('plan write --json names the entry in its way in the failure document (step state-dir)', () => {
    assert.equal(run(['write', '--wave', '1', '--role', 'implementation'], records, 'me').status, 0);
    const outside = join(repo.root, '..', `${repo.root.split('/').pop()}-outside`);
    const restore = plantAt(repo.root, { name: 'bob', path: '.claude/filescopes/wave-1/bob.json', kind: 'link' }, outside);
    try {
      const refused = run(['write', '--wave', '1', '--role', 'implementation', '--json'], records, 'me');
      assert.equal(refused.status, 1, refused.stderr);
      const parsed = JSON.parse(refused.stdout);
      assert.equal(parsed.ok, false);
      assert.equal(parsed.step, 'state-dir');
      assert.deepEqual(parsed.inTheWay, { path: join(repo.root, '.claude/filescopes/wave-1/bob.json'), found: 'symlink' });
      assert.deepEqual([parsed.written, parsed.removed], [[], []]);
    } finally {
      restore();
    }
  });

  const errors: Array<[string, string[], unknown, RegExp]> = [
    ['no subcommand', [], '', /^$/],
    ['an unknown subcommand', ['frob'], '', /^ERROR: unknown plan subcommand "frob" \(expected "write" or "show"\)\n/],
    ['no --wave', ['write', '--role', 'r'], records, /^ERROR: --wave is required\n/],
    ['a bad --wave', ['write', '--wave', '-1', '--role', 'r'], records, /^ERROR: Option '--wave' argument is ambiguous|^ERROR: --wave must be a positive integer/],
    ['no --role', ['write', '--wave', '1'], records, /^ERROR: --role is required\n/],
    ['an empty --role', ['write', '--wave', '1', '--role', ' '], records, /^ERROR: --role must not be empty\n/],
    ['a bad --enforcement', ['write', '--wave', '1', '--role', 'r', '--enforcement', 'lax'], records, /^ERROR: --enforcement must be strict, warn or off, got "lax"\n/],
    ['a positional', ['write', '--wave', '1', '--role', 'r', 'x'], records, /^ERROR: unexpected argument "x"\n/],
    ['empty stdin', ['write', '--wave', '1', '--role', 'r'], '', /^ERROR: no records on stdin/],
    ['invalid records', ['write', '--wave', '1', '--role', 'r'], [{ id: 'coordinator', files: [] }, { id: 'Coordinator', files: [] }], /^ERROR: plan write stopped at step "validate": the wave plan is invalid \(1 problem\); nothing was written\nERROR: {3}record #2: id "Coordinator" must be spelled exactly "coordinator"/],
    ['an unknown show option', ['show', '--frob'], '', /^ERROR: Unknown option '--frob'/],
  ];
  for (const [name, args, input, pattern] of errors) {
    it(`exits 1 for ${name}`, () => {
      const result = run(args, input);
      assert.equal(result.status, 1);
      assert.match(result.stderr, pattern);
      assert.equal(existsSync(join(repo.root, '.claude')), false);
    });
  }

  it('plan show --json reads what plan write wrote', () => {
    run(['write', '--wave', '1', '--role', 'implementation'], records, 'me');
    const result = run(['show', '--json'], '', 'me');
    assert.equal(result.status, 0, result.stderr);
    const view = JSON.parse(result.stdout);
    assert.equal(view.activeWave, 1);
    assert.equal(view.manifest.session, 'own');
    assert.deepEqual(view.manifest.boundTo, ['me']);
    assert.deepEqual(view.waves[0].agents.map((agent: { id: string }) => agent.id), ['alice', 'bob']);
    assert.deepEqual(view.waves[0].agents[1].entries, [{ entry: 'src/ui/', kind: 'glob', matches: 1 }]);
  });

  it('plan show says whom the manifest holds: this session, another one, a process without a session id, or every session', () => {
    run(['write', '--wave', '1', '--role', 'docs'], records, 'me');
    const firstLine = (session?: string) => {
      const result = run(['show'], '', session);
      assert.equal(result.status, 0, result.stderr);
      return result.stdout.split('\n')[0] ?? '';
    };
    assert.match(firstLine('me'), /, bound to this session \(me\)$/);
    assert.match(firstLine('other'), /, bound to another session \(me\): this session's edits are not held to it, its commits are$/);
    assert.match(firstLine(), /, bound to session me \(this process carries no session id, so it is held to it\)$/);
    rmSync(manifestAt());
    run(['write', '--wave', '1', '--role', 'docs'], records);
    assert.match(firstLine('me'), /, unbound \(every session is held to it\)$/);
    const view = JSON.parse(run(['show', '--json'], '', 'me').stdout);
    assert.deepEqual(view.manifest.boundTo, []);
  });

  it('plan show prints a readable summary', () => {
    run(['write', '--wave', '1', '--role', 'docs'], records, 'me');
    const result = run(['show'], '', 'other');
    assert.equal(result.status, 0);
    assert.match(result.stdout, /^State dir \.claude: manifest \.claude\/wave-scope\.json names wave 1 \(docs, strict\), 2 allowed entries, bound to another session \(me\): this session's edits are not held to it, its commits are\n/);
    assert.match(result.stdout, /Wave 1: complete, active \(\.claude\/filescopes\/wave-1\.scopes\.json\)\n {2}alice {2}ws1-/);
    assert.match(result.stdout, /src\/ui\/ {2}1 match\n/);
  });

  it('plan show reads the plan as the hooks do: a scope file that is a link is shown unreadable, not as the file it leads to', () => {
    run(['write', '--wave', '1', '--role', 'implementation'], records, 'me');
    const scopeFile = join(repo.root, '.claude/filescopes/wave-1/alice.json');
    writeFileSync(join(repo.root, 'wide.json'), '["**"]\n');
    rmSync(scopeFile);
    symlinkSync(join(repo.root, 'wide.json'), scopeFile);
    const result = run(['show', '--json'], '', 'me');
    assert.equal(result.status, 0, result.stderr);
    const view = JSON.parse(result.stdout) as { waves: Array<{ status: string; agents: Array<{ id: string; entries: Array<{ entry: string }> }>; problems: string[] }> };
    const wave = view.waves[0];
    assert.ok(wave !== undefined);
    assert.equal(wave.status, 'inconsistent');
    // alice's entries are the aggregate's; the file behind the link (which grants everything) is not read.
    assert.deepEqual(wave.agents.find((agent) => agent.id === 'alice')?.entries.map((entry) => entry.entry), ['src/cart/total.ts']);
    assert.deepEqual(wave.problems, [`${scopeFile} cannot be read: ${scopeFile} is a symbolic link: Wave Scope reads its control files only as regular files reached from ${repo.root} through real directories, as its own writers leave them; remove the link`]);
  });

  it('plan show with nothing on disk', () => {
    const result = run(['show']);
    assert.equal(result.stdout, 'State dir .claude: no manifest (.claude/wave-scope.json)\nNo wave declared.\n');
  });

  it('plan write prints a typo warning for an entry on stdin and still writes the plan (exit 0)', () => {
    const result = run(
      ['write', '--wave', '1', '--role', 'implementation'],
      [
        { id: 'alice', files: ['src/cart/{total.ts,}'] },
        { id: 'bob', files: ['src/ui/'] },
      ],
      'sess-1',
    );
    assert.equal(result.status, 0, result.stderr);
    assert.equal(
      result.stderr,
      'WARNING: record "alice" on stdin: scope entry "src/cart/{total.ts,}" has an empty alternative between its braces, so it also names every file beneath src/cart/ (remove the stray comma if that is not meant)\n',
    );
    assert.ok(existsSync(manifestAt()));
  });

  it('plan write prints the warning before the step that stops it, and keeps that step\'s exit code', () => {
    const result = run(['write', '--wave', '1', '--role', 'implementation'], [
      { id: 'alice', files: ['src/{cart/total.ts,ui/[abc}'] },
      { id: 'bob', files: ['src/cart/total.ts'] },
    ]);
    assert.equal(result.status, 1);
    const lines = result.stderr.split('\n');
    assert.equal(
      lines[0],
      'WARNING: record "alice" on stdin: scope entry "src/{cart/total.ts,ui/[abc}" has an unclosed "[" in "[abc", which is read as a literal "[", not as a set of characters',
    );
    assert.match(lines[1] ?? '', /^ERROR: plan write stopped at step "assert-disjoint"/);
    assert.equal(existsSync(manifestAt()), false);
  });
});
