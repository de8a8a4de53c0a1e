import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** A real git repository in a fresh temporary directory. Call `remove()` in an `after`/`afterEach` hook. */
export interface TempGitRepo {
  /** Absolute, symlink-free path of the work tree. */
  readonly root: string;
  /** Writes files (creating directories) relative to the root. */
  write(files: Record<string, string>): void;
  /** Runs git in the repository and returns its stdout. */
  git(...args: string[]): string;
  /** Writes the files, stages everything and commits. */
  commit(files: Record<string, string>, message?: string): void;
  remove(): void;
}

export function createTempGitRepo(options: { initialFiles?: Record<string, string> } = {}): TempGitRepo {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-test-')));
  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: root,
      encoding: 'utf8',
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 'Wave Scope Test',
        GIT_AUTHOR_EMAIL: 'test@example.invalid',
        GIT_COMMITTER_NAME: 'Wave Scope Test',
        GIT_COMMITTER_EMAIL: 'test@example.invalid',
      },
    });
  const write = (files: Record<string, string>) => {
    for (const [relative, content] of Object.entries(files)) {
      const target = join(root, relative);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, content);
    }
  };
  git('init', '--quiet', '--initial-branch=main');
  git('config', 'core.ignorecase', 'false');
  const repo: TempGitRepo = {
    root,
    write,
    git,
    commit(files, message = 'test commit') {
      write(files);
      git('add', '--all');
      git('commit', '--quiet', '--allow-empty', '-m', message);
    },
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
  if (options.initialFiles) repo.commit(options.initialFiles, 'initial files');
  return repo;
}

/** Runs `body` with a new directory (real path, under the system's temp directory), removed afterwards whatever happens. */
export function withTempDirectory<T>(prefix: string, body: (directory: string) => T): T {
  const directory = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  try {
    return body(directory);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
