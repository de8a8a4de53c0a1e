// Issue 10 item 16, through the built CLI in real repositories: `plan write` and `materialize` refuse
// every entry that can name control state (globs included, by the scope algebra rather than by how the
// entry starts), and the manifest validator refuses grants that can, so no plan and no hand-edited
// manifest hands the state directory or git's own files to a wave.
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { cleanEnv, runBuiltCli } from '../support/builtCli';
import { claudeDecision, hookPayload, writeManifest } from '../support/hookFixtures';
import { createTempGitRepo } from '../support/tempGitRepo';
import type { TempGitRepo } from '../support/tempGitRepo';

describe('control state is no wave\'s territory (built CLI, real git repositories)', () => {
  let repo: TempGitRepo;
  beforeEach(() => {
    repo = createTempGitRepo({ initialFiles: { 'src/a.ts': 'a\n', 'src/x': 'x\n', '.claude/x': 'notes\n', 'README.md': '#\n' } });
  });
  afterEach(() => repo.remove());

  const run = (args: string[], input: unknown) =>
    runBuiltCli(args, { cwd: repo.root, input: typeof input === 'string' ? input : JSON.stringify(input), env: cleanEnv() });
  const declared = () => (existsSync(join(repo.root, '.claude', 'filescopes')) ? readdirSync(join(repo.root, '.claude', 'filescopes')) : []);

  // Entries that name a path inside the state directory without starting with its name as a prefix.
  const insideStateDir = ['{.claude,src}/x', '.clau[d]e/x', '.claude*/x'];
  // Entries that name other control state.
  const otherControl: Array<[string, RegExp]> = [
    ['.git/', /can name "\.git\/[^"]*", which is control state \(git's own files and hooks\)/],
    ['{src,.husky}/pre-commit', /can name "\.husky\/pre-commit", which is control state \(git's own files and hooks\)/],
    ['.codex/hooks.json', /can name "\.codex\/hooks\.json", which is control state \(an agent CLI's hook settings\)/],
    ['AGENTS.md', /can name "AGENTS\.md", which is control state \(a file that changes what agents run or are told\)/],
  ];

  for (const command of [
    ['plan', 'write', '--wave', '1', '--role', 'implementation'],
    ['materialize', '--state-dir', '.claude', '--wave', '1'],
  ]) {
    const name = command.slice(0, 2).join(' ');
    for (const entry of insideStateDir) {
      it(`${name} refuses ${entry}, naming the path inside the state directory, and writes nothing`, () => {
        const result = run(command, [{ id: 'alice', files: ['src/a.ts'] }, { id: 'bob', files: [entry] }]);
        assert.equal(result.status, 1, result.stderr);
        assert.match(
          result.stderr,
          // plan write indents each problem under its "stopped at step" line; an entry that names nothing but
          // paths inside the state directory "lies inside" it, one that can also name others "can name" one.
          new RegExp(
            `^ERROR: (?:  )?record "bob", entry "${entry.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}": (?:lies inside|can name "\\.claude\\/x", inside) the state directory "\\.claude\\/", which holds the wave's own declarations and manifest; no agent may own it$`,
            'm',
          ),
        );
        assert.deepEqual(declared(), []);
        assert.equal(existsSync(join(repo.root, '.claude', 'wave-scope.json')), false);
      });
    }
    for (const [entry, pattern] of otherControl) {
      it(`${name} refuses ${entry} as control state and writes nothing`, () => {
        const result = run(command, [{ id: 'bob', files: [entry] }]);
        assert.equal(result.status, 1, result.stderr);
        assert.match(result.stderr, pattern);
        assert.deepEqual(declared(), []);
      });
    }
    it(`${name} still takes repository-wide globs and the paths beside control state`, () => {
      const result = run(command, [{ id: 'alice', files: ['**/*.test.ts', '.github/workflows/', '.gitignore', 'docs/AGENTS.md'] }]);
      assert.equal(result.status, 0, result.stderr);
    });
  }

  const manifest = (allowedPaths: string[]) => JSON.stringify({ version: 1, wave: 1, role: 'implementation', allowedPaths, blockedCommands: [], session_id: 's' });
  for (const grant of ['.git/', '.claude/', '.git/hooks/pre-commit', '{src,.claude}/settings.json']) {
    it(`validate refuses a manifest that grants ${grant}`, () => {
      const result = run(['validate'], manifest(['src/', grant]));
      assert.equal(result.status, 1);
      assert.match(result.stderr, /^ERROR: "allowedPaths"\[1\] .* can name ".*", which is control state \(.*\): no wave grants it$/m);
    });
  }

  it('the write gate treats a manifest granting control state as unusable and denies (fail closed)', () => {
    writeManifest(repo, { allowedPaths: ['src/', '.git/'] });
    for (const target of ['.git/hooks/pre-commit', 'src/a.ts']) {
      const reply = runBuiltCli(['hook', 'enforce-write'], { cwd: repo.root, input: hookPayload('claude-write', { cwd: repo.root, target: join(repo.root, target) }), env: cleanEnv() });
      const decision = claudeDecision(reply.stdout);
      assert.equal(decision.decision, 'deny', target);
      assert.match(decision.text, /is unusable \(.*which is control state \(git's own files and hooks\)/);
    }
  });
});
