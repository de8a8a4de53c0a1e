// Brace expansion as minimatch reads it, without loading minimatch's matcher. The scope grammar defines
// braces by minimatch's `braceExpand` (docs/scope-grammar.md), and minimatch hands the work to
// brace-expansion after two adjustments, which this module makes the same way: text with no group that
// could expand is returned as it is, and an escaped backslash is doubled first so that it comes back
// escaped. Taking brace-expansion directly keeps the hooks' bundles free of the matcher they never use (it
// is most of their parse time); test/planner/scope/braceExpansion.test.ts holds the two readings equal.
import { expand } from 'brace-expansion';

/** Above this length minimatch refuses a pattern outright; the same limit, with the same error. */
const MAX_PATTERN_LENGTH = 64 * 1024;

/** A `{` ... `}` on one line with no `{` between them: without one, nothing can expand. */
const EXPANDABLE_GROUP = /\{[^{\n\r\u2028\u2029]*\}/;

/** The alternatives of `text`, in brace-expansion's order; at most `max` of them when it is given. */
export function expandBraces(text: string, max?: number): string[] {
  if (text.length > MAX_PATTERN_LENGTH) throw new TypeError('pattern is too long');
  if (!EXPANDABLE_GROUP.test(text)) return [text];
  // brace-expansion reads `\\` as one escaped backslash and drops one of its two characters; doubling each
  // pair keeps the number of backslashes before the next character odd or even, as it was.
  return expand(text.replace(/\\\\/g, '\\\\\\\\'), max === undefined ? {} : { max });
}
