import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtCliPath, cleanEnv, runBuiltCli } from '../support/builtCli';
import { claudeDecision, hookPayload, writeManifest } from '../support/hookFixtures';
import { createTempGitRepo } from '../support/tempGitRepo';
import type { TempGitRepo } from '../support/tempGitRepo';

/** The fixture payloads' own session id (claude-*.json). */
const PAYLOAD_SESSION = '0f2c9a0e-5b1d-4d7e-9f3a-claude-session';

function enforce(input: string, options: { args?: string[]; env?: Record<string, string>; cwd?: string } = {}) {
  return runBuiltCli(['hook', 'enforce-write', ...(options.args ?? [])], { input, env: cleanEnv(options.env), cwd: options.cwd });
}

describe('wave-scope hook enforce-write (built dist/cli.js, real git repositories)', () => {
  let repo: TempGitRepo;
  beforeEach(() => {
    repo = createTempGitRepo({ initialFiles: { 'src/a.ts': 'a\n', 'docs/readme.md': 'r\n', 'nb/analysis.ipynb': '{}\n' } });
  });
  afterEach(() => repo.remove());

  it('allows every write when no manifest exists (no wave is active)', () => {
    const run = enforce(hookPayload('claude-write', { cwd: repo.root, target: join(repo.root, 'anything/else.ts') }));
    assert.equal(run.status, 0);
    assert.equal(run.stdout, '');
  });

  const strictCases: Array<{ fixture: string; target: string; expected: 'allow' | 'deny' }> = [
    { fixture: 'claude-write', target: 'src/a.ts', expected: 'allow' },
    { fixture: 'claude-write', target: 'src/new/deep/file.ts', expected: 'allow' },
    { fixture: 'claude-write', target: 'docs/readme.md', expected: 'deny' },
    { fixture: 'claude-edit', target: 'src/a.ts', expected: 'allow' },
    { fixture: 'claude-edit', target: 'README.md', expected: 'deny' },
    { fixture: 'claude-multiedit', target: 'src/a.ts', expected: 'allow' },
    { fixture: 'claude-multiedit', target: 'docs/readme.md', expected: 'deny' },
    { fixture: 'claude-notebookedit', target: 'nb/analysis.ipynb', expected: 'deny' },
    { fixture: 'claude-notebookedit', target: 'src/notes.ipynb', expected: 'allow' },
  ];
  for (const { fixture, target, expected } of strictCases) {
    it(`strict: ${fixture} of ${target} is ${expected === 'allow' ? 'allowed' : 'denied'} (absolute and relative spellings)`, () => {
      writeManifest(repo, { allowedPaths: ['src/'] });
      for (const spelled of [join(repo.root, target), target]) {
        const run = enforce(hookPayload(fixture, { cwd: repo.root, target: spelled }));
        assert.equal(run.status, 0, run.stderr);
        const reply = claudeDecision(run.stdout);
        assert.equal(reply.decision, expected, `${spelled}: ${run.stdout}`);
        if (expected === 'deny') {
          assert.match(reply.text, new RegExp(target.replace(/\./g, '\\.')), 'the reason names the path');
          assert.match(reply.text, /Allowed \(wave 1, .*wave-scope\.json\): src\//, 'the reason names the allowed entries');
          assert.match(reply.text, /What to do:/);
        }
      }
    });
  }

  it('a manifest entry with a lone surrogate grants nothing: neither its spelling nor the U+FFFD file it would be written as', () => {
    // A manifest from before such entries were refused, or written by hand: the gate stays closed.
    writeManifest(repo, { allowedPaths: ['src/\uD800/'] });
    for (const target of ['src/\uD800/x.ts', 'src/\uFFFD/x.ts', join(repo.root, 'src/\uFFFD/x.ts')]) {
      const run = enforce(hookPayload('claude-write', { cwd: repo.root, target }));
      assert.equal(run.status, 0, run.stderr);
      assert.equal(claudeDecision(run.stdout).decision, 'deny', `${JSON.stringify(target)}: ${run.stdout}`);
    }
  });

  it('shortens a long list of allowed entries in the deny reason', () => {
    const allowedPaths = Array.from({ length: 40 }, (_, index) => `pkg${index}/`);
    writeManifest(repo, { allowedPaths });
    const reply = claudeDecision(enforce(hookPayload('claude-write', { cwd: repo.root, target: 'src/a.ts' })).stdout);
    assert.equal(reply.decision, 'deny');
    assert.match(reply.text, /pkg0\/, pkg1\//);
    assert.match(reply.text, /… and 28 more/);
    assert.doesNotMatch(reply.text, /pkg39\//);
  });

  it('warn: allows an out-of-scope write with a systemMessage that names it', () => {
    writeManifest(repo, { allowedPaths: ['src/'], enforcement: 'warn' });
    const run = enforce(hookPayload('claude-write', { cwd: repo.root, target: join(repo.root, 'docs/readme.md') }));
    assert.equal(run.status, 0);
    const reply = claudeDecision(run.stdout);
    assert.equal(reply.decision, 'warn');
    assert.match(reply.text, /docs\/readme\.md is not in wave 1's allowed paths/);
    assert.equal(claudeDecision(enforce(hookPayload('claude-write', { cwd: repo.root, target: 'src/a.ts' })).stdout).decision, 'allow');
  });

  it('off: allows out-of-scope writes silently', () => {
    writeManifest(repo, { allowedPaths: ['src/'], enforcement: 'off' });
    const run = enforce(hookPayload('claude-write', { cwd: repo.root, target: join(repo.root, 'docs/readme.md') }));
    assert.equal(run.status, 0);
    assert.equal(run.stdout, '');
  });

  it('a manifest bound to a foreign session does not bind this one; a manifest bound to ours does', () => {
    writeManifest(repo, { allowedPaths: ['src/'], session_id: 'some-peer-session' });
    const foreign = enforce(hookPayload('claude-write', { cwd: repo.root, target: 'docs/readme.md' }));
    assert.equal(claudeDecision(foreign.stdout).decision, 'allow');
    writeManifest(repo, { allowedPaths: ['src/'], session_id: PAYLOAD_SESSION });
    const own = enforce(hookPayload('claude-write', { cwd: repo.root, target: 'docs/readme.md' }));
    assert.equal(claudeDecision(own.stdout).decision, 'deny');
  });

  it('an id-less process cannot prove a bound manifest foreign: it is enforced (CLAUDE_CODE_SESSION_ID counts as ours)', () => {
    writeManifest(repo, { allowedPaths: ['src/'], session_id: 'coordinator-session' });
    const payload = JSON.parse(hookPayload('claude-write', { cwd: repo.root, target: 'docs/readme.md' })) as Record<string, unknown>;
    delete payload.session_id;
    assert.equal(claudeDecision(enforce(JSON.stringify(payload)).stdout).decision, 'deny');
    const viaEnv = enforce(JSON.stringify(payload), { env: { CLAUDE_CODE_SESSION_ID: 'coordinator-session' } });
    assert.equal(claudeDecision(viaEnv.stdout).decision, 'deny');
  });

  const brokenManifests: Array<{ name: string; make: (repo: TempGitRepo) => void; says: RegExp }> = [
    { name: 'corrupt (not JSON)', make: (r) => r.write({ '.claude/wave-scope.json': '{"version": 1, "wave": ' }), says: /not valid JSON/ },
    {
      name: 'schema-invalid (allowedPaths missing)',
      make: (r) => r.write({ '.claude/wave-scope.json': '{"version":1,"wave":1,"role":"implementation","blockedCommands":[]}' }),
      says: /allowedPaths/,
    },
    { name: 'unreadable (a directory)', make: (r) => mkdirSync(join(r.root, '.claude/wave-scope.json'), { recursive: true }), says: /cannot be read/ },
    { name: 'empty file', make: (r) => r.write({ '.claude/wave-scope.json': '' }), says: /not valid JSON/ },
  ];
  for (const { name, make, says } of brokenManifests) {
    it(`denies every write while the manifest is ${name}, saying how to repair it`, () => {
      make(repo);
      const run = enforce(hookPayload('claude-write', { cwd: repo.root, target: 'src/a.ts' }));
      assert.equal(run.status, 0);
      const reply = claudeDecision(run.stdout);
      assert.equal(reply.decision, 'deny');
      assert.match(reply.text, /wave manifest .*wave-scope\.json is unusable/);
      assert.match(reply.text, says);
      assert.match(reply.text, /wave-scope plan/);
    });
  }

  it('a broken manifest is denied even when it claims a foreign session', () => {
    repo.write({ '.claude/wave-scope.json': '{"version":1,"wave":"one","session_id":"some-peer-session"}' });
    assert.equal(claudeDecision(enforce(hookPayload('claude-write', { cwd: repo.root, target: 'src/a.ts' })).stdout).decision, 'deny');
  });

  it('a peer manifest in .pi does not hide this session\'s own .claude manifest', () => {
    writeManifest(repo, { allowedPaths: ['docs/'], session_id: 'some-peer-session' }, '.pi');
    writeManifest(repo, { allowedPaths: ['src/'], session_id: PAYLOAD_SESSION }, '.claude');
    assert.equal(claudeDecision(enforce(hookPayload('claude-write', { cwd: repo.root, target: 'docs/readme.md' })).stdout).decision, 'deny');
    assert.equal(claudeDecision(enforce(hookPayload('claude-write', { cwd: repo.root, target: 'src/a.ts' })).stdout).decision, 'allow');
  });

  it('decides without spawning any process (no git on PATH) and without listing the repository', () => {
    writeManifest(repo, { allowedPaths: ['src/'] });
    const env = { PATH: '/nonexistent' };
    assert.equal(claudeDecision(enforce(hookPayload('claude-write', { cwd: repo.root, target: 'src/a.ts' }), { env }).stdout).decision, 'allow');
    assert.equal(claudeDecision(enforce(hookPayload('claude-write', { cwd: repo.root, target: 'docs/readme.md' }), { env }).stdout).decision, 'deny');
  });

  it('an agent started outside any repository is judged by the wave of the repository it writes into', () => {
    writeManifest(repo, { allowedPaths: ['src/'] });
    const elsewhere = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-elsewhere-')));
    try {
      const denied = claudeDecision(enforce(hookPayload('claude-write', { cwd: elsewhere, target: join(repo.root, 'docs/readme.md') })).stdout);
      assert.equal(denied.decision, 'deny');
      assert.match(denied.text, /docs\/readme\.md is not in wave 1/);
      const allowed = claudeDecision(enforce(hookPayload('claude-write', { cwd: elsewhere, target: join(repo.root, 'src/new/x.ts') })).stdout);
      assert.equal(allowed.decision, 'allow');
      assert.equal(claudeDecision(enforce(hookPayload('claude-write', { cwd: elsewhere, target: join(elsewhere, 'notes.md') })).stdout).decision, 'allow');
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it('ignores tools that do not write files', () => {
    writeManifest(repo, { allowedPaths: [] });
    const run = enforce(hookPayload('claude-bash', { cwd: repo.root }));
    assert.equal(run.stdout, '');
  });

  it('the wave\'s control files are never writable by a dispatched agent, even under warn; a manifest that grants them is unusable', () => {
    writeManifest(repo, { allowedPaths: ['src/'], enforcement: 'warn' });
    for (const target of ['.claude/wave-scope.json', '.claude/filescopes/wave-1/alice.json', '.pi/wave-scope.json']) {
      const agent = claudeDecision(enforce(hookPayload('claude-subagent-write', { cwd: repo.root, target })).stdout);
      assert.equal(agent.decision, 'deny', target);
      assert.match(agent.text, /control state/);
    }
    const coordinator = claudeDecision(enforce(hookPayload('claude-write', { cwd: repo.root, target: '.claude/wave-scope.json' })).stdout);
    assert.equal(coordinator.decision, 'allow');
    // Granting control state makes the manifest unusable (issue 10 item 16): everyone is denied until it is repaired.
    writeManifest(repo, { allowedPaths: ['src/', '.claude/'], enforcement: 'warn' });
    for (const fixture of ['claude-subagent-write', 'claude-write']) {
      const reply = claudeDecision(enforce(hookPayload(fixture, { cwd: repo.root, target: '.claude/wave-scope.json' })).stdout);
      assert.equal(reply.decision, 'deny', fixture);
      assert.match(reply.text, /is unusable .*control state/);
    }
  });

  it('the coordinator may write the wave\'s declarations under strict, though allowedPaths never lists them', () => {
    writeManifest(repo, { allowedPaths: ['src/'] });
    for (const target of ['.claude/wave-scope.json', '.claude/filescopes/wave-2/alice.json']) {
      assert.equal(claudeDecision(enforce(hookPayload('claude-write', { cwd: repo.root, target })).stdout).decision, 'allow', target);
      assert.equal(claudeDecision(enforce(hookPayload('claude-subagent-write', { cwd: repo.root, target })).stdout).decision, 'deny', target);
    }
    assert.equal(claudeDecision(enforce(hookPayload('claude-write', { cwd: repo.root, target: '.claude/other.json' })).stdout).decision, 'deny');
  });

  it('a dispatched agent cannot switch the gate off: hook settings, the launcher, git\'s files and hooks directories are control state', () => {
    repo.git('config', 'core.hooksPath', '.githooks');
    writeManifest(repo, { allowedPaths: ['src/', '.githooks/'] });
    const targets = ['.claude/settings.json', '.claude/wave-scope-hook.cjs', '.codex/hooks.json', '.git/hooks/pre-commit', '.git/config', '.githooks/pre-commit', '.husky/pre-commit'];
    for (const target of targets) {
      const reply = claudeDecision(enforce(hookPayload('claude-subagent-write', { cwd: repo.root, target })).stdout);
      assert.equal(reply.decision, 'deny', target);
      assert.match(reply.text, /control state/);
    }
    assert.equal(claudeDecision(enforce(hookPayload('claude-write', { cwd: repo.root, target: '.githooks/pre-commit' })).stdout).decision, 'allow', 'the coordinator may');
  });

  describe('per-agent enforcement (WAVE_SCOPE_AGENT)', () => {
    /** Writes the per-agent files and the aggregate that backs them, as the declaration writer does. */
    const declare = (records: Record<string, string[]>) => {
      repo.write(Object.fromEntries(Object.entries(records).map(([id, files]) => [`.claude/filescopes/wave-1/${id}.json`, `${JSON.stringify(files)}\n`])));
      repo.write({ '.claude/filescopes/wave-1.scopes.json': JSON.stringify(Object.entries(records).map(([id, files]) => ({ id, files }))) });
    };
    beforeEach(() => {
      writeManifest(repo, { allowedPaths: ['src/'] });
      declare({ alice: ['src/alice/'], bob: ['src/bob/'] });
    });

    it('allows the agent\'s own files and denies a file of the union that belongs to another agent', () => {
      const own = enforce(hookPayload('claude-write', { cwd: repo.root, target: 'src/alice/x.ts' }), { env: { WAVE_SCOPE_AGENT: 'alice' } });
      assert.equal(claudeDecision(own.stdout).decision, 'allow');
      const other = enforce(hookPayload('claude-write', { cwd: repo.root, target: 'src/bob/x.ts' }), { env: { WAVE_SCOPE_AGENT: 'alice' } });
      const reply = claudeDecision(other.stdout);
      assert.equal(reply.decision, 'deny');
      assert.match(reply.text, /not in agent "alice"'s own scope/);
      assert.match(reply.text, /Allowed \(agent "alice"\): src\/alice\//);
    });

    it('denies every write of an agent no wave governs any more (its shell moved the manifest away), and leaves others as they were', () => {
      const env = { WAVE_SCOPE_AGENT: 'alice' };
      rmSync(join(repo.root, '.claude', 'wave-scope.json'));
      const reply = claudeDecision(enforce(hookPayload('claude-write', { cwd: repo.root, target: 'src/alice/x.ts' }), { env }).stdout);
      assert.equal(reply.decision, 'deny', 'not even its own files: nothing says what they are');
      assert.match(reply.text, /you run as agent "alice" of a wave \(WAVE_SCOPE_AGENT\), but no wave manifest is in force here/);
      assert.match(reply.text, /never put it back by hand/);
      // Outside any repository, the same.
      const elsewhere = realpathSync(mkdtempSync(join(tmpdir(), 'no-repo-')));
      try {
        assert.equal(claudeDecision(enforce(hookPayload('claude-write', { cwd: elsewhere, target: 'x.ts' }), { env, cwd: elsewhere }).stdout).decision, 'deny');
      } finally {
        rmSync(elsewhere, { recursive: true, force: true });
      }
      // Without WAVE_SCOPE_AGENT, no plan is no check, for the coordinator and for a subagent alike.
      assert.equal(claudeDecision(enforce(hookPayload('claude-write', { cwd: repo.root, target: 'src/bob/x.ts' })).stdout).decision, 'allow');
      const subagent = JSON.stringify({ ...(JSON.parse(hookPayload('claude-write', { cwd: repo.root, target: 'src/bob/x.ts' })) as object), agent_id: 'agent-3', agent_type: 'general-purpose' });
      assert.equal(claudeDecision(enforce(subagent).stdout).decision, 'allow');
    });

    it('holds an agent started as one of the wave to it whatever session the manifest names (an agent CLI run starts has a session of its own)', () => {
      // The coordinator's manifest names its own session; the agent's CLI carries another.
      writeManifest(repo, { allowedPaths: ['src/'], session_id: 'coordinator-session' });
      const write = (target: string, env: Record<string, string>) => claudeDecision(enforce(hookPayload('claude-write', { cwd: repo.root, target }), { env: { CLAUDE_CODE_SESSION_ID: 'agent-session', ...env } }).stdout);
      assert.equal(write('src/alice/x.ts', { WAVE_SCOPE_AGENT: 'alice' }).decision, 'allow');
      const other = write('src/bob/x.ts', { WAVE_SCOPE_AGENT: 'alice' });
      assert.equal(other.decision, 'deny', 'held to its own scope');
      assert.match(other.text, /not in agent "alice"'s own scope/);
      // Without WAVE_SCOPE_AGENT, a peer coordinator's wave does not bind this session, as before.
      assert.equal(write('lib/x.ts', {}).decision, 'allow');
    });

    it('the agent\'s own scope includes the test siblings the union gives it', () => {
      declare({ alice: ['src/alice/total.ts'], bob: ['src/bob/'] });
      const env = { WAVE_SCOPE_AGENT: 'alice' };
      assert.equal(claudeDecision(enforce(hookPayload('claude-write', { cwd: repo.root, target: 'src/alice/total.test.ts' }), { env }).stdout).decision, 'allow');
      assert.equal(claudeDecision(enforce(hookPayload('claude-write', { cwd: repo.root, target: 'src/alice/other.ts' }), { env }).stdout).decision, 'deny');
    });

    it('a test sibling another agent of the wave claims is not the agent\'s (a plan written by `plan write`)', () => {
      // alice's src/a/x.ts brings test/**/x.test.ts; bob declares test/; carol's src/c/x.ts brings the same glob.
      rmSync(join(repo.root, '.claude'), { recursive: true, force: true });
      const records = [
        { id: 'alice', files: ['src/a/x.ts'] },
        { id: 'bob', files: ['test/'] },
        { id: 'carol', files: ['src/c/x.ts'] },
      ];
      const written = runBuiltCli(['plan', 'write', '--wave', '1', '--role', 'implementation'], { cwd: repo.root, input: JSON.stringify(records), env: cleanEnv() });
      assert.equal(written.status, 0, written.stderr);
      const decide = (agent: string, target: string) => claudeDecision(enforce(hookPayload('claude-write', { cwd: repo.root, target }), { env: { WAVE_SCOPE_AGENT: agent } }).stdout);
      const taken = decide('alice', 'test/deep/x.test.ts');
      assert.equal(taken.decision, 'deny');
      assert.match(taken.text, /test\/deep\/x\.test\.ts is a test sibling of agent "alice"'s files, but agent "bob" of the same wave claims it too/);
      assert.equal(decide('bob', 'test/deep/x.test.ts').decision, 'allow', 'the agent that declares test/ owns it');
      // Outside bob's test/, alice and carol would both get tests/x.test.ts as a sibling: neither does.
      assert.match(decide('alice', 'tests/x.test.ts').text, /agent "carol" of the same wave claims it too/);
      assert.match(decide('carol', 'tests/x.test.ts').text, /agent "alice" of the same wave claims it too/);
      // The sibling beside each file is only its owner's.
      assert.equal(decide('alice', 'src/a/x.test.ts').decision, 'allow');
      assert.equal(decide('carol', 'src/c/x.spec.ts').decision, 'allow');
      assert.equal(decide('carol', 'src/a/x.test.ts').decision, 'deny');
    });

    it('an aggregate with a record that cannot be read leaves the agent no scope (it could claim any sibling)', () => {
      repo.write({ '.claude/filescopes/wave-1.scopes.json': JSON.stringify([{ id: 'alice', files: ['src/alice/'] }, { id: 'bob', files: 'src/bob/' }]) });
      const reply = claudeDecision(enforce(hookPayload('claude-write', { cwd: repo.root, target: 'src/alice/x.ts' }), { env: { WAVE_SCOPE_AGENT: 'alice' } }).stdout);
      assert.equal(reply.decision, 'deny');
      assert.match(reply.text, /no usable scope file .*holds a record that is not/);
    });

    const unusable: Array<{ name: string; agent: string; make?: (repo: TempGitRepo) => void }> = [
      { name: 'has no scope file', agent: 'carol' },
      { name: 'has a scope file the aggregate does not declare (a stray file)', agent: 'mallory', make: (r) => r.write({ '.claude/filescopes/wave-1/mallory.json': '["src/alice/"]\n' }) },
      { name: 'has a scope file but the aggregate was removed', agent: 'alice', make: (r) => rmSync(join(r.root, '.claude/filescopes/wave-1.scopes.json')) },
      { name: 'has a scope file that differs from its aggregate record', agent: 'alice', make: (r) => r.write({ '.claude/filescopes/wave-1/alice.json': '["src/"]\n' }) },
      { name: 'has an unreadable scope file (a directory)', agent: 'dave', make: (r) => mkdirSync(join(r.root, '.claude/filescopes/wave-1/dave.json'), { recursive: true }) },
      { name: 'has a scope file that is not an array of strings', agent: 'erin', make: (r) => r.write({ '.claude/filescopes/wave-1/erin.json': '{"files": ["src/"]}' }) },
      { name: 'is not a plain id', agent: '../wave-1/alice' },
    ];
    for (const { name, agent, make } of unusable) {
      it(`denies when the agent ${name} (no scope, no write), under warn too`, () => {
        make?.(repo);
        for (const enforcement of ['strict', 'warn'] as const) {
          writeManifest(repo, { allowedPaths: ['src/'], enforcement });
          const run = enforce(hookPayload('claude-write', { cwd: repo.root, target: 'src/alice/x.ts' }), { env: { WAVE_SCOPE_AGENT: agent } });
          const reply = claudeDecision(run.stdout);
          assert.equal(reply.decision, 'deny', enforcement);
          assert.match(reply.text, /no usable scope file/);
        }
      });
    }

    it('an agent scope wider than allowedPaths counts only where allowedPaths backs it', () => {
      writeManifest(repo, { allowedPaths: ['src/alice/'] });
      declare({ alice: ['src/alice/', 'docs/'], bob: ['src/bob/'] });
      const env = { WAVE_SCOPE_AGENT: 'alice' };
      assert.equal(claudeDecision(enforce(hookPayload('claude-write', { cwd: repo.root, target: 'src/alice/x.ts' }), { env }).stdout).decision, 'allow');
      const reply = claudeDecision(enforce(hookPayload('claude-write', { cwd: repo.root, target: 'docs/readme.md' }), { env }).stdout);
      assert.equal(reply.decision, 'deny');
      assert.match(reply.text, /not in wave 1's allowed paths: a per-agent scope counts only where the wave's union backs it/);
    });

    it('an absolute grant in the agent\'s scope covers a path outside the checkout; nothing else does', () => {
      const outside = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-outside-')));
      try {
        declare({ alice: ['src/alice/', `${outside}/memory/`], bob: ['src/bob/'] });
        const env = { WAVE_SCOPE_AGENT: 'alice' };
        const granted = enforce(hookPayload('claude-write', { cwd: repo.root, target: join(outside, 'memory/MEMORY.md') }), { env });
        assert.equal(claudeDecision(granted.stdout).decision, 'allow');
        for (const target of [join(outside, 'memory-evil/x.md'), join(outside, 'other.md'), join(outside, 'memory/../other.md')]) {
          const denied = claudeDecision(enforce(hookPayload('claude-write', { cwd: repo.root, target }), { env }).stdout);
          assert.equal(denied.decision, 'deny', target);
          assert.match(denied.text, /outside this checkout/);
        }
      } finally {
        rmSync(outside, { recursive: true, force: true });
      }
    });
  });

  describe('Codex apply_patch', () => {
    // A hunk's body as Codex wants it: `+` lines after an add, a chunk after an update, nothing after a delete or a move header.
    const body = (header: string) => (header.startsWith('*** Add File:') ? [header, '+line'] : header.startsWith('*** Update File:') ? [header] : [header]);
    const patch = (...headers: string[]) => {
      const lines = headers.flatMap(body);
      // Every update hunk gets one chunk after its header (and after its move line, when it has one).
      const withChunks = lines.flatMap((line, index) => (line.startsWith('*** Update File:') && !(lines[index + 1] ?? '').startsWith('*** Move to:')) || line.startsWith('*** Move to:') ? [line, '@@', '-a', '+b'] : [line]);
      return ['*** Begin Patch', ...withChunks, '*** End Patch', ''].join('\n');
    };
    beforeEach(() => writeManifest(repo, { allowedPaths: ['src/'] }));

    const cases: Array<{ name: string; body: string; expected: 'allow' | 'deny'; names?: string }> = [
      { name: 'adds and updates inside the scope', body: patch('*** Add File: src/new.ts', '*** Update File: src/a.ts'), expected: 'allow' },
      { name: 'updates a file outside the scope', body: patch('*** Add File: src/new.ts', '*** Update File: docs/readme.md'), expected: 'deny', names: 'docs/readme.md' },
      { name: 'deletes a file outside the scope', body: patch('*** Delete File: docs/readme.md'), expected: 'deny', names: 'docs/readme.md' },
      { name: 'moves an in-scope file out of the scope', body: patch('*** Update File: src/a.ts', '*** Move to: lib/a.ts'), expected: 'deny', names: 'lib/a.ts' },
      { name: 'climbs out with ..', body: patch('*** Add File: src/../docs/x.md'), expected: 'deny', names: 'docs/x.md' },
      { name: 'names no file at all', body: '*** Begin Patch\n*** End Patch\n', expected: 'deny' },
    ];
    for (const { name, body, expected, names } of cases) {
      it(`${expected === 'allow' ? 'allows' : 'denies'} a patch that ${name}`, () => {
        const run = enforce(hookPayload('codex-apply-patch', { cwd: repo.root, patch: body }), { args: ['--agent-cli', 'codex'] });
        assert.equal(run.status, 0);
        const reply = claudeDecision(run.stdout);
        assert.equal(reply.decision, expected, run.stdout);
        if (names !== undefined) assert.match(reply.text, new RegExp(names.replace(/\./g, '\\.')));
      });
    }

    it('recognises a Codex payload without --agent-cli', () => {
      const run = enforce(hookPayload('codex-apply-patch', { cwd: repo.root, patch: patch('*** Update File: docs/readme.md') }));
      assert.equal(claudeDecision(run.stdout).decision, 'deny');
    });
  });

  describe('Cursor preToolUse and Gemini CLI BeforeTool (and MCP names the agent CLI cut short)', () => {
    beforeEach(() => writeManifest(repo, { allowedPaths: ['src/'] }));

    it('answers Cursor with its permission field', () => {
      const denied = JSON.parse(enforce(hookPayload('cursor-pretooluse', { cwd: repo.root, target: join(repo.root, 'docs/readme.md') }), { args: ['--agent-cli', 'cursor'] }).stdout) as Record<string, string>;
      assert.equal(denied.permission, 'deny');
      assert.match(denied.agent_message ?? '', /docs\/readme\.md/);
      assert.match(denied.user_message ?? '', /docs\/readme\.md/);
      const allowed = JSON.parse(enforce(hookPayload('cursor-pretooluse', { cwd: repo.root, target: join(repo.root, 'src/a.ts') })).stdout) as Record<string, string>;
      assert.deepEqual(allowed, { permission: 'allow' });
    });

    it('answers Gemini CLI with its decision field', () => {
      const denied = JSON.parse(enforce(hookPayload('gemini-beforetool', { cwd: repo.root, target: 'docs/readme.md' })).stdout) as Record<string, string>;
      assert.equal(denied.decision, 'deny');
      assert.match(denied.reason ?? '', /docs\/readme\.md/);
      const allowed = JSON.parse(enforce(hookPayload('gemini-beforetool', { cwd: repo.root, target: 'src/a.ts' }), { args: ['--agent-cli', 'gemini'] }).stdout) as Record<string, string>;
      assert.equal(allowed.decision, 'allow');
    });

    it('gates a Gemini MCP tool whose name Gemini shortened, cutting out the verb, on the path it names', () => {
      // Gemini keeps 30 characters of each end of a name longer than 63 and puts `...` between them.
      const long = 'mcp_acme_corporate_knowledge_base_server_overwrite_document_contents_in_shared_team_drive';
      const shortened = `${long.slice(0, 30)}...${long.slice(-30)}`;
      assert.doesNotMatch(shortened, /overwrite|write/, 'the verb is gone from the name the hook is given');
      const decision = (tool: string, input: Record<string, unknown>) =>
        (JSON.parse(enforce(JSON.stringify({ hook_event_name: 'BeforeTool', cwd: repo.root, tool_name: tool, tool_input: input })).stdout) as { decision: string }).decision;
      assert.equal(decision(shortened, { path: 'docs/readme.md', content: 'x' }), 'deny');
      assert.equal(decision(shortened, { path: 'src/a.ts', content: 'x' }), 'allow');
      assert.equal(decision(shortened, { query: 'docs/readme.md' }), 'allow', 'no path key: nothing to gate, as for a named write tool');
      // A name of the same length that Gemini did not cut, and that says it reads, is not gated.
      const reader = 'mcp_knowledge_base_server_look_up_and_read_documents_by_a_title';
      assert.equal(reader.length, 63);
      assert.equal(decision(reader, { path: 'docs/readme.md' }), 'allow');
    });

    it('gates a Codex MCP tool whose name Codex shortened (24 characters and a SHA-1, the server separator and verb gone; or, since April 2026, cut and 12 hex digits) on the path it names', () => {
      const long = 'mcp__acme_knowledge_base__overwrite_document_contents_in_shared_drive';
      const shortened = long.slice(0, 24) + createHash('sha1').update(long).digest('hex');
      const decision = (input: Record<string, unknown>) =>
        claudeDecision(
          enforce(JSON.stringify({ hook_event_name: 'PreToolUse', turn_id: '1', session_id: 's', cwd: repo.root, tool_name: shortened, tool_input: input }), { args: ['--agent-cli', 'codex'] }).stdout,
        ).decision;
      assert.equal(decision({ path: join(repo.root, 'docs/readme.md'), content: 'x' }), 'deny');
      assert.equal(decision({ path: join(repo.root, 'src/a.ts'), content: 'x' }), 'allow');
      // Since April 2026: the tool's part cut, then `_` and 12 hex digits of a SHA-1.
      const current = 'mcp__acme_knowledge_base__overwrite_document_con_' + createHash('sha1').update(long).digest('hex').slice(0, 12);
      const decide = (input: Record<string, unknown>) =>
        claudeDecision(enforce(JSON.stringify({ hook_event_name: 'PreToolUse', turn_id: '1', session_id: 's', cwd: repo.root, tool_name: current, tool_input: input }), { args: ['--agent-cli', 'codex'] }).stdout).decision;
      assert.equal(decide({ document: join(repo.root, 'docs/readme.md') }), 'allow', 'no path key: nothing to gate');
      assert.equal(decide({ target: join(repo.root, 'docs/readme.md') }), 'deny');
    });
  });

  describe('fails closed', () => {
    beforeEach(() => writeManifest(repo, { allowedPaths: ['src/'] }));

    // Without --agent-cli and without a shape that names the agent CLI, the deny must read as one in every CLI: exit 2.
    const unreadable: Array<{ name: string; stdin: () => string; status: number }> = [
      { name: 'empty stdin', stdin: () => '', status: 2 },
      { name: 'stdin that is not JSON', stdin: () => 'Write src/a.ts', status: 2 },
      { name: 'a JSON array', stdin: () => '[]', status: 2 },
      { name: 'a payload without tool_name', stdin: () => JSON.stringify({ cwd: repo.root, tool_input: { file_path: 'src/a.ts' } }), status: 2 },
      { name: 'a payload that names no agent CLI', stdin: () => JSON.stringify({ cwd: repo.root, tool_name: 'Write', tool_input: { file_path: 'src/a.ts' } }), status: 2 },
      { name: 'a Write without file_path', stdin: () => JSON.stringify({ hook_event_name: 'PreToolUse', cwd: repo.root, tool_name: 'Write', tool_input: {} }), status: 0 },
      { name: 'a Write whose file_path is a number', stdin: () => JSON.stringify({ hook_event_name: 'PreToolUse', cwd: repo.root, tool_name: 'Write', tool_input: { file_path: 7 } }), status: 0 },
    ];
    for (const { name, stdin, status } of unreadable) {
      it(`denies on ${name}${status === 2 ? ' with exit 2, the reason on stderr' : ''}`, () => {
        const run = enforce(stdin(), { cwd: repo.root });
        assert.equal(run.status, status, run.stderr);
        assert.equal(claudeDecision(run.stdout).decision, 'deny');
        if (status === 2) assert.match(run.stderr, /Wave Scope blocked this call/);
      });
    }

    it('an unreadable payload from a Cursor or Gemini CLI hook is denied in that CLI\'s own format (its shape says which), or with exit 2', () => {
      const cursor = enforce(JSON.stringify({ hook_event_name: 'preToolUse', conversation_id: 'c', cwd: repo.root, tool_input: {} }));
      assert.equal(cursor.status, 0);
      assert.equal((JSON.parse(cursor.stdout) as { permission: string }).permission, 'deny');
      const gemini = enforce(JSON.stringify({ hook_event_name: 'BeforeTool', cwd: repo.root, tool_name: 'write_file', tool_input: {} }));
      assert.equal((JSON.parse(gemini.stdout) as { decision: string }).decision, 'deny');
      for (const args of [['--agent-cli', 'cursor'], ['--agent-cli', 'gemini']]) {
        const run = enforce('not json', { args });
        assert.equal(run.status, 0);
        const reply = JSON.parse(run.stdout) as { permission?: string; decision?: string };
        assert.equal(reply.permission ?? reply.decision, 'deny', args.join(' '));
      }
    });

    it('denies when the gate itself throws (the payload\'s cwd does not exist)', () => {
      const run = enforce(hookPayload('claude-write', { cwd: join(repo.root, 'no/such/dir'), target: 'src/a.ts' }));
      assert.equal(run.status, 0);
      const reply = claudeDecision(run.stdout);
      assert.equal(reply.decision, 'deny');
      assert.match(reply.text, /the gate failed/);
    });

    it('denies when a .git file cannot be followed', () => {
      const sub = join(repo.root, 'src/vendored');
      mkdirSync(sub, { recursive: true });
      writeFileSync(join(sub, '.git'), 'not a pointer\n');
      const reply = claudeDecision(enforce(hookPayload('claude-write', { cwd: sub, target: 'x.ts' })).stdout);
      assert.equal(reply.decision, 'deny');
      assert.match(reply.text, /gitdir/);
    });

    it('exits 2 with the reason on stderr when even the deny cannot be written (stdout is /dev/full)', () => {
      const hookBundle = join(builtCliPath, '..', 'hook.js');
      const run = spawnSync('sh', ['-c', `"${process.execPath}" "${hookBundle}" enforce-write >/dev/full`], {
        input: hookPayload('claude-write', { cwd: repo.root, target: 'docs/readme.md' }),
        encoding: 'utf8',
        env: cleanEnv(),
      });
      assert.equal(run.status, 2);
      assert.match(run.stderr, /could not even answer with a deny/);
    });

    it('denies with an unknown --agent-cli rather than guessing (in every CLI\'s terms: exit 2)', () => {
      const run = enforce(hookPayload('claude-write', { cwd: repo.root, target: 'src/a.ts' }), { args: ['--agent-cli', 'vim'] });
      assert.equal(run.status, 2);
      assert.equal(claudeDecision(run.stdout).decision, 'deny');
    });
  });

  describe('isolated agent worktrees (write root vs manifest root)', () => {
    it('applies relative grants to the worktree and reads the manifest from the coordinator checkout', () => {
      writeManifest(repo, { allowedPaths: ['src/'] });
      const worktree = join(repo.root, '.claude/worktrees/agent-1');
      repo.git('worktree', 'add', '--quiet', '-b', 'agent-1', worktree);
      const real = realpathSync(worktree);
      const inWorktree = enforce(hookPayload('claude-write', { cwd: real, target: 'src/a.ts' }));
      assert.equal(claudeDecision(inWorktree.stdout).decision, 'allow');
      const outOfScope = enforce(hookPayload('claude-write', { cwd: real, target: 'docs/readme.md' }));
      assert.equal(claudeDecision(outOfScope.stdout).decision, 'deny');
      const coordinatorFile = claudeDecision(enforce(hookPayload('claude-write', { cwd: real, target: join(repo.root, 'src/a.ts') })).stdout);
      assert.equal(coordinatorFile.decision, 'deny');
      assert.match(coordinatorFile.text, /outside this checkout/);
      // An isolated agent gets no control-file carve-out even without agent_id in its payload.
      const control = claudeDecision(enforce(hookPayload('claude-write', { cwd: real, target: join(repo.root, '.claude/wave-scope.json') })).stdout);
      assert.equal(control.decision, 'deny');
      execFileSync('git', ['worktree', 'remove', '--force', worktree], { cwd: repo.root });
    });
  });
});
