// Test siblings: an agent that owns `src/cart/total.ts` in a role that writes code also owns its tests, so
// the wave's `allowedPaths` grants `src/cart/total.test.ts` and friends without anyone listing them.
// The rules are data: which roles, which production files, which sibling spellings.
//
// A sibling is implied, never proven disjoint: `test/**/total.test.ts` may lie inside another agent's
// `test/`, and two agents owning a `total.ts` each get the same sibling glob. So a test sibling is an
// agent's own only where no other agent of its wave claims the path, by declaring it or as a test sibling
// of its own: whoever declares a path owns it, and a path two agents would get as siblings belongs to
// neither until the coordinator declares it for one. Every judge of one agent's writes applies this rule,
// given the wave's other agents as `WaveRival`s (decideWrite, for the write gate and the turn backstop;
// verifyChanges), so the scopes they enforce are pairwise disjoint whenever the declarations are.
import { foldCase } from './scopeEntry';

/** One expansion rule. */
export interface TestSiblingRule {
  /** Roles the rule applies to, compared case-insensitively. */
  roles: readonly string[];
  /** File extensions (without the dot) of the production files the rule applies to. */
  extensions: readonly string[];
  /**
   * Sibling spellings, with `{dir}` (the file's directory, '' at the top level), `{name}` (file name without
   * its extension) and `{ext}` (the extension). A `{dir}/` whose directory is the root disappears.
   */
  siblings: readonly string[];
}

const SCRIPT_EXTENSIONS = ['ts', 'tsx', 'mts', 'cts', 'js', 'jsx', 'mjs', 'cjs'];
const CODE_WRITING_ROLES = ['implementation', 'impl', 'implement', 'fix', 'refactor', 'build', 'builder', 'test', 'tests'];

/** The default rules: JavaScript/TypeScript and Python conventions, for roles that write code. */
export const DEFAULT_TEST_SIBLING_RULES: readonly TestSiblingRule[] = [
  {
    roles: CODE_WRITING_ROLES,
    extensions: SCRIPT_EXTENSIONS,
    siblings: ['{dir}/{name}.test.{ext}', '{dir}/{name}.spec.{ext}', '{dir}/__tests__/{name}.{ext}', '{dir}/__tests__/{name}.test.{ext}', 'test/**/{name}.test.{ext}', 'tests/**/{name}.test.{ext}'],
  },
  {
    roles: CODE_WRITING_ROLES,
    extensions: ['py'],
    siblings: ['{dir}/test_{name}.py', 'tests/**/test_{name}.py'],
  },
];

export interface TestSiblingOptions {
  /** The wave's role; only rules naming it apply. */
  role: string;
  rules?: readonly TestSiblingRule[];
  /**
   * For a judge asking whether some agent's sibling is one path: only the entries that may have a sibling
   * whose last segment is `lastSegment` (compared case-insensitively when `ignoreCase`) are expanded, the
   * others come back without siblings. Every sibling of such an entry is still returned.
   */
  namedLike?: { lastSegment: string; ignoreCase?: boolean };
}

const GLOB_CHARACTERS = /[*?[\]{}]/;
const TEST_FILE = /(^|[./_-])(test|spec)([./_-]|$)|(^|\/)(__tests__|tests?)\//i;

function isTestFile(path: string): boolean {
  return TEST_FILE.test(path);
}

/** A file's directory ('' at the top level), its name without the extension, and the extension; undefined without one. */
function fileNameParts(path: string): { dir: string; name: string; ext: string } | undefined {
  const slash = path.lastIndexOf('/');
  const fileName = path.slice(slash + 1);
  const dot = fileName.lastIndexOf('.');
  if (dot <= 0) return undefined;
  return { dir: slash === -1 ? '' : path.slice(0, slash), name: fileName.slice(0, dot), ext: fileName.slice(dot + 1) };
}

/** A sibling spelling cut at its placeholders once: literal text, and `{dir}`, `{name}`, `{ext}`. */
type TemplatePiece = string | { readonly placeholder: 'dir' | 'name' | 'ext' };

interface CompiledTemplate {
  readonly pieces: readonly TemplatePiece[];
  /** The pieces when the directory is the root: a leading `{dir}/` dropped, any other `{dir}` left as spelled. */
  readonly atRoot: readonly TemplatePiece[];
}

