// The one rule for agent ids. An id becomes a file name (`filescopes/wave-<N>/<id>.json`), a ledger key
// and a lane in the planner, so every place that accepts one asks this module: the declaration writer,
// the write gate (`WAVE_SCOPE_AGENT`), the dispatch guard and the planner webview (which may import this
// file and nothing else of plan/: it has no imports of its own).

/** The id rule as a regular-expression source without anchors, for patterns that find ids inside text. */
export const AGENT_ID_SOURCE = '[A-Za-z0-9][A-Za-z0-9_-]*';

/** What an agent id must look like: a letter or digit, then letters, digits, `_` and `-`. */
export const AGENT_ID_PATTERN = new RegExp(`^${AGENT_ID_SOURCE}$`);

/** Longest accepted agent id (file systems cap names at 255 bytes; leave room for the suffix and temp names). */
export const MAX_AGENT_ID_LENGTH = 128;

/** The id of the record that holds the coordinator's own planned edits (exactly this spelling). */
export const COORDINATOR_ID = 'coordinator';

/** Whether `id` can be an agent id (and so a file name). */
export function isAgentId(id: unknown): boolean {
  return typeof id === 'string' && id.length <= MAX_AGENT_ID_LENGTH && AGENT_ID_PATTERN.test(id);
}
