// The repository a command runs in, found the same way by every command that reads declarations.
import { relative, resolve, sep } from 'node:path';
import { gitIgnoreCase, gitTopLevel, listRepositoryFiles } from '../node/git';

/** The repository the command runs in: git's top level, or the working directory outside git. */
export interface CommandRepository {
  root: string;
  inGit: boolean;
  /** git's `core.ignorecase` (false outside git). */
  ignoreCase: boolean;
  /** The files git knows (empty outside git). */
  files: string[];
}

/**
 * Locates the repository around `cwd`. Files are the tracked ones, plus the untracked ones that are not
 * ignored unless `includeUntracked` is false (a plan may name files the wave is about to add); none at all
 * when `listFiles` is false (the caller has its own list).
 */
export function locateCommandRepository(cwd: string, options: { includeUntracked?: boolean; listFiles?: boolean } = {}): CommandRepository {
  const top = gitTopLevel(cwd);
  if (top === undefined) return { root: resolve(cwd), inGit: false, ignoreCase: false, files: [] };
  const files = options.listFiles === false ? [] : listRepositoryFiles(top, { includeUntracked: options.includeUntracked ?? true });
  return { root: top, inGit: true, ignoreCase: gitIgnoreCase(top), files };
}

export { writeConfinement } from '../planner/plan/declarationPaths';

/** A path for messages: relative to the working directory when inside it. */
export function shownPath(cwd: string, path: string): string {
  const rel = relative(cwd, path);
  return rel === '' || rel.startsWith('..') ? path : rel.split(sep).join('/');
}
