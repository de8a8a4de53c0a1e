// The lean entry of the hook bundle `dist/hook.js`: only `wave-scope hook ...`, so a hook process
// loads the write gate and nothing else (no planner views, no validators it does not call). The
// launcher the installer writes requires this file and calls `runHookMain`; `dist/cli.js hook`
// serves the same subcommand through the full dispatcher.
import { processIo } from './cliIo';
import { runHook } from './commands/hook';
import { hookMessages } from './messages';

/** Runs `hook <name> ...args` in this process and sets the exit code. */
export function runHookMain(argv: string[]): Promise<void> {
  return runHook(argv, processIo()).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(hookMessages.lastResort(error instanceof Error ? error.message : String(error)));
      process.exitCode = 2;
    },
  );
}

if (require.main === module) void runHookMain(process.argv.slice(2));
