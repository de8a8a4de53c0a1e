// What the process benchmarks share: their flags, a throwaway repository's git, the environment the
// measured hooks run in, one timed process, and the median they report.
import { execFileSync, spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';

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

/** One measured process: its wall time, and its CPU time (user + system) when its timer printed one. */
export interface TimedRun {
  /** Milliseconds from spawning to its exit, as this process saw them. */
  readonly wallMs: number;
  /** Milliseconds of CPU, from a `CPU <user s> <system s>` line on its standard error; undefined without one. */
  readonly cpuMs: number | undefined;
}

/**
 * Runs `command` with `input` on its standard input, its output discarded, and times it. When `command` is
 * a timer told to print `CPU <user s> <system s>` on standard error, the CPU time is read from there.
 * Throws when it exits non-zero (`name` says which).
 */
export function timedRun(name: string, command: string, args: string[], input: string, env?: NodeJS.ProcessEnv): TimedRun {
  const t0 = performance.now();
  const result = spawnSync(command, args, { input, stdio: ['pipe', 'ignore', 'pipe'], encoding: 'utf8', env });
  const wallMs = performance.now() - t0;
  if (result.status !== 0) throw new Error(`${name} exited ${result.status}: ${result.stderr}`);
  const times = /CPU ([\d.]+) ([\d.]+)/.exec(result.stderr);
  return { wallMs, cpuMs: times === null ? undefined : (Number(times[1]) + Number(times[2])) * 1000 };
}
