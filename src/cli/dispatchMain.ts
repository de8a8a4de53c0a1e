// The entry of dist/dispatch.js: the dispatch guard's hooks. src/cli/commands/dispatchHooks.ts loads it
// from dist/hook.js only when `hook pre-dispatch` or `hook subagent-start` runs, so the write gate's bundle
// never parses it; run directly (`node dist/dispatch.js pre-dispatch`), it skips loading the write gate's
// bundle too. Its process I/O is synchronous on fds 0, 1 and 2, as the hook bundle's is.
import { readFileSync, writeSync } from 'node:fs';
import { processIo } from './cliIo';
import type { CliIo } from './cliIo';
import { runPreDispatch, runSubagentStart } from './commands/preDispatch';

export { runPreDispatch, runSubagentStart };

function writeAll(fd: number, text: string): void {
  const bytes = Buffer.from(text, 'utf8');
  for (let offset = 0; offset < bytes.length; ) offset += writeSync(fd, bytes, offset);
}

/** Runs `pre-dispatch` or `subagent-start` in this process; both always exit 0 (they fail open). */
export async function runDispatchMain(argv: string[]): Promise<void> {
  const [name, ...rest] = argv;
  let stdin: string | undefined;
  const streams = processIo();
  const io: CliIo = {
    async readStdin() {
      try {
        stdin ??= readFileSync(0, 'utf8');
      } catch (error) {
        // A non-blocking stdin: fall back to the stream reader.
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
        stdin = await streams.readStdin();
      }
      return stdin;
    },
    writeStdout: (text) => writeAll(1, text),
    writeStderr: (text) => writeAll(2, text),
    cwd: process.cwd(),
    env: process.env,
  };
  process.exitCode = name === 'subagent-start' ? await runSubagentStart(rest, io) : await runPreDispatch(rest, io);
}

if (require.main === module) void runDispatchMain(process.argv.slice(2));
