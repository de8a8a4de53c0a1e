// Merging Wave Scope's hooks into the configuration files of the agent CLIs and git, and taking them
// out again. Pure text and JSON transforms: the caller reads the files, writes what comes back
// (atomically) and owns every decision about paths. Our entries are recognised by the launcher's file
// name inside their command, so a merge never touches another tool's hook and an uninstall removes
// exactly what an install added.

import { LAUNCHER_FILE_NAME, MANIFEST_FILE_NAME, STATE_DIR_NAMES } from '../plan/stateDirNames';

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A settings document that is not a JSON object cannot be merged into without losing something. */
export class HookConfigError extends Error {
  constructor(
    readonly reason: 'not-an-object' | 'hooks-not-an-object' | 'event-not-an-array',
    message: string,
  ) {
    super(message);
    this.name = 'HookConfigError';
  }
}

/** Whether a hook command is one of ours. */
export function isOurCommand(command: unknown): boolean {
  return typeof command === 'string' && command.includes(LAUNCHER_FILE_NAME);
}

function hooksObject(doc: JsonObject, create: boolean): JsonObject | undefined {
  const hooks = doc.hooks;
  if (hooks === undefined) {
    if (!create) return undefined;
    const fresh: JsonObject = {};
    doc.hooks = fresh;
    return fresh;
  }
  if (!isObject(hooks)) throw new HookConfigError('hooks-not-an-object', '"hooks" is not a JSON object.');
  return hooks;
}

function eventList(hooks: JsonObject, event: string): unknown[] | undefined {
  const list = hooks[event];
  if (list === undefined) return undefined;
  if (!Array.isArray(list)) throw new HookConfigError('event-not-an-array', `"hooks.${event}" is not an array.`);
  return list;
}

function copyDocument(doc: unknown): JsonObject {
  if (doc === undefined) return {};
  if (!isObject(doc)) throw new HookConfigError('not-an-object', 'The settings document is not a JSON object.');
  return structuredClone(doc);
}

/** Drops empty containers we emptied (never ones that were already empty). */
function pruneEvent(doc: JsonObject, hooks: JsonObject, event: string, kept: unknown[], removedAny: boolean): void {
  if (!removedAny) return;
  if (kept.length > 0) hooks[event] = kept;
  else delete hooks[event];
  if (Object.keys(hooks).length === 0) delete doc.hooks;
}

/**
 * Claude Code / Codex / Gemini CLI layout: `hooks.<Event>` is a list of `{matcher, hooks: [{type,
 * command}]}` groups. Removes our commands from every group of `event`, and groups left empty by that.
 */
function removeGrouped(doc: JsonObject, event: string): boolean {
  const hooks = hooksObject(doc, false);
  if (hooks === undefined) return false;
  const list = eventList(hooks, event);
  if (list === undefined) return false;
  let removedAny = false;
  const kept: unknown[] = [];
  for (const group of list) {
    if (!isObject(group) || !Array.isArray(group.hooks)) {
      kept.push(group);
      continue;
    }
    const remaining = group.hooks.filter((hook) => !(isObject(hook) && isOurCommand(hook.command)));
    if (remaining.length === group.hooks.length) {
      kept.push(group);
      continue;
    }
    removedAny = true;
    if (remaining.length > 0) kept.push({ ...group, hooks: remaining });
  }
  pruneEvent(doc, hooks, event, kept, removedAny);
  return removedAny;
}

/** Cursor layout: `{version: 1, hooks: {<event>: [{command, matcher?}]}}`. */
function removeFlat(doc: JsonObject, event: string): boolean {
  const hooks = hooksObject(doc, false);
  if (hooks === undefined) return false;
  const list = eventList(hooks, event);
  if (list === undefined) return false;
  const kept = list.filter((hook) => !(isObject(hook) && isOurCommand(hook.command)));
  const removedAny = kept.length !== list.length;
  pruneEvent(doc, hooks, event, kept, removedAny);
  return removedAny;
}

