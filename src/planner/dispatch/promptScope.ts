// What a dispatch prompt says about the dispatched agent's scope: the fenced block after a FILE-SCOPE
// marker line, and the lines that name a declared agent of the wave (its id, or the digest line
// `wave-scope digest --instruction` prints). docs/hooks.md, "The dispatch guard", describes the
// accepted spellings; this file is their one implementation.
//
// The reference extractor kept only lines that looked like repository paths, so `*.md` came back as
// `.md` and `**`, `**/*.ts`, `{a,b}`, `[ab]` and `?` entries were dropped, and those agents were
// dispatched unrecorded. Here every line of the block is an entry, read by the scope grammar; an entry
// the grammar refuses is reported with its line, never dropped.
import { AGENT_ID_SOURCE } from '../plan/agentId';
import { normalizeScopeEntry, ScopeEntryError } from '../scope/scopeEntry';
import type { GrammarOptions, ScopeEntryErrorReason } from '../scope/scopeEntry';
import { SCOPE_DIGEST_PREFIX } from '../scope/scopeDigest';

/**
 * A marker line: `FILE-SCOPE` (also `FILE SCOPE`, `FILE_SCOPE`, any case) at the start of the line, which
 * may be a Markdown heading, quote or list item and may be bold or italic; the rest of the line is free
 * text (`FILE-SCOPE — exactly these:`).
 */
// A heading's `#` run is taken whole (`(?!#)`): a run that could be split between repetitions made a line
// of many `#` (a Markdown separator) take exponential time to refuse, and a hook that runs past its agent
// CLI's timeout lets the dispatch through unchecked.
const MARKER_LINE = /^[ \t]*(?:(?:#{1,6}(?!#)|>|[-*+])[ \t]*)*(?:\*\*|__|\*|_)?FILE[-_ ]?SCOPE(?![A-Za-z0-9])/i;

/**
 * What a marker line is nested in: its blockquote markers, then a list item's bullet and the spaces after it
 * (the item's content starts there, so a fence belonging to the item may be indented that much more).
 */
const MARKER_CONTAINER = /^((?:[ \t]{0,3}>)*)[ \t]*(?:(?:[-*+]|[0-9]{1,9}[.)])[ \t]+)?/;

/** One blockquote marker at the start of a line (CommonMark: up to three spaces before it, one after it optional). */
const QUOTE_MARKER = /^[ \t]{0,3}>[ \t]?/;

/** A fence opening: three or more backticks or tildes, indented at most three spaces, then an info string. */
const FENCE_OPEN = /^( {0,3})(`{3,}|~{3,})(.*)$/;

/** A list bullet in front of an entry: `-`, `*`, `+`, `1.` or `1)`, then at least one space. */
const BULLET = /^[ \t]*(?:[-*+]|[0-9]{1,9}[.)])[ \t]+/;

/** The echo instruction's digest (src/planner/scope/scopeDigest.ts, `scopeEchoInstruction`). */
const DIGEST_LINE = new RegExp(`\\bScope digest (${SCOPE_DIGEST_PREFIX}[0-9a-f]{16})\\b`, 'g');

/** A line naming an agent id: `AGENT-ID: alice` (also `Agent id = alice`), or `WAVE_SCOPE_AGENT=alice` anywhere. */
const AGENT_ID_LINE = new RegExp(`^[ \\t]*(?:[-*+>][ \\t]*)?(?:\\*\\*|__)?agent[-_ ]?id(?:\\*\\*|__)?[ \\t]*[:=][ \\t]*\`?(${AGENT_ID_SOURCE})\`?[ \\t]*$`, 'gim');
const AGENT_ENV = new RegExp(`\\bWAVE_SCOPE_AGENT=(${AGENT_ID_SOURCE})`, 'g');

/** How the block's lines were written (for telemetry; several styles may mix in one block). */
export type BlockStyle = 'plain' | 'bullet' | 'backtick' | 'comma' | 'quoted' | 'json';

