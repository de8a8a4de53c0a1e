import assert from 'node:assert/strict';
import {
  formatShellReply,
  ObserverPayloadError,
  parseObserverPayload,
  shellCheckEvent,
  shellStoreKey,
  shellStorePath,
} from '../../../src/planner/backstop/shellCheck';
import type { ShellHookName, ShellVerdict } from '../../../src/planner/backstop/shellCheck';

describe('backstop: the post-shell and end-of-turn hooks', () => {
  it('reads the payload of PostToolUse, Stop, SubagentStop and UserPromptSubmit', () => {
    assert.deepEqual(parseObserverPayload(JSON.stringify({ session_id: ' s1 ', cwd: '/repo', hook_event_name: 'SubagentStop', agent_id: 'a7', stop_hook_active: true })), {
      event: 'SubagentStop',
      cwd: '/repo',
      sessionIds: ['s1'],
      agentId: 'a7',
      stopHookActive: true,
    });
    assert.deepEqual(parseObserverPayload('{"tool_name": "Bash", "agent_id": "  "}'), { sessionIds: [], stopHookActive: false, toolName: 'Bash' });
    for (const bad of ['', 'nope', '[]', 'null']) assert.throws(() => parseObserverPayload(bad), ObserverPayloadError);
  });

  const block: ShellVerdict = { decision: 'block', reason: 'outside' };
  const replies: Array<{ hook: ShellHookName; verdict: ShellVerdict; active?: boolean; reply: unknown }> = [
    { hook: 'post-bash', verdict: { decision: 'allow' }, reply: '' },
    { hook: 'post-bash', verdict: block, reply: { decision: 'block', reason: 'outside' } },
    { hook: 'post-bash', verdict: { decision: 'warn', message: 'note' }, reply: { systemMessage: 'note' } },
    { hook: 'stop', verdict: block, reply: { decision: 'block', reason: 'outside' } },
    { hook: 'stop', verdict: block, active: true, reply: { systemMessage: 'outside' } },
    { hook: 'turn-start', verdict: block, reply: '' },
  ];
  for (const { hook, verdict, active, reply } of replies) {
    it(`answers ${verdict.decision} at ${hook}${active === true ? ' (stop_hook_active)' : ''}`, () => {
      const text = formatShellReply(hook, verdict, { stopHookActive: active === true });
      assert.deepEqual(text === '' ? '' : JSON.parse(text), reply);
    });
  }

  it('keys saved snapshots by the work tree, the session and the agent, never by the manifest found (which .git decides)', () => {
    const base = { writeRoot: '/w', session: 's', agent: '' };
    const keys = new Set([
      shellStoreKey(base),
      shellStoreKey({ ...base, writeRoot: '/w2' }),
      shellStoreKey({ ...base, session: 't' }),
      shellStoreKey({ ...base, agent: 'a7' }),
      shellStoreKey({ ...base, writeRoot: '/w\0s', session: '' }),
    ]);
    assert.equal(keys.size, 5);
    assert.match(shellStoreKey(base), /^[0-9a-f]{32}$/);
    assert.equal(shellStorePath('/w', 'k.snapshot'), '/w/.orchestrator/backstop/hooks/k.snapshot');
  });

  it('records counts and closed values only', () => {
    const event = shellCheckEvent({
      at: new Date('2026-12-01T00:00:00Z'),
      hook: 'post-bash',
      agentCli: 'claude',
      result: {
        baseline: 'compared',
        changes: [
          { path: 'secret/project/a.ts', kind: 'created', after: 'x' },
          { path: 'b', kind: 'deleted', before: 'y' },
        ],
        plan: { state: 'compared', changes: [{ path: '/secret/.claude/wave-scope.json', kind: 'modified' }] },
      },
      decision: 'allow',
      durationMs: 12.6,
    });
    assert.deepEqual(event, {
      event: 'wave_scope.backstop.shell_checked',
      at: '2026-12-01T00:00:00.000Z',
      hook: 'post-bash',
      agent_cli: 'claude',
      scope: 'none',
      dispatched: false,
      baseline: 'compared',
      created: 1,
      modified: 0,
      deleted: 1,
      out_of_scope: 0,
      plan_changed: 1,
      decision: 'allow',
      duration_ms: 13,
    });
  });
});
