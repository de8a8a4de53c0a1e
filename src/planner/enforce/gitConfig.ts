// Reading git's configuration without running git. The write gate runs before every write and
// must not spawn a process, yet it has to know which hooks directory git will run (an agent that
// can rewrite that directory's pre-commit hook switches the commit guard off) and whether the
// repository folds case. So it reads the same files git reads, in git's order (system, global,
// local, worktree, then GIT_CONFIG_COUNT pairs from the environment), with git's syntax (sections and
// subsections, quotes and escapes, `\` continuations, `#`/`;` comments, a key without `=` meaning true)
// and follows `include.path` and `includeIf.<condition>.path`.
//
// The two answers are read differently because they fail differently. `core.hooksPath` is a list of
// places to protect, so where git's answer depends on something the gate does not know (which system
// file this git build reads, an `includeIf` condition, which assignment is the last) the gate takes the
// superset: every value any of those files assigns is protected, and so is every file they include
// (writing one can set a new hooks path). The installer, which may spawn git, asks git itself (`git
// rev-parse --git-path hooks`); test/planner/enforce/gitConfig.test.ts checks that git's answer is
// always in the gate's set. `core.ignorecase` is a last-wins boolean that widens what a grant matches,
// where a superset would be unsound (a file git does not read could say true last). For it the gate
// retraces git's reading: the conditions it can decide without git (`gitdir:`, `gitdir/i:`, `onbranch:`)
// are decided as git decides them, and whatever stays undecided yields both answers; the grants fold
// case only when every answer is true, the control-state checks whenever one is.
//
// Links among these files are followed, as git follows them (where each leads is control state for a
// dispatched agent, writeGate.ts), but a file inside the checkout is read only with one link
// (ScanOptions.roots): a hard link has no destination to protect.

import { matchIncludePattern } from './includePattern';
import { asciiLowerCase } from '../scope/scopeEntry';

/**
 * The reading half of a file system. Throws on anything but "not there" (undefined), and, with
 * `singleLink`, for a file with more than one link.
 */
export interface ConfigFileSystem {
  readText(path: string, options?: { readonly singleLink?: boolean }): string | undefined;
  /**
   * The real path of an existing file or directory (realpath(3)), undefined when there is none. An
   * `includeIf "gitdir:"` condition is matched against real paths; without this it stays undecided.
   */
  realPath?(path: string): string | undefined;
}

/** One assignment of a config file. */
export interface ConfigEntry {
  /** Lower-cased section name (`core`, `include`, `includeif`). */
  readonly section: string;
  /** The subsection as written (`"gitdir:~/work/"`), when there is one. */
  readonly subsection?: string;
  /** Lower-cased key name. */
  readonly key: string;
  /** The value, quotes and escapes resolved; undefined for a key without `=` (a boolean true). */
  readonly value: string | undefined;
}

/** A config file git cannot read either. */
export class GitConfigError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    message: string,
  ) {
    super(`${file}:${line}: ${message}`);
    this.name = 'GitConfigError';
  }
}

const NAME_CHAR = /[A-Za-z0-9-]/;

