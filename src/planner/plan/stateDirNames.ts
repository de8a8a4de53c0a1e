// The names of the state directories and of the files Wave Scope keeps in them: the one home of these
// facts (stateDir.ts re-exports them beside the lookup). A leaf module, so the declaration paths, the
// manifest validator and the catalogue of control state can all use it without an import cycle.

/** The candidate state directories, in resolution order. */
export const STATE_DIR_NAMES = ['.pi', '.cursor', '.codex', '.claude'] as const;

/** One of STATE_DIR_NAMES. */
export type StateDirName = (typeof STATE_DIR_NAMES)[number];

/** The directory a new plan is written to when none exists yet. */
export const DEFAULT_STATE_DIR_NAME = '.claude';

/** The manifest's file name inside a state directory. */
export const MANIFEST_FILE_NAME = 'wave-scope.json';

/** The hook launcher's file name inside a state directory; every hook command we install names it, and nothing else does. */
export const LAUNCHER_FILE_NAME = 'wave-scope-hook.cjs';

/** Whether `name` is one of STATE_DIR_NAMES. */
export function isStateDirName(name: string): name is StateDirName {
  return (STATE_DIR_NAMES as readonly string[]).includes(name);
}
