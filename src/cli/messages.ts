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
  badArguments: (command: string, detail: string) =>
    `ERROR: ${detail}\nRun "wave-scope ${command} --help" for its options.\n`,
};
