// Issue 10's bypasses of the write gate, each as an attack through the built CLI in real temporary
// repositories: a planted or nested repository, a missing directory and `..`, Codex patches read
// differently from Codex, core.hooksPath spelled or set elsewhere, control state reached through
// links, Unicode spellings of the checkout's own path, control files that are not regular files, MCP
// and Cursor tools that write. Every case here was allowed before the fix.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtCliPath, cleanEnv, runBuiltCli } from '../support/builtCli';
import { claudeDecision, hookPayload, writeManifest } from '../support/hookFixtures';
import { createTempGitRepo } from '../support/tempGitRepo';
import type { TempGitRepo } from '../support/tempGitRepo';

const hookBundle = join(builtCliPath, '..', 'hook.js');

/** Runs the lean hook bundle (what installed hooks load) with one payload; a hang would fail on the timeout. */
function gate(input: string, options: { args?: string[]; env?: Record<string, string>; timeout?: number } = {}) {
  const run = spawnSync(process.execPath, [hookBundle, 'enforce-write', ...(options.args ?? [])], { input, encoding: 'utf8', env: cleanEnv(options.env), timeout: options.timeout ?? 20_000 });
  if (run.error !== undefined) throw run.error;
  return run;
}

const agentWrite = (cwd: string, target: string, env?: Record<string, string>) => claudeDecision(gate(hookPayload('claude-subagent-write', { cwd, target }), env === undefined ? {} : { env }).stdout);
const coordinatorWrite = (cwd: string, target: string, env?: Record<string, string>) => claudeDecision(gate(hookPayload('claude-write', { cwd, target }), env === undefined ? {} : { env }).stdout);

