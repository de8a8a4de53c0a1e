// Which session a manifest belongs to. Identity comes only from what this process itself carries
// (the hook payload's session id and CLAUDE_CODE_SESSION_ID), never from a repo-global lock file:
// a file every session of the checkout can write cannot tell sessions apart.

/** `own`: names one of our ids. `foreign`: names ids, none ours, and we have ids. `unknown`: anything else. */
export type SessionVerdict = 'own' | 'foreign' | 'unknown';

/** The environment variable Claude Code exports with its session id. */
export const SESSION_ENV_VARIABLE = 'CLAUDE_CODE_SESSION_ID';

// Manifest keys that name the writer, current spelling first, then the legacy pair readers still honour.
const MANIFEST_SESSION_KEYS = ['session_id', 'semantic_session_id', 'session', 'semantic_session'] as const;

function trimmedId(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

/**
 * The session ids this process can prove are its own: every payload `session_id` given plus
 * `CLAUDE_CODE_SESSION_ID`, each trimmed, blanks dropped, unioned (not first-wins: a nested harness or
 * a subagent carries two different ids and both are ours). Empty when the process carries none.
 */
export function processLocalSessionIds(input: {
  payloadSessionIds?: unknown[];
  env: Readonly<Record<string, string | undefined>>;
}): Set<string> {
  const ids = new Set<string>();
  for (const candidate of input.payloadSessionIds ?? []) {
    const id = trimmedId(candidate);
    if (id !== undefined) ids.add(id);
  }
  const fromEnv = trimmedId(input.env[SESSION_ENV_VARIABLE]);
  if (fromEnv !== undefined) ids.add(fromEnv);
  return ids;
}

/** The ids a parsed manifest names (trimmed, blanks dropped); empty for anything that is not an object. */
export function manifestSessionIds(manifest: unknown): string[] {
  if (typeof manifest !== 'object' || manifest === null || Array.isArray(manifest)) return [];
  const record = manifest as Record<string, unknown>;
  const ids: string[] = [];
  for (const key of MANIFEST_SESSION_KEYS) {
    const id = trimmedId(record[key]);
    if (id !== undefined && !ids.includes(id)) ids.push(id);
  }
  return ids;
}

/**
 * Classifies a parsed manifest against this process's ids. Only what is provably foreign is foreign:
 * a manifest naming no id, or a process with no id of its own, is `unknown` (and so enforced).
 * A corrupt manifest should be passed as whatever parsed (or undefined): it names no id, so `unknown`.
 */
export function classifyManifestSession(manifest: unknown, ownIds: ReadonlySet<string>): SessionVerdict {
  const named = manifestSessionIds(manifest);
  if (named.length === 0) return 'unknown';
  if (named.some((id) => ownIds.has(id))) return 'own';
  return ownIds.size === 0 ? 'unknown' : 'foreign';
}

/**
 * The binding a writer puts into the manifest it writes: its own first process-local id, or nothing
 * (keys omitted: the manifest stays unbound) when the process carries none.
 */
export function writerSessionBinding(ownIds: ReadonlySet<string>): { session_id?: string } {
  for (const id of ownIds) return { session_id: id };
  return {};
}
