// The one home of the hook replies: how the write gate's verdict is spoken to each agent CLI, and the
// deny for when the agent CLI cannot be told. The gate (hook.ts) and the hook launcher, which answers
// when it cannot even load the gate, both format their replies here. It imports nothing, so the
// launcher bundle stays small (it is parsed before every write).

/** The agent CLIs whose pre-tool hook Wave Scope answers. */
export type HookProtocol = 'claude' | 'codex' | 'cursor' | 'gemini';

export const HOOK_PROTOCOLS: readonly HookProtocol[] = ['claude', 'codex', 'cursor', 'gemini'];

/** What the gate decided, ready to be spoken in one protocol. */
export type HookVerdict =
  | { readonly decision: 'allow' }
  | { readonly decision: 'warn'; readonly message: string }
  | { readonly decision: 'deny'; readonly reason: string };

/** A hook's whole answer: what it prints on each stream and how it exits. */
export interface HookReply {
  readonly stdout: string;
  readonly stderr: string;
  readonly exitCode: number;
}

/**
 * The stdout text answering `verdict` in `protocol` ('' = print nothing). Claude Code and Codex share
 * the PreToolUse `hookSpecificOutput` envelope; Cursor answers with `permission`; Gemini CLI with `decision`.
 */
export function formatHookReply(protocol: HookProtocol, verdict: HookVerdict): string {
  switch (protocol) {
    case 'claude':
    case 'codex':
      if (verdict.decision === 'allow') return '';
      if (verdict.decision === 'warn') return `${JSON.stringify({ systemMessage: verdict.message })}\n`;
      return `${JSON.stringify({
        hookSpecificOutput: {
          hookEventName: 'PreToolUse',
          permissionDecision: 'deny',
          permissionDecisionReason: verdict.reason,
        },
      })}\n`;
    case 'cursor':
      if (verdict.decision === 'allow') return `${JSON.stringify({ permission: 'allow' })}\n`;
      if (verdict.decision === 'warn') return `${JSON.stringify({ permission: 'allow', user_message: verdict.message })}\n`;
      return `${JSON.stringify({ permission: 'deny', user_message: verdict.reason, agent_message: verdict.reason })}\n`;
    case 'gemini':
      if (verdict.decision === 'allow') return `${JSON.stringify({ decision: 'allow' })}\n`;
      if (verdict.decision === 'warn') return `${JSON.stringify({ decision: 'allow', systemMessage: verdict.message })}\n`;
      return `${JSON.stringify({ decision: 'deny', reason: verdict.reason })}\n`;
  }
}

/**
 * A deny no supported agent CLI can read as anything else, for when the protocol is unknown: exit 2
 * with the reason on stderr (a block for Claude Code, Codex and Gemini CLI by their documentation and
 * source; a failed hook for Cursor, which blocks under the `failClosed` the installer sets), and on
 * stdout every protocol's deny fields in one object, for a CLI that reads stdout whatever the exit code.
 */
export function universalDeny(reason: string): HookReply {
  const stdout = `${JSON.stringify({
    hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: reason },
    permission: 'deny',
    user_message: reason,
    agent_message: reason,
    decision: 'deny',
    reason,
  })}\n`;
  return { stdout, stderr: `${reason}\n`, exitCode: 2 };
}

/** The whole answer to `verdict`: in `protocol` (exit 0), or, when no protocol is known, the universal deny. */
export function hookReply(protocol: HookProtocol | undefined, verdict: HookVerdict): HookReply {
  if (protocol !== undefined) return { stdout: formatHookReply(protocol, verdict), stderr: '', exitCode: 0 };
  if (verdict.decision === 'deny') return universalDeny(verdict.reason);
  // Nothing to refuse and no format known: silence is an allow for every CLI but Cursor, whose
  // installed commands always name their protocol.
  return { stdout: '', stderr: verdict.decision === 'warn' ? `${verdict.message}\n` : '', exitCode: 0 };
}
