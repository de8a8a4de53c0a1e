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
import { claimedText } from '../planner/scope/collisions';
import { HOOK_NAMES } from '../planner/enforce/hookNames';
import { inTheWayWords } from '../planner/plan/declarationStore';
import type { InTheWay } from '../planner/plan/declarationStore';
import type { SessionVerdict } from '../planner/plan/sessionBinding';

/** What an entry may be: a sentence, or a function of its details that returns one. */
type Catalogue = Record<string, string | ((...details: never[]) => string)>;

// package.json's version, injected by esbuild.mjs (`define`). Undefined only when this source runs
// unbundled (under tsx), which no user does.
declare const WAVE_SCOPE_VERSION: string | undefined;
const VERSION = typeof WAVE_SCOPE_VERSION === 'string' ? WAVE_SCOPE_VERSION : '0.0.0-unbundled';

function describeError(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

// --- the command itself --------------------------------------------------------------------

export const messages = {
  // Entries that interpolate a value from another module are functions, so a bundle that does not
  // print them (the hook's) can leave their section out.
  version: () => `wave-scope ${VERSION}`,
  usage: `Usage: wave-scope <command> [options]

Commands:
  validate       check a wave's declarations (disjointness, subset, union) or a manifest
  materialize    write a wave's per-agent scope files and aggregate sidecar
  plan           write a whole wave safely (materialize, prove disjoint, union, manifest) or show the plan
  digest         print the digest of one agent's scope, or the prompt line that asks for its echo
  hook           run one enforcement hook (reads the agent CLI's payload on stdin)
  install-hooks  install or remove Wave Scope's hooks for Claude Code, Codex, Cursor, Gemini CLI and git
  doctor         prove the installed hooks work: run each with a synthetic payload and check the answer
  amend          give an agent of the active wave more entries, proven disjoint first
  ledger         show or reset this session's dispatch ledger (the dispatch guard's state)
  publish        publish this checkout's active wave on the remote's plan ref and claim it for this clone
  sync           bring a wave published by another clone into this checkout, so its hooks enforce it
  release        end this clone's claim on a wave
  verify         check that every path a branch changes lies in its agent's published scope
  run            run one agent turn under the backstop (and optionally confined): changes outside its scope fail it
  commit         commit exactly the in-scope changes of an agent's last recorded turn

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
    `agents "${collision.agents[0]}" and "${collision.agents[1]}" both claim ${claimedText(collision.entries, collision.witness)}`,
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
  'process-view':
    'the path runs through /proc or /dev/fd, which name what the process opening them sees: the agent CLI sees its own working directory and descriptors there, not this hook\'s, so where the write would land cannot be known',
  'surrounding-space': 'the path starts or ends with white space, which an agent CLI may trim before it writes',
  'undecodable-name': 'the name is not UTF-8 text, so which file it is cannot be told (it is shown with U+FFFD for the bytes that are not)',
  'relative-without-cwd': 'the path is relative and the payload names no working directory',
  'no-home': 'the path starts with "~" and there is no home directory to expand it to',
  'unknown-reach':
    'the tool changes files beyond the paths it names (a rename or refactoring rewrites every file that refers to the symbol; a git operation rewrites the work tree or git\'s own files), which cannot be known before it runs; while a wave is active, make the change with the file tools (or ask the coordinator to make it)',
};

/** What an agent whose plan is no longer in force is told to do (its shell may have moved it away). */
const PLAN_GONE_ADVICE =
  'If your shell moved or changed the plan, stop and tell the coordinator exactly what you ran; never put it back by hand. If the coordinator ended the wave, stop and tell it.';

export const hookMessages = {
  usage: `Usage: wave-scope hook <${HOOK_NAMES.join('|')}> [options]

  enforce-write [--agent-cli claude|codex|cursor|gemini]
      Reads one pre-tool payload on stdin and allows or denies the write (see docs/hooks.md).
      Without --agent-cli the payload's shape says which agent CLI sent it; when nothing does,
      the answer is a deny every supported agent CLI reads as one (exit 2).
  commit-guard
      The git pre-commit check: every staged path must lie in the active wave's scope.
  session-start [--agent-cli claude|codex|cursor|gemini]
      The agent CLI's SessionStart hook: records the session and its start beside the manifest,
      which is where the commit guard takes the session start from. Never blocks, prints nothing.
  pre-dispatch --agent-cli claude
      Claude Code's PreToolUse on Agent/Task: refuses to start an agent whose scope collides with
      one still running, and records the dispatch in the session's ledger. Fails open.
  subagent-start --agent-cli claude
      Claude Code's SubagentStart: binds the new subagent to its dispatch. Fails open.
  post-bash --agent-cli claude|codex
      PostToolUse on the shell tool: blocks when the command changed a path outside the scope.
  stop --agent-cli claude|codex
      Stop and SubagentStop: fails the turn on any out-of-scope change since it began. Fails open
      when it cannot run.
  turn-start --agent-cli claude|codex
      UserPromptSubmit: takes the turn's baseline snapshot. Fails open.`,
  unknownSubcommand: (name: string) => `unknown hook "${name}". Hooks: ${HOOK_NAMES.join(', ')}.`,
  badAgentCli: (value: string) => `unknown --agent-cli "${value}" (expected claude, codex, cursor or gemini)`,

  // The write gate's reasons (inside the agent CLI's JSON reply).
  targetProblem: (raw: string, problem: string) => `"${raw}" cannot be checked: ${TARGET_PROBLEMS[problem] ?? problem}`,
  controlFile: (shown: string) =>
    `${shown} is control state (a wave manifest or its declarations, the hook launcher or session record, an agent CLI's hook settings or instructions, git's own files, hooks or config, at any depth, or where one of them really leads); a dispatched agent never writes it`,
  outsideRoot: (shown: string, root: string) => `${shown} is outside this checkout (${root}) and no absolute grant covers it`,
  outsideWave: (shown: string, wave: number) => `${shown} is not in wave ${wave}'s allowed paths`,
  outsideAgent: (shown: string, agent: string) => `${shown} is not in agent "${agent}"'s own scope`,
  contestedSibling: (shown: string, agent: string, rival: string) =>
    `${shown} is a test sibling of agent "${agent}"'s files, but agent "${rival}" of the same wave claims it too, so it is neither's until the plan declares it for one`,
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
  noPlanForAgent: (agent: string) =>
    `Wave Scope blocked this write: you run as agent "${agent}" of a wave (WAVE_SCOPE_AGENT), but no wave manifest is in force here, so nothing says what you may write. ` +
    `${PLAN_GONE_ADVICE} Writes stay blocked until a plan is in force again, or until you are started without WAVE_SCOPE_AGENT.`,
  noPlanForSubagent: (agent: string, wave: number) =>
    `Wave Scope blocked this write: this subagent was dispatched as "${agent}" in wave ${wave}, but no wave manifest of this session is in force here, so nothing says what it may write. ` +
    `${PLAN_GONE_ADVICE} Writes stay blocked until the plan is in force again.`,
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
  commitNoPlanForAgent: (agent: string) =>
    `wave-scope commit-guard: this commit runs as agent "${agent}" of a wave (WAVE_SCOPE_AGENT), but no wave manifest is in force here, so nothing says what it may carry: the commit is blocked. If your shell moved or changed the plan, tell the coordinator exactly what you ran; never put it back by hand.`,
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
                                 [--dry-run [--json] | --plan | --confirmed-plan FILE|-] [--global-hooks]

  Merges Wave Scope's hooks into .claude/settings.json, .codex/hooks.json, .cursor/hooks.json,
  .gemini/settings.json and the git pre-commit hook, keeping every existing byte of them. Without
  a target flag: every agent CLI the repository uses (its directory or instruction file exists),
  plus git. --uninstall removes only Wave Scope's own entries.
  --dry-run prints what would change and writes nothing; with --json (or --plan, the same) it
  prints the plan as JSON: every file, the action, and its full text before and after.
  --confirmed-plan FILE (- for stdin) takes such a plan back once a person has confirmed it, and
  installs only if every file still holds what it read and the plan is the same; else nothing.
  --global-hooks allows editing a hooks directory outside the repository (core.hooksPath set
  globally or to another place), which changes every repository that uses it.`,
  unknownOption: (arg: string) => `unknown option "${arg}"`,
  jsonNeedsDryRun: '--json prints a plan, so it needs --dry-run (or use --plan)',
  notInRepository: (cwd: string) => `${cwd} is not inside a git checkout; run install-hooks from the repository.`,
  wrote: (path: string) => `wrote ${path}`,
  created: (path: string) => `created ${path}`,
  removed: (path: string) => `removed ${path}`,
  renamed: (from: string, to: string) => `renamed ${from} to ${to}`,
  saved: (from: string, to: string) => `saved ${from} as ${to} too`,
  unchanged: (path: string) => `unchanged ${path}`,
  wouldWrite: (path: string) => `would write ${path}`,
  wouldCreate: (path: string) => `would create ${path}`,
  wouldRemove: (path: string) => `would remove ${path}`,
  removedLeftover: (path: string) => `removed ${path} (a temporary file of the commit guard's hook that a killed install-hooks left)`,
  wouldRemoveLeftover: (path: string) => `would remove ${path} (a temporary file of the commit guard's hook that a killed install-hooks left)`,
  wouldRename: (from: string, to: string) => `would rename ${from} to ${to}`,
  wouldSave: (from: string, to: string) => `would save ${from} as ${to} too`,
  nothingWritten: 'Nothing was written.',
  confirmedPlanNeedsApply: '--confirmed-plan applies the plan a person confirmed, so it does not go with --dry-run or --plan',
  badConfirmedPlan: (source: string, detail: string) => `cannot read the confirmed plan from ${source === '-' ? 'stdin' : source}: ${detail}.`,
  changedSincePlanned: (path: string, applied: readonly string[]) =>
    `${path} changed after install-hooks read it (a person, an editor or another tool wrote it since): going on would overwrite that change, so install-hooks stopped there; ` +
    `${applied.length === 0 ? 'nothing had been written yet' : `already written: ${applied.join('; ')}`}. Nothing more was written. Run the same command again to plan with the file as it is now.`,
  changedSinceConfirmed: (paths: readonly string[]) =>
    `${paths.join(', ')} changed after the plan was made that was confirmed: installing now would write over ${paths.length === 1 ? 'that change' : 'those changes'}, or do something other than what was shown. Look at the new plan and confirm it again.`,
  planNotConfirmed: (paths: readonly string[]) =>
    `the plan made now differs from the one confirmed (${paths.join(', ')}): install-hooks would not do what was shown. Look at the new plan and confirm it again.`,
  badSettings: (path: string, detail: string) => `${path} cannot be edited without losing something (${detail}); fix or move it and run install-hooks again.`,
  settingsIsLink: (path: string) => `${path} is a symbolic link; install-hooks edits files in place and never writes through a link into another place. Edit the file it points to, or replace the link with a copy, and run install-hooks again.`,
  chainedExists: (path: string, hook: string) =>
    `${path} already holds a pre-commit hook saved by an earlier install, and ${hook} is no longer Wave Scope's wrapper (another tool replaced it). Chaining again would overwrite the saved hook: move one of them aside and run install-hooks again.`,
  chainedInTheWay: (path: string, hook: string) =>
    `${path} holds the pre-commit hook you had before install-hooks chained it, and ${hook} is no longer Wave Scope's wrapper (something replaced it). Putting the saved hook back would overwrite ${hook}: move one of them aside (or delete the one you no longer want) and run install-hooks --uninstall again.`,
  wrapperEdited: (path: string, saved: string | undefined, mode: 'install' | 'uninstall') =>
    `${path} is the wrapper install-hooks wrote to run the commit guard${saved === undefined ? '' : ` and then ${saved} (the pre-commit hook you had before)`}, and it has been changed since. ${mode === 'install' ? 'Writing the wrapper again' : 'Removing it'} would lose those changes. ` +
    (saved === undefined
      ? `Keep what you want of it in a file of your own, delete ${path}, and run the same install-hooks command again.`
      : `Put the changes you want to keep where they belong (in ${saved}, which the wrapper runs, or in a file of your own), then rename ${saved} back to ${path}, replacing the wrapper, and run the same install-hooks command again.`),
  blockEdited: (path: string, begin: string, end: string, mode: 'install' | 'uninstall') =>
    `${path} holds Wave Scope's commit guard block (from "${begin}" to "${end}"), and it has been changed since install-hooks wrote it. ${mode === 'install' ? 'Writing the block again' : 'Removing it'} would lose those changes. Move your own lines out of the block (or delete the whole block, both marker lines included) and run the same install-hooks command again.`,
  hookNotAFile: (path: string) => `${path} is neither a file nor a symbolic link; leave the git hook alone or move it, then run install-hooks again.`,
  hooksOutsideRepository: (dir: string, origin: string) =>
    `git runs hooks from ${dir} (core.hooksPath, set in ${origin}), which lies outside this repository: editing it would change every repository that uses it. Run install-hooks with --global-hooks to edit it anyway, or give this repository hooks of its own first ("git config --local core.hooksPath .git/hooks", then chain your global hooks from there) and run install-hooks again.`,
  fileOutsideRepository: (path: string, mode: 'install' | 'uninstall') =>
    mode === 'install'
      ? `${path} lies outside this repository (a directory on its way is a link to elsewhere): writing it would change every repository that shares it. Give the repository a directory of its own there and run install-hooks again.`
      : `${path} lies outside this repository (a directory on its way is a link to elsewhere): removing Wave Scope from it would take the hooks out of every repository that shares it. Uninstall from the repository it belongs to, or remove the link here and run install-hooks --uninstall again.`,
  trackedHookFile: (hookFile: string, worktree: string, inside: string) =>
    `${hookFile} is tracked by git, so in ${worktree} the commit guard shows as an uncommitted change to it. Leave it uncommitted unless every checkout of that branch should carry it: "git add -A" or "git commit -a" there stages it, and while a wave is active the commit guard then refuses that commit unless the wave's scope covers ${inside} (leave it out: "git restore --staged ${inside}", and commit without -a). "wave-scope install-hooks --git --uninstall" takes the guard out of it again.`,
  worktreeLocked: (worktree: string, reason: string, mode: 'install' | 'uninstall') =>
    `${worktree} is locked ("git worktree lock"${reason === '' ? '' : `: ${reason}`}), so install-hooks left it alone: ` +
    (mode === 'install'
      ? `commits made there are not guarded. Once it can be changed, unlock it ("git worktree unlock ${worktree}") and run "wave-scope install-hooks --git" again.`
      : `its pre-commit hook may still hold the commit guard. Once it can be changed, unlock it ("git worktree unlock ${worktree}") and run "wave-scope install-hooks --git --uninstall" again.`),
  hookRunnerMissing: (worktree: string, runner: string, hookFile: string) =>
    `in ${worktree} git runs ${runner}, which is not there (husky generates it in each checkout, with its "prepare" script: "npm install" or "npx husky" there), so git runs no pre-commit hook there and the guard in ${hookFile} does not run yet: commits made there are not guarded until husky has set that checkout up.`,
  worktreeGone: (worktree: string, reason: string) => `${worktree} is not there (${reason}): there is nothing to guard or remove in it; "git worktree prune" forgets it.`,
  worktreeWithoutHookFile: (worktree: string, hookFile: string) =>
    `${worktree} runs its own pre-commit hook, ${hookFile}, which is not there (the branch checked out there has none), so install-hooks left that checkout alone rather than add a file to it: commits made there are not guarded. Once the hook file is there (check out a branch that has it), run "wave-scope install-hooks --git" again.`,
  launcherInsideRepository: (path: string) =>
    `the wave-scope CLI running now (${path}) lies inside the repository, where an agent may write it, so the launcher does not record it; it will use WAVE_SCOPE_CLI, a global install or the editor extension instead.`,
} satisfies Catalogue;

// --- materialize, plan write, digest (declarations) --------------------------------------------

/**
 * The refusal of an entry a writer found in its way before its first write (DeclarationFs.findInTheWay): `command`
 * names the writer (`sync`), `again` what to run once it is moved (`sync again`).
 */
const inTheWayRefusal = (command: string, again: string, path: string, found: InTheWay['found']) =>
  `${printable(path)} is ${inTheWayWords(found)} where ${command} writes the plan: ${command} never writes through such an entry or replaces it. ` +
  `Move it out of the way (${command} writes the plan's own file or directory there), then ${again}. Nothing was written.`;

export const declarationMessages = {
  materializeUsage: `Usage: wave-scope materialize --state-dir DIR --wave N [--warn-missing] [--new-file PATH]... [--json] < records

  Reads one JSON array of {"id", "files"} records on stdin and writes both declaration shapes:
  DIR/filescopes/wave-N/<id>.json (per agent) and DIR/filescopes/wave-N.scopes.json (the aggregate, last).
  The whole input is validated before anything is written. Per-agent files of agents no longer in
  the wave are removed. A record with the id "coordinator" holds the coordinator's own edits.

  --warn-missing    name declared plain paths that do not exist (stderr only; exit code unchanged)
  --new-file PATH   a file the wave will create: must be one of the declared paths (repeatable)
  --json            print {"wave", "stateDir", "written", "removed"} on stdout

  Before the first write, the files it will write or remove and the directories on their way are
  looked at: a symbolic link there (or anything but a directory or a regular file) is refused.

  Exit codes: 0 written; 1 invalid input or arguments, or a symbolic link where it writes, nothing
  written; 2 file-system error.`,
  planUsage: () => `Usage: wave-scope plan write --wave N --role R [--state-dir DIR] [--enforcement strict|warn|off]
                         [--new-file PATH]... [--blocked-command CMD]... [--json] < records
       wave-scope plan show [--state-dir DIR] [--json]

  plan write runs the one safe chain: validate, prove the scopes disjoint, materialize both shapes,
  assert disjoint on the aggregate as written, compute allowedPaths (union plus test siblings for the
  role), write DIR/wave-scope.json bound to this process's session id (CLAUDE_CODE_SESSION_ID; unbound
  without one). Any failure stops the chain before the manifest is written and names the step.
  Without --state-dir: the state directory this session resolves to (new plans: ${DEFAULT_STATE_DIR_NAME}).

  plan show prints every wave on disk: agents, entries with match counts, collisions, the manifest.

  A symbolic link (or anything but a directory or a regular file) where the chain writes or removes a
  file, or on the way to one, is refused before the first write, naming it.

  Exit codes (write): 0 written; 1 invalid input, another session's manifest, colliding scopes, or a
  symbolic link where it writes (nothing written); 2 file-system error. (show): 0; 1 bad arguments; 2 file-system error.`,
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
  materializeLockRefused: (problem: string) => `materialize stopped: ${problem}`,
  materializeActiveWave: (wave: number, manifest: string) =>
    `wave ${wave} is the active wave (${manifest} names it): its declarations are what the hooks hold each agent to, so write them with "wave-scope plan write --wave ${wave}", which proves them disjoint and computes the manifest from them; materialize writes only other waves`,
  fileSystemError: (detail: string) => `file-system error, the wave's aggregate is not written: ${detail}`,
  missingPath: (agent: string, path: string) =>
    `agent "${agent}" declares "${path}", which does not exist (pass --new-file ${path} if the wave creates it)`,
  materialized: (wave: number, agents: number, removed: number, sidecar: string) =>
    `wave ${wave}: wrote ${agents} per-agent file${agents === 1 ? '' : 's'}${removed > 0 ? `, removed ${removed} stale` : ''}, aggregate ${sidecar}`,
  unusualStateDir: (shown: string) =>
    `${shown} is not one of ${STATE_DIR_NAMES.join(', ')} at the repository root: the hooks will not read these declarations`,
  /** `command`: `plan write` or `materialize`. */
  plantedInStateDir: (command: string, path: string, found: InTheWay['found']) => inTheWayRefusal(command, `run ${command} again`, path, found),
  planStopped: (step: string, message: string) => `plan write stopped at step "${step}": ${message}`,
  planInLinkedWorktree: (worktree: string, main: string) =>
    `${worktree} is a linked worktree of ${main}, and the hooks of every checkout of this repository read the plan of ${main}: a plan written here would never be enforced. Run it from ${main} (or name a state directory with --state-dir), or give this session a clone of its own (publish and sync share a plan between clones).`,
  planDetail: (text: string) => `  ${text}`,
  planWritten: (wave: number, role: string, manifest: string, allowed: number, bound: string | undefined) =>
    `wave ${wave} (${role}) planned: ${manifest} grants ${allowed} entr${allowed === 1 ? 'y' : 'ies'}; ${bound === undefined ? 'unbound (no session id in this process)' : `bound to session ${bound}`}`,
  planAgentDigest: (id: string, digest: string) => `  ${id}: ${digest}`,
  cannotReadPlan: (detail: string) => `cannot read the plan: ${detail}`,
} satisfies Catalogue;

// --- plan show -------------------------------------------------------------------------------

/**
 * Whom a manifest holds, as `plan show` says it: every session, or the one it is bound to, and whether that is
 * this one. Another session's manifest does not hold this session's edits (the write gate lets a peer's wave
 * be), but the commit guard holds every commit to every wave: the committing shell's session id is not believed.
 */
function manifestBinding(verdict: SessionVerdict, boundTo: readonly string[]): string {
  const [session] = boundTo;
  if (session === undefined) return 'unbound (every session is held to it)';
  const named = printable(session);
  if (verdict === 'own') return `bound to this session (${named})`;
  if (verdict === 'foreign') return `bound to another session (${named}): this session's edits are not held to it, its commits are`;
  return `bound to session ${named} (this process carries no session id, so it is held to it)`;
}

export const planShowMessages = {
  noManifest: (stateDir: string, path: string) => `State dir ${stateDir}: no manifest (${path})`,
  unusableManifest: (stateDir: string, path: string, problem: string) => `State dir ${stateDir}: manifest ${path} is unusable: ${printable(problem)}`,
  manifest: (stateDir: string, path: string, manifest: { wave: number | null; role: string | null; enforcement: string | null; allowed: number; session: SessionVerdict; boundTo: readonly string[] }) =>
    `State dir ${stateDir}: manifest ${path} names wave ${manifest.wave} (${manifest.role === null ? null : printable(manifest.role)}, ${manifest.enforcement}), ` +
    `${manifest.allowed} allowed entries, ${manifestBinding(manifest.session, manifest.boundTo)}`,
  noWave: 'No wave declared.',
  wave: (wave: number, status: string, active: boolean, sidecar: string) => `Wave ${wave}: ${status}${active ? ', active' : ''} (${sidecar})`,
  agent: (id: string, coordinator: boolean, digest: string | null) => `  ${id}${coordinator ? ' (coordinator)' : ''}  ${digest ?? 'no digest'}`,
  entry: (entry: string, matches: number) => `    ${printable(entry)}  ${matches} match${matches === 1 ? '' : 'es'}`,
  collision: (collision: { agents: readonly [string, string]; entries: readonly [string, string]; witness: string }) =>
    `  COLLISION ${collision.agents[0]} / ${collision.agents[1]}: ${printable(collision.entries[0])} vs ${printable(collision.entries[1])}, both name ${printable(collision.witness)}`,
  problem: (problem: string) => `  problem: ${printable(problem)}`,
} satisfies Catalogue;

// --- the dispatch guard: hook pre-dispatch, hook subagent-start, amend, ledger, digest --verify ------
// Catalogue entries: no ERROR:/WARNING: prefix, no final newline (src/cli/cliIo.ts adds them).

/** How the liveness probe's evidence reads in a deny reason. */
const EVIDENCE_PHRASES: Record<string, string> = {
  'sync-result': 'its report came back',
  'error-result': 'it ended in an error',
  'report-delivered': 'its report was delivered',
  notification: 'a completion notice arrived',
  'awaiting-result': 'its dispatch has not returned yet',
  'launch-receipt': 'launched in the background, no completion notice since',
  'fork-started': 'forked into the background, no completion notice since',
  'unrecognised-result': 'its result proves no completion',
  resumed: 'resumed by SendMessage and not finished since',
  'not-in-transcript': 'not found in the session transcript',
  'no-transcript': 'no transcript to check',
  'transcript-too-large': 'the transcript is over 256 MiB and was not read',
  'probe-failed': 'the transcript could not be read',
  'probe-unavailable': 'the transcript was not read',
};

function quoted(items: readonly string[]): string {
  return items.map((item) => JSON.stringify(item)).join(', ');
}

/** The one sentence the hook loader says (kept apart so the write gate's bundle carries none of the rest). */
export const dispatchLoaderMessages = {
  guardInactive: (detail: string) => `GUARD INACTIVE: the Wave Scope dispatch guard could not be loaded (${detail}); this dispatch was allowed unchecked.`,
} satisfies Catalogue;

export const dispatchMessages = {
  hookUsage: `Usage: wave-scope hook pre-dispatch [--agent-cli claude]   < PreToolUse payload (matcher Agent|Task)
       wave-scope hook subagent-start [--agent-cli claude] < SubagentStart payload

  pre-dispatch denies starting an agent whose scope overlaps an agent of this session still in flight
  (docs/hooks.md, "The dispatch guard"); everything it cannot check is allowed and logged.
  subagent-start ties the new subagent to its dispatch record so it can be held to its own scope.`,
  denyHeader: (count: number) =>
    `Wave Scope did not start this agent: its scope overlaps ${count === 1 ? 'an agent' : `${count} agents`} of this session that ${count === 1 ? 'is' : 'are'} still running.`,
  denyCollision: (other: { id: string; desc: string; agentId?: string }, mine: string, theirs: string, witness: string, evidence: string, since: string) =>
    `- "${other.id}"${other.desc !== '' && other.desc !== other.id ? ` (${JSON.stringify(other.desc)})` : ''}${other.agentId === undefined ? '' : ` [agent_id ${other.agentId}]`}, dispatched ${since} (${EVIDENCE_PHRASES[evidence] ?? evidence}), claims ${JSON.stringify(theirs)}; this dispatch claims ${JSON.stringify(mine)}; both name ${JSON.stringify(witness)}.`,
  denyMore: (count: number) => `- … and ${count} more overlap${count === 1 ? '' : 's'} (wave-scope ledger show lists every claim).`,
  denyAdvice: (others: readonly string[], wave: number | null) =>
    `What to do: give each file one owner (take the entry out of one FILE-SCOPE block and out of that agent's declaration), or wait until ${quoted(others)} ${others.length === 1 ? 'has' : 'have'} finished and dispatch again, or, once the file has one owner, record it in the plan: wave-scope amend --wave ${wave ?? '<N>'} --agent <owner> --add <entry> --reason "<why>".`,
  coordinatorDenyHeader: (wave: number | null) =>
    `Wave Scope did not start this agent: its scope overlaps files the plan of wave ${wave ?? '?'} gives the coordinator itself, which stay the coordinator's for the whole wave.`,
  coordinatorDenyCollision: (mine: string, theirs: string, witness: string) =>
    `- the coordinator's declaration has ${JSON.stringify(theirs)}; this dispatch claims ${JSON.stringify(mine)}; both name ${JSON.stringify(witness)}.`,
  coordinatorDenyAdvice: (wave: number | null) =>
    `What to do: leave these files out of the FILE-SCOPE block, or give them to an agent: write the wave again without them in the coordinator's record (wave-scope plan write --wave ${wave ?? '<N>'}) and dispatch that agent.`,
  staleHint: (ledgerPath: string) =>
    `If that agent has already finished, this session's dispatch ledger is stale: run "wave-scope ledger reset" or delete ${ledgerPath} (this session's file only, never another session's).`,
  invalidHeader: 'Wave Scope did not start this agent: its FILE-SCOPE block has entries the scope grammar refuses (docs/scope-grammar.md):',
  invalidLine: (line: number, message: string) => `- prompt line ${line}: ${message}`,
  invalidAdvice:
    'What to do: correct or remove these entries and dispatch again (an entry that begins with a bullet or a quote, ends with a comma or has surrounding spaces is written as one JSON string: "…",).',
  warnHeader: 'Wave Scope (dispatch guard):',
  warnMismatch: (agent: string, missing: readonly string[], extra: readonly string[]) =>
    `the prompt dispatches declared agent "${agent}", but its FILE-SCOPE block differs from the declaration${missing.length > 0 ? `; not in the block: ${quoted(missing)}` : ''}${extra.length > 0 ? `; not declared: ${quoted(extra)}` : ''}. Both were checked; the agent will be held to its declaration.`,
  warnSeveralOnALine: (entries: readonly string[]) =>
    `the FILE-SCOPE ${entries.length === 1 ? 'entry' : 'entries'} ${quoted(entries)} name${entries.length === 1 ? 's' : ''} nothing in the repository and look${entries.length === 1 ? 's' : ''} like several paths on one line, or a path with a comment: every line of the block is one path, read as written, so the agent is held to ${entries.length === 1 ? 'that path' : 'those paths'} and refused the files meant. Put each path on a line of its own, and comments outside the block.`,
  warnConflict: (agents: readonly string[]) =>
    `the prompt names several declared agents (${quoted(agents)}); their scopes were checked together and the dispatch is bound to none of them.`,
  warnUnknownAgent: (ids: readonly string[], digests: readonly string[]) =>
    `the prompt names ${[...ids.map((id) => `agent "${id}"`), ...digests.map((digest) => `digest ${digest}`)].join(', ')}, which the active wave does not declare.`,
  warnDigestInconsistent: (instructed: string, block: string) =>
    `the prompt's echo line names digest ${instructed} but its FILE-SCOPE block has digest ${block}: the block and the echo line belong to different agents.`,
  warnSelfHealed: (ledgerPath: string, problem: string) =>
    `the dispatch ledger ${ledgerPath} was unusable (${problem}) and was rebuilt from this dispatch; earlier claims of this session are forgotten.`,
  warnNotEvaluable: (detail: string) => `the collision check could not run (${detail}); the dispatch was allowed unchecked.`,
  warnUnlocked: (lockPath: string, budgetMs: number) =>
    `the ledger lock ${lockPath} could not be had within ${budgetMs} ms; this dispatch was checked without it, and a dispatch started at the same moment may not have seen it.`,
  warnWriteFailed: (ledgerPath: string, detail: string) => `the dispatch could not be recorded in ${ledgerPath} (${detail}); later dispatches will not see its claim.`,
  guardFailed: (detail: string) => `the Wave Scope dispatch guard failed (${detail}); this dispatch was allowed unchecked.`,

  amendUsage: `Usage: wave-scope amend --wave N --agent ID --add ENTRY [--add ENTRY]... --reason TEXT [--state-dir DIR] [--session ID] [--json]

  Gives agent ID of wave N more entries, after proving them disjoint from every other agent the wave
  declares and from every agent of this session still in flight (the dispatch ledger and the session
  transcript), then rewrites the wave through the one safe chain (per-agent files, aggregate, manifest)
  and records the amendment and its reason in .orchestrator/metrics/events.jsonl. Wave N must be the
  active wave. The session is --session, else CLAUDE_CODE_SESSION_ID; without either, every session's
  ledger that names wave N is checked.

  Exit codes: 0 amended; 1 refused (a sibling owns a path; the refusal names it and a witness) or
  invalid arguments; 2 file-system error.`,
  amendApplied: (agent: string, wave: number, added: readonly string[], digest: string) =>
    `amended wave ${wave}: agent "${agent}" now also owns ${quoted(added)}; its scope digest is ${digest}`,
  amendRefusedDeclared: (sibling: string, entry: string, theirs: string, witness: string) =>
    `${JSON.stringify(entry)} overlaps ${JSON.stringify(theirs)}, which the plan gives agent "${sibling}" (both name ${JSON.stringify(witness)})`,
  amendRefusedInFlight: (sibling: string, entry: string, theirs: string, witness: string, evidence: string) =>
    `${JSON.stringify(entry)} overlaps ${JSON.stringify(theirs)}, claimed by "${sibling}", which is still in flight (${EVIDENCE_PHRASES[evidence] ?? evidence}; both name ${JSON.stringify(witness)})`,
  amendRefusedHeader: (agent: string, wave: number) => `wave ${wave} was not amended: the new entries of agent "${agent}" are not disjoint:`,
  amendRefusedAdvice: 'Give the path one owner first (take it from the sibling with "wave-scope plan write", or wait until it has finished), then amend again.',
  amendNotActive: (wave: number, active: number | null) =>
    active === null ? `wave ${wave} cannot be amended: no usable manifest names an active wave (write it with "wave-scope plan write")` : `wave ${wave} cannot be amended: the active wave is ${active}`,
  amendNoDeclaration: (wave: number, problems: readonly string[]) => `wave ${wave} has no complete declaration to amend: ${problems.join('; ')}`,
  amendWriteFailed: (step: string, message: string) => `the amended plan could not be written (step "${step}"): ${message}`,
  amendNoSession: 'no session id (--session or CLAUDE_CODE_SESSION_ID): every session ledger that names this wave was checked',
  amendLedgerUnreadable: (path: string, problem: string) =>
    `the dispatch ledger ${path} ${problem}: the agents still running cannot be checked, so nothing is amended (remove the link or the second name, or start over with "wave-scope ledger reset")`,

  ledgerUsage: `Usage: wave-scope ledger show [--session ID] [--json]
       wave-scope ledger reset [--session ID]

  show    this session's dispatch ledger: who is in flight, who finished, since when (every session's
          when no session is known). --json prints the documents (docs/cli.md).
  reset   deletes this session's ledger (never another session's); the next dispatch rebuilds it.
  The session is --session, else CLAUDE_CODE_SESSION_ID.

  Exit codes: 0 done; 1 bad arguments, no session for reset, or the ledger is locked; 2 file-system error.`,
  ledgerJsonOnlyWithShow: '--json goes with "ledger show"',
  unknownLedgerSubcommand: (name: string) => `unknown ledger subcommand "${name}" (expected "show" or "reset")`,
  ledgerNone: (path: string) => `no dispatch ledger at ${path}`,
  ledgerNoneAtAll: (dir: string) => `no dispatch ledger in ${dir}`,
  ledgerHeader: (path: string, waveKey: string, updated: string) => `${path}: wave key ${waveKey}, updated ${updated}`,
  ledgerCorrupt: (path: string, problem: string) => `${path} is not a usable ledger (${problem}); the next dispatch rebuilds it ("wave-scope ledger reset" removes it now)`,
  ledgerRecord: (waveKey: string, id: string, state: string, evidence: string, since: string, entries: number, bound: string | undefined) =>
    `  ${waveKey}  ${id}: ${state} (${EVIDENCE_PHRASES[evidence] ?? evidence}), since ${since}, ${entries} entr${entries === 1 ? 'y' : 'ies'}${bound === undefined ? '' : `, agent_id ${bound}`}`,
  ledgerResetDone: (path: string, records: number) => `removed ${path} (${records} record${records === 1 ? '' : 's'})`,
  ledgerResetAbsent: (path: string) => `nothing to reset: ${path} does not exist`,
  ledgerResetLocked: (path: string) => `${path} is locked by a running hook; run "wave-scope ledger reset" again in a few seconds (a dead hook's lock is taken over after 5 s)`,
  ledgerNeedsSession: 'reset needs this session\'s id (--session or CLAUDE_CODE_SESSION_ID): it never removes another session\'s ledger',

  verifyUsage: `Usage: wave-scope digest --verify --wave N [--echo FILE]... [--state-dir DIR] [--session ID] [--json]

  Joins the wave's declared digests (its aggregate), the digests the dispatch guard saw in dispatch
  prompts (.orchestrator/metrics/events.jsonl) and the digests agents echoed (each --echo FILE is one
  agent's report; its last "SCOPE-ECHO: ws1-…" line counts) on the digest. Verdicts: matched,
  injected-not-echoed, echoed-not-injected, injection-missing, digest-unknown, duplicate-claim.

  Exit codes: 0 every digest matched; 1 some digest did not (or bad arguments); 2 a file cannot be read.`,
  verifyRow: (verdict: string, digest: string, agents: readonly string[], dispatched: number, echoed: number) =>
    `${verdict.padEnd(20)} ${digest}  ${agents.length === 0 ? '-' : agents.join(', ')}  (dispatched ${dispatched}, echoed ${echoed})`,
  verifyNoTransport: (wave: number) =>
    `no dispatch of wave ${wave} was seen by the dispatch guard (is "hook pre-dispatch" installed?): every verdict rests on the echoes alone`,
  verifyNoEcho: (file: string) => `${file} has no "SCOPE-ECHO: ws1-…" line`,
  verifyCannotRead: (file: string, detail: string) => `cannot read ${file}: ${detail}`,
  verifyNoDeclaration: (wave: number, detail: string) => `wave ${wave} has no readable aggregate: ${detail}`,
  verifyTakesWholeWave: '--verify takes the whole wave: drop --agent and --instruction',
  verifyOnlyOptions: '--echo, --session and --json go with --verify',
} satisfies Catalogue;

// --- publish, sync, release, verify (engineer "sync"; docs/sync.md) -----------------------------

// What a terminal acts on instead of printing: C0 and C1 controls, DEL, and the marks that reorder text.
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;
const UNPRINTABLE_ALL = new RegExp(UNPRINTABLE.source, 'gu');
const NAMED_ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * `text` as it can be shown on a terminal or in a CI log. Names and paths that come from the plan ref or
 * a branch are anyone's, and an escape sequence or a line break in one could clear the screen, retitle
 * the window or forge a line of the report: such a text is shown quoted, with those characters (and `"`
 * and `\`) escaped. Any other text is shown as it is.
 */
export function printable(text: string): string {
  if (!UNPRINTABLE.test(text)) return text;
  const escaped = text
    .replace(/[\\"]/g, (character) => `\\${character}`)
    .replace(UNPRINTABLE_ALL, (character) => NAMED_ESCAPES[character] ?? `\\u{${(character.codePointAt(0) ?? 0).toString(16)}}`);
  return `"${escaped}"`;
}

/** A clone as people read it: its name and its id. */
const cloneLabel = (name: string, id: string) => (name === '' || name === id ? `clone ${printable(id)}` : `clone ${printable(name)} (${printable(id)})`);

export const syncMessages = {
  publishUsage: `Usage: wave-scope publish [--remote origin] [--state-dir DIR] [--ttl 4h] [--json]

  Publishes this checkout's active plan (the manifest, the aggregate and the per-agent files of the wave
  the manifest names) on the remote's refs/wave-scope/plan, and claims the wave for this clone. It
  fetches the ref first and proves the wave disjoint from every wave another clone still claims; the
  push is a compare-and-swap, and on a lost race the new plan is fetched and the proof made again.
  A collision is refused with both agents, both entries and a witness path; nothing is pushed.

  --remote NAME   the configured remote to publish to (default origin); git's own credentials are used
  --state-dir DIR the state directory holding the plan (default: the one this session resolves to)
  --ttl DURATION  how long the claim stands unless renewed by publishing again: 90m, 4h, 2d (default 4h)
  --json          print the result as JSON on stdout

  Exit codes: 0 published; 1 refused (a collision with another clone's claim, an unreadable claim or
  plan ref, no publishable plan here) or bad arguments; 2 git failed (fetch, push, a remote that keeps
  refusing or keeps moving).`,
  syncUsage: `Usage: wave-scope sync [--remote origin] [--wave N] [--clone ID] [--state-dir DIR] [--json]

  Fetches the remote's refs/wave-scope/plan and writes one published wave into this checkout's state
  directory through the one safe chain (as "plan write" does), unbound, so this clone's hooks enforce a
  plan made elsewhere. Without --wave and --clone: the one wave another clone claims now. Refuses, and
  writes nothing, when the state directory holds a plan that is not on the plan ref and would be lost.

  Exit codes: 0 synced; 1 refused (nothing or several waves to sync, an unpublished local plan, a
  symbolic link where the plan's files go, a published wave that cannot be used) or bad arguments; 2 git
  or file-system failure.`,
  releaseUsage: `Usage: wave-scope release --wave N [--remote origin] [--json]

  Ends this clone's claim on wave N on the remote's refs/wave-scope/plan (the wave's plan stays published,
  so its branches can still be verified). Claims also lapse by themselves when their TTL runs out.

  Exit codes: 0 released, or no such claim to release; 1 bad arguments or an unusable plan ref; 2 git failed.`,
  verifyUsage: `Usage: wave-scope verify --base REV --head REV --wave N --agent ID [--clone ID] [options]
       wave-scope verify --base REV --map FILE [--head REV --branch NAME | --branch NAME...] [options]

  Every path changed from the merge base of REV and the head to the head (added, modified, deleted,
  both sides of a rename, a copy's destination, a type change, a submodule added, removed or bumped)
  must lie in the agent's scope as published on refs/wave-scope/plan (its entries plus the test siblings
  its wave's role grants). Each path outside it is reported with its kind of change.

  --map FILE       branch names to agents: {"version": 1, "branches": [{"branch": "wave-{wave}/{agent}"}]}
  --branch NAME    a branch to verify (its agent from --map); with --head, the name of the head's branch.
                   Without --branch, every local and remote-tracking branch some rule of --map matches.
  --remote NAME    where the plan ref is fetched from, and whose remote-tracking branches are listed (origin)
  --clone ID       trust only this clone's published waves (a branch whose name names another is not verified)
  --no-fetch       use this clone's copy of the plan ref as it is
  --json           print the results as JSON on stdout

  Case is folded exactly when the wave was proven with case folded (published with ignoreCase).

  Exit codes: 0 every change in scope (or no branch to verify); 1 bad arguments, a bad map, no published
  scope for the agent; 2 git failed (a revision, the fetch); 3 a change outside the agent's scope.`,

  identityMoved: (id: string, from: string, to: string) => `this checkout moved (${printable(from)} → ${printable(to)}): it stays clone ${id}`,
  identityCopied: (foundId: string, foundName: string, id: string) =>
    `this checkout's git directory came from clone ${printable(foundId)} (${printable(foundName)}), which still is that clone: this checkout is clone ${id} from now on (the other's claims stay the other's)`,
  unknownRemote: (remote: string) => `no remote named "${printable(remote)}" is configured in this checkout ("git remote -v" lists them; add one with "git remote add")`,
  notInGit: (command: string) => `${command} needs a git checkout (with a remote for the plan ref); this directory is not in one`,
  badRemote: (value: string) => `--remote must be the name of a configured remote (letters, digits, ".", "_", "-"), got "${value}"`,
  badTtl: (value: string) => `--ttl must be a duration between 1s and 30d such as 90m, 4h or 2d, got "${value}"`,
  badCloneId: (value: string) => `--clone must be a clone id (as "plan show" prints it), got "${value}"`,
  badAgentId: (value: string) => `--agent must be an agent id, got "${value}"`,
  badRevision: (option: string, value: string, why?: string) => `${option} must be a revision, got "${value}"${why === undefined ? '' : ` (${why})`}`,
  gitFailed: (detail: string) => `git failed: ${detail}`,
  fileSystemFailed: (detail: string) => `file-system error: ${detail}`,

  // publish
  noPlanToPublish: (manifest: string) => `no plan to publish: ${manifest} does not exist (write one with "wave-scope plan write")`,
  unusablePlan: (detail: string) => `the local plan cannot be published: ${detail}`,
  foreignPlan: (manifest: string) => `${manifest} belongs to another session: only the session that wrote a plan publishes it`,
  incompleteDeclaration: (wave: number, problems: string) => `wave ${wave}'s declaration is not complete (${problems}): re-run "wave-scope plan write"`,
  handEditedManifest: (manifest: string) =>
    `${manifest} grants other paths than its declaration computes to (was it edited by hand?): re-run "wave-scope plan write" before publishing`,
  syncedPlan: (wave: number, clone: string) => `the plan in this state directory is wave ${wave} of ${clone}, synced here: only its own clone publishes it`,
  publishConflictHeader: (wave: number, count: number) =>
    `wave ${wave} overlaps a wave another clone claims (${count} colliding pair${count === 1 ? '' : 's'} of agents); nothing was published`,
  publishConflict: (c: { agent: string; entry: string; testSibling: boolean; otherAgent: string; otherEntry: string; otherTestSibling: boolean; witness: string; claimedBy: string; more: number }) =>
    `  agent "${c.agent}" (${printable(c.entry)}${c.testSibling ? ', a test sibling' : ''}) and agent "${c.otherAgent}" (${printable(c.otherEntry)}${c.otherTestSibling ? ', a test sibling' : ''}) of ${c.claimedBy} both claim ${printable(c.witness)}` +
    (c.more > 0 ? ` (and ${c.more} more colliding entr${c.more === 1 ? 'y' : 'ies'} between them)` : ''),
  claimedBy: (wave: number, cloneName: string, cloneId: string, since: string) => `wave ${wave} claimed by ${cloneLabel(cloneName, cloneId)} since ${since}`,
  unprovableAgainstClaims: (wave: number, detail: string) => `wave ${wave} cannot be proven disjoint from the waves other clones claim: ${detail}; nothing was published`,
  afterLostRace: (attempts: number) => `(proven again after losing ${attempts - 1} race${attempts === 2 ? '' : 's'} to another clone's push)`,
  unreadableClaim: (claimedBy: string, problems: string) => `${claimedBy} cannot be read from the plan ref (${printable(problems)}): nothing can be proven disjoint from it, so nothing was published`,
  corruptPlanRef: (remote: string, problems: string) => `the plan ref on ${remote} cannot be used (${printable(problems)}); nothing was changed`,
  pushRefused: (remote: string, reason: string) => `${remote} refused the push of refs/wave-scope/plan: ${reason}`,
  contention: (remote: string, attempts: number) => `the plan ref on ${remote} kept changing under this push (${attempts} attempts); run the command again`,
  published: (wave: number, agents: number, remote: string, commit: string, until: string) =>
    `published wave ${wave} (${agents} agent${agents === 1 ? '' : 's'}) to ${remote} refs/wave-scope/plan as ${commit.slice(0, 12)}; this clone's claim stands until ${until} (publish again to renew it)`,
  lostRaces: (attempts: number) => `lost ${attempts - 1} race${attempts === 2 ? '' : 's'} to another clone's push: fetched the new plan and proved the wave again`,
  provenAgainst: (claimedBy: string) => `disjoint from ${claimedBy}`,
  droppedExpired: (wave: number, cloneName: string, cloneId: string, at: string) => `dropped the expired claim of ${cloneLabel(cloneName, cloneId)} on wave ${wave} (expired ${at})`,
  droppedBeyondTtl: (wave: number, cloneName: string, cloneId: string, renewedAt: string, expiresAt: string) =>
    `dropped the claim of ${cloneLabel(cloneName, cloneId)} on wave ${wave}: renewed ${printable(renewedAt)} to last until ${printable(expiresAt)}, beyond the longest TTL (30 days) from this clock (is that machine's clock wrong?)`,

  // sync
  nothingToSync: (remote: string) => `no other clone claims a wave on ${remote}'s plan ref now; name one with --wave and --clone`,
  nothingMatches: (remote: string) => `no published wave on ${remote}'s plan ref matches --wave/--clone`,
  onlyOwnClaims: (waves: string) => `only this clone's own claim stands (${waves}): its plan is already here`,
  ambiguousSync: (count: number) => `${count} published waves match; name one with --wave and --clone:`,
  syncCandidate: (wave: number, cloneName: string, cloneId: string, claim: string) => `  --wave ${wave} --clone ${printable(cloneId)}   (${printable(cloneName)}${claim})`,
  ownCloneSync: 'that is this clone: its own published plan is never synced into itself',
  unusablePublishedWave: (wave: number, clone: string, problems: string) => `published wave ${wave} of clone ${clone} cannot be used: ${printable(problems)}`,
  unpublishedPlan: (stateDir: string, wave: number, foreign: boolean) =>
    `${stateDir} holds wave ${wave}${foreign ? ", another session's plan," : ','} which is not on the plan ref (never published from here, or changed since): syncing would replace it. ` +
    'Publish it ("wave-scope publish"), or move it out of the way, then sync again. Nothing was written.',
  unusableLocalManifest: (detail: string) => `${detail}; nobody can tell which plan it held, so sync will not replace it. Repair or remove it, then sync again. Nothing was written.`,
  unpublishedDeclaration: (stateDir: string, wave: number) =>
    `${stateDir} holds a declaration of wave ${wave} that is not on the plan ref: syncing would replace it. Publish it, or move it out of the way, then sync again. Nothing was written.`,
  damagedDeclaration: (stateDir: string, wave: number, problems: string) =>
    `${stateDir} holds a damaged declaration of wave ${wave} (${problems}): repair or remove it, then sync again. Nothing was written.`,
  plantedInStateDir: (path: string, found: InTheWay['found']) => inTheWayRefusal('sync', 'sync again', path, found),
  syncStopped: (step: string, message: string) => `sync stopped at step "${step}": ${printable(message)}`,
  syncDetail: (text: string) => `  ${printable(text)}`,
  synced: (wave: number, cloneName: string, cloneId: string, stateDir: string, agents: number, allowed: number, claim: string) =>
    `synced wave ${wave} of ${cloneLabel(cloneName, cloneId)}${claim} into ${stateDir}: ${agents} agent${agents === 1 ? '' : 's'}, ${allowed} allowed entr${allowed === 1 ? 'y' : 'ies'}, unbound (every session of this clone is held to it)`,
  stateDirMoved: (chosen: string, now: string) => `the state directory a plan written here goes to is no longer ${chosen} (now: ${now}; another command wrote a plan meanwhile): nothing was written; run sync again`,
  alreadySynced: (wave: number, cloneName: string, cloneId: string, stateDir: string) =>
    `${stateDir} already enforces wave ${wave} of ${cloneLabel(cloneName, cloneId)} as published; nothing was written`,
  syncedClaim: (until: string) => `, claimed until ${until}`,
  syncedUnclaimed: ', no longer claimed',
  syncedEnforcement: (enforcement: string) =>
    enforcement === 'off'
      ? 'the synced plan was published with enforcement "off": this clone\'s hooks allow every write while it stands'
      : `the synced plan was published with enforcement "${enforcement}": this clone's hooks warn about writes outside it and allow them`,
  allowedPathsDiffer: 'the allowed paths computed here differ from the published manifest\'s (another Wave Scope version?); this clone enforces its own computation',

  // release
  released: (wave: number, remote: string) => `released wave ${wave} on ${remote}: this clone's claim ended (the wave's plan stays published for verify)`,
  nothingToRelease: (wave: number, expired: boolean) =>
    expired ? `this clone's claim on wave ${wave} had already expired; nothing to release` : `this clone holds no claim on wave ${wave}; nothing to release`,

  // verify
  missingBase: '--base is required (the revision the branch is merged into, e.g. origin/main)',
  verifyNeedsTarget: 'give --head with --wave and --agent, or --map (with --branch, or alone for every matching branch)',
  verifyWaveAgentTogether: '--wave and --agent go together (and not with --map)',
  verifyHeadOneBranch: 'with --head, give at most one --branch (the name of the head\'s branch)',
  badMap: (path: string, detail: string) => `branch map ${path}: ${detail}`,
  unreadableMap: (path: string, detail: string) => `cannot read the branch map ${path}: ${detail}`,
  noPublishedScope: (wave: number, agent: string, where: string) => `no published scope for agent "${agent}" in wave ${wave} on ${where}: no scope, no write`,
  ambiguousScope: (wave: number, agent: string, clones: string) => `several clones published a wave ${wave} with agent "${agent}" (${clones}): name one with --clone`,
  unusableScope: (wave: number, clone: string, problems: string) => `wave ${wave} of clone ${clone} on the plan ref cannot be read (${printable(problems)}): nothing can be verified against it`,
  verifyMergeUnjudged: (branch: string, detail: string) =>
    `${printable(branch)}: the base moved since the branch forked, and what a merge into it would change could not be judged (${printable(detail)}; git 2.38 or later makes it with merge-tree --write-tree): only the branch's own changes were checked`,
  verifyPassed: (branch: string, wave: number, agent: string, changes: number, range: string) =>
    `ok ${printable(branch)}: ${changes} change${changes === 1 ? '' : 's'} in ${range}, all in agent "${agent}"'s scope (wave ${wave})`,
  verifyFailedHeader: (branch: string, wave: number, agent: string, count: number, range: string) =>
    `${printable(branch)}: agent "${agent}" (wave ${wave}) changed ${count} path${count === 1 ? '' : 's'} outside its scope in ${range}:`,
  verifyOutsideLine: (
    kind: string,
    path: string,
    counterpart: string | undefined,
    counterpartWord: string,
    undecodable: boolean,
    contestedBy?: string,
    claimedBy?: { clone: string; cloneName: string; wave: number; agent: string | null },
    viaMerge = false,
  ) =>
    `  ${kind}: ${printable(path)}${counterpart === undefined ? '' : ` (${counterpartWord} ${printable(counterpart)})`}${undecodable ? ' (not UTF-8: no scope names it)' : ''}` +
    (viaMerge ? ' (by the merge into the base only: the base renamed files since the branch forked, and the merge carries the branch\'s change along)' : '') +
    (contestedBy === undefined ? '' : ` (a test sibling that agent "${printable(contestedBy)}" of the wave claims too)`) +
    (claimedBy === undefined
      ? ''
      : claimedBy.agent === null
        ? ` (a test sibling inside the live claim on wave ${claimedBy.wave} of clone ${printable(claimedBy.cloneName)} (${claimedBy.clone}), whose wave cannot be read)`
        : ` (a test sibling that agent "${printable(claimedBy.agent)}" of clone ${printable(claimedBy.cloneName)} (${claimedBy.clone}) claims, wave ${claimedBy.wave})`),
  verifySkipped: (branch: string) => `skipped ${printable(branch)}: no rule of the branch map names its agent`,
  verifyNothing: 'no branch matches a rule of the branch map; nothing to verify',
  verifyBranchError: (branch: string, detail: string) => `${printable(branch)}: ${detail}`,
  verifyOtherClone: (branch: string, named: string, pinned: string) =>
    `${printable(branch)} names clone ${named}, and this run trusts only the plan of clone ${pinned} (--clone): not verified`,
  noSuchBranch: (name: string, refs: readonly string[]) => `no such branch: none of ${refs.map(printable).join(', ')} exists`,
} satisfies Catalogue;

/** How each kind of change reads in a report, and the word for its counterpart path. */
export const changeKindWords: Record<string, { kind: string; counterpart: string }> = {
  added: { kind: 'added', counterpart: '' },
  modified: { kind: 'modified', counterpart: '' },
  deleted: { kind: 'deleted', counterpart: '' },
  'renamed-from': { kind: 'renamed from', counterpart: 'to' },
  'renamed-to': { kind: 'renamed to', counterpart: 'from' },
  'copied-to': { kind: 'copied to', counterpart: 'from' },
  'type-changed': { kind: 'type changed', counterpart: '' },
  'submodule-added': { kind: 'submodule added', counterpart: '' },
  'submodule-removed': { kind: 'submodule removed', counterpart: '' },
  'submodule-bumped': { kind: 'submodule bumped', counterpart: '' },
};

/** The claims lines `plan show` prints under the plan (docs/sync.md). */
export const claimsMessages = {
  header: (remote: string, fetched: string) => `Claims on ${remote}'s plan ref (as of ${fetched}):`,
  problem: (detail: string) => `  the plan ref cannot be read: ${printable(detail)}`,
  none: '  no other clone claims a wave',
  claim: (claimedBy: string, until: string, agents: number) => `  ${claimedBy}, until ${until}: ${agents} agent${agents === 1 ? '' : 's'}`,
  ownClaim: (wave: number, since: string, until: string) => `  this clone claims wave ${wave} since ${since}, until ${until}`,
  unreadable: (claimedBy: string, problems: string) => `  ${claimedBy}: its plan cannot be read (${printable(problems)})`,
  conflict: (localWave: number, agent: string, entry: string, claimedBy: string, otherAgent: string, otherEntry: string, witness: string, more: number) =>
    `  CLAIMED wave ${localWave} agent "${agent}" ${printable(entry)}: ${printable(witness)} is ${claimedBy} (agent "${otherAgent}", ${printable(otherEntry)})${more > 0 ? `, and ${more} more colliding entr${more === 1 ? 'y' : 'ies'}` : ''}`,
} satisfies Catalogue;

// --- run, commit, hook post-bash / stop / turn-start (the turn backstop) ----------------------------
// Entries carry no "ERROR:"/"WARNING:" prefix and no final newline: print them with reportError,
// reportWarning, reportNote or printLine (src/cli/cliIo.ts).

/** How a change is named in a report: its kind, padded, then the path (and where a rename went). */
function changeText(change: { path: string; kind: string; renamedFrom?: string; renamedTo?: string }): string {
  const rename = change.renamedTo !== undefined ? ` (renamed to ${change.renamedTo})` : change.renamedFrom !== undefined ? ` (renamed from ${change.renamedFrom})` : '';
  return `${change.kind.padEnd(8)} ${change.path}${rename}`;
}

const violationWhy: Record<string, string> = {
  'outside-scope': 'outside the scope',
  'control-file': 'control state: never written by an agent',
  'no-agent-scope': 'the agent has no usable scope file',
  'outside-root': 'outside the repository',
  'invalid-path': 'a path that cannot be checked',
};

/** Why a change is refused; a test sibling another agent claims too says who. */
function whyOutside(kind: string, contestedBy: string | undefined): string {
  return contestedBy === undefined ? (violationWhy[kind] ?? kind) : `a test sibling that agent "${contestedBy}" of the wave claims too`;
}

const planChangeWhy: Record<string, string> = {
  created: 'created',
  deleted: 'deleted',
  modified: 'modified (written in place, or touched)',
  replaced: 'replaced (another file or directory now has this name)',
  linked: 'linked (a symbolic link, or a second name, now stands here)',
};

function shortEntries(entries: readonly string[]): string {
  if (entries.length === 0) return '(none: nothing may be changed)';
  const shown = entries.slice(0, 12).join(', ');
  return entries.length > 12 ? `${shown}, … and ${entries.length - 12} more` : shown;
}

function exitText(exit: { code?: number; signal?: string; error?: string }): string {
  if (exit.error !== undefined) return `could not be started (${exit.error})`;
  if (exit.signal !== undefined) return `was killed by ${exit.signal}`;
  return `exited with code ${exit.code ?? '?'}`;
}

export const backstopMessages = {
  runUsage: `Usage: wave-scope run --wave N --agent ID [--state-dir DIR] [--commit] [--confine] [--writable PATH]...
                      [--watch-ignored ENTRY]... -- <command> [args...]

  Runs one agent turn under the backstop: snapshot of the work tree, the command (stdio passed through,
  signals forwarded; its environment gains WAVE_SCOPE_WAVE, WAVE_SCOPE_AGENT, WAVE_SCOPE_STATE_DIR),
  snapshot again, and every created, modified or deleted path judged against the agent's own scope file
  DIR/filescopes/wave-N/ID.json (no scope file or an empty one allows nothing). Any change outside it
  fails the turn: exit 3, each path named, nothing committed, the work tree left exactly as it is, and
  HEAD put back (soft) if the turn moved it. The turn is recorded in .orchestrator/backstop/turns/.

  --commit              commit exactly the turn's in-scope changes when it passes and the command exits 0
  --confine             Linux: run the command in a bubblewrap sandbox where only the scope's files and
                        directories (and temp, cache, --writable) can be written; .git stays read-only
  --writable PATH       with --confine: also writable (outside the repository), e.g. ~/.claude
  --watch-ignored ENTRY also watch ignored paths the entry names (e.g. .env); WAVE_SCOPE_WATCH_IGNORED
                        adds more, ":"-separated
  --state-dir DIR       the state directory (default: the one this session resolves to, else .claude)

  Exit codes: 0 in scope and the command exited 0 (and committed, with --commit); 1 in scope, but the
  command failed (its exit code or signal is printed); 2 bad arguments, or the turn could not be
  started or checked; 3 a change outside the scope; 4 in scope, but the commit failed.`,
  commitUsage: `Usage: wave-scope commit --wave N --agent ID [--state-dir DIR]

  Commits exactly the in-scope changes of the agent's last turn recorded by "wave-scope run"
  (.orchestrator/backstop/turns/waveN/ID.json), path by path: each one judged again against the agent's
  scope as it is now, and only while it still holds what the turn left. A failed, unchecked or unfinished
  turn is never committed. The scope is the one this command resolves to, or --state-dir DIR (as given to
  "wave-scope run"); a record that names another state directory is refused, never followed.

  Exit codes: 0 committed (or nothing left to commit); 1 no usable turn record, a record of another state
  directory, or the turn is unfinished or already committed; 2 bad arguments or not in a git repository;
  3 the turn failed its scope check; 4 the commit failed.`,
  hookUsage: `Usage: wave-scope hook <post-bash|stop|turn-start> [--agent-cli claude|codex]

  post-bash    after a shell command (PostToolUse on Bash): what changed since this session's previous
               call, judged by the write gate's rules; out-of-scope changes are fed back to the agent
  stop         at the end of a turn (Stop, SubagentStop): the same check
  turn-start   when a person submits a prompt (UserPromptSubmit): takes a new baseline, reports nothing`,

  missingCommand: 'name the command after "--": wave-scope run --wave N --agent ID -- <command> [args...]',
  writableNeedsConfine: '--writable goes with --confine',
  writableInsideRepository: (path: string) => `--writable ${path} lies inside the repository: grant repository paths through the agent's scope, not here`,
  badWatchIgnored: (entry: string, detail: string) => `--watch-ignored "${entry}": ${detail}`,
  unknownHookCli: (value: string) => `unknown --agent-cli "${value}" (the backstop hooks speak claude and codex)`,

  offRepository: (cwd: string) => `${cwd} is not inside a git repository: the backstop is a no-op for this turn (nothing is checked or committed)`,
  confineNeedsRepository: '--confine needs a git repository: with none, there is no scope to confine the turn to; the command was not run',
  confineUnavailable: (detail: string) =>
    `cannot confine the turn (${detail}); the command was not run. --confine never runs a turn unconfined: install bubblewrap (Debian: apt-get install bubblewrap), or run without --confine and rely on the backstop alone`,
  noScope: (agent: string, path: string, problem: string) =>
    `agent "${agent}" has no usable scope file (${path} ${problem}): it may change nothing, and any change fails the turn`,
  emptyScope: (agent: string, path: string) => `agent "${agent}"'s scope ${path} is empty: it may change nothing, and any change fails the turn`,
  confinementNote: (note: { kind: string; entry?: string; path?: string; files?: number; target?: string }) => {
    switch (note.kind) {
      case 'root-glob':
        return `--confine: "${note.entry}" names files at the repository root, which stays read-only; only the ${note.files} existing file(s) it names are writable`;
      case 'cannot-create':
        return `--confine: "${note.entry}" cannot be created inside the sandbox (${note.path}: no directory below the repository root to grant)`;
      case 'outside-repository':
        return `--confine: "${note.entry}" leads outside the repository (${note.path}); it is not made writable`;
      case 'parent-granted':
        return `--confine: "${note.entry}" does not exist yet; ${note.path} is writable so it can be created (the backstop judges everything else written there)`;
      case 'linked':
        return `--confine: "${note.entry}" reaches ${note.path} through a symbolic link, or leads into control state (${note.target}); it is not made writable`;
      case 'linked-orchestrator':
        return `--confine: ${note.path} is not a directory of its own (it leads to ${note.target}); the sandbox would make that writable. Remove it (the hooks make it again) and run the turn again; the command was not run`;
      default:
        return `--confine: ${note.path} lies inside the repository and is not made writable`;
    }
  },
  confined: (count: number) => `--confine: the command runs in a bubblewrap sandbox; ${count} path(s) writable, everything else read-only`,
  turnNotStarted: (detail: string) => `cannot start the turn (${detail}); the command was not run`,
  recordNotWritten: (path: string, detail: string) => `the turn record ${path} could not be written (${detail})`,

  commandEnded: (program: string, exit: { code?: number; signal?: string; error?: string }) => `wave-scope run: ${program} ${exitText(exit)}`,
  turnInScope: (agent: string, wave: number, changes: number) =>
    `wave-scope run: turn of agent "${agent}" (wave ${wave}): ${changes} change${changes === 1 ? '' : 's'}, all inside its scope`,
  turnOutOfScope: (agent: string, wave: number, count: number) =>
    `turn of agent "${agent}" (wave ${wave}) changed ${count} path${count === 1 ? '' : 's'} outside its scope:`,
  violationLine: (change: { path: string; kind: string; renamedFrom?: string; renamedTo?: string }, kind: string, contestedBy?: string) =>
    `  ${changeText(change)}  (${whyOutside(kind, contestedBy)})`,
  turnPlanChanged:
    "the turn changed the wave's plan, control state no agent may change (or the coordinator changed it while the turn ran); never edit it back by hand:",
  turnPlanLine: (path: string, kind: string) => `  ${path}: ${planChangeWhy[kind] ?? kind}`,
  commitsOutOfScope: 'commits of the turn that touch paths outside the scope (or the plan):',
  turnRewound: (before: string, after: string) =>
    `the turn moved HEAD from ${before} to ${after}, which does not descend from it: commits were dropped from the branch (a reset to an earlier commit, a rewritten history, another branch)`,
  commitLine: (hash: string, subject: string, paths: readonly string[]) => `  ${hash} ${JSON.stringify(subject)}: ${paths.join(', ')}`,
  commitsTruncated: (max: number) => `the turn made more than ${max} commits: only the newest ${max} can be checked, so the turn fails`,
  plantedRepository: (path: string) =>
    `the turn planted a repository at ${path}: git run there (a git status, an editor's git view) takes it for a repository and runs what its config names; remove it before running git there`,
  turnSwitchedBranch: (before: string, after: string) =>
    `the turn left HEAD on ${after} instead of ${before}: a turn works on the branch it started on (one it leaves behind could have been rewound meanwhile)`,
  allowedLine: (against: string, entries: readonly string[]) => `allowed (${against}): ${shortEntries(entries)}`,
  nothingCommitted: 'the turn failed: nothing of it is committed, and the work tree is left exactly as the turn left it (nothing reset, nothing deleted)',
  headRestored: (before: string, after: string) =>
    `HEAD had moved during the turn (${after} → back to ${before}): a soft reset, the index and the work tree are as the turn left them; the turn's commits stay reachable by their hashes`,
  headRestoreFailed: (detail: string) => `HEAD had moved during the turn and could not be put back (${detail}); put it back yourself with "git reset --soft <commit before the turn>"`,
  turnUnchecked: (detail: string) => `the turn could not be checked after the command (${detail}); it counts as failed: nothing was committed`,
  committed: (commit: string, count: number) => `wave-scope run: committed ${count} path${count === 1 ? '' : 's'} as ${commit}`,
  nothingToCommit: 'wave-scope run: nothing to commit (the turn changed nothing that git does not already hold)',
  commitFailed: (detail: string) => `the commit of the turn's changes failed (${detail}); they are left uncommitted in the work tree`,
  drifted: (paths: readonly string[]) => `not committed, changed again since the turn ended: ${paths.join(', ')}`,
  notCommittedCommandFailed: 'the command did not succeed, so nothing was committed ("wave-scope commit" commits the turn later if you want it)',
  turnRecord: (path: string) => `turn record: ${path}`,

  noRecord: (path: string) => `no turn recorded at ${path}: run the turn with "wave-scope run" first`,
  damagedRecord: (path: string) => `${path} is not a turn record Wave Scope can use; nothing was committed`,
  recordedTurnRunning: (path: string) => `the turn in ${path} has not finished (or its supervisor died): nothing was committed`,
  recordedTurnFailed: (path: string) => `the turn in ${path} failed its scope check: nothing of it is ever committed`,
  recordedTurnUnchecked: (path: string) => `the turn in ${path} could not be checked: nothing of it is committed`,
  recordedTurnCommitted: (path: string, commit: string) => `the turn in ${path} is committed already (${commit})`,
  recordedStateDirDiffers: (path: string, recorded: string, judged: string) =>
    `the turn in ${path} names the state directory ${recorded}, but this command judges by ${judged}: nothing was committed. A turn record can be written by the turn, so it never chooses the plan; if the turn belongs to that plan, run the command again with --state-dir ${JSON.stringify(recorded)}`,
  noLongerInScope: (paths: readonly string[]) => `not committed, outside the agent's scope as it is now: ${paths.join(', ')}`,
  committedTurn: (commit: string, count: number) => `committed ${count} path${count === 1 ? '' : 's'} as ${commit}`,
  nothingLeftToCommit: 'nothing left to commit: git already holds every change of the turn',

  shellHeader: (hook: 'post-bash' | 'stop') =>
    hook === 'stop' ? 'Wave Scope: this turn changed files outside your scope:' : 'Wave Scope: the last command changed files outside your scope:',
  shellLine: (change: { path: string; kind: string; renamedFrom?: string; renamedTo?: string }, kind: string, contestedBy?: string) =>
    `- ${changeText(change)} (${whyOutside(kind, contestedBy)})`,
  shellMoreLines: (shown: number, more: number) =>
    `- and ${more} more path${more === 1 ? '' : 's'} outside the scope (only the first ${shown} are listed; \`git status\` shows every change)`,
  shellWarnHeader: 'Wave Scope (enforcement "warn"): these changes are outside the scope and stay as they are:',
  shellAdvice:
    'What to do: if you made these changes, undo exactly them (restore the file from git, remove what you created) and stay inside your scope. If you did not make them, another agent or a person did: leave them alone and tell the coordinator. Never edit the manifest or filescopes/.',
  shellInvalidManifest: (path: string, problems: readonly string[]) =>
    `Wave Scope cannot check what the last command changed: the wave manifest ${path} is unusable (${problems.join('; ')}). Stop changing files until the coordinator repairs it.`,
  shellDamaged:
    'Wave Scope could not read the snapshot it kept after the previous command, so what changed since then was not checked; it took a new one. If that was not you, tell the coordinator.',
  shellFailed: (detail: string) =>
    `Wave Scope could not check what the last command changed (${detail}). Tell the coordinator; "wave-scope run" checks the whole turn.`,
  shellPayload: (detail: string) => `Wave Scope could not read this hook call (${detail}); nothing was checked. Check that the hook is registered for the right agent CLI (docs/hooks.md).`,
  shellPlanHeader: (hook: 'post-bash' | 'stop') =>
    `Wave Scope: the wave's plan changed ${hook === 'stop' ? 'during this turn' : 'since your previous check'}. The plan (the manifest, filescopes/, the session record and the hook launcher) is control state: no agent may change it, whatever its scope says:`,
  shellPlanLine: (path: string, kind: string) => `- ${path}: ${planChangeWhy[kind] ?? kind}`,
  shellPlanAdvice: (firstCheck: boolean) =>
    `What to do: never edit these files back by hand, and write nothing that a change to them allowed. If a command of yours changed them, stop and tell the coordinator exactly what you ran. The coordinator writes the plan, so it may also have changed them between two of your calls${firstCheck ? ' (this is your first check, compared with the coordinator\'s last one: that is the likelier case)' : ''}: then tell the coordinator and do nothing else about it.`,
  shellPlanGone:
    'With these changes no wave\'s plan is in force here (there is no manifest, or it names another session), so nothing else could be checked in this call. Everything you change meanwhile is judged against the plan once it is back.',
  shellPlanUncompared:
    'Wave Scope could not compare the plan files (the manifest, filescopes/, the session record and the hook launcher) this time: the snapshot it kept was saved by an earlier version, without them. The work tree was compared as usual; the plan is compared from the next call on.',
  shellOffRepository: (cwd: string) => `wave-scope hook: ${cwd} is not inside a git repository; nothing to check`,
} satisfies Catalogue;

// --- the hook launcher ----------------------------------------------------------------------

export const launcherMessages = {
  cliMissing: (detail: string) =>
    `Wave Scope blocked this call: its hook launcher cannot run the wave-scope CLI (${detail}). Repair it with "wave-scope install-hooks" (from a wave-scope installed outside this repository: the extension, or a dist/cli.js kept outside it), or set WAVE_SCOPE_CLI to a dist/cli.js outside the repository; "wave-scope doctor" checks the result.`,
  failedOpen: (hook: string, detail: string) =>
    `wave-scope: the ${hook} hook did not run and let this call through: its launcher cannot run the wave-scope CLI (${detail}). Repair it with "wave-scope install-hooks"; "wave-scope doctor" checks the result.`,
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

// --- scope entry warnings (engineer "scope"): typos the grammar accepts; never change an exit code ----------

export const scopeWarningMessages = {
  /** A warning about an entry of a sidecar's record; `warning` is the scope engine's sentence. */
  inSidecar: (path: string, record: string, warning: string) => `sidecar ${path}, record "${record}": ${warning}`,
  /** A warning about an entry of one agent's scope file. */
  inScopeFile: (path: string, warning: string) => `scope file ${path}: ${warning}`,
  /** A warning about an entry of a record piped on stdin (plan write, materialize). */
  inRecords: (record: string, warning: string) => `record "${record}" on stdin: ${warning}`,
} satisfies Catalogue;
