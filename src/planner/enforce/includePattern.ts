// The patterns of `includeIf` conditions (`gitdir:`, `gitdir/i:`, `onbranch:`), decided where the answer
// is certain and left open otherwise. git matches them as path globs; after its own rewriting (`**/`
// before a relative pattern, `**` after a trailing `/`) nearly every real one is a literal path with those
// two wildcards at its ends, and those are decided here exactly. Any other glob character (`*`, `?`, `[`,
// `\`) in the literal part leaves the answer open (undefined): the caller then counts both answers, and a
// condition it cannot decide never relaxes a decision.
import { asciiLowerCase } from '../scope/scopeEntry';

const GLOB_CHARACTER = /[*?[\\]/;

/**
 * Whether `text` (a git directory's real path, or a branch name) matches `pattern`: a literal, optionally
 * led by `**` + `/` (any number of whole leading directories, none included) and optionally ended by
 * `/` + `**` (anything below, nothing included). `casefold` compares ASCII letters without case, as git's
 * `gitdir/i:` does. Undefined when the literal part holds a glob character.
 */
export function matchIncludePattern(pattern: string, text: string, casefold = false): boolean | undefined {
  let literal = pattern;
  const anyLeadingDirectories = literal.startsWith('**/');
  if (anyLeadingDirectories) literal = literal.slice(3);
  // The `/` before a trailing `**` stays in the literal: `a/**` needs `a/` and then anything.
  const anythingBelow = literal.endsWith('/**');
  if (anythingBelow) literal = literal.slice(0, -2);
  if (GLOB_CHARACTER.test(literal)) return undefined;
  const fold = (value: string) => (casefold ? asciiLowerCase(value) : value);
  const wanted = fold(literal);
  const subject = fold(text);
  const startsAt = (offset: number) => (anythingBelow ? subject.startsWith(wanted, offset) : subject.slice(offset) === wanted);
  if (startsAt(0)) return true;
  if (!anyLeadingDirectories) return false;
  for (let slash = subject.indexOf('/'); slash !== -1; slash = subject.indexOf('/', slash + 1)) {
    if (startsAt(slash + 1)) return true;
  }
  return false;
}
