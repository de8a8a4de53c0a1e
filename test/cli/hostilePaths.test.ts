import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanEnv, runBuiltCli } from '../support/builtCli';
import { claudeDecision, hookPayload, writeManifest } from '../support/hookFixtures';
import { createTempGitRepo } from '../support/tempGitRepo';
import type { TempGitRepo } from '../support/tempGitRepo';

describe('hostile target spellings (built dist/cli.js, real repository with symlinks)', () => {
  let repo: TempGitRepo;
  let outside: string;

  before(() => {
    repo = createTempGitRepo({ initialFiles: { 'src/a.ts': 'a\n', 'secret/key.pem': 'k\n', 'caf\u00e9.md': 'c\n' } });
    outside = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-hostile-')));
    mkdirSync(join(repo.root, 'src/sub'), { recursive: true });
    symlinkSync('../secret', join(repo.root, 'src/escape'));
    symlinkSync(outside, join(repo.root, 'src/out'));
    symlinkSync('../../secret/new.pem', join(repo.root, 'src/sub/dangling'));
    writeManifest(repo, { allowedPaths: ['src/', 'caf\u00e9.md'] });
  });
  after(() => {
    repo.remove();
    rmSync(outside, { recursive: true, force: true });
  });

  const gate = (target: unknown) => {
    const run = runBuiltCli(['hook', 'enforce-write'], { input: hookPayload('claude-write', { cwd: repo.root, target }), env: cleanEnv() });
    assert.equal(run.status, 0, run.stderr);
    return claudeDecision(run.stdout);
  };

  const table: Array<{ name: string; target: (root: string) => unknown; expected: 'allow' | 'deny' }> = [
    { name: 'plain in-scope path', target: () => 'src/a.ts', expected: 'allow' },
    { name: 'absolute in-scope path', target: (root) => `${root}/src/a.ts`, expected: 'allow' },
    { name: '"./" and "//" spellings', target: () => './/src///a.ts', expected: 'allow' },
    { name: 'trailing "/."', target: () => 'src/sub/.', expected: 'allow' },
    { name: 'a detour that comes back', target: () => 'secret/../src/a.ts', expected: 'allow' },
    { name: '".." out of the repository', target: () => '../outside.ts', expected: 'deny' },
    { name: '".." out of the scope', target: () => 'src/../secret/key.pem', expected: 'deny' },
    { name: '".." past the root from inside the scope', target: () => 'src/../../x.ts', expected: 'deny' },
    { name: 'an absolute system path', target: () => '/etc/passwd', expected: 'deny' },
    { name: 'an absolute path in a sibling directory with a common prefix', target: (root) => `${root}-evil/src/a.ts`, expected: 'deny' },
    { name: 'a symlink in the scope pointing out of the scope', target: () => 'src/escape/key.pem', expected: 'deny' },
    { name: 'a symlink in the scope pointing out of the repository', target: () => 'src/out/file.ts', expected: 'deny' },
    { name: 'a dangling symlink in the scope that would create a file outside it', target: () => 'src/sub/dangling', expected: 'deny' },
    { name: '".." applied after the symlink, as the kernel does (lexically it would read src/secret/key.pem)', target: () => 'src/escape/../secret/key.pem', expected: 'deny' },
    { name: 'backslash separators on POSIX', target: () => 'src\\..\\secret\\key.pem', expected: 'deny' },
    { name: 'a harmless-looking backslash on POSIX', target: () => 'src\\a.ts', expected: 'deny' },
    { name: 'a case variant in a case-sensitive repository', target: () => 'SRC/a.ts', expected: 'deny' },
    { name: 'NFD spelling of an in-scope NFC entry', target: () => 'cafe\u0301.md', expected: 'allow' },
    { name: 'NFD spelling of an out-of-scope name', target: () => 'secret/cafe\u0301.md', expected: 'deny' },
    { name: 'a very long path', target: () => `src/${'deep/'.repeat(900)}x.ts`, expected: 'deny' },
    { name: 'a NUL byte', target: () => 'src/a.ts\u0000../../secret/key.pem', expected: 'deny' },
    { name: 'an empty path', target: () => '', expected: 'deny' },
    { name: 'a path that is not a string', target: () => ['src/a.ts'], expected: 'deny' },
  ];
  for (const { name, target, expected } of table) {
    it(`${name}: ${expected}`, () => {
      const reply = gate(target(repo.root));
      assert.equal(reply.decision, expected, reply.text);
    });
  }

  it('denies a path through /proc or /dev/fd, which the hook would resolve in its own process: after `cd src`, Claude Code runs the hook there but writes /proc/self/cwd/… from the root', () => {
    const inSrc = join(repo.root, 'src');
    symlinkSync('/proc/self/cwd', join(inSrc, 'here'));
    try {
      for (const target of ['/proc/self/cwd/secret/key.pem', '/proc/thread-self/cwd/secret/key.pem', 'here/secret/key.pem', '/dev/fd/../cwd/secret/key.pem']) {
        const run = runBuiltCli(['hook', 'enforce-write'], { cwd: inSrc, input: hookPayload('claude-write', { cwd: inSrc, target }), env: cleanEnv() });
        assert.equal(run.status, 0, run.stderr);
        const reply = claudeDecision(run.stdout);
        assert.equal(reply.decision, 'deny', `${target}: ${reply.text}`);
        assert.match(reply.text, /runs through \/proc or \/dev\/fd/, target);
      }
    } finally {
      rmSync(join(inSrc, 'here'));
    }
  });

  it('denies a path with white space around it, which Claude Code trims before writing: from src/, " <root>/secret/key.pem" would be judged as a name inside src/', () => {
    const inSrc = join(repo.root, 'src');
    for (const target of [` ${repo.root}/secret/key.pem`, `\t${repo.root}/secret/key.pem`, `\u00a0${repo.root}/secret/key.pem`, `\ufeff${repo.root}/secret/key.pem`]) {
      const run = runBuiltCli(['hook', 'enforce-write'], { cwd: inSrc, input: hookPayload('claude-write', { cwd: inSrc, target }), env: cleanEnv() });
      assert.equal(run.status, 0, run.stderr);
      const reply = claudeDecision(run.stdout);
      assert.equal(reply.decision, 'deny', `${JSON.stringify(target)}: ${reply.text}`);
      assert.match(reply.text, /starts or ends with white space/);
    }
  });

  it('a case variant is allowed only when the repository says core.ignorecase and the wave was proven with case folded', () => {
    repo.git('config', 'core.ignorecase', 'true');
    try {
      // Proven with case compared (no "ignoreCase" in the manifest): the config alone never widens it.
      assert.equal(gate('SRC/a.ts').decision, 'deny');
      writeManifest(repo, { allowedPaths: ['src/', 'caf\u00e9.md'], ignoreCase: true });
      assert.equal(gate('SRC/a.ts').decision, 'allow');
      assert.equal(gate('SECRET/key.pem').decision, 'deny');
    } finally {
      repo.git('config', 'core.ignorecase', 'false');
      writeManifest(repo, { allowedPaths: ['src/', 'caf\u00e9.md'] });
    }
  });
});