/** Parses one config file's text as git does. Throws GitConfigError where git reports a bad config line. */
export function parseGitConfig(text: string, file = '<config>'): ConfigEntry[] {
  const entries: ConfigEntry[] = [];
  let index = 0;
  let line = 1;
  let section: string | undefined;
  let subsection: string | undefined;
  const fail = (message: string): never => {
    throw new GitConfigError(file, line, message);
  };
  const peek = () => text.charAt(index);
  const skipToLineEnd = () => {
    while (index < text.length && text[index] !== '\n') index += 1;
  };

  const readSectionHeader = () => {
    index += 1; // [
    let name = '';
    while (index < text.length && (NAME_CHAR.test(peek()) || peek() === '.')) name += text[index++];
    if (name === '') fail('empty section name');
    let sub: string | undefined;
    // git's whitespace here includes a lone CR (CR LF is the end of the line, and an error).
    const blank = () => peek() === ' ' || peek() === '\t' || (peek() === '\r' && text.charAt(index + 1) !== '\n');
    if (blank()) {
      while (blank()) index += 1;
      if (peek() !== '"') fail('a subsection must be quoted');
      index += 1;
      sub = '';
      for (;;) {
        if (index >= text.length || peek() === '\n') fail('unterminated subsection');
        const char = text[index++] as string;
        if (char === '"') break;
        if (char === '\\') {
          if (index >= text.length || peek() === '\n') fail('unterminated subsection');
          sub += text[index++];
        } else sub += char;
      }
    }
    if (peek() !== ']') fail('bad section header');
    index += 1;
    const dot = name.indexOf('.');
    if (sub === undefined && dot !== -1) {
      // The deprecated `[section.subsection]` spelling: the subsection is lower-cased.
      section = asciiLowerCase(name.slice(0, dot));
      subsection = asciiLowerCase(name.slice(dot + 1));
    } else {
      section = asciiLowerCase(name);
      subsection = sub;
    }
  };

  // git's parse_value, over get_next_char (which reads CR LF as LF and anything else, a lone CR too, as
  // itself): outside quotes git's whitespace (space, tab, CR) is dropped before the value and at its end,
  // and inside it each such character becomes one space; `\b` is the byte 0x08. git keeps the value in a
  // C string, so a NUL ends it (the rest of the line is still parsed: a quote or escape there counts).
  const readValue = (): string => {
    let value = '';
    let spaces = 0;
    let quoted = false;
    for (;;) {
      if (index >= text.length) break;
      const char = text[index] as string;
      if (char === '\n' || (char === '\r' && text.charAt(index + 1) === '\n')) {
        if (quoted) fail('newline inside a quoted value');
        break;
      }
      index += 1;
      if (!quoted && (char === ' ' || char === '\t' || char === '\r')) {
        if (value !== '') spaces += 1;
        continue;
      }
      if (!quoted && (char === '#' || char === ';')) {
        skipToLineEnd();
        break;
      }
      value += ' '.repeat(spaces);
      spaces = 0;
      if (char === '"') {
        quoted = !quoted;
        continue;
      }
      if (char === '\\') {
        // The end of the text reads as a newline: a `\` there is a continuation onto nothing.
        if (index >= text.length) continue;
        const next = text[index] as string;
        if (next === '\n' || (next === '\r' && text.charAt(index + 1) === '\n')) {
          index += next === '\n' ? 1 : 2;
          line += 1;
          continue;
        }
        index += 1;
        if (next === 'n') value += '\n';
        else if (next === 't') value += '\t';
        else if (next === 'b') value += '\b';
        else if (next === '\\' || next === '"') value += next;
        else fail(`bad escape "\\${next}"`);
        continue;
      }
      value += char;
    }
    if (quoted) fail('unterminated quote');
    const nul = value.indexOf('\0');
    return nul === -1 ? value : value.slice(0, nul);
  };

  while (index < text.length) {
    const char = peek();
    if (char === '\n') {
      index += 1;
      line += 1;
      continue;
    }
    if (char === ' ' || char === '\t' || char === '\r' || (index === 0 && char === '\uFEFF')) {
      index += 1;
      continue;
    }
    if (char === '#' || char === ';') {
      skipToLineEnd();
      continue;
    }
    if (char === '[') {
      readSectionHeader();
      continue;
    }
    if (!/[A-Za-z]/.test(char)) fail(`bad config line`);
    let key = '';
    while (index < text.length && NAME_CHAR.test(peek())) key += text[index++];
    while (peek() === ' ' || peek() === '\t') index += 1;
    let value: string | undefined;
    if (peek() === '=') {
      index += 1;
      value = readValue();
    } else if (peek() === '\n' || peek() === '' || (peek() === '\r' && text.charAt(index + 1) === '\n')) {
      // Only the end of the line may follow a key without `=` (git's get_value): a comment is a bad line.
      value = undefined;
    } else fail(`bad config line`);
    entries.push({ section: section ?? '', ...(subsection !== undefined ? { subsection } : {}), key: asciiLowerCase(key), value });
  }
  return entries;
}

