// Merging Wave Scope's hooks into the configuration files of the agent CLIs and git, and taking them
// out again. Pure text transforms: the caller reads the files, writes what comes back (atomically)
// and owns every decision about paths. Our entries are recognised by the launcher's file name inside
// their command (and the hook it runs), so a merge never touches another tool's hook and an uninstall
// removes exactly what an install added.
//
// Settings files are edited, never rewritten: jsonc-parser reads the text into a tree with offsets,
// and each change is an edit of the text at those offsets (applied with its applyEdits), so comments,
// formatting, key order, duplicate keys elsewhere and number precision survive. An insertion and the
// removal of what it inserted are exact inverses, so install followed by uninstall gives the bytes
// back. (jsonc-parser's own `modify` re-formats around an insertion and, in 3.3.1, removes a last
// array element one character short; both would break that, so the edits are computed here.) After
// every edit the result is parsed again and checked to differ from the original only in our entries.
import { applyEdits, parse, parseTree, printParseErrorCode } from 'jsonc-parser';
import type { Edit, Node, ParseError } from 'jsonc-parser';
import { CURSOR_WRITE_TOOLS } from './hookPayloads';
import { LAUNCHER_FILE_NAME } from '../plan/stateDirNames';

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Why a settings file cannot be edited without losing something. */
export type HookConfigProblem = 'not-json' | 'not-an-object' | 'hooks-not-an-object' | 'event-not-an-array' | 'duplicate-key' | 'verify-failed';

/** A settings document that cannot be merged into without losing something. */
export class HookConfigError extends Error {
  constructor(
    readonly reason: HookConfigProblem,
    message: string,
  ) {
    super(message);
    this.name = 'HookConfigError';
  }
}

/** The agent CLIs the installer configures. */
export type AgentCli = 'claude' | 'codex' | 'cursor' | 'gemini';

export const AGENT_CLIS: readonly AgentCli[] = ['claude', 'codex', 'cursor', 'gemini'];

/**
 * One hook registration: which agent CLI, which settings file, which event, which tools, which
 * `wave-scope hook <name>` it runs, and the extra keys its handler carries. The installer, the
 * uninstaller, the dry-run plan and `doctor` all read this table, so a new hook is one row here.
 */
export interface HookRegistration {
  readonly agentCli: AgentCli;
  /** The settings file, relative to the repository root. */
  readonly configFile: string;
  /** `grouped`: `hooks.<event>` holds `{matcher, hooks: [handler]}` groups (Claude Code, Codex, Gemini CLI); `flat`: handlers directly (Cursor). */
  readonly layout: 'grouped' | 'flat';
  readonly event: string;
  /** Which tools the hook runs for (the CLI's matcher syntax); undefined for events without tools. */
  readonly matcher?: string;
  /** The `wave-scope hook <name>` the launcher runs. */
  readonly hook: string;
  /** Keys added to our handler object: the CLI's fail-closed switch, where it has one. */
  readonly handlerOptions?: Readonly<Record<string, unknown>>;
  /**
   * What the installed command does when the launcher cannot even start (Node missing, the launcher
   * deleted): `block` exits 2 with a reason on stderr, which every supported agent CLI reads as a
   * block; `ignore` exits 0 with a note on stderr (a lifecycle hook must never stop a session, and the
   * dispatch guard and the turn boundaries fail open).
   */
  readonly whenLauncherFails: 'block' | 'ignore';
}

// Claude Code (2.1.295 and later) blocks the action when a handler with `onFailure: "block"` cannot
// start, times out or exits with an unexpected code; Cursor does the same for `failClosed: true`.
// Codex and Gemini CLI have no such switch: there the `|| exit 2` tail and the gate's own catch-all are
// what fails closed. Sources in docs/hooks.md.
const CLAUDE_FAIL_CLOSED = { onFailure: 'block' } as const;
const CURSOR_FAIL_CLOSED = { failClosed: true } as const;

const CLAUDE_WRITE_MATCHER = 'Edit|Write|MultiEdit|NotebookEdit|mcp__.*';
// Gemini CLI tests `new RegExp(matcher)` against the tool's name, unanchored. Its MCP tools are named
// `mcp_<server>_<tool>` since 0.34, one underscore: `mcp__.*` missed `mcp_fs_edit_file`, and caught
// `mcp_fs_write_file` only through the substring `write_file`. `^mcp_` takes both spellings.
const GEMINI_WRITE_MATCHER = 'write_file|replace|^mcp_';

