// Typo warnings for scope entries the grammar accepts but a person probably did not mean: an empty brace
// alternative (`x/{a,}` also names every file beneath `x/`), a `[` or a `{` that is never closed (read as a
// literal character, so `src/**/*.{ts` names only files whose names contain "{ts"), and, when the repository's
// files are known, a pattern that names none of them. Warnings never change what an entry means; the CLI prints
// them as `WARNING:` lines and the planner shows them beside the entry.
import { expandBraces } from './braceExpansion';
import { compiledEntry } from './scopeAlgebra';
import { normalizeScopeEntry, ScopeEntryError, unclosedBracketSegments } from './scopeEntry';
import type { FileIndex } from './fileIndex';
import type { GrammarOptions } from './scopeEntry';

/** Why an entry is probably a typo; machine-readable. */
export type ScopeEntryWarningReason = 'empty-alternative' | 'unclosed-bracket' | 'unclosed-brace' | 'matches-nothing';

/** One warning about one entry. `message` is one sentence for a person, naming the entry, without prefix or final newline. */
export interface ScopeEntryWarning {
  readonly reason: ScopeEntryWarningReason;
  /** The entry as it was given. */
  readonly entry: string;
  readonly message: string;
}

export interface ScopeWarningOptions extends GrammarOptions {
  /**
   * The repository's known files. When given, a pattern (not a plain path: a plain path may be a file the wave
   * creates) that names none of them gets a `matches-nothing` warning.
   */
  files?: FileIndex;
}

const quote = (text: string) => JSON.stringify(text);

/** `a`, `a and b`, `a, b and c`. */
function listed(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1] as string}`;
}

/**
 * The typo warnings for one entry, as written (before normalisation: `{a,}` normalises to `a`, and the evidence
 * of the typo with it). Pure. An entry the grammar rejects gets none: its error says more.
 */
export function scopeEntryWarnings(entry: string, options: ScopeWarningOptions = {}): ScopeEntryWarning[] {
  let spelling: string;
  try {
    spelling = normalizeScopeEntry(entry, options);
  } catch (error) {
    if (error instanceof ScopeEntryError) return [];
    throw error;
  }
  const path = entry.replace(/\\/g, '/');
  const warnings: ScopeEntryWarning[] = [];
  const warn = (reason: ScopeEntryWarningReason, message: string) => warnings.push({ reason, entry, message: `scope entry ${quote(entry)} ${message}` });

  const produced = emptyAlternativeResults(path);
  if (produced.length > 0) {
    // What the empty alternatives add; a directory is what makes this typo dangerous (`x/{a,}` is all of `x/`).
    const named = produced.filter((alternative) => alternative !== '').map((alternative) => (alternative.endsWith('/') ? `every file beneath ${alternative}` : quote(alternative)));
    warn(
      'empty-alternative',
      named.length === 0
        ? 'has an empty alternative between its braces, which names nothing (the entry means only its other alternatives)'
        : `has an empty alternative between its braces, so it also names ${listed(named)} (remove the stray comma if that is not meant)`,
    );
  }
  for (const segment of unclosedBracketSegments(spelling)) {
    warn('unclosed-bracket', `has an unclosed "[" in ${quote(segment)}, which is read as a literal "[", not as a set of characters`);
  }
  for (const segment of unclosedBraceSegments(path)) {
    warn('unclosed-brace', `has an unclosed "{" in ${quote(segment)}, which is read as a literal "{", not as a list of alternatives`);
  }
  if (options.files !== undefined) {
    const compiled = compiledEntry(spelling, options.files.ignoreCase);
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

/** One record's warnings: the record's id (or `#n`, 1-based, when it has none) and each warning. */
export interface ScopeRecordWarning {
  readonly record: string;
  readonly warning: ScopeEntryWarning;
}

/**
 * The typo warnings for every string entry of a record array as given on input (`[{id, files}]`, not yet
 * validated: anything that is not a record or not a string entry is skipped, since validation reports it).
 */
