// Where a workspace folder sits in its git repository, and under which path it shows the repository's
// files. git reports the repository's real path (links followed); a folder opened through a symbolic
// link (~/code/app -> /data/app, or a link to a subfolder of a repository) shows the same files under
// its own path, and that is the path VS Code's Explorer, editors and drops use. placeFolder and
// pathBelowFolder are pure; readFolderPlacement follows the folder's links on disk.
import { realpath } from 'node:fs/promises';
import { foldCase } from '../planner/scope/scopeEntry';

/** A workspace folder's place in its repository. */
export interface FolderPlacement {
  /** The repository root as git reports it (links followed), `/`-separated, without a trailing `/`. */
  readonly repoRoot: string;
  /** The folder as the workspace opened it, `/`-separated, without a trailing `/`. */
  readonly folderPath: string;
  /**
   * The folder's repository-relative path once its links are followed (`''` for the top level), or
   * undefined when its real path is outside the repository.
   */
  readonly repoRelative: string | undefined;
  /** Whether the folder is reached through a symbolic link (its own path is not its real path). */
  readonly linked: boolean;
  /** Whether paths compare ignoring case (git's core.ignorecase). */
  readonly ignoreCase: boolean;
}

function slashed(path: string): string {
  const forward = path.replace(/\\/g, '/');
  // A root (`/`, `C:/`) keeps its slash; any other path loses its trailing ones.
  return /^(?:[A-Za-z]:)?\/$/.test(forward) ? forward : forward.replace(/\/+$/, '');
}

function samePath(a: string, b: string, ignoreCase: boolean): boolean {
  // A drive letter's case never matters (VS Code writes c:, git and realpath C:).
  const fold = (path: string) => (ignoreCase ? foldCase(path) : path.replace(/^[A-Za-z]:/, (drive) => foldCase(drive)));
  return fold(a) === fold(b);
}

/** The part of `path` below `folder` (`''` for the folder itself), or undefined when it is not inside it. */
function below(folder: string, path: string, ignoreCase: boolean): string | undefined {
  if (samePath(folder, path, ignoreCase)) return '';
  const prefix = folder.endsWith('/') ? folder : `${folder}/`;
  return samePath(path.slice(0, prefix.length), prefix, ignoreCase) ? path.slice(prefix.length) : undefined;
}

/**
 * Places a workspace folder in its repository: `folderPath` is its own path, `folderRealPath` the same
 * with every link followed, `repoRoot` the top level git reports.
 */
export function placeFolder(repoRoot: string, folderPath: string, folderRealPath: string, ignoreCase: boolean): FolderPlacement {
  const root = slashed(repoRoot);
  const folder = slashed(folderPath);
  const real = slashed(folderRealPath);
  return { repoRoot: root, folderPath: folder, repoRelative: below(root, real, ignoreCase), linked: !samePath(folder, real, ignoreCase), ignoreCase };
}

/**
 * Where the folder shows the repository-relative `path` when that differs from its real path: the path
 * below the folder (`''` for the folder itself). Undefined when the file shows at its real path, under
 * the repository root: always when the folder is no link, and for a link to a subfolder, every path
 * outside that subfolder.
 */
export function pathBelowFolder(placement: FolderPlacement, path: string): string | undefined {
  if (!placement.linked || placement.repoRelative === undefined) return undefined;
  if (placement.repoRelative === '') return path;
  return below(placement.repoRelative, path, placement.ignoreCase);
}

/**
 * Whether the folder is a way into the repository of its own, besides the root: a subfolder, or a
 * folder reached through a link (so a path spelled from it must be turned into a repository path).
 */
export function isOtherWayIn(placement: FolderPlacement): boolean {
  return placement.repoRelative !== undefined && !samePath(placement.folderPath, placement.repoRoot, placement.ignoreCase);
}

/** Places a workspace folder in its repository, following the folder's links on disk. */
export async function readFolderPlacement(repoRoot: string, folderPath: string, ignoreCase: boolean): Promise<FolderPlacement> {
  let real = folderPath;
  try {
    real = await realpath(folderPath);
  } catch {
    // A folder that cannot be resolved keeps its spelling (and so counts as no link).
  }
  return placeFolder(repoRoot, folderPath, real, ignoreCase);
}
