// The backstop's hook registrations, as data for `wave-scope install-hooks` (which owns the merging
// into each agent CLI's settings; see src/planner/enforce/hookInstaller.ts). Claude Code and Codex
// read the same `hooks.<Event>: [{matcher?, hooks: [{type, command}]}]` layout; Codex maps its shell
// tool (`exec_command`, `shell`) to the matcher `Bash` (docs/hooks.md cites the sources).

/** One hook the installer adds. */
export interface BackstopHookRegistration {
  readonly agentCli: 'claude' | 'codex';
  /** The settings file, relative to the repository root. */
  readonly configFile: '.claude/settings.json' | '.codex/hooks.json';
  readonly event: 'PostToolUse' | 'Stop' | 'SubagentStop' | 'UserPromptSubmit';
  /** The tool matcher (`PostToolUse` only; the other events take none). */
  readonly matcher?: string;
  /** The hook subcommand: `<launcher> <subcommand> --agent-cli <agentCli>`. */
  readonly subcommand: 'post-bash' | 'stop' | 'turn-start';
  /**
   * Whether the command ends in `|| exit 2` (a launcher that cannot start still reaches the agent).
   * Not for the turn boundaries: exit 2 at `Stop` keeps the turn from ending, and a broken launcher
   * would then trap the agent in its turn; at `UserPromptSubmit` it would refuse the person's prompt.
   */
  readonly exitTwoOnFailure: boolean;
}

const CLAUDE = { agentCli: 'claude', configFile: '.claude/settings.json' } as const;
const CODEX = { agentCli: 'codex', configFile: '.codex/hooks.json' } as const;

/** Every registration, in the order the installer writes them. */
export const BACKSTOP_HOOK_REGISTRATIONS: readonly BackstopHookRegistration[] = [
  { ...CLAUDE, event: 'PostToolUse', matcher: 'Bash', subcommand: 'post-bash', exitTwoOnFailure: true },
  { ...CLAUDE, event: 'Stop', subcommand: 'stop', exitTwoOnFailure: false },
  { ...CLAUDE, event: 'SubagentStop', subcommand: 'stop', exitTwoOnFailure: false },
  { ...CLAUDE, event: 'UserPromptSubmit', subcommand: 'turn-start', exitTwoOnFailure: false },
  { ...CODEX, event: 'PostToolUse', matcher: 'Bash', subcommand: 'post-bash', exitTwoOnFailure: true },
  { ...CODEX, event: 'Stop', subcommand: 'stop', exitTwoOnFailure: false },
  { ...CODEX, event: 'SubagentStop', subcommand: 'stop', exitTwoOnFailure: false },
  { ...CODEX, event: 'UserPromptSubmit', subcommand: 'turn-start', exitTwoOnFailure: false },
];

/**
 * The command text of one registration, given how the installer spells the launcher for that agent
 * CLI (`node "$CLAUDE_PROJECT_DIR"/'.claude/wave-scope-hook.cjs'` for Claude Code, the absolute
 * launcher path for Codex).
 */
export function backstopHookCommand(registration: BackstopHookRegistration, launcher: string): string {
  const command = `${launcher} ${registration.subcommand} --agent-cli ${registration.agentCli}`;
  return registration.exitTwoOnFailure ? `${command} || exit 2` : command;
}
