import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanEnv, runBuiltCli } from '../support/builtCli';
import type { TempGitRepo } from '../support/tempGitRepo';
import { backstopRepo, committedPaths, head, runTurn, statusLines, turnRecord, writeScope } from './backstopTurns';

const START = { 'README.md': 'readme\n', 'src/app.ts': 'app\n', 'src/old.ts': 'old\n' };

function commit(repo: TempGitRepo, agent = 'alice', wave = 1, flags: string[] = []) {
  return runBuiltCli(['commit', '--wave', String(wave), '--agent', agent, ...flags], { cwd: repo.root, env: cleanEnv() });
}

describe('wave-scope commit: a recorded turn, path by path (built dist/cli.js, real git repositories)', () => {
  let repo: TempGitRepo;
  afterEach(() => repo.remove());

  it('commits exactly the in-scope changes of the recorded turn, once', () => {
    repo = backstopRepo(START, { alice: ['src/'] });
    repo.write({ 'notes.txt': 'a person\'s notes\n' });
    const before = head(repo);
    const run = runTurn(repo, 'echo new > src/new.ts; echo more >> src/app.ts; rm src/old.ts');
    assert.equal(run.status, 0, run.stderr);
    assert.equal(head(repo), before, 'run without --commit commits nothing');

    const first = commit(repo);
    assert.equal(first.status, 0, first.stderr);
    assert.match(first.stderr, /committed 3 paths as [0-9a-f]{40}/);
    assert.deepEqual(committedPaths(repo), ['A src/new.ts', 'D src/old.ts', 'M src/app.ts']);
    assert.deepEqual(statusLines(repo), ['?? notes.txt']);
    assert.equal((turnRecord(repo).committed as { commit: string }).commit, head(repo));

    const second = commit(repo);
    assert.equal(second.status, 1, second.stderr);
    assert.match(second.stderr, /is committed already/);
  });

  it('never commits a turn that failed its scope check', () => {
    repo = backstopRepo(START, { alice: ['src/'] });
    const before = head(repo);
    assert.equal(runTurn(repo, 'echo ok >> src/app.ts; echo evil > evil.py').status, 3);
    const run = commit(repo);
    assert.equal(run.status, 3, run.stderr);
    assert.match(run.stderr, /failed its scope check: nothing of it is ever committed/);
    assert.equal(head(repo), before);
  });

  it('leaves out a change that changed again since the turn, and one the scope no longer allows', () => {
    repo = backstopRepo(START, { alice: ['src/'] });
    assert.equal(runTurn(repo, 'echo one > src/new.ts; echo two >> src/app.ts; echo three > src/third.ts').status, 0);
    writeFileSync(join(repo.root, 'src/app.ts'), 'app, changed by someone else afterwards\n');
    writeScope(repo, 'alice', ['src/new.ts', 'src/app.ts']);
    const run = commit(repo);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stderr, /WARNING: not committed, outside the agent's scope as it is now: src\/third\.ts/);
    assert.match(run.stderr, /WARNING: not committed, changed again since the turn ended: src\/app\.ts/);
    assert.deepEqual(committedPaths(repo), ['A src/new.ts']);
  });

  it('never takes the scope from the record: one pointed at a plan of its own making is refused, and nothing is committed', () => {
    repo = backstopRepo(START, { alice: ['src/'] });
    assert.equal(runTurn(repo, 'echo new > src/new.ts').status, 0);
    // Afterwards, a process the turn left running (or another agent's shell) writes a plan granting alice
    // everything, changes README.md, and rewrites the record to name both.
    writeScope(repo, 'alice', ['**'], 1, 'mine');
    writeFileSync(join(repo.root, 'README.md'), 'rewritten\n');
    const record = turnRecord(repo);
    const changes = record.changes as Array<Record<string, unknown>>;
    const readme = `100644 ${repo.git('hash-object', 'README.md').trim()}`;
    const recordPath = join(repo.root, '.orchestrator/backstop/turns/wave1/alice.json');
    const forgedStateDir = join(repo.root, 'mine');
    writeFileSync(recordPath, JSON.stringify({ ...record, stateDir: forgedStateDir, changes: [...changes, { path: 'README.md', kind: 'modified', after: readme }] }));
    const before = head(repo);
    const forged = commit(repo);
    assert.equal(forged.status, 1, forged.stderr);
    assert.ok(forged.stderr.includes(`names the state directory ${forgedStateDir}, but this command judges by ${join(repo.root, '.claude')}: nothing was committed`), forged.stderr);
    assert.equal(head(repo), before);

    // A person who names that state directory chooses that plan: then it judges.
    const chosen = commit(repo, 'alice', 1, ['--state-dir', 'mine']);
    assert.equal(chosen.status, 0, chosen.stderr);
    assert.deepEqual(committedPaths(repo), ['A src/new.ts', 'M README.md']);
  });

  it('a turn run with --state-dir is committed with the same --state-dir', () => {
    repo = backstopRepo(START, { alice: ['src/'] });
    writeScope(repo, 'alice', ['src/'], 1, 'plans');
    assert.equal(runTurn(repo, 'echo new > src/new.ts', { flags: ['--state-dir', 'plans'] }).status, 0);
    const without = commit(repo);
    assert.equal(without.status, 1);
    assert.match(without.stderr, /run the command again with --state-dir ".*plans"/);
    const withFlag = commit(repo, 'alice', 1, ['--state-dir', 'plans']);
    assert.equal(withFlag.status, 0, withFlag.stderr);
    assert.deepEqual(committedPaths(repo), ['A src/new.ts']);
  });

  it('refuses a missing or damaged record, and a turn that never finished', () => {
    repo = backstopRepo(START, { alice: ['src/'] });
    const none = commit(repo);
    assert.equal(none.status, 1);
    assert.match(none.stderr, /no turn recorded at .*wave1\/alice\.json: run the turn with "wave-scope run" first/);

    assert.equal(runTurn(repo, 'echo x >> src/app.ts').status, 0);
    const recordPath = join(repo.root, '.orchestrator/backstop/turns/wave1/alice.json');
    writeFileSync(recordPath, JSON.stringify({ ...turnRecord(repo), status: 'running' }));
    const running = commit(repo);
    assert.equal(running.status, 1);
    assert.match(running.stderr, /has not finished \(or its supervisor died\)/);

    writeFileSync(recordPath, '{"version": 1, "turn": 3}');
    const damaged = commit(repo);
    assert.equal(damaged.status, 1);
    assert.match(damaged.stderr, /is not a turn record Wave Scope can use/);
  });
});
