import assert from 'node:assert/strict';
import {
  formatShellReply,
  ObserverPayloadError,
  parseObserverPayload,
  planFilesGone,
  shellCheckEvent,
  shellStoreKey,
  shellStorePath,
} from '../../../src/planner/backstop/shellCheck';
import type { ShellContext, ShellHookName, ShellStore, ShellVerdict } from '../../../src/planner/backstop/shellCheck';
import { formatSnapshotHeader, parseSnapshotHeader } from '../../../src/planner/backstop/snapshot';
import type { PlanFileRequest, PlanFingerprints } from '../../../src/planner/backstop/planFiles';

/** A ShellStore in memory. */
function memoryStore(files: Map<string, string> = new Map()): ShellStore & { files: Map<string, string> } {
  return { files, read: (name) => files.get(name), write: (name, text) => void files.set(name, text), remove: (name) => void files.delete(name) };
}

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

  it('compares a dispatched caller\'s plan with its last call\'s when it finds no wave, says each change once, and leaves its saved tree alone', () => {
    const manifest = '/w/.claude/wave-scope.json';
    const before: PlanFingerprints = new Map([
      ['/w/.claude', 'directory 1:2'],
      [manifest, 'file 1:3 1 120 100 100'],
      ['/w/.claude/filescopes/wave-1/alice.json', 'file 1:4 1 20 100 100'],
    ]);
    const snapshot = { objectFormat: 'sha1' as const, head: { ref: 'refs/heads/main' }, indexListing: '100644 x 0\tREADME.md\0', workTree: new Map<string, string | null>([['a', null]]) };
    const key = shellStoreKey({ writeRoot: '/w', session: 's', agent: 'alice' });
    // Saved as a hook saves it: the header, and the listing under the index checksum it was taken under.
    const store = memoryStore(new Map([[`${key}.snapshot`, formatSnapshotHeader({ ...snapshot, planFiles: before }, 'c0123')], [`${key}.c0123.index`, snapshot.indexListing]]));
    const context = (dispatchedAgent: boolean): Extract<ShellContext, { kind: 'no-wave' }> => ({
      kind: 'no-wave',
      because: 'no-manifest',
      location: { writeRoot: '/w', gitDir: '/w/.git', commonDir: '/w/.git' } as Extract<ShellContext, { kind: 'no-wave' }>['location'],
      dispatchedAgent,
      key,
    });
    // What lstat says now: the manifest gone, the rest as it was.
    const asked: PlanFileRequest[] = [];
    const planFiles = (request: PlanFileRequest) => {
      asked.push(request);
      return new Map([...before].filter(([path]) => path !== manifest));
    };
    assert.equal(planFilesGone(context(false), { store, planFiles }), undefined, 'the coordinator writes the plan');
    assert.equal(asked.length, 0);
    assert.deepEqual(planFilesGone(context(true), { store, planFiles }), [{ path: manifest, kind: 'deleted' }]);
    assert.deepEqual(asked[0]?.entries, [
      { path: '/w/.claude', directory: true },
      { path: '/w/.claude/filescopes/wave-1/alice.json', directory: false },
      { path: manifest, directory: false },
    ]);
    const saved = parseSnapshotHeader(store.files.get(`${key}.snapshot`) ?? '');
    assert.deepEqual(saved?.planFiles, new Map([...before].filter(([path]) => path !== manifest)), 'the plan\'s fingerprints saved anew');
    assert.deepEqual(saved?.workTree, snapshot.workTree, 'the tree as it was');
    assert.deepEqual(planFilesGone(context(true), { store, planFiles }), [], 'said once');
    // A caller with no saved snapshot, or one saved without a plan, has nothing to compare.
    assert.equal(planFilesGone({ ...context(true), key: 'other' }, { store, planFiles }), undefined);
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