/** Where each agent CLI reads project hooks and what we register (docs/hooks.md cites the sources). */
export const HOOK_REGISTRATIONS: readonly HookRegistration[] = [
  // The write gate: fails closed.
  { agentCli: 'claude', configFile: '.claude/settings.json', layout: 'grouped', event: 'PreToolUse', matcher: CLAUDE_WRITE_MATCHER, hook: 'enforce-write', handlerOptions: CLAUDE_FAIL_CLOSED, whenLauncherFails: 'block' },
  { agentCli: 'claude', configFile: '.claude/settings.json', layout: 'grouped', event: 'SessionStart', hook: 'session-start', whenLauncherFails: 'ignore' },
  // The dispatch guard (Claude Code's dispatch tool, `Task` before it was renamed `Agent`; SubagentStart
  // matches on the agent type, `*` takes every type): fails open, since exit 2 would refuse a dispatch
  // the guard never judged, and it cannot change what a tool call writes.
  { agentCli: 'claude', configFile: '.claude/settings.json', layout: 'grouped', event: 'PreToolUse', matcher: 'Agent|Task', hook: 'pre-dispatch', whenLauncherFails: 'ignore' },
  { agentCli: 'claude', configFile: '.claude/settings.json', layout: 'grouped', event: 'SubagentStart', matcher: '*', hook: 'subagent-start', whenLauncherFails: 'ignore' },
  // The backstop: the shell check fails closed; the turn boundaries fail open (exit 2 at Stop keeps a
  // turn from ending, so a broken launcher would trap the agent in it; at UserPromptSubmit it would
  // refuse the person's prompt).
  { agentCli: 'claude', configFile: '.claude/settings.json', layout: 'grouped', event: 'PostToolUse', matcher: 'Bash', hook: 'post-bash', whenLauncherFails: 'block' },
  { agentCli: 'claude', configFile: '.claude/settings.json', layout: 'grouped', event: 'Stop', hook: 'stop', whenLauncherFails: 'ignore' },
  { agentCli: 'claude', configFile: '.claude/settings.json', layout: 'grouped', event: 'SubagentStop', hook: 'stop', whenLauncherFails: 'ignore' },
  { agentCli: 'claude', configFile: '.claude/settings.json', layout: 'grouped', event: 'UserPromptSubmit', hook: 'turn-start', whenLauncherFails: 'ignore' },
  { agentCli: 'codex', configFile: '.codex/hooks.json', layout: 'grouped', event: 'PreToolUse', matcher: 'apply_patch|Edit|Write|Bash|mcp__.*', hook: 'enforce-write', whenLauncherFails: 'block' },
  { agentCli: 'codex', configFile: '.codex/hooks.json', layout: 'grouped', event: 'SessionStart', hook: 'session-start', whenLauncherFails: 'ignore' },
  // Codex maps its shell tools (`exec_command`, `shell`) to the matcher `Bash`.
  { agentCli: 'codex', configFile: '.codex/hooks.json', layout: 'grouped', event: 'PostToolUse', matcher: 'Bash', hook: 'post-bash', whenLauncherFails: 'block' },
  { agentCli: 'codex', configFile: '.codex/hooks.json', layout: 'grouped', event: 'Stop', hook: 'stop', whenLauncherFails: 'ignore' },
  { agentCli: 'codex', configFile: '.codex/hooks.json', layout: 'grouped', event: 'SubagentStop', hook: 'stop', whenLauncherFails: 'ignore' },
  { agentCli: 'codex', configFile: '.codex/hooks.json', layout: 'grouped', event: 'UserPromptSubmit', hook: 'turn-start', whenLauncherFails: 'ignore' },
  { agentCli: 'cursor', configFile: '.cursor/hooks.json', layout: 'flat', event: 'preToolUse', matcher: [...CURSOR_WRITE_TOOLS, 'MCP:.*'].join('|'), hook: 'enforce-write', handlerOptions: CURSOR_FAIL_CLOSED, whenLauncherFails: 'block' },
  { agentCli: 'gemini', configFile: '.gemini/settings.json', layout: 'grouped', event: 'BeforeTool', matcher: GEMINI_WRITE_MATCHER, hook: 'enforce-write', whenLauncherFails: 'block' },
  { agentCli: 'gemini', configFile: '.gemini/settings.json', layout: 'grouped', event: 'SessionStart', hook: 'session-start', whenLauncherFails: 'ignore' },
];

/** The table under its older name (every row names its settings file as `configFile`). */
export const AGENT_HOOK_TARGETS = HOOK_REGISTRATIONS;

// A command of ours is one some install-hooks wrote, whole: `node <launcher> <hook> --agent-cli <cli>`, the
// launcher single-quoted as shellQuote writes it (`"$CLAUDE_PROJECT_DIR"/'.claude/wave-scope-hook.cjs'` for
// Claude Code, an absolute path for the others), then what runs when the launcher cannot start: nothing or
// `|| exit 2` (2026-11-30), `|| true` (2026-12-01), or one of commandFor's two blocks. A user's own command
// that only mentions the launcher (`cp .claude/wave-scope-hook.cjs /backup/`, a wrapper piping ours into
// `tee`) is theirs: an uninstall leaves it.
const QUOTED_WORD = `'(?:[^']|'\\\\'')*'`;
const OUR_COMMAND = new RegExp(
  `^node (?:"\\$CLAUDE_PROJECT_DIR"/)?'(?:(?:[^']|'\\\\'')*/)?${LAUNCHER_FILE_NAME.replace(/\./g, '\\.')}' ([a-z][a-z-]*) --agent-cli [a-z]+` +
    `(?: \\|\\| (?:exit 2|true|\\{ echo ${QUOTED_WORD} >&2; true; \\}|\\{ s=\\$\\?; \\[ "\\$s" -eq 2 \\] \\|\\| echo ${QUOTED_WORD} >&2; exit 2; \\}))?$`,
);

/** Longer than any command install-hooks writes (a few hundred characters, the launcher's path included). */
const OUR_COMMAND_MAX_LENGTH = 16 * 1024;

/** The `wave-scope hook` an installed command of ours runs, or undefined when the command is not ours (OUR_COMMAND). */
export function ourHookOf(command: unknown): string | undefined {
  // A longer one is not ours, and is not handed to the regex, whose backtracking stack a command of
  // megabytes exhausts (found by red-team review, 2026-12-06: doctor failed on such a settings file).
  if (typeof command !== 'string' || command.length > OUR_COMMAND_MAX_LENGTH) return undefined;
  return OUR_COMMAND.exec(command)?.[1];
}

/** Whether a hook command is one of ours. */
export function isOurCommand(command: unknown): boolean {
  return ourHookOf(command) !== undefined;
}

/** Single-quotes a word for `sh -c` (the agent CLIs and git run hook commands through a shell). */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * The command a registration installs. `launcher` is how the command names the launcher (Claude Code
 * expands `$CLAUDE_PROJECT_DIR`, so its commands survive a moved checkout; the others get an absolute
 * path). A launcher that cannot start blocks with a reason on stderr (Codex reads exit 2 without one
 * as a failed hook, not a block) unless the registration must never block.
 */
export function commandFor(registration: HookRegistration, launcher: string): string {
  const run = `node ${launcher} ${registration.hook} --agent-cli ${registration.agentCli}`;
  if (registration.whenLauncherFails === 'ignore') {
    // Let the call through, and say so: a hook that silently stops running is the failure we exist to prevent.
    const note = shellQuote(`wave-scope: the hook launcher did not run (${registration.configFile}, ${registration.hook}); letting this through. Run "wave-scope doctor".`);
    return `${run} || { echo ${note} >&2; true; }`;
  }
  const reason = shellQuote(`wave-scope: the hook launcher did not run (${registration.configFile}); blocking. Run "wave-scope doctor".`);
  return `${run} || { s=$?; [ "$s" -eq 2 ] || echo ${reason} >&2; exit 2; }`;
}

