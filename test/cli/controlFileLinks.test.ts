// A link in, or on the way to, a control file a hook decides on: each attack through the built hooks
// (dist/hook.js, as the installed launcher loads them) in real temporary repositories with a plan written
// by the built `plan write`. The agent's shell plants the link (a symbolic link, or a hard link with `ln`)
// pointing into the agent's own scope; from then on an allowed write of its own file would rewrite the
// rules it is judged by. The hooks read their own control files only as regular files with one link,
// reached from the repository root through real directories, and git's files inside the checkout only
// with one link (docs/hooks.md, "Control files are read only as Wave Scope writes them").
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtCliPath, cleanEnv } from '../support/builtCli';
import { claudeDecision, hookPayload } from '../support/hookFixtures';
import { snapshotTree } from '../support/plantedLinks';
import { createTempGitRepo } from '../support/tempGitRepo';
import type { TempGitRepo } from '../support/tempGitRepo';
import { dispatchPayload, lastEvent, planWave, preDispatch, replyOf, scopedPrompt, SESSION } from './dispatchHelpers';

const hookBundle = join(builtCliPath, '..', 'hook.js');

/** Runs one hook of the lean bundle with a payload on stdin. */
function runHook(name: string, input: string, options: { env?: Record<string, string>; cwd?: string; args?: string[] } = {}) {
  const run = spawnSync(process.execPath, [hookBundle, name, ...(options.args ?? [])], { input, encoding: 'utf8', env: cleanEnv(options.env), cwd: options.cwd, timeout: 20_000 });
  if (run.error !== undefined) throw run.error;
  return run;
}

/** The write gate's answer to a Write of `target` by the agent `WAVE_SCOPE_AGENT` names. */
const agentWrite = (repo: TempGitRepo, agent: string, target: string) => claudeDecision(runHook('enforce-write', hookPayload('claude-write', { cwd: repo.root, target }), { env: { WAVE_SCOPE_AGENT: agent } }).stdout);
/** The write gate's answer to a Write of `target` by a subagent (held to the wave's allowedPaths). */
const subagentWrite = (repo: TempGitRepo, target: string, cwd = repo.root) => claudeDecision(runHook('enforce-write', hookPayload('claude-subagent-write', { cwd, target })).stdout);

/** Replaces `path` (relative to the root) by a symbolic link to `target` (relative to the link's directory), keeping nothing. */
function symlinkOver(repo: TempGitRepo, path: string, target: string): void {
  rmSync(join(repo.root, path), { recursive: true, force: true });
  symlinkSync(target, join(repo.root, path));
}

/** Makes `path` (relative to the root) a second name of the file at `other`, as `ln other path` after `rm path` would. */
function hardLinkOver(repo: TempGitRepo, path: string, other: string): void {
  copyFileSync(join(repo.root, path), join(repo.root, other));
  rmSync(join(repo.root, path));
  linkSync(join(repo.root, other), join(repo.root, path));
}

/** Rewrites a file in place (the same inode), as an agent's Write or Edit tool does. */
function rewriteInPlace(repo: TempGitRepo, path: string, text: string): void {
  writeFileSync(join(repo.root, path), text);
}

const WIDE_SCOPE = '["src/a/","src/b/"]\n';
const WIDE_AGGREGATE = `${JSON.stringify([{ id: 'alice', files: ['src/a/', 'src/b/'] }, { id: 'bob', files: ['src/b/'] }])}\n`;
const OPEN_MANIFEST = `${JSON.stringify({ version: 1, wave: 1, role: 'implementation', enforcement: 'strict', allowedPaths: ['**'], blockedCommands: [] })}\n`;

