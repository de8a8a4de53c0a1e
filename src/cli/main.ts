import { printLine, processIo, reportError } from './cliIo';
import type { CliIo, CommandRunner } from './cliIo';
import { runDigest } from './commands/digest';
import { runDoctorCommand } from './commands/doctor';
import { runHook } from './commands/hook';
import { runInstallHooks } from './commands/installHooks';
import { runMaterialize } from './commands/materialize';
import { runPlan } from './commands/plan';
import { runValidate } from './commands/validate';
import { messages } from './messages';

const commands: Record<string, CommandRunner> = {
  validate: runValidate,
  materialize: runMaterialize,
  plan: runPlan,
  digest: runDigest,
  hook: runHook,
  'install-hooks': runInstallHooks,
  doctor: runDoctorCommand,
};

/** Runs one `wave-scope` invocation and returns its exit code. Exported so tests can run it in-process. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    printLine(io, messages.usage);
    return name === undefined ? 2 : 0;
  }
  if (name === '--version') {
    printLine(io, messages.version);
    return 0;
  }
  const command = commands[name];
  if (command === undefined) {
    reportError(io, messages.unknownCommand(name));
    return 2;
  }
  return command(rest, io);
}

if (require.main === module) {
  const io = processIo();
  runCli(process.argv.slice(2), io).then(
    (code) => {
      // exitCode, not exit(): a large stdout is still being flushed to a pipe at this point.
      process.exitCode = code;
    },
    (error: unknown) => {
      reportError(io, messages.internalError(error));
      process.exitCode = 2;
    },
  );
}
