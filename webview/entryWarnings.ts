// The typo warnings the planner shows at an entry (issue 9): an empty brace alternative (`x/{a,}` also
// names all of `x/`), an unclosed `[` or `{` (read literally, so `src/**/*.{ts` names almost nothing), and a
// pattern that names none of the repository's files. The scope engine owns them (`scopeEntryWarnings` in
// src/planner/scope/scopeWarnings.ts, the same the CLI prints): this module only names them for the
// webview, so nothing in the webview decides what a typo is.
import { scopeEntryWarnings } from '../src/planner/scope/scopeWarnings';
import type { ScopeEntryWarning, ScopeEntryWarningReason, ScopeWarningOptions } from '../src/planner/scope/scopeWarnings';

/** Why an entry is probably a typo (the scope engine's reason). */
export type EntryWarningReason = ScopeEntryWarningReason;

/** One warning about one entry, for a person. */
export type EntryWarning = ScopeEntryWarning;

/** Case folding, and the repository's files (a pattern that names none of them gets `matches-nothing`). */
export type EntryWarningOptions = ScopeWarningOptions;

/**
 * The typo warnings for one entry, as written (before normalisation, which can erase the evidence). An
 * entry the grammar refuses gets none: its error says more.
 */
export function entryWarnings(entry: string, options: EntryWarningOptions = {}): EntryWarning[] {
  return scopeEntryWarnings(entry, options);
}
