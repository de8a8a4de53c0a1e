// The typo warnings the planner shows at an entry (issue 9): an empty brace alternative (`x/{a,}` also
// names all of `x/`), an unclosed `[` or `{` (read literally, so `src/**/*.{ts` names almost nothing), and a
// pattern that names none of the repository's files. The scope engine owns these warnings
// (`scopeEntryWarnings` in src/planner/scope/scopeWarnings.ts, on the `scope` branch); until that lands
// on main this module is the planner's stand-in with the same signature and reasons, and afterwards its
// body becomes one call to the engine. Nothing else in the webview decides what a typo is.
import type { FileIndex } from '../src/planner/scope/fileIndex';
import { compileScopeEntry, normalizeScopeEntry, ScopeEntryError } from '../src/planner/scope/scopeEntry';

/** Why an entry is probably a typo (the scope engine's ScopeEntryWarningReason). */
export type EntryWarningReason = 'empty-alternative' | 'unclosed-bracket' | 'unclosed-brace' | 'matches-nothing';

/** One warning about one entry, for a person. */
export interface EntryWarning {
  readonly reason: EntryWarningReason;
  /** The entry as it was given. */
  readonly entry: string;
  /** One sentence, naming the entry. */
  readonly message: string;
}

export interface EntryWarningOptions {
  ignoreCase?: boolean;
  /** The repository's files: a pattern that names none of them gets `matches-nothing`. */
  files?: FileIndex;
}

const quote = (text: string) => JSON.stringify(text);

/** Segments with a `[` that no `]` closes in the same segment. */
function unclosedBrackets(path: string): string[] {
  return path.split('/').filter((segment) => {
    let open = -1;
    for (let at = 0; at < segment.length; at += 1) {
      const char = segment[at];
      if (char === '\\') at += 1;
      else if (char === '[' && open < 0) open = at;
      else if (char === ']' && open >= 0 && at > open + 1) open = -1;
    }
    return open >= 0;
  });
}

/** Whether a `{` is never closed, reading outside brackets. */
function hasUnclosedBrace(path: string): boolean {
  let depth = 0;
  for (let at = 0; at < path.length; at += 1) {
    const char = path[at];
    if (char === '\\') at += 1;
    else if (char === '{') depth += 1;
    else if (char === '}' && depth > 0) depth -= 1;
  }
  return depth > 0;
}

/** Whether a brace group with a comma has an empty alternative (`{a,}`, `{,a}`, `{a,,b}`). */
function hasEmptyAlternative(path: string): boolean {
  const stack: { start: number; commas: number; empty: boolean; last: number }[] = [];
  for (let at = 0; at < path.length; at += 1) {
    const char = path[at];
    if (char === '\\') {
      at += 1;
      continue;
    }
    const top = stack[stack.length - 1];
    if (char === '{') stack.push({ start: at, commas: 0, empty: false, last: at });
    else if (char === ',' && top) {
      if (at === top.last + 1) top.empty = true;
      top.commas += 1;
      top.last = at;
    } else if (char === '}' && top) {
      stack.pop();
      if (top.commas > 0 && (top.empty || at === top.last + 1)) return true;
    }
  }
  return false;
}

/**
 * The typo warnings for one entry, as written (before normalisation, which can erase the evidence). An
 * entry the grammar refuses gets none: its error says more.
 */
export function entryWarnings(entry: string, options: EntryWarningOptions = {}): EntryWarning[] {
  let spelling: string;
  try {
    spelling = normalizeScopeEntry(entry, { ignoreCase: options.ignoreCase });
  } catch (error) {
    if (error instanceof ScopeEntryError) return [];
    throw error;
  }
  const path = entry.replace(/\\/g, '/');
  const warnings: EntryWarning[] = [];
  const warn = (reason: EntryWarningReason, message: string) => warnings.push({ reason, entry, message: `scope entry ${quote(entry)} ${message}` });
  if (hasEmptyAlternative(path)) {
    warn('empty-alternative', 'has an empty alternative between its braces, so it also names what the braces stand beside (remove the stray comma if that is not meant)');
  }
  for (const segment of unclosedBrackets(spelling)) {
    warn('unclosed-bracket', `has an unclosed "[" in ${quote(segment)}, which is read as a literal "[", not as a set of characters`);
  }
  if (hasUnclosedBrace(path)) {
    const segment = path.split('/').find((part) => hasUnclosedBrace(part)) ?? path;
    warn('unclosed-brace', `has an unclosed "{" in ${quote(segment)}, which is read as a literal "{", not as a list of alternatives`);
  }
  if (options.files !== undefined) {
    const compiled = compileScopeEntry(spelling, { ignoreCase: options.ignoreCase });
    if (compiled.kind === 'glob') {
      const prefix = compiled.literalPrefix.join('/');
      const candidates = prefix === '' ? options.files.inAnyOrder() : options.files.filesUnder(prefix);
      let named = false;
      for (const file of candidates) {
        if (compiled.matches(file)) {
          named = true;
          break;
        }
      }
      if (!named) warn('matches-nothing', 'names none of the files the repository has today');
    }
  }
  return warnings;
}
