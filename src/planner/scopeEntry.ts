// STUB: the real grammar lands shortly; signatures are final.

/** Why an entry was rejected; machine-readable. */
export type ScopeEntryErrorReason =
  | 'empty'
  | 'control-character'
  | 'escapes-root'
  | 'absolute-outside-root'
  | 'names-root'
  | 'negation'
  | 'extglob'
  | 'posix-class';

/** A scope entry that cannot be used. `message` is for a person and names the entry. */
export class ScopeEntryError extends Error {
  constructor(
    readonly reason: ScopeEntryErrorReason,
    readonly entry: string,
    message: string,
  ) {
    super(message);
    this.name = 'ScopeEntryError';
  }
}

export interface GrammarOptions {
  /** Absolute path of the repository root; absolute entries inside it are made relative. */
  repoRoot?: string;
  /** Fold case in every comparison. */
  ignoreCase?: boolean;
}

/** Normalises one entry (see docs/scope-grammar.md). Throws ScopeEntryError. */
export function normalizeScopeEntry(raw: string, _options: GrammarOptions = {}): string {
  return raw;
}

/** A normalised entry, compiled once for matching many paths. */
export interface CompiledScopeEntry {
  /** The normalised spelling. */
  readonly spelling: string;
  /** `plain`: one exact path. `glob`: a pattern (includes `dir/`). */
  readonly kind: 'plain' | 'glob';
  /** Whether the repository-relative, normalised `path` is named by this entry. */
  matches(path: string): boolean;
}

export function compileScopeEntry(spelling: string, _options: GrammarOptions = {}): CompiledScopeEntry {
  return { spelling, kind: 'plain', matches: (path) => path === spelling };
}