/** One agent CLI's configuration file and how our entry goes into it. */
export interface AgentHookTarget {
  /** `claude`, `codex`, `cursor`, `gemini`. */
  readonly agentCli: 'claude' | 'codex' | 'cursor' | 'gemini';
  /** Path of the configuration file relative to the repository root. */
  readonly configFile: string;
  readonly event: string;
  readonly matcher: string;
  readonly layout: 'grouped' | 'flat';
}

/** Where each agent CLI reads project hooks and which tools we guard (docs/hooks.md cites the sources). */
export const AGENT_HOOK_TARGETS: readonly AgentHookTarget[] = [
  { agentCli: 'claude', configFile: '.claude/settings.json', event: 'PreToolUse', matcher: 'Edit|Write|MultiEdit|NotebookEdit', layout: 'grouped' },
  { agentCli: 'codex', configFile: '.codex/hooks.json', event: 'PreToolUse', matcher: 'apply_patch|Edit|Write', layout: 'grouped' },
  { agentCli: 'cursor', configFile: '.cursor/hooks.json', event: 'preToolUse', matcher: 'Write|Edit|MultiEdit|NotebookEdit|StrReplace|Delete', layout: 'flat' },
  { agentCli: 'gemini', configFile: '.gemini/settings.json', event: 'BeforeTool', matcher: 'write_file|replace', layout: 'grouped' },
];

/** Adds (or refreshes) our hook in one agent CLI's settings document. Idempotent; keeps every other key and hook. */
export function mergeAgentHook(doc: unknown, target: AgentHookTarget, command: string): JsonObject {
  const next = copyDocument(doc);
  if (target.layout === 'grouped') {
    removeGrouped(next, target.event);
    const hooks = hooksObject(next, true) as JsonObject;
    const list = eventList(hooks, target.event) ?? [];
    hooks[target.event] = [...list, { matcher: target.matcher, hooks: [{ type: 'command', command }] }];
  } else {
    removeFlat(next, target.event);
    if (next.version === undefined) next.version = 1;
    const hooks = hooksObject(next, true) as JsonObject;
    const list = eventList(hooks, target.event) ?? [];
    hooks[target.event] = [...list, { command, matcher: target.matcher }];
  }
  return next;
}

/** Removes only our hook from one agent CLI's settings document. */
export function removeAgentHook(doc: unknown, target: AgentHookTarget): { doc: JsonObject; removed: boolean } {
  const next = copyDocument(doc);
  const removed = target.layout === 'grouped' ? removeGrouped(next, target.event) : removeFlat(next, target.event);
  return { doc: next, removed };
}

/** The text a settings document is written as: two-space JSON and a final newline. */
export function formatSettings(doc: JsonObject): string {
  return `${JSON.stringify(doc, null, 2)}\n`;
}

// --- git pre-commit --------------------------------------------------------------------------

export const GIT_BLOCK_BEGIN = '# >>> wave-scope commit guard >>>';
export const GIT_BLOCK_END = '# <<< wave-scope commit guard <<<';
/** The suffix an existing non-shell pre-commit hook is renamed to when we chain it. */
export const CHAINED_SUFFIX = '.wave-scope-chained';
const WRAPPER_MARKER = '# wave-scope: runs the commit guard, then the chained hook';
const CREATED_MARKER = '# (wave-scope created this file)';

function isShellScript(text: string): boolean {
  const first = text.split('\n', 1)[0] ?? '';
  if (!first.startsWith('#!')) return true;
  return /\b(sh|bash|dash|zsh|ksh)\b/.test(first);
}

function block(command: string, created: boolean): string {
  return [
    GIT_BLOCK_BEGIN,
    ...(created ? [CREATED_MARKER] : []),
    '# Added by "wave-scope install-hooks"; "wave-scope install-hooks --git --uninstall" removes it.',
    `${command} || exit 1`,
    GIT_BLOCK_END,
  ].join('\n');
}

function stripBlock(text: string): { text: string; found: boolean; created: boolean } {
  const start = text.indexOf(GIT_BLOCK_BEGIN);
  if (start === -1) return { text, found: false, created: false };
  const endMarker = text.indexOf(GIT_BLOCK_END, start);
  if (endMarker === -1) return { text, found: false, created: false };
  let end = endMarker + GIT_BLOCK_END.length;
  if (text[end] === '\n') end += 1;
  const created = text.slice(start, end).includes(CREATED_MARKER);
  return { text: text.slice(0, start) + text.slice(end), found: true, created };
}

