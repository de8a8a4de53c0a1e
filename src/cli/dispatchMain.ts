// The entry of dist/dispatch.js: the dispatch guard's hooks. src/cli/commands/dispatchHooks.ts loads it
// from dist/hook.js only when `hook pre-dispatch` or `hook subagent-start` runs, so the write gate's bundle
// never parses it; run directly (`node dist/dispatch.js pre-dispatch`), it skips loading the write gate's
// bundle too. Its process I/O is synchronous on fds 0, 1 and 2, as the hook bundle's is.
import { readFileSync } from 'node:fs';
import { writeAllToDescriptor } from '../node/descriptorOutput';
import { processIo } from './cliIo';
import type { CliIo } from './cliIo';
import { runPreDispatch, runSubagentStart } from './commands/preDispatch';

export { runPreDispatch, runSubagentStart };

/** Runs `pre-dispatch` or `subagent-start` in this process; both always exit 0 (they fail open). */
export async function runDispatchMain(argv: string[]): Promise<void> {
  const [name, ...rest] = argv;
  let stdin: string | undefined;
  const io: CliIo = {
    async readStdin() {
      try {
        stdin ??= readFileSync(0, 'utf8');
      } catch (error) {
        // A non-blocking stdin: fall back to the stream reader.
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
        // Made only now: touching `process.stdout` makes fd 1 non-blocking (writeAllToDescriptor).
        stdin = await processIo().readStdin();
      }
      return stdin;
    },
    writeStdout: (text) => writeAllToDescriptor(1, text),
    writeStderr: (text) => writeAllToDescriptor(2, text),
    cwd: process.cwd(),
    env: process.env,
  };
  process.exitCode = name === 'subagent-start' ? await runSubagentStart(rest, io) : await runPreDispatch(rest, io);
}

if (require.main === module) void runDispatchMain(process.argv.slice(2));
