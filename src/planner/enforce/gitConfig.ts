// Reading git's configuration without running git. The write gate runs before every write and
// must not spawn a process, yet it has to know which hooks directory git will run (an agent that
// can rewrite that directory's pre-commit hook switches the commit guard off) and whether the
// repository folds case. So it reads the same files git reads, in git's order (system, global,
// local, worktree, then GIT_CONFIG_COUNT pairs from the environment), with git's syntax (sections and
// subsections, quotes and escapes, `\` continuations, `#`/`;` comments, a key without `=` meaning true)
// and follows `include.path` and every `includeIf.<condition>.path`.
//
// Where git's answer depends on something the gate does not evaluate (an `includeIf` condition, which
// of several assignments is the last), the gate takes the superset: every `core.hooksPath` any of
// those files assigns is protected, and so is every file they include (writing one can set a new
// hooks path). The installer, which may spawn git, asks git itself (`git rev-parse --git-path hooks`);
// test/planner/enforce/gitConfig.test.ts checks that git's answer is always in the gate's set.
//
// Links among these files are followed, as git follows them (where each leads is control state for a
// dispatched agent, writeGate.ts), but a file inside the checkout is read only with one link
// (ScanOptions.roots): a hard link has no destination to protect.

/**
 * The reading half of a file system. Throws on anything but "not there" (undefined), and, with
 * `singleLink`, for a file with more than one link.
 */
export interface ConfigFileSystem {
  readText(path: string, options?: { readonly singleLink?: boolean }): string | undefined;
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

/**
 * ASCII-only lower case, as git lower-cases section and key names and Rust's `to_ascii_lowercase`
 * lower-cases program names: not a case fold (foldCase is that), so nothing outside A-Z changes.
 */
export function asciiLowerCase(text: string): string {
  return text.replace(/[A-Z]/g, (letter) => String.fromCharCode(letter.charCodeAt(0) + 32));
}

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
  /** The last `core.ignorecase`, in git's order (false when none). */
  readonly ignoreCase: boolean;
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

/** The system and global files git reads, in its order (superset: each prefix a git build may use). */
function outerFiles(env: Readonly<Record<string, string | undefined>>, homeDir: string | undefined): string[] {
  const files: string[] = [];
  const noSystem = env.GIT_CONFIG_NOSYSTEM !== undefined && gitBoolean(env.GIT_CONFIG_NOSYSTEM);
  if (!noSystem) {
    if (env.GIT_CONFIG_SYSTEM !== undefined && env.GIT_CONFIG_SYSTEM !== '') files.push(env.GIT_CONFIG_SYSTEM);
    else files.push('/etc/gitconfig', '/usr/local/etc/gitconfig', '/opt/homebrew/etc/gitconfig');
  }
  if (env.GIT_CONFIG_GLOBAL !== undefined && env.GIT_CONFIG_GLOBAL !== '') files.push(env.GIT_CONFIG_GLOBAL);
  else if (homeDir !== undefined) {
    const xdg = env.XDG_CONFIG_HOME !== undefined && env.XDG_CONFIG_HOME !== '' ? env.XDG_CONFIG_HOME : `${homeDir}/.config`;
    files.push(`${xdg}/git/config`, `${homeDir}/.gitconfig`);
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

/**
 * Reads every config file git may read for one repository and collects what the gate protects.
 * Throws GitConfigError for a file git could not parse either, and whatever the file system throws.
 */
export function scanGitConfig(options: ScanOptions): GitConfigScan {
  const files: string[] = [];
  const hooksPaths: string[] = [];
  let ignoreCase = false;
  const remotes: string[] = [];
  const inside = [options.gitDir, options.commonDir, ...(options.roots ?? [])].map((dir) => (dir.endsWith('/') ? dir : `${dir}/`));
  const visit = (file: string, depth: number) => {
    files.push(file);
    if (depth > MAX_INCLUDE_DEPTH) return;
    const text = options.fs.readText(file, inside.some((dir) => file.startsWith(dir)) ? { singleLink: true } : {});
    if (text === undefined) return;
    for (const entry of parseGitConfig(text, file)) take(entry, dirnameOf(file), depth);
  };
  const take = (entry: ConfigEntry, base: string | undefined, depth: number) => {
    if (entry.section === 'core' && entry.subsection === undefined) {
      if (entry.key === 'hookspath' && entry.value !== undefined) hooksPaths.push(entry.value);
      else if (entry.key === 'ignorecase') ignoreCase = gitBoolean(entry.value);
      return;
    }
    if (entry.section === 'remote' && entry.subsection !== undefined && entry.key === 'url') {
      if (!remotes.includes(entry.subsection)) remotes.push(entry.subsection);
      return;
    }
    const include = (entry.section === 'include' && entry.subsection === undefined) || (entry.section === 'includeif' && entry.subsection !== undefined);
    if (!include || entry.key !== 'path' || entry.value === undefined || entry.value === '') return;
    // Without a file to be relative to (an environment pair), git refuses a relative include.
    const path = expandConfigPath(entry.value, base ?? '/', options.homeDir);
    if (path === undefined || (base === undefined && !entry.value.startsWith('/') && !entry.value.startsWith('~'))) return;
    if (!files.includes(path)) visit(path, depth + 1);
  };
  for (const file of outerFiles(options.env, options.homeDir)) visit(file, 0);
  visit(`${options.commonDir}/config`, 0);
  // `extensions.worktreeConfig` decides whether git reads it; the gate reads it whenever it exists.
  visit(`${options.gitDir}/config.worktree`, 0);
  if (options.commonDir !== options.gitDir) visit(`${options.commonDir}/config.worktree`, 0);
  for (const entry of environmentEntries(options.env)) take(entry, undefined, 0);
  return { hooksPaths, files, ignoreCase, remotes };
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
