// Shared setup of the backstop's CLI tests: a real repository with an agent's scope file, the built
// CLI run as a user runs it, and readers for what a turn leaves behind.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { cleanEnv, runBuiltCli } from '../support/builtCli';
import type { CliRun } from '../support/builtCli';
import { createTempGitRepo } from '../support/tempGitRepo';
import type { TempGitRepo } from '../support/tempGitRepo';

/** The path of agent `agent`'s scope file for `wave`, relative to the repository root. */
export function scopePath(agent: string, wave = 1, stateDir = '.claude'): string {
  return `${stateDir}/filescopes/wave-${wave}/${agent}.json`;
}

/** The path of wave `wave`'s aggregate sidecar, relative to the repository root. */
export function sidecarPath(wave = 1, stateDir = '.claude'): string {
  return `${stateDir}/filescopes/wave-${wave}.scopes.json`;
}

/**
 * A repository with `files` and the agents' scope files (`scopes`, wave 1) committed, a git identity
 * configured, and `.orchestrator/` ignored.
 */
export function backstopRepo(files: Record<string, string>, scopes: Record<string, unknown> = {}): TempGitRepo {
  const scopeFiles = Object.fromEntries(Object.entries(scopes).map(([agent, entries]) => [scopePath(agent), `${JSON.stringify(entries)}\n`]));
  // A per-agent file counts only with the wave's aggregate backing it (the write gate's rule, which the backstop shares).
  const aggregate = Object.entries(scopes).map(([id, entries]) => ({ id, files: entries }));
  const sidecar = aggregate.length > 0 ? { [sidecarPath()]: `${JSON.stringify(aggregate)}\n` } : {};
  const repo = createTempGitRepo({ initialFiles: { '.gitignore': '.orchestrator/\n', ...files, ...scopeFiles, ...sidecar } });
  repo.git('config', 'user.name', 'Wave Scope Test');
  repo.git('config', 'user.email', 'test@example.invalid');
  return repo;
}

/** Writes agent `agent`'s scope file for `wave` (`.claude/filescopes/wave-<N>/<agent>.json`) and, for an array, its record in the wave's aggregate. */
export function writeScope(repo: TempGitRepo, agent: string, entries: unknown, wave = 1, stateDir = '.claude'): string {
  const path = join(repo.root, stateDir, 'filescopes', `wave-${wave}`, `${agent}.json`);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, typeof entries === 'string' ? entries : `${JSON.stringify(entries)}\n`);
  // Raw text is a broken declaration on purpose: no aggregate record backs it.
  if (typeof entries !== 'string') {
    const aggregatePath = join(repo.root, sidecarPath(wave, stateDir));
    const records = existsSync(aggregatePath) ? (JSON.parse(readFileSync(aggregatePath, 'utf8')) as Array<{ id: string; files: unknown }>) : [];
    const others = records.filter((record) => record.id !== agent);
    writeFileSync(aggregatePath, `${JSON.stringify([...others, { id: agent, files: entries }])}\n`);
  }
  return path;
}

/** `wave-scope run --wave <wave> --agent <agent> [flags] -- sh -c <script>` in the repository. */
export function runTurn(repo: TempGitRepo, script: string, options: { agent?: string; wave?: number; flags?: string[]; env?: Record<string, string> } = {}): CliRun {
  return runBuiltCli(
    ['run', '--wave', String(options.wave ?? 1), '--agent', options.agent ?? 'alice', ...(options.flags ?? []), '--', 'sh', '-c', script],
    { cwd: repo.root, env: cleanEnv(options.env) },
  );
}

/** The turn record `run` left for the agent. */
export function turnRecord(repo: TempGitRepo, agent = 'alice', wave = 1): Record<string, unknown> {
  return JSON.parse(readFileSync(join(repo.root, '.orchestrator', 'backstop', 'turns', `wave${wave}`, `${agent}.json`), 'utf8')) as Record<string, unknown>;
}

/** `git rev-parse HEAD`. */
export function head(repo: TempGitRepo): string {
  return repo.git('rev-parse', 'HEAD').trim();
}

/** The paths (with their status letter) the commit at HEAD touches, sorted. */
export function committedPaths(repo: TempGitRepo, commit = 'HEAD'): string[] {
  return repo
    .git('diff-tree', '--no-commit-id', '-r', '--name-status', '--no-renames', '--root', commit)
    .trim()
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => line.replace(/\t/, ' '))
    .sort();
}

/** `git status --porcelain=v1 --untracked-files=all`, one entry per line, sorted. */
export function statusLines(repo: TempGitRepo): string[] {
  return repo
    .git('status', '--porcelain=v1', '--untracked-files=all')
    .split('\n')
    .filter((line) => line !== '')
    .sort();
}

export function readFile(repo: TempGitRepo, path: string): string {
  return readFileSync(join(repo.root, path), 'utf8');
}
