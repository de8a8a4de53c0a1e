// The names of the state directories and of the files Wave Scope keeps in them: the one home of these
// facts (stateDir.ts re-exports them beside the lookup). A leaf module, so the declaration paths, the
// manifest validator and the catalogue of control state can all use it without an import cycle.

/** The candidate state directories, in resolution order. */
export const STATE_DIR_NAMES = ['.pi', '.cursor', '.codex', '.claude'] as const;

/** The directory a new plan is written to when none exists yet. */
export const DEFAULT_STATE_DIR_NAME = '.claude';

/** The manifest's file name inside a state directory. */
export const MANIFEST_FILE_NAME = 'wave-scope.json';

/** The directory of the declarations inside a state directory. */
export const FILESCOPES_DIR_NAME = 'filescopes';

/** The hook launcher's file name inside a state directory; every hook command we install names it, and nothing else does. */
export const LAUNCHER_FILE_NAME = 'wave-scope-hook.cjs';

/** The session record inside a state directory: which session runs the waves there and since when (written by the SessionStart hook). */
export const SESSION_FILE_NAME = 'wave-scope-session.json';

/** A brace glob naming every state directory's manifest and declarations: what a watcher of the plan watches. */
export const STATE_FILES_GLOB = `{${STATE_DIR_NAMES.join(',')}}/{${MANIFEST_FILE_NAME},${FILESCOPES_DIR_NAME}/**}`;

/**
 * The directory of runtime state at the root of the coordinator's checkout: dispatch ledgers, turn
 * records, hook baselines, telemetry. Never part of a plan, never a scope's territory.
 */
export const ORCHESTRATOR_DIR_NAME = '.orchestrator';

/** The telemetry events file (one JSON record per line), relative to the repository root. */
export const EVENTS_FILE = `${ORCHESTRATOR_DIR_NAME}/metrics/events.jsonl`;
