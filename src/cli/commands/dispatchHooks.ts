// The dispatch guard's hooks (`hook pre-dispatch`, `hook subagent-start`) as `hook <name>` subcommands,
// without making the write gate pay for them: the lean hook bundle (dist/hook.js) carries only this small
// loader, which loads dist/dispatch.js when, and only when, one of these hooks runs. The full CLI
// (dist/cli.js, one self-contained file) hands its own copy of the commands over instead.
//
// Reference row 2: when the guard's code cannot be loaded, the dispatch is allowed, a GUARD INACTIVE
// line goes to stderr and one event records it.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { CliIo, CommandRunner } from '../cliIo';
import { reportNote } from '../cliIo';
import { dispatchLoaderMessages } from '../messages';
import { appendEvent } from '../../node/eventLog';
import { SCOPE_CHECKED_EVENT } from '../../planner/dispatch/dispatchEvents';

/** The hook names this loader serves. */
export const DISPATCH_HOOK_NAMES: readonly string[] = ['pre-dispatch', 'subagent-start'];

/** What dist/dispatch.js (src/cli/dispatchMain.ts) exports. */
export interface DispatchCommands {
  readonly runPreDispatch: CommandRunner;
  readonly runSubagentStart: CommandRunner;
}

let provided: DispatchCommands | undefined;

/** The full CLI passes the commands it bundles, so it never needs a file beside it. */
export function provideDispatchCommands(commands: DispatchCommands): void {
  provided = commands;
}

function load(): DispatchCommands {
  if (provided !== undefined) return provided;
  const load = createRequire(__filename);
  const bundle = join(__dirname, 'dispatch.js');
  // Beside dist/hook.js in a build; from source (tsx), the command module itself.
  return (existsSync(bundle) ? load(bundle) : load(join(__dirname, 'preDispatch'))) as DispatchCommands;
}

function guardInactive(io: CliIo, stdin: string, detail: string): void {
  reportNote(io, dispatchLoaderMessages.guardInactive(detail));
  let cwd = io.cwd;
  try {
    const payload = JSON.parse(stdin) as { cwd?: unknown };
    if (typeof payload.cwd === 'string' && payload.cwd !== '') cwd = payload.cwd;
  } catch {
    // No payload to read a directory from: the process's own directory.
  }
  appendEvent(io.env.CLAUDE_PROJECT_DIR ?? cwd, { event: SCOPE_CHECKED_EVENT, v: 1, ts: new Date().toISOString(), decision: 'allow', row: '2' });
}

/** Runs one dispatch hook. Never blocks a dispatch: every failure is an allow (exit 0). */
export async function runDispatchHook(name: string, args: string[], io: CliIo): Promise<number> {
  let commands: DispatchCommands;
  try {
    commands = load();
  } catch (error) {
    guardInactive(io, await io.readStdin().catch(() => ''), error instanceof Error ? error.message : String(error));
    return 0;
  }
  return name === 'subagent-start' ? commands.runSubagentStart(args, io) : commands.runPreDispatch(args, io);
}