/** git's boolean spellings. */
export function gitBoolean(value: string | undefined): boolean {
  if (value === undefined) return true;
  const text = asciiLowerCase(value.trim());
  if (['true', 'yes', 'on'].includes(text)) return true;
  if (['false', 'no', 'off', ''].includes(text)) return false;
  return /^-?\d+$/.test(text) && Number(text) !== 0;
}

function dirnameOf(path: string): string {
  const cut = path.lastIndexOf('/');
  return cut <= 0 ? '/' : path.slice(0, cut);
}

/** Folds `.` and `..` and repeated `/` out of an absolute path, on the spelling alone. */
function foldPath(path: string): string {
  const segments: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  return `/${segments.join('/')}`;
}

/** A pathname value as git expands it (`~` and `~/` to the home directory), made absolute against `base` and folded. */
export function expandConfigPath(value: string, base: string, homeDir: string | undefined): string | undefined {
  let path = value;
  if (path === '~' || path.startsWith('~/')) {
    if (homeDir === undefined) return undefined;
    path = `${homeDir}${path.slice(1)}`;
  }
  return foldPath(path.startsWith('/') ? path : `${base}/${path}`);
}

/** What the gate needs from git's configuration. */
export interface GitConfigScan {
  /** Every `core.hooksPath` any read file (or the environment) assigns, as written, in git's order. */
  readonly hooksPaths: readonly string[];
  /** Every config file git may read for this repository, included ones too, present or not (absolute). */
  readonly files: readonly string[];
  /**
   * `core.ignorecase` where git's answer is certainly true: every reading of the configuration the gate
   * cannot tell apart (an `includeIf` it cannot decide, a system file of another git build) says true.
   * What folding lets in (the grants) folds only then.
   */
  readonly ignoreCase: boolean;
  /** Whether some reading says `core.ignorecase` is true: what folding only refuses (control state) folds then. */
  readonly mayIgnoreCase: boolean;
  /** The remotes given a URL (`remote.<name>.url`), in the order first seen. */
  readonly remotes: readonly string[];
}

export interface ScanOptions {
  /** The shared git directory (`commondir`). */
  readonly commonDir: string;
  /** This checkout's git directory (a linked worktree's own). */
  readonly gitDir: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly homeDir?: string;
  readonly fs: ConfigFileSystem;
  /**
   * The checkout's top levels (its own and its coordinator's). A config file inside one of them or inside
   * a git directory is read only with one link: git replaces its files by a rename, so a second name was
   * made by someone else, and could lie in an agent's scope, where an allowed write would rewrite git's
   * configuration (`core.hooksPath`, `core.ignorecase`). Files outside (the system and global ones, what
   * they include) are read with their links, as git reads them.
   */
  readonly roots?: readonly string[];
}

/** git's own limit on nested includes. */
const MAX_INCLUDE_DEPTH = 10;

/**
 * How many file readings one scan follows for `core.ignorecase` (git reads a file again each time it is
 * included). Past it the answer is undecided rather than the hook's time budget spent.
 */
const MAX_READINGS = 1000;

/** Whether git reads a file: surely, surely not, or the gate cannot tell. */
type Inclusion = 'yes' | 'no' | 'maybe';

/** The values `core.ignorecase` may have at one point of git's reading (unset reads as false). */
interface Readings {
  readonly false: boolean;
  readonly true: boolean;
}

const UNSET: Readings = { false: true, true: false };
const EITHER: Readings = { false: true, true: true };

function either(a: Readings, b: Readings): Readings {
  return { false: a.false || b.false, true: a.true || b.true };
}

/**
 * git_config_bool where the gate is sure of git's answer. git also reads `+1`, `0x10`, `010`, `2k` and
 * the like as numbers and dies on anything else; those are undefined here (undecided).
 */
