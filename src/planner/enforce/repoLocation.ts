// Finding the write root and the manifest root of a hook call without spawning git. `git rev-parse
// --show-toplevel` is a process spawn (several milliseconds) on a path that runs before every write,
// so the hook reads the same facts git would read: walk up from the directory to the first `.git`
// entry. A `.git` directory marks an ordinary checkout. A `.git` file (`gitdir: <path>`) marks a linked
// worktree: its git dir holds a `commondir` file pointing at the shared git directory, whose parent
// is the coordinator's checkout, where the wave's manifest lives (reference § 2.5: manifest root vs
// write root).
import { foldCase } from '../scope/scopeEntry';

/** The little of a file system the walk needs. `src/node/hookFileSystem.ts` has the Node one. */
export interface LocateFileSystem {
  /** `dir`, `file`, or undefined when nothing is there (a link is followed). */
  kind(path: string): 'dir' | 'file' | undefined;
  /** The whole text of a small file, or undefined when it cannot be read. */
  readText(path: string): string | undefined;
}

/** Where one hook call writes and where its wave is declared. */
export interface RepoLocation {
  /** Top level of the checkout containing the start directory (a linked worktree's own root). */
  readonly writeRoot: string;
  /** This checkout's git directory. */
  readonly gitDir: string;
  /** The shared git directory (`commondir`); equals `gitDir` for an ordinary checkout. */
  readonly commonDir: string;
  /** The coordinator's checkout: the work tree of `commonDir`. Equals `writeRoot` for an ordinary checkout. */
  readonly manifestRoot: string;
  /** True when `writeRoot` is a linked worktree of another checkout. */
  readonly linkedWorktree: boolean;
}

function parentOf(path: string): string {
  const cut = path.lastIndexOf('/');
  return cut <= 0 ? '/' : path.slice(0, cut);
}

function joinPath(base: string, rest: string): string {
  return base === '/' ? `/${rest}` : `${base}/${rest}`;
}

/** Resolves `path` (absolute, or relative to `base`) lexically. */
function resolveFrom(base: string, path: string): string {
  const start = path.startsWith('/') ? [] : base.split('/').filter((s) => s !== '');
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') start.pop();
    else start.push(segment);
  }
  return `/${start.join('/')}`;
}

/** The first line of a small git control file, trimmed. */
function firstLine(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const line = text.split(/\r?\n/, 1)[0]?.trim();
  return line === undefined || line === '' ? undefined : line;
}

/**
 * Walks up from the canonical absolute directory `start` to the checkout that contains it. Returns
 * undefined outside any git checkout. A `.git` file that is not a `gitdir:` pointer throws: that is
 * "cannot tell", never "no repository".
 */
export function locateRepository(start: string, fs: LocateFileSystem): RepoLocation | undefined {
  let dir = start;
  for (;;) {
    const marker = joinPath(dir, '.git');
    const kind = fs.kind(marker);
    if (kind === 'dir') {
      const commonDir = commonDirOf(marker, fs);
      return {
        writeRoot: dir,
        gitDir: marker,
        commonDir,
        manifestRoot: commonDir === marker ? dir : workTreeOf(commonDir),
        linkedWorktree: commonDir !== marker,
      };
    }
    if (kind === 'file') {
      const pointer = firstLine(fs.readText(marker));
      if (pointer === undefined || !pointer.startsWith('gitdir:')) {
        throw new Error(`${marker} is a file but not a "gitdir: <path>" pointer; cannot tell which repository this is.`);
      }
      const gitDir = resolveFrom(dir, pointer.slice('gitdir:'.length).trim());
      const commonDir = commonDirOf(gitDir, fs);
      return {
        writeRoot: dir,
        gitDir,
        commonDir,
        manifestRoot: commonDir === gitDir ? dir : workTreeOf(commonDir),
        linkedWorktree: commonDir !== gitDir,
      };
    }
    if (dir === '/') return undefined;
    dir = parentOf(dir);
  }
}

function commonDirOf(gitDir: string, fs: LocateFileSystem): string {
  const pointer = firstLine(fs.readText(joinPath(gitDir, 'commondir')));
  return pointer === undefined ? gitDir : resolveFrom(gitDir, pointer);
}

/** The work tree a non-bare common git directory belongs to: its parent when it is named `.git`. */
function workTreeOf(commonDir: string): string {
  return commonDir.endsWith('/.git') ? parentOf(commonDir) : commonDir;
}

/** The `[core]` settings the gate needs, read from a git config file's text (git's own reader is a process spawn). */
export interface CoreConfig {
  readonly ignoreCase: boolean;
  /** `core.hooksPath` as written (relative to the top level, or absolute), when set. */
  readonly hooksPath?: string;
}

/** Reads `core.ignorecase` and `core.hooksPath`; only the `[core]` section counts, the last assignment wins, as in git. */
export function readCoreConfig(configText: string | undefined): CoreConfig {
  if (configText === undefined) return { ignoreCase: false };
  let inCore = false;
  let ignoreCase = false;
  let hooksPath: string | undefined;
  for (const rawLine of configText.split(/\r?\n/)) {
    const line = rawLine.replace(/(^|\s)[#;].*$/, '').trim();
    if (line === '') continue;
    const section = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"[^"]*")?\s*\]/.exec(line);
    if (section !== null) {
      inCore = foldCase(section[1] ?? '') === 'core';
      continue;
    }
    if (!inCore) continue;
    const assignment = /^([A-Za-z]+)\s*(?:=\s*(.*))?$/.exec(line);
    if (assignment === null) continue;
    const key = foldCase(assignment[1] ?? '');
    const value = (assignment[2] ?? 'true').trim();
    if (key === 'ignorecase') ignoreCase = ['true', 'yes', 'on', '1'].includes(foldCase(value));
    else if (key === 'hookspath') hooksPath = value.replace(/^"(.*)"$/, '$1');
  }
  return hooksPath === undefined ? { ignoreCase } : { ignoreCase, hooksPath };
}

/** `core.ignorecase` from a git config file's text. */
export function configIgnoreCase(configText: string | undefined): boolean {
  return readCoreConfig(configText).ignoreCase;
}