/** The handler object a registration puts into its settings file. */
function handlerOf(registration: HookRegistration, command: string): JsonObject {
  return registration.layout === 'grouped'
    ? { type: 'command', command, ...(registration.handlerOptions ?? {}) }
    : { command, ...(registration.matcher !== undefined ? { matcher: registration.matcher } : {}), ...(registration.handlerOptions ?? {}) };
}

/** The element a registration appends to `hooks.<event>`. */
function elementOf(registration: HookRegistration, command: string): JsonObject {
  if (registration.layout === 'flat') return handlerOf(registration, command);
  return { ...(registration.matcher !== undefined ? { matcher: registration.matcher } : {}), hooks: [handlerOf(registration, command)] };
}

// --- reading the text -------------------------------------------------------------------------

interface Layout {
  readonly newline: string;
  readonly unit: string;
}

function layoutOf(text: string): Layout {
  const newline = text.includes('\r\n') ? '\r\n' : '\n';
  let unit: string | undefined;
  let smallest = Infinity;
  for (const line of text.split('\n')) {
    const lead = /^([ \t]+)\S/.exec(line)?.[1];
    if (lead === undefined) continue;
    if (lead.startsWith('\t')) {
      unit = '\t';
      break;
    }
    smallest = Math.min(smallest, lead.length);
  }
  return { newline, unit: unit ?? (Number.isFinite(smallest) ? ' '.repeat(Math.min(smallest, 8)) : '  ') };
}

function parseSettings(text: string, file: string): Node | undefined {
  if (text.trim() === '') return undefined;
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: false, disallowComments: false, allowEmptyContent: true });
  if (errors.length > 0) {
    const first = errors[0] as ParseError;
    throw new HookConfigError('not-json', `${file} is not valid JSON (${printParseErrorCode(first.error)} at offset ${first.offset})`);
  }
  if (root === undefined || root.type !== 'object') throw new HookConfigError('not-an-object', `${file} is not a JSON object`);
  return root;
}

/** The value node of `key` in an object node; refuses a key that appears twice (which one an agent CLI reads is not ours to guess). */
function member(object: Node, key: string, file: string): Node | undefined {
  const matches = (object.children ?? []).filter((property) => property.children?.[0]?.value === key);
  if (matches.length > 1) throw new HookConfigError('duplicate-key', `${file} has the key "${key}" more than once; merge them by hand and run install-hooks again`);
  return matches[0]?.children?.[1];
}

function indentAt(text: string, offset: number): string {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(lineStart))?.[0] ?? '';
}

/** Whether a node starts its own line (only blank space before it on that line). */
function startsLine(text: string, node: Node): boolean {
  const lineStart = text.lastIndexOf('\n', node.offset - 1) + 1;
  return /^[ \t]*$/.test(text.slice(lineStart, node.offset));
}

/** `value` as JSON text, its continuation lines indented by `indent`. */
function render(value: unknown, indent: string, layout: Layout): string {
  return JSON.stringify(value, null, layout.unit).split('\n').join(`${layout.newline}${indent}`);
}

/** The edit that appends `itemText(indent)` to an array or object node (an object's item is `"key": value`). */
function appendEdit(text: string, container: Node, item: (indent: string) => string, layout: Layout): Edit {
  const children = container.children ?? [];
  const last = children[children.length - 1];
  if (last === undefined) {
    const indent = indentAt(text, container.offset);
    const interior = text.slice(container.offset + 1, container.offset + container.length - 1);
    // An empty container: whatever blank space it held is replaced, so the removal can hand back `{}` / `[]`.
    const content = /^\s*$/.test(interior) ? `${layout.newline}${indent}${layout.unit}${item(indent + layout.unit)}${layout.newline}${indent}` : undefined;
    if (content === undefined) throw new HookConfigError('verify-failed', 'an empty container holds something other than blank space (a comment?); edit it by hand');
    return { offset: container.offset + 1, length: interior.length, content };
  }
  const end = last.offset + last.length;
  if (startsLine(text, last)) {
    const indent = indentAt(text, last.offset);
    return { offset: end, length: 0, content: `,${layout.newline}${indent}${item(indent)}` };
  }
  // A container written on one line gets its new item on the same line, the way its items are separated.
  const previous = children[children.length - 2];
  const separator = previous !== undefined && /,\s/.test(text.slice(previous.offset + previous.length, last.offset)) ? ', ' : ',';
  return { offset: end, length: 0, content: `${separator}${item('').replace(/\r?\n\s*/g, ' ')}` };
}

/** The edit that removes one item (a property node or an array element) from its container, the exact inverse of appendEdit. */
function removeEdit(text: string, container: Node, index: number): Edit {
  const children = container.children ?? [];
  const item = children[index] as Node;
  if (children.length === 1) return { offset: container.offset + 1, length: container.length - 2, content: '' };
  if (index === children.length - 1) {
    const previous = children[index - 1] as Node;
    const start = previous.offset + previous.length;
    return { offset: start, length: item.offset + item.length - start, content: '' };
  }
  const next = children[index + 1] as Node;
  return { offset: item.offset, length: next.offset - item.offset, content: '' };
}

// --- the document as a value (for verification) ----------------------------------------------

function strippedValue(text: string | undefined): unknown {
  if (text === undefined || text.trim() === '') return {};
  const value: unknown = parse(text, [], { allowTrailingComma: false, disallowComments: false });
  if (!isObject(value)) return value;
  const copy = structuredClone(value);
  const hooks = copy.hooks;
  if (!isObject(hooks)) return copy;
  for (const [event, list] of Object.entries(hooks)) {
    if (!Array.isArray(list)) continue;
    const kept: unknown[] = [];
    for (const element of list) {
      if (isObject(element) && isOurCommand(element.command)) continue;
      if (isObject(element) && Array.isArray(element.hooks)) {
        const handlers = element.hooks.filter((handler) => !(isObject(handler) && isOurCommand(handler.command)));
        if (handlers.length === 0 && element.hooks.length > 0) continue;
        kept.push(handlers.length === element.hooks.length ? element : { ...element, hooks: handlers });
        continue;
      }
      kept.push(element);
    }
    // An event whose list holds nothing but ours counts as no event, and so does an empty list: the agent
    // CLIs read `"PreToolUse": []` as no hooks, and an uninstall takes the event away with our last entry
    // (it cannot tell a list install filled from one install created), as it takes a `"hooks": {}` away.
    if (kept.length === 0) delete hooks[event];
    else hooks[event] = kept;
  }
  if (Object.keys(hooks).length === 0) delete copy.hooks;
  return copy;
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (!isObject(value)) return value;
  return Object.fromEntries(Object.keys(value).sort().map((key) => [key, sortKeys(value[key])]));
}

