import assert from 'node:assert/strict';
import { formatHookReply, HookPayloadError, parseApplyPatchTargets, parseHookPayload } from '../../../src/planner/enforce/hookPayloads';
import type { HookProtocol } from '../../../src/planner/enforce/hookPayloads';
import { hookPayload } from '../../support/hookFixtures';

describe('hook payloads', () => {
  const fixtures: Array<{ fixture: string; protocol: HookProtocol; tool: string; targets: string[]; agentId?: string }> = [
    { fixture: 'claude-write', protocol: 'claude', tool: 'Write', targets: ['/r/src/a.ts'] },
    { fixture: 'claude-edit', protocol: 'claude', tool: 'Edit', targets: ['/r/src/a.ts'] },
    { fixture: 'claude-multiedit', protocol: 'claude', tool: 'MultiEdit', targets: ['/r/src/a.ts'] },
    { fixture: 'claude-notebookedit', protocol: 'claude', tool: 'NotebookEdit', targets: ['/r/src/a.ts'] },
    { fixture: 'claude-subagent-write', protocol: 'claude', tool: 'Write', targets: ['/r/src/a.ts'], agentId: 'a1b2c3d4' },
    { fixture: 'cursor-pretooluse', protocol: 'cursor', tool: 'Write', targets: ['/r/src/a.ts'] },
    { fixture: 'gemini-beforetool', protocol: 'gemini', tool: 'write_file', targets: ['/r/src/a.ts'] },
  ];
  for (const { fixture, protocol, tool, targets, agentId } of fixtures) {
    it(`reads ${fixture}: ${protocol} ${tool}`, () => {
      const request = parseHookPayload(hookPayload(fixture, { cwd: '/r', target: '/r/src/a.ts' }));
      assert.equal(request.protocol, protocol);
      assert.equal(request.toolName, tool);
      assert.equal(request.writes, true);
      assert.deepEqual(request.targets, targets);
      assert.equal(request.cwd, '/r');
      assert.equal(request.agentId, agentId);
      assert.ok(request.sessionIds.length > 0);
    });
  }

  it('a tool that writes nothing is not the gate\'s business', () => {
    const request = parseHookPayload(hookPayload('claude-bash', { cwd: '/r' }));
    assert.equal(request.writes, false);
    assert.deepEqual(request.targets, []);
  });

  const patches: Array<{ name: string; patch: string; targets: string[] }> = [
    { name: 'add', patch: '*** Begin Patch\n*** Add File: a/new.ts\n+x\n*** End Patch', targets: ['a/new.ts'] },
    { name: 'update, delete', patch: '*** Begin Patch\n*** Update File: a.ts\n@@\n-x\n+y\n*** Delete File: b.ts\n*** End Patch\n', targets: ['a.ts', 'b.ts'] },
    { name: 'move (both sides)', patch: '*** Begin Patch\n*** Update File: old/a.ts\n*** Move to: new/a.ts\n@@\n-x\n+y\n*** End Patch', targets: ['old/a.ts', 'new/a.ts'] },
    { name: 'CRLF line ends', patch: '*** Begin Patch\r\n*** Add File: c.ts\r\n+x\r\n*** End Patch\r\n', targets: ['c.ts'] },
    { name: 'a content line that looks like a header is still a header', patch: '*** Begin Patch\n*** Add File: d.ts\n*** Update File: e.ts\n*** End Patch', targets: ['d.ts', 'e.ts'] },
  ];
  for (const { name, patch, targets } of patches) {
    it(`apply_patch: ${name}`, () => {
      assert.deepEqual(parseApplyPatchTargets(patch), targets);
    });
  }

  it('apply_patch: a body naming no file is refused, so the gate denies', () => {
    assert.throws(() => parseApplyPatchTargets('*** Begin Patch\n*** End Patch'), (error: unknown) => error instanceof HookPayloadError && error.reason === 'bad-patch');
    assert.throws(() => parseApplyPatchTargets('*** Begin Patch\n*** Add File:   \n*** End Patch'), HookPayloadError);
  });

  it('apply_patch: the patch may come as an argv array', () => {
    const request = parseHookPayload(
      JSON.stringify({ hook_event_name: 'PreToolUse', tool_name: 'apply_patch', cwd: '/r', tool_input: { command: ['apply_patch', '*** Begin Patch\n*** Add File: z.ts\n*** End Patch'] } }),
    );
    assert.equal(request.protocol, 'codex');
    assert.deepEqual(request.targets, ['z.ts']);
  });

  const refused: Array<[string, string]> = [
    ['', 'not-json'],
    ['null', 'not-an-object'],
    ['{"tool_input":{"file_path":"a"}}', 'no-tool-name'],
    ['{"tool_name":"Write","tool_input":{}}', 'no-target'],
    ['{"tool_name":"apply_patch","tool_input":{}}', 'bad-patch'],
  ];
  for (const [stdin, reason] of refused) {
    it(`refuses ${JSON.stringify(stdin)} as ${reason}`, () => {
      assert.throws(() => parseHookPayload(stdin), (error: unknown) => error instanceof HookPayloadError && error.reason === reason);
    });
  }

  it('formats each protocol\'s reply', () => {
    const deny = { decision: 'deny' as const, reason: 'no' };
    assert.deepEqual(JSON.parse(formatHookReply('claude', deny)), {
      hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'no' },
    });
    assert.equal(formatHookReply('claude', { decision: 'allow' }), '');
    assert.deepEqual(JSON.parse(formatHookReply('codex', { decision: 'warn', message: 'w' })), { systemMessage: 'w' });
    assert.deepEqual(JSON.parse(formatHookReply('cursor', deny)), { permission: 'deny', user_message: 'no', agent_message: 'no' });
    assert.deepEqual(JSON.parse(formatHookReply('gemini', deny)), { decision: 'deny', reason: 'no' });
  });
});
