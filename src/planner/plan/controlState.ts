// The catalogue of control state: every path a dispatched agent must never own or write, because
// writing it declares the wave, switches its enforcement off, or changes what agents run or are
// told. The one home of that list: the declaration writer and the manifest validator refuse entries
// that can name one of these paths, and the write gate denies writes to them.
//
// The entries are scope entries of our grammar, so the scope algebra answers "can this entry name
// control state?" exactly, for globs too (`{.claude,src}/x`, `.clau[d]e/x`, `.claude*/x`), instead of
// a test on how the entry is spelled.
import { expandBraces } from '../scope/braceExpansion';
import { compiledEntry, covers, intersects } from '../scope/scopeAlgebra';
import { foldCase, normalizeScopeEntry } from '../scope/scopeEntry';
import { FILESCOPES_DIR_NAME, LAUNCHER_FILE_NAME, MANIFEST_FILE_NAME, ORCHESTRATOR_DIR_NAME, SESSION_FILE_NAME, STATE_DIR_NAMES } from './stateDirNames';

/** What a piece of control state does. */
export type ControlStateKind =
  /** A state directory's `wave-scope.json`. */
  | 'manifest'
  /** A state directory's `filescopes/`: the wave's declarations. */
  | 'declarations'
  /** A state directory's hook launcher (`wave-scope-hook.cjs`). */
  | 'hook-launcher'
  /** A state directory's session record (`wave-scope-session.json`): the session start the commit guard trusts. */
  | 'session'
  /** An agent CLI's hook settings: writing one can unregister the gate. */
  | 'hook-settings'
  /** git's own directory and the hooks it runs. */
  | 'git'
  /** Files that change what agents run or are told (instructions, subagents, commands, MCP servers). */
  | 'agent-instructions'
  /**
   * `.orchestrator/`: the dispatch ledgers, the backstop's baselines and turn records, the events. An
   * agent that could rewrite its baseline or its ledger record could hide a change or rebind itself;
   * the hooks that write it run as the agent CLI's hooks, never through the gate.
   */
  | 'orchestration'
  /** The state directory a wave is being written to, as a whole. */
  | 'state-dir';

/** One piece of control state. */
export interface ControlStateEntry {
  /** A normalised scope entry, relative to the repository root (`/`-separated). */
  readonly entry: string;
  readonly kind: ControlStateKind;
}

/** The agent CLIs' hook settings, relative to the repository root. */
export const HOOK_SETTINGS_FILES: readonly string[] = [
  '.claude/settings.json',
  '.claude/settings.local.json',
  '.codex/hooks.json',
  '.codex/config.toml',
  '.cursor/hooks.json',
  '.gemini/settings.json',
];

/** Directories (relative to the repository root) whose files change what agents run or are told. */
const AGENT_INSTRUCTION_DIRS = ['.claude/hooks', '.claude/agents', '.claude/commands', '.claude/skills', '.cursor/rules'];

/**
 * Files (relative to the repository root) that change what agents run or are told. Codex reads
 * `AGENTS.override.md` in place of `AGENTS.md` when both are there (codex-rs `project_doc.rs`); Claude Code
 * reads its project memory from `CLAUDE.md` or `.claude/CLAUDE.md`, and `CLAUDE.local.md` beside them.
 */
const AGENT_INSTRUCTION_FILES = ['.mcp.json', 'AGENTS.md', 'AGENTS.override.md', 'CLAUDE.md', 'CLAUDE.local.md', '.claude/CLAUDE.md', 'GEMINI.md'];

/** A directory is control state as a name (replaced by a file or a link) and with everything beneath it. */
function directory(path: string, kind: ControlStateKind): ControlStateEntry[] {
  return [
    { entry: path, kind },
    { entry: `${path}/`, kind },
  ];
}

function stateDirFiles(prefix: string): ControlStateEntry[] {
  return STATE_DIR_NAMES.flatMap((name) => [
    { entry: `${prefix}${name}/${MANIFEST_FILE_NAME}`, kind: 'manifest' as const },
    ...directory(`${prefix}${name}/${FILESCOPES_DIR_NAME}`, 'declarations'),
    { entry: `${prefix}${name}/${LAUNCHER_FILE_NAME}`, kind: 'hook-launcher' as const },
    { entry: `${prefix}${name}/${SESSION_FILE_NAME}`, kind: 'session' as const },
  ]);
}