describe('a link in or on the way to a control file never relaxes a hook\'s decision (built hooks, real repositories)', () => {
  let repo: TempGitRepo;
  beforeEach(() => {
    repo = createTempGitRepo({ initialFiles: { 'src/a/x.ts': 'x\n', 'src/b/y.ts': 'y\n', 'docs/readme.md': 'r\n', '.gitignore': '.orchestrator/\n' } });
    planWave(repo, 1, [
      { id: 'alice', files: ['src/a/'] },
      { id: 'bob', files: ['src/b/'] },
    ]);
  });
  afterEach(() => repo.remove());

  describe('the write gate', () => {
    it('the plan as written: alice may write src/a/ and not src/b/ (the baseline of every attack below)', () => {
      assert.equal(agentWrite(repo, 'alice', 'src/a/new.ts').decision, 'allow');
      assert.equal(agentWrite(repo, 'alice', 'src/b/new.ts').decision, 'deny');
      assert.equal(subagentWrite(repo, 'docs/readme.md').decision, 'deny');
    });

    it('the scope file and the aggregate as symbolic links into alice\'s scope: rewriting their targets widens nothing', () => {
      copyFileSync(join(repo.root, '.claude/filescopes/wave-1/alice.json'), join(repo.root, 'src/a/scope.json'));
      copyFileSync(join(repo.root, '.claude/filescopes/wave-1.scopes.json'), join(repo.root, 'src/a/aggregate.json'));
      symlinkOver(repo, '.claude/filescopes/wave-1/alice.json', '../../../src/a/scope.json');
      symlinkOver(repo, '.claude/filescopes/wave-1.scopes.json', '../../src/a/aggregate.json');
      // The targets are alice's own files, which the gate let her write before it read through links...
      rewriteInPlace(repo, 'src/a/scope.json', WIDE_SCOPE);
      rewriteInPlace(repo, 'src/a/aggregate.json', WIDE_AGGREGATE);
      // ...but a scope read through a link is no scope.
      const reply = agentWrite(repo, 'alice', 'src/b/new.ts');
      assert.equal(reply.decision, 'deny', reply.text);
      assert.match(reply.text, /\.claude\/filescopes\/wave-1\/alice\.json is a symbolic link/);
      assert.equal(agentWrite(repo, 'alice', 'src/a/new.ts').decision, 'deny', 'no scope, no write');
    });

    it('the scope file and the aggregate as hard links into alice\'s scope, rewritten in place: denied, naming the link count', () => {
      hardLinkOver(repo, '.claude/filescopes/wave-1/alice.json', 'src/a/scope.json');
      hardLinkOver(repo, '.claude/filescopes/wave-1.scopes.json', 'src/a/aggregate.json');
      rewriteInPlace(repo, 'src/a/scope.json', WIDE_SCOPE);
      rewriteInPlace(repo, 'src/a/aggregate.json', WIDE_AGGREGATE);
      const reply = agentWrite(repo, 'alice', 'src/b/new.ts');
      assert.equal(reply.decision, 'deny', reply.text);
      assert.match(reply.text, /alice\.json has 2 links/);
    });

    it('the manifest as a hard link into a scope, rewritten in place to grant everything: every write is denied, naming it', () => {
      hardLinkOver(repo, '.claude/wave-scope.json', 'src/a/manifest.json');
      rewriteInPlace(repo, 'src/a/manifest.json', OPEN_MANIFEST);
      const reply = subagentWrite(repo, 'docs/readme.md');
      assert.equal(reply.decision, 'deny', reply.text);
      assert.match(reply.text, /wave-scope\.json is unusable .*has 2 links/);
      assert.equal(subagentWrite(repo, 'src/a/new.ts').decision, 'deny');
    });

    it('filescopes/ as a symbolic link to a directory in alice\'s scope holding a wider copy: denied, naming the link', () => {
      renameSync(join(repo.root, '.claude/filescopes'), join(repo.root, 'src/a/filescopes'));
      symlinkSync('../src/a/filescopes', join(repo.root, '.claude/filescopes'));
      writeFileSync(join(repo.root, 'src/a/filescopes/wave-1/alice.json'), WIDE_SCOPE);
      writeFileSync(join(repo.root, 'src/a/filescopes/wave-1.scopes.json'), WIDE_AGGREGATE);
      const reply = agentWrite(repo, 'alice', 'src/b/new.ts');
      assert.equal(reply.decision, 'deny', reply.text);
      assert.match(reply.text, /reached through the symbolic link .*\.claude\/filescopes/);
    });

    it('the state directory as a symbolic link (a tracked .claude link) to a directory in a scope holding an open manifest: denied', () => {
      renameSync(join(repo.root, '.claude'), join(repo.root, 'src/a/claude'));
      symlinkSync('src/a/claude', join(repo.root, '.claude'));
      writeFileSync(join(repo.root, 'src/a/claude/wave-scope.json'), OPEN_MANIFEST);
      repo.git('add', '.claude');
      repo.git('commit', '--quiet', '-m', 'a tracked .claude link');
      const reply = subagentWrite(repo, 'docs/readme.md');
      assert.equal(reply.decision, 'deny', reply.text);
      assert.match(reply.text, /reached through the symbolic link .*\/\.claude\b/);
    });

    it('a link that leads to a directory without a manifest is no wave (a .claude shared between repositories, no plan in it)', () => {
      const shared = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-shared-claude-')));
      try {
        rmSync(join(repo.root, '.claude'), { recursive: true, force: true });
        symlinkSync(shared, join(repo.root, '.claude'));
        assert.equal(subagentWrite(repo, 'docs/readme.md').decision, 'allow');
      } finally {
        rmSync(shared, { recursive: true, force: true });
      }
    });

    it('never a false deny: a repository opened through a symbolic link, a linked worktree, a .git linked to its git directory', () => {
      const base = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-via-link-')));
      try {
        const via = join(base, 'repo-link');
        symlinkSync(repo.root, via);
        assert.equal(agentWrite({ ...repo, root: via }, 'alice', join(via, 'src/a/new.ts')).decision, 'allow');
        assert.equal(agentWrite({ ...repo, root: via }, 'alice', join(via, 'src/b/new.ts')).decision, 'deny');
        const worktree = join(base, 'wt');
        repo.git('worktree', 'add', '--quiet', worktree);
        assert.equal(subagentWrite(repo, join(worktree, 'src/a/new.ts'), worktree).decision, 'allow');
        assert.equal(subagentWrite(repo, join(worktree, 'docs/new.md'), worktree).decision, 'deny');
        // `repo` (Google's tool) links each checkout's .git to a git directory kept elsewhere.
        const gitDirs = join(base, 'git-dirs');
        mkdirSync(gitDirs);
        renameSync(join(repo.root, '.git'), join(gitDirs, 'repo.git'));
        symlinkSync(join(gitDirs, 'repo.git'), join(repo.root, '.git'));
        assert.equal(subagentWrite(repo, 'src/a/new.ts').decision, 'allow');
        assert.equal(subagentWrite(repo, 'docs/new.md').decision, 'deny');
      } finally {
        rmSync(base, { recursive: true, force: true });
      }
    });
  });

  describe('git\'s files the gate reads', () => {
    it('.git/config as a hard link into a scope, rewritten in place to fold case: denied, naming it', () => {
      hardLinkOver(repo, '.git/config', 'src/a/gitconfig');
      rewriteInPlace(repo, 'src/a/gitconfig', `${readFileSync(join(repo.root, 'src/a/gitconfig'), 'utf8').replace(/ignorecase = false/, 'ignorecase = true')}`);
      // With core.ignorecase, SRC/A/ (a new directory on Linux) would read as src/a/.
      const reply = subagentWrite(repo, 'SRC/A/new.ts');
      assert.equal(reply.decision, 'deny', reply.text);
      assert.match(reply.text, /\.git\/config has 2 links/);
    });

    it('.git/config as a symbolic link into a scope: git follows it, and so does the gate, which makes its target control state', () => {
      renameSync(join(repo.root, '.git/config'), join(repo.root, 'src/a/gitconfig'));
      symlinkSync('../src/a/gitconfig', join(repo.root, '.git/config'));
      const reply = subagentWrite(repo, 'src/a/gitconfig');
      assert.equal(reply.decision, 'deny', reply.text);
      assert.match(reply.text, /control state/);
      assert.equal(subagentWrite(repo, 'src/a/new.ts').decision, 'allow', 'a linked config is no reason to refuse the rest');
    });
    it('a linked worktree\'s commondir as a symbolic link into its scope: git follows it, the gate too, and its target is control state', () => {
      const base = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-worktree-')));
      try {
        const worktree = join(base, 'wt');
        repo.git('worktree', 'add', '--quiet', worktree);
        const pointer = join(repo.root, '.git/worktrees/wt/commondir');
        renameSync(pointer, join(worktree, 'src/a/commondir'));
        symlinkSync(join(worktree, 'src/a/commondir'), pointer);
        assert.equal(execFileSync('git', ['rev-parse', '--git-common-dir'], { cwd: worktree, encoding: 'utf8' }).trim(), join(repo.root, '.git'), 'git reads it through the link');
        const reply = subagentWrite(repo, join(worktree, 'src/a/commondir'), worktree);
        assert.equal(reply.decision, 'deny', reply.text);
        assert.match(reply.text, /control state/);
        assert.equal(subagentWrite(repo, join(worktree, 'src/a/new.ts'), worktree).decision, 'allow');
      } finally {
        rmSync(base, { recursive: true, force: true });
      }
    });
  });

  describe('the commit guard', () => {
    const guard = () => runHook('commit-guard', '', { cwd: repo.root });
    const sessionRecord = (startedAt: number) => `${JSON.stringify({ version: 1, session_id: SESSION, started_at: startedAt })}\n`;
    const age = (path: string, ms: number) => {
      const when = new Date(Date.now() - ms);
      utimesSync(join(repo.root, path), when, when);
    };
    /** Wave 2 (carol: docs/) bound to SESSION after wave 1; a new `lib/z.ts`, which no wave declares, staged. */
    const waveTwo = () => {
      planWave(repo, 2, [{ id: 'carol', files: ['docs/'] }], { CLAUDE_CODE_SESSION_ID: SESSION });
      repo.write({ 'lib/z.ts': 'z\n' });
      repo.git('add', 'lib/z.ts');
    };
    /** Wave 1's aggregate with lib/ added to alice's record. */
    const widerWaveOne = `${JSON.stringify([{ id: 'alice', files: ['src/a/', 'lib/'] }, { id: 'bob', files: ['src/b/'] }])}\n`;

    it('the plan as written: lib/z.ts is blocked; declared by wave 1 after the session started, it is allowed (the baseline)', () => {
      waveTwo();
      writeFileSync(join(repo.root, '.claude/wave-scope-session.json'), sessionRecord(Date.now() - 3_600_000));
      assert.equal(guard().status, 1);
      writeFileSync(join(repo.root, '.claude/filescopes/wave-1.scopes.json'), widerWaveOne);
      assert.equal(guard().status, 0);
    });

    it('an earlier wave\'s aggregate as a symbolic link into a scope, declaring lib/: it declares nothing', () => {
      waveTwo();
      writeFileSync(join(repo.root, '.claude/wave-scope-session.json'), sessionRecord(Date.now() - 3_600_000));
      writeFileSync(join(repo.root, 'src/a/wave-1.json'), widerWaveOne);
      symlinkOver(repo, '.claude/filescopes/wave-1.scopes.json', '../../src/a/wave-1.json');
      const run = guard();
      assert.equal(run.status, 1, run.stderr);
      assert.match(run.stderr, /lib\/z\.ts \(A\)/);
    });

    it('the session record as a symbolic link with an earlier start: not believed, so an older wave does not count', () => {
      waveTwo();
      writeFileSync(join(repo.root, '.claude/filescopes/wave-1.scopes.json'), widerWaveOne);
      age('.claude/filescopes/wave-1.scopes.json', 1_800_000);
      writeFileSync(join(repo.root, '.claude/wave-scope-session.json'), sessionRecord(Date.now() - 60_000));
      assert.equal(guard().status, 1, 'the true start leaves the older wave out');
      writeFileSync(join(repo.root, 'src/a/session.json'), sessionRecord(Date.now() - 3_600_000));
      symlinkOver(repo, '.claude/wave-scope-session.json', '../src/a/session.json');
      assert.equal(guard().status, 1, 'an earlier start read through a link');
    });

    it('the SessionStart hook does not take an earlier start from a linked record into the one it writes', () => {
      waveTwo();
      writeFileSync(join(repo.root, '.claude/filescopes/wave-1.scopes.json'), widerWaveOne);
      age('.claude/filescopes/wave-1.scopes.json', 1_800_000);
      writeFileSync(join(repo.root, 'src/a/session.json'), sessionRecord(Date.now() - 3_600_000));
      symlinkOver(repo, '.claude/wave-scope-session.json', '../src/a/session.json');
      const started = runHook('session-start', JSON.stringify({ session_id: SESSION, cwd: repo.root, hook_event_name: 'SessionStart', source: 'startup' }), { cwd: repo.root, args: ['--agent-cli', 'claude'] });
      assert.equal(started.status, 0);
      assert.equal(started.stdout, '');
      assert.match(started.stderr, /wave-scope-session\.json is a symbolic link/);
      assert.equal(guard().status, 1);
    });

    it('the manifest as a hard link into a scope, rewritten in place to grant everything: blocked, naming it', () => {
      waveTwo();
      hardLinkOver(repo, '.claude/wave-scope.json', 'src/a/manifest.json');
      rewriteInPlace(repo, 'src/a/manifest.json', OPEN_MANIFEST.replace('"wave":1', '"wave":2'));
      const run = guard();
      assert.equal(run.status, 1, run.stderr);
      assert.match(run.stderr, /wave-scope\.json is unusable .*has 2 links/);
    });
  });

  describe('the dispatch guard (fails open, and says so)', () => {
    it('a linked ledger is read as unusable (row 7, with a warning); a linked aggregate as an unusable declaration', () => {
      const ledger = join(repo.root, '.orchestrator', `wave-dispatch-scopes.${SESSION}.json`);
      const first = preDispatch(dispatchPayload({ cwd: repo.root, prompt: scopedPrompt(['src/a/']), description: 'alice', useId: 'toolu_1' }));
      assert.equal(replyOf(first.stdout).decision, 'allow', first.stdout);
      // The ledger moved into bob's scope and linked back: a record rewritten there would bind or free agents.
      renameSync(ledger, join(repo.root, 'src/b/ledger.json'));
      symlinkSync('../src/b/ledger.json', ledger);
      const second = preDispatch(dispatchPayload({ cwd: repo.root, prompt: scopedPrompt(['src/a/x.ts']), description: 'again', useId: 'toolu_2' }));
      const reply = replyOf(second.stdout);
      assert.equal(reply.decision, 'warn', second.stdout);
      assert.match(reply.text, /symbolic link/);
      assert.equal(lastEvent(repo.root).row, '7');

      symlinkOver(repo, '.claude/filescopes/wave-1.scopes.json', '../../src/a/aggregate.json');
      writeFileSync(join(repo.root, 'src/a/aggregate.json'), WIDE_AGGREGATE);
      preDispatch(dispatchPayload({ cwd: repo.root, prompt: scopedPrompt(['docs/']), description: 'docs', useId: 'toolu_3' }));
      assert.equal(lastEvent(repo.root).declared_source, 'unusable-declaration');
    });
  });

  describe('the post-shell check', () => {
    const postBash = (session: string) =>
      runHook('post-bash', JSON.stringify({ session_id: session, cwd: repo.root, hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command: 'make' }, tool_response: { stdout: '' } }), {
        cwd: repo.root,
        args: ['--agent-cli', 'claude'],
        env: { WAVE_SCOPE_AGENT: 'alice' },
      });
    const hooksDir = () => join(repo.root, '.orchestrator/backstop/hooks');
    const headerOf = (names: readonly string[]) => names.filter((name) => name.endsWith('.snapshot'));

    it('a saved snapshot as a symbolic link to one that already holds the change: the change is not hidden', () => {
      assert.equal(postBash('s1').stdout, '', 'the first call takes the baseline');
      const before = headerOf(readdirSync(hooksDir()));
      writeFileSync(join(repo.root, 'docs/evil.md'), 'x\n');
      // Another key's snapshot taken after the change, copied into alice's scope and linked over hers.
      assert.equal(postBash('s2').stdout, '');
      const crafted = headerOf(readdirSync(hooksDir())).find((name) => !before.includes(name)) as string;
      const own = before[0] as string;
      copyFileSync(join(hooksDir(), crafted), join(repo.root, 'src/a/snapshot'));
      rmSync(join(hooksDir(), own));
      symlinkSync(join(repo.root, 'src/a/snapshot'), join(hooksDir(), own));
      const run = postBash('s1');
      assert.notEqual(run.stdout, '', 'the change is not hidden');
      const reply = JSON.parse(run.stdout) as { decision?: string; reason?: string };
      assert.equal(reply.decision, 'block', run.stdout);
      assert.match(reply.reason ?? '', /symbolic link/);
    });

    it('the hooks\' store as a symbolic link into a scope: nothing is saved or read through it', () => {
      assert.equal(postBash('s1').stdout, '');
      renameSync(hooksDir(), join(repo.root, 'src/a/hooks'));
      symlinkSync('../../src/a/hooks', hooksDir());
      const saved = snapshotTree(join(repo.root, 'src/a/hooks'));
      writeFileSync(join(repo.root, 'docs/evil.md'), 'x\n');
      const run = postBash('s1');
      const reply = JSON.parse(run.stdout) as { decision?: string; reason?: string };
      assert.equal(reply.decision, 'block', run.stdout);
      assert.match(reply.reason ?? '', /symbolic link/);
      assert.deepEqual(snapshotTree(join(repo.root, 'src/a/hooks')), saved, 'nothing written through the link');
    });
  });
});
