// The hook targets Install Hooks, Uninstall Hooks and Verify Hooks offer: each agent CLI the installer
// knows, and git. Their names and flags are the CLI's (`wave-scope install-hooks --claude …`,
// `wave-scope doctor --git`); this is how the editor spells them for a person.

/** An agent CLI or git, as the CLI's flags name them. */
export type HookTarget = 'claude' | 'codex' | 'cursor' | 'gemini' | 'git';

/** The agent CLIs, in the order the CLI lists them. */
export const AGENT_CLIS_FOR_SETTINGS = ['claude', 'codex', 'cursor', 'gemini'] as const;

/** Every target, agent CLIs first. */
export const HOOK_TARGETS: readonly HookTarget[] = [...AGENT_CLIS_FOR_SETTINGS, 'git'];

/** How a person calls each target. */
export const HOOK_TARGET_LABELS: Readonly<Record<HookTarget, string>> = {
  claude: 'Claude Code',
  codex: 'Codex',
  cursor: 'Cursor',
  gemini: 'Gemini CLI',
  git: 'git (pre-commit)',
};

/** Whether `value` names a target. */
export function isHookTarget(value: unknown): value is HookTarget {
  return typeof value === 'string' && (HOOK_TARGETS as readonly string[]).includes(value);
}