function exactGitBoolean(value: string | undefined): boolean | undefined {
  if (value === undefined) return true;
  const text = asciiLowerCase(value);
  if (['true', 'yes', 'on'].includes(text)) return true;
  if (['false', 'no', 'off', ''].includes(text)) return false;
  if (/^-?(0|[1-9][0-9]{0,17})$/.test(text)) return Number(text) !== 0;
  return undefined;
}

/** The system and global files git reads, in its order, each with whether git surely reads it. */
function outerFiles(env: Readonly<Record<string, string | undefined>>, homeDir: string | undefined): Array<{ file: string; read: Inclusion }> {
  const files: Array<{ file: string; read: Inclusion }> = [];
  const noSystem = env.GIT_CONFIG_NOSYSTEM !== undefined && gitBoolean(env.GIT_CONFIG_NOSYSTEM);
  if (!noSystem) {
    if (env.GIT_CONFIG_SYSTEM !== undefined && env.GIT_CONFIG_SYSTEM !== '') files.push({ file: env.GIT_CONFIG_SYSTEM, read: 'yes' });
    // A git build reads the one of its own prefix; which build runs is not known without running it.
    else for (const file of ['/etc/gitconfig', '/usr/local/etc/gitconfig', '/opt/homebrew/etc/gitconfig']) files.push({ file, read: 'maybe' });
  }
  if (env.GIT_CONFIG_GLOBAL !== undefined && env.GIT_CONFIG_GLOBAL !== '') files.push({ file: env.GIT_CONFIG_GLOBAL, read: 'yes' });
  else if (homeDir !== undefined) {
    const xdg = env.XDG_CONFIG_HOME !== undefined && env.XDG_CONFIG_HOME !== '' ? env.XDG_CONFIG_HOME : `${homeDir}/.config`;
    files.push({ file: `${xdg}/git/config`, read: 'yes' }, { file: `${homeDir}/.gitconfig`, read: 'yes' });
  }
  return files;
}

/** `GIT_CONFIG_COUNT` / `GIT_CONFIG_KEY_<n>` / `GIT_CONFIG_VALUE_<n>`, as git reads them after every file. */
function environmentEntries(env: Readonly<Record<string, string | undefined>>): ConfigEntry[] {
  const count = Number(env.GIT_CONFIG_COUNT ?? '0');
  if (!Number.isSafeInteger(count) || count <= 0) return [];
  const entries: ConfigEntry[] = [];
  for (let n = 0; n < Math.min(count, 1000); n += 1) {
    const key = env[`GIT_CONFIG_KEY_${n}`];
    if (key === undefined) continue;
    const first = key.indexOf('.');
    const last = key.lastIndexOf('.');
    if (first <= 0 || last === key.length - 1) continue;
    const section = asciiLowerCase(key.slice(0, first));
    const middle = first === last ? undefined : key.slice(first + 1, last);
    entries.push({ section, ...(middle !== undefined ? { subsection: middle } : {}), key: asciiLowerCase(key.slice(last + 1)), value: env[`GIT_CONFIG_VALUE_${n}`] ?? '' });
  }
  return entries;
}

/** ASCII-only case-insensitive equality (strncasecmp in the C locale git compares in). */
function sameIgnoringAsciiCase(a: string, b: string): boolean {
  return asciiLowerCase(a) === asciiLowerCase(b);
}

/**
 * git's include_by_gitdir. The pattern: `~/` becomes the real path of `$HOME`, `./` the real
 * directory of the including file (matched literally, not as a glob), anything else not absolute gets
 * `**` + `/` in front, and a trailing `/` gets `**`. It is matched with WM_PATHNAME (WM_CASEFOLD for
 * `gitdir/i:`) against the real path of the git directory, then, failing that, against the git directory
 * as git spelled it. git spells a linked worktree's (or a `gitdir:` file's) git directory by its real
 * path, so there a failed match is a no; a `.git` directory it spells from `$PWD` when run at the top
 * level, which may be a linked spelling the gate cannot know, so there a failed match is undecided.
 */
