// Every sentence the `wave-scope` command says to a person lives here, so wording stays consistent
// and tests can name the message they expect. Each command has its own section.

const version = 'wave-scope 0.1.0';

const usage = `Usage: wave-scope <command> [options]

Commands:
  validate       check a wave's declarations (disjointness, subset, union) or a manifest
  materialize    write a wave's per-agent scope files and aggregate sidecar
  plan           write a whole wave safely (materialize, prove disjoint, union, manifest) or show the plan
  digest         print the digest of one agent's scope, or the prompt line that asks for its echo
  hook           run one enforcement hook (reads the agent CLI's payload on stdin)
  install-hooks  install or remove Wave Scope's hooks for Claude Code, Codex, Cursor and git

Run "wave-scope <command> --help" for a command's options. Exit codes: docs/cli.md.
`;

function describeError(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

export const messages = {
  version,
  usage,
  unknownCommand: (name: string) => `ERROR: unknown command "${name}". Run "wave-scope --help" for the list.\n`,
  internalError: (error: unknown) => `ERROR: wave-scope failed unexpectedly: ${describeError(error)}\n`,
  notImplemented: (name: string) => `ERROR: "${name}" is not implemented yet.\n`,
  unexpectedArgument: (value: string) => `unexpected argument "${value}"`,
  badArguments: (command: string, detail: string) =>
    `ERROR: ${detail}\nRun "wave-scope ${command} --help" for its options.\n`,
};

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

Exit codes: 0 passed, 1 a check failed, 2 unusable input (missing file, bad JSON, wrong shape, rejected entry).
`,
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
    `ERROR: agents "${collision.agents[0]}" and "${collision.agents[1]}" both claim ${collision.entries[0]} and ${collision.entries[1]} (for example ${collision.witness})\n`,
  duplicateId: (id: string) => `ERROR: agent id "${id}" is used by more than one record (ids are compared without regard to case): give each agent its own id\n`,
  notCovered: (entry: string, file: string, coverage: { undecided: boolean; counterexample?: string }) =>
    coverage.undecided
      ? `ERROR: ${entry} (in ${file}) could not be proven inside allowedPaths (the check ran out of budget): list it explicitly\n`
      : `ERROR: ${entry} (in ${file}) is not inside allowedPaths${coverage.counterexample === undefined ? '' : ` (for example ${coverage.counterexample})`}\n`,
};

// --- hook, install-hooks (engineer "hooks") ---------------------------------------------------

/** Longest list of allowed entries a deny reason shows before it says "and N more". */
const SHOWN_ENTRIES = 12;

function shortList(entries: readonly string[]): string {
  if (entries.length === 0) return '(none: this wave allows no writes)';
  const shown = entries.slice(0, SHOWN_ENTRIES).join(', ');
  return entries.length > SHOWN_ENTRIES ? `${shown}, … and ${entries.length - SHOWN_ENTRIES} more` : shown;
}

export const hookMessages = {
  usage: `Usage: wave-scope hook <enforce-write|commit-guard> [options]

  enforce-write [--agent-cli claude|codex|cursor|gemini]
      Reads one pre-tool payload on stdin and allows or denies the write (see docs/hooks.md).
      Without --agent-cli the payload's shape says which agent CLI sent it.
  commit-guard
      The git pre-commit check: every staged path must lie in the active wave's scope.
`,
  unknownSubcommand: (name: string) => `ERROR: unknown hook "${name}". Hooks: enforce-write, commit-guard.\n`,
  badAgentCli: (value: string) => `unknown --agent-cli "${value}" (expected claude, codex, cursor or gemini)`,
  targetProblem: (raw: string, problem: string) => {
    const why: Record<string, string> = {
      empty: 'the path is empty',
      nul: 'the path contains a NUL byte',
      'not-a-string': 'the path is not a string',
      backslash: 'the path contains "\\", which this system does not read as a separator; spell it with "/"',
      'too-long': 'the path is longer than the system allows',
      'link-loop': 'the path runs into a loop of symbolic links',
      'relative-without-cwd': 'the path is relative and the payload names no working directory',
    };
    return `"${raw}" cannot be checked: ${why[problem] ?? problem}`;
  },
  controlFile: (shown: string) =>
    `${shown} is control state (the wave manifest, filescopes/, the hook launcher, an agent CLI's hook settings, or git's own files and hooks); a dispatched agent never writes it`,
  outsideRoot: (shown: string, root: string) => `${shown} is outside this checkout (${root}) and no absolute grant covers it`,
  outsideWave: (shown: string, wave: number) => `${shown} is not in wave ${wave}'s allowed paths`,
  outsideAgent: (shown: string, agent: string) => `${shown} is not in agent "${agent}"'s own scope`,
  noAgentScope: (agent: string, path: string, problem: string) =>
    `agent "${agent}" has no usable scope file (${path} ${problem}): no scope, no write`,
  denyHeader: 'Wave Scope blocked this write.',
  warnHeader: 'Wave Scope (enforcement "warn"): this write is outside the wave\'s scope and goes ahead anyway.',
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
  lastResort: (detail: string) => `wave-scope hook: could not even answer with a deny (${detail}); exiting 2 so the agent CLI blocks the call.\n`,

  commitBlockedHeader: (wave: number, manifest: string) =>
    `wave-scope commit-guard: this commit stages paths outside wave ${wave}'s scope (${manifest}):\n`,
  commitWarnHeader: (wave: number, manifest: string) =>
    `wave-scope commit-guard (enforcement "warn"): these staged paths are outside wave ${wave}'s scope (${manifest}); committing anyway:\n`,
  commitBlockedLine: (path: string, status: string) => `  ${path} (${status}): not in allowedPaths nor in an earlier wave of this session\n`,
  commitEarlierWave: (path: string, wave: number) => `wave-scope commit-guard: ${path} belongs to wave ${wave} of this session — allowed.\n`,
  commitAdvice:
    'Unstage them ("git restore --staged <path>"), or add them to the wave plan and rewrite the manifest. Earlier waves count only when WAVE_SCOPE_SESSION_START is set (docs/hooks.md).\n',
  commitInvalidManifest: (path: string, problems: readonly string[]) =>
    `wave-scope commit-guard: the wave manifest ${path} is unusable (${problems.join('; ')}). Repair it ("wave-scope plan" or by hand) or delete it to end the wave; the commit is blocked until then.\n`,
  commitFailure: (detail: string) => `wave-scope commit-guard failed: ${detail}\nThe commit is blocked (fail closed).\n`,
};

