// git, run as a process: the repository's top level, its case rule and its file list. The pure core
// (src/planner) never spawns anything; the CLI and the extension call these and pass the results in.
import { execFile, execFileSync } from 'node:child_process';

/**
 * The environment of every git Wave Scope runs: `base` with replace refs and grafts switched off. With
 * `git replace` (refs/replace/*, which a fetch of all refs or any shell in the clone can bring in), git
 * shows one object's content under another's id: a commit judged by its id would be judged by a stand-in's
 * tree. A graft file (`info/grafts`, deprecated but still read, and not switched off by the former) gives
 * commits parents they do not have: a base grafted onto the head makes the head its own merge base, and a
 * range with no change. What is decided must be the objects themselves.
 */
export function gitEnvironment(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return { ...base, GIT_NO_REPLACE_OBJECTS: '1', GIT_GRAFT_FILE: NOWHERE };
}

/**
 * A path no file can have (below /dev/null, which is not a directory), for a setting git must find nothing
 * at: git fails on it at once, or (for a graft file) reads nothing and says nothing about it.
 */
export const NOWHERE = '/dev/null/wave-scope-nowhere';

/** Runs git with the given arguments in `cwd`; returns stdout, or throws with git's stderr. */
export function runGit(cwd: string, args: readonly string[]): string {
  return execFileSync('git', args, {
    cwd,
    env: gitEnvironment(),
    encoding: 'utf8',
    maxBuffer: 1024 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** The top level of the git work tree that contains `cwd` (a worktree's own root for a linked worktree), or undefined outside git. */
export function gitTopLevel(cwd: string): string | undefined {
  try {
    const top = runGit(cwd, ['rev-parse', '--show-toplevel']).trim();
    return top === '' ? undefined : top;
  } catch {
    return undefined;
  }
}

/** The repository's `core.ignorecase` (false when unset or outside git). */
export function gitIgnoreCase(cwd: string): boolean {
  try {
    return runGit(cwd, ['config', '--bool', 'core.ignorecase']).trim() === 'true';
  } catch {
    return false;
  }
}

/**
 * Repository-relative paths of the tracked files under the work tree of `root` (which must be the top
 * level), plus untracked files that are not ignored when `includeUntracked` is set. NUL-separated, so
 * names with newlines or quotes come through exactly.
 */
export function listRepositoryFiles(root: string, options: { includeUntracked?: boolean } = {}): string[] {
  return uniquePaths(runGit(root, listFilesArgs(options)));
}

function listFilesArgs(options: { includeUntracked?: boolean }): string[] {
  const args = ['-c', 'core.quotePath=false', 'ls-files', '-z', '--cached'];
  if (options.includeUntracked) args.push('--others', '--exclude-standard');
  return args;
}

function uniquePaths(output: string): string[] {
  const files = output.split('\0').filter((path) => path !== '');
  // --cached lists a path once per merge stage during a conflict; --others can repeat what --cached said.
  return [...new Set(files)];
}

// ---- asynchronous: for the extension host, which must never block on git --------------------------

/**
 * Settings given to every git the extension host runs. The extension lists and reads folders VS Code
 * opened in Restricted mode, whose `.git/config` nobody vetted: `core.fsmonitor` names a program that any
 * command reading the index runs (`ls-files` included). Empty switches it off in every git version.
 */
const HOST_GIT_CONFIG = ['-c', 'core.fsmonitor='];

/**
 * Runs git with the given arguments in `cwd` without blocking; resolves with stdout, rejects with git's
 * stderr. Never starts a program the repository's own configuration names (HOST_GIT_CONFIG).
 */
export function runGitAsync(cwd: string, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('git', [...HOST_GIT_CONFIG, ...args], { cwd, env: gitEnvironment(), encoding: 'utf8', maxBuffer: 1024 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) {
        const detail = stderr.trim();
        reject(detail === '' ? error : Object.assign(new Error(`git ${args.join(' ')}: ${detail}`), { cause: error }));
        return;
      }
      resolve(stdout);
    });
  });
}

/** gitTopLevel without blocking: the work tree's top level, or undefined outside git. */
export async function gitTopLevelAsync(cwd: string): Promise<string | undefined> {
  try {
    const top = (await runGitAsync(cwd, ['rev-parse', '--show-toplevel'])).trim();
    return top === '' ? undefined : top;
  } catch {
    return undefined;
  }
}

/** gitIgnoreCase without blocking: the repository's `core.ignorecase` (false when unset or outside git). */
export async function gitIgnoreCaseAsync(cwd: string): Promise<boolean> {
  try {
    return (await runGitAsync(cwd, ['config', '--bool', 'core.ignorecase'])).trim() === 'true';
  } catch {
    return false;
  }
}

/** listRepositoryFiles without blocking: the same paths, in the same order. */
export async function listRepositoryFilesAsync(root: string, options: { includeUntracked?: boolean } = {}): Promise<string[]> {
  const output = await runGitAsync(root, listFilesArgs(options));
  return uniquePaths(output);
}
