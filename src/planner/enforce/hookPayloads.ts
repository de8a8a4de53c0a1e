// Reading what an agent CLI hands its pre-tool hook: which protocol spoke, which tool is about to run,
// and which paths it will write. Every agent CLI spells this differently (docs/hooks.md cites each
// protocol's source); the rest of the gate sees only a WriteRequest. The answers are spoken by
// hookReplies.ts.
import { CodexPatchError, hasControlCharacter, parseCodexInvocation, parseCodexPatch, parseCodexScript, patchPaths } from './codexPatch';
import type { CodexPatch } from './codexPatch';
import { ANY_READING, CODEX_READING } from './writeTarget';
import type { PathReading } from './writeTarget';

import type { HookProtocol } from './hookReplies';

// The protocol names and the replies live in hookReplies.ts (the launcher loads that module alone).
export { HOOK_PROTOCOLS, formatHookReply, hookReply, universalDeny } from './hookReplies';
export type { HookProtocol, HookReply, HookVerdict } from './hookReplies';

/** One pre-tool call, reduced to what the write gate decides on. */
export interface WriteRequest {
  /** Which agent CLI sent the payload; selects the reply format. */
  readonly protocol: HookProtocol;
  /** The tool about to run, as the agent CLI names it. */
  readonly toolName: string;
  /** Whether this tool writes files named in its input (false: not this gate's business, allowed). */
  readonly writes: boolean;
  /** The raw target paths, as spelled in the payload (absolute, or relative to `cwd`). */
  readonly targets: readonly unknown[];
  /** How the agent CLI reads those paths (Codex folds `..`, and its versions differ on `~`; for the others every reading is checked). */
  readonly readings: readonly PathReading[];
  /**
   * A relative target may also be read from the session's project root (an MCP server resolves paths
   * against the project it serves, whatever directory the agent's shell is in): both are destinations.
   */
  readonly relativeToProject?: boolean;
  /**
   * The tool changes files beyond the targets it names (an MCP rename, refactoring or git operation): which
   * ones cannot be known before it runs, so a wave that governs the call refuses it (writeGate.ts).
   */
  readonly reachesUnnamed?: boolean;
  /** The payload's working directory, when it names one. */
  readonly cwd?: string;
  /** Non-empty only when the call comes from a dispatched subagent (the payload's `agent_id`). */
  readonly agentId?: string;
  /** Session ids the payload carries (`session_id`, `sessionId`, `parent_session_id`, `conversation_id`). */
  readonly sessionIds: readonly string[];
  /** Cursor's `workspace_roots`: the project the session was opened on. */
  readonly workspaceRoots: readonly string[];
  /** The session's transcript (`transcript_path`): a subagent's own transcript lies beside it (the dispatch binding). */
  readonly transcriptPath?: string;
}

/** Why a payload cannot be read; machine-readable. Any of these is a deny. */
export type HookPayloadProblemReason = 'not-json' | 'not-an-object' | 'unknown-protocol' | 'no-tool-name' | 'no-target' | 'bad-patch';

