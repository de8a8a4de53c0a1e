// Reading a Codex `apply_patch` the way Codex reads it, to name every file it writes. A gate that
// reads the patch differently from the tool that applies it can be walked around: an indented second
// header, a header ending in U+2028, a path with two spaces after the colon, or a `cd dir &&` in front
// of the invocation each make the two disagree on which file is written.
//
// This follows, rule for rule, Codex's own parser (openai/codex, codex-rs/apply-patch/src/parser.rs,
// `parse_patch` in its lenient mode) and its invocation forms (`invocation.rs`,
// `maybe_parse_apply_patch`): the patch text is trimmed with Rust's `str::trim` and split with
// `str::lines` (on `\n` only, one `\r` before it dropped); each hunk header is trimmed, then must start
// with the exact marker (`*** Add File: ` with one space; anything after it, leading spaces included, is
// the path); `*** Move to: ` is matched on the untrimmed line; an update hunk's chunks are consumed by
// the same rules, so a header-looking line inside a chunk is content exactly when Codex reads it as
// content. Where Codex would apply the patch, this names the same paths; where it would refuse, this
// refuses too. The shell forms Codex accepts (`apply_patch <<'EOF' … EOF`, `cd <dir> && apply_patch
// <<'EOF' … EOF`) are matched by Codex with a Bash grammar; this accepts only the plain spellings of
// those two forms and refuses every other script that mentions apply_patch with a heredoc, so a
// script it cannot read with certainty is denied rather than guessed at.
//
// Codex versions differ where parser.rs leaves room (tested against the 0.169.0 binary): 0.169.0 drops
// every TAB from a path before it resolves it and trims trailing white space off a move path, both of
// which parser.rs keeps. Where versions differ, this either refuses (a path with a control character)
// or names every reading (a move path as written and trimmed), so no version writes a file the gate
// did not judge.
import { asciiLowerCase } from '../scope/scopeEntry';

/** Why a patch cannot be read with certainty; machine-readable. */
export type CodexPatchProblem = 'no-begin' | 'no-end' | 'bad-hunk' | 'empty-update' | 'unreadable-script';

/** A patch (or an invocation) that cannot be read with certainty. The gate denies on it. */
export class CodexPatchError extends Error {
  constructor(
    readonly reason: CodexPatchProblem,
    message: string,
  ) {
    super(message);
    this.name = 'CodexPatchError';
  }
}

/** One file operation of a patch, paths as Codex holds them (relative to the patch's working directory, or absolute). */
export type CodexHunk =
  | { readonly kind: 'add'; readonly path: string }
  | { readonly kind: 'delete'; readonly path: string }
  | {
      readonly kind: 'update';
      readonly path: string;
      /**
       * Where a move writes, one entry per reading Codex versions take: the path as written (parser.rs
       * keeps trailing white space), then trimmed (Codex 0.169.0 trims it) when that differs.
       */
      readonly movePaths?: readonly string[];
    };

/** A parsed invocation: its hunks and the `cd` directory it runs in, when it names one. */
export interface CodexPatch {
  readonly hunks: readonly CodexHunk[];
  /** The `<dir>` of `cd <dir> && apply_patch …`, as written. */
  readonly workdir?: string;
}

const BEGIN_PATCH_MARKER = '*** Begin Patch';
const END_PATCH_MARKER = '*** End Patch';
const ADD_FILE_MARKER = '*** Add File: ';
const DELETE_FILE_MARKER = '*** Delete File: ';
const UPDATE_FILE_MARKER = '*** Update File: ';
const MOVE_TO_MARKER = '*** Move to: ';
const EOF_MARKER = '*** End of File';
const CHANGE_CONTEXT_MARKER = '@@ ';
const EMPTY_CHANGE_CONTEXT_MARKER = '@@';

// Rust's `char::is_whitespace` (the Unicode White_Space property), which `str::trim` strips. It is not
// JavaScript's `trim` set: Rust strips U+0085 and keeps U+FEFF, JavaScript the other way round.
const RUST_WHITESPACE = new Set([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008,
  0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
]);

