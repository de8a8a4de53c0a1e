// Runs the bundled `wave-scope` CLI (dist/cli.js of the installed extension) as a child process, so
// the extension host never waits on it: Install Hooks, Uninstall Hooks, Verify Hooks and the dispatch
// ledger all go through the CLI the hooks themselves run, never a second implementation.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** What one run of the CLI printed, and how it exited. */
export interface CliResult {
  /** The exit code; undefined when the CLI could not start or was killed. */
  readonly code: number | undefined;
  readonly stdout: string;
  readonly stderr: string;
  /** Why the CLI did not run or did not finish, for a person. */
  readonly failure: string | undefined;
}

/** How long one CLI run may take before it is stopped (ms): `doctor` probes every agent CLI. */
const CLI_TIMEOUT_MS = 120_000;

/** The bundled CLI of the extension installed at `extensionPath`. */
export function bundledCli(extensionPath: string): string {
  return join(extensionPath, 'dist', 'cli.js');
}

/** Runs `wave-scope <args>` in `cwd` with the extension's own CLI; `input`, when given, is its whole stdin. */
export function runCli(extensionPath: string, cwd: string, args: readonly string[], env: Record<string, string | undefined> = {}, input?: string): Promise<CliResult> {
  const cli = bundledCli(extensionPath);
  if (!existsSync(cli)) return Promise.resolve({ code: undefined, stdout: '', stderr: '', failure: `the bundled CLI is missing (${cli})` });
  return new Promise((resolve) => {
    // In desktop VS Code process.execPath is Electron: ELECTRON_RUN_AS_NODE makes it a plain Node.
    const child = execFile(
      process.execPath,
      [cli, ...args],
      { cwd, encoding: 'utf8', env: { ...process.env, ELECTRON_RUN_AS_NODE: '1', ...env }, timeout: CLI_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (!error) {
          resolve({ code: 0, stdout, stderr, failure: undefined });
          return;
        }
        const code = typeof error.code === 'number' ? error.code : undefined;
        const failure = code === undefined ? `wave-scope ${args[0] ?? ''} did not finish (${error.signal ?? String(error.code ?? error.message)})` : undefined;
        resolve({ code, stdout: stdout ?? '', stderr: stderr ?? '', failure });
      },
    );
    if (input !== undefined) child.stdin?.end(input);
  });
}

/** The JSON document a run printed on stdout, or undefined when it printed none. */
export function jsonOf(result: CliResult): unknown {
  try {
    return JSON.parse(result.stdout) as unknown;
  } catch {
    return undefined;
  }
}