/** Everything at the repository root a dispatched agent must never own or write. */
export const CONTROL_STATE: readonly ControlStateEntry[] = [
  ...stateDirFiles(''),
  ...HOOK_SETTINGS_FILES.map((entry) => ({ entry, kind: 'hook-settings' as const })),
  ...directory('.git', 'git'),
  ...directory('.husky', 'git'),
  ...directory(ORCHESTRATOR_DIR_NAME, 'orchestration'),
  ...AGENT_INSTRUCTION_DIRS.flatMap((path) => directory(path, 'agent-instructions')),
  ...AGENT_INSTRUCTION_FILES.map((entry) => ({ entry, kind: 'agent-instructions' as const })),
];

/**
 * The control files that count at any depth (a nested checkout's `.git`, a manifest or hook settings
 * planted in a subdirectory): for the write gate, which judges concrete paths. A scope entry is never
 * checked against these (`src/a/` can name `src/a/.git/HEAD`; the gate denies that write).
 */
export const NESTED_CONTROL_STATE: readonly ControlStateEntry[] = [
  ...directory('**/.git', 'git'),
  ...directory(`**/${ORCHESTRATOR_DIR_NAME}`, 'orchestration'),
  ...stateDirFiles('**/'),
  ...HOOK_SETTINGS_FILES.map((entry) => ({ entry: `**/${entry}`, kind: 'hook-settings' as const })),
];

/** The state directory a wave is written to (repository-relative, `/`-separated), as a whole: no agent owns any of it. */
export function stateDirControlState(stateDir: string): ControlStateEntry[] {
  return directory(stateDir.replace(/\/+$/, ''), 'state-dir');
}

export interface ControlCheckOptions {
  /** Fold case (a case-insensitive file system). */
  readonly ignoreCase?: boolean;
  /** The state directory being written to, relative to the repository root (`.claude`): all of it is control state. */
  readonly stateDir?: string;
}

/** An entry that can name control state, with the control entry and one path both name. */
export interface ControlOverlap {
  readonly control: ControlStateEntry;
  readonly witness: string;
}

/** The control entries that apply: the catalogue, and the state directory being written to. */
function controlEntries(options: ControlCheckOptions): readonly ControlStateEntry[] {
  return options.stateDir === undefined || options.stateDir === '' ? CONTROL_STATE : [...CONTROL_STATE, ...stateDirControlState(options.stateDir)];
}

const GLOB_OR_SPECIAL = /[*?[\]{}\\]/;
const DOT_DOT_SEGMENT = /(?:^|\/)\.\.(?:\/|$)/;

const firstSegmentSets = new Map<string, Set<string>>();

/** The first segment of every control entry (folded), for a check that costs one lookup for most entries. */
function firstSegments(stateDir: string): Set<string> {
  let segments = firstSegmentSets.get(stateDir);
  if (segments === undefined) {
    segments = new Set(CONTROL_STATE.map((control) => foldCase(control.entry.split('/')[0] ?? '')));
    if (stateDir !== '') segments.add(foldCase(stateDir.split('/')[0] ?? ''));
    if (firstSegmentSets.size > 64) firstSegmentSets.clear();
    firstSegmentSets.set(stateDir, segments);
  }
  return segments;
}

/**
 * Whether an entry's paths all start with a literal first segment that no control entry starts with:
 * then it cannot name control state, and nothing needs normalising or compiling (the write gate's
 * manifest check runs this for every grant on every call). Valid for a raw spelling too: an entry
 * whose first segment is ordinary and that has no `..` segment keeps that first segment when it is
 * normalised.
 */
function surelyOutside(spelling: string, options: ControlCheckOptions): boolean {
  const cut = spelling.indexOf('/');
  const first = cut === -1 ? spelling : spelling.slice(0, cut);
  if (first === '' || first === '.' || GLOB_OR_SPECIAL.test(first) || DOT_DOT_SEGMENT.test(spelling)) return false;
  return !firstSegments(options.stateDir ?? '').has(foldCase(first));
}

