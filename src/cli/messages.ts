// Every sentence the `wave-scope` command says to a person lives here, so wording stays consistent
// and tests can name the message they expect. One convention throughout: an entry is the text
// alone, with no `ERROR:`/`WARNING:` prefix and no final newline; `reportError`, `reportWarning`,
// `reportNote` and `printLine` (cliIo.ts) add those when they print it. Usage texts are blocks of
// several lines, printed with printLine like any other entry. Each command has its own section; a
// new command puts its section at the end.
//
// The hook sections also hold the reasons a hook gives an agent CLI: those travel inside the CLI's
// JSON reply, never as lines of their own.
import { DEFAULT_STATE_DIR_NAME, STATE_DIR_NAMES } from '../planner/plan/stateDirNames';

/** What an entry may be: a sentence, or a function of its details that returns one. */
type Catalogue = Record<string, string | ((...details: never[]) => string)>;

function describeError(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

// --- the command itself --------------------------------------------------------------------

export const messages = {
  version: 'wave-scope 0.1.0',
  usage: `Usage: wave-scope <command> [options]

Commands:
  validate       check a wave's declarations (disjointness, subset, union) or a manifest
  materialize    write a wave's per-agent scope files and aggregate sidecar
  plan           write a whole wave safely (materialize, prove disjoint, union, manifest) or show the plan
  digest         print the digest of one agent's scope, or the prompt line that asks for its echo
  hook           run one enforcement hook (reads the agent CLI's payload on stdin)
  install-hooks  install or remove Wave Scope's hooks for Claude Code, Codex, Cursor, Gemini CLI and git
  doctor         prove the installed hooks work: run each with a synthetic payload and check the answer

Run "wave-scope <command> --help" for a command's options. Exit codes: docs/cli.md.`,
  unknownCommand: (name: string) => `unknown command "${name}". Run "wave-scope --help" for the list.`,
  internalError: (error: unknown) => `wave-scope failed unexpectedly: ${describeError(error)}`,
  unexpectedArgument: (value: string) => `unexpected argument "${value}"`,
  /** The line after a bad-arguments error. */
  optionsHint: (command: string) => `Run "wave-scope ${command} --help" for its options.`,
} satisfies Catalogue;

// --- validate -------------------------------------------------------------------------------

export const validateMessages = {
  usage: `Usage: wave-scope validate [checks] [options]   (manifest on stdin unless --no-manifest)

Checks (run in this order; each runs only if the ones before it passed):
  --assert-subset SCOPE_FILE   every entry of one agent's scope file (a JSON array of strings) lies in the
                               manifest's allowedPaths
  --assert-disjoint SIDECAR    no two agents of the sidecar (a JSON array of {id, files}) claim one path,
                               and no id is used twice
  --union SIDECAR              print the union of the sidecar's entries (plus test siblings for the
                               manifest's role) as a JSON array, instead of echoing the manifest

Options:
  --no-manifest        check the sidecar alone; stdin is not read (refuses --union and --assert-subset)
  --known-files FILE   the repository's files, one per line (default inside git: git ls-files)
  --ignore-case        fold case in every comparison (default inside git: core.ignorecase)
  --json               print the disjointness report as JSON on stdout

Without any check, validates the manifest on stdin: every problem as "ERROR: ...", exit 1; warnings as
"WARNING: ...", which never change the exit code.

Exit codes: 0 passed, 1 a check failed, 2 unusable input (missing file, bad JSON, wrong shape, rejected entry).`,
  flagsNeedAssertion: '--no-manifest, --json and --known-files go with --assert-disjoint, --assert-subset or --union',
  noManifestRefuses: '--no-manifest refuses --union and --assert-subset: both need the manifest on stdin (its allowedPaths and role)',
  jsonWithUnion: '--union prints JSON already; run it without --json (or run --assert-disjoint --json on its own)',
  cannotRead: (what: string, path: string, code: string) => `cannot read the ${what} ${path} (${code})`,
  badJson: (what: string, path: string, detail: string) => `the ${what} ${path} is not valid JSON: ${detail}`,
  badSidecar: (path: string, detail: string) => `sidecar ${path}: ${detail}`,
  scopeFileNotArray: (path: string) => `scope file ${path}: expected a JSON array of path strings`,
  badScopeFile: (path: string, detail: string) => `scope file ${path}: ${detail}`,
  badAllowedPath: (detail: string) => `the manifest's allowedPaths has an unusable ${detail}`,
  noManifest: 'no manifest on stdin: pipe the wave-scope.json into the command, or pass --no-manifest to check the sidecar alone',
  manifestNotJson: (detail: string) => `the manifest on stdin is not valid JSON: ${detail}`,
  manifestInvalid: (errors: readonly string[]) => `the manifest on stdin is invalid: ${errors.join('; ')} (run "wave-scope validate" on it alone for every problem)`,
  collision: (collision: { agents: readonly [string, string]; entries: readonly [string, string]; witness: string }) =>
    `agents "${collision.agents[0]}" and "${collision.agents[1]}" both claim ${collision.entries[0]} and ${collision.entries[1]} (for example ${collision.witness})`,
  duplicateId: (id: string) => `agent id "${id}" is used by more than one record (ids are compared without regard to case): give each agent its own id`,
  notCovered: (entry: string, file: string, coverage: { undecided: boolean; counterexample?: string }) =>
    coverage.undecided
      ? `${entry} (in ${file}) could not be proven inside allowedPaths (the check ran out of budget): list it explicitly`
      : `${entry} (in ${file}) is not inside allowedPaths${coverage.counterexample === undefined ? '' : ` (for example ${coverage.counterexample})`}`,
} satisfies Catalogue;

// --- hook ------------------------------------------------------------------------------------

/** Longest list of allowed entries a deny reason shows before it says "and N more". */
const SHOWN_ENTRIES = 12;

function shortList(entries: readonly string[]): string {
  if (entries.length === 0) return '(none: this wave allows no writes)';
  const shown = entries.slice(0, SHOWN_ENTRIES).join(', ');
  return entries.length > SHOWN_ENTRIES ? `${shown}, … and ${entries.length - SHOWN_ENTRIES} more` : shown;
}

const TARGET_PROBLEMS: Readonly<Record<string, string>> = {
  empty: 'the path is empty',
  nul: 'the path contains a NUL byte',
  'not-a-string': 'the path is not a string',
  backslash: 'the path contains "\\", which this system does not read as a separator; spell it with "/"',
  'too-long': 'the path is longer than the system allows',
  'link-loop': 'the path runs into a loop of symbolic links',
  'relative-without-cwd': 'the path is relative and the payload names no working directory',
  'no-home': 'the path starts with "~" and there is no home directory to expand it to',
};

export const hookMessages = {
  usage: `Usage: wave-scope hook <enforce-write|commit-guard|session-start> [options]

  enforce-write [--agent-cli claude|codex|cursor|gemini]
      Reads one pre-tool payload on stdin and allows or denies the write (see docs/hooks.md).
      Without --agent-cli the payload's shape says which agent CLI sent it; when nothing does,
      the answer is a deny every supported agent CLI reads as one (exit 2).
  commit-guard
      The git pre-commit check: every staged path must lie in the active wave's scope.
  session-start [--agent-cli claude|codex|cursor|gemini]
      The agent CLI's SessionStart hook: records the session and its start beside the manifest,
      which is where the commit guard takes the session start from. Never blocks, prints nothing.`,
  unknownSubcommand: (name: string) => `unknown hook "${name}". Hooks: enforce-write, commit-guard, session-start.`,
  badAgentCli: (value: string) => `unknown --agent-cli "${value}" (expected claude, codex, cursor or gemini)`,

  // The write gate's reasons (inside the agent CLI's JSON reply).
  targetProblem: (raw: string, problem: string) => `"${raw}" cannot be checked: ${TARGET_PROBLEMS[problem] ?? problem}`,
  controlFile: (shown: string) =>
    `${shown} is control state (a wave manifest or its declarations, the hook launcher or session record, an agent CLI's hook settings or instructions, git's own files, hooks or config, at any depth, or where one of them really leads); a dispatched agent never writes it`,
  outsideRoot: (shown: string, root: string) => `${shown} is outside this checkout (${root}) and no absolute grant covers it`,
  outsideWave: (shown: string, wave: number) => `${shown} is not in wave ${wave}'s allowed paths`,
  outsideAgent: (shown: string, agent: string) => `${shown} is not in agent "${agent}"'s own scope`,
  noAgentScope: (agent: string, path: string, problem: string) =>
    `agent "${agent}" has no usable scope file (${path} ${problem}): no scope, no write`,
  agentScopeUnbacked: (shown: string, agent: string, wave: number) =>
    `${shown} is in agent "${agent}"'s scope file but not in wave ${wave}'s allowed paths: a per-agent scope counts only where the wave's union backs it`,
  violationLine: (line: string) => `- ${line}`,
  denyHeader: 'Wave Scope blocked this write.',
  warnHeader: 'Wave Scope (enforcement "warn"): this write is outside the wave\'s scope and goes ahead anyway.',
  agentSource: (agent: string | undefined) => `agent "${agent}"`,
  waveSource: (wave: number, manifest: string) => `wave ${wave}, ${manifest}`,
  allowedLine: (entries: readonly string[], source: string) => `Allowed (${source}): ${shortList(entries)}`,
  denyAdvice:
    'What to do: write only inside the allowed entries. If this file belongs to the wave, the coordinator adds it to the plan and rewrites the wave ("wave-scope plan"); do not edit the manifest or filescopes/ yourself.',
  invalidManifest: (path: string, problems: readonly string[]) =>
    `Wave Scope blocked this write: the wave manifest ${path} is unusable (${problems.join('; ')}). ` +
    'Writes stay blocked until it is repaired: rewrite it with "wave-scope plan", fix it by hand (docs/file-formats.md, "wave-scope validate" checks it), or delete it to end the wave.',
  unreadablePayload: (detail: string) =>
    `Wave Scope blocked this call: ${detail} The gate fails closed; check that the hook is registered for the right agent CLI (docs/hooks.md).`,
  internalFailure: (detail: string) =>
    `Wave Scope blocked this write because the gate failed: ${detail} It fails closed; run "wave-scope hook enforce-write" with the same payload to reproduce, or remove the manifest to end the wave.`,
  lastResort: (detail: string) => `wave-scope hook: could not even answer with a deny (${detail}); exiting 2 so the agent CLI blocks the call.`,

  // The commit guard's lines (stderr of git's pre-commit hook).
  commitBlockedHeader: (wave: number, manifest: string) => `wave-scope commit-guard: this commit stages paths outside wave ${wave}'s scope (${manifest}):`,
  commitWarnHeader: (wave: number, manifest: string) =>
    `wave-scope commit-guard (enforcement "warn"): these staged paths are outside wave ${wave}'s scope (${manifest}); committing anyway:`,
  commitBlockedLine: (path: string, status: string) => `  ${path} (${status}): not in allowedPaths nor in an earlier wave of this session`,
  commitEarlierWave: (path: string, wave: number) => `wave-scope commit-guard: ${path} belongs to wave ${wave} of this session — allowed.`,
  commitAdvice:
    'Unstage them ("git restore --staged <path>"), or add them to the wave plan and rewrite the manifest. Earlier waves of this session count only when the SessionStart hook recorded the session (docs/hooks.md).',
  commitInvalidManifest: (path: string, problems: readonly string[]) =>
    `wave-scope commit-guard: the wave manifest ${path} is unusable (${problems.join('; ')}). Repair it ("wave-scope plan" or by hand) or delete it to end the wave; the commit is blocked until then.`,
  commitFailure: (detail: string) => `wave-scope commit-guard failed: ${detail}`,
  commitFailClosed: 'The commit is blocked (fail closed).',
  commitSessionContradiction: (claimed: readonly string[], bound: readonly string[], manifest: string) =>
    `wave-scope commit-guard: the committing shell says it is session ${claimed.map((id) => JSON.stringify(id)).join(', ')} (CLAUDE_CODE_SESSION_ID), but the wave of ${manifest} is bound to ${bound.map((id) => JSON.stringify(id)).join(', ')}. The environment of a shell cannot widen what a commit may carry, and one that contradicts the coordinator's files blocks it: commit from the session the wave belongs to, or end that wave (delete ${manifest}).`,
  commitStartContradiction: (claimed: string, recorded: string, record: string) =>
    `wave-scope commit-guard: WAVE_SCOPE_SESSION_START (${claimed}) is earlier than the session's recorded start (${recorded}, ${record}); a shell cannot move the session start back to admit older waves, so the commit is blocked. Unset WAVE_SCOPE_SESSION_START.`,
  sessionStartFailure: (detail: string) => `wave-scope hook session-start could not record the session (${detail}); earlier waves will not count in the commit guard until it does.`,
  commitIgnoredStart:
    'wave-scope commit-guard: WAVE_SCOPE_SESSION_START is not believed: the session start is taken only from the session record the SessionStart hook writes for the session the manifest is bound to (docs/hooks.md), and there is none, so no earlier wave counts.',
} satisfies Catalogue;

// --- install-hooks ---------------------------------------------------------------------------

export const installHooksMessages = {
  usage: `Usage: wave-scope install-hooks [--claude] [--codex] [--cursor] [--gemini] [--git] [--uninstall]
                                 [--dry-run [--json] | --plan] [--global-hooks]

  Merges Wave Scope's hooks into .claude/settings.json, .codex/hooks.json, .cursor/hooks.json,
  .gemini/settings.json and the git pre-commit hook, keeping every existing byte of them. Without
  a target flag: every agent CLI the repository uses (its directory or instruction file exists),
  plus git. --uninstall removes only Wave Scope's own entries.
  --dry-run prints what would change and writes nothing; with --json (or --plan, the same) it
  prints the plan as JSON: every file, the action, and its full text before and after.
  --global-hooks allows editing a hooks directory outside the repository (core.hooksPath set
  globally or to another place), which changes every repository that uses it.`,
  unknownOption: (arg: string) => `unknown option "${arg}"`,
  jsonNeedsDryRun: '--json prints a plan, so it needs --dry-run (or use --plan)',
  notInRepository: (cwd: string) => `${cwd} is not inside a git checkout; run install-hooks from the repository.`,
  wrote: (path: string) => `wrote ${path}`,
  created: (path: string) => `created ${path}`,
  removed: (path: string) => `removed ${path}`,
  renamed: (from: string, to: string) => `renamed ${from} to ${to}`,
  unchanged: (path: string) => `unchanged ${path}`,
  wouldWrite: (path: string) => `would write ${path}`,
  wouldCreate: (path: string) => `would create ${path}`,
  wouldRemove: (path: string) => `would remove ${path}`,
  wouldRename: (from: string, to: string) => `would rename ${from} to ${to}`,
  nothingWritten: 'Nothing was written.',
  badSettings: (path: string, detail: string) => `${path} cannot be edited without losing something (${detail}); fix or move it and run install-hooks again.`,
  settingsIsLink: (path: string) => `${path} is a symbolic link; install-hooks edits files in place and never writes through a link into another place. Edit the file it points to, or replace the link with a copy, and run install-hooks again.`,
  chainedExists: (path: string, hook: string) =>
    `${path} already holds a pre-commit hook saved by an earlier install, and ${hook} is no longer Wave Scope's wrapper (another tool replaced it). Chaining again would overwrite the saved hook: move one of them aside and run install-hooks again.`,
  chainedOrphan: (path: string, hook: string) =>
    `${path} holds a pre-commit hook saved by an earlier install, but ${hook} is gone. Rename the saved hook back to ${hook} (or delete it) and run install-hooks again.`,
  hookNotAFile: (path: string) => `${path} is neither a file nor a symbolic link; leave the git hook alone or move it, then run install-hooks again.`,
  hooksOutsideRepository: (dir: string, origin: string) =>
    `git runs hooks from ${dir} (core.hooksPath, set in ${origin}), which lies outside this repository: editing it would change every repository that uses it. Run install-hooks with --global-hooks to edit it anyway, or give this repository hooks of its own first ("git config --local core.hooksPath .git/hooks", then chain your global hooks from there) and run install-hooks again.`,
  launcherInsideRepository: (path: string) =>
    `the wave-scope CLI running now (${path}) lies inside the repository, where an agent may write it, so the launcher does not record it; it will use WAVE_SCOPE_CLI, a global install or the editor extension instead.`,
} satisfies Catalogue;

// --- materialize, plan write, digest (declarations) --------------------------------------------

export const declarationMessages = {
  materializeUsage: `Usage: wave-scope materialize --state-dir DIR --wave N [--warn-missing] [--new-file PATH]... [--json] < records

  Reads one JSON array of {"id", "files"} records on stdin and writes both declaration shapes:
  DIR/filescopes/wave-N/<id>.json (per agent) and DIR/filescopes/wave-N.scopes.json (the aggregate, last).
  The whole input is validated before anything is written. Per-agent files of agents no longer in
  the wave are removed. A record with the id "coordinator" holds the coordinator's own edits.

  --warn-missing    name declared plain paths that do not exist (stderr only; exit code unchanged)
  --new-file PATH   a file the wave will create: must be one of the declared paths (repeatable)
  --json            print {"wave", "stateDir", "written", "removed"} on stdout

  Exit codes: 0 written; 1 invalid input or arguments, nothing written; 2 file-system error.`,
  planUsage: `Usage: wave-scope plan write --wave N --role R [--state-dir DIR] [--enforcement strict|warn|off]
                         [--new-file PATH]... [--blocked-command CMD]... [--json] < records
       wave-scope plan show [--state-dir DIR] [--json]

  plan write runs the one safe chain: validate, prove the scopes disjoint, materialize both shapes,
  assert disjoint on the aggregate as written, compute allowedPaths (union plus test siblings for the
  role), write DIR/wave-scope.json bound to this process's session id (CLAUDE_CODE_SESSION_ID; unbound
  without one). Any failure stops the chain before the manifest is written and names the step.
  Without --state-dir: the state directory this session resolves to (new plans: ${DEFAULT_STATE_DIR_NAME}).

  plan show prints every wave on disk: agents, entries with match counts, collisions, the manifest.

  Exit codes (write): 0 written; 1 invalid input, another session's manifest, or colliding scopes;
  2 file-system error. (show): 0; 1 bad arguments; 2 file-system error.`,
  digestUsage: `Usage: wave-scope digest --wave N --agent ID [--state-dir DIR] [--instruction]

  Prints the scope digest of one agent's scope file (ws1- and 16 hex digits; docs/file-formats.md).
  --instruction prints instead the line a coordinator puts beside the agent's FILE-SCOPE block,
  asking the agent to echo the digest in its report.

  Exit codes: 0 printed; 1 bad arguments, no such agent in that wave, or an unusable scope file;
  2 file-system error.`,
  unknownPlanSubcommand: (name: string) => `unknown plan subcommand "${name}" (expected "write" or "show")`,
  missingOption: (option: string) => `${option} is required`,
  badWave: (value: string) => `--wave must be a positive integer, got "${value}"`,
  badEnforcement: (value: string) => `--enforcement must be strict, warn or off, got "${value}"`,
  emptyRole: '--role must not be empty',
  noRecords: 'no records on stdin: pipe a JSON array of {"id", "files"} records into the command',
  recordsNotJson: (detail: string) => `the records on stdin are not valid JSON: ${detail}`,
  nothingWritten: 'nothing was written.',
  fileSystemError: (detail: string) => `file-system error, the wave's aggregate is not written: ${detail}`,
  missingPath: (agent: string, path: string) =>
    `agent "${agent}" declares "${path}", which does not exist (pass --new-file ${path} if the wave creates it)`,
  materialized: (wave: number, agents: number, removed: number, sidecar: string) =>
    `wave ${wave}: wrote ${agents} per-agent file${agents === 1 ? '' : 's'}${removed > 0 ? `, removed ${removed} stale` : ''}, aggregate ${sidecar}`,
  unusualStateDir: (shown: string) =>
    `${shown} is not one of ${STATE_DIR_NAMES.join(', ')} at the repository root: the hooks will not read these declarations`,
  planStopped: (step: string, message: string) => `plan write stopped at step "${step}": ${message}`,
  planDetail: (text: string) => `  ${text}`,
  planWritten: (wave: number, role: string, manifest: string, allowed: number, bound: string | undefined) =>
    `wave ${wave} (${role}) planned: ${manifest} grants ${allowed} entr${allowed === 1 ? 'y' : 'ies'}; ${bound === undefined ? 'unbound (no session id in this process)' : `bound to session ${bound}`}`,
  planAgentDigest: (id: string, digest: string) => `  ${id}: ${digest}`,
  cannotReadPlan: (detail: string) => `cannot read the plan: ${detail}`,
} satisfies Catalogue;

// --- plan show -------------------------------------------------------------------------------

export const planShowMessages = {
  noManifest: (stateDir: string, path: string) => `State dir ${stateDir}: no manifest (${path})`,
  unusableManifest: (stateDir: string, path: string, problem: string) => `State dir ${stateDir}: manifest ${path} is unusable: ${problem}`,
  manifest: (stateDir: string, path: string, manifest: { wave: number | null; role: string | null; enforcement: string | null; allowed: number; session: string }) =>
    `State dir ${stateDir}: manifest ${path} names wave ${manifest.wave} (${manifest.role}, ${manifest.enforcement}), ` +
    `${manifest.allowed} allowed entries, session ${manifest.session}`,
  noWave: 'No wave declared.',
  wave: (wave: number, status: string, active: boolean, sidecar: string) => `Wave ${wave}: ${status}${active ? ', active' : ''} (${sidecar})`,
  agent: (id: string, coordinator: boolean, digest: string | null) => `  ${id}${coordinator ? ' (coordinator)' : ''}  ${digest ?? 'no digest'}`,
  entry: (entry: string, matches: number) => `    ${entry}  ${matches} match${matches === 1 ? '' : 'es'}`,
  collision: (collision: { agents: readonly [string, string]; entries: readonly [string, string]; witness: string }) =>
    `  COLLISION ${collision.agents[0]} / ${collision.agents[1]}: ${collision.entries[0]} vs ${collision.entries[1]}, both name ${collision.witness}`,
  problem: (problem: string) => `  problem: ${problem}`,
} satisfies Catalogue;

// --- the hook launcher ----------------------------------------------------------------------

export const launcherMessages = {
  cliMissing: (detail: string) =>
    `Wave Scope blocked this call: its hook launcher cannot run the wave-scope CLI (${detail}). Repair it with "wave-scope install-hooks" (from a wave-scope installed outside this repository: the extension, or "npm install -g wave-scope"), or set WAVE_SCOPE_CLI to a dist/cli.js outside the repository; "wave-scope doctor" checks the result.`,
  looked: (places: string) => `looked in ${places}`,
  insideRepository: (path: string) => `${path} lies inside the repository, where an agent may write it`,
  loadFailed: (path: string, detail: string) => `loading ${path} failed: ${detail}`,
  nothingRecorded: 'no recorded path',
} satisfies Catalogue;

// --- doctor ---------------------------------------------------------------------------------

export const doctorMessages = {
  usage: `Usage: wave-scope doctor [--claude] [--codex] [--cursor] [--gemini] [--git] [--json]

  Proves the installed hooks work: for each agent CLI and git, runs the exact command line its
  settings file (or the pre-commit hook) holds, with a synthetic payload of that CLI, and checks
  that a write outside every scope is denied in that CLI's format and a write inside a scope is
  allowed. Reports each as working, broken (with why) or not installed. Without a target flag:
  every agent CLI and git. --json prints the report as JSON. Exit 1 when any is broken.`,
  notInRepository: (cwd: string) => `${cwd} is not inside a git checkout; run doctor from the repository.`,
  result: (target: string, status: string) => `${target}: ${status.replace('-', ' ')}`,
  check: (ok: boolean, detail: string) => `  ${ok ? 'ok' : 'FAILED'}: ${detail}`,
  summary: (working: number, broken: number, missing: number) => `${working} working, ${broken} broken, ${missing} not installed`,
} satisfies Catalogue;
