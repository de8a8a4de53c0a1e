// The gate's reading of git's configuration, checked against git itself: the parser against
// `git config --file <f> --list` on a table of config texts, and the hooks directories the gate
// protects against `git rev-parse --git-path hooks` in real repositories with every way of setting
// core.hooksPath (local, worktree, include.path, includeIf, a `\` continuation, global, system, `~`).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodeLocateFileSystem } from '../../../src/node/hookFileSystem';
import { GitConfigError, gitBoolean, hooksDirectories, parseGitConfig, scanGitConfig } from '../../../src/planner/enforce/gitConfig';
import { locateRepository } from '../../../src/planner/enforce/repoLocation';

const texts: string[] = [
  '[core]\n\tignorecase = true\n',
  '[core]\n\tignoreCase = TRUE\n\thooksPath = .husky/_\n',
  '[core] ; comment\n\thooksPath = "/abs/hooks" # trailing\n',
  '[core]\n\tignorecase\n',
  '[core]\n\thooksPath = githooks\\\n/deeper\n',
  '[core]\n\thooksPath = "with \\"quotes\\" and \\\\ backslash"\n',
  '[core]\n\thooksPath = a b  c   \n',
  '[core]\n\thooksPath = "  spaced  "\n',
  '[core]\n\thooksPath = x # comment "y"\n\tbare = false ; more\n',
  '[remote "origin"]\n\turl = git@example.com:x.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n',
  '[includeIf "gitdir:~/work/"]\n\tpath = ~/.gitconfig-work\n[include]\n\tpath = shared.inc\n',
  '[section.Sub]\n\tkey = v\n',
  '[core]hooksPath=inline\n',
  '\uFEFF[core]\n\tx = 1\n',
  '# only a comment\n; another\n',
  'key = outside a section\n',
  '[core]\r\n\thooksPath = crlf\r\n',
  '[core]\n\tsshCommand = "ssh -i key" -v\n',
  '[alias]\n\tlg = "!git log --graph; echo \\"done\\""\n\tst = status # short\n',
  '[url "git@github.com:"]\n\tinsteadOf = https://github.com/\n',
  '[core]\n\tempty =\n\ttab = a\\tb\n',
  '[Section "Sub\\"quoted"]\n\tKey = V\n',
  '[user]\n\tname = Jöhn Dœ\n\temail = j@example.invalid\n',
  // A lone CR is whitespace to git: skipped before a value, trimmed after it, a space inside it.
  '[core]\r\r\n\thooksPath = githooks\r\r\n',
  '[core]\n\tx =\r a\rb \r\n',
  '[core]\n\tx = "a\rb"\n',
  // `\b` is the byte 0x08, not a deletion.
  '[core]\n\thooksPath = githooks\\b\n',
  // A NUL ends git's value (a C string); the rest of the line is still parsed.
  '[core]\n\thooksPath = githooks\0x "y" z\n',
  // Whitespace inside an unquoted value: one space for each character; none before the value, quotes or not.
  '[core]\n\tx = a\t\tb\n',
  '[core]\n\tx = "" a\n',
  '[core]\n\tx = a\\',
  '[core \r"sub"]\n\tx = 1\n',
];