function compileTemplate(template: string): CompiledTemplate {
  const pieces: TemplatePiece[] = [];
  let rest = template;
  for (let match = /\{(dir|name|ext)\}/.exec(rest); match !== null; match = /\{(dir|name|ext)\}/.exec(rest)) {
    if (match.index > 0) pieces.push(rest.slice(0, match.index));
    pieces.push({ placeholder: match[1] as 'dir' | 'name' | 'ext' });
    rest = rest.slice(match.index + match[0].length);
  }
  if (rest !== '') pieces.push(rest);
  const first = pieces[0];
  const second = pieces[1];
  const leadingDir = typeof first === 'object' && first.placeholder === 'dir' && typeof second === 'string' && second.startsWith('/');
  const atRoot = (leadingDir ? [...(second.length > 1 ? [second.slice(1)] : []), ...pieces.slice(2)] : pieces).map((piece) =>
    typeof piece === 'object' && piece.placeholder === 'dir' ? '{dir}' : piece,
  );
  return { pieces, atRoot };
}

// The rules' spellings, compiled on first use: a wave's manifest fills them for every plain file it grants.
const compiledRules = new WeakMap<TestSiblingRule, { readonly extensions: ReadonlySet<string>; readonly templates: readonly CompiledTemplate[] }>();

function compiledRule(rule: TestSiblingRule): { readonly extensions: ReadonlySet<string>; readonly templates: readonly CompiledTemplate[] } {
  let compiled = compiledRules.get(rule);
  if (compiled === undefined) {
    compiled = { extensions: new Set(rule.extensions), templates: rule.siblings.map(compileTemplate) };
    compiledRules.set(rule, compiled);
  }
  return compiled;
}

function siblingsOf(path: string, rule: TestSiblingRule): string[] {
  const parts = fileNameParts(path);
  if (parts === undefined) return [];
  const compiled = compiledRule(rule);
  if (!compiled.extensions.has(parts.ext)) return [];
  const { dir, name, ext } = parts;
  return compiled.templates.map((template) => {
    let filled = '';
    for (const piece of dir === '' ? template.atRoot : template.pieces) filled += typeof piece === 'string' ? piece : piece.placeholder === 'dir' ? dir : piece.placeholder === 'name' ? name : ext;
    return filled;
  });
}

/**
 * The entries plus the test siblings of every plain production file among them, for the rules that name
 * `role`. Globs, directories, test files and names that contain glob characters get no siblings (a sibling
 * spelled from such a name would be read as a pattern). Idempotent; order: the entries, then new siblings.
 */
export function expandTestSiblings(entries: readonly string[], options: TestSiblingOptions): string[] {
  const role = foldCase(options.role);
  const rules = (options.rules ?? DEFAULT_TEST_SIBLING_RULES).filter((rule) => rule.roles.some((candidate) => foldCase(candidate) === role));
  const mayBeNamedLike = options.namedLike === undefined ? undefined : siblingNameFilter(rules, options.namedLike);
  const result = [...new Set(entries)];
  const seen = new Set(result);
  for (const entry of entries) {
    if (entry.endsWith('/') || GLOB_CHARACTERS.test(entry) || isTestFile(entry)) continue;
    if (mayBeNamedLike !== undefined && !mayBeNamedLike(entry)) continue;
    for (const rule of rules) {
      for (const sibling of siblingsOf(entry, rule)) {
        if (seen.has(sibling)) continue;
        seen.add(sibling);
        result.push(sibling);
      }
    }
  }
  return result;
}

const ASCII = /^[\x00-\x7f]*$/;

/**
 * Whether an entry may have a sibling (under `rules`) whose last segment is `named.lastSegment`; undefined
 * when any entry may. Every sibling's last segment spells its production file's name (`{name}`) whole, so
 * a file whose name that segment does not contain has no such sibling. The test is kept exact by comparing
 * ASCII only: an ASCII name reads the same under NFC and folds letter by letter, while NFC or case folding
 * can make a non-ASCII name ASCII (the Kelvin sign becomes K) or fold one letter by its neighbours (a final
 * sigma), so an entry or a segment with any other character is kept. A rule that spells a last segment
 * without `{name}` keeps every entry.
 */
function siblingNameFilter(rules: readonly TestSiblingRule[], named: { lastSegment: string; ignoreCase?: boolean }): ((entry: string) => boolean) | undefined {
  const spellsName = rules.every((rule) => rule.siblings.every((template) => template.slice(template.lastIndexOf('/') + 1).includes('{name}')));
  if (!spellsName || !ASCII.test(named.lastSegment)) return undefined;
  const fold = (text: string) => (named.ignoreCase === true ? foldCase(text) : text);
  const segment = fold(named.lastSegment);
  return (entry) => {
    // A file without an extension has no sibling at all.
    const name = fileNameParts(entry)?.name;
    return name !== undefined && (!ASCII.test(name) || segment.includes(fold(name)));
  };
}

/** Another agent of the same wave and the entries it declares (a judge derives its test siblings from them). */
export interface WaveRival {
  readonly agent: string;
  readonly entries: readonly string[];
}
