// The scope entry that names one file (or every file of one folder) as it is named, whatever characters
// its name holds: what the planner writes when a file is dragged onto an agent, assigned from the
// Explorer or kept by a narrowing. The grammar has no escape character (`\` is a separator), but a
// character class of one character is literal: `a[[]1].ts` names `a[1].ts` and nothing else, where the
// bare name is a glob that names `a1.ts` and not the file itself.
import { expandBraces } from './braceExpansion';

/** Characters a glob reads as syntax anywhere in a segment; each is written as its own one-character class. */
const GLOB_CHARACTERS = /[*?[]/g;

/** A `(` after one of these opens an extglob (`@(a|b)`, `+(a)`, `!(a)`, `?(a)`), which the grammar refuses. */
const EXTGLOB_OPENING = /([@+!?*])\(/g;

/**
 * The entry naming exactly the repository file `path` (a folder's files with `folder`). Two spellings
 * have no one-character class and are written with `?`, which also names look-alikes at that one
 * character: a leading `!` (a negation there; `[!…]` is a negated class) and the `{` of a brace group
 * that would expand (braces are expanded before classes are read, so a class cannot hide them).
 */
export function literalEntryOf(path: string, options: { folder?: boolean } = {}): string {
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
