// Reading what an agent CLI hands its pre-tool hook: which protocol spoke, which tool is about to run,
// and which paths it will write. Every agent CLI spells this differently (docs/hooks.md cites each
// protocol's source); the rest of the gate sees only a WriteRequest.

/** The agent CLIs whose pre-tool hook Wave Scope answers. */
export type HookProtocol = 'claude' | 'codex' | 'cursor' | 'gemini';

export const HOOK_PROTOCOLS: readonly HookProtocol[] = ['claude', 'codex', 'cursor', 'gemini'];

/** One pre-tool call, reduced to what the write gate decides on. */
export interface WriteRequest {
  /** Which agent CLI sent the payload; selects the reply format. */
  readonly protocol: HookProtocol;
  /** The tool about to run, as the agent CLI names it. */
  readonly toolName: string;
  /** Whether this tool writes files named in its input (false: not this gate's business, allowed). */
  readonly writes: boolean;
  /** The raw target paths, as spelled in the payload (absolute, or relative to `cwd`). */
  readonly targets: readonly string[];
  /** The payload's working directory, when it names one. */
  readonly cwd?: string;
  /** Non-empty only when the call comes from a dispatched subagent (Claude Code's `agent_id`). */
  readonly agentId?: string;
  /** Session ids the payload carries (`session_id`, `sessionId`, `parent_session_id`, `conversation_id`). */
  readonly sessionIds: readonly string[];
}

/** Why a payload cannot be read; machine-readable. Any of these is a deny. */
export type HookPayloadProblemReason = 'not-json' | 'not-an-object' | 'no-tool-name' | 'no-target' | 'bad-patch';

/** A payload the gate cannot read. The hook denies on it (fail closed). */
export class HookPayloadError extends Error {
  constructor(
    readonly reason: HookPayloadProblemReason,
    message: string,
  ) {
    super(message);
    this.name = 'HookPayloadError';
  }
}

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringField(object: JsonObject, key: string): string | undefined {
  const value = object[key];
  return typeof value === 'string' ? value : undefined;
}

/** Claude Code's file-writing tools and the `tool_input` key that names the file. */
const CLAUDE_WRITE_TOOLS: Record<string, string> = {
  Edit: 'file_path',
  Write: 'file_path',
  MultiEdit: 'file_path',
  NotebookEdit: 'notebook_path',
};

/** Gemini CLI's file-writing tools (all name the file in `file_path`). */
const GEMINI_WRITE_TOOLS = new Set(['write_file', 'replace', 'edit']);

/** Cursor's preToolUse tool names that write a file (its agent uses Claude-style names). */
const CURSOR_WRITE_TOOLS = new Set(['Write', 'Edit', 'MultiEdit', 'NotebookEdit', 'StrReplace', 'Delete', 'edit_file', 'write_file', 'delete_file']);

const PATCH_HEADER = /^\*\*\* (Add File|Update File|Delete File|Move to): (.*)$/;

/**
 * The paths a Codex `apply_patch` body touches: every `*** Add File:`, `*** Update File:`,
 * `*** Delete File:` and `*** Move to:` line (a move writes both its source and its destination).
 * Throws HookPayloadError `bad-patch` when the body has none, since a patch whose files cannot be
 * named cannot be checked.
 */
export function parseApplyPatchTargets(patch: string): string[] {
  const targets: string[] = [];
  for (const line of patch.split(/\r?\n/)) {
    const match = PATCH_HEADER.exec(line);
    if (match === null) continue;
    const path = (match[2] ?? '').trim();
    if (path === '') throw new HookPayloadError('bad-patch', `The patch line "${line}" names no file.`);
    targets.push(path);
  }
  if (targets.length === 0) {
    throw new HookPayloadError('bad-patch', 'The apply_patch body names no file (no "*** Add/Update/Delete File:" line).');
  }
  return targets;
}