describe('issue 10: bypasses of the write gate, closed (built hook bundle, real repositories)', () => {
  let repo: TempGitRepo;
  beforeEach(() => {
    repo = createTempGitRepo({ initialFiles: { 'src/a/x.ts': 'x\n', 'src/b/y.ts': 'y\n', 'docs/readme.md': 'r\n' } });
  });
  afterEach(() => repo.remove());

  describe('1. a planted or nested repository does not switch the gate off', () => {
    it('an agent owning src/a/ cannot plant src/a/.git, nor a manifest there; planted anyway, they change nothing', () => {
      writeManifest(repo, { allowedPaths: ['src/a/'] });
      const cwd = join(repo.root, 'src/a');
      for (const target of ['.git/HEAD', join(repo.root, 'src/a/.git/config'), '.claude/wave-scope.json', '.codex/wave-scope.json', '.claude/settings.json']) {
        const reply = agentWrite(cwd, target);
        assert.equal(reply.decision, 'deny', target);
        assert.match(reply.text, /control state/);
      }
      // Planted by other means: a repository and an "off" manifest inside the agent's scope.
      mkdirSync(join(cwd, '.git'), { recursive: true });
      writeFileSync(join(cwd, '.git/HEAD'), 'ref: refs/heads/main\n');
      mkdirSync(join(cwd, '.claude'), { recursive: true });
      writeFileSync(join(cwd, '.claude/wave-scope.json'), JSON.stringify({ version: 1, wave: 1, role: 'implementation', enforcement: 'off', allowedPaths: ['**'], blockedCommands: [] }));
      for (const target of [join(repo.root, '.claude/wave-scope.json'), join(repo.root, '.claude/settings.json'), join(repo.root, '.git/hooks/pre-commit'), join(repo.root, 'docs/readme.md')]) {
        assert.equal(agentWrite(cwd, target).decision, 'deny', target);
      }
      assert.equal(agentWrite(cwd, 'new.ts').decision, 'allow', 'the agent\'s own scope still works');
    });

    it('a nested repository with a foreign-bound manifest, or an "off" one, does not open the outer wave; a strict one adds its restriction', () => {
      writeManifest(repo, { allowedPaths: ['src/', 'vendor/lib/'] });
      const nested = join(repo.root, 'vendor/lib');
      execFileSync('git', ['init', '--quiet', nested]);
      const nestedManifest = (fields: Record<string, unknown>) =>
        writeFileSync(join(nested, '.claude', 'wave-scope.json'), JSON.stringify({ version: 1, wave: 1, role: 'implementation', enforcement: 'strict', allowedPaths: ['src/'], blockedCommands: [], ...fields }));
      mkdirSync(join(nested, '.claude'), { recursive: true });
      for (const fields of [{ session_id: 'someone-else' }, { enforcement: 'off' }]) {
        nestedManifest(fields);
        assert.equal(coordinatorWrite(nested, join(repo.root, 'docs/readme.md')).decision, 'deny', JSON.stringify(fields));
        assert.equal(coordinatorWrite(nested, join(repo.root, 'README.md')).decision, 'deny', JSON.stringify(fields));
        assert.equal(coordinatorWrite(nested, 'src/ok.ts').decision, 'allow', JSON.stringify(fields));
      }
      nestedManifest({ allowedPaths: ['lib/'] });
      assert.equal(coordinatorWrite(nested, 'src/inside-outer-scope.ts').decision, 'deny', 'the nested wave refuses what it does not grant');
      assert.equal(coordinatorWrite(nested, 'lib/ok.ts').decision, 'allow');
    });

    it('the wave that binds the session is found from the project root, even when cwd is in a nested repository without one', () => {
      writeManifest(repo, { allowedPaths: ['src/a/'] });
      const nested = join(repo.root, 'src/a/inner');
      execFileSync('git', ['init', '--quiet', nested]);
      const env = { CLAUDE_PROJECT_DIR: repo.root };
      assert.equal(coordinatorWrite(nested, join(repo.root, 'docs/readme.md'), env).decision, 'deny');
      assert.equal(coordinatorWrite(nested, 'file.ts', env).decision, 'allow');
      // Outside every repository: the bound wave says it is outside its checkout (the innermost repository around cwd has no wave to say so).
      const reply = coordinatorWrite(nested, join(tmpdir(), 'wave-scope-anywhere.txt'), env);
      assert.equal(reply.decision, 'deny');
      assert.match(reply.text, /outside this checkout/);
      // A project root outside any repository with a wave, and cwd in a checkout without one: the target's wave decides.
      const elsewhere = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-project-')));
      try {
        assert.equal(coordinatorWrite(elsewhere, join(repo.root, 'docs/readme.md'), { CLAUDE_PROJECT_DIR: elsewhere }).decision, 'deny');
      } finally {
        rmSync(elsewhere, { recursive: true, force: true });
      }
    });
  });

  describe('1b. a linked worktree of a git directory not named .git is governed by its own plan', () => {
    it('a bare repository with worktrees: the plan written in proj/main is enforced there (it was read from proj/.bare, and nothing was)', () => {
      const base = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-bare-')));
      try {
        execFileSync('git', ['clone', '--quiet', '--bare', repo.root, join(base, 'proj/.bare')]);
        writeFileSync(join(base, 'proj/.git'), 'gitdir: ./.bare\n');
        const main = join(base, 'proj/main');
        execFileSync('git', ['worktree', 'add', '--quiet', '-b', 'main-wt', main], { cwd: join(base, 'proj') });
        mkdirSync(join(main, '.claude'), { recursive: true });
        writeFileSync(join(main, '.claude/wave-scope.json'), `${JSON.stringify({ version: 1, wave: 1, role: 'implementation', enforcement: 'strict', allowedPaths: ['src/a/'], blockedCommands: [] })}\n`);
        assert.equal(coordinatorWrite(main, 'src/b/y.ts', { CLAUDE_PROJECT_DIR: main }).decision, 'deny');
        assert.equal(agentWrite(main, '.claude/wave-scope.json', { CLAUDE_PROJECT_DIR: main }).decision, 'deny');
        assert.equal(coordinatorWrite(main, 'src/a/x.ts', { CLAUDE_PROJECT_DIR: main }).decision, 'allow');
      } finally {
        rmSync(base, { recursive: true, force: true });
      }
    });
  });

  describe('2. a missing directory and .. do not escape: the repository is located from the resolved destination', () => {
    it('from a cwd outside any repository, as a dispatched agent and as the coordinator', () => {
      writeManifest(repo, { allowedPaths: ['src/'] });
      // Both temporary directories share one parent: cwd/missing/.. is cwd once mkdir -p has made
      // "missing", and three more .. climb from <base>/x/y to that parent, next to the repository.
      const base = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-escape-')));
      try {
        const cwd = join(base, 'x/y');
        mkdirSync(cwd, { recursive: true });
        const name = repo.root.slice(repo.root.lastIndexOf('/') + 1);
        for (const target of [`missing/../../../../${name}/.git/hooks/pre-commit`, `missing/../../../../${name}/.claude/settings.json`]) {
          const reply = agentWrite(cwd, target);
          assert.equal(reply.decision, 'deny', target);
          assert.match(reply.text, /control state/);
        }
        const reply = coordinatorWrite(cwd, `missing/../../../../${name}/docs/readme.md`);
        assert.equal(reply.decision, 'deny');
        assert.match(reply.text, /docs\/readme\.md is not in wave 1/);
        assert.equal(coordinatorWrite(cwd, `missing/../../../../${name}/src/new.ts`).decision, 'allow');
      } finally {
        rmSync(base, { recursive: true, force: true });
      }
    });
  });

  describe('3. a Codex patch is read as Codex reads it', () => {
    beforeEach(() => writeManifest(repo, { allowedPaths: ['src/a/'] }));
    const codex = (patch: string, extra: { cwd?: string; env?: Record<string, string>; agentId?: string } = {}): { decision: 'allow' | 'warn' | 'deny'; text: string } => {
      const payload = hookPayload('codex-apply-patch', { cwd: extra.cwd ?? repo.root, patch });
      // `agent_id` marks a call from a dispatched subagent, for which nested control state is refused.
      const input = extra.agentId === undefined ? payload : JSON.stringify({ ...JSON.parse(payload), agent_id: extra.agentId });
      return claudeDecision(gate(input, { args: ['--agent-cli', 'codex'], ...(extra.env !== undefined ? { env: extra.env } : {}) }).stdout);
    };
    const P = (...lines: string[]) => ['*** Begin Patch', ...lines, '*** End Patch', ''].join('\n');

    const attacks: Array<{ name: string; patch: string; names?: RegExp; agentId?: string }> = [
      { name: 'an indented second header', patch: P('*** Add File: src/a/ok.ts', '+x', '  *** Add File: .claude/settings.json', '+{}'), names: /\.claude\/settings\.json/ },
      { name: 'a header ending in U+2028', patch: P('*** Add File: docs/evil.md\u2028', '+x'), names: /docs\/evil\.md/ },
      { name: 'headers ending in \\r\\r\\n', patch: ['*** Begin Patch', '*** Add File: docs/evil.md', '+x', '*** End Patch', ''].join('\r\r\n'), names: /docs\/evil\.md/ },
      { name: 'two spaces after the colon (Codex writes " src/a/evil.ts")', patch: P('*** Add File:  src/a/evil.ts', '+x') },
      { name: 'a move out of the scope whose line keeps its trailing spaces', patch: P('*** Update File: src/a/x.ts', '*** Move to: docs/y.ts  ', '@@', '-x', '+z'), names: /docs\/y\.ts {2}/ },
      { name: '`..` folded lexically past a link (the kernel would stay inside, Codex does not)', patch: P('*** Add File: src/a/lnk/../../docs/x.md', '+x') },
      { name: '~ expanded to the home directory', patch: P('*** Add File: ~/evil.md', '+x') },
      { name: 'a patch the gate cannot read (an unknown header)', patch: P('*** Add File: src/a/ok.ts', '+x', '*** Frobnicate File: .git/config') },
      // Codex 0.169.0 trims trailing white space off a move path (older parser.rs keeps it): it writes
      // src/a/.codex/config.toml, control state at any depth for a dispatched agent.
      ...[' ', '\u00a0', '\u3000'].map((blank) => ({
        name: `a dispatched agent's move to nested control state whose path ends in U+${blank.charCodeAt(0).toString(16).padStart(4, '0')} (Codex 0.169.0 trims it)`,
        patch: P('*** Add File: src/a/c.toml', '+[features]', '*** Update File: src/a/c.toml', `*** Move to: src/a/.codex/config.toml${blank}`, '@@', '+# end'),
        names: /src\/a\/\.codex\/config\.toml/,
        agentId: 'agent-1',
      })),
      // Codex 0.169.0 drops TABs from paths, so it writes .git/hooks/pre-commit, .codex/hooks.json and src/b/evil.ts.
      {
        name: 'TABs in paths (to Codex 0.169.0 `.<TAB>.` is `..` and `.g<TAB>it` is `.git`)',
        patch: P('*** Add File: src/a/.\t./../.\t./.g\tit/hooks/pre-commit', '+#!/bin/sh', '*** Add File: src/a/.\t./../.\t./.co\tdex/hooks.json', '+{}', '*** Add File: src/a/.\t./b/evil.ts', '+x'),
        names: /control character/,
      },
    ];
    for (const { name, patch, names, agentId } of attacks) {
      it(`denies ${name}`, () => {
        mkdirSync(join(repo.root, 'src/a/sub/deeper'), { recursive: true });
        symlinkSync('sub/deeper', join(repo.root, 'src/a/lnk'));
        const home = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-home-')));
        try {
          // From cwd src/a (the agent's own directory), where a literal "~" would stay inside the scope.
          const reply = codex(patch, { env: { HOME: home }, ...(patch.includes('~/') ? { cwd: join(repo.root, 'src/a') } : {}), ...(agentId !== undefined ? { agentId } : {}) });
          assert.equal(reply.decision, 'deny', reply.text);
          if (names !== undefined) assert.match(reply.text, names);
        } finally {
          rmSync(home, { recursive: true, force: true });
        }
      });
    }

    it('`..` after a link that Codex folds lexically into the scope is allowed for Codex (and denied for a CLI whose reading is not known)', () => {
      symlinkSync(realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-out-'))), join(repo.root, 'src/a/out'));
      assert.equal(codex(P('*** Add File: src/a/out/../ok.ts', '+x')).decision, 'allow');
      assert.equal(coordinatorWrite(repo.root, 'src/a/out/../ok.ts').decision, 'deny');
    });

    // Codex 0.169.0 does not expand `~` in a patch path: `~/x` is `<cwd>/~/x` (the source the gate was
    // modelled on expands it). With the checkout under HOME, `~/<checkout>/src/a/x.ts` is in the scope one
    // way and lands in `<checkout>/~/…` the other.
    it('a `~` path is judged both expanded and as a directory named `~`: allowed only when both are', () => {
      const home = join(repo.root, '..');
      const name = repo.root.slice(home.length + 1);
      const reply = codex(P(`*** Add File: ~/${name}/src/a/x.ts`, '+x'), { env: { HOME: home } });
      assert.equal(reply.decision, 'deny', reply.text);
      assert.match(reply.text, /~\//);
      assert.equal(codex(P('*** Add File: ~/x.ts', '+x'), { cwd: join(repo.root, 'src/a'), env: { HOME: join(repo.root, 'src/a') } }).decision, 'allow', 'both readings inside the scope');
    });

    it('`cd dir && apply_patch` puts the paths under dir (the argv form)', () => {
      const script = `cd src/b && apply_patch <<'EOF'\n${P('*** Add File: evil.ts', '+x').trim()}\nEOF`;
      const argv = JSON.stringify({ hook_event_name: 'PreToolUse', turn_id: '1', session_id: 's', cwd: repo.root, tool_name: 'apply_patch', tool_input: { command: ['bash', '-lc', script] } });
      assert.match(claudeDecision(gate(argv, { args: ['--agent-cli', 'codex'] }).stdout).text, /src\/b\/evil\.ts/);
      const inScope = script.replace('cd src/b', 'cd src/a');
      assert.equal(claudeDecision(gate(argv.replace(JSON.stringify(script).slice(1, -1), JSON.stringify(inScope).slice(1, -1)), { args: ['--agent-cli', 'codex'] }).stdout).decision, 'allow');
    });

    // Codex runs a shell call in its `workdir` (exec_command's and shell_command's argument, joined onto cwd)
    // and applies an intercepted patch there, but the hook's tool_input is only `{ "command": … }`. With
    // workdir "../b", `*** Add File: x.ts` from cwd src/a lands in src/b/x.ts.
    it('a patch in a Codex shell call: a relative path is denied (its workdir is not in the payload); an absolute one is judged', () => {
      const cwd = join(repo.root, 'src/a');
      const shell = (command: string, toolInput: Record<string, unknown> = {}) =>
        claudeDecision(gate(JSON.stringify({ ...JSON.parse(hookPayload('codex-bash-apply-patch', { cwd, patch: command })), ...(Object.keys(toolInput).length > 0 ? { tool_input: { command, ...toolInput } } : {}) }), { args: ['--agent-cli', 'codex'] }).stdout);
      const heredoc = (prefix: string, path: string) => `${prefix}apply_patch <<'EOF'\n${P(`*** Add File: ${path}`, '+x').trim()}\nEOF`;
      for (const command of [heredoc('', 'x.ts'), heredoc('cd sub && ', 'x.ts'), heredoc('', 'src/a/x.ts')]) {
        const reply = shell(command);
        assert.equal(reply.decision, 'deny', command);
        assert.match(reply.text, /workdir/, command);
      }
      // `cd ''` (and `cd ""`) leave the directory as it is: `<repo without its leading />/src/a/x.ts` is
      // relative to Codex and lands in a new tree under the unknown workdir, never at /<repo>/src/a/x.ts.
      for (const cd of ["cd '' && ", 'cd "" && ']) {
        assert.equal(shell(heredoc(cd, join(repo.root, 'src/a/x.ts').slice(1))).decision, 'deny', cd);
      }
      assert.equal(shell(heredoc('', join(repo.root, 'src/a/x.ts'))).decision, 'allow', 'an absolute path lands where it says');
      // Codex does not intercept `cd 1 && …` (a number to its grammar): bash runs it and expands the unquoted
      // heredoc, so `$(echo ..)` in a path is `..` and the file lands in src/b.
      mkdirSync(join(cwd, '1'));
      for (const number of ['1', '0x10', '-1']) {
        const unquoted = `cd ${number} && apply_patch <<EOF\n${P(`*** Add File: ${join(repo.root, 'src/a')}/$(echo ..)/b/evil.ts`, '+x').trim()}\nEOF`;
        const reply = shell(unquoted);
        assert.equal(reply.decision, 'deny', number);
        assert.match(reply.text, /cannot read with certainty/, number);
      }
      // Codex does not intercept a heredoc with a body line that is its delimiter after white space (tree-sitter
      // ends the heredoc there): bash runs it, and `echo ../../README.md` in backticks lands outside the scope.
      for (const line of [' EOF', '\tEOF', 'EOF ']) {
        const unintercepted = `apply_patch <<EOF\n${P(`*** Add File: ${join(repo.root, 'src/a')}/\`echo ../../README.md\``, '+x', `*** Update File: ${join(repo.root, 'src/a/x.ts')}`, '@@', line).trim()}\nEOF\n`;
        const reply = shell(unintercepted);
        assert.equal(reply.decision, 'deny', JSON.stringify(line));
        assert.match(reply.text, /cannot read with certainty/, JSON.stringify(line));
      }
      assert.equal(shell(`apply_patch <<EOF\n${P(`*** Update File: ${join(repo.root, 'src/a/x.ts')}`, '@@', ' xEOF').trim()}\nEOF\n`).decision, 'allow', 'the delimiter inside a line is content');
      assert.equal(shell(heredoc(`cd ${join(repo.root, 'src/a')} && `, 'x.ts')).decision, 'allow', 'an absolute cd decides the directory');
      assert.equal(shell(heredoc(`cd ${join(repo.root, 'src/b')} && `, 'x.ts')).decision, 'deny');
      // A payload that does name the workdir is read as Codex reads it.
      assert.equal(shell(heredoc('', 'x.ts'), { workdir: '../b' }).decision, 'deny');
      assert.equal(shell(heredoc('', 'x.ts'), { workdir: '.' }).decision, 'allow');
      assert.equal(shell(heredoc('', 'x.ts'), { workdir: 42 }).decision, 'deny');
    });
  });

  describe('4. the hooks directory git runs is control state, however core.hooksPath is set', () => {
    let home: string;
    beforeEach(() => {
      home = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-home-')));
      writeManifest(repo, { allowedPaths: ['src/', 'githooks/', 'git-hooks/'] });
    });
    afterEach(() => rmSync(home, { recursive: true, force: true }));
    const setups: Array<{ name: string; setup: () => void; target: string }> = [
      { name: 'githooks/', setup: () => repo.git('config', 'core.hooksPath', 'githooks/'), target: 'githooks/pre-commit' },
      { name: './githooks', setup: () => repo.git('config', 'core.hooksPath', './githooks'), target: 'githooks/pre-commit' },
      { name: 'githooks/.', setup: () => repo.git('config', 'core.hooksPath', 'githooks/.'), target: 'githooks/pre-commit' },
      { name: 'include.path', setup: () => { writeFileSync(join(repo.root, '.git/hooks.inc'), '[core]\n\thooksPath = githooks\n'); repo.git('config', 'include.path', 'hooks.inc'); }, target: 'githooks/pre-commit' },
      { name: 'config.worktree', setup: () => { repo.git('config', 'extensions.worktreeConfig', 'true'); repo.git('config', '--worktree', 'core.hooksPath', 'githooks'); }, target: 'githooks/pre-commit' },
      { name: 'a \\ continuation', setup: () => writeFileSync(join(repo.root, '.git/config'), '[core]\n\trepositoryformatversion = 0\n\thooksPath = git\\\n-hooks\n'), target: 'git-hooks/pre-commit' },
      { name: 'the global config in HOME', setup: () => writeFileSync(join(home, '.gitconfig'), `[core]\n\thooksPath = ${repo.root}/githooks\n`), target: 'githooks/pre-commit' },
      // Red-team finding 5: git reads a lone CR as whitespace, so `\r\r\n` line endings set `githooks`, not `githooks\r`.
      { name: 'an included file with CR CR LF line endings', setup: () => { writeFileSync(join(repo.root, '.gitconfig-shared'), '[core]\r\r\n\thooksPath = githooks\r\r\n'); repo.git('config', 'include.path', '../.gitconfig-shared'); }, target: 'githooks/pre-commit' },
    ];
    for (const { name, setup, target } of setups) {
      it(`core.hooksPath by ${name}`, () => {
        setup();
        const reply = agentWrite(repo.root, target, { HOME: home, GIT_CONFIG_NOSYSTEM: '1' });
        assert.equal(reply.decision, 'deny', reply.text);
        assert.match(reply.text, /control state/);
        assert.equal(agentWrite(repo.root, 'src/ok.ts', { HOME: home, GIT_CONFIG_NOSYSTEM: '1' }).decision, 'allow');
      });
    }
  });

  // Red-team finding 4: an `includeIf` whose condition git finds false set core.ignorecase for the gate.
  describe('4b. core.ignorecase folds an agent\'s grants only where git surely folds', () => {
    let home: string;
    beforeEach(() => {
      home = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-home-')));
      repo.commit({ 'src/Parser.ts': 'alice\n', 'src/parser.ts': 'bob\n' });
      // createTempGitRepo sets it false locally, which would be the last word: leave it to the global file.
      repo.git('config', '--unset', 'core.ignorecase');
      const written = runBuiltCli(['plan', 'write', '--wave', '1', '--role', 'implementation'], {
        cwd: repo.root,
        input: JSON.stringify([{ id: 'alice', files: ['src/Parser.ts'] }, { id: 'bob', files: ['src/parser.ts'] }]),
        env: cleanEnv({ HOME: home, GIT_CONFIG_NOSYSTEM: '1' }),
      });
      assert.equal(written.status, 0, written.stderr);
    });
    afterEach(() => rmSync(home, { recursive: true, force: true }));
    const alice = (target: string) => agentWrite(repo.root, target, { HOME: home, GIT_CONFIG_NOSYSTEM: '1', WAVE_SCOPE_AGENT: 'alice' });
    const gitIgnoreCase = () => execFileSync('git', ['config', '--bool', 'core.ignorecase'], { cwd: repo.root, encoding: 'utf8', env: cleanEnv({ HOME: home, GIT_CONFIG_NOSYSTEM: '1' }) }).trim();

    it('an includeIf "gitdir:" that does not match this repository does not let alice write bob\'s src/parser.ts; one that matches does not either, for a wave proven with case compared', () => {
      writeFileSync(join(home, '.gitconfig-windows'), '[core]\n\tignorecase = true\n');
      writeFileSync(join(home, '.gitconfig'), '[includeIf "gitdir:/mnt/c/"]\n\tpath = ~/.gitconfig-windows\n');
      assert.throws(gitIgnoreCase, 'git: core.ignorecase is unset');
      assert.equal(alice('src/Parser.ts').decision, 'allow');
      for (const target of ['src/parser.ts', 'SRC/PARSER.TS']) assert.equal(alice(target).decision, 'deny', target);
      writeFileSync(join(home, '.gitconfig'), `[includeIf "gitdir:${repo.root}/"]\n\tpath = ~/.gitconfig-windows\n`);
      assert.equal(gitIgnoreCase(), 'true');
      // Found by red-team review, 2026-12-06: the wave was proven with case compared, so src/Parser.ts and
      // src/parser.ts were two agents' files; folding its grants now would give src/parser.ts to both.
      for (const target of ['SRC/PARSER.TS', 'src/parser.ts']) assert.equal(alice(target).decision, 'deny', target);
      // Proven again where git folds, the two agents collide, and nothing is written.
      const again = runBuiltCli(['plan', 'write', '--wave', '1', '--role', 'implementation'], {
        cwd: repo.root,
        input: JSON.stringify([{ id: 'alice', files: ['src/Parser.ts'] }, { id: 'bob', files: ['src/parser.ts'] }]),
        env: cleanEnv({ HOME: home, GIT_CONFIG_NOSYSTEM: '1' }),
      });
      assert.equal(again.status, 1, again.stderr);
      assert.match(again.stderr, /assert-disjoint/);
    });

    it('folds the grants of a wave proven with case folded, where git folds', () => {
      writeFileSync(join(home, '.gitconfig'), '[core]\n\tignorecase = true\n');
      const written = runBuiltCli(['plan', 'write', '--wave', '1', '--role', 'implementation'], {
        cwd: repo.root,
        input: JSON.stringify([{ id: 'alice', files: ['src/Parser.ts'] }, { id: 'bob', files: ['lib/'] }]),
        env: cleanEnv({ HOME: home, GIT_CONFIG_NOSYSTEM: '1' }),
      });
      assert.equal(written.status, 0, written.stderr);
      assert.equal((JSON.parse(readFileSync(join(repo.root, '.claude/wave-scope.json'), 'utf8')) as { ignoreCase?: unknown }).ignoreCase, true);
      assert.equal(alice('SRC/PARSER.TS').decision, 'allow', 'where git folds, the grants of a wave proven so fold');
    });
  });

  describe('5. control state is judged by destination and by spelling', () => {
    it('a state directory linked elsewhere: its manifest is not read through the link, and every write is denied, even under warn', () => {
      const elsewhere = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-state-')));
      try {
        writeFileSync(join(elsewhere, 'wave-scope.json'), JSON.stringify({ version: 1, wave: 1, role: 'implementation', enforcement: 'warn', allowedPaths: ['src/'], blockedCommands: [] }));
        symlinkSync(elsewhere, join(repo.root, '.claude'));
        for (const target of ['.claude/wave-scope.json', join(elsewhere, 'wave-scope.json'), 'src/a/x.ts']) {
          const reply = agentWrite(repo.root, target);
          assert.equal(reply.decision, 'deny', target);
          assert.match(reply.text, /reached through the symbolic link/);
        }
      } finally {
        rmSync(elsewhere, { recursive: true, force: true });
      }
    });

    it('.codex linked into an agent\'s scope: the agent cannot plant a manifest through its own directory', () => {
      writeManifest(repo, { allowedPaths: ['src/a/'] });
      mkdirSync(join(repo.root, 'src/a/codexcfg'), { recursive: true });
      symlinkSync('src/a/codexcfg', join(repo.root, '.codex'));
      assert.equal(agentWrite(repo.root, 'src/a/codexcfg/wave-scope.json').decision, 'deny');
      assert.equal(agentWrite(repo.root, 'src/a/codexcfg/other.txt').decision, 'allow');
    });

    it('settings.local.json linked to a file in the agent\'s scope: that file is hook settings', () => {
      writeManifest(repo, { allowedPaths: ['src/a/'] });
      repo.write({ 'src/a/cfg.json': '{}' });
      symlinkSync('../src/a/cfg.json', join(repo.root, '.claude/settings.local.json'));
      const reply = agentWrite(repo.root, 'src/a/cfg.json');
      assert.equal(reply.decision, 'deny');
      assert.match(reply.text, /control state/);
    });

    it('a link in another agent\'s scope that points into ours: a rename-writer replaces the link, which is not ours', () => {
      writeManifest(repo, { allowedPaths: ['src/'] });
      repo.write({ '.claude/filescopes/wave-1/alice.json': '["src/a/"]\n', '.claude/filescopes/wave-1/bob.json': '["src/b/"]\n' });
      repo.write({ '.claude/filescopes/wave-1.scopes.json': JSON.stringify([{ id: 'alice', files: ['src/a/'] }, { id: 'bob', files: ['src/b/'] }]) });
      symlinkSync('../a/x.ts', join(repo.root, 'src/b/link.ts'));
      const env = { WAVE_SCOPE_AGENT: 'alice' };
      const reply = claudeDecision(gate(hookPayload('claude-write', { cwd: repo.root, target: 'src/b/link.ts' }), { env }).stdout);
      assert.equal(reply.decision, 'deny');
      assert.match(reply.text, /src\/b\/link\.ts/);
      assert.equal(claudeDecision(gate(hookPayload('claude-write', { cwd: repo.root, target: 'src/a/x.ts' }), { env }).stdout).decision, 'allow');
    });
  });

  describe('6. Unicode spellings of the checkout\'s path are other directories on Linux', () => {
    const cases: Array<{ name: string; dir: string; spelled: (dir: string) => string }> = [
      { name: 'the Kelvin sign', dir: 'Kr', spelled: (dir) => dir.replace(/Kr$/, '\u212Ar') },
      { name: 'an NFD spelling of an NFC root', dir: 'caf\u00e9', spelled: (dir) => dir.normalize('NFD') },
      { name: 'an NFC spelling of an NFD root', dir: 'cafe\u0301', spelled: (dir) => dir.normalize('NFC') },
    ];
    for (const { name, dir, spelled } of cases) {
      it(name, () => {
        const base = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-unicode-')));
        try {
          const root = join(base, dir);
          mkdirSync(join(root, 'src/a'), { recursive: true });
          execFileSync('git', ['init', '--quiet', root]);
          mkdirSync(join(root, '.claude'));
          writeFileSync(join(root, '.claude/wave-scope.json'), JSON.stringify({ version: 1, wave: 1, role: 'implementation', enforcement: 'strict', allowedPaths: ['src/a/'], blockedCommands: [] }));
          const reply = coordinatorWrite(root, `${spelled(root)}/src/a/x.ts`);
          assert.equal(reply.decision, 'deny', reply.text);
          assert.match(reply.text, /outside this checkout/);
          assert.equal(coordinatorWrite(root, `${root}/src/a/x.ts`).decision, 'allow');
        } finally {
          rmSync(base, { recursive: true, force: true });
        }
      });
    }
  });

  describe('13. a control file that is not a small regular file is a deny, at once', () => {
    const broken: Array<{ name: string; make: (r: TempGitRepo) => void }> = [
      { name: 'a FIFO', make: (r) => execFileSync('mkfifo', [join(r.root, '.claude/wave-scope.json')]) },
      { name: 'a link to /dev/zero', make: (r) => symlinkSync('/dev/zero', join(r.root, '.claude/wave-scope.json')) },
      { name: 'a link that leads nowhere', make: (r) => symlinkSync('missing.json', join(r.root, '.claude/wave-scope.json')) },
      { name: 'a state directory that is a link leading nowhere', make: (r) => { rmSync(join(r.root, '.claude'), { recursive: true, force: true }); symlinkSync('missing-dir', join(r.root, '.claude')); } },
    ];
    for (const { name, make } of broken) {
      it(`the manifest is ${name}`, () => {
        mkdirSync(join(repo.root, '.claude'), { recursive: true });
        make(repo);
        const started = Date.now();
        const run = gate(hookPayload('claude-write', { cwd: repo.root, target: 'src/a/x.ts' }), { timeout: 15_000 });
        assert.ok(Date.now() - started < 15_000);
        const reply = claudeDecision(run.stdout);
        assert.equal(reply.decision, 'deny');
        assert.match(reply.text, /unusable/);
      });
    }
  });

  describe('also: the other writing tools and control files', () => {
    it('MCP tools that write a named path are gated; those that read are not', () => {
      writeManifest(repo, { allowedPaths: ['src/a/'] });
      const mcp = (tool: string, input: Record<string, unknown>) =>
        claudeDecision(gate(JSON.stringify({ session_id: 's', cwd: repo.root, hook_event_name: 'PreToolUse', tool_name: tool, tool_input: input })).stdout).decision;
      assert.equal(mcp('mcp__filesystem__write_file', { path: join(repo.root, 'docs/x.md'), content: '' }), 'deny');
      assert.equal(mcp('mcp__filesystem__write_file', { path: join(repo.root, 'src/a/new.ts'), content: '' }), 'allow');
      assert.equal(mcp('mcp__filesystem__move_file', { source: join(repo.root, 'src/a/x.ts'), destination: join(repo.root, 'docs/x.ts') }), 'deny');
      assert.equal(mcp('mcp__filesystem__read_file', { path: '/etc/hosts' }), 'allow');
      // Tool names in camelCase carry their verb too.
      assert.equal(mcp('mcp__notes__writeFile', { path: join(repo.root, 'docs/x.md'), content: '' }), 'deny');
      assert.equal(mcp('mcp__notes__fileCreate', { path: join(repo.root, 'docs/x.md') }), 'deny');
      assert.equal(mcp('mcp__notes__writeFile', { path: join(repo.root, 'src/a/new.ts'), content: '' }), 'allow');
      assert.equal(mcp('mcp__notes__readFile', { path: '/etc/hosts' }), 'allow');
    });

    it('MCP tools that change files without a plain write verb (a formatter, a generator) are gated on the paths they name', () => {
      writeManifest(repo, { allowedPaths: ['src/a/'] });
      const mcp = (tool: string, input: Record<string, unknown>) =>
        claudeDecision(gate(JSON.stringify({ session_id: 's', cwd: repo.root, hook_event_name: 'PreToolUse', tool_name: tool, tool_input: input }), { env: { CLAUDE_PROJECT_DIR: repo.root } }).stdout).decision;
      assert.equal(mcp('mcp__jetbrains__reformat_file', { path: 'README.md' }), 'deny');
      assert.equal(mcp('mcp__jetbrains__reformat_file', { path: 'src/a/x.ts' }), 'allow');
      assert.equal(mcp('mcp__web__download_file', { url: 'https://example.com/x.js', destination: 'vendor/x.js' }), 'deny');
      assert.equal(mcp('mcp__scaffold__generate_component', { directory: 'src/a/widget' }), 'allow');
    });

    it('MCP renames, refactorings and git operations reach files they do not name: denied while a wave governs, whatever they name; allowed with none', () => {
      const mcp = (tool: string, input: Record<string, unknown>) =>
        claudeDecision(gate(JSON.stringify({ session_id: 's', cwd: repo.root, hook_event_name: 'PreToolUse', tool_name: tool, tool_input: input }), { env: { CLAUDE_PROJECT_DIR: repo.root } }).stdout);
      const calls: Array<[string, Record<string, unknown>]> = [
        ['mcp__jetbrains__rename_refactoring', { pathInProject: 'src/a/x.ts', symbolName: 'f', newName: 'g' }],
        ['mcp__serena__rename_symbol', { name_path: 'f', relative_path: 'src/a/x.ts', new_name: 'g' }],
        ['mcp__git__git_checkout', { repo_path: repo.root, branch_name: 'other' }],
        ['mcp__git__git_commit', { repo_path: repo.root, message: 'm' }],
        ['mcp__git__git_stash', { path: join(repo.root, 'src/a') }],
      ];
      for (const [tool, input] of calls) assert.equal(mcp(tool, input).decision, 'allow', `${tool} with no wave`);
      writeManifest(repo, { allowedPaths: ['**'] });
      for (const [tool, input] of calls) {
        const reply = mcp(tool, input);
        assert.equal(reply.decision, 'deny', tool);
        assert.match(reply.text, /changes files beyond the paths it names/, tool);
      }
      // Under warn too: where it writes cannot be checked at all.
      writeManifest(repo, { allowedPaths: ['**'], enforcement: 'warn' });
      assert.equal(mcp('mcp__jetbrains__rename_refactoring', { pathInProject: 'src/a/x.ts', symbolName: 'f', newName: 'g' }).decision, 'deny');
    });

    it('MCP tools that name their file under another key (Serena\'s relative_path, the JetBrains server\'s pathInProject) are gated, relative paths read from the project root too', () => {
      writeManifest(repo, { allowedPaths: ['src/a/'] });
      mkdirSync(join(repo.root, 'src/a'), { recursive: true });
      const inScope = join(repo.root, 'src/a');
      // The agent's shell is in src/a; the server writes from the project root.
      const mcp = (tool: string, input: Record<string, unknown>) =>
        claudeDecision(gate(JSON.stringify({ session_id: 's', cwd: inScope, hook_event_name: 'PreToolUse', tool_name: tool, tool_input: input }), { env: { CLAUDE_PROJECT_DIR: repo.root } }).stdout).decision;
      assert.equal(mcp('mcp__serena__create_text_file', { relative_path: 'docs/x.md', content: '' }), 'deny');
      // Read from the shell's directory alone, x.ts is src/a/x.ts; the server writes x.ts at the root.
      assert.equal(mcp('mcp__serena__create_text_file', { relative_path: 'x.ts', content: '' }), 'deny');
      assert.equal(mcp('mcp__serena__replace_content', { relative_path: 'CLAUDE.md', needle: 'a', repl: 'b' }), 'deny');
      assert.equal(mcp('mcp__jetbrains__create_new_file', { pathInProject: 'docs/x.md', text: '' }), 'deny');
      // In the scope read either way (src/a/src/a/new.ts from the shell's directory, src/a/new.ts from the project).
      assert.equal(mcp('mcp__serena__create_text_file', { relative_path: 'src/a/new.ts', content: '' }), 'allow');
    });

    it('Cursor\'s edit_file, write_file and delete_file are writes', () => {
      writeManifest(repo, { allowedPaths: ['src/a/'] });
      for (const tool of ['edit_file', 'write_file', 'delete_file']) {
        const payload = JSON.stringify({ conversation_id: 'c', hook_event_name: 'preToolUse', workspace_roots: [repo.root], cwd: repo.root, tool_name: tool, tool_input: { target_file: 'docs/readme.md' } });
        assert.equal((JSON.parse(gate(payload, { args: ['--agent-cli', 'cursor'] }).stdout) as { permission: string }).permission, 'deny', tool);
      }
    });

    it('files that change what agents run or are told are control state for a dispatched agent, whatever the scope', () => {
      writeManifest(repo, { allowedPaths: ['**'] });
      for (const target of ['.claude/hooks/guard.sh', '.claude/agents/helper.md', '.claude/commands/x.md', '.mcp.json', '.cursor/rules/x.mdc', 'AGENTS.md', 'CLAUDE.md', '.gemini/settings.json', 'AGENTS.override.md', 'CLAUDE.local.md']) {
        const reply = agentWrite(repo.root, target);
        assert.equal(reply.decision, 'deny', target);
        assert.match(reply.text, /control state/);
      }
      assert.equal(agentWrite(repo.root, 'docs/readme.md').decision, 'allow');
    });

    it('.orchestrator/ (ledgers, baselines, turn records, events) is control state for a dispatched agent, at the root and in a nested checkout', () => {
      writeManifest(repo, { allowedPaths: ['**'] });
      for (const target of ['.orchestrator/wave-dispatch-scopes.s1.json', '.orchestrator/backstop/turns/wave1/alice.json', '.orchestrator/metrics/events.jsonl', '.orchestrator', 'src/a/.orchestrator/x.json']) {
        const reply = agentWrite(repo.root, target);
        assert.equal(reply.decision, 'deny', target);
        assert.match(reply.text, /control state/, target);
      }
      assert.equal(coordinatorWrite(repo.root, '.orchestrator/notes.json').decision, 'allow', 'the coordinator is not a dispatched agent');
    });
  });
});
