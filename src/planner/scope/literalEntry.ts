// The scope entry that names one file (or every file of one folder) as it is named, whatever characters
// its name holds: what the planner writes when a file is dragged onto an agent, assigned from the
// Explorer or kept by a narrowing. The grammar has no escape character, but a character class of one
// character is literal: `a[[]1].ts` names `a[1].ts` and nothing else, where the bare name is a glob that
// names `a1.ts` and not the file itself. One character no entry can name: `\`, which the grammar reads as
// a folder separator before anything else (so even `[\]` is `[/]`). A name holding one has no entry: the
// file `x\..\..\src\` written as it is would be the entry `src/` (found by red-team review, 2026-12-06).
import { expandBraces } from './braceExpansion';

/** Characters a glob reads as syntax anywhere in a segment; each is written as its own one-character class. */
const GLOB_CHARACTERS = /[*?[]/g;

/** A `(` after one of these opens an extglob (`@(a|b)`, `+(a)`, `!(a)`, `?(a)`), which the grammar refuses. */
const EXTGLOB_OPENING = /([@+!?*])\(/g;

/** Why the files `paths` (none isNameable) cannot be given to an agent on their own, for a person. */
export function unnameableNotice(paths: readonly string[]): string {
  const shown = paths.slice(0, 3).map((path) => JSON.stringify(path)).join(', ');
  const more = paths.length > 3 ? ` and ${paths.length - 3} more` : '';
  const one = paths.length === 1;
  return `${shown}${more} cannot be assigned on ${one ? 'its' : 'their'} own: ${one ? 'its name holds' : 'their names hold'} a backslash, which every scope entry reads as a folder separator. Assign the folder instead, or rename the file.`;
}

/** Whether some entry names the file `path` (literalEntryOf answers): false for a name holding `\`. */
export function isNameable(path: string): boolean {
  return !path.includes('\\');
}

/**
 * The entry naming exactly the repository file `path` (a folder's files with `folder`); undefined when no
 * entry can (isNameable). Two spellings have no one-character class and are written with `?`, which also
 * names look-alikes at that one character: a leading `!` (a negation there; `[!…]` is a negated class) and
 * the `{` of a brace group that would expand (braces are expanded before classes are read, so a class
 * cannot hide them).
 */
export function literalEntryOf(path: string, options: { folder?: boolean } = {}): string | undefined {
  if (!isNameable(path)) return undefined;
  let entry = path.replace(GLOB_CHARACTERS, (character) => `[${character}]`);
  if (entry.startsWith('!')) entry = `?${entry.slice(1)}`;
  const expanded = expandBraces(entry);
  if (expanded.length !== 1 || expanded[0] !== entry) entry = entry.replace(/\{/g, '?');
  // Last, so that a `?` written above is not left opening an extglob either.
  entry = entry.replace(EXTGLOB_OPENING, '$1[(]');
  // What a person types is trimmed and unquoted (the planner's input); a name's own leading or trailing
  // space, or its leading quote, is kept by writing it as a class.
  entry = entry.replace(/^[\s"']/u, (character) => `[${character}]`).replace(/\s$/u, (character) => `[${character}]`);
  return options.folder === true ? `${entry}/` : entry;
}