// --- install and uninstall ---------------------------------------------------------------------

/** Our items in `hooks.<event>` for one hook: whole elements, or handlers inside a shared group. */
interface OurItems {
  readonly elements: number[];
  readonly handlers: Array<{ element: number; handler: number }>;
}

function ourItems(list: Node, registration: Pick<HookRegistration, 'layout'>, hook: string | undefined): OurItems {
  const elements: number[] = [];
  const handlers: Array<{ element: number; handler: number }> = [];
  const mine = (node: Node | undefined) => {
    const command = node?.type === 'object' ? node.children?.find((property) => property.children?.[0]?.value === 'command')?.children?.[1]?.value : undefined;
    const ours = ourHookOf(command);
    return ours !== undefined && (hook === undefined || ours === hook);
  };
  (list.children ?? []).forEach((element, index) => {
    if (registration.layout === 'flat' || mine(element)) {
      if (mine(element)) elements.push(index);
      return;
    }
    const group = element.type === 'object' ? element.children?.find((property) => property.children?.[0]?.value === 'hooks')?.children?.[1] : undefined;
    if (group?.type !== 'array') return;
    const inner = (group.children ?? []).map((handler, position) => (mine(handler) ? position : -1)).filter((position) => position !== -1);
    if (inner.length === 0) return;
    if (inner.length === (group.children ?? []).length) elements.push(index);
    else for (const position of inner) handlers.push({ element: index, handler: position });
  });
  return { elements, handlers };
}

/** Removes one of our items from the text (re-parsed each time), pruning the containers it empties. Undefined when none is left. */
function removeOne(text: string, file: string, event: string, registration: Pick<HookRegistration, 'layout'>, hook: string | undefined): string | undefined {
  const root = parseSettings(text, file);
  if (root === undefined) return undefined;
  const hooks = member(root, 'hooks', file);
  if (hooks === undefined || hooks.type !== 'object') return undefined;
  const list = member(hooks, event, file);
  if (list === undefined || list.type !== 'array') return undefined;
  const items = ourItems(list, registration, hook);
  const element = items.elements[0];
  if (element !== undefined) {
    if ((list.children ?? []).length > 1) return applyEdits(text, [removeEdit(text, list, element)]);
    // The list held only ours: the event goes, and `hooks` with it when that was its last event.
    const hooksProperty = list.parent as Node;
    const eventIndex = (hooks.children ?? []).indexOf(hooksProperty);
    if ((hooks.children ?? []).length > 1) return applyEdits(text, [removeEdit(text, hooks, eventIndex)]);
    const rootIndex = (root.children ?? []).indexOf(hooks.parent as Node);
    return applyEdits(text, [removeEdit(text, root, rootIndex)]);
  }
  const handler = items.handlers[0];
  if (handler === undefined) return undefined;
  const group = (list.children ?? [])[handler.element] as Node;
  const inner = group.children?.find((property) => property.children?.[0]?.value === 'hooks')?.children?.[1] as Node;
  return applyEdits(text, [removeEdit(text, inner, handler.handler)]);
}

/** Every event of `hooks` that holds one of ours (any hook), for a complete uninstall. */
function eventsWithOurs(text: string, file: string): string[] {
  const root = parseSettings(text, file);
  const hooks = root === undefined ? undefined : member(root, 'hooks', file);
  if (hooks === undefined || hooks.type !== 'object') return [];
  return (hooks.children ?? []).map((property) => String(property.children?.[0]?.value)).filter((event) => {
    const list = member(hooks, event, file);
    if (list?.type !== 'array') return false;
    const grouped = ourItems(list, { layout: 'grouped' }, undefined);
    return grouped.elements.length > 0 || grouped.handlers.length > 0;
  });
}

/** The element of ours for (event, hook), as a value, when exactly one is there. */
function currentElement(text: string, file: string, registration: HookRegistration): unknown {
  const root = parseSettings(text, file);
  const hooks = root === undefined ? undefined : member(root, 'hooks', file);
  const list = hooks?.type === 'object' ? member(hooks, registration.event, file) : undefined;
  if (list?.type !== 'array') return undefined;
  const items = ourItems(list, registration, registration.hook);
  if (items.elements.length !== 1 || items.handlers.length !== 0) return undefined;
  const value: unknown = parse(text.slice((list.children?.[items.elements[0] as number] as Node).offset, (list.children?.[items.elements[0] as number] as Node).offset + (list.children?.[items.elements[0] as number] as Node).length));
  return value;
}

/** Appends one element of ours to `hooks.<event>`, creating `hooks` and the event list as needed. */
function appendOne(text: string, file: string, registration: HookRegistration, element: JsonObject, layout: Layout): string {
  const root = parseSettings(text, file) as Node;
  const hooks = member(root, 'hooks', file);
  if (hooks === undefined) {
    const item = (indent: string) => `"hooks": ${render({ [registration.event]: [element] }, indent, layout)}`;
    return applyEdits(text, [appendEdit(text, root, item, layout)]);
  }
  if (hooks.type !== 'object') throw new HookConfigError('hooks-not-an-object', `"hooks" in ${file} is not a JSON object`);
  const list = member(hooks, registration.event, file);
  if (list === undefined) {
    const item = (indent: string) => `${JSON.stringify(registration.event)}: ${render([element], indent, layout)}`;
    return applyEdits(text, [appendEdit(text, hooks, item, layout)]);
  }
  if (list.type !== 'array') throw new HookConfigError('event-not-an-array', `"hooks.${registration.event}" in ${file} is not an array`);
  return applyEdits(text, [appendEdit(text, list, (indent) => render(element, indent, layout), layout)]);
}