// Whether a path of this (normalised, brace-free) alternative can begin with a character its spelling
// does not write: `*`, `**`, `?` or a negated class first. A wildcard never stands for the first
// character of a path here, so repository-wide globs (`**`, `*.md`, `**/*.test.ts`) do not count as
// claiming `.git/` or `AGENTS.md`: an agent that owns `**` still never writes those (the write gate
// denies every control path to every dispatched agent), and refusing such globs would refuse most
// real scopes. Every entry that spells the start of a control path (`.clau[d]e/x`, `.claude*`, `.git/`,
// `{.claude,src}/x`) is judged by the algebra.
function startsWithWildcard(alternative: string): boolean {
  return alternative.startsWith('*') || alternative.startsWith('?') || /^\[[!^][^\]]*\]/.test(alternative);
}

/**
 * Whether a normalised scope entry can name control state (CONTROL_STATE, and the whole state
 * directory being written to when `stateDir` is given), decided by the scope algebra, with the
 * control entry and a path both name. See `startsWithWildcard` for the one thing it deliberately
 * does not count. Takes a raw or normalised spelling; throws ScopeEntryError for an entry the grammar
 * refuses (unless its first segment alone shows it names no control state).
 */
export function findControlOverlap(entry: string, options: ControlCheckOptions = {}): ControlOverlap | undefined {
  if (surelyOutside(entry, options)) return undefined;
  const spelling = normalizeScopeEntry(entry);
  const ignoreCase = options.ignoreCase ?? false;
  const controls = controlEntries(options);
  // The alternatives one by one: `{**,.git}/x` claims `.git/x` through its second alternative only.
  const alternatives = spelling.includes('{') ? expandBraces(spelling) : [spelling];
  for (const raw of alternatives) {
    let alternative: string;
    try {
      alternative = normalizeScopeEntry(raw);
    } catch {
      continue;
    }
    if (startsWithWildcard(alternative)) continue;
    for (const control of controls) {
      const meet = intersects(alternative, control.entry, { ignoreCase });
      if (meet.overlaps) return { control, witness: meet.witness };
    }
  }
  return undefined;
}

/** Whether every path the (normalised) entry names lies inside the state directory `stateDir` (repository-relative). */
export function liesInsideStateDir(entry: string, stateDir: string, options: { ignoreCase?: boolean } = {}): boolean {
  return covers(stateDirControlState(stateDir).map((control) => control.entry), entry, options).covered;
}

/**
 * The control entry a concrete repository-relative path (normalised, `/`-separated) falls under,
 * at the root or at any depth, or undefined. For the write gate.
 */
export function controlStateOf(path: string, options: ControlCheckOptions = {}): ControlStateEntry | undefined {
  const ignoreCase = options.ignoreCase ?? false;
  return [...controlEntries(options), ...NESTED_CONTROL_STATE].find((control) => compiledEntry(control.entry, ignoreCase).matches(path));
}

/** A control entry's kind, as the end of a sentence ("…, which is control state (git's own files and hooks)"). */
export function describeControlState(control: ControlStateEntry): string {
  switch (control.kind) {
    case 'manifest':
      return 'a wave manifest';
    case 'declarations':
      return `a wave's declarations (${FILESCOPES_DIR_NAME}/)`;
    case 'hook-launcher':
      return 'the hook launcher';
    case 'session':
      return "the session record the commit guard trusts";
    case 'hook-settings':
      return "an agent CLI's hook settings";
    case 'git':
      return "git's own files and hooks";
    case 'agent-instructions':
      return 'a file that changes what agents run or are told';
    case 'orchestration':
      return `the orchestration records (${ORCHESTRATOR_DIR_NAME}/: dispatch ledgers, the backstop's baselines and turn records, events)`;
    case 'state-dir':
      return `the state directory ${JSON.stringify(`${control.entry.replace(/\/$/, '')}/`)}, which holds the wave's own declarations and manifest`;
  }
}
