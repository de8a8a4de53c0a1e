import { spawnSync } from 'node:child_process';
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