/** The patch text of a Codex `apply_patch` call: `tool_input.command` as a string, or the last argv element. */
function patchText(toolInput: unknown): string | undefined {
  if (typeof toolInput === 'string') return toolInput;
  if (!isObject(toolInput)) return undefined;
  for (const key of ['command', 'patch', 'input']) {
    const value = toolInput[key];
    if (typeof value === 'string') return value;
    if (Array.isArray(value)) {
      const body = value.find((part) => typeof part === 'string' && part.includes('*** Begin Patch'));
      if (typeof body === 'string') return body;
    }
  }
  return undefined;
}

function sessionIdsOf(payload: JsonObject): string[] {
  const ids: string[] = [];
  for (const key of ['session_id', 'sessionId', 'parent_session_id', 'conversation_id']) {
    const value = payload[key];
    if (typeof value === 'string' && value.trim() !== '') ids.push(value.trim());
  }
  return ids;
}

/** Guesses the protocol from the payload's shape when the installed command did not name it. */
export function detectProtocol(payload: JsonObject): HookProtocol {
  const event = stringField(payload, 'hook_event_name');
  if (event === 'BeforeTool') return 'gemini';
  if (event === 'preToolUse' || payload.conversation_id !== undefined || payload.workspace_roots !== undefined) return 'cursor';
  if (stringField(payload, 'tool_name') === 'apply_patch' || payload.turn_id !== undefined) return 'codex';
  return 'claude';
}

function targetsFor(protocol: HookProtocol, toolName: string, toolInput: unknown): { writes: boolean; targets: string[] } {
  if (toolName === 'apply_patch') {
    const text = patchText(toolInput);
    if (text === undefined) throw new HookPayloadError('bad-patch', 'The apply_patch call carries no patch text in tool_input.');
    return { writes: true, targets: parseApplyPatchTargets(text) };
  }
  const input = isObject(toolInput) ? toolInput : {};
  let key: string | undefined;
  if (protocol === 'gemini') key = GEMINI_WRITE_TOOLS.has(toolName) ? 'file_path' : undefined;
  else if (protocol === 'cursor') key = CURSOR_WRITE_TOOLS.has(toolName) ? 'file_path' : undefined;
  else key = CLAUDE_WRITE_TOOLS[toolName];
  if (key === undefined) return { writes: false, targets: [] };
  const candidates = [input[key], input.path, input.target_file, input.file_path, input.notebook_path];
  const target = candidates.find((value) => value !== undefined && value !== null);
  if (target === undefined) {
    throw new HookPayloadError('no-target', `The ${toolName} call names no file (tool_input.${key} is missing).`);
  }
  // A non-string target is passed on as-is so resolution reports it as invalid (and the gate denies).
  return { writes: true, targets: [target as string] };
}

/**
 * Parses one pre-tool hook payload (the raw stdin text). `protocol` is what the installed command
 * says; without it the protocol is guessed from the payload. Throws HookPayloadError.
 */
export function parseHookPayload(stdin: string, protocol?: HookProtocol): WriteRequest {
  let payload: unknown;
  try {
    payload = JSON.parse(stdin);
  } catch {
    throw new HookPayloadError('not-json', 'The hook payload on stdin is not JSON.');
  }
  if (!isObject(payload)) throw new HookPayloadError('not-an-object', 'The hook payload is not a JSON object.');
  const chosen = protocol ?? detectProtocol(payload);
  const toolName = stringField(payload, 'tool_name') ?? stringField(payload, 'toolName');
  if (toolName === undefined || toolName === '') {
    throw new HookPayloadError('no-tool-name', 'The hook payload names no tool (tool_name is missing).');
  }
  const { writes, targets } = targetsFor(chosen, toolName, payload.tool_input ?? payload.toolArgs);
  const cwd = stringField(payload, 'cwd');
  const agentId = stringField(payload, 'agent_id');
  return {
    protocol: chosen,
    toolName,
    writes,
    targets,
    ...(cwd !== undefined && cwd !== '' ? { cwd } : {}),
    ...(agentId !== undefined && agentId.trim() !== '' ? { agentId: agentId.trim() } : {}),
    sessionIds: sessionIdsOf(payload),
  };
}

/** What the gate decided, ready to be spoken in one protocol. */
export type HookVerdict =
  | { readonly decision: 'allow' }
  | { readonly decision: 'warn'; readonly message: string }
  | { readonly decision: 'deny'; readonly reason: string };

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