function isRustWhitespace(code: number): boolean {
  return RUST_WHITESPACE.has(code);
}

/** Rust's `str::trim`. (Every White_Space character is in the Basic Multilingual Plane, so code units suffice.) */
export function rustTrim(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && isRustWhitespace(text.charCodeAt(start))) start += 1;
  while (end > start && isRustWhitespace(text.charCodeAt(end - 1))) end -= 1;
  return text.slice(start, end);
}

/** Rust's `str::trim_end`. */
export function rustTrimEnd(text: string): string {
  let end = text.length;
  while (end > 0 && isRustWhitespace(text.charCodeAt(end - 1))) end -= 1;
  return text.slice(0, end);
}

/**
 * Whether `text` carries a control character: C0 (TAB among them), DEL, C1, or the line and paragraph
 * separators. Codex 0.169.0 drops every TAB from a patch path (`.<TAB>.` is `..` to it, `.g<TAB>it` is
 * `.git`) where parser.rs keeps it, and which of these a given version drops, keeps or splits on cannot
 * be known here, so no reading of such a path is certain.
 */
export function hasControlCharacter(text: string): boolean {
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029) return true;
  }
  return false;
}

/** Rust's `str::lines`: split on `\n`, drop one `\r` right before each `\n`, no empty line after a final `\n`. */
export function rustLines(text: string): string[] {
  if (text === '') return [];
  const pieces = text.split('\n');
  const endsWithNewline = pieces[pieces.length - 1] === '';
  if (endsWithNewline) pieces.pop();
  return pieces.map((line, index) => (index < pieces.length - 1 || endsWithNewline) && line.endsWith('\r') ? line.slice(0, -1) : line);
}

function invalidHunk(message: string): CodexPatchError {
  return new CodexPatchError('bad-hunk', message);
}

/** `parse_update_file_chunk`: how many lines one chunk of an update hunk consumes. */
function updateChunkLength(lines: readonly string[], allowMissingContext: boolean): number {
  if (lines.length === 0) throw invalidHunk('an update hunk does not contain any lines');
  const first = lines[0] as string;
  let start: number;
  if (first === EMPTY_CHANGE_CONTEXT_MARKER || first.startsWith(CHANGE_CONTEXT_MARKER)) start = 1;
  else if (allowMissingContext) start = 0;
  else throw invalidHunk(`an update hunk must start with a @@ context marker, got "${first}"`);
  if (start >= lines.length) throw invalidHunk('an update hunk does not contain any lines');
  let parsed = 0;
  for (const line of lines.slice(start)) {
    if (line === EOF_MARKER) {
      if (parsed === 0) throw invalidHunk('an update hunk does not contain any lines');
      parsed += 1;
      break;
    }
    const lead = line.charAt(0);
    if (line === '' || lead === ' ' || lead === '+' || lead === '-') {
      parsed += 1;
      continue;
    }
    if (parsed === 0) throw invalidHunk(`unexpected line in an update hunk: "${line}"`);
    break;
  }
  return parsed + start;
}

/** A hunk's path, refused when it carries a control character (see hasControlCharacter). */
function certainPath(path: string): string {
  if (hasControlCharacter(path)) throw invalidHunk(`the path ${JSON.stringify(path)} carries a control character, which Codex versions read differently (0.169.0 drops a TAB)`);
  return path;
}

/**
 * The readings of a move path: as written (parser.rs matches the move line untrimmed, so its path keeps
 * trailing spaces) and with trailing white space trimmed (Codex 0.169.0 trims space, NBSP, U+3000 and
 * the rest of Rust's White_Space there). One that trims to nothing is refused: 0.169.0 does not read
 * that line as a move at all.
 */
function movePathReadings(spelled: string): string[] {
  const trimmed = rustTrimEnd(spelled);
  if (trimmed === '') throw invalidHunk('a move names no path');
  certainPath(spelled);
  return trimmed === spelled ? [spelled] : [spelled, trimmed];
}