/** A fresh settings document for a file that does not exist yet. */
function skeleton(layout: HookRegistration['layout']): string {
  return layout === 'flat' ? '{\n  "version": 1\n}\n' : '{}\n';
}

/** The result of planning one settings file. */
export type SettingsPlan =
  | { readonly kind: 'unchanged' }
  | { readonly kind: 'write'; readonly text: string }
  /** Uninstall found the file holding nothing but what install created: it goes. */
  | { readonly kind: 'delete' };

function verify(before: string | undefined, after: string, file: string, wanted: ReadonlyArray<{ registration: HookRegistration; element: JsonObject }>): void {
  parseSettings(after, file);
  if (!sameJson(strippedValue(before), strippedValue(after))) {
    throw new HookConfigError('verify-failed', `editing ${file} would change more than Wave Scope's own entries; nothing was written (edit it by hand, or report this)`);
  }
  for (const { registration, element } of wanted) {
    if (!sameJson(currentElement(after, file, registration), element)) {
      throw new HookConfigError('verify-failed', `editing ${file} did not leave exactly one Wave Scope entry for ${registration.event}; nothing was written`);
    }
  }
}

/**
 * Merges our registrations for one settings file into its text (undefined: the file does not exist).
 * Idempotent; keeps every byte outside our entries. `commands` gives each registration's command.
 * Throws HookConfigError when the file cannot be edited without loss.
 */
export function planSettingsInstall(existing: string | undefined, file: string, registrations: readonly HookRegistration[], command: (registration: HookRegistration) => string): SettingsPlan {
  const first = registrations[0];
  if (first === undefined) return { kind: 'unchanged' };
  let text = existing === undefined || existing.trim() === '' ? skeleton(first.layout) : existing;
  const layout = layoutOf(existing ?? '');
  parseSettings(text, file);
  if (first.layout === 'flat') {
    const root = parseSettings(text, file) as Node;
    if (member(root, 'version', file) === undefined) {
      text = applyEdits(text, [appendEdit(text, root, (indent) => `"version": ${render(1, indent, layout)}`, layout)]);
    }
  }
  // What the file is before our entries (a new file's skeleton, Cursor's `version` included): the verification compares against it.
  const base = text;
  const wanted = registrations.map((registration) => ({ registration, element: elementOf(registration, command(registration)) }));
  for (const { registration, element } of wanted) {
    if (sameJson(currentElement(text, file, registration), element)) continue;
    for (let next = removeOne(text, file, registration.event, registration, registration.hook); next !== undefined; next = removeOne(text, file, registration.event, registration, registration.hook)) {
      text = next;
    }
    text = appendOne(text, file, registration, element, layout);
  }
  if (text === existing) return { kind: 'unchanged' };
  verify(base, text, file, wanted);
  return { kind: 'write', text };
}

/**
 * Removes every entry of ours from one settings file's text, and the containers that held only them.
 * A file left holding exactly what install would have created it with is deleted.
 */
export function planSettingsRemoval(existing: string | undefined, file: string, layout: HookRegistration['layout']): SettingsPlan {
  if (existing === undefined || existing.trim() === '') return { kind: 'unchanged' };
  let text = existing;
  for (const event of eventsWithOurs(text, file)) {
    for (let next = removeOne(text, file, event, { layout: 'grouped' }, undefined); next !== undefined; next = removeOne(text, file, event, { layout: 'grouped' }, undefined)) {
      text = next;
    }
  }
  if (text === existing) return { kind: 'unchanged' };
  verify(existing, text, file, []);
  if (text.replace(/\r\n/g, '\n') === skeleton(layout)) return { kind: 'delete' };
  return { kind: 'write', text };
}

// --- git pre-commit --------------------------------------------------------------------------

export const GIT_BLOCK_BEGIN = '# >>> wave-scope commit guard >>>';
export const GIT_BLOCK_END = '# <<< wave-scope commit guard <<<';
/** The suffix of the name an existing pre-commit hook is saved under when we chain it. */
export const CHAINED_SUFFIX = '.wave-scope-chained';
const WRAPPER_MARKER = '# wave-scope: runs the commit guard, then the chained hook';
const CREATED_MARKER = '# (wave-scope created this file)';

/** What is at a hook's path. */
export type ExistingHook =
  | { readonly kind: 'absent' }
  /** A symbolic link (its target is never written through); `target`: what it points to, as bytes, when read. */
  | { readonly kind: 'link'; readonly target?: Uint8Array }
  /**
   * A regular file. `skippedByGit`: git does not run it, because it is not executable where git runs the
   * hook directly (git only prints a hint and commits); husky runs its hook file through `sh`, so never.
   * `mode`: its permission bits, when read (two hooks are the same hook only with the same mode: git runs
   * one and skips the other when only one is executable).
   */
  | { readonly kind: 'file'; readonly bytes: Uint8Array; readonly skippedByGit?: boolean; readonly mode?: number }
  /** A directory, a FIFO, a device: nothing to run or edit. */
  | { readonly kind: 'other' };

/**
 * One step of a hook plan; the caller carries them out in order. `keptAt` (a write or a removal): what the
 * step replaces or removes is a user's hook that is also kept, the same, at that path; the caller checks,
 * right before the step, that it still is, so the step never takes the last copy of it.
 */
export type HookStep =
  /** `keepMode`: write with the mode the file has now (a new file gets 0755). */
  | { readonly kind: 'write'; readonly path: string; readonly text: string; readonly keepMode: boolean; readonly keptAt?: string }
  /** Moves `from` to `to`, replacing what is at `to` in the same step (our wrapper, when a saved hook goes back). */
  | { readonly kind: 'rename'; readonly from: string; readonly to: string }
  /**
   * Makes `to` (where nothing is) hold the same hook as `from`, leaving `from` where it is: a second name for
   * the same file (a hard link: same bytes, same mode), or for a symbolic link a new one with the same target.
   */
  | { readonly kind: 'link'; readonly from: string; readonly to: string }
  | { readonly kind: 'remove'; readonly path: string; readonly keptAt?: string };