export const BLOCK_STYLES: readonly BlockStyle[] = ['plain', 'bullet', 'backtick', 'comma', 'quoted', 'json'];

/** Why a FILE-SCOPE marker led to no usable block (reference row 6). */
export type UnparseableReason = 'no-fence' | 'unterminated-fence' | 'empty-block';

/** An entry of the block that the grammar refuses. */
export interface InvalidEntry {
  /** 1-based line of the prompt. */
  readonly line: number;
  /** The entry as written, after bullets, backticks and a trailing comma were stripped. */
  readonly entry: string;
  readonly reason: ScopeEntryErrorReason | 'bad-quoting' | 'not-a-string';
  /** For a person: the grammar's own sentence. */
  readonly message: string;
}

export type PromptScope =
  | { readonly kind: 'marker-absent' }
  | { readonly kind: 'unparseable'; readonly reason: UnparseableReason; readonly markerLine: number; readonly markers: number }
  | {
      readonly kind: 'block';
      readonly markerLine: number;
      /** How many marker lines the prompt has (only the first one's block is read). */
      readonly markers: number;
      /** Valid entries, normalised, duplicates removed, in the order written. */
      readonly entries: readonly string[];
      readonly invalid: readonly InvalidEntry[];
      /** Every style seen in the block. */
      readonly styles: readonly BlockStyle[];
    };

interface Fence {
  readonly char: string;
  readonly length: number;
}

function openingFence(line: string): Fence | undefined {
  const match = FENCE_OPEN.exec(line);
  if (match === null) return undefined;
  const run = match[2] as string;
  // CommonMark: a backtick fence's info string may not contain a backtick.
  if (run[0] === '`' && (match[3] ?? '').includes('`')) return undefined;
  return { char: run[0] as string, length: run.length };
}

function closesFence(line: string, fence: Fence): boolean {
  const trimmed = line.replace(/^ {0,3}/, '');
  let run = 0;
  while (trimmed[run] === fence.char) run += 1;
  return run >= fence.length && trimmed.slice(run).trim() === '';
}

/** Strips one code span: `` `x` `` → `x`, and `` `` x`y `` `` → `x`y` (one padding space each side, as CommonMark). */
function stripBackticks(text: string): string | undefined {
  let run = 0;
  while (text[run] === '`') run += 1;
  if (run === 0 || text.length <= 2 * run) return undefined;
  if (text.slice(text.length - run) !== '`'.repeat(run) || text[text.length - run - 1] === '`') return undefined;
  const inner = text.slice(run, text.length - run);
  return inner.length >= 2 && inner.startsWith(' ') && inner.endsWith(' ') && inner.trim() !== '' ? inner.slice(1, -1) : inner;
}

interface ReadLine {
  readonly entry?: string;
  readonly invalid?: Omit<InvalidEntry, 'line'>;
  readonly styles: BlockStyle[];
}

/** A JSON string literal at the start of `text`, and what follows it. */
function leadingJsonString(text: string): { value: string; rest: string } | undefined {
  for (let end = 1; end < text.length; end += 1) {
    if (text[end] === '\\') {
      end += 1;
      continue;
    }
    if (text[end] !== '"') continue;
    try {
      return { value: JSON.parse(text.slice(0, end + 1)) as string, rest: text.slice(end + 1) };
    } catch {
      return undefined;
    }
  }
  return undefined;
}

function readEntryLine(raw: string): ReadLine {
  const styles: BlockStyle[] = [];
  let text = raw;
  const bullet = BULLET.exec(text);
  if (bullet !== null) {
    styles.push('bullet');
    text = text.slice(bullet[0].length);
  }
  text = text.trim();
  if (text.startsWith('"')) {
    styles.push('quoted');
    const literal = leadingJsonString(text);
    if (literal === undefined || !/^[ \t]*,?[ \t]*$/.test(literal.rest)) {
      return { styles, invalid: { entry: text, reason: 'bad-quoting', message: `the quoted entry ${text} is not one JSON string (optionally followed by a comma)` } };
    }
    return { styles, entry: literal.value };
  }
  if (text.endsWith(',')) {
    styles.push('comma');
    text = text.slice(0, -1).trimEnd();
  }
  const unquoted = stripBackticks(text);
  if (unquoted !== undefined) {
    styles.push('backtick');
    text = unquoted;
  }
  if (styles.length === 0) styles.push('plain');
  return { styles, entry: text };
}

