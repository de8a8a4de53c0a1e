// The lean entry of the hook bundle `dist/hook.js`: only `wave-scope hook ...`, so a hook process
// loads the write gate and nothing else (no planner views, no validators it does not call). The
// launcher the installer writes requires this file and calls `runHookMain`; `dist/cli.js hook`
// serves the same subcommand through the full dispatcher.
import { readFileSync } from 'node:fs';
import { writeAllToDescriptor } from '../node/descriptorOutput';
import { processIo, reportNote } from './cliIo';
import type { CliIo } from './cliIo';
import { runHook } from './commands/hook';
import { hookMessages } from './messages';

/**
 * The process's I/O with synchronous reads and writes of fds 0, 1 and 2. A hook reads one small
 * payload and writes one line; creating Node's stdin/stdout stream objects for a pipe costs more
 * than the whole decision, so the hook bundle skips them (falling back to them if fd 0 is non-blocking).
 * They are made only then: touching `process.stdout` makes fd 1 non-blocking (writeAllToDescriptor).
 */
export function hookProcessIo(): CliIo {
  return {
    async readStdin() {
      try {
        return readFileSync(0, 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
        return processIo().readStdin();
      }
    },
    writeStdout: (text) => writeAllToDescriptor(1, text),
    writeStderr: (text) => writeAllToDescriptor(2, text),
    cwd: process.cwd(),
    env: process.env,
  };
}

/** Runs `hook <name> ...args` in this process and sets the exit code. */
export function runHookMain(argv: string[]): Promise<void> {
  return runHook(argv, hookProcessIo()).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      // The exit code first: 2 is what every supported agent CLI reads as "block", even if the note cannot be written.
      process.exitCode = 2;
      try {
        reportNote(processIo(), hookMessages.lastResort(error instanceof Error ? error.message : String(error)));
      } catch {
        // Nothing left to say it with; the exit code still blocks.
      }
    },
  );
}

if (require.main === module) void runHookMain(process.argv.slice(2));