export const installHooksMessages = {
  usage: `Usage: wave-scope install-hooks [--claude] [--codex] [--cursor] [--gemini] [--git] [--uninstall] [--dry-run]

  Merges Wave Scope's hooks into .claude/settings.json, .codex/hooks.json, .cursor/hooks.json,
  .gemini/settings.json and the git pre-commit hook, keeping every existing key and hook. Without a target flag: every agent CLI
  whose config directory exists, plus git. --uninstall removes only Wave Scope's own entries.
  --dry-run prints what would change and writes nothing.
`,
  notInRepository: (cwd: string) => `ERROR: ${cwd} is not inside a git checkout; run install-hooks from the repository.\n`,
  wrote: (path: string) => `wrote ${path}\n`,
  removed: (path: string) => `removed ${path}\n`,
  unchanged: (path: string) => `unchanged ${path}\n`,
  wouldWrite: (path: string) => `would write ${path}\n`,
  wouldRemove: (path: string) => `would remove ${path}\n`,
  badSettings: (path: string, detail: string) =>
    `ERROR: ${path} is not a JSON object (${detail}); fix or move it and run install-hooks again. Nothing was written.\n`,
  noCli: 'ERROR: cannot find dist/cli.js to record in the launcher; run install-hooks through the installed wave-scope command.\n',
};

// --- materialize, plan, digest (declarations) --------------------------------------------------

