// The `wave-scope hook <name>` subcommands, and which of them let the agent CLI's call through when
// they cannot run. A small module of its own because the hook launcher loads it: the launcher must
// decide without the CLI (that is when it decides), and it is on the path of every write.

/** Every hook the CLI serves, in the order `hook --help` lists them. */
export const HOOK_NAMES = ['enforce-write', 'commit-guard', 'session-start', 'pre-dispatch', 'subagent-start', 'post-bash', 'stop', 'turn-start'] as const;

export type HookName = (typeof HOOK_NAMES)[number];

/**
 * The hooks that fail open: a session start records evidence and must never stop a session; the
 * dispatch guard cannot change what a tool call writes, and refusing every dispatch because it could
 * not run would stop the work it exists to protect; exit 2 at a turn's end keeps the turn from ending
 * (a broken launcher would trap the agent in it) and at a prompt refuses the person's prompt. The
 * write gate, the commit guard and the post-shell check fail closed. The installer's rows
 * (`whenLauncherFails` in hookInstaller.ts) agree with this set; a test holds them together.
 */
export const FAIL_OPEN_HOOKS: ReadonlySet<string> = new Set<HookName>(['session-start', 'pre-dispatch', 'subagent-start', 'stop', 'turn-start']);