/** `parse_one_hunk`: the hunk at the start of `lines` and how many lines it consumes. */
function parseOneHunk(lines: readonly string[]): { hunk: CodexHunk; length: number } {
  const header = rustTrim(lines[0] as string);
  if (header.startsWith(ADD_FILE_MARKER)) {
    let length = 1;
    while (length < lines.length && (lines[length] as string).startsWith('+')) length += 1;
    return { hunk: { kind: 'add', path: certainPath(header.slice(ADD_FILE_MARKER.length)) }, length };
  }
  if (header.startsWith(DELETE_FILE_MARKER)) {
    return { hunk: { kind: 'delete', path: certainPath(header.slice(DELETE_FILE_MARKER.length)) }, length: 1 };
  }
  if (header.startsWith(UPDATE_FILE_MARKER)) {
    const path = certainPath(header.slice(UPDATE_FILE_MARKER.length));
    let rest = lines.slice(1);
    let length = 1;
    // The move line is matched untrimmed; its path is read both as written and trimmed (a `\r` left
    // there by `\r\r\n` is a control character, refused).
    const moveLine = rest[0];
    const movePaths = moveLine !== undefined && moveLine.startsWith(MOVE_TO_MARKER) ? movePathReadings(moveLine.slice(MOVE_TO_MARKER.length)) : undefined;
    if (movePaths !== undefined) {
      rest = rest.slice(1);
      length += 1;
    }
    let chunks = 0;
    while (rest.length > 0) {
      const line = rest[0] as string;
      if (rustTrim(line) === '') {
        length += 1;
        rest = rest.slice(1);
        continue;
      }
      if (line.startsWith('*')) break;
      const consumed = updateChunkLength(rest, chunks === 0);
      chunks += 1;
      length += consumed;
      rest = rest.slice(consumed);
    }
    if (chunks === 0) throw new CodexPatchError('empty-update', `the update hunk for "${path}" is empty`);
    return { hunk: movePaths === undefined ? { kind: 'update', path } : { kind: 'update', path, movePaths }, length };
  }
  throw invalidHunk(`"${header}" is not a valid hunk header`);
}

/** `check_patch_boundaries_strict`: the lines between the markers, or why there are none. */
function strictBody(lines: readonly string[]): readonly string[] {
  const first = lines[0] === undefined ? undefined : rustTrim(lines[0]);
  const last = lines.length === 0 ? undefined : rustTrim(lines[lines.length - 1] as string);
  if (first !== BEGIN_PATCH_MARKER) throw new CodexPatchError('no-begin', "the first line of the patch must be '*** Begin Patch'");
  if (last !== END_PATCH_MARKER || lines.length < 2) throw new CodexPatchError('no-end', "the last line of the patch must be '*** End Patch'");
  return lines.slice(1, -1);
}

/** `check_patch_boundaries_lenient`: the strict boundaries, or the same inside a `<<EOF … EOF` wrapper. */
function lenientBody(lines: readonly string[]): readonly string[] {
  try {
    return strictBody(lines);
  } catch (error) {
    const first = lines[0];
    const last = lines[lines.length - 1];
    const heredoc = first === '<<EOF' || first === "<<'EOF'" || first === '<<"EOF"';
    if (heredoc && last !== undefined && last.endsWith('EOF') && lines.length >= 4) return strictBody(lines.slice(1, -1));
    throw error;
  }
}

/**
 * Parses a patch body as Codex's `parse_patch` does (lenient mode). Throws CodexPatchError where
 * Codex would refuse the patch. A patch with no hunk parses (Codex then writes nothing).
 */
export function parseCodexPatch(patch: string): CodexHunk[] {
  let body = lenientBody(rustLines(rustTrim(patch)));
  const hunks: CodexHunk[] = [];
  while (body.length > 0) {
    const { hunk, length } = parseOneHunk(body);
    hunks.push(hunk);
    body = body.slice(length);
  }
  return hunks;
}

const APPLY_PATCH_COMMANDS = ['apply_patch', 'applypatch'];