/** What to do with the pre-commit hook file. */
export type PreCommitPlan =
  | { readonly kind: 'write'; readonly text: string }
  | {
      /** The existing hook is not a shell script: rename it to `<name>.wave-scope-chained`, write `text` in its place. */
      readonly kind: 'chain';
      readonly text: string;
    };

/**
 * Installs the guard into the text of a pre-commit hook (undefined: no hook yet). A shell hook (or a
 * husky hook, which has no shebang) gets our block right after its shebang line, so the guard runs
 * first and the rest of the hook still runs after it. Any other hook is chained: it is renamed and a
 * small shell wrapper runs the guard, then execs it with the same arguments.
 */
export function planPreCommitInstall(existing: string | undefined, command: string): PreCommitPlan {
  if (existing === undefined || existing.trim() === '') {
    return { kind: 'write', text: `#!/bin/sh\n${block(command, true)}\n` };
  }
  if (existing.includes(WRAPPER_MARKER)) {
    return { kind: 'write', text: wrapperText(command) };
  }
  if (!isShellScript(existing)) return { kind: 'chain', text: wrapperText(command) };
  const stripped = stripBlock(existing);
  const created = stripped.found && stripped.created;
  const text = stripped.text;
  if (text.startsWith('#!')) {
    const cut = text.indexOf('\n');
    const shebang = cut === -1 ? text : text.slice(0, cut);
    const rest = cut === -1 ? '' : text.slice(cut + 1);
    return { kind: 'write', text: `${shebang}\n${block(command, created)}\n${rest}` };
  }
  return { kind: 'write', text: `${block(command, created)}\n${text}` };
}

function wrapperText(command: string): string {
  return [
    '#!/bin/sh',
    WRAPPER_MARKER,
    block(command, false),
    `exec "$(dirname "$0")/pre-commit${CHAINED_SUFFIX}" "$@"`,
    '',
  ].join('\n');
}

/** What uninstalling leaves of a pre-commit hook. */
export type PreCommitRemoval =
  | { readonly kind: 'unchanged' }
  | { readonly kind: 'write'; readonly text: string }
  | { readonly kind: 'delete' }
  | {
      /** Our wrapper: delete it and rename `pre-commit.wave-scope-chained` back. */
      readonly kind: 'restore-chained';
    };