function gitdirCondition(
  condition: string,
  casefold: boolean,
  includingFile: string | undefined,
  scan: { gitDir: string; env: ScanOptions['env']; fs: ConfigFileSystem },
): Inclusion {
  const realPath = scan.fs.realPath;
  if (realPath === undefined) return 'maybe';
  let pattern = condition;
  let prefix = 0;
  if (pattern === '~' || pattern.startsWith('~/')) {
    // git takes `$HOME` here (no password database), made real.
    const home = scan.env.HOME === undefined || scan.env.HOME === '' ? undefined : realPath(scan.env.HOME);
    if (home === undefined) return 'maybe';
    pattern = `${home}${pattern.slice(1)}`;
  } else if (pattern.startsWith('~') || pattern.startsWith('%(prefix)/')) {
    // Another user's home, the running git's own prefix: not known without git.
    return 'maybe';
  }
  if (pattern.startsWith('./')) {
    const real = includingFile === undefined ? undefined : realPath(includingFile);
    if (real === undefined) return 'maybe';
    const dir = real.slice(0, real.lastIndexOf('/'));
    pattern = `${dir}${pattern.slice(1)}`;
    prefix = dir.length + 1;
  } else if (!pattern.startsWith('/')) pattern = `**/${pattern}`;
  if (pattern.endsWith('/')) pattern += '**';
  const matches = (text: string): boolean | undefined => {
    if (text.length < prefix) return false;
    const head = pattern.slice(0, prefix);
    if (casefold ? !sameIgnoringAsciiCase(head, text.slice(0, prefix)) : head !== text.slice(0, prefix)) return false;
    return matchIncludePattern(pattern.slice(prefix), text.slice(prefix), casefold);
  };
  const real = realPath(scan.gitDir);
  if (real === undefined) return 'maybe';
  const first = matches(real);
  if (first === undefined) return 'maybe';
  if (first) return 'yes';
  return scan.gitDir.endsWith('/.git') ? 'maybe' : 'no';
}

/**
 * git's include_by_branch: the branch HEAD names (refs/heads/ off), matched with WM_PATHNAME, a trailing
 * `/` getting `**`. A detached HEAD matches nothing. Symbolic refs are followed as git follows them (five
 * deep); a HEAD the gate cannot read as git does (a link, a reftable repository's placeholder) is undecided.
 */
function onbranchCondition(condition: string, scan: { gitDir: string; commonDir: string; fs: ConfigFileSystem }): Inclusion {
  const { fs } = scan;
  const read = (path: string): string | undefined | null => {
    try {
      return fs.readText(path);
    } catch {
      return null;
    }
  };
  const gitDirReal = fs.realPath?.(scan.gitDir);
  if (gitDirReal === undefined || fs.realPath?.(`${scan.gitDir}/HEAD`) !== `${gitDirReal}/HEAD`) return 'maybe';
  // git's isspace: space, tab, LF, CR.
  const trim = (text: string) => text.replace(/[ \t\n\r]+$/, '');
  const head = read(`${scan.gitDir}/HEAD`);
  if (head === undefined || head === null) return 'maybe';
  let text = trim(head);
  let refname: string | undefined;
  for (let hops = 0; ; hops += 1) {
    if (!text.startsWith('ref:')) {
      // An object name (what follows a space is ignored), or something git cannot resolve either.
      if (!/^([0-9a-f]{40}|[0-9a-f]{64})([ \t\n\r]|$)/.test(text)) return 'maybe';
      break;
    }
    if (hops === 5) return 'maybe';
    refname = text.slice('ref:'.length).replace(/^[ \t\n\r]+/, '');
    if (!refname.startsWith('refs/') || refname.split('/').includes('..')) return 'maybe';
    // The placeholder HEAD of a reftable repository: the real one is in the table.
    if (refname === 'refs/heads/.invalid') return 'maybe';
    const name = refname;
    const perWorktree = ['refs/bisect/', 'refs/worktree/', 'refs/rewritten/'].some((dir) => name.startsWith(dir));
    const next = read(`${perWorktree ? scan.gitDir : scan.commonDir}/${refname}`);
    if (next === null) return 'maybe';
    // Not there as a loose ref: packed (never symbolic) or unborn; either way the name stands.
    if (next === undefined) break;
    text = trim(next);
  }
  // Detached (HEAD itself an object name), or a symbolic ref outside refs/heads/.
  if (refname === undefined || !refname.startsWith('refs/heads/')) return 'no';
  let pattern = condition;
  if (pattern.endsWith('/')) pattern += '**';
  const matched = matchIncludePattern(pattern, refname.slice('refs/heads/'.length));
  return matched === undefined ? 'maybe' : matched ? 'yes' : 'no';
}

