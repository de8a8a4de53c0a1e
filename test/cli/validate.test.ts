import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runBuiltCli } from '../support/builtCli';
import { createTempGitRepo } from '../support/tempGitRepo';
import type { TempGitRepo } from '../support/tempGitRepo';

const manifest = (allowedPaths: string[], role = 'implementation') =>
  JSON.stringify({ version: 1, wave: 1, role, enforcement: 'strict', allowedPaths, blockedCommands: [] });

describe('wave-scope validate (built CLI, real git repositories)', () => {
  let repo: TempGitRepo;
  const sidecar = (name: string, records: unknown) => {
    repo.write({ [name]: JSON.stringify(records) });
    return name;
  };
  const validate = (args: string[], input = '') => runBuiltCli(['validate', ...args], { cwd: repo.root, input });

  beforeEach(() => {
    repo = createTempGitRepo({
      initialFiles: {
        'src/api/server.ts': '',
        'src/shared/types.ts': '',
        'src/ui/App.tsx': '',
        'src/ui/Cart.stories.tsx': '',
        'docs/guide.md': '',
        'README.md': '',
      },
    });
  });
  afterEach(() => repo.remove());

  describe('--assert-disjoint', () => {
    it('exits 0 with nothing on stderr and echoes the manifest when the wave is disjoint', () => {
      const path = sidecar('wave.json', [
        { id: 'api', files: ['src/api/'] },
        { id: 'ui', files: ['src/ui/**/*.tsx'] },
      ]);
      const text = manifest(['src/api/', 'src/ui/**/*.tsx']);
      const run = validate(['--assert-disjoint', path], text);
      assert.equal(run.status, 0);
      assert.equal(run.stderr, '');
      assert.equal(run.stdout, text);
    });

    it('exits 1 and prints one line per colliding pair, with a real file from git ls-files as the example', () => {
      const path = sidecar('wave.json', [
        { id: 'api', files: ['src/api/', 'src/shared/types.ts'] },
        { id: 'ui', files: ['src/ui/**/*.tsx', './src//shared/types.ts'] },
        { id: 'docs', files: ['docs/', '**/*.stories.tsx'] },
      ]);
      const run = validate(['--assert-disjoint', path, '--no-manifest']);
      assert.equal(run.status, 1);
      assert.equal(run.stdout, '');
      assert.equal(
        run.stderr,
        [
          'ERROR: agents "api" and "ui" both claim src/shared/types.ts',
          'ERROR: agents "api" and "docs" both claim src/api/ and **/*.stories.tsx (for example src/api/x.stories.tsx)',
          'ERROR: agents "ui" and "docs" both claim src/ui/**/*.tsx and **/*.stories.tsx (for example src/ui/Cart.stories.tsx)',
          '',
        ].join('\n'),
      );
    });

    it('prints exactly the documented JSON with --json', () => {
      const path = sidecar('wave.json', [
        { id: 'a', files: ['src/*.ts'] },
        { id: 'b', files: ['src/a.*'] },
        { id: 'B', files: ['lib/'] },
      ]);
      const run = validate(['--assert-disjoint', path, '--no-manifest', '--json']);
      assert.equal(run.status, 1);
      assert.deepEqual(JSON.parse(run.stdout), {
        ok: false,
        collisions: [{ agents: ['a', 'b'], entries: ['src/*.ts', 'src/a.*'], kind: 'glob', witness: 'src/a.ts' }],
        duplicateIds: ['b'],
      });
      assert.deepEqual(Object.keys(JSON.parse(run.stdout)), ['ok', 'collisions', 'duplicateIds']);
    });

    it('reports a duplicate id on its own line', () => {
      const path = sidecar('wave.json', [
        { id: 'api', files: ['a.ts'] },
        { id: 'Api', files: ['b.ts'] },
      ]);
      const run = validate(['--assert-disjoint', path, '--no-manifest']);
      assert.equal(run.status, 1);
      assert.match(run.stderr, /^ERROR: agent id "api" is used by more than one record/);
    });

    it('promotes a plain directory entry on evidence from git (src/ui ≡ src/ui/)', () => {
      const path = sidecar('wave.json', [
        { id: 'ui', files: ['src/ui'] },
        { id: 'stories', files: ['src/ui/Cart.stories.tsx'] },
      ]);
      const run = validate(['--assert-disjoint', path, '--no-manifest', '--json']);
      assert.equal(run.status, 1);
      assert.deepEqual(JSON.parse(run.stdout).collisions[0].entries, ['src/ui/', 'src/ui/Cart.stories.tsx']);
    });

    it('reads known files from --known-files instead of git', () => {
      const path = sidecar('wave.json', [
        { id: 'a', files: ['pkg/*'] },
        { id: 'b', files: ['pkg/*.ts'] },
      ]);
      repo.write({ 'known.txt': 'pkg/real.ts\npkg/other.md\n' });
      const run = validate(['--assert-disjoint', path, '--no-manifest', '--known-files', 'known.txt', '--json']);
      assert.equal(JSON.parse(run.stdout).collisions[0].witness, 'pkg/real.ts');
    });

    it('folds case with --ignore-case, and by default where git says core.ignorecase', () => {
      const path = sidecar('wave.json', [
        { id: 'a', files: ['SRC/Main.ts'] },
        { id: 'b', files: ['src/main.ts'] },
      ]);
      assert.equal(validate(['--assert-disjoint', path, '--no-manifest']).status, 0);
      assert.equal(validate(['--assert-disjoint', path, '--no-manifest', '--ignore-case']).status, 1);
      repo.git('config', 'core.ignorecase', 'true');
      assert.equal(validate(['--assert-disjoint', path, '--no-manifest']).status, 1);
    });

    it('works outside any git repository (no known files: synthesised examples)', () => {
      const outside = mkdtempSync(join(tmpdir(), 'wave-scope-nogit-'));
      try {
        writeFileSync(join(outside, 'wave.json'), JSON.stringify([{ id: 'a', files: ['x/*.ts'] }, { id: 'b', files: ['x/**'] }]));
        const run = runBuiltCli(['validate', '--assert-disjoint', 'wave.json', '--no-manifest'], { cwd: outside });
        assert.equal(run.status, 1);
        assert.equal(run.stderr, 'ERROR: agents "a" and "b" both claim x/*.ts and x/** (for example x/x.ts)\n');
      } finally {
        rmSync(outside, { recursive: true, force: true });
      }
    });
  });

  describe('unusable input exits 2 with one ERROR line saying what and where', () => {
    const cases: Array<{ title: string; setup: () => string[]; input?: string; stderr: RegExp }> = [
      { title: 'a missing sidecar', setup: () => ['--assert-disjoint', 'nope.json', '--no-manifest'], stderr: /^ERROR: cannot read the sidecar nope\.json \(ENOENT\)\n$/ },
      {
        title: 'a sidecar that is not JSON',
        setup: () => {
          repo.write({ 'bad.json': '[{' });
          return ['--assert-disjoint', 'bad.json', '--no-manifest'];
        },
        stderr: /^ERROR: the sidecar bad\.json is not valid JSON: /,
      },
      {
        title: 'a sidecar of the wrong shape (a per-agent file)',
        setup: () => ['--assert-disjoint', sidecar('agent.json', ['src/a.ts']), '--no-manifest'],
        stderr: /^ERROR: sidecar agent\.json: record 1 is not an object: each record is \{"id": "\.\.\.", "files": \[\.\.\.\]\}\n$/,
      },
      {
        title: 'a rejected entry, naming record and entry',
        setup: () => ['--assert-disjoint', sidecar('w.json', [{ id: 'a', files: ['ok.ts', '../out.ts'] }]), '--no-manifest'],
        stderr: /^ERROR: sidecar w\.json: record 1 \("a"\), entry 2: scope entry "\.\.\/out\.ts" climbs out of the repository/,
      },
      { title: 'an empty stdin without --no-manifest', setup: () => ['--assert-disjoint', sidecar('w.json', [])], stderr: /^ERROR: no manifest on stdin/ },
      { title: 'a manifest that is not JSON', setup: () => ['--assert-disjoint', sidecar('w.json', [])], input: '{', stderr: /^ERROR: the manifest on stdin is not valid JSON/ },
      { title: 'an unknown flag', setup: () => ['--assert-disjointed', 'x'], stderr: /^ERROR: Unknown option '--assert-disjointed'/ },
      { title: '--no-manifest with --union', setup: () => ['--union', sidecar('w.json', []), '--no-manifest'], stderr: /^ERROR: --no-manifest refuses --union and --assert-subset/ },
      { title: '--json with --union', setup: () => ['--union', sidecar('w.json', []), '--json'], input: manifest([]), stderr: /^ERROR: --union prints JSON already/ },
    ];
    for (const { title, setup, input, stderr } of cases) {
      it(title, () => {
        const run = validate(setup(), input);
        assert.equal(run.status, 2, run.stderr);
        assert.match(run.stderr, stderr);
        assert.equal(run.stderr.split('\n').filter((line) => line.startsWith('ERROR:')).length, 1);
      });
    }
  });

  describe('--assert-subset and --union, in order', () => {
    it('passes a scope file inside allowedPaths (glob inside glob) and fails one outside, with an example', () => {
      repo.write({ 'in.json': JSON.stringify(['src/api/**/*.ts', 'src/shared/types.ts']), 'out.json': JSON.stringify(['src/api/', 'docs/*.md']) });
      const text = manifest(['src/api/', 'src/shared/']);
      assert.equal(validate(['--assert-subset', 'in.json'], text).status, 0);
      const run = validate(['--assert-subset', 'out.json'], text);
      assert.equal(run.status, 1);
      assert.equal(run.stderr, 'ERROR: docs/*.md (in out.json) is not inside allowedPaths (for example docs/x.md)\n');
    });

    it('prints the union with test siblings for the manifest role, instead of the manifest', () => {
      const path = sidecar('wave.json', [
        { id: 'api', files: ['src/api/server.ts'] },
        { id: 'ui', files: ['src/ui/', './src/api/server.ts'] },
      ]);
      const run = validate(['--union', path], manifest([], 'implementation'));
      assert.equal(run.status, 0);
      const entries = JSON.parse(run.stdout) as string[];
      assert.deepEqual(entries.slice(0, 2), ['src/api/server.ts', 'src/ui/']);
      assert.ok(entries.includes('src/api/server.test.ts'));
      const discovery = JSON.parse(validate(['--union', path], manifest([], 'discovery')).stdout);
      assert.deepEqual(discovery, ['src/api/server.ts', 'src/ui/']);
    });

    it('never prints a union over colliding declarations: disjointness runs first', () => {
      const path = sidecar('wave.json', [
        { id: 'a', files: ['src/shared/types.ts'] },
        { id: 'b', files: ['src/shared/'] },
      ]);
      const run = validate(['--assert-disjoint', path, '--union', path], manifest(['src/shared/']));
      assert.equal(run.status, 1);
      assert.equal(run.stdout, '');
      assert.match(run.stderr, /both claim src\/shared\/types\.ts and src\/shared\//);
    });

    it('checks the subset before disjointness', () => {
      const path = sidecar('wave.json', [
        { id: 'a', files: ['x.ts'] },
        { id: 'b', files: ['x.ts'] },
      ]);
      repo.write({ 'scope.json': JSON.stringify(['elsewhere.ts']) });
      const run = validate(['--assert-subset', 'scope.json', '--assert-disjoint', path], manifest(['x.ts']));
      assert.equal(run.status, 1);
      assert.match(run.stderr, /^ERROR: elsewhere\.ts \(in scope\.json\) is not inside allowedPaths/);
      assert.doesNotMatch(run.stderr, /both claim/);
    });
  });

  describe('typo warnings (docs/scope-grammar.md § 6): WARNING lines on stderr that never change the exit code', () => {
    const emptyAlternative =
      'WARNING: sidecar wave.json, record "api": scope entry "src/api/{server.ts,}" has an empty alternative between its braces, so it also names every file beneath src/api/ (remove the stray comma if that is not meant)\n';

    it('a disjoint wave with a typo still exits 0 and echoes the manifest; the warning names the sidecar, the record and the entry', () => {
      const path = sidecar('wave.json', [
        { id: 'api', files: ['src/api/{server.ts,}'] },
        { id: 'ui', files: ['src/ui/[abc', 'src/ui/**/*.{tsx'] },
      ]);
      const text = manifest(['src/api/', 'src/ui/']);
      const run = validate(['--assert-disjoint', path], text);
      assert.equal(run.status, 0);
      assert.equal(run.stdout, text);
      assert.equal(
        run.stderr,
        emptyAlternative +
          'WARNING: sidecar wave.json, record "ui": scope entry "src/ui/[abc" has an unclosed "[" in "[abc", which is read as a literal "[", not as a set of characters\n' +
          'WARNING: sidecar wave.json, record "ui": scope entry "src/ui/**/*.{tsx" has an unclosed "{" in "*.{tsx", which is read as a literal "{", not as a list of alternatives\n',
      );
    });

    it('the warning explains a collision the typo causes, and the exit code stays the collision\'s', () => {
      const path = sidecar('wave.json', [
        { id: 'api', files: ['src/api/{server.ts,}'] },
        { id: 'ops', files: ['src/api/health.ts'] },
      ]);
      const run = validate(['--assert-disjoint', path, '--no-manifest']);
      assert.equal(run.status, 1);
      assert.equal(
        run.stderr,
        `${emptyAlternative}ERROR: agents "api" and "ops" both claim src/api/{server.ts,} and src/api/health.ts (for example src/api/health.ts)\n`,
      );
    });

    it('with --json the report alone is on stdout', () => {
      const path = sidecar('wave.json', [{ id: 'api', files: ['src/api/{server.ts,}'] }]);
      const run = validate(['--assert-disjoint', path, '--no-manifest', '--json']);
      assert.equal(run.status, 0);
      assert.deepEqual(JSON.parse(run.stdout), { ok: true, collisions: [], duplicateIds: [] });
      assert.equal(run.stderr, emptyAlternative);
    });

    it('warns about the entries of a scope file too, and reads a sidecar used twice once', () => {
      repo.write({ 'scope.json': JSON.stringify(['src/api/[ab', 'src/api/*.ts']) });
      const path = sidecar('wave.json', [{ id: 'api', files: ['src/api/{server.ts,}'] }]);
      const run = validate(['--assert-subset', 'scope.json', '--assert-disjoint', path, '--union', path], manifest(['src/api/']));
      assert.equal(run.status, 0);
      assert.equal(
        run.stderr,
        'WARNING: scope file scope.json: scope entry "src/api/[ab" has an unclosed "[" in "[ab", which is read as a literal "[", not as a set of characters\n' + emptyAlternative,
      );
      assert.deepEqual(JSON.parse(run.stdout).slice(0, 1), ['src/api/{server.ts,}']);
    });

    it('a clean wave gets no warning (the CLI never says "matches nothing"), and a rejected entry gets its error, not a warning', () => {
      const clean = sidecar('clean.json', [{ id: 'api', files: ['src/{api,shared}/*.ts', 'src/ui/{App}.tsx', 'src/**/*.py'] }]);
      assert.equal(validate(['--assert-disjoint', clean, '--no-manifest']).stderr, '');
      const rejected = sidecar('bad.json', [{ id: 'api', files: ['{,}'] }]);
      const run = validate(['--assert-disjoint', rejected, '--no-manifest']);
      assert.equal(run.status, 2);
      assert.match(run.stderr, /^ERROR: sidecar bad\.json: .*"\{,\}" expands to no path at all/);
      assert.doesNotMatch(run.stderr, /WARNING/);
    });
  });
});