/** A payload the gate cannot read. The hook denies on it (fail closed). */
export class HookPayloadError extends Error {
  constructor(
    readonly reason: HookPayloadProblemReason,
    message: string,
    /** The protocol the payload's shape names, when it names one (the deny is spoken in it). */
    readonly protocol?: HookProtocol,
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

/** Cursor's preToolUse tool names that write a file (its agent uses Claude-style names and its own). */
export const CURSOR_WRITE_TOOLS: readonly string[] = ['Write', 'Edit', 'MultiEdit', 'NotebookEdit', 'StrReplace', 'Delete', 'edit_file', 'write_file', 'delete_file'];

/** The keys a file-writing tool's input may name its file with, in the order they are looked at. */
const FILE_KEYS = ['file_path', 'path', 'target_file', 'notebook_path', 'filePath'];

// MCP tools: Claude Code and Codex name them `mcp__<server>__<tool>`, Cursor `MCP:<server>:<tool>`, Gemini
// CLI (0.34 and later) `mcp_<server>_<tool>`. One whose own name says it changes files (a verb below) and
// whose input names a path is a write to that path; one whose input names no path, or whose name says it
// only reads, is not this gate's business. docs/hooks.md lists what that leaves out.
const MCP_PREFIX = /^(?:mcp__(.+?)__|MCP:([^:]+):)(.+)$/;
// Gemini joins server and tool with one `_`, and a server's name may hold `_` itself, so where the server
// ends cannot be told: every word after the prefix is read as the tool's (a verb in the server's name then
// makes the call a write, which can only refuse more). Its older `mcp__` spelling is read the same way.
const GEMINI_MCP_PREFIX = /^mcp_(.+)$/;
// Agent CLIs keep an MCP tool's name within the model API's limit by cutting it, which can take the verb
// that says the tool writes, so a name cut so is read as one that may write. Gemini cuts out the middle of
// a name longer than 63 characters: its first 30 and last 30 joined by `...` (generateValidName in
// gemini-cli's packages/core/src/tools/mcp-tool.ts). Codex, since April 2026, cuts the tool's part of a
// name longer than 64 and appends `_` and 12 hex digits of a SHA-1 (also to a name that collides with
// another; a server name long enough is cut and leaves the tool's part nothing but that suffix:
// normalize_tools_for_model_with_prefix in codex-rs's codex-mcp crate); before, it kept the first 24
// characters of the whole name and appended its SHA-1 in 40 hex digits (qualify_tools in codex-rs's
// core/src/mcp_connection_manager.rs). Claude Code never shortens a name (a name too long fails).
const GEMINI_SHORTENED_LENGTH = 63;
const GEMINI_SHORTENED_KEEPS = 30;
const CODEX_SHORTENED = /^mcp__(?:.{19}[0-9a-f]{40}|.+_[0-9a-f]{12})$/;
// Verbs that change the paths a tool names: plain writes, formatters and fixers (JetBrains's `reformat_file`),
// generators, downloads and archive tools, file-system commands. A word that only reads (`read`, `get`,
// `fetch`, `show`, `diff`, `log`) is none of them; a read-only tool that carries one is gated, which can
// only refuse.
const MCP_WRITE_VERB =
  /^(?:write|edit|create|move|delete|remove|append|patch|replace|save|put|upload|mkdir|copy|insert|overwrite|truncate|modify|update|apply|format|reformat|prettify|beautify|fix|organize|optimize|generate|scaffold|init|clone|download|export|convert|unzip|unpack|decompress|untar|compress|zip|touch|chmod|chown|mv|cp|rm|rmdir|unlink|symlink|erase|wipe|purge|trash|destroy|undo|redo|store)$/i;
// Verbs whose tool changes files beyond the paths it names, so no check of those paths is certain: a
// rename or refactoring rewrites every file that refers to the symbol (JetBrains's `rename_refactoring`,
// Serena's `rename_symbol`; a refactoring server's file rename rewrites the imports too), and a git
// operation rewrites the work tree or git's own state, a commit made by a library without running the
// pre-commit hook (the reference git server's `git_checkout`, `git_reset`, `git_commit`). `pull` counts
// unless a `request` follows it (GitHub's pull-request tools act on the remote).
const MCP_UNBOUNDED_VERB = /^(?:rename|refactor|refactoring|checkout|switch|restore|reset|stash|merge|rebase|pull|revert|clean|cherry|cherrypick|commit|amend|squash|discard|rollback)$/i;
// The keys most servers name a file with: a value there that is neither text nor a container (a number) is
// passed on as a target, so resolution refuses it (and the gate denies).
const MCP_PATH_KEYS = ['path', 'file_path', 'filePath', 'filepath', 'file', 'filename', 'target', 'target_file', 'targetPath', 'destination', 'dest', 'source', 'new_path', 'old_path', 'newPath', 'oldPath', 'directory', 'dir'];
// A key names a file when one of its words does (those above, `paths`, `files`, Serena's `relative_path`,
// the JetBrains server's `pathInProject`, `destinationPath`, `src`/`dst`), at any depth of the input; its
// string values are targets. A symbol's name path (Serena's `name_path`: `MyClass/method`) names code.
const MCP_PATH_WORD = /^(?:paths?|filepaths?|files?|filenames?|dirs?|directory|directories|folders?|destination|dest|dst|source|src|target)$/i;
const MCP_NOT_FILE_KEYS = new Set(['name_path', 'namePath']);
/** How deep into an MCP tool's input path keys are looked for (a deeper input is refused). */
const MCP_INPUT_DEPTH = 8;

/**
 * The MCP tool part of a tool name (`mcp__fs__write_file` → `write_file`; from Gemini CLI, `mcp_fs_write_file`
 * → `fs_write_file`), or undefined when the tool is not an MCP tool. A tool named `mcp_x` is an MCP tool only
 * from Gemini CLI: the other CLIs spell theirs with two underscores. A name Codex cut short may have lost the
 * `__` after its server: all of it after `mcp__` is then the tool's.
 */
export function mcpToolOf(toolName: string, protocol?: HookProtocol): string | undefined {
  if (protocol === 'gemini') {
    const gemini = GEMINI_MCP_PREFIX.exec(toolName);
    if (gemini !== null) return gemini[1];
  }
  const match = MCP_PREFIX.exec(toolName);
  if (match !== null) return match[3];
  return CODEX_SHORTENED.test(toolName) ? toolName.slice('mcp__'.length) : undefined;
}

/**
 * The words of an MCP tool's name: split at `_`, `-`, `.` and blank space, and where camelCase starts a
 * word (`write_file`, `write-file`, `writeFile` and `XMLWrite` all carry `write`).
 */
function toolNameWords(tool: string): string[] {
  const spaced = tool.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/([A-Z])([A-Z][a-z])/g, '$1 $2');
  return spaced.split(/[\s_.-]+/);
}

// Words of MCP_PATH_WORD that name an end of something rather than a file: with a noun that is not a file
// (GitLab's `source_branch`, `target_project_id`, `source_lang`) the key names no file.
const MCP_ENDPOINT_WORD = /^(?:destination|dest|dst|source|src|target)$/i;
const MCP_NOT_FILE_NOUN = /^(?:branch(?:es)?|refs?|commits?|sha|revisions?|rev|tags?|hash|ids?|iid|urls?|uris?|projects?|repos?|repository|namespace|langs?|languages?|locale|users?|emails?)$/i;

/** Whether an MCP input key names a file (see MCP_PATH_WORD, MCP_ENDPOINT_WORD). */
function isMcpPathKey(key: string): boolean {
  if (MCP_NOT_FILE_KEYS.has(key)) return false;
  const words = toolNameWords(key);
  const namesOther = words.some((word) => MCP_NOT_FILE_NOUN.test(word));
  return words.some((word) => MCP_PATH_WORD.test(word) && !(namesOther && MCP_ENDPOINT_WORD.test(word)));
}

/** Whether the agent CLI cut this MCP tool's name short (GEMINI_SHORTENED_LENGTH, CODEX_SHORTENED), so its verb may be gone. */
function isShortenedMcpName(toolName: string, protocol: HookProtocol): boolean {
  if (protocol === 'gemini') return toolName.length === GEMINI_SHORTENED_LENGTH && toolName.slice(GEMINI_SHORTENED_KEEPS, GEMINI_SHORTENED_KEEPS + 3) === '...';
  // Claude Code's spelling is Codex's, and a payload does not always say which CLI sent it: the shape decides.
  return CODEX_SHORTENED.test(toolName);
}

/**
 * The paths an MCP tool call writes: none when it is not a write or names no path. Every string under a
 * path key, at any depth (in arrays too), is a target; an input nested deeper than MCP_INPUT_DEPTH is
 * refused, never read as naming nothing. `nameMayHideVerb`: the agent CLI cut the name short
 * (isShortenedMcpName), so the tool is judged on the paths it names whatever verbs are left.
 */
function mcpTargets(tool: string, input: JsonObject, protocol: HookProtocol, nameMayHideVerb = false): { writes: boolean; targets: unknown[]; reachesUnnamed?: true } {
  const words = toolNameWords(tool);
  const unbounded = reachesUnnamedFiles(words);
  if (!nameMayHideVerb && !unbounded && !words.some((word) => MCP_WRITE_VERB.test(word))) return { writes: false, targets: [] };
  const targets: unknown[] = [];
  const collect = (value: unknown, underPathKey: boolean, depth: number): void => {
    if (depth > MCP_INPUT_DEPTH) throw new HookPayloadError('no-target', `The ${tool} call's input is nested deeper than ${MCP_INPUT_DEPTH} levels; its paths cannot be read with certainty.`, protocol);
    if (typeof value === 'string') {
      if (underPathKey) targets.push(value);
    } else if (Array.isArray(value)) {
      for (const item of value) collect(item, underPathKey, depth + 1);
    } else if (isObject(value)) {
      for (const [key, inner] of Object.entries(value)) collect(inner, isMcpPathKey(key), depth + 1);
    }
  };
  for (const [key, value] of Object.entries(input)) {
    if (MCP_PATH_KEYS.includes(key) && value !== null && typeof value !== 'string' && typeof value !== 'object') targets.push(value);
    // Path keys nested under keys that are not path keys count too (`{"edits": [{"path": …}]}`).
    else collect(value, isMcpPathKey(key), 1);
  }
  // A patch tool that names no path (the JetBrains server's `apply_patch`) names its files inside the
  // patch: read as Codex reads one, or refused.
  if (targets.length === 0 && toolNameWords(tool).some((word) => /^(?:patch|diff)$/i.test(word))) {
    const text = ['patch', 'input', 'diff', 'content'].map((key) => input[key]).find((value): value is string => typeof value === 'string');
    try {
      if (text === undefined) throw new CodexPatchError('no-begin', 'no patch text in its input');
      targets.push(...patchPaths({ hunks: parseCodexPatch(text) }));
    } catch (error) {
      if (!(error instanceof CodexPatchError)) throw error;
      throw new HookPayloadError('bad-patch', `The ${tool} call's patch cannot be read with certainty (${error.message}); only a patch in apply_patch's format is judged.`, protocol);
    }
  }
  if (targets.length === 0) return { writes: false, targets };
  return unbounded ? { writes: true, targets, reachesUnnamed: true } : { writes: true, targets };
}

/**
 * Whether an MCP tool's name says it changes files beyond the paths it names (MCP_UNBOUNDED_VERB; a
 * `move` of a symbol rewrites its references). `pull` followed by `request` names a pull request.
 */
function reachesUnnamedFiles(words: readonly string[]): boolean {
  return words.some((word, index) => {
    if (!MCP_UNBOUNDED_VERB.test(word)) return false;
    // A pull request (GitHub) or a merge request (GitLab) is an object on the remote, not an operation here.
    return !/^(?:pull|merge)$/i.test(word) || !/^requests?$/i.test(words[index + 1] ?? '');
  }) || (words.some((word) => /^move$/i.test(word)) && words.some((word) => /^symbols?$/i.test(word)));
}

/** A tool input that arrived as a JSON string (Cursor's MCP events do this), read as the object it spells. */
function inputObject(toolInput: unknown): JsonObject {
  if (isObject(toolInput)) return toolInput;
  if (typeof toolInput === 'string') {
    try {
      const parsed: unknown = JSON.parse(toolInput);
      if (isObject(parsed)) return parsed;
    } catch {
      // Not JSON: an input without named paths.
    }
  }
  return {};
}

function sessionIdsOf(payload: JsonObject): string[] {
  const ids: string[] = [];
  for (const key of ['session_id', 'sessionId', 'parent_session_id', 'conversation_id']) {
    const value = payload[key];
    if (typeof value === 'string' && value.trim() !== '') ids.push(value.trim());
  }
  return ids;
}

/**
 * The protocol a payload's shape names, or undefined when nothing in it says (then the reply must be
 * one every supported agent CLI reads as a block). Gemini CLI's event is `BeforeTool`; Cursor's is
 * `preToolUse` and its payloads carry `conversation_id`, `workspace_roots` and `cursor_version`;
 * Codex's PreToolUse carries `turn_id`; Claude Code's PreToolUse carries none of those.
 */
export function detectProtocol(payload: JsonObject): HookProtocol | undefined {
  const event = stringField(payload, 'hook_event_name');
  if (event === 'BeforeTool') return 'gemini';
  if (event === 'preToolUse' || payload.conversation_id !== undefined || payload.workspace_roots !== undefined || payload.cursor_version !== undefined) {
    return 'cursor';
  }
  if (payload.turn_id !== undefined || stringField(payload, 'tool_name') === 'apply_patch') return 'codex';
  if (event === 'PreToolUse') return 'claude';
  return undefined;
}

/** The patch of a Codex `apply_patch` call (`tool_input.command` as a string or an argv), parsed as Codex parses it. */
function codexApplyPatch(toolInput: unknown): CodexPatch {
  const input = isObject(toolInput) ? toolInput : {};
  const command = typeof toolInput === 'string' ? toolInput : (input.command ?? input.patch ?? input.input);
  if (typeof command === 'string') return { hunks: parseCodexPatch(command) };
  if (Array.isArray(command) && command.every((part) => typeof part === 'string')) {
    const parsed = parseCodexInvocation(command as string[]);
    if (parsed !== undefined) return parsed;
  }
  throw new HookPayloadError('bad-patch', 'The apply_patch call carries no patch text Codex would read (tool_input.command).', 'codex');
}

/**
 * The paths a Codex hunk path may write, joined onto a directory (the `cd` directory, or the shell call's
 * workdir) as Codex joins it: an absolute path ignores the directory, and an empty one (`cd ''`) is none
 * (Codex's `cwd.join("")` is `cwd`, where gluing on a `/` would make every relative path absolute). A `~`
 * path is both itself, for versions that expand `~` and so ignore the directory (codex-rs
 * `resolve_path_against_base`), and joined, for Codex 0.169.0, which writes `<dir>/~/…` literally.
 */
function codexJoin(path: string, directory: string | undefined): string[] {
  if (directory === undefined || directory === '' || path.startsWith('/')) return [path];
  const joined = `${directory.replace(/\/+$/, '')}/${path}`;
  return path === '~' || path.startsWith('~/') ? [path, joined] : [joined];
}

function patchTargets(patch: CodexPatch): string[] {
  const paths = patchPaths(patch).flatMap((path) => codexJoin(path, patch.workdir));
  if (paths.length === 0) throw new HookPayloadError('bad-patch', 'The apply_patch body names no file (no "*** Add/Update/Delete File:" hunk).', 'codex');
  return paths;
}

/**
 * What a Codex shell call writes when Codex reads its command as an apply_patch invocation. Codex runs the
 * call, and applies an intercepted patch, in the call's `workdir` joined onto `cwd` (codex-rs `exec_command`
 * and `shell_command`), but the hook's `tool_input` is only `{ "command": … }`: a path relative to that
 * directory has no certain destination and is refused, so only absolute paths and paths under an absolute
 * `cd` are judged. A payload that names the workdir (a string) is read as Codex reads it.
 */
function codexShellTargets(toolInput: unknown): string[] | undefined {
  const input = isObject(toolInput) ? toolInput : {};
  const { command, workdir } = input;
  let patch: CodexPatch | undefined;
  if (typeof command === 'string') patch = parseCodexScript(command);
  else if (Array.isArray(command) && command.every((part) => typeof part === 'string')) patch = parseCodexInvocation(command as string[]);
  if (patch === undefined) return undefined;
  const targets = patchTargets(patch);
  if (workdir === undefined || workdir === null) {
    // Certain only where no path depends on the workdir: each absolute, or all under an absolute `cd`
    // (a `~` path is relative to Codex 0.169.0, which does not expand it).
    if (patch.workdir?.startsWith('/') === true || patchPaths(patch).every((path) => path.startsWith('/'))) return targets;
    throw new HookPayloadError(
      'bad-patch',
      'Codex applies a patch given to a shell command in the call\'s workdir, which the hook payload does not carry, so a relative path in it has no certain destination; use the apply_patch tool.',
      'codex',
    );
  }
  if (typeof workdir !== 'string') throw new HookPayloadError('bad-patch', 'The shell call\'s workdir is not a string.', 'codex');
  // Joined onto every path, so a control character in it is one in each of them (see hasControlCharacter).
  if (hasControlCharacter(workdir)) throw new HookPayloadError('bad-patch', 'The shell call\'s workdir carries a control character, which Codex versions read differently.', 'codex');
  // Codex treats an empty workdir as none (codexJoin).
  return targets.flatMap((target) => codexJoin(target, workdir));
}

function targetsFor(
  protocol: HookProtocol,
  toolName: string,
  toolInput: unknown,
): { writes: boolean; targets: unknown[]; readings: readonly PathReading[]; relativeToProject?: boolean; reachesUnnamed?: true } {
  try {
    if (toolName === 'apply_patch') return { writes: true, targets: patchTargets(codexApplyPatch(toolInput)), readings: CODEX_READING };
    if (protocol === 'codex' && (toolName === 'Bash' || toolName === 'shell' || toolName === 'exec_command' || toolName === 'local_shell')) {
      const targets = codexShellTargets(toolInput);
      if (targets === undefined) return { writes: false, targets: [], readings: ANY_READING };
      return { writes: true, targets, readings: CODEX_READING };
    }
  } catch (error) {
    if (error instanceof CodexPatchError) throw new HookPayloadError('bad-patch', `The apply_patch call cannot be read with certainty: ${error.message}.`, protocol);
    throw error;
  }
  const input = inputObject(toolInput);
  const mcpTool = mcpToolOf(toolName, protocol);
  if (mcpTool !== undefined) {
    return { ...mcpTargets(mcpTool, input, protocol, isShortenedMcpName(toolName, protocol)), readings: ANY_READING, relativeToProject: true };
  }
  let key: string | undefined;
  if (protocol === 'gemini') key = GEMINI_WRITE_TOOLS.has(toolName) ? 'file_path' : undefined;
  else if (protocol === 'cursor') key = CURSOR_WRITE_TOOLS.includes(toolName) ? 'file_path' : undefined;
  else key = CLAUDE_WRITE_TOOLS[toolName];
  if (key === undefined) return { writes: false, targets: [], readings: ANY_READING };
  // Every key that can name the file is judged, not the first found: which one the agent CLI writes when
  // an input names several (Cursor's `target_file` beside a `path`) is its business, and each must be allowed.
  const targets = [...new Set([key, ...FILE_KEYS])].map((name) => input[name]).filter((value) => value !== undefined && value !== null);
  if (targets.length === 0) {
    throw new HookPayloadError('no-target', `The ${toolName} call names no file (tool_input.${key} is missing).`, protocol);
  }
  // A non-string target is passed on as-is so resolution reports it as invalid (and the gate denies).
  return { writes: true, targets, readings: ANY_READING };
}

/**
 * Parses one pre-tool hook payload (the raw stdin text). `protocol` is what the installed command
 * says; without it the protocol is read from the payload's shape. Throws HookPayloadError, carrying
 * the protocol when one is known.
 */
export function parseHookPayload(stdin: string, protocol?: HookProtocol): WriteRequest {
  let payload: unknown;
  try {
    payload = JSON.parse(stdin);
  } catch {
    throw new HookPayloadError('not-json', 'The hook payload on stdin is not JSON.', protocol);
  }
  if (!isObject(payload)) throw new HookPayloadError('not-an-object', 'The hook payload is not a JSON object.', protocol);
  const detected = protocol ?? detectProtocol(payload);
  const toolName = stringField(payload, 'tool_name') ?? stringField(payload, 'toolName');
  if (toolName === undefined || toolName === '') {
    throw new HookPayloadError('no-tool-name', 'The hook payload names no tool (tool_name is missing).', detected);
  }
  if (detected === undefined) {
    throw new HookPayloadError('unknown-protocol', 'The hook payload does not say which agent CLI sent it (no hook_event_name), so its reply format is unknown.');
  }
  const { writes, targets, readings, relativeToProject, reachesUnnamed } = targetsFor(detected, toolName, payload.tool_input ?? payload.toolArgs);
  const cwd = stringField(payload, 'cwd');
  const agentId = stringField(payload, 'agent_id');
  const transcriptPath = stringField(payload, 'transcript_path');
  const roots = Array.isArray(payload.workspace_roots) ? payload.workspace_roots.filter((root): root is string => typeof root === 'string' && root.startsWith('/')) : [];
  return {
    protocol: detected,
    toolName,
    writes,
    targets,
    readings,
    ...(relativeToProject === true ? { relativeToProject } : {}),
    ...(reachesUnnamed === true ? { reachesUnnamed } : {}),
    ...(cwd !== undefined && cwd !== '' ? { cwd } : {}),
    ...(agentId !== undefined && agentId.trim() !== '' ? { agentId: agentId.trim() } : {}),
    sessionIds: sessionIdsOf(payload),
    workspaceRoots: roots,
    ...(transcriptPath !== undefined && transcriptPath.startsWith('/') ? { transcriptPath } : {}),
  };
}
