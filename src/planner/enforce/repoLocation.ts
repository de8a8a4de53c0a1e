// Finding the write root and the manifest root of a hook call without spawning git. `git rev-parse
// --show-toplevel` is a process spawn (several milliseconds) on a path that runs before every write,
// so the hook reads the same facts git would read: walk up from the directory to the first `.git`
// entry. A `.git` directory marks an ordinary checkout. A `.git` file (`gitdir: <path>`) marks a linked
// worktree: its git dir holds a `commondir` file pointing at the shared git directory, whose parent
// is the coordinator's checkout, where the wave's manifest lives (reference § 2.5: manifest root vs
// write root). The pointers are read as git reads them, links followed, but only with one link: git
// writes them itself, and a second name could lie in an agent's scope, where a write would move the
// checkout's manifest root.
/** The little of a file system the walk needs. `src/node/hookFileSystem.ts` has the Node one. */
export interface LocateFileSystem {
  /** `dir`, `file`, `other` (a FIFO, a device, a socket), or undefined when nothing is there (a link is followed). */
  kind(path: string): 'dir' | 'file' | 'other' | undefined;
  /**
   * The whole text of one of git's small control files, or undefined when nothing is there; links are
   * followed, as git follows them. Throws when it cannot be read safely: not a regular file, a link that
   * leads nowhere, larger than the cap, too slow, or (`singleLink`) a file with more than one link.
   */
  readText(path: string, options?: { readonly singleLink?: boolean }): string | undefined;
  /**
   * The whole text of one of Wave Scope's own control files below `root` (the repository root), or
   * undefined when nothing is there. Only a regular file with one link, reached from `root` through
   * real directories, is read; anything else throws (`root` itself may have been reached through a link).
   */
  readOwnFile(root: string, path: string): string | undefined;
  /** The real path of an existing file or directory, undefined when it cannot be had (gitConfig.ts, ConfigFileSystem). */
  realPath?(path: string): string | undefined;
}

/** Reads Wave Scope's own files below `root` (a state directory's, found from that root) as a StateDirFs reads. */
export function ownFilesBelow(root: string, fs: Pick<LocateFileSystem, 'readOwnFile'>): { readText(path: string): string | undefined } {
  return { readText: (path) => fs.readOwnFile(root, path) };
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
        manifestRoot: commonDir === marker ? dir : workTreeOf(commonDir, dir),
        linkedWorktree: commonDir !== marker,
      };
    }
    if (kind === 'other') {
      throw new Error(`${marker} is neither a directory nor a file (a FIFO, a device or a socket); cannot tell which repository this is.`);
    }
    if (kind === 'file') {
      const pointer = firstLine(fs.readText(marker, { singleLink: true }));
      if (pointer === undefined || !pointer.startsWith('gitdir:')) {
        throw new Error(`${marker} is a file but not a "gitdir: <path>" pointer; cannot tell which repository this is.`);
      }
      const gitDir = resolveFrom(dir, pointer.slice('gitdir:'.length).trim());
      const commonDir = commonDirOf(gitDir, fs);
      return {
        writeRoot: dir,
        gitDir,
        commonDir,
        manifestRoot: commonDir === gitDir ? dir : workTreeOf(commonDir, dir),
        linkedWorktree: commonDir !== gitDir,
      };
    }
    if (dir === '/') return undefined;
    dir = parentOf(dir);
  }
}

/**
 * Where a commit into the git directory `gitDir` (git's GIT_DIR) made from the work tree `workTree` belongs,
 * when the walk from that work tree does not lead to it (`--work-tree`, GIT_WORK_TREE, GIT_DIR from
 * elsewhere, `core.worktree`): the manifest root is the checkout of the common git directory, which must be
 * named `.git`. One named otherwise (a bare repository, `--separate-git-dir`) names no checkout, and this
 * throws: "cannot tell" is never "no repository".
 */
export function locateGitDirectory(gitDir: string, workTree: string, fs: LocateFileSystem): RepoLocation {
  const commonDir = commonDirOf(gitDir, fs);
  if (!commonDir.endsWith('/.git')) {
    throw new Error(`git commits into ${gitDir}, and the checkout whose plan governs it cannot be told from ${workTree} (its git directory is not named .git); commit from that checkout`);
  }
  return { writeRoot: workTree, gitDir, commonDir, manifestRoot: parentOf(commonDir), linkedWorktree: commonDir !== gitDir };
}

function commonDirOf(gitDir: string, fs: LocateFileSystem): string {
  const pointer = firstLine(fs.readText(joinPath(gitDir, 'commondir'), { singleLink: true }));
  return pointer === undefined ? gitDir : resolveFrom(gitDir, pointer);
}

/**
 * The checkout whose plan governs a linked worktree at `worktree`: the main checkout, the parent of the
 * common git directory when it is named `.git`. A common directory named otherwise (a bare repository with
 * worktrees, or one made with `--separate-git-dir`) says nothing of where a main checkout is (git itself
 * lists the git directory as the main worktree then), so each checkout of it is governed by its own plan.
 */
function workTreeOf(commonDir: string, worktree: string): string {
  return commonDir.endsWith('/.git') ? parentOf(commonDir) : worktree;
}

/**
 * Every checkout around the canonical directory `start`, innermost first: the one that contains it,
 * then the one that contains that one's top level, and so on up to `/`. A repository planted inside
 * another (a `.git` an agent wrote, a submodule, a vendored clone) is never the only one the gate sees.
 */
export function locateRepositories(start: string, fs: LocateFileSystem): RepoLocation[] {
  const chain: RepoLocation[] = [];
  let dir = start;
  for (let depth = 0; depth < 4096; depth += 1) {
    const location = locateRepository(dir, fs);
    if (location === undefined) break;
    chain.push(location);
    if (location.writeRoot === '/') break;
    dir = parentOf(location.writeRoot);
  }
  return chain;
}

/**
 * The main checkout whose plan governs the checkout at `root` when that is not `root` itself (a linked
 * worktree of an ordinary repository: the hooks of every checkout read the main checkout's plan, so one
 * written in the worktree's own state directory would never be enforced); undefined otherwise, and when
 * the walk cannot tell (the hooks deny then anyway).
 */
export function governingCheckoutElsewhere(root: string, fs: LocateFileSystem): string | undefined {
  let location: RepoLocation | undefined;
  try {
    location = locateRepository(root, fs);
  } catch {
    return undefined;
  }
  if (location === undefined || !location.linkedWorktree || location.manifestRoot === location.writeRoot) return undefined;
  return location.manifestRoot;
}