export const declarationMessages = {
  materializeUsage: `Usage: wave-scope materialize --state-dir DIR --wave N [--warn-missing] [--new-file PATH]... [--json] < records

  Reads one JSON array of {"id", "files"} records on stdin and writes both declaration shapes:
  DIR/filescopes/wave-N/<id>.json (per agent) and DIR/filescopes/wave-N.scopes.json (the aggregate, last).
  The whole input is validated before anything is written. Per-agent files of agents no longer in
  the wave are removed. A record with the id "coordinator" holds the coordinator's own edits.

  --warn-missing    name declared plain paths that do not exist (stderr only; exit code unchanged)
  --new-file PATH   a file the wave will create: must be one of the declared paths (repeatable)
  --json            print {"wave", "stateDir", "written", "removed"} on stdout

  Exit codes: 0 written; 1 invalid input or arguments, nothing written; 2 file-system error.
`,
  planUsage: `Usage: wave-scope plan write --wave N --role R [--state-dir DIR] [--enforcement strict|warn|off]
                         [--new-file PATH]... [--blocked-command CMD]... [--json] < records
       wave-scope plan show [--state-dir DIR] [--json]

  plan write runs the one safe chain: validate, prove the scopes disjoint, materialize both shapes,
  assert disjoint on the aggregate as written, compute allowedPaths (union plus test siblings for the
  role), write DIR/wave-scope.json bound to this process's session id (CLAUDE_CODE_SESSION_ID; unbound
  without one). Any failure stops the chain before the manifest is written and names the step.
  Without --state-dir: the state directory this session resolves to (new plans: .claude).

  plan show prints every wave on disk: agents, entries with match counts, collisions, the manifest.

  Exit codes (write): 0 written; 1 invalid input, another session's manifest, or colliding scopes;
  2 file-system error. (show): 0; 1 bad arguments; 2 file-system error.
`,
  digestUsage: `Usage: wave-scope digest --wave N --agent ID [--state-dir DIR] [--instruction]

  Prints the scope digest of one agent's scope file (ws1- and 16 hex digits; docs/file-formats.md).
  --instruction prints instead the line a coordinator puts beside the agent's FILE-SCOPE block,
  asking the agent to echo the digest in its report.

  Exit codes: 0 printed; 1 bad arguments, no such agent in that wave, or an unusable scope file;
  2 file-system error.
`,
  unknownPlanSubcommand: (name: string) => `unknown plan subcommand "${name}" (expected "write" or "show")`,
  missingOption: (option: string) => `${option} is required`,
  badWave: (value: string) => `--wave must be a positive integer, got "${value}"`,
  badEnforcement: (value: string) => `--enforcement must be strict, warn or off, got "${value}"`,
  emptyRole: '--role must not be empty',
  noRecords: 'no records on stdin: pipe a JSON array of {"id", "files"} records into the command',
  recordsNotJson: (detail: string) => `the records on stdin are not valid JSON: ${detail}`,
  error: (text: string) => `ERROR: ${text}\n`,
  warning: (text: string) => `WARNING: ${text}\n`,
  nothingWritten: 'ERROR: nothing was written.\n',
  fileSystemError: (detail: string) => `ERROR: file-system error, the wave's aggregate is not written: ${detail}\n`,
  missingPath: (agent: string, path: string) =>
    `WARNING: agent "${agent}" declares "${path}", which does not exist (pass --new-file ${path} if the wave creates it)\n`,
  materialized: (wave: number, agents: number, removed: number, sidecar: string) =>
    `wave ${wave}: wrote ${agents} per-agent file${agents === 1 ? '' : 's'}${removed > 0 ? `, removed ${removed} stale` : ''}, aggregate ${sidecar}\n`,
  planStopped: (step: string, message: string) => `ERROR: plan write stopped at step "${step}": ${message}\n`,
  planDetail: (text: string) => `ERROR:   ${text}\n`,
  planWritten: (wave: number, role: string, manifest: string, allowed: number, bound: string | undefined) =>
    `wave ${wave} (${role}) planned: ${manifest} grants ${allowed} entr${allowed === 1 ? 'y' : 'ies'}; ${bound === undefined ? 'unbound (no session id in this process)' : `bound to session ${bound}`}\n`,
  planAgentDigest: (id: string, digest: string) => `  ${id}: ${digest}\n`,
  noAgentScope: (detail: string) => `ERROR: ${detail}\n`,
  unusualStateDir: (shown: string) =>
    `WARNING: ${shown} is not one of .pi, .cursor, .codex, .claude at the repository root: the hooks will not read these declarations\n`,
};

// --- scope entry warnings (engineer "scope"): typos the grammar accepts; never change an exit code ----------

export const scopeWarningMessages = {
  /** A warning about an entry of a sidecar's record; `warning` is the scope engine's sentence. */
  inSidecar: (path: string, record: string, warning: string) => `sidecar ${path}, record "${record}": ${warning}`,
  /** A warning about an entry of one agent's scope file. */
  inScopeFile: (path: string, warning: string) => `scope file ${path}: ${warning}`,
  /** A warning about an entry of a record piped on stdin (plan write, materialize). */
  inRecords: (record: string, warning: string) => `record "${record}" on stdin: ${warning}`,
};