export function scopeRecordWarnings(records: unknown, options: ScopeWarningOptions = {}): ScopeRecordWarning[] {
  if (!Array.isArray(records)) return [];
  const found: ScopeRecordWarning[] = [];
  records.forEach((record: unknown, index) => {
    if (typeof record !== 'object' || record === null) return;
    const { id, files } = record as { id?: unknown; files?: unknown };
    if (!Array.isArray(files)) return;
    const name = typeof id === 'string' && id.trim() !== '' ? id : `#${index + 1}`;
    for (const entry of files) {
      if (typeof entry !== 'string') continue;
      for (const warning of scopeEntryWarnings(entry, options)) found.push({ record: name, warning });
    }
  });
  return found;
}

/** The first character of the Unicode private use area: sentinels that no scope entry holds in practice. */
const SENTINEL_BASE = 0xe000;
const SENTINEL_LIMIT = 0xf8ff;

/**
 * What each empty member of an expanding brace group produces (normalised; '' when minimatch drops it, as it drops
 * an empty result at the top level). Each empty member is marked with its own sentinel character and the entry is
 * expanded by minimatch: a member whose group stays literal keeps its braces and commas around the sentinel, a
 * member of a group that expands loses them. Empty when there is no empty member, or when marking changed the
 * expansion (then nothing is claimed).
 */
function emptyAlternativeResults(path: string): string[] {
  const sites: number[] = [];
  for (let index = 1; index < path.length; index += 1) {
    if ((path[index - 1] === '{' || path[index - 1] === ',') && (path[index] === ',' || path[index] === '}')) sites.push(index);
  }
  if (sites.length === 0 || sites.length > SENTINEL_LIMIT - SENTINEL_BASE) return [];
  for (let code = SENTINEL_BASE; code < SENTINEL_BASE + sites.length; code += 1) if (path.includes(String.fromCharCode(code))) return [];
  let marked = '';
  let from = 0;
  sites.forEach((site, k) => {
    marked += path.slice(from, site) + String.fromCharCode(SENTINEL_BASE + k);
    from = site;
  });
  marked += path.slice(from);
  const unmark = (text: string) => text.replace(/[\ue000-\uf8ff]/g, '');
  const expanded = expandBraces(marked);
  const plain = expandBraces(path);
  const same = expanded.map(unmark).filter((text) => text !== '');
  if (same.length !== plain.length || same.some((text, index) => text !== plain[index])) return [];
  const results = new Set<string>();
  for (const alternative of expanded) {
    for (let index = 0; index < alternative.length; index += 1) {
      const code = alternative.charCodeAt(index);
      if (code < SENTINEL_BASE || code >= SENTINEL_BASE + sites.length) continue;
      const site = sites[code - SENTINEL_BASE] as number;
      const literal = alternative[index - 1] === path[site - 1] && alternative[index + 1] === path[site];
      if (!literal) results.add(normalisedOrAsIs(unmark(alternative)));
    }
  }
  return [...results];
}

function normalisedOrAsIs(alternative: string): string {
  if (alternative === '') return '';
  try {
    return normalizeScopeEntry(alternative);
  } catch (error) {
    if (error instanceof ScopeEntryError) return alternative;
    throw error;
  }
}

/** The segments (of the entry as written) holding a `{` that no later `}` closes, each once. */
function unclosedBraceSegments(path: string): string[] {
  const open: number[] = [];
  for (let index = 0; index < path.length; index += 1) {
    if (path[index] === '{') open.push(index);
    else if (path[index] === '}' && open.length > 0) open.pop();
  }
  const segments = new Set<string>();
  for (const at of open) {
    const start = path.lastIndexOf('/', at) + 1;
    const end = path.indexOf('/', at);
    segments.add(path.slice(start, end === -1 ? path.length : end));
  }
  return [...segments];
}
