// A subagent bound to its dispatch is held to its own scope, not the wave's union: dispatch through
// the built hook, bind through the built subagent-start hook, ask what the write gate asks
// (readSubagentScope), and call the built write gate as Claude Code does from inside the subagent.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readSubagentScope } from '../../src/node/subagentScope';
import { readAgentScope } from '../../src/planner/plan/declarationStore';
import { readTextIfExists } from '../../src/node/declarationFs';
import { covers } from '../../src/planner/scope/scopeAlgebra';
import { cleanEnv, runBuiltCli, runBuiltCliWithin } from '../support/builtCli';
import { createTempGitRepo } from '../support/tempGitRepo';
import type { TempGitRepo } from '../support/tempGitRepo';
import { dispatchPayload, lastEvent, planWave, preDispatch, readLedgerFile, SESSION, scopedPrompt, transcript } from './dispatchHelpers';

describe('binding a subagent to its dispatch (built hooks, real git repository)', () => {
  let repo: TempGitRepo;
  let projects: string;
  let sessionTranscript: string;
  const alicePrompt = scopedPrompt(['src/a/'], 'AGENT-ID: alice\n');
  const bobPrompt = scopedPrompt(['src/b/'], 'AGENT-ID: bob\n');

  beforeEach(() => {
    repo = createTempGitRepo({ initialFiles: { 'src/a/x.ts': 'x\n', 'src/b/y.ts': 'y\n' } });
    planWave(repo, 1, [
      { id: 'alice', files: ['src/a/'] },
      { id: 'bob', files: ['src/b/'] },
    ]);
    projects = mkdtempSync(join(tmpdir(), 'wave-scope-projects-'));
    sessionTranscript = join(projects, '-repo', `${SESSION}.jsonl`);
    transcript.write(sessionTranscript, []);
    for (const [description, prompt, id] of [['alice', alicePrompt, 'toolu_a'], ['bob', bobPrompt, 'toolu_b']] as const) {
      const run = preDispatch(dispatchPayload({ cwd: repo.root, description, prompt, useId: id, transcriptPath: sessionTranscript }));
      assert.equal(run.stdout, '', run.stdout);
    }
  });
  afterEach(() => {
    repo.remove();
    rmSync(projects, { recursive: true, force: true });
  });

  const subagentStart = (agentId: string, session = SESSION) =>
    runBuiltCli(['hook', 'subagent-start'], {
      // Observed: SubagentStart payloads carry no transcript_path; the ledger keeps the session's.
      input: JSON.stringify({ session_id: session, cwd: repo.root, hook_event_name: 'SubagentStart', agent_id: agentId, agent_type: 'general-purpose' }),
      env: cleanEnv(),
    });

  it('subagent-start binds the subagent whose own transcript opens with the dispatch prompt; its scope excludes a sibling\'s file inside the union', () => {
    transcript.write(join(projects, '-repo', SESSION, 'subagents', 'agent-a11ce00.jsonl'), [
      { type: 'user', isSidechain: true, agentId: 'a11ce00', sessionId: SESSION, message: { role: 'user', content: alicePrompt } },
    ]);
    const run = subagentStart('a11ce00');
    assert.deepEqual([run.status, run.stdout], [0, '']);
    const record = Object.values(readLedgerFile(repo.root)?.waves ?? {}).flat().find((entry) => entry.id === 'alice');
    assert.equal(record?.bound?.agentId, 'a11ce00');
    const event = lastEvent(repo.root, 'wave_dispatch.subagent_binding');
    assert.deepEqual([event.outcome, event.via, event.declared_agent], ['bound', 'prompt', true]);

    // What the write gate will ask for this subagent's Write/Edit call.
    const scope = readSubagentScope({ root: repo.root, sessionId: SESSION, agentId: 'a11ce00', transcriptPath: sessionTranscript });
    assert.equal(scope.kind, 'bound');
    if (scope.kind !== 'bound') return;
    assert.deepEqual([scope.via, scope.agent, scope.wave], ['ledger', 'alice', 1]);
    // The write gate holds a bound subagent to its declared agent's scope file (as for WAVE_SCOPE_AGENT).
    const own = readAgentScope(join(repo.root, '.claude'), 1, scope.agent ?? '', { readText: readTextIfExists });
    assert.ok(own.found);
    const manifest = JSON.parse(readFileSync(join(repo.root, '.claude', 'wave-scope.json'), 'utf8')) as { allowedPaths: string[] };
    assert.equal(covers(manifest.allowedPaths, 'src/b/y.ts').covered, true, 'the sibling\'s file lies inside the wave\'s union');
    assert.equal(covers(own.found ? own.entries : [], 'src/b/y.ts').covered, false, 'and outside the bound subagent\'s own scope');
    assert.equal(covers(scope.files, 'src/b/y.ts').covered, false);
    assert.equal(covers(own.found ? own.entries : [], 'src/a/x.ts').covered, true);
  });

  it('the older transcript layout (before 2.1.2) binds too', () => {
    transcript.write(join(projects, '-repo', 'agent-b0b0000.jsonl'), [{ type: 'user', isSidechain: true, message: { role: 'user', content: [{ type: 'text', text: bobPrompt }] } }]);
    subagentStart('b0b0000');
    assert.equal(Object.values(readLedgerFile(repo.root)?.waves ?? {}).flat().find((entry) => entry.id === 'bob')?.bound?.agentId, 'b0b0000');
  });

  it('without subagent-start, the write gate\'s question binds by the prompt on its own (nothing written)', () => {
    transcript.write(join(projects, '-repo', SESSION, 'subagents', 'agent-b22.jsonl'), [{ type: 'user', message: { role: 'user', content: bobPrompt } }]);
    const scope = readSubagentScope({ root: repo.root, sessionId: SESSION, agentId: 'b22' });
    assert.equal(scope.kind === 'bound' ? `${scope.via}:${scope.agent}` : scope.kind, 'prompt:bob');
    assert.equal(Object.values(readLedgerFile(repo.root)?.waves ?? {}).flat().some((entry) => entry.bound !== undefined), false);
  });

  it('no reliable link: the union, and the fallback is counted in the events', () => {
    const run = subagentStart('c0ffee1');
    assert.equal(run.status, 0);
    const event = lastEvent(repo.root, 'wave_dispatch.subagent_binding');
    assert.deepEqual([event.outcome, event.reason], ['union-fallback', 'no-subagent-transcript']);
    assert.deepEqual(readSubagentScope({ root: repo.root, sessionId: SESSION, agentId: 'c0ffee1' }), { kind: 'union', reason: 'no-subagent-transcript' });
    transcript.write(join(projects, '-repo', SESSION, 'subagents', 'agent-c0ffee1.jsonl'), [{ type: 'user', message: { role: 'user', content: 'a prompt nobody dispatched' } }]);
    subagentStart('c0ffee1');
    assert.equal(lastEvent(repo.root, 'wave_dispatch.subagent_binding').reason, 'no-matching-dispatch');
    assert.deepEqual(readSubagentScope({ root: repo.root, sessionId: SESSION }), { kind: 'union', reason: 'no-agent-id' });
  });

  // The write gate itself, through the built hook, as Claude Code calls it from inside a subagent.
  const subagentWrite = (agentId: string, file: string, session = SESSION, transcriptPath = sessionTranscript) => {
    const run = runBuiltCli(['hook', 'enforce-write', '--agent-cli', 'claude'], {
      input: JSON.stringify({
        session_id: session,
        transcript_path: transcriptPath,
        cwd: repo.root,
        hook_event_name: 'PreToolUse',
        agent_id: agentId,
        agent_type: 'general-purpose',
        tool_name: 'Write',
        tool_input: { file_path: join(repo.root, file), content: 'x\n' },
      }),
      env: cleanEnv({ CLAUDE_PROJECT_DIR: repo.root }),
    });
    assert.equal(run.status, 0, run.stderr);
    const output = (JSON.parse(run.stdout || '{}') as { hookSpecificOutput?: { permissionDecision?: string; permissionDecisionReason?: string } }).hookSpecificOutput;
    return { decision: output?.permissionDecision ?? 'allow', reason: output?.permissionDecisionReason ?? '' };
  };

  const coordinatorWrite = (file: string) => {
    const run = runBuiltCli(['hook', 'enforce-write', '--agent-cli', 'claude'], {
      input: JSON.stringify({ session_id: SESSION, transcript_path: sessionTranscript, cwd: repo.root, hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: join(repo.root, file), content: 'x\n' } }),
      env: cleanEnv({ CLAUDE_PROJECT_DIR: repo.root }),
    });
    assert.equal(run.status, 0, run.stderr);
    return (JSON.parse(run.stdout || '{}') as { hookSpecificOutput?: { permissionDecision?: string } }).hookSpecificOutput?.permissionDecision ?? 'allow';
  };

  it('the write gate holds a bound subagent to its own agent\'s scope: a sibling\'s file inside the wave\'s union is denied', () => {
    transcript.write(join(projects, '-repo', SESSION, 'subagents', 'agent-a11ce00.jsonl'), [
      { type: 'user', isSidechain: true, agentId: 'a11ce00', sessionId: SESSION, message: { role: 'user', content: alicePrompt } },
    ]);
    assert.equal(subagentStart('a11ce00').status, 0);
    assert.equal(subagentWrite('a11ce00', 'src/a/new.ts').decision, 'allow');
    const sibling = subagentWrite('a11ce00', 'src/b/y.ts');
    assert.equal(sibling.decision, 'deny');
    assert.match(sibling.reason, /src\/b\/y\.ts/);
    assert.match(sibling.reason, /alice/, 'the reason names the agent whose scope was applied');
  });

  it('a subagent dispatched in a wave may write nothing once no wave of its session is in force: its shell moved the manifest, or made it another session\'s', () => {
    transcript.write(join(projects, '-repo', SESSION, 'subagents', 'agent-a11ce00.jsonl'), [
      { type: 'user', isSidechain: true, agentId: 'a11ce00', sessionId: SESSION, message: { role: 'user', content: alicePrompt } },
    ]);
    assert.equal(subagentStart('a11ce00').status, 0);
    assert.equal(subagentWrite('a11ce00', 'src/a/new.ts').decision, 'allow');
    const manifestPath = join(repo.root, '.claude', 'wave-scope.json');
    const manifest = readFileSync(manifestPath, 'utf8');
    const checkNoPlan = (what: string) => {
      for (const file of ['src/a/new.ts', 'src/b/y.ts', 'README.md']) {
        const denied = subagentWrite('a11ce00', file);
        assert.equal(denied.decision, 'deny', `${what}: ${file}`);
        assert.match(denied.reason, /this subagent was dispatched as "alice" in wave 1, but no wave manifest of this session is in force here/);
      }
      // Bound by its prompt alone (subagent-start never ran for it), the same.
      transcript.write(join(projects, '-repo', SESSION, 'subagents', 'agent-b0b0001.jsonl'), [{ type: 'user', message: { role: 'user', content: bobPrompt } }]);
      assert.match(subagentWrite('b0b0001', 'src/b/y.ts').reason, /dispatched as "bob" in wave 1/, what);
      // A subagent no dispatch of a wave started, and the coordinator: no plan, no check, as before; and
      // asking the ledger about it where no plan is counts nothing.
      const events = join(repo.root, '.orchestrator', 'metrics', 'events.jsonl');
      const counted = readFileSync(events, 'utf8');
      assert.equal(subagentWrite('c0ffee1', 'README.md').decision, 'allow', what);
      assert.equal(readFileSync(events, 'utf8'), counted, `${what}: no event`);
      assert.equal(coordinatorWrite('README.md'), 'allow', what);
    };
    rmSync(manifestPath);
    checkNoPlan('the manifest moved away');
    // Bound to the coordinator's session, the plan holds the subagent; named another session's, it binds nobody here.
    const sessioned = (session: string) => `${JSON.stringify({ ...(JSON.parse(manifest) as object), session_id: session }, null, 2)}\n`;
    writeFileSync(manifestPath, sessioned(SESSION));
    assert.equal(subagentWrite('a11ce00', 'src/a/new.ts').decision, 'allow');
    assert.equal(subagentWrite('a11ce00', 'src/b/y.ts').decision, 'deny');
    writeFileSync(manifestPath, sessioned('another-session'));
    checkNoPlan('the manifest made another session\'s');
  });

  it('the write gate falls back to the wave\'s union for a subagent it cannot link, and counts the fallback', () => {
    assert.equal(subagentWrite('c0ffee1', 'src/b/y.ts').decision, 'allow', 'inside the union');
    assert.equal(subagentWrite('c0ffee1', 'README.md').decision, 'deny', 'outside the union');
  });

  it('an event log that is a FIFO does not hold the write gate past the agent CLI\'s timeout (which would let the write through)', () => {
    const events = join(repo.root, '.orchestrator', 'metrics', 'events.jsonl');
    rmSync(events, { force: true });
    assert.equal(spawnSync('mkfifo', [events]).status, 0);
    const run = runBuiltCliWithin(['hook', 'enforce-write', '--agent-cli', 'claude'], 15_000, {
      input: JSON.stringify({ session_id: SESSION, transcript_path: sessionTranscript, cwd: repo.root, hook_event_name: 'PreToolUse', agent_id: 'c0ffee1', tool_name: 'Write', tool_input: { file_path: join(repo.root, 'README.md'), content: 'x\n' } }),
      env: cleanEnv({ CLAUDE_PROJECT_DIR: repo.root }),
    });
    assert.equal(run.signal, null, 'the write gate hung on the FIFO');
    assert.match(run.stdout, /"permissionDecision":"deny"/, run.stdout);
  });

  it('a binding never widens: a dispatch whose claim reaches outside the wave gets no more than the wave allows', () => {
    // Disjoint from alice's and bob's claims, so the guard records it; but the wave grants neither path.
    const widePrompt = scopedPrompt(['src/c/', 'docs/'], 'undeclared helper\n');
    const run = preDispatch(dispatchPayload({ cwd: repo.root, description: 'helper', prompt: widePrompt, useId: 'toolu_w', transcriptPath: sessionTranscript }));
    assert.equal(run.stdout, '', run.stdout);
    transcript.write(join(projects, '-repo', SESSION, 'subagents', 'agent-w1de000.jsonl'), [
      { type: 'user', isSidechain: true, agentId: 'w1de000', sessionId: SESSION, message: { role: 'user', content: widePrompt } },
    ]);
    subagentStart('w1de000');
    const scope = readSubagentScope({ root: repo.root, sessionId: SESSION, agentId: 'w1de000', transcriptPath: sessionTranscript });
    assert.equal(scope.kind, 'bound');
    assert.equal(subagentWrite('w1de000', 'src/c/z.ts').decision, 'deny', 'the claim names src/c/, the wave does not');
    assert.equal(subagentWrite('w1de000', 'docs/guide.md').decision, 'deny');
    assert.equal(subagentWrite('w1de000', 'src/a/x.ts').decision, 'deny', 'inside the wave, outside the claim');
  });

  it('a subagent bound only to its claim gets a test sibling only where no declared agent and no other dispatch of the wave claims it', () => {
    // alice declares a file (whose siblings the union grants), bob a directory; two helpers are dispatched
    // in a session of their own, each claiming a file named x.ts, neither naming a declared agent.
    planWave(repo, 1, [
      { id: 'alice', files: ['src/a/x.ts'] },
      { id: 'bob', files: ['src/b/'] },
    ]);
    const session = 'session-helpers';
    const helperTranscript = join(projects, '-repo', `${session}.jsonl`);
    transcript.write(helperTranscript, []);
    const helpers = [
      ['helper-a', scopedPrompt(['src/a/x.ts'], 'fix x in a\n'), 'toolu_ha', 'a0000aa'],
      ['helper-b', scopedPrompt(['src/b/x.ts'], 'fix x in b\n'), 'toolu_hb', 'b0000bb'],
    ] as const;
    for (const [description, prompt, useId, agentId] of helpers) {
      assert.equal(preDispatch(dispatchPayload({ cwd: repo.root, session, description, prompt, useId, transcriptPath: helperTranscript })).stdout, '', 'the claims are disjoint');
      transcript.write(join(projects, '-repo', session, 'subagents', `agent-${agentId}.jsonl`), [{ type: 'user', isSidechain: true, agentId, sessionId: session, message: { role: 'user', content: prompt } }]);
      assert.equal(subagentStart(agentId, session).status, 0);
    }
    const write = (agentId: string, file: string) => subagentWrite(agentId, file, session, helperTranscript);
    // Both would get test/**/x.test.ts from their own x.ts: it belongs to neither.
    const fromA = write('a0000aa', 'test/x.test.ts');
    assert.equal(fromA.decision, 'deny');
    assert.match(fromA.reason, /helper-b/, 'the other dispatch is named');
    const fromB = write('b0000bb', 'test/x.test.ts');
    assert.equal(fromB.decision, 'deny');
    assert.match(fromB.reason, /alice/, 'alice declares an x.ts helper-b does not hold');
    // The siblings only one of them has stay theirs, and so do the claims.
    assert.equal(write('a0000aa', 'src/a/x.test.ts').decision, 'allow', 'helper-a shares alice\'s own file, so alice does not contest its sibling');
    assert.equal(write('b0000bb', 'src/b/x.test.ts').decision, 'allow');
    assert.equal(write('b0000bb', 'src/b/x.ts').decision, 'allow');
    // An aggregate that cannot be read could name any agent: the claim is then no scope at all.
    writeFileSync(join(repo.root, '.claude', 'filescopes', 'wave-1.scopes.json'), '[{"id": "alice"}]\n');
    const unjudged = write('b0000bb', 'src/b/x.ts');
    assert.equal(unjudged.decision, 'deny');
    assert.match(unjudged.reason, /wave-1\.scopes\.json/);
  });

  it('a payload without agent_id is counted and changes nothing', () => {
    const run = runBuiltCli(['hook', 'subagent-start'], { input: JSON.stringify({ session_id: SESSION, cwd: repo.root }), env: cleanEnv({ CLAUDE_PROJECT_DIR: repo.root }) });
    assert.deepEqual([run.status, run.stdout], [0, '']);
    assert.equal(lastEvent(repo.root, 'wave_dispatch.subagent_binding').reason, 'no-agent-id');
  });
});
