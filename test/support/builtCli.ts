import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** The bundle a user runs. Tests run it as a separate process, exactly as `wave-scope` is run. */
export const builtCliPath = join(__dirname, '..', '..', 'dist', 'cli.js');

export interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

export interface CliRunOptions {
  cwd?: string;
  input?: string;
  env?: NodeJS.ProcessEnv;
}

/** Spawns `node dist/cli.js ...args` and waits for it. `npm test` builds first; run `npm run build` before running mocha alone. */
export function runBuiltCli(args: string[], options: CliRunOptions = {}): CliRun {
  if (!existsSync(builtCliPath)) throw new Error(`${builtCliPath} is missing: run "npm run build" first.`);
  const result = spawnSync(process.execPath, [builtCliPath, ...args], {
    cwd: options.cwd,
    input: options.input ?? '',
    env: options.env ?? { ...process.env },
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/**
 * runBuiltCli for a process that may hang (a hook blocked on a FIFO), as an agent CLI runs a hook: killed
 * after `ms` with SIGKILL (a hook's own signal handlers, the lock library's, can keep a plain SIGTERM from
 * ending it). `signal` is null when it ended by itself.
 */
export function runBuiltCliWithin(args: string[], ms: number, options: CliRunOptions = {}): CliRun & { signal: NodeJS.Signals | null } {
  if (!existsSync(builtCliPath)) throw new Error(`${builtCliPath} is missing: run "npm run build" first.`);
  const result = spawnSync(process.execPath, [builtCliPath, ...args], { cwd: options.cwd, input: options.input ?? '', env: options.env ?? { ...process.env }, encoding: 'utf8', timeout: ms, killSignal: 'SIGKILL' });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr, signal: result.signal };
}

/**
 * The test process's environment as a user's shell would give it to `wave-scope`, with `extra` on top.
 * Left out: Wave Scope's own variables, an agent CLI's (CLAUDE_CODE_SESSION_ID binds plans to a session,
 * CLAUDE_PROJECT_DIR moves the state directory) and git's (GIT_DIR, GIT_INDEX_FILE and the like, set when
 * the suite runs inside a git hook, would point every git the CLI runs at another repository).
 */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith('WAVE_SCOPE_') || key.startsWith('CLAUDE_') || key.startsWith('GIT_')) delete env[key];
  return { ...env, ...extra };
}

/**
 * runBuiltCli without blocking the test's event loop: several can run at once, and the test's own timers
 * (a lock held and renewed meanwhile) keep running. Resolves when the process has ended and closed its output.
 */
export function runBuiltCliAsync(args: string[], options: CliRunOptions = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [builtCliPath, ...args], { cwd: options.cwd, env: options.env ?? cleanEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}