function normalise(entry: string, line: number, grammar: GrammarOptions): { spelling?: string; invalid?: InvalidEntry } {
  try {
    return { spelling: normalizeScopeEntry(entry, grammar) };
  } catch (error) {
    if (!(error instanceof ScopeEntryError)) throw error;
    return { invalid: { line, entry, reason: error.reason, message: error.message } };
  }
}

/** A JSON array of strings, or undefined when the block is not one. */
function jsonArray(text: string): unknown[] | undefined {
  const trimmed = text.trim();
  if (!trimmed.startsWith('[') || !trimmed.endsWith(']')) return undefined;
  try {
    const parsed: unknown = JSON.parse(trimmed);
    return Array.isArray(parsed) && parsed.every((item) => typeof item === 'string') ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Reads the scope block of a dispatch prompt: the first fenced block after the first FILE-SCOPE marker
 * line, one entry per line (blank lines skipped). Per line: one list bullet, then either one JSON string
 * (optionally followed by a comma; the way to write any entry exactly), or the text with one trailing
 * comma and one surrounding code span removed. A block that is one JSON array of strings is read as JSON;
 * a block whose first and last lines are `[` and `]` is a list of quoted lines. Every entry is normalised
 * by the scope grammar (absolute entries inside `repoRoot` become relative); refused entries are reported.
 */
export function extractPromptScope(prompt: string, grammar: GrammarOptions = {}): PromptScope {
  const lines = prompt.split(/\r?\n/);
  const markerLines = lines.flatMap((line, index) => (MARKER_LINE.test(line) ? [index] : []));
  const markerIndex = markerLines[0];
  if (markerIndex === undefined) return { kind: 'marker-absent' };
  const markers = markerLines.length;
  const markerLine = markerIndex + 1;
  // A marker inside a quote or a list item has its block there too: the block's lines are read without the
  // quote's markers and the item's indentation (a line with less of either is read as it is).
  const container = MARKER_CONTAINER.exec(lines[markerIndex] as string)?.[0] ?? '';
  const quoteDepth = (container.match(/>/g) ?? []).length;
  const itemIndent = quoteDepth === 0 ? container.length : container.length - (container.lastIndexOf('>') + 1);
  const inner = (line: string): string => {
    let rest = line;
    for (let depth = 0; depth < quoteDepth; depth += 1) {
      const quote = QUOTE_MARKER.exec(rest);
      if (quote === null) break;
      rest = rest.slice(quote[0].length);
    }
    let spaces = 0;
    while (spaces < itemIndent && rest[spaces] === ' ') spaces += 1;
    return rest.slice(spaces);
  };

  let openIndex = -1;
  let fence: Fence | undefined;
  for (let index = markerIndex + 1; index < lines.length; index += 1) {
    fence = openingFence(inner(lines[index] as string));
    if (fence !== undefined) {
      openIndex = index;
      break;
    }
  }
  if (fence === undefined) return { kind: 'unparseable', reason: 'no-fence', markerLine, markers };
  let closeIndex = -1;
  for (let index = openIndex + 1; index < lines.length; index += 1) {
    if (closesFence(inner(lines[index] as string), fence)) {
      closeIndex = index;
      break;
    }
  }
  if (closeIndex === -1) return { kind: 'unparseable', reason: 'unterminated-fence', markerLine, markers };

  const body = lines.slice(openIndex + 1, closeIndex).map(inner);
  const firstBodyLine = openIndex + 2;
  const entries: string[] = [];
  const invalid: InvalidEntry[] = [];
  const styles = new Set<BlockStyle>();
  const seen = new Set<string>();
  const accept = (entry: string, line: number) => {
    const result = normalise(entry, line, grammar);
    if (result.invalid !== undefined) invalid.push(result.invalid);
    else if (result.spelling !== undefined && !seen.has(result.spelling)) {
      seen.add(result.spelling);
      entries.push(result.spelling);
    }
  };

  const asJson = jsonArray(body.join('\n'));
  if (asJson !== undefined) {
    styles.add('json');
    for (const item of asJson) accept(item as string, firstBodyLine);
  } else {
    const meaningful = body.map((line, offset) => ({ text: line, line: firstBodyLine + offset })).filter(({ text }) => text.trim() !== '');
    // `[` / `]` around quoted lines: a JSON array that is not valid JSON (a trailing comma, say).
    const bracketed = meaningful.length >= 2 && meaningful[0]?.text.trim() === '[' && meaningful[meaningful.length - 1]?.text.trim() === ']';
    for (const { text, line } of bracketed ? meaningful.slice(1, -1) : meaningful) {
      const read = readEntryLine(text);
      for (const style of read.styles) styles.add(style);
      if (read.invalid !== undefined) invalid.push({ line, ...read.invalid });
      else accept(read.entry as string, line);
    }
  }
  if (entries.length === 0 && invalid.length === 0) return { kind: 'unparseable', reason: 'empty-block', markerLine, markers };
  return { kind: 'block', markerLine, markers, entries, invalid, styles: BLOCK_STYLES.filter((style) => styles.has(style)) };
}

/**
 * Whether an entry must be written as a JSON string (`"…",`) to come back exactly from a plain, bulleted
 * or comma-separated line: surrounding whitespace, a leading bullet or quote, a trailing comma, a
 * surrounding code span, a `[…]` (or a lone `[` or `]`) that could make the block read as a JSON array,
 * or a fence of its own. Inside a code span (`` `entry` ``), an entry that begins or ends with a backtick
 * must be quoted too.
 */
export function needsQuoting(entry: string): boolean {
  return (
    entry !== entry.trim() ||
    BULLET.test(entry) ||
    entry.startsWith('"') ||
    entry.endsWith(',') ||
    stripBackticks(entry) !== undefined ||
    (entry.startsWith('[') && entry.endsWith(']')) ||
    entry === '[' ||
    entry === ']' ||
    /^(?:`{3,}|~{3,})/.test(entry)
  );
}

/** Several paths on one line (`src/a.ts, src/b.ts`), or a path with a comment after it (`src/a.ts  # owned`). */
const SEVERAL_OR_COMMENTED = /,\s|\s#/;

/**
 * The block's entries that look like several paths on one line, or a path with a trailing comment, and that
 * name nothing on disk (`exists`, asked of the entry as written). Every line is one path, read as written,
 * so such an entry holds the agent to a path that is not there, and it is then refused the files meant. A
 * path may contain either spelling, so one that names something is not reported.
 */
export function entriesLikeSeveral(entries: readonly string[], exists: (entry: string) => boolean): string[] {
  return entries.filter((entry) => SEVERAL_OR_COMMENTED.test(entry) && !exists(entry));
}

/** What the prompt says about which declared agent it dispatches. */
export interface AgentNaming {
  /** Agent ids named by an `AGENT-ID:` line or `WAVE_SCOPE_AGENT=`, in order, each once. */
  readonly ids: readonly string[];
  /** Digests of `Scope digest ws1-…` echo instruction lines, in order, each once. */
  readonly digests: readonly string[];
}

function unique(values: Iterable<string>): string[] {
  return [...new Set(values)];
}

/** The agent ids and echo-instruction digests a prompt names. */
export function findAgentNaming(prompt: string): AgentNaming {
  const ids = unique([...prompt.matchAll(AGENT_ID_LINE), ...prompt.matchAll(AGENT_ENV)].sort((a, b) => (a.index ?? 0) - (b.index ?? 0)).map((match) => match[1] as string));
  const digests = unique([...prompt.matchAll(DIGEST_LINE)].map((match) => match[1] as string));
  return { ids, digests };
}
