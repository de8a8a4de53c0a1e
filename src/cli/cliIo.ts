/** What a CLI command may touch of the outside world. Tests pass their own; `main.ts` passes the process's. */
export interface CliIo {
  /** The whole of standard input, read once on first call. */
  readStdin(): Promise<string>;
  /** Writes to standard output as given (no newline added). */
  writeStdout(text: string): void;
  /** Writes to standard error as given (no newline added). */
  writeStderr(text: string): void;
  /** The working directory the command was started in. */
  readonly cwd: string;
  /** The environment the command was started with. */
  readonly env: NodeJS.ProcessEnv;
}

/** A subcommand: receives its own arguments (after the subcommand name) and returns the exit code. */
export type CommandRunner = (args: string[], io: CliIo) => Promise<number>;

export function processIo(): CliIo {
  let stdin: Promise<string> | undefined;
  // A reader that goes away (`| head`, a pager quit early) ends what can be shown, not the command: the rest
  // of the output is dropped, and the command finishes its work and returns its own exit code. Without a
  // listener, the pipe's EPIPE would crash the process with a stack trace in the middle of a write.
  const gone = { stdout: false, stderr: false };
  for (const name of ['stdout', 'stderr'] as const) {
    process[name].on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
      gone[name] = true;
    });
  }
  return {
    readStdin() {
      stdin ??= new Promise<string>((resolve, reject) => {
        const chunks: Buffer[] = [];
        process.stdin.on('data', (chunk: Buffer) => chunks.push(chunk));
        process.stdin.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        process.stdin.on('error', reject);
      });
      return stdin;
    },
    writeStdout: (text) => void (gone.stdout || process.stdout.write(text)),
    writeStderr: (text) => void (gone.stderr || process.stderr.write(text)),
    cwd: process.cwd(),
    env: process.env,
  };
}

// How catalogue entries (src/cli/messages.ts: sentences without a prefix or a final newline) reach a
// person. The prefixes and the line ends live here, once.

/** One `ERROR: …` line on stderr. */
export function reportError(io: CliIo, text: string): void {
  io.writeStderr(`ERROR: ${text}\n`);
}

/** One `WARNING: …` line on stderr. */
export function reportWarning(io: CliIo, text: string): void {
  io.writeStderr(`WARNING: ${text}\n`);
}

/** One plain line on stderr (progress and notes that are neither errors nor warnings). */
export function reportNote(io: CliIo, text: string): void {
  io.writeStderr(`${text}\n`);
}

/** One line of a command's output on stdout. */
export function printLine(io: CliIo, text: string): void {
  io.writeStdout(`${text}\n`);
}
