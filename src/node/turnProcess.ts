// Running a turn's command: stdio passed through, signals forwarded, the way it ended reported.
// Confined, the command runs inside bubblewrap; bubblewrap's own init (pid 1 of the sandbox's
// process namespace) does not pass signals on, so they go to the processes it started, found through
// `--info-fd` and /proc.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { accessSync, constants, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { CommandExit } from '../planner/backstop/turnRecord';
import type { Writable } from 'node:stream';

/** Signals passed on to the turn's command. SIGINT only when the caller says so (see `forwardInterrupt`). */
const FORWARDED: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGHUP', 'SIGQUIT', 'SIGUSR1', 'SIGUSR2'];

export interface TurnProcessOptions {
  /** The command and its arguments. */
  readonly argv: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  /**
   * Run inside bubblewrap: its executable, its arguments up to (not including) `--`, and the seccomp
   * program it loads (src/planner/backstop/terminalFilter.ts), handed over on descriptor 4.
   */
  readonly bubblewrap?: { readonly executable: string; readonly args: readonly string[]; readonly seccomp: Uint8Array };
  /**
   * Forward SIGINT too. A terminal's Ctrl-C already reaches every process of the foreground group,
   * the command included; forwarding it again would deliver it twice (an agent CLI reads a double
   * Ctrl-C as "quit"). So: only when stdin is not a terminal.
   */
  readonly forwardInterrupt: boolean;
}

/** The processes bubblewrap's init started (the command), from /proc; empty when it has none yet. */
function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .split(' ')
      .filter((token) => token.trim() !== '')
      .map(Number);
  } catch {
    return [];
  }
}

function sendSignal(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(pid, signal);
  } catch {
    // Already gone.
  }
}

/** Runs the command to its end. Never rejects: a command that cannot start is `{error}`. */
export function runTurnProcess(options: TurnProcessOptions): Promise<CommandExit> {
  return new Promise((resolve) => {
    // Set once the command exists (a holder, since the handlers below read it before the spawn).
    const running: { child?: ChildProcess } = {};
    let sandboxInit: number | undefined;
    // Signals that arrive before the command exists are held and passed on as soon as it does: the
    // handlers are in place before the spawn, so no signal can find the supervisor without them.
    const pending: NodeJS.Signals[] = [];
    const forward = (signal: NodeJS.Signals) => {
      const { child } = running;
      if (child === undefined) {
        pending.push(signal);
        return;
      }
      if (sandboxInit === undefined) {
        sendSignal(child.pid, signal);
        return;
      }
      const inside = childrenOf(sandboxInit);
      if (inside.length === 0) sendSignal(sandboxInit, signal);
      for (const pid of inside) sendSignal(pid, signal);
    };
    const signals = options.forwardInterrupt ? [...FORWARDED, 'SIGINT' as const] : FORWARDED;
    const handlers = signals.map((signal) => {
      const handler = () => forward(signal);
      process.on(signal, handler);
      return { signal, handler };
    });
    // A terminal's Ctrl-C reaches the command directly; the supervisor must outlive it to check the turn.
    const ignoreInterrupt = () => undefined;
    if (!options.forwardInterrupt) process.on('SIGINT', ignoreInterrupt);
    let finished = false;
    const done = (exit: CommandExit) => {
      if (finished) return;
      finished = true;
      for (const { signal, handler } of handlers) process.off(signal, handler);
      process.off('SIGINT', ignoreInterrupt);
      resolve(exit);
    };
    let started: ChildProcess;
    try {
      if (options.bubblewrap !== undefined) {
        started = spawn(options.bubblewrap.executable, [...options.bubblewrap.args, '--info-fd', '3', '--seccomp', '4', '--', ...options.argv], {
          cwd: options.cwd,
          env: options.env,
          stdio: ['inherit', 'inherit', 'inherit', 'pipe', 'pipe'],
        });
        // bubblewrap reads the program to its end before it starts the command (a few hundred bytes: the
        // pipe holds them whole).
        const seccomp = started.stdio[4] as Writable | null;
        seccomp?.on('error', () => undefined);
        seccomp?.end(options.bubblewrap.seccomp);
        const info = started.stdio[3];
        const chunks: Buffer[] = [];
        info?.on('data', (chunk: Buffer) => chunks.push(chunk));
        info?.on('end', () => {
          try {
            const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { 'child-pid'?: unknown };
            if (typeof parsed['child-pid'] === 'number') sandboxInit = parsed['child-pid'];
          } catch {
            // Without the info the signals go to bubblewrap itself, which ends the sandbox.
          }
        });
        info?.on('error', () => undefined);
      } else {
        started = spawn(options.argv[0] as string, options.argv.slice(1), { cwd: options.cwd, env: options.env, stdio: 'inherit' });
      }
    } catch (error) {
      done({ error: (error as Error).message });
      return;
    }
    running.child = started;
    started.once('error', (error) => done({ error: error.message }));
    started.once('exit', (code, signal) => done(signal !== null ? { signal } : { code: code ?? 1 }));
    for (const signal of pending.splice(0)) forward(signal);
  });
}

/** Whether `name` can be run: a path to an executable file, or an executable found on PATH. */
export function findExecutable(name: string, env: NodeJS.ProcessEnv): string | undefined {
  const candidates = name.includes('/') ? [name] : (env.PATH ?? '').split(delimiter).filter((dir) => dir !== '').map((dir) => join(dir, name));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here.
    }
  }
  return undefined;
}