/** Removes the guard from a pre-commit hook's text, leaving everything else as it was. */
export function planPreCommitRemoval(existing: string | undefined): PreCommitRemoval {
  if (existing === undefined) return { kind: 'unchanged' };
  if (existing.includes(WRAPPER_MARKER)) return { kind: 'restore-chained' };
  const stripped = stripBlock(existing);
  if (!stripped.found) return { kind: 'unchanged' };
  const rest = stripped.text.replace(/^#!.*\n?/, '').trim();
  if (stripped.created && rest === '') return { kind: 'delete' };
  return { kind: 'write', text: stripped.text };
}

/**
 * Which file holds the repository's pre-commit hook, given `core.hooksPath` (relative to the
 * top level, or absolute) and the common git directory. husky (v9 sets `core.hooksPath` to
 * `.husky/_`, older versions to `.husky`) keeps the user's hook in `.husky/pre-commit`; its `_`
 * directory is generated and overwritten, so we edit the user's file.
 */
export function preCommitHookPath(options: { topLevel: string; commonDir: string; hooksPath?: string }): string {
  const hooksPath = options.hooksPath?.trim();
  if (hooksPath === undefined || hooksPath === '') return `${options.commonDir}/hooks/pre-commit`;
  const absolute = hooksPath.startsWith('/') ? hooksPath : `${options.topLevel}/${hooksPath}`;
  const clean = absolute.replace(/\/+$/, '');
  if (/(^|\/)\.husky\/_$/.test(clean)) return `${clean.slice(0, -2)}/pre-commit`;
  return `${clean}/pre-commit`;
}

/**
 * The launcher script written under the state directory. It finds the Wave Scope CLI at run time
 * (an explicit `WAVE_SCOPE_CLI`, the path recorded at install time, an installed `wave-scope`
 * package, or the newest Wave Scope extension of VS Code, Cursor or VS Code Server), so the hooks keep
 * working after the extension upgrades into a new directory. It prefers the lean `hook.js` beside
 * the CLI and loads it in-process (no second Node start). When nothing is found it fails closed.
 */
export function launcherSource(recordedCliPaths: readonly string[]): string {
  return `#!/usr/bin/env node
// Wave Scope hook launcher, written by "wave-scope install-hooks" (docs/hooks.md). Do not edit:
// "wave-scope install-hooks" rewrites it, "wave-scope install-hooks --uninstall" removes it.
'use strict';
const fs = require('fs');
const path = require('path');
const os = require('os');
const recorded = ${JSON.stringify(recordedCliPaths)};
const args = process.argv.slice(2);

function extensionClis() {
  const found = [];
  const home = os.homedir();
  for (const root of ['.vscode/extensions', '.vscode-server/extensions', '.vscode-insiders/extensions', '.cursor/extensions']) {
    let names = [];
    try { names = fs.readdirSync(path.join(home, root)); } catch { continue; }
    for (const name of names) {
      const match = /^wave-scope\\.wave-scope-(\\d+)\\.(\\d+)\\.(\\d+)/.exec(name);
      if (match) found.push({ version: match.slice(1).map(Number), cli: path.join(home, root, name, 'dist', 'cli.js') });
    }
  }
  found.sort((a, b) => b.version[0] - a.version[0] || b.version[1] - a.version[1] || b.version[2] - a.version[2]);
  return found.map((entry) => entry.cli);
}

function* candidates() {
  if (process.env.WAVE_SCOPE_CLI) yield process.env.WAVE_SCOPE_CLI;
  yield* recorded;
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    yield path.join(dir, 'node_modules', 'wave-scope', 'dist', 'cli.js');
    if (path.dirname(dir) === dir) break;
  }
  yield* extensionClis();
}

// The launcher lives in <repository>/<state-dir>/; without any manifest there no wave is active.
function waveActive() {
  const root = path.dirname(__dirname);
  return ${JSON.stringify(STATE_DIR_NAMES)}.some((dir) => fs.existsSync(path.join(root, dir, ${JSON.stringify(MANIFEST_FILE_NAME)})));
}

function failClosed(detail) {
  if (args[0] === 'enforce-write' && !waveActive()) {
    if (args.includes('cursor')) process.stdout.write(JSON.stringify({ permission: 'allow' }) + '\\n');
    else if (args.includes('gemini')) process.stdout.write(JSON.stringify({ decision: 'allow' }) + '\\n');
    return;
  }
  const reason = 'Wave Scope blocked this call: its hook launcher cannot find the wave-scope CLI (' + detail + '). Run "wave-scope install-hooks" again, or set WAVE_SCOPE_CLI to dist/cli.js.';
  if (args[0] !== 'enforce-write') {
    process.stderr.write(reason + '\\n');
    process.exit(1);
  }
  const cli = args[args.indexOf('--agent-cli') + 1];
  let reply;
  if (cli === 'cursor') reply = { permission: 'deny', user_message: reason, agent_message: reason };
  else if (cli === 'gemini') reply = { decision: 'deny', reason };
  else reply = { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: reason } };
  process.stdout.write(JSON.stringify(reply) + '\\n');
}

let started = false;
for (const cli of candidates()) {
  const lean = path.join(path.dirname(cli), 'hook.js');
  if (fs.existsSync(lean)) {
    started = true;
    try {
      require(lean).runHookMain(args);
    } catch (error) {
      failClosed('loading ' + lean + ' failed: ' + (error && error.message));
    }
    break;
  }
  if (fs.existsSync(cli)) {
    started = true;
    const run = require('child_process').spawnSync(process.execPath, [cli, 'hook', ...args], { stdio: 'inherit' });
    process.exitCode = run.status === null ? 2 : run.status;
    break;
  }
}
if (!started) failClosed('looked in WAVE_SCOPE_CLI, ' + (recorded.join(', ') || 'no recorded path') + ', node_modules/wave-scope and the editor extension folders');
`;
}