/**
 * Why a hook is left alone. `chained-exists`: a saved hook is there and the hook is neither our wrapper nor
 * the same hook, so chaining again (install) or putting the saved one back (uninstall) would overwrite one
 * of them.
 * `wrapper-edited` / `block-edited`: our wrapper, or our block in a shell hook, is no longer exactly what
 * install-hooks writes (someone changed it), so rewriting or removing it would lose those changes.
 */
export type HookRefusal = 'chained-exists' | 'not-a-file' | 'wrapper-edited' | 'block-edited';

export type HookPlan = { readonly kind: 'steps'; readonly steps: readonly HookStep[] } | { readonly kind: 'refused'; readonly reason: HookRefusal; readonly path: string };

/**
 * The bytes as text when they are UTF-8, a BOM kept as text; undefined otherwise. The decoding is strict, so
 * text it gives encodes back to the very same bytes: a lossy one would turn each invalid byte into U+FFFD,
 * and every edit would write that back.
 */
export function strictUtf8Text(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** The text of a hook that we can edit as text: UTF-8 (strictUtf8Text) without a NUL. Undefined otherwise. */
function editableText(bytes: Uint8Array): string | undefined {
  const text = strictUtf8Text(bytes);
  return text === undefined || text.includes('\0') ? undefined : text;
}

const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh']);

/**
 * Whether a hook's text is a shell script our block can be put into: no shebang (git runs it with sh), or a
 * shebang whose interpreter is a shell, by its file name (`/bin/sh`, `/usr/bin/env bash`, `env -S bash -e`),
 * not by a word anywhere on the line (`#!/opt/sh/bin/python3` is Python).
 */
function isShellScript(text: string): boolean {
  const first = text.split('\n', 1)[0] ?? '';
  if (!first.startsWith('#!')) return true;
  const words = first.slice(2).trim().split(/\s+/);
  const name = (path: string | undefined) => path?.slice(path.lastIndexOf('/') + 1);
  let interpreter = name(words[0]);
  if (interpreter === 'env') interpreter = name(words.slice(1).find((word) => !word.startsWith('-')));
  return interpreter !== undefined && SHELLS.has(interpreter);
}

/**
 * Whether a shell hook runs itself again under another interpreter: an `exec` line naming the script's own path
 * (`$0`, `${0}`), as the sh/JavaScript polyglot `":" //; exec node "$0" "$@"` does. Then the rest of the file is
 * that interpreter's, which reads the whole file from its top: our block, a shell comment, is a syntax error to
 * Node on any line but the first, so such a hook is chained, never edited.
 */
function reExecutesItself(text: string): boolean {
  return text.split('\n').some((line) => !line.trimStart().startsWith('#') && /(?:^|[\s;&|(`])exec\s[^#]*\$(?:0|\{0\})/.test(line));
}

const BLOCK_COMMENT = '# Added by "wave-scope install-hooks"; "wave-scope install-hooks --git --uninstall" removes it.';
const GUARD_SUFFIX = ' || exit 1';

function blockHead(created: boolean): string {
  return [GIT_BLOCK_BEGIN, ...(created ? [CREATED_MARKER] : []), BLOCK_COMMENT, ''].join('\n');
}

function block(command: string, created: boolean): string {
  return `${blockHead(created)}${command}${GUARD_SUFFIX}\n${GIT_BLOCK_END}`;
}

/**
 * Whether `command` is a commit-guard command as install-hooks writes it: `node <launcher> commit-guard`,
 * the launcher an absolute path to our launcher file, quoted as shellQuote quotes it. The launcher's path is
 * the one part of our block and wrapper that changes from one install to another (a moved checkout, another
 * state directory), so it is the one part allowed to differ from what this install would write.
 */
function isGuardCommand(command: string): boolean {
  const quoted = /^node ('(?:[^']|'\\'')*') commit-guard$/.exec(command)?.[1];
  if (quoted === undefined) return false;
  const launcher = quoted.slice(1, -1).replace(/'\\''/g, "'");
  return shellQuote(launcher) === quoted && launcher.startsWith('/') && launcher.endsWith(`/${LAUNCHER_FILE_NAME}`);
}

/** Our block in a hook's text: none, exactly as install-hooks writes it (where, and its command), or edited. */
type FoundBlock =
  | { readonly kind: 'none' }
  | { readonly kind: 'ours'; readonly start: number; readonly end: number; readonly created: boolean; readonly command: string }
  | { readonly kind: 'edited' };

/**
 * Finds our block. Anything but one block, byte for byte as block() writes it for some guard command (one
 * marker without the other, a line added, removed or changed inside, a second block), is `edited`: what
 * was changed there is someone's, and removing or rewriting the block would lose it.
 */
function findBlock(text: string): FoundBlock {
  const start = text.indexOf(GIT_BLOCK_BEGIN);
  if (start === -1) return text.includes(GIT_BLOCK_END) ? { kind: 'edited' } : { kind: 'none' };
  const endMarker = text.indexOf(GIT_BLOCK_END, start);
  if (endMarker === -1) return { kind: 'edited' };
  const end = endMarker + GIT_BLOCK_END.length;
  if (text.indexOf(GIT_BLOCK_END) !== endMarker || text.includes(GIT_BLOCK_BEGIN, end) || text.includes(GIT_BLOCK_END, end)) return { kind: 'edited' };
  const inner = text.slice(start, end);
  const created = inner.startsWith(`${GIT_BLOCK_BEGIN}\n${CREATED_MARKER}\n`);
  const head = blockHead(created);
  const tail = `${GUARD_SUFFIX}\n${GIT_BLOCK_END}`;
  if (!inner.startsWith(head) || !inner.endsWith(tail)) return { kind: 'edited' };
  const command = inner.slice(head.length, inner.length - tail.length);
  if (!isGuardCommand(command) || block(command, created) !== inner) return { kind: 'edited' };
  return { kind: 'ours', start, end: text[end] === '\n' ? end + 1 : end, created, command };
}

function withoutBlock(text: string, found: { readonly start: number; readonly end: number }): string {
  return text.slice(0, found.start) + text.slice(found.end);
}

/**
 * Who runs the hook file, and so how the wrapper runs the saved hook: `git` runs it itself, only when it is
 * executable; husky's generated runner runs its hook file with `sh -e`, whatever its mode (husky's hook files
 * are usually not executable).
 */
export type HookRunner = 'git' | 'husky';

function wrapperText(command: string, runner: HookRunner = 'git'): string {
  const chained = `"$(dirname "$0")/pre-commit${CHAINED_SUFFIX}"`;
  const run =
    runner === 'git'
      ? // On git's terms: a hook that is not executable (or a link to nothing) is skipped, not an error.
        [`[ -x ${chained} ] || exit 0`, `exec ${chained} "$@"`]
      : // On husky's terms (its runner `h`): a hook file that is not there is skipped; any other runs through `sh -e`.
        [`[ -f ${chained} ] || exit 0`, `exec sh -e ${chained} "$@"`];
  return ['#!/bin/sh', WRAPPER_MARKER, block(command, false), ...run, ''].join('\n');
}

/** The wrapper as install-hooks wrote it before 2026-12-05, when it ran the saved hook without asking whether git would. */
function earlierWrapperText(command: string): string {
  return ['#!/bin/sh', WRAPPER_MARKER, block(command, false), `exec "$(dirname "$0")/pre-commit${CHAINED_SUFFIX}" "$@"`, ''].join('\n');
}

/**
 * Whether a hook's text is a wrapper exactly as some install-hooks wrote it, for any launcher path. Anything
 * else carrying the wrapper's marker was changed by someone after the install.
 */
function isOurWrapper(text: string): boolean {
  const found = findBlock(text);
  if (found.kind !== 'ours' || found.created) return false;
  return text === wrapperText(found.command, 'git') || text === wrapperText(found.command, 'husky') || text === earlierWrapperText(found.command);
}

function createdText(command: string): string {
  return `#!/bin/sh\n${block(command, true)}\n`;
}

/**
 * Whether a hook file's bytes are, whole, a text install-hooks writes on its own, for any launcher path: our
 * wrapper (this version's or an earlier one's), or a hook it created. Nothing of a user's is in such a file,
 * so a copy of it left over (a temporary file of a killed install) holds nothing that would be lost.
 */
export function isWrittenWholeByInstall(bytes: Uint8Array): boolean {
  const text = editableText(bytes);
  if (text === undefined) return false;
  if (isOurWrapper(text)) return true;
  const found = findBlock(text);
  return found.kind === 'ours' && found.created && text === createdText(found.command);
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, index) => byte === b[index]);
}

/** Whether two hooks are one and the same hook: files with the same bytes and mode, or links with the same target. */
function sameHook(a: ExistingHook, b: ExistingHook): boolean {
  if (a.kind === 'file' && b.kind === 'file') return a.mode === b.mode && sameBytes(a.bytes, b.bytes);
  if (a.kind === 'link' && b.kind === 'link') return a.target !== undefined && b.target !== undefined && sameBytes(a.target, b.target);
  return false;
}

/** Whether a hook holds nothing install-hooks writes: no wrapper, no block (a binary or a link holds none). */
function holdsNothingOfOurs(hook: ExistingHook): boolean {
  if (hook.kind === 'link') return true;
  if (hook.kind !== 'file') return false;
  const text = editableText(hook.bytes);
  return text === undefined || (!text.includes(WRAPPER_MARKER) && findBlock(text).kind === 'none');
}

/**
 * Whether `saved` is the copy of `hook` that chaining makes first: an install cut short before its wrapper
 * replaced the hook leaves both, one and the same hook (see planPreCommitInstall).
 */
function isUnfinishedChain(hook: ExistingHook, saved: ExistingHook): boolean {
  return saved.kind !== 'absent' && sameHook(hook, saved) && holdsNothingOfOurs(hook);
}

/**
 * Installs the guard into the pre-commit hook at `path`. A shell hook (or a husky hook, which has no
 * shebang) gets our block right after its shebang line, so the guard runs first and the rest of the
 * hook still runs after it. Anything we cannot edit as text byte for byte (a binary, a script in
 * another language, a shell script that execs itself in another one), must not write through (a
 * symbolic link) or that git skips (not executable: our block in it would never run, and making it
 * executable would start the hook its owner switched off) is chained: saved, link and all, as `pre-commit.wave-scope-chained`, and a small shell wrapper runs the
 * guard, then execs it when it is executable, as git would have (in husky's layout, `runner` `husky`: through
 * `sh -e` whenever it is there, as husky's runner would have).
 *
 * Chaining never leaves a moment without a pre-commit hook that runs the user's: first the hook is saved
 * without being moved (a second name for the same file, `link`), then the wrapper, written in full
 * elsewhere, replaces the hook in one rename (`write`, which also requires the saved copy to be there still).
 * An install cut short between the two leaves the hook in place and the same hook saved beside it: the
 * next install recognises that as its own unfinished chain and writes the wrapper (never a conflict), and
 * an uninstall removes the extra copy. A saved hook that is not the same as the hook is never overwritten:
 * when one exists and the hook is no longer our wrapper, the plan is refused. Our wrapper or block is
 * rewritten only when it is exactly what an install wrote (for any launcher path); one changed since is
 * refused, so the changes are never lost.
 */
export function planPreCommitInstall(path: string, existing: ExistingHook, chained: ExistingHook, command: string, runner: HookRunner = 'git'): HookPlan {
  const chainedPath = `${path}${CHAINED_SUFFIX}`;
  const wrapperOverHook: HookStep = { kind: 'write', path, text: wrapperText(command, runner), keepMode: false, keptAt: chainedPath };
  const chain = (): HookPlan =>
    chained.kind !== 'absent' ? { kind: 'refused', reason: 'chained-exists', path: chainedPath } : { kind: 'steps', steps: [{ kind: 'link', from: path, to: chainedPath }, wrapperOverHook] };
  if (existing.kind === 'other') return { kind: 'refused', reason: 'not-a-file', path };
  if (existing.kind === 'absent') {
    // A saved hook with none in its place: an install by an earlier version cut short between its two steps
    // (the hook renamed aside, the wrapper not yet written), or a wrapper someone deleted. The wrapper is
    // written again over nothing, chaining the saved hook: the install finished, nothing replaced.
    if (chained.kind !== 'absent') return { kind: 'steps', steps: [{ kind: 'write', path, text: wrapperText(command, runner), keepMode: false }] };
    return { kind: 'steps', steps: [{ kind: 'write', path, text: createdText(command), keepMode: false }] };
  }
  // The hook and the same hook saved beside it: a chain cut short after its first step. Finished: the
  // wrapper replaces the hook, which the saved copy keeps (checked again right before the rename).
  if (isUnfinishedChain(existing, chained)) return { kind: 'steps', steps: [wrapperOverHook] };
  if (existing.kind === 'link') return chain();
  const text = editableText(existing.bytes);
  if (text === undefined) return chain();
  if (text.includes(WRAPPER_MARKER)) {
    if (!isOurWrapper(text)) return { kind: 'refused', reason: 'wrapper-edited', path };
    if (chained.kind === 'absent') return { kind: 'steps', steps: [{ kind: 'write', path, text: createdText(command), keepMode: true }] };
    // A wrapper written for the other runner (husky's layout set up, or left, since) is rewritten for this one.
    const wrapper = wrapperText(command, runner);
    return { kind: 'steps', steps: text === wrapper ? [] : [{ kind: 'write', path, text: wrapper, keepMode: true }] };
  }
  if (chained.kind !== 'absent') return { kind: 'refused', reason: 'chained-exists', path: chainedPath };
  const found = findBlock(text);
  if (found.kind === 'edited') return { kind: 'refused', reason: 'block-edited', path };
  if (existing.skippedByGit === true && found.kind === 'none') return chain();
  if (text.trim() === '') return { kind: 'steps', steps: [{ kind: 'write', path, text: createdText(command), keepMode: true }] };
  if (!isShellScript(text) || (found.kind === 'none' && reExecutesItself(text))) return chain();
  const created = found.kind === 'ours' && found.created;
  const rest = found.kind === 'ours' ? withoutBlock(text, found) : text;
  let next: string;
  if (rest.startsWith('#!')) {
    const cut = rest.indexOf('\n');
    const shebang = cut === -1 ? rest : rest.slice(0, cut);
    const after = cut === -1 ? '' : rest.slice(cut + 1);
    next = `${shebang}\n${block(command, created)}\n${after}`;
  } else next = `${block(command, created)}\n${rest}`;
  return { kind: 'steps', steps: next === text ? [] : [{ kind: 'write', path, text: next, keepMode: true }] };
}

/**
 * Removes the guard from the pre-commit hook at `path`, leaving everything else as it was, and puts a saved
 * hook back. Only what install-hooks wrote, exactly, is removed: a wrapper or block changed since is refused
 * (`wrapper-edited`, `block-edited`). A saved hook goes back only where nothing else would be overwritten:
 * in place of our wrapper, or where the hook is gone (someone deleted the wrapper); in place of anything
 * else the plan is refused (`chained-exists`), as install refuses to chain over it. In place of our wrapper
 * it is one step, the saved hook renamed over the wrapper (a rename replaces its target atomically), so no
 * moment, a crash included, leaves the repository without a pre-commit hook. A hook with the same hook
 * saved beside it (an install cut short before its wrapper replaced the hook) was never chained: the saved
 * copy is removed, the hook left as it is (and checked to be the same hook right before the removal).
 */
export function planPreCommitRemoval(path: string, existing: ExistingHook, chained: ExistingHook): HookPlan {
  const chainedPath = `${path}${CHAINED_SUFFIX}`;
  const saved = chained.kind !== 'absent';
  const putBack: HookStep[] = saved ? [{ kind: 'rename', from: chainedPath, to: path }] : [];
  if (existing.kind === 'absent') return { kind: 'steps', steps: putBack };
  if (isUnfinishedChain(existing, chained)) return { kind: 'steps', steps: [{ kind: 'remove', path: chainedPath, keptAt: path }] };
  const text = existing.kind === 'file' ? editableText(existing.bytes) : undefined;
  if (text !== undefined && text.includes(WRAPPER_MARKER)) {
    if (!isOurWrapper(text)) return { kind: 'refused', reason: 'wrapper-edited', path };
    return { kind: 'steps', steps: saved ? putBack : [{ kind: 'remove', path }] };
  }
  if (saved) return { kind: 'refused', reason: 'chained-exists', path: chainedPath };
  if (text === undefined) return { kind: 'steps', steps: [] };
  const found = findBlock(text);
  if (found.kind === 'edited') return { kind: 'refused', reason: 'block-edited', path };
  if (found.kind === 'none') return { kind: 'steps', steps: [] };
  const stripped = withoutBlock(text, found);
  const rest = stripped.replace(/^#!.*\n?/, '').trim();
  if (found.created && rest === '') return { kind: 'steps', steps: [{ kind: 'remove', path }] };
  return { kind: 'steps', steps: [{ kind: 'write', path, text: stripped, keepMode: true }] };
}

/** Where a repository's pre-commit hook lives, and who runs it: the one answer install-hooks and doctor both act on. */
export interface PreCommitHook {
  /** The file that holds the user's hook, the one the guard is installed into. */
  readonly file: string;
  /** The file git itself runs: `file`, or husky's generated runner, which runs `file` in turn. */
  readonly gitRuns: string;
  /** Who runs `file`: git (only when it is executable), or husky's runner (through `sh -e`, whatever its mode). */
  readonly runner: HookRunner;
}

/**
 * The pre-commit hook of a hooks directory (absolute, as `git rev-parse --git-path hooks` says). husky v9
 * sets `core.hooksPath` to `.husky/_`, whose `pre-commit` it generates in each checkout (and overwrites)
 * to run the user's `.husky/pre-commit`; so that file is the one we edit, and husky's runner runs it.
 * Older husky versions set `.husky` itself, whose `pre-commit` git runs directly, like any other hooks
 * directory's.
 */
export function preCommitHook(hooksDir: string): PreCommitHook {
  const clean = hooksDir.replace(/\/+$/, '');
  const gitRuns = `${clean}/pre-commit`;
  if (/(^|\/)\.husky\/_$/.test(clean)) return { file: `${clean.slice(0, -2)}/pre-commit`, gitRuns, runner: 'husky' };
  return { file: gitRuns, gitRuns, runner: 'git' };
}
