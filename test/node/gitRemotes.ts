// A shared remote for the sync tests: a bare repository in a temporary directory, seeded with a commit on
// `main`, and as many clones of it as a test asks for. Real git throughout.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const identity = {
  GIT_AUTHOR_NAME: 'Wave Scope Test',
  GIT_AUTHOR_EMAIL: 'test@example.invalid',
  GIT_COMMITTER_NAME: 'Wave Scope Test',
  GIT_COMMITTER_EMAIL: 'test@example.invalid',
};

/** Runs git in `cwd` with a fixed identity; returns stdout. */
export function gitIn(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, ...identity }, stdio: ['ignore', 'pipe', 'pipe'] });
}

export interface Clone {
  readonly root: string;
  git(...args: string[]): string;
  write(files: Record<string, string>): void;
  /** Writes, stages everything and commits. */
  commit(files: Record<string, string>, message?: string): string;
}

export interface SharedRemote {
  /** The bare repository (the "server"). */
  readonly bare: string;
  readonly dir: string;
  /** A new clone of the remote (its `origin`), on `main`. */
  clone(name: string): Clone;
  remove(): void;
}

function cloneAt(root: string): Clone {
  const write = (files: Record<string, string>) => {
    for (const [relative, content] of Object.entries(files)) {
      const target = join(root, relative);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, content);
    }
  };
  return {
    root,
    git: (...args) => gitIn(root, ...args),
    write,
    commit(files, message = 'test commit') {
      write(files);
      gitIn(root, 'add', '--all');
      gitIn(root, 'commit', '--quiet', '--allow-empty', '-m', message);
      return gitIn(root, 'rev-parse', 'HEAD').trim();
    },
  };
}

/**
 * A bare remote whose `main` holds `files` (plus a .gitignore keeping the state directories out of
 * commits, as a project using Wave Scope would).
 */
export function createSharedRemote(files: Record<string, string>): SharedRemote {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-remote-')));
  const bare = join(dir, 'remote.git');
  gitIn(dir, 'init', '--quiet', '--bare', '--initial-branch=main', bare);
  const seed = join(dir, 'seed');
  gitIn(dir, 'init', '--quiet', '--initial-branch=main', seed);
  const seeded = cloneAt(seed);
  seeded.commit({ '.gitignore': '.claude/\n.codex/\n.cursor/\n.pi/\n', ...files }, 'seed');
  gitIn(seed, 'push', '--quiet', bare, 'main');
  return {
    bare,
    dir,
    clone(name) {
      const root = join(dir, name);
      gitIn(dir, 'clone', '--quiet', bare, root);
      gitIn(root, 'config', 'core.ignorecase', 'false');
      return cloneAt(root);
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