/** The lower-cased file stem of a program path (`/bin/BASH.exe` → `bash`), as Codex's `classify_shell_name`. */
function shellName(program: string): string {
  const base = program.slice(program.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  const stem = dot > 0 ? base.slice(0, dot) : base;
  return asciiLowerCase(stem);
}

/** The script of `[shell, flag, script]` (or PowerShell's `-NoProfile` form) when Codex reads it as a shell invocation. */
function shellScript(argv: readonly string[]): string | undefined {
  const classify = (shell: string, flag: string): boolean => {
    const name = shellName(shell);
    if (name === 'bash' || name === 'zsh' || name === 'sh') return flag === '-lc' || flag === '-c';
    if (name === 'pwsh' || name === 'powershell') return asciiLowerCase(flag) === '-command';
    if (name === 'cmd') return asciiLowerCase(flag) === '/c';
    return false;
  };
  if (argv.length === 3 && classify(argv[0] as string, argv[1] as string)) return argv[2];
  if (argv.length === 4) {
    const name = shellName(argv[0] as string);
    if ((name === 'pwsh' || name === 'powershell') && asciiLowerCase(argv[1] as string) === '-noprofile' && classify(argv[0] as string, argv[2] as string)) {
      return argv[3];
    }
  }
  return undefined;
}

/** Whether a shell script can be an apply_patch invocation Codex would run: it names the command and has a heredoc. */
export function mentionsApplyPatch(script: string): boolean {
  return /(^|[^\w-])(apply_patch|applypatch)([^\w-]|$)/.test(script) && script.includes('<<');
}

// The two whole-script forms, in their plain spellings only. The first line (after blank space) is
// `[cd <dir> &&] apply_patch <<DELIM`, DELIM bare or quoted with ' or "; the directory is one bare word
// without any shell expansion character, or one quoted string without any. The body runs to the first
// line that is exactly DELIM, no line before it may start with DELIM after white space (mayEndHeredoc),
// and nothing but blank space may follow it. Lines are split on `\n` alone
// and every pattern is anchored without the multiline flag (JavaScript's multiline `^`/`$` would also
// stop at `\r`, U+2028 and U+2029, which bash does not).
//
// Codex intercepts the `cd` form only when its grammar (tree-sitter-bash 0.25) reads the directory as a
// `word`, a `raw_string` or a `string` with content; anything else it hands to bash, which expands an
// unquoted heredoc the gate would read literally. So a bare directory must not be what its grammar
// reads as a `number` (`-?(0x)?[0-9]+`: `1`, `0x10`, `-1`; `1a` is a word) or `==` (an operator), and a
// double-quoted one must not be empty (`""` has no content): such a `cd` is refused.
const FIRST_LINE =
  /^(?:cd[ \t]+(?:(?!(?:-?(?:0x)?[0-9]+|==)(?:[ \t]|&))([^\s'"$`\\;&|<>()*?[\]{}!#~]+)|'([^'\n]*)'|"([^"$`\\\n]+)")[ \t]*&&[ \t]*)?(?:apply_patch|applypatch)[ \t]*<<[ \t]*(?:'([A-Za-z_][A-Za-z0-9_]*)'|"([A-Za-z_][A-Za-z0-9_]*)"|([A-Za-z_][A-Za-z0-9_]*))[ \t]*$/;

function unreadableScript(): CodexPatchError {
  return new CodexPatchError(
    'unreadable-script',
    'the shell script invokes apply_patch in a form the gate cannot read with certainty (only "apply_patch <<\'EOF\'" and "cd <dir> && apply_patch <<\'EOF\'" are read)',
  );
}

// Bash ends a heredoc only at a line that is exactly its delimiter; Codex's grammar (tree-sitter-bash 0.25)
// does not: it skips white space at the start of a line (which characters count depends on the C library's
// `iswspace`: U+3000 and U+2028 on this machine, maybe NBSP elsewhere) and then takes a line that starts with
// the delimiter for its end. A body line such as ` EOF` or `EOFX` therefore cuts its heredoc short, or breaks
// the parse, so Codex does not intercept the script and hands it to bash, which expands an unquoted heredoc
// (`` src/a/`echo ../../README.md` ``) and runs the `apply_patch` Codex puts on PATH with what it made. Such
// a body is refused; so are leading control characters and any white space JavaScript knows, to leave no
// platform's `iswspace` out.
const HEREDOC_LINE_LEAD = /^[\s\x00-\x1f\x7f-\x9f\u180e\u200b-\u200d]*/u;

/** Whether Codex's grammar may read this body line as its heredoc's end (see HEREDOC_LINE_LEAD). */
function mayEndHeredoc(line: string, delimiter: string): boolean {
  return line.replace(HEREDOC_LINE_LEAD, '').startsWith(delimiter);
}

/** The heredoc body and `cd` directory of a script in one of the two plain forms; throws when the script is anything else. */
function scriptPatch(script: string): { body: string; workdir?: string } {
  const lines = script.replace(/^[ \t\n]+/, '').split('\n');
  const first = FIRST_LINE.exec(lines[0] ?? '');
  if (first === null) throw unreadableScript();
  const delimiter = first[4] ?? first[5] ?? first[6] ?? '';
  const end = lines.indexOf(delimiter, 1);
  if (end === -1 || !/^[ \t\n]*$/.test(lines.slice(end + 1).join('\n'))) throw unreadableScript();
  if (lines.slice(1, end).some((line) => mayEndHeredoc(line, delimiter))) throw unreadableScript();
  const workdir = first[1] ?? first[2] ?? first[3];
  // The directory is joined onto every path, so a control character in it is one in each of them.
  if (workdir !== undefined && hasControlCharacter(workdir)) {
    throw new CodexPatchError('unreadable-script', `the cd directory ${JSON.stringify(workdir)} carries a control character, which Codex versions read differently`);
  }
  // Codex keeps the heredoc body with its final newlines trimmed.
  const body = lines.slice(1, end).join('\n').replace(/\n+$/, '');
  return workdir === undefined ? { body } : { body, workdir };
}

/**
 * The patch an argv runs, as Codex's `maybe_parse_apply_patch` reads it: `[apply_patch, body]`, or a
 * shell invocation whose script is one of the two plain forms. Undefined when the argv is not an
 * apply_patch invocation at all; throws CodexPatchError when it may be one the gate cannot read.
 */
export function parseCodexInvocation(argv: readonly string[]): CodexPatch | undefined {
  if (argv.length === 2 && APPLY_PATCH_COMMANDS.includes(argv[0] as string)) return { hunks: parseCodexPatch(argv[1] as string) };
  const script = shellScript(argv);
  if (script !== undefined) return parseCodexScript(script);
  if (argv.some((part) => part.includes(BEGIN_PATCH_MARKER) || APPLY_PATCH_COMMANDS.some((name) => part.includes(name)))) {
    throw new CodexPatchError('unreadable-script', 'the command names apply_patch or carries a patch in a form Codex may still apply; the gate cannot read it with certainty');
  }
  return undefined;
}

/**
 * The patch a shell command string runs (Codex runs `$SHELL -lc <command>` and intercepts an
 * apply_patch script before the shell sees it). Undefined when the script cannot be an apply_patch
 * invocation; throws CodexPatchError when it may be one the gate cannot read.
 */
export function parseCodexScript(script: string): CodexPatch | undefined {
  if (!mentionsApplyPatch(script)) return undefined;
  const { body, workdir } = scriptPatch(script);
  const hunks = parseCodexPatch(body);
  return workdir === undefined ? { hunks } : { hunks, workdir };
}

/** Every path a patch writes (a move writes its source and its destination, in every reading), as Codex holds them. */
export function patchPaths(patch: CodexPatch): string[] {
  return patch.hunks.flatMap((hunk) => (hunk.kind === 'update' && hunk.movePaths !== undefined ? [hunk.path, ...hunk.movePaths] : [hunk.path]));
}