/** git's own reading of a config text: `key=value` lines, lower-cased names, as `git config --list` prints them. */
function gitList(text: string): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'wave-scope-gitconfig-'));
  try {
    const file = join(dir, 'config');
    writeFileSync(file, text);
    const out = execFileSync('git', ['config', '--file', file, '--list', '-z'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    return out
      .split('\0')
      .filter((entry) => entry !== '')
      .map((entry) => (entry.includes('\n') ? entry.replace('\n', '=') : `${entry}`));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function ourList(text: string): string[] {
  return parseGitConfig(text).map((entry) => {
    const name = [entry.section, ...(entry.subsection !== undefined ? [entry.subsection] : []), entry.key].filter((part) => part !== '').join('.');
    return entry.value === undefined ? name : `${name}=${entry.value}`;
  });
}

describe('gitConfig: the parser reads what git reads', () => {
  for (const text of texts) {
    it(JSON.stringify(text), () => assert.deepEqual(ourList(text), gitList(text)));
  }

  const broken = ['[core\n', '[core]\n\tx = "unterminated\n', '[core]\n\tx = bad \\q escape\n', '[core]\n\t0key = v\n', '[core]\n\tx ; comment\n', '[core]\n\tx\r\t\n'];
  for (const text of broken) {
    it(`refuses what git refuses: ${JSON.stringify(text)}`, () => {
      assert.throws(() => parseGitConfig(text), GitConfigError);
      assert.throws(() => gitList(text));
    });
  }

  // A differential test over generated texts (a fixed seed, so a failure reproduces): where both git and
  // the parser read a text, they read the same entries. A refusal on one side only fails closed.
  it('reads generated texts as git does', () => {
    const pieces = ['[core]', '[Core "x"]', '[core.x]', '\n', '\n', '\r\n', '\r', ' ', '\t', 'hooksPath', 'ignorecase', ' = ', '=', 'val', '"', '\\', '\\n', '\\b', '\\t', '\\\n', '\\\r\n', '#', ';', 'a b', '\0', '[', ']', '.', '-', 'x'];
    let seed = 20240611;
    const random = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed / 0x7fffffff;
    };
    let compared = 0;
    for (let n = 0; n < 160; n += 1) {
      // Half of them start a value, where the two readings can differ without either refusing.
      let text = n % 2 === 0 ? '[core]\n\tx = ' : '[core]\n';
      const length = 2 + Math.floor(random() * 6);
      for (let i = 0; i < length; i += 1) text += pieces[Math.floor(random() * pieces.length)];
      let theirs: string[] | undefined;
      let ours: string[] | undefined;
      try {
        theirs = gitList(text);
      } catch {
        theirs = undefined;
      }
      try {
        ours = ourList(text);
      } catch {
        ours = undefined;
      }
      if (theirs === undefined || ours === undefined) continue;
      compared += 1;
      assert.deepEqual(ours, theirs, JSON.stringify(text));
    }
    assert.ok(compared >= 40, `only ${compared} texts read by both`);
  });

  const booleans: Array<[string | undefined, boolean]> = [[undefined, true], ['true', true], ['Yes', true], ['on', true], ['1', true], ['false', false], ['no', false], ['', false], ['0', false]];
  for (const [value, expected] of booleans) it(`gitBoolean(${JSON.stringify(value)}) = ${expected}`, () => assert.equal(gitBoolean(value), expected));
});

describe('gitConfig: the hooks directories the gate protects include the one git runs', () => {
  let base: string;
  let home: string;
  let repo: string;

  beforeEach(() => {
    base = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-hookspath-')));
    home = join(base, 'home');
    repo = join(base, 'repo');
    mkdirSync(home, { recursive: true });
    mkdirSync(repo, { recursive: true });
    git(repo, 'init', '--quiet');
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  const env = () => ({ HOME: home, XDG_CONFIG_HOME: join(home, '.config'), GIT_CONFIG_NOSYSTEM: '1', PATH: process.env.PATH ?? '' });
  function git(cwd: string, ...args: string[]): string {
    return execFileSync('git', args, { cwd, encoding: 'utf8', env: env() }).trim();
  }
  function gitHooks(): string {
    const dir = git(repo, 'rev-parse', '--path-format=absolute', '--git-path', 'hooks');
    return dir.startsWith('/') ? dir : join(repo, dir);
  }
  function protectedDirs(): string[] {
    const location = locateRepository(repo, nodeLocateFileSystem);
    assert.ok(location);
    const scan = scanGitConfig({ commonDir: location.commonDir, gitDir: location.gitDir, env: env(), homeDir: home, fs: nodeLocateFileSystem });
    return hooksDirectories(scan.hooksPaths, [repo], home);
  }
  const normal = (path: string) => path.replace(/\/+$/, '').replace(/\/\.$/, '').replace(/\/\.\//g, '/');

  const setups: Array<{ name: string; setup: () => void }> = [
    { name: 'a relative core.hooksPath with a trailing slash', setup: () => git(repo, 'config', 'core.hooksPath', 'githooks/') },
    { name: './githooks', setup: () => git(repo, 'config', 'core.hooksPath', './githooks') },
    { name: 'githooks/.', setup: () => git(repo, 'config', 'core.hooksPath', 'githooks/.') },
    { name: '~/githooks (git expands ~)', setup: () => git(repo, 'config', 'core.hooksPath', '~/githooks') },
    { name: 'a global core.hooksPath', setup: () => writeFileSync(join(home, '.gitconfig'), '[core]\n\thooksPath = ~/global-hooks\n') },
    { name: 'an XDG global config', setup: () => { mkdirSync(join(home, '.config/git'), { recursive: true }); writeFileSync(join(home, '.config/git/config'), '[core]\n\thooksPath = /abs/xdg-hooks\n'); } },
    { name: 'include.path relative to the including file', setup: () => { writeFileSync(join(repo, '.git/extra.inc'), '[core]\n\thooksPath = included-hooks\n'); git(repo, 'config', 'include.path', 'extra.inc'); } },
    { name: 'includeIf gitdir', setup: () => { writeFileSync(join(home, 'cond.inc'), '[core]\n\thooksPath = cond-hooks\n'); writeFileSync(join(home, '.gitconfig'), `[includeIf "gitdir:${repo}/"]\n\tpath = ~/cond.inc\n`); } },
    { name: 'a nested include in the repository', setup: () => { writeFileSync(join(repo, 'a.inc'), '[include]\n\tpath = b.inc\n'); writeFileSync(join(repo, 'b.inc'), '[core]\n\thooksPath = from-b\n'); git(repo, 'config', 'include.path', '../a.inc'); } },
    { name: 'a \\ continuation in the value', setup: () => writeFileSync(join(repo, '.git/config'), '[core]\n\trepositoryformatversion = 0\n\thooksPath = git\\\nhooks\n') },
    { name: 'config.worktree', setup: () => { git(repo, 'config', 'extensions.worktreeConfig', 'true'); git(repo, 'config', '--worktree', 'core.hooksPath', 'wt-hooks'); } },
    { name: 'the last of several assignments', setup: () => writeFileSync(join(repo, '.git/config'), '[core]\n\trepositoryformatversion = 0\n\thooksPath = first\n[core]\n\thooksPath = second\n') },
  ];
  for (const { name, setup } of setups) {
    it(name, () => {
      setup();
      const expected = normal(gitHooks());
      assert.ok(
        protectedDirs().map(normal).includes(expected),
        `git runs hooks from ${expected}; the gate protects ${JSON.stringify(protectedDirs())}`,
      );
    });
  }

  it('GIT_CONFIG_COUNT pairs from the environment count too', () => {
    const location = locateRepository(repo, nodeLocateFileSystem);
    assert.ok(location);
    const pairs = { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'core.hooksPath', GIT_CONFIG_VALUE_0: 'env-hooks' };
    const scan = scanGitConfig({ commonDir: location.commonDir, gitDir: location.gitDir, env: { ...env(), ...pairs }, homeDir: home, fs: nodeLocateFileSystem });
    const expected = execFileSync('git', ['rev-parse', '--path-format=absolute', '--git-path', 'hooks'], { cwd: repo, encoding: 'utf8', env: { ...env(), ...pairs } }).trim();
    assert.ok(hooksDirectories(scan.hooksPaths, [repo], home).includes(expected));
  });

  it('lists the remotes given a URL, as git remote does, included files and environment pairs too', () => {
    git(repo, 'remote', 'add', 'origin', 'https://example.invalid/a.git');
    writeFileSync(join(repo, 'remotes.inc'), '[remote "Upstream"]\n\turl = ../up.git\n[remote "no-url"]\n\tfetch = +refs/heads/*:refs/remotes/no-url/*\n');
    git(repo, 'config', 'include.path', '../remotes.inc');
    const location = locateRepository(repo, nodeLocateFileSystem);
    assert.ok(location);
    const pairs = { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'remote.env.url', GIT_CONFIG_VALUE_0: '/x.git' };
    const scan = scanGitConfig({ commonDir: location.commonDir, gitDir: location.gitDir, env: { ...env(), ...pairs }, homeDir: home, fs: nodeLocateFileSystem });
    assert.deepEqual(scan.remotes, ['origin', 'Upstream', 'env']);
    const listed = execFileSync('git', ['remote'], { cwd: repo, encoding: 'utf8', env: { ...env(), ...pairs } }).trim().split('\n').sort();
    assert.deepEqual([...scan.remotes].sort(), listed.filter((name) => name !== 'no-url').sort());
  });

  it('asks for one link exactly for the files inside the checkout or a git directory, not for the global and system ones', () => {
    const texts: Record<string, string> = {
      '/home/u/.gitconfig': '[include]\n\tpath = ~/shared.inc\n',
      '/home/u/shared.inc': '[core]\n\tx = 1\n',
      '/repo/.git/config': '[include]\n\tpath = local.inc\n\tpath = ../tracked.inc\n',
      '/repo/.git/local.inc': '',
      '/repo/tracked.inc': '',
      '/main/.git/worktrees/w/config.worktree': '',
    };
    const asked = new Map<string, boolean>();
    const fs = {
      readText(path: string, options?: { singleLink?: boolean }) {
        asked.set(path, options?.singleLink === true);
        return texts[path];
      },
    };
    scanGitConfig({ commonDir: '/repo/.git', gitDir: '/repo/.git', env: { GIT_CONFIG_NOSYSTEM: '1' }, homeDir: '/home/u', fs, roots: ['/repo'] });
    assert.deepEqual(Object.fromEntries(asked), {
      '/home/u/.config/git/config': false,
      '/home/u/.gitconfig': false,
      '/home/u/shared.inc': false,
      '/repo/.git/config': true,
      '/repo/.git/local.inc': true,
      '/repo/tracked.inc': true,
      '/repo/.git/config.worktree': true,
    });
    asked.clear();
    scanGitConfig({ commonDir: '/main/.git', gitDir: '/main/.git/worktrees/w', env: { GIT_CONFIG_NOSYSTEM: '1' }, fs });
    assert.equal(asked.get('/main/.git/worktrees/w/config.worktree'), true, 'a linked worktree\'s own git directory');
    assert.equal(asked.get('/main/.git/config'), true);
  });

  it('every config file git may read, included ones too, is listed (each is control state)', () => {
    writeFileSync(join(repo, 'a.inc'), '[core]\n\tx = 1\n');
    git(repo, 'config', 'include.path', '../a.inc');
    const location = locateRepository(repo, nodeLocateFileSystem);
    assert.ok(location);
    const scan = scanGitConfig({ commonDir: location.commonDir, gitDir: location.gitDir, env: env(), homeDir: home, fs: nodeLocateFileSystem });
    for (const file of [join(repo, '.git/config'), join(repo, 'a.inc'), join(home, '.gitconfig'), join(home, '.config/git/config')]) {
      assert.ok(scan.files.includes(file), `${file} in ${JSON.stringify(scan.files)}`);
    }
  });
});

describe('gitConfig: core.ignorecase as git reads it (red-team finding 4)', () => {
  let base: string;
  let home: string;
  let repo: string;

  beforeEach(() => {
    base = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-ignorecase-')));
    home = base;
    repo = join(base, 'repo');
    mkdirSync(repo, { recursive: true });
    git(repo, 'init', '--quiet', '--initial-branch=main');
    git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.invalid', 'commit', '--quiet', '--allow-empty', '-m', 'init');
    writeFileSync(join(base, 'fold.inc'), '[core]\n\tignorecase = true\n');
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  const env = (): Record<string, string> => ({ HOME: home, XDG_CONFIG_HOME: join(base, '.config'), GIT_CONFIG_NOSYSTEM: '1', PATH: process.env.PATH ?? '' });
  function git(cwd: string, ...args: string[]): string {
    return execFileSync('git', args, { cwd, encoding: 'utf8', env: env(), stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  }
  /** git's own answer, from where it read it (`git config --show-origin`): unset is false. */
  function gitSays(checkout: string): boolean {
    try {
      const line = git(checkout, 'config', '--show-origin', '--bool', '--get', 'core.ignorecase');
      return line.slice(line.lastIndexOf('\t') + 1) === 'true';
    } catch {
      return false;
    }
  }
  function scanAt(checkout: string) {
    const location = locateRepository(checkout, nodeLocateFileSystem);
    assert.ok(location);
    return scanGitConfig({ commonDir: location.commonDir, gitDir: location.gitDir, env: env(), homeDir: home, fs: nodeLocateFileSystem });
  }
  /** The scan never folds grants where git does not, and folds control state wherever git does. */
  function sound(checkout: string) {
    const truth = gitSays(checkout);
    const scan = scanAt(checkout);
    if (scan.ignoreCase) assert.equal(truth, true, 'the gate folds grants where git does not fold');
    if (truth) assert.equal(scan.mayIgnoreCase, true, 'git folds where the gate does not fold control state');
    return { truth, scan };
  }
  const globalIncludeIf = (condition: string) => writeFileSync(join(home, '.gitconfig'), `[includeIf "${condition}"]\n\tpath = ${join(base, 'fold.inc')}\n`);

  // In a linked worktree git matches `gitdir:` against the real path alone, so the gate decides exactly.
  const conditions: Array<(paths: { repo: string; base: string }) => string> = [
    ({ repo }) => `gitdir:${repo}/`,
    ({ repo }) => `gitdir:${repo}`,
    ({ repo }) => `gitdir:${repo}/.git/worktrees/*`,
    ({ repo }) => `gitdir:${repo}/.git/worktrees/w?`,
    ({ repo }) => `gitdir:${repo}/.git/worktrees/[a-w]t`,
    ({ repo }) => `gitdir:${repo}/.git/worktrees/[!w]t`,
    ({ repo }) => `gitdir:${repo}/*/worktrees/wt`,
    ({ repo }) => `gitdir:${repo}/*`,
    ({ repo }) => `gitdir:${repo}/**/wt`,
    () => 'gitdir:worktrees/wt',
    () => 'gitdir:worktrees/',
    () => 'gitdir:/mnt/c/',
    ({ repo }) => `gitdir:${repo.toUpperCase()}/`,
    ({ repo }) => `gitdir/i:${repo.toUpperCase()}/`,
    ({ repo }) => `gitdir/i:${repo.toUpperCase()}/.GIT/WORKTREES/W[S-U]`,
    () => 'gitdir:~/repo/',
    () => 'gitdir:~/other/',
    () => 'gitdir:./repo/',
    () => 'gitdir:./nope/',
    () => 'onbranch:wt',
    () => 'onbranch:main',
    () => 'onbranch:w*',
  ];
  for (const make of conditions) {
    const label = make({ repo: '<repo>', base: '<base>' });
    // A pattern with a glob character of its own is left open (includePattern.ts): only soundness is asked of it.
    const decided = !/[*?[]/.test(label);
    it(`a linked worktree: includeIf "${label}" ${decided ? 'decided as git decides it' : 'left open, never folding grants where git does not'}`, () => {
      git(repo, 'worktree', 'add', '--quiet', join(base, 'wt'));
      globalIncludeIf(make({ repo, base }));
      const { truth, scan } = sound(join(base, 'wt'));
      if (decided) {
        assert.equal(scan.ignoreCase, truth, 'grants');
        assert.equal(scan.mayIgnoreCase, truth, 'control state');
      } else {
        assert.equal(scan.ignoreCase, false, 'an open condition never folds grants');
        assert.equal(scan.mayIgnoreCase, true, 'an open condition folds control state');
      }
    });
    it(`the main checkout: includeIf "${label}" folds grants only where git does`, () => {
      globalIncludeIf(make({ repo, base }));
      const { truth, scan } = sound(repo);
      assert.equal(scan.ignoreCase, decided ? truth : false);
    });
  }

  it('`~/` is the real path of $HOME, as git expands it', () => {
    symlinkSync(base, join(base, 'home-link'));
    home = join(base, 'home-link');
    globalIncludeIf('gitdir:~/repo/');
    const { truth, scan } = sound(repo);
    assert.equal(truth, true);
    assert.equal(scan.ignoreCase, true);
  });

  it('onbranch: a branch with a slash, a trailing slash meaning everything below, a detached HEAD', () => {
    git(repo, 'checkout', '--quiet', '-b', 'feature/x');
    globalIncludeIf('onbranch:feature/');
    assert.deepEqual(pick(sound(repo)), { truth: true, ignoreCase: true, mayIgnoreCase: true });
    git(repo, 'checkout', '--quiet', '--detach');
    assert.deepEqual(pick(sound(repo)), { truth: false, ignoreCase: false, mayIgnoreCase: false });
  });

  it('a file included twice is read twice: the second reading is the last word', () => {
    writeFileSync(join(repo, '.git/config'), `[core]\n\trepositoryformatversion = 0\n[include]\n\tpath = ${join(base, 'fold.inc')}\n[core]\n\tignorecase = false\n[include]\n\tpath = ${join(base, 'fold.inc')}\n`);
    assert.deepEqual(pick(sound(repo)), { truth: true, ignoreCase: true, mayIgnoreCase: true });
  });

  it('config.worktree counts only with extensions.worktreeConfig', () => {
    writeFileSync(join(repo, '.git/config.worktree'), '[core]\n\tignorecase = true\n');
    assert.deepEqual(pick(sound(repo)), { truth: false, ignoreCase: false, mayIgnoreCase: false });
    git(repo, 'config', 'extensions.worktreeConfig', 'true');
    assert.deepEqual(pick(sound(repo)), { truth: true, ignoreCase: true, mayIgnoreCase: true });
  });

  it('a later assignment git surely reads settles what an undecided include said', () => {
    globalIncludeIf('gitdir:/mnt/c/');
    assert.deepEqual(pick(sound(repo)), { truth: false, ignoreCase: false, mayIgnoreCase: true });
    git(repo, 'config', 'core.ignorecase', 'false');
    assert.deepEqual(pick(sound(repo)), { truth: false, ignoreCase: false, mayIgnoreCase: false });
  });

  it('a condition the gate does not evaluate (hasconfig:) leaves both answers open', () => {
    git(repo, 'remote', 'add', 'origin', 'https://example.invalid/a.git');
    globalIncludeIf('hasconfig:remote.*.url:https://example.invalid/**');
    assert.deepEqual(pick(sound(repo)), { truth: true, ignoreCase: false, mayIgnoreCase: true });
  });

  it('a system file of another git build may or may not be read', () => {
    const scan = scanGitConfig({
      commonDir: '/repo/.git',
      gitDir: '/repo/.git',
      env: {},
      fs: { readText: (path) => (path === '/usr/local/etc/gitconfig' ? '[core]\n\tignorecase = true\n' : undefined) },
    });
    assert.deepEqual({ ignoreCase: scan.ignoreCase, mayIgnoreCase: scan.mayIgnoreCase }, { ignoreCase: false, mayIgnoreCase: true });
  });

  function pick({ truth, scan }: { truth: boolean; scan: { ignoreCase: boolean; mayIgnoreCase: boolean } }) {
    return { truth, ignoreCase: scan.ignoreCase, mayIgnoreCase: scan.mayIgnoreCase };
  }
});
