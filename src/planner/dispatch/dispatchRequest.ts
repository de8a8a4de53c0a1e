// What Claude Code hands the pre-dispatch hook (`PreToolUse`, matcher `Agent`, also `Task` from older
// versions) and the subagent-start hook (`SubagentStart`), reduced to what the guard decides on.
// docs/hooks.md, "The dispatch guard", cites the sources of every field.
import { DISPATCH_TOOL_NAMES } from './liveness';

/** One dispatch about to happen. */
export interface DispatchRequest {
  /** `Agent` (or `Task`); anything else is not a dispatch. */
  readonly toolName: string;
  /** `tool_input.description` ('' when absent). */
  readonly description: string;
  /** `tool_input.prompt` ('' when absent). */
  readonly prompt: string;
  /** `tool_input.subagent_type`. */
  readonly subagentType?: string;
  /** `tool_input.run_in_background === true`. */
  readonly background: boolean;
  /** `tool_input.isolation` (`worktree`), when set. */
  readonly isolation?: string;
  /** The payload's `tool_use_id`. */
  readonly useId?: string;
  readonly sessionId?: string;
  /** The session transcript (JSONL). */
  readonly transcriptPath?: string;
  readonly cwd?: string;
  /** Set when a subagent dispatches (a nested dispatch): the payload's `agent_id`. */
  readonly agentId?: string;
}

/** A subagent that has just started. */
export interface SubagentStartRequest {
  readonly agentId: string;
  readonly agentType?: string;
  readonly sessionId?: string;
  /** Observed absent from SubagentStart payloads; the ledger keeps the session's transcript path instead. */
  readonly transcriptPath?: string;
  readonly cwd?: string;
}

/** Why a payload could not be read (reference row 3: the dispatch is allowed). */
export type DispatchPayloadProblem = 'empty' | 'not-json' | 'not-an-object' | 'no-agent-id';

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(object: Json, key: string): string | undefined {
  const value = object[key];
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

function parseObject(stdin: string): { payload: Json } | { problem: DispatchPayloadProblem } {
  if (stdin.trim() === '') return { problem: 'empty' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(stdin);
  } catch {
    return { problem: 'not-json' };
  }
  return isObject(parsed) ? { payload: parsed } : { problem: 'not-an-object' };
}

/** Whether a tool name is the dispatch tool. */
export function isDispatchTool(name: string): boolean {
  return DISPATCH_TOOL_NAMES.includes(name);
}

/** Reads a `PreToolUse` payload of the dispatch tool. */
export function parseDispatchPayload(stdin: string): { request: DispatchRequest } | { problem: DispatchPayloadProblem } {
  const read = parseObject(stdin);
  if ('problem' in read) return read;
  const { payload } = read;
  const input = isObject(payload.tool_input) ? payload.tool_input : {};
  const optional = (key: string, value: string | undefined) => (value === undefined ? {} : { [key]: value });
  return {
    request: {
      toolName: typeof payload.tool_name === 'string' ? payload.tool_name : '',
      description: typeof input.description === 'string' ? input.description : '',
      prompt: typeof input.prompt === 'string' ? input.prompt : '',
      background: input.run_in_background === true,
      ...optional('subagentType', text(input, 'subagent_type')),
      ...optional('isolation', text(input, 'isolation')),
      ...optional('useId', text(payload, 'tool_use_id')),
      ...optional('sessionId', text(payload, 'session_id')),
      ...optional('transcriptPath', text(payload, 'transcript_path')),
      ...optional('cwd', text(payload, 'cwd')),
      ...optional('agentId', text(payload, 'agent_id')),
    },
  };
}

/** Reads a `SubagentStart` payload. */
export function parseSubagentStartPayload(stdin: string): { request: SubagentStartRequest } | { problem: DispatchPayloadProblem } {
  const read = parseObject(stdin);
  if ('problem' in read) return read;
  const { payload } = read;
  const agentId = text(payload, 'agent_id');
  if (agentId === undefined) return { problem: 'no-agent-id' };
  const optional = (key: string, value: string | undefined) => (value === undefined ? {} : { [key]: value });
  return {
    request: {
      agentId: agentId.trim(),
      ...optional('agentType', text(payload, 'agent_type')),
      ...optional('sessionId', text(payload, 'session_id')),
      ...optional('transcriptPath', text(payload, 'transcript_path')),
      ...optional('cwd', text(payload, 'cwd')),
    },
  };
}