/**
 * Reads every config file git may read for one repository and collects what the gate protects.
 * Throws GitConfigError for a file git could not parse either, and whatever the file system throws.
 *
 * Two readings at once. For what the gate protects (`hooksPaths`, `files`) every include is followed
 * whatever its condition, and every file read once: a superset. For `core.ignorecase`, a last-wins
 * boolean where the superset would be unsound (a file git does not read could say true last), git's
 * reading is retraced: a condition the gate can decide (`gitdir:`, `gitdir/i:`, `onbranch:`) includes
 * or not, one it cannot (`hasconfig:`, one it does not know) yields both outcomes, and a file is read
 * again each time it is included, as git reads it.
 */
export function scanGitConfig(options: ScanOptions): GitConfigScan {
  const files: string[] = [];
  const hooksPaths: string[] = [];
  const remotes: string[] = [];
  const parsed = new Map<string, ConfigEntry[] | undefined>();
  // The least include depth each file's own includes were followed from, for the superset.
  const expandedAt = new Map<string, number>();
  let readings = 0;
  const inside = [options.gitDir, options.commonDir, ...(options.roots ?? [])].map((dir) => (dir.endsWith('/') ? dir : `${dir}/`));
  const scan = { gitDir: options.gitDir, commonDir: options.commonDir, env: options.env, fs: options.fs };
  const entriesOf = (file: string): ConfigEntry[] | undefined => {
    if (!parsed.has(file)) {
      const text = options.fs.readText(file, inside.some((dir) => file.startsWith(dir)) ? { singleLink: true } : {});
      parsed.set(file, text === undefined ? undefined : parseGitConfig(text, file));
    }
    return parsed.get(file);
  };
  const condition = (subsection: string, includingFile: string | undefined): Inclusion => {
    if (subsection.startsWith('gitdir:')) return gitdirCondition(subsection.slice('gitdir:'.length), false, includingFile, scan);
    if (subsection.startsWith('gitdir/i:')) return gitdirCondition(subsection.slice('gitdir/i:'.length), true, includingFile, scan);
    if (subsection.startsWith('onbranch:')) return onbranchCondition(subsection.slice('onbranch:'.length), scan);
    // `hasconfig:remote.*.url:` needs every remote of a separate pass; a condition this gate does not
    // know may be one a newer git does.
    return 'maybe';
  };
  /**
   * Reads one file at `depth` of includes and returns the readings after it. `live` is the readings
   * before it, or undefined when git does not read it (the superset still does, once).
   */
  const visit = (file: string, depth: number, stack: readonly string[], live: Readings | undefined): Readings | undefined => {
    if (!files.includes(file)) files.push(file);
    // git dies past its depth, which an include cycle always reaches: no answer to go by.
    if (depth > MAX_INCLUDE_DEPTH || stack.includes(file)) return live === undefined ? undefined : EITHER;
    if (live === undefined && (expandedAt.get(file) ?? Infinity) <= depth) return undefined;
    if (live !== undefined && (readings += 1) > MAX_READINGS) return EITHER;
    const entries = entriesOf(file);
    expandedAt.set(file, Math.min(depth, expandedAt.get(file) ?? Infinity));
    let current = live;
    const within = [...stack, file];
    for (const entry of entries ?? []) current = take(entry, file, depth, within, current);
    return current;
  };
  const take = (entry: ConfigEntry, file: string | undefined, depth: number, stack: readonly string[], live: Readings | undefined): Readings | undefined => {
    if (entry.section === 'core' && entry.subsection === undefined) {
      if (entry.key === 'hookspath' && entry.value !== undefined) {
        if (!hooksPaths.includes(entry.value)) hooksPaths.push(entry.value);
      }
      else if (entry.key === 'ignorecase' && live !== undefined) {
        const value = exactGitBoolean(entry.value);
        return value === undefined ? EITHER : { false: !value, true: value };
      }
      return live;
    }
    if (entry.section === 'remote' && entry.subsection !== undefined && entry.key === 'url') {
      if (!remotes.includes(entry.subsection)) remotes.push(entry.subsection);
      return live;
    }
    const plain = entry.section === 'include' && entry.subsection === undefined;
    const conditional = entry.section === 'includeif' && entry.subsection !== undefined;
    if (!(plain || conditional) || entry.key !== 'path' || entry.value === undefined || entry.value === '') return live;
    // Without a file to be relative to (an environment pair), git refuses a relative include.
    const path = expandConfigPath(entry.value, file === undefined ? '/' : dirnameOf(file), options.homeDir);
    if (path === undefined || (file === undefined && !entry.value.startsWith('/') && !entry.value.startsWith('~'))) return live;
    const included = conditional && live !== undefined ? condition(entry.subsection as string, file) : 'yes';
    if (included === 'no' || live === undefined) {
      visit(path, depth + 1, stack, undefined);
      return live;
    }
    const after = visit(path, depth + 1, stack, live) ?? live;
    return included === 'yes' ? after : either(live, after);
  };
  const readFile = (file: string, read: Inclusion, live: Readings): Readings => {
    if (read === 'no') {
      visit(file, 0, [], undefined);
      return live;
    }
    const after = visit(file, 0, [], live) ?? live;
    return read === 'yes' ? after : either(live, after);
  };

  let current = UNSET;
  for (const { file, read } of outerFiles(options.env, options.homeDir)) current = readFile(file, read, current);
  const commonConfig = `${options.commonDir}/config`;
  current = readFile(commonConfig, 'yes', current);
  // git reads config.worktree when `extensions.worktreeConfig` says so in the shared config file itself
  // (includes not followed), and only its own git directory's. The superset reads every one there is.
  let worktreeConfig: boolean | undefined = false;
  for (const entry of parsed.get(commonConfig) ?? []) {
    if (entry.section === 'extensions' && entry.subsection === undefined && entry.key === 'worktreeconfig') worktreeConfig = exactGitBoolean(entry.value);
  }
  current = readFile(`${options.gitDir}/config.worktree`, worktreeConfig === undefined ? 'maybe' : worktreeConfig ? 'yes' : 'no', current);
  if (options.commonDir !== options.gitDir) current = readFile(`${options.commonDir}/config.worktree`, 'no', current);
  for (const entry of environmentEntries(options.env)) current = take(entry, undefined, 0, [], current) ?? current;
  return { hooksPaths, files, ignoreCase: !current.false, mayIgnoreCase: current.true, remotes };
}

/**
 * The directories a hooks path value can name for a checkout: git runs hooks from the top level of
 * the working tree, so a relative value is relative to it (and the gate checks it against every top
 * level it knows: the agent's checkout and the coordinator's). Values git cannot expand (`~user/`) are
 * taken as written, relative, which only ever adds a directory to protect.
 */
export function hooksDirectories(hooksPaths: readonly string[], topLevels: readonly string[], homeDir: string | undefined): string[] {
  const dirs = new Set<string>();
  for (const value of hooksPaths) {
    if (value === '') continue;
    for (const top of topLevels) {
      const path = expandConfigPath(value, top, homeDir);
      if (path !== undefined) dirs.add(path);
    }
  }
  return [...dirs];
}
