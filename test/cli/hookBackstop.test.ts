import assert from 'node:assert/strict';
import { copyFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { builtCliPath, cleanEnv, runBuiltCli } from '../support/builtCli';
import type { CliRun } from '../support/builtCli';
import { writeManifest } from '../support/hookFixtures';
import { createTempGitRepo } from '../support/tempGitRepo';
import type { TempGitRepo } from '../support/tempGitRepo';
import { backstopRepo, runTurn, scopePath, sidecarPath, turnRecord } from './backstopTurns';

const leanHook = join(builtCliPath, '..', 'hook.js');

interface Call {
  event?: string;
  session?: string;
  agentId?: string;
  stopHookActive?: boolean;
  cwd?: string;
}

function payload(repo: TempGitRepo, call: Call = {}): string {
  const event = call.event ?? 'PostToolUse';
  return JSON.stringify({
    session_id: call.session ?? 'session-a',
    transcript_path: '/tmp/transcript.jsonl',
    cwd: call.cwd ?? repo.root,
    hook_event_name: event,
    ...(event === 'PostToolUse' ? { tool_name: 'Bash', tool_input: { command: 'make' }, tool_response: { stdout: '' } } : {}),
    ...(event === 'UserPromptSubmit' ? { prompt: 'go on' } : {}),
    ...(call.agentId !== undefined ? { agent_id: call.agentId, agent_type: 'general-purpose' } : {}),
    ...(call.stopHookActive !== undefined ? { stop_hook_active: call.stopHookActive } : {}),
  });
}

function hook(repo: TempGitRepo, name: string, call: Call = {}, options: { env?: Record<string, string>; agentCli?: string; via?: 'lean' | 'cli' } = {}): CliRun {
  const args = [name, '--agent-cli', options.agentCli ?? 'claude'];
  const input = payload(repo, call);
  if (options.via === 'cli') return runBuiltCli(['hook', ...args], { input, env: cleanEnv(options.env), cwd: repo.root });
  const run = spawnSync(process.execPath, [leanHook, ...args], { input, env: cleanEnv(options.env), cwd: repo.root, encoding: 'utf8' });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

function blockReason(run: CliRun): string {
  assert.equal(run.status, 0, run.stderr);
  const reply = JSON.parse(run.stdout) as { decision?: string; reason?: string };
  assert.equal(reply.decision, 'block', run.stdout);
  return reply.reason ?? '';
}

function events(repo: TempGitRepo): Array<Record<string, unknown>> {
  const path = join(repo.root, '.orchestrator', 'metrics', 'events.jsonl');
  return readFileSync(path, 'utf8')
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

const START = { 'README.md': 'readme\n', 'src/app.ts': 'app\n', 'docs/guide.md': 'guide\n' };

describe('wave-scope hook post-bash, stop, turn-start: the backstop in the agent CLI (built bundles, real git repositories)', () => {
  let repo: TempGitRepo;
  beforeEach(() => {
    repo = backstopRepo(START);
    writeManifest(repo, { allowedPaths: ['src/'] });
  });
  afterEach(() => repo.remove());

  for (const via of ['lean', 'cli'] as const) {
    it(`takes the baseline on the first call, then blocks on each out-of-scope change once (${via === 'lean' ? 'dist/hook.js' : 'dist/cli.js hook'})`, () => {
      const first = hook(repo, 'post-bash', {}, { via });
      assert.equal(first.status, 0, first.stderr);
      assert.equal(first.stdout, '', 'the first call only takes the baseline');

      repo.write({ 'evil.py': 'x\n', 'README.md': 'changed\n', 'src/ok.ts': 'fine\n' });
      rmSync(join(repo.root, 'docs/guide.md'));
      const reason = blockReason(hook(repo, 'post-bash', {}, { via }));
      assert.match(reason, /^Wave Scope: the last command changed files outside your scope:/);
      assert.match(reason, /\n- created {2}evil\.py \(outside the scope\)/);
      assert.match(reason, /\n- modified README\.md \(outside the scope\)/);
      assert.match(reason, /\n- deleted {2}docs\/guide\.md \(outside the scope\)/);
      assert.doesNotMatch(reason, /src\/ok\.ts/);
      assert.match(reason, /allowed \(wave 1, .*wave-scope\.json\): src\//);
      assert.match(reason, /What to do: if you made these changes, undo exactly them/);

      const again = hook(repo, 'post-bash', {}, { via });
      assert.equal(again.stdout, '', 'each change is reported once');
      repo.write({ 'src/more.ts': 'more\n' });
      assert.equal(hook(repo, 'post-bash', {}, { via }).stdout, '', 'in-scope changes pass silently');
    });
  }

  it('applies the agent\'s own scope when WAVE_SCOPE_AGENT names it, as the write gate does', () => {
    writeFileSync(join(repo.root, '.claude', 'wave-scope.json'), JSON.stringify({ version: 1, wave: 1, role: 'implementation', enforcement: 'strict', allowedPaths: ['src/', 'docs/'], blockedCommands: [] }));
    // A per-agent file counts only with the aggregate that backs it (the gate's rule).
    repo.write({ '.claude/filescopes/wave-1/alice.json': '["src/app.ts"]\n', '.claude/filescopes/wave-1.scopes.json': '[{"id":"alice","files":["src/app.ts"]}]\n' });
    const env = { WAVE_SCOPE_AGENT: 'alice' };
    assert.equal(hook(repo, 'post-bash', {}, { env }).stdout, '');
    repo.write({ 'src/app.ts': 'mine\n', 'src/app.test.ts': 'my test\n', 'docs/guide.md': 'in the wave, not mine\n' });
    const reason = blockReason(hook(repo, 'post-bash', {}, { env }));
    assert.match(reason, /\n- modified docs\/guide\.md \(outside the scope\)/);
    assert.doesNotMatch(reason, /- (modified|created) +src\/app/, 'the agent\'s file and its test sibling are allowed');
    assert.match(reason, /allowed \(agent "alice"\): src\/app\.ts/);
  });

  it('appends one telemetry record per call, with counts and no path', () => {
    hook(repo, 'post-bash');
    repo.write({ 'evil.py': 'x\n', 'src/ok.ts': 'y\n' });
    hook(repo, 'post-bash');
    const recorded = events(repo);
    assert.equal(recorded.length, 2);
    assert.deepEqual(
      recorded.map((event) => [event.event, event.hook, event.baseline, event.created, event.out_of_scope, event.decision]),
      [
        ['wave_scope.backstop.shell_checked', 'post-bash', 'taken', 0, 0, 'allow'],
        ['wave_scope.backstop.shell_checked', 'post-bash', 'compared', 2, 1, 'block'],
      ],
    );
    const text = readFileSync(join(repo.root, '.orchestrator', 'metrics', 'events.jsonl'), 'utf8');
    assert.doesNotMatch(text, /evil|ok\.ts|src\//, 'no path is recorded');
  });

  it('checks a subagent at SubagentStop against its coordinator\'s last call when its own tool hooks never fired', () => {
    assert.equal(hook(repo, 'post-bash').stdout, '', 'the coordinator\'s call takes the baseline');
    repo.write({ 'leak.txt': 'written by the subagent\n' });
    const reason = blockReason(hook(repo, 'stop', { event: 'SubagentStop', agentId: 'agent-7' }));
    assert.match(reason, /^Wave Scope: this turn changed files outside your scope:\n- created {2}leak\.txt \(outside the scope\)/);
  });

  it('only shows a notice when a Stop hook already runs because of an earlier block (no loop)', () => {
    hook(repo, 'stop', { event: 'Stop' });
    repo.write({ 'leak.txt': 'x\n' });
    const run = hook(repo, 'stop', { event: 'Stop', stopHookActive: true });
    const reply = JSON.parse(run.stdout) as { decision?: string; systemMessage?: string };
    assert.equal(reply.decision, undefined);
    assert.match(reply.systemMessage ?? '', /created {2}leak\.txt/);
  });

  it('takes a new baseline at turn start, so what a person edits between turns is never blamed on the agent', () => {
    hook(repo, 'stop', { event: 'Stop' });
    repo.write({ 'README.md': 'a person edited this between turns\n' });
    const start = hook(repo, 'turn-start', { event: 'UserPromptSubmit' });
    assert.equal(start.status, 0, start.stderr);
    assert.equal(start.stdout, '', 'nothing is added to the prompt');
    repo.write({ 'src/app.ts': 'the agent\'s work\n' });
    assert.equal(hook(repo, 'post-bash').stdout, '');
  });

  it('keeps one baseline per session, so one session\'s calls never hide a change from another', () => {
    hook(repo, 'post-bash', { session: 'session-a' });
    hook(repo, 'post-bash', { session: 'session-b' });
    repo.write({ 'evil.py': 'x\n' });
    assert.match(blockReason(hook(repo, 'post-bash', { session: 'session-b' })), /evil\.py/);
    assert.match(blockReason(hook(repo, 'post-bash', { session: 'session-a' })), /evil\.py/, 'session b\'s call did not move session a\'s baseline');
  });

  it('sees a change the shell command committed (the index moved, not only the work tree)', () => {
    hook(repo, 'post-bash');
    repo.write({ 'docs/guide.md': 'rewritten\n' });
    repo.git('commit', '-qam', 'agent commit');
    assert.match(blockReason(hook(repo, 'post-bash')), /\n- modified docs\/guide\.md/);
  });

  it('sees a rewrite whose index entry was forged to call it clean, which git status never reports', () => {
    hook(repo, 'post-bash');
    writeFileSync(join(repo.root, 'docs/guide.md'), 'evil: out of scope\n');
    const past = new Date(Date.now() - 5000);
    utimesSync(join(repo.root, 'docs/guide.md'), past, past);
    const attributes = join(repo.root, '.git', 'forged-attributes');
    writeFileSync(attributes, 'docs/guide.md filter=x\n');
    repo.git('-c', `core.attributesFile=${attributes}`, '-c', 'filter.x.clean=git cat-file blob HEAD:docs/guide.md', 'add', 'docs/guide.md');
    rmSync(attributes);
    assert.equal(repo.git('status', '--porcelain', '--', 'docs'), '', 'git itself calls the file clean');
    assert.match(blockReason(hook(repo, 'post-bash')), /\n- modified docs\/guide\.md \(outside the scope\)/);
    assert.equal(hook(repo, 'post-bash').stdout, '', 'reported once: the next call compares with what it saw');
  });

  it('sees a change behind an assume-unchanged or skip-worktree flag, which git status never reports, also under an unchanged index', () => {
    hook(repo, 'post-bash');
    repo.git('update-index', '--assume-unchanged', 'README.md');
    repo.git('update-index', '--skip-worktree', 'docs/guide.md');
    repo.write({ 'README.md': 'hidden\n' });
    const reason = blockReason(hook(repo, 'post-bash'));
    assert.match(reason, /\n- modified README\.md/);
    assert.doesNotMatch(reason, /guide/, 'a flag alone changes no file');
    rmSync(join(repo.root, 'docs/guide.md'));
    assert.match(blockReason(hook(repo, 'post-bash')), /\n- deleted {2}docs\/guide\.md/, 'the index is unchanged: the saved listing is reused, and still tells the flags');
    assert.equal(hook(repo, 'post-bash').stdout, '', 'what was reported is not reported again');
  });

  it('keeps a header, and the listing of the index it was taken under with its stat data; under an unchanged index only the header is rewritten', () => {
    const store = join(repo.root, '.orchestrator', 'backstop', 'hooks');
    hook(repo, 'post-bash');
    const listings = () => readdirSync(store).filter((name) => name.endsWith('.index'));
    const [first] = listings();
    assert.deepEqual(readdirSync(store).map((name) => name.replace(/^.*\./, '')).sort(), ['index', 'snapshot', 'stats']);
    repo.write({ 'src/x.ts': 'x\n' });
    hook(repo, 'post-bash');
    assert.deepEqual(listings(), [first], 'the same listing file');
    repo.git('add', 'src/x.ts');
    hook(repo, 'post-bash');
    assert.equal(listings().length, 1);
    assert.notDeepEqual(listings(), [first], 'a new index, a new listing; the old one is gone');
    assert.match(readFileSync(join(store, listings()[0] as string), 'utf8'), /\tsrc\/x\.ts\0/);
    assert.equal(readdirSync(store).filter((name) => name.endsWith('.stats')).length, 1, 'the old stat data is gone with its listing');
    // Stat data the header says was kept, and is gone: the snapshot is damaged, never compared by the clock.
    for (const name of readdirSync(store).filter((entry) => entry.endsWith('.stats'))) rmSync(join(store, name));
    assert.match(blockReason(hook(repo, 'post-bash')), /could not read the snapshot it kept/);
  });

  it('blocks the call whose window pointed the checkout\'s .git at a git directory of the agent\'s, beside a plan of its own', () => {
    hook(repo, 'post-bash');
    // A copy of the git directory with a linked work tree's entry for this checkout, and a plan allowing everything beside it.
    const evil = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-evil-')));
    const aside = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-aside-')));
    try {
      spawnSync('cp', ['-a', join(repo.root, '.git'), join(evil, '.git')]);
      mkdirSync(join(evil, '.git', 'worktrees', 'x'), { recursive: true });
      for (const name of ['HEAD', 'index']) copyFileSync(join(evil, '.git', name), join(evil, '.git', 'worktrees', 'x', name));
      writeFileSync(join(evil, '.git', 'worktrees', 'x', 'commondir'), '../..\n');
      writeFileSync(join(evil, '.git', 'worktrees', 'x', 'gitdir'), `${join(repo.root, '.git')}\n`);
      mkdirSync(join(evil, '.claude'));
      writeFileSync(join(evil, '.claude', 'wave-scope.json'), `${JSON.stringify({ version: 1, wave: 1, role: 'implementation', enforcement: 'strict', allowedPaths: ['**'], blockedCommands: [] })}\n`);
      spawnSync('mv', [join(repo.root, '.git'), join(aside, 'real.git')]);
      writeFileSync(join(repo.root, '.git'), `gitdir: ${join(evil, '.git', 'worktrees', 'x')}\n`);
      repo.write({ 'docs/guide.md': 'evil\n' });
      assert.match(blockReason(hook(repo, 'post-bash')), /\n- modified \.git \(control state/);
    } finally {
      rmSync(join(repo.root, '.git'), { force: true });
      spawnSync('mv', [join(aside, 'real.git'), join(repo.root, '.git')]);
      rmSync(evil, { recursive: true, force: true });
      rmSync(aside, { recursive: true, force: true });
    }
  });

  it('keeps a snapshot of each submodule beside its own, and sees a change inside one that was already dirty; a submodule gone takes its files with it', () => {
    const library = createTempGitRepo({ initialFiles: { 'a.txt': 'a\n', 'b.txt': 'b\n' } });
    try {
      repo.git('-c', 'protocol.file.allow=always', 'submodule', 'add', '--quiet', library.root, 'vendor/lib');
      repo.git('commit', '--quiet', '-m', 'add the library');
      writeFileSync(join(repo.root, 'vendor/lib/a.txt'), 'work in progress\n');
      const store = join(repo.root, '.orchestrator', 'backstop', 'hooks');
      const kinds = () => readdirSync(store).map((name) => name.replace(/^[^.]*\./, '').replace(/^n[0-9a-f]{32}\./, 'n<path>.').replace(/(^|\.)[cd][0-9a-f]{40}\./, '$1<tag>.')).sort();
      assert.equal(hook(repo, 'post-bash').stdout, '');
      assert.deepEqual(kinds(), ['<tag>.index', '<tag>.stats', 'n<path>.<tag>.index', 'n<path>.<tag>.stats', 'n<path>.snapshot', 'snapshot'], 'the submodule\'s snapshot, stored as one of its own');

      writeFileSync(join(repo.root, 'vendor/lib/b.txt'), 'evil\n');
      const reason = blockReason(hook(repo, 'post-bash'));
      assert.match(reason, /\n- modified vendor\/lib\/b\.txt \(outside the scope\)/);
      assert.doesNotMatch(reason, /a\.txt/, 'the dirt of before the window is not the agent\'s');
      assert.equal(hook(repo, 'post-bash').stdout, '', 'reported once');

      // A nested snapshot the header names, gone: the whole snapshot is damaged, never half compared.
      for (const name of readdirSync(store).filter((entry) => /\.n[0-9a-f]{32}\.snapshot$/.test(entry))) rmSync(join(store, name));
      assert.match(blockReason(hook(repo, 'post-bash')), /could not read the snapshot it kept/);

      repo.git('rm', '--quiet', '-f', 'vendor/lib');
      repo.git('commit', '--quiet', '-m', 'drop the library');
      hook(repo, 'post-bash');
      assert.deepEqual(kinds(), ['<tag>.index', '<tag>.stats', 'snapshot'], 'the submodule\'s stored snapshot is removed with it');
    } finally {
      library.remove();
    }
  });

  it('reads a saved listing with non-ASCII paths back exactly: a change to a tracked file so named is seen under an unchanged index', () => {
    repo.write({ 'docs/naïve 😀.md': 'one\n', 'src/café.ts': 'one\n' });
    repo.git('add', '--all');
    repo.git('commit', '-qm', 'non-ASCII names');
    const store = join(repo.root, '.orchestrator', 'backstop', 'hooks');
    hook(repo, 'post-bash');
    const listings = () => readdirSync(store).filter((name) => name.endsWith('.index'));
    const [listing] = listings();
    assert.match(readFileSync(join(store, listing as string), 'utf8'), /\tdocs\/naïve 😀\.md\0/);
    repo.write({ 'docs/naïve 😀.md': 'two\n', 'src/café.ts': 'two\n' });
    const reason = blockReason(hook(repo, 'post-bash'));
    assert.match(reason, /\n- modified docs\/naïve 😀\.md/);
    assert.doesNotMatch(reason, /café/, 'the in-scope change is not reported');
    assert.deepEqual(listings(), [listing], 'the index did not change: the saved listing was reused');
    repo.write({ 'docs/naïve 😀.md': 'one\n' });
    assert.match(blockReason(hook(repo, 'post-bash')), /\n- modified docs\/naïve 😀\.md/, 'changed back to the index: a change again');
    assert.equal(hook(repo, 'post-bash').stdout, '', 'and then nothing new');
  });

  it('lets the coordinator\'s git commands rewrite git\'s own files, and blocks a subagent that does', () => {
    hook(repo, 'post-bash');
    repo.git('config', 'wavescope.test', 'coordinator');
    assert.equal(hook(repo, 'post-bash').stdout, '', 'the coordinator may run git config');
    hook(repo, 'post-bash', { agentId: 'agent-7' });
    repo.git('config', 'wavescope.test', 'subagent');
    assert.match(blockReason(hook(repo, 'post-bash', { agentId: 'agent-7' })), /- modified \.git\/config \(control state: never written by an agent\)/);
  });

  it('speaks Codex\'s shell hook the same way', () => {
    hook(repo, 'post-bash', {}, { agentCli: 'codex' });
    repo.write({ 'evil.py': 'x\n' });
    assert.match(blockReason(hook(repo, 'post-bash', {}, { agentCli: 'codex' })), /created {2}evil\.py/);
  });

  it('says nothing without a wave, and notes on stderr that it has nothing to check outside a repository', () => {
    rmSync(join(repo.root, '.claude', 'wave-scope.json'));
    const noWave = hook(repo, 'post-bash');
    assert.deepEqual([noWave.status, noWave.stdout], [0, '']);
    assert.ok(!existsSync(join(repo.root, '.orchestrator')), 'no wave, no files of ours');

    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-off-repo-')));
    try {
      const off = hook(repo, 'post-bash', { cwd: dir });
      assert.deepEqual([off.status, off.stdout], [0, '']);
      assert.match(off.stderr, /is not inside a git repository; nothing to check/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('blocks, fail closed, on an unusable manifest, an unreadable payload, a damaged saved snapshot and an unknown agent CLI', () => {
    hook(repo, 'post-bash');
    repo.write({ 'src/x.ts': 'x\n' });
    writeFileSync(join(repo.root, '.claude', 'wave-scope.json'), '{"version": 1');
    assert.match(blockReason(hook(repo, 'post-bash')), /the wave manifest .*wave-scope\.json is unusable/);
    writeManifest(repo, { allowedPaths: ['src/'] });

    const garbage = spawnSync(process.execPath, [leanHook, 'post-bash'], { input: 'not json', env: cleanEnv(), cwd: repo.root, encoding: 'utf8' });
    assert.match(blockReason({ status: garbage.status, stdout: garbage.stdout, stderr: garbage.stderr }), /could not read this hook call \(The hook payload on stdin is not JSON\.\)/);

    const store = join(repo.root, '.orchestrator', 'backstop', 'hooks');
    for (const name of readdirSync(store)) writeFileSync(join(store, name), 'damaged');
    assert.match(blockReason(hook(repo, 'post-bash')), /could not read the snapshot it kept/);
    assert.equal(hook(repo, 'post-bash').stdout, '', 'a new baseline was taken');

    assert.match(blockReason(hook(repo, 'post-bash', {}, { agentCli: 'cursor' })), /unknown --agent-cli "cursor"/);
  });

  it('answers whole through a pipe its reader drains late, naming the first 200 of 3,000 out-of-scope files and counting the rest', () => {
    hook(repo, 'post-bash');
    mkdirSync(join(repo.root, 'generated'));
    for (let index = 0; index < 3000; index += 1) writeFileSync(join(repo.root, 'generated', `file-${index}.js`), '');
    // As an agent CLI may: the reply's pipe is read a moment after the hook has written into it. The hook's
    // reply used to meet EAGAIN past the pipe's 64 KiB and reach the agent cut short.
    const run = spawnSync('bash', ['-c', '"$0" "$1" post-bash --agent-cli claude | { sleep 1; cat; }; exit "${PIPESTATUS[0]}"', process.execPath, leanHook], {
      input: payload(repo),
      env: cleanEnv(),
      cwd: repo.root,
      encoding: 'utf8',
    });
    const reason = blockReason({ status: run.status, stdout: run.stdout, stderr: run.stderr });
    assert.equal(run.stderr, '');
    assert.equal(reason.match(/\n- created {2}generated\/file-\d+\.js \(outside the scope\)/g)?.length, 200);
    assert.match(reason, /\n- and 2800 more paths outside the scope \(only the first 200 are listed; `git status` shows every change\)\n/);
    assert.equal(hook(repo, 'post-bash').stdout, '', 'reported once');
  });

  it('keeps the write gate\'s bundle free of the backstop: enforce-write runs from dist/hook.js alone', () => {
    const alone = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-lean-hook-')));
    try {
      copyFileSync(leanHook, join(alone, 'hook.js'));
      const write = JSON.stringify({ session_id: 's', cwd: repo.root, hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: join(repo.root, 'src/a.ts'), content: 'a' } });
      const gate = spawnSync(process.execPath, [join(alone, 'hook.js'), 'enforce-write', '--agent-cli', 'claude'], { input: write, env: cleanEnv(), cwd: repo.root, encoding: 'utf8' });
      assert.deepEqual([gate.status, gate.stdout, gate.stderr], [0, '', '']);
      const backstop = spawnSync(process.execPath, [join(alone, 'hook.js'), 'post-bash', '--agent-cli', 'claude'], { input: payload(repo), env: cleanEnv(), cwd: repo.root, encoding: 'utf8' });
      assert.notEqual(backstop.status, 0, 'post-bash needs dist/backstop-hook.js beside it');
      assert.match(backstop.stderr, /backstop-hook\.js/);
    } finally {
      rmSync(alone, { recursive: true, force: true });
    }
  });
});

describe('wave-scope hook post-bash, stop and run: a dispatched agent\'s shell changing the plan (built bundles, real git repositories)', () => {
  let repo: TempGitRepo;
  const alice = { WAVE_SCOPE_AGENT: 'alice' };
  const scopeFile = '.claude/filescopes/wave-1/alice.json';
  const aggregate = '.claude/filescopes/wave-1.scopes.json';
  const manifest = '.claude/wave-scope.json';
  beforeEach(() => {
    repo = backstopRepo(START, { alice: ['src/app.ts'], bob: ['docs/'] });
    writeManifest(repo, { allowedPaths: ['src/', 'docs/'] });
  });
  afterEach(() => repo.remove());

  /** Runs `script` with sh in the repository, as an agent's shell command would. */
  function shell(script: string): void {
    const run = spawnSync('sh', ['-c', script], { cwd: repo.root, encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
  }

  function headerPath(): string {
    const store = join(repo.root, '.orchestrator', 'backstop', 'hooks');
    const headers = readdirSync(store).filter((name) => name.endsWith('.snapshot'));
    assert.equal(headers.length, 1, headers.join(', '));
    return join(store, headers[0] as string);
  }

  const rewrites: Array<{ what: string; script: string; line: RegExp }> = [
    { what: 'its own scope file, in place', script: `printf '["src/", "docs/"]\\n' > ${scopeFile}`, line: /\n- \.claude\/filescopes\/wave-1\/alice\.json: modified \(written in place, or touched\)/ },
    { what: 'the aggregate, in place', script: `printf '[{"id":"alice","files":["**"]}]\\n' > ${aggregate}`, line: /\n- \.claude\/filescopes\/wave-1\.scopes\.json: modified/ },
    { what: 'the manifest, in place', script: `printf '{"version":1,"wave":1,"role":"implementation","enforcement":"off","allowedPaths":["**"],"blockedCommands":[]}\\n' >> ${manifest}`, line: /\n- \.claude\/wave-scope\.json: modified/ },
    { what: 'its scope file, replaced by a rename (sed -i)', script: `sed -i 's#src/app.ts#src/#' ${scopeFile}`, line: /\n- \.claude\/filescopes\/wave-1\/alice\.json: replaced \(another file or directory now has this name\)/ },
    { what: 'another agent\'s scope file, deleted', script: 'rm .claude/filescopes/wave-1/bob.json', line: /\n- \.claude\/filescopes\/wave-1\/bob\.json: deleted/ },
    { what: 'a new per-agent file', script: `printf '["**"]\\n' > .claude/filescopes/wave-1/mallory.json`, line: /\n- \.claude\/filescopes\/wave-1\/mallory\.json: created/ },
    { what: 'its scope file, a symbolic link planted in its place', script: `cp ${scopeFile} src/mine.json && ln -sf ../../../src/mine.json ${scopeFile}`, line: /\n- \.claude\/filescopes\/wave-1\/alice\.json: linked/ },
    { what: 'its scope file, given a second name', script: `ln ${scopeFile} src/second.json`, line: /\n- \.claude\/filescopes\/wave-1\/alice\.json: linked/ },
    { what: 'the hook launcher every installed hook runs', script: "printf 'process.exit(0);\\n' > .claude/wave-scope-hook.cjs", line: /\n- \.claude\/wave-scope-hook\.cjs: (created|modified)/ },
    {
      what: 'the session record, to an earlier start (so the commit guard would count older waves)',
      script: `printf '{"version":1,"session_id":"s","started_at":0}\\n' > .claude/wave-scope-session.json`,
      line: /\n- \.claude\/wave-scope-session\.json: created/,
    },
    { what: 'the declarations\' directory, replaced by a link', script: 'mv .claude/filescopes/wave-1 src/wave-1 && ln -s ../../src/wave-1 .claude/filescopes/wave-1', line: /\n- \.claude\/filescopes\/wave-1: linked/ },
  ];
  for (const { what, script, line } of rewrites) {
    it(`blocks an agent (WAVE_SCOPE_AGENT) whose shell changes ${what}, naming the file and the change`, () => {
      assert.equal(hook(repo, 'post-bash', {}, { env: alice }).stdout, '', 'the baseline');
      shell(script);
      const reason = blockReason(hook(repo, 'post-bash', {}, { env: alice }));
      assert.match(reason, /the wave's plan changed since your previous check\. The plan \(the manifest, filescopes\/, the session record and the hook launcher\) is control state: no agent may change it/);
      assert.match(reason, line);
      assert.match(reason, /never edit these files back by hand/);
      assert.match(reason, /may also have changed them between two of your calls: then tell the coordinator and do nothing else/);
      assert.equal(hook(repo, 'post-bash', {}, { env: alice }).stdout, '', 'reported once');
    });
  }

  it('sees a same-size rewrite of a scope file written moments before, even where the file system kept its times (by the content\'s hash)', () => {
    // The scope file is written just before the baseline, which so fingerprints it by its content too.
    const absolute = join(repo.root, scopeFile);
    writeFileSync(absolute, readFileSync(absolute));
    assert.equal(hook(repo, 'post-bash', {}, { env: alice }).stdout, '', 'the baseline');
    const path = headerPath();
    const [magic, json] = readFileSync(path, 'utf8').split('\n');
    const header = JSON.parse(json as string) as { plan: Array<[string, string]> };
    const saved = header.plan.find(([planPath]) => planPath === absolute);
    const hash = / sha256:[0-9a-f]{64}$/.exec(saved?.[1] ?? '')?.[0];
    assert.ok(hash !== undefined, `the saved fingerprint holds the content's hash: ${saved?.[1]}`);
    // Rewritten in place with the same size. On a file system whose clock did not move between the two
    // writes, the times would read as before: the saved fingerprint is made to say exactly that.
    shell(`printf '["src/api.ts"]\\n' > ${scopeFile}`);
    const now = lstatSync(absolute, { bigint: true });
    const sameTimes = `file ${now.dev}:${now.ino} ${now.nlink} ${now.size} ${now.mtimeNs} ${now.ctimeNs}${hash}`;
    header.plan = header.plan.map(([planPath, fingerprint]) => [planPath, planPath === absolute ? sameTimes : fingerprint]);
    writeFileSync(path, `${magic}\n${JSON.stringify(header)}\n`);
    assert.match(blockReason(hook(repo, 'post-bash', {}, { env: alice })), /\n- \.claude\/filescopes\/wave-1\/alice\.json: modified/);
  });

  it('blocks an agent whose shell moves the manifest away, once, and judges what it did meanwhile once the plan is back', () => {
    assert.equal(hook(repo, 'post-bash', {}, { env: alice }).stdout, '', 'the baseline');
    // Without a manifest no wave is in force: the write gate lets anything through, so this is the
    // one call that can say so.
    shell(`mv ${manifest} manifest.aside && printf 'x\\n' > README.md`);
    const reason = blockReason(hook(repo, 'post-bash', {}, { env: alice }));
    assert.match(reason, /the wave's plan changed since your previous check/);
    assert.match(reason, /\n- \.claude\/wave-scope\.json: deleted/);
    assert.match(reason, /no wave's plan is in force here \(there is no manifest, or it names another session\), so nothing else could be checked/);
    assert.doesNotMatch(reason, /README/, 'nothing to judge the tree against');
    assert.equal(hook(repo, 'post-bash', {}, { env: alice }).stdout, '', 'reported once');
    assert.equal(hook(repo, 'stop', { event: 'Stop' }, { env: alice }).stdout, '', 'reported once, at stop too');
    // Put back: the plan's return is a change of it, and the window since the last judged call is judged whole.
    shell(`mv manifest.aside ${manifest}`);
    const back = blockReason(hook(repo, 'post-bash', {}, { env: alice }));
    assert.match(back, /\n- \.claude\/wave-scope\.json: created/);
    assert.match(back, /README\.md/);
  });

  it('blocks an agent whose shell makes the manifest another session\'s, and leaves the coordinator\'s own removal of the plan alone', () => {
    const subagent = { agentId: 'agent-7' };
    assert.equal(hook(repo, 'post-bash', subagent).stdout, '', 'a subagent\'s baseline');
    assert.equal(hook(repo, 'post-bash', {}, { env: alice }).stdout, '', 'a named agent\'s baseline');
    hook(repo, 'post-bash');
    writeManifest(repo, { allowedPaths: ['src/', 'docs/'], session_id: 'someone-else' });
    // The subagent's session is no longer the wave's: no wave is in force for it, and it is told why.
    const reason = blockReason(hook(repo, 'post-bash', subagent));
    assert.match(reason, /\n- \.claude\/wave-scope\.json: (modified|replaced)/);
    assert.match(reason, /nothing else could be checked/);
    // An agent started as one of the wave stays held to it, whatever session the manifest names: its
    // window is checked as always, the rewrite with it.
    const named = blockReason(hook(repo, 'post-bash', {}, { env: alice }));
    assert.match(named, /\n- \.claude\/wave-scope\.json: (modified|replaced)/);
    assert.doesNotMatch(named, /nothing else could be checked/);
    // The coordinator (no WAVE_SCOPE_AGENT) ends its wave: nothing to tell it.
    rmSync(join(repo.root, manifest));
    const coordinator = hook(repo, 'post-bash');
    assert.deepEqual([coordinator.status, coordinator.stdout], [0, '']);
    // A caller whose last call found no plan either has nothing to compare.
    const fresh = hook(repo, 'post-bash', { agentId: 'agent-9' });
    assert.deepEqual([fresh.status, fresh.stdout], [0, '']);
  });

  it('names only the directory when the whole wave\'s declarations are removed', () => {
    hook(repo, 'post-bash', { agentId: 'agent-7' });
    shell('rm -r .claude/filescopes/wave-1');
    const reason = blockReason(hook(repo, 'post-bash', { agentId: 'agent-7' }));
    assert.match(reason, /\n- \.claude\/filescopes\/wave-1: deleted/);
    assert.doesNotMatch(reason, /alice\.json/);
  });

  it('never judges the coordinator, which writes the plan; the agent\'s window after it still starts at its own last call', () => {
    hook(repo, 'post-bash', {}, { env: alice });
    hook(repo, 'post-bash');
    shell(`sed -i 's#src/app.ts#src/#' ${scopeFile} && printf '[{"id":"alice","files":["src/"]},{"id":"bob","files":["docs/"]}]\\n' > ${aggregate}`);
    const coordinator = hook(repo, 'post-bash');
    assert.deepEqual([coordinator.status, coordinator.stdout], [0, '']);
    const stop = hook(repo, 'stop', { event: 'Stop' });
    assert.deepEqual([stop.status, stop.stdout], [0, '']);
    assert.match(blockReason(hook(repo, 'post-bash', {}, { env: alice })), /alice\.json: replaced[\s\S]*wave-1\.scopes\.json: modified/, 'the coordinator may have changed it: the agent is told, and told what to do');
  });

  it('reports a subagent\'s change at SubagentStop, compared with the coordinator\'s last call when the subagent\'s own hooks never fired', () => {
    hook(repo, 'post-bash');
    shell(`printf '["**"]\\n' > ${scopeFile}`);
    const reason = blockReason(hook(repo, 'stop', { event: 'SubagentStop', agentId: 'agent-7' }));
    assert.match(reason, /the wave's plan changed during this turn/);
    assert.match(reason, /\n- \.claude\/filescopes\/wave-1\/alice\.json: modified/);
    assert.match(reason, /this is your first check, compared with the coordinator's last one/);
    const again = hook(repo, 'stop', { event: 'SubagentStop', agentId: 'agent-7', stopHookActive: true });
    assert.equal(again.stdout, '', 'reported once');
  });

  it('adds the plan to a block for out-of-scope files, and blocks under enforcement "warn" too', () => {
    writeManifest(repo, { allowedPaths: ['src/', 'docs/'], enforcement: 'warn' });
    hook(repo, 'post-bash', { agentId: 'agent-7' });
    shell(`printf 'x\\n' > evil.py && printf '["**"]\\n' > ${scopeFile}`);
    const reason = blockReason(hook(repo, 'post-bash', { agentId: 'agent-7' }));
    assert.match(reason, /created {2}evil\.py/);
    assert.match(reason, /alice\.json: modified/);
  });

  it('takes the plan again at turn start, like the tree', () => {
    hook(repo, 'post-bash', {}, { env: alice });
    shell(`printf '["src/"]\\n' > ${scopeFile}`);
    hook(repo, 'turn-start', { event: 'UserPromptSubmit' }, { env: alice });
    assert.equal(hook(repo, 'post-bash', {}, { env: alice }).stdout, '');
  });

  it('says so, without blocking, when the saved snapshot is an earlier version\'s (no plan in it), and compares from the next call on', () => {
    hook(repo, 'post-bash', {}, { env: alice });
    const path = headerPath();
    const [magic, json] = readFileSync(path, 'utf8').split('\n');
    const header = JSON.parse(json as string) as Record<string, unknown>;
    assert.ok(Array.isArray(header.plan) && header.plan.length > 0, 'the header keeps the plan\'s fingerprints');
    delete header.plan;
    writeFileSync(path, `${magic}\n${JSON.stringify(header)}\n`);
    shell(`printf '["src/"]\\n' > ${scopeFile}`);
    const run = hook(repo, 'post-bash', {}, { env: alice });
    const reply = JSON.parse(run.stdout) as { decision?: string; systemMessage?: string };
    assert.equal(reply.decision, undefined, 'not a block: nothing was found');
    assert.match(reply.systemMessage ?? '', /could not compare the plan files .* saved by an earlier version/);
    shell(`printf '["src/", "docs/"]\\n' > ${scopeFile}`);
    assert.match(blockReason(hook(repo, 'post-bash', {}, { env: alice })), /alice\.json: modified/);

    const again = headerPath();
    const [magic2, json2] = readFileSync(again, 'utf8').split('\n');
    const header2 = JSON.parse(json2 as string) as Record<string, unknown>;
    delete header2.plan;
    writeFileSync(again, `${magic2}\n${JSON.stringify(header2)}\n`);
    repo.write({ 'evil.py': 'x\n' });
    const both = blockReason(hook(repo, 'post-bash', {}, { env: alice }));
    assert.match(both, /created {2}evil\.py[\s\S]*could not compare the plan files/, 'a block for the tree says it too');
  });

  it('blocks an agent of wave 2 whose shell rewrites an aggregate of wave 1 (the commit guard counts an earlier wave\'s), and not for a wave 3 planned meanwhile', () => {
    repo.write({ [scopePath('alice', 2)]: '["src/app.ts"]\n', [sidecarPath(2)]: '[{"id":"alice","files":["src/app.ts"]}]\n' });
    writeManifest(repo, { wave: 2, allowedPaths: ['src/app.ts'] });
    assert.equal(hook(repo, 'post-bash', {}, { env: alice }).stdout, '', 'the baseline');
    // The coordinator planning the next wave is no change to this one's plan.
    shell(`mkdir -p .claude/filescopes/wave-3 && printf '["docs/"]\\n' > .claude/filescopes/wave-3/carol.json && printf '[{"id":"carol","files":["docs/"]}]\\n' > ${sidecarPath(3)}`);
    assert.equal(hook(repo, 'post-bash', {}, { env: alice }).stdout, '', 'a later wave planned');
    shell(`printf '[{"id":"alice","files":["**"]}]\\n' > ${sidecarPath(1)}`);
    const reason = blockReason(hook(repo, 'post-bash', {}, { env: alice }));
    assert.match(reason, /\n- \.claude\/filescopes\/wave-1\.scopes\.json: modified/);
  });

  it('fails a `wave-scope run` turn whose command rewrites the session record', () => {
    const run = runTurn(repo, `printf '{"version":1,"session_id":"s","started_at":0}\\n' > .claude/wave-scope-session.json`);
    assert.equal(run.status, 3, run.stderr);
    assert.match(run.stderr, /the turn changed the wave's plan/);
    assert.deepEqual(turnRecord(repo).planChanges, [{ path: '.claude/wave-scope-session.json', kind: 'created' }]);
  });

  it('fails a `wave-scope run` turn whose command rewrites the hook launcher (which would decide every later hook call)', () => {
    const launcher = join(repo.root, '.claude/wave-scope-hook.cjs');
    writeFileSync(launcher, '// the installed launcher\n');
    const run = runTurn(repo, `printf 'process.exit(0);\\n' > .claude/wave-scope-hook.cjs`);
    assert.equal(run.status, 3, run.stderr);
    assert.match(run.stderr, /the turn changed the wave's plan/);
    assert.match(run.stderr, /\.claude\/wave-scope-hook\.cjs: modified/);
    assert.deepEqual(turnRecord(repo).planChanges, [{ path: '.claude/wave-scope-hook.cjs', kind: 'modified' }]);
  });

  it('fails a `wave-scope run` turn whose command changes the plan', () => {
    const run = runTurn(repo, `printf 'mine\\n' > src/app.ts && printf '["**"]\\n' > ${scopeFile}`);
    assert.equal(run.status, 3, run.stderr);
    assert.match(run.stderr, /the turn changed the wave's plan/);
    assert.match(run.stderr, /\.claude\/filescopes\/wave-1\/alice\.json: modified/);
    const record = turnRecord(repo);
    assert.equal(record.verdict, 'out-of-scope');
    assert.deepEqual(record.planChanges, [{ path: '.claude/filescopes/wave-1/alice.json', kind: 'modified' }]);
    repo.write({ [scopeFile]: '["src/app.ts"]\n' });
    const clean = runTurn(repo, `printf 'again\\n' > src/app.ts`);
    assert.doesNotMatch(clean.stderr, /plan/, 'the coordinator put it back before this turn: nothing to report');
    assert.equal(clean.status, 0, clean.stderr);
  });
});
