// What the process benchmarks share: their flags, a throwaway repository's git, the environment the
// measured hooks run in, and the median they report.
import { execFileSync } from 'node:child_process';

/** The number after `name` on the command line (`--runs 3`), or `fallback` when the flag is absent. */
export function numberFlag(name: string, fallback: number): number {
  const index = process.argv.indexOf(name);
  return index === -1 ? fallback : Number(process.argv[index + 1]);
}

/** The middle value of `values` (of an even count, the upper of the two middle ones). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/** Runs git in `cwd` silently, with a fixed identity so that commits work on a machine without one. */
export function git(cwd: string, ...args: string[]): void {
  execFileSync('git', args, {
    cwd,
    stdio: 'ignore',
    env: { ...process.env, GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'b@example.invalid', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'b@example.invalid' },
  });
}

/**
 * This process's environment without Wave Scope's own variables and the agent CLI's session ones, so a
 * benchmark run from inside an agent session measures the same decisions as one run from a shell.
 */
export const cleanEnv: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('WAVE_SCOPE_') && !key.startsWith('CLAUDE_')));
