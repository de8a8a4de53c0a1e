// The Claude Code hooks the dispatch guard needs, as data for the installer (src/planner/enforce/
// hookInstaller.ts merges them like the write gate's). Both fail open: their commands must not end in
// `|| exit 2` (exit 2 would block the dispatch), and neither can change what a tool call writes.

/** One hook entry to merge into `.claude/settings.json`. */
export interface DispatchHookRegistration {
  readonly agentCli: 'claude';
  readonly configFile: '.claude/settings.json';
  /** The `hooks.<event>` list it goes into. */
  readonly event: 'PreToolUse' | 'SubagentStart';
  /**
   * The group's matcher. `Agent|Task`: the dispatch tool (`Task` in Claude Code before it was renamed).
   * SubagentStart matches on the agent type; `*` takes every type.
   */
  readonly matcher: string;
  readonly layout: 'grouped';
  /** The launcher's arguments: `<launcher> hook-name --agent-cli claude`. */
  readonly launcherArgs: readonly string[];
  /** True for every dispatch hook: a failure must let the call through (no `|| exit 2`). */
  readonly failOpen: true;
}

export const DISPATCH_HOOK_REGISTRATIONS: readonly DispatchHookRegistration[] = [
  {
    agentCli: 'claude',
    configFile: '.claude/settings.json',
    event: 'PreToolUse',
    matcher: 'Agent|Task',
    layout: 'grouped',
    launcherArgs: ['pre-dispatch', '--agent-cli', 'claude'],
    failOpen: true,
  },
  {
    agentCli: 'claude',
    configFile: '.claude/settings.json',
    event: 'SubagentStart',
    matcher: '*',
    layout: 'grouped',
    launcherArgs: ['subagent-start', '--agent-cli', 'claude'],
    failOpen: true,
  },
];

/** The command Claude Code runs for a registration, given the launcher's path as the installer spells it. */
export function dispatchHookCommand(registration: DispatchHookRegistration, launcherCommand: string): string {
  return `${launcherCommand} ${registration.launcherArgs.join(' ')}`;
}
