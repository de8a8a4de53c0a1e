import { createHash } from 'node:crypto';
import { useNativeSha256 } from '../planner/scope/sha256';
import { printLine, processIo, reportError } from './cliIo';
import type { CliIo, CommandRunner } from './cliIo';
import { runAmend } from './commands/amend';
import { runCommit } from './commands/commit';
import { runDigest } from './commands/digest';
import { provideDispatchCommands } from './commands/dispatchHooks';
import { runDoctorCommand } from './commands/doctor';
import { runHook } from './commands/hook';
import { runInstallHooks } from './commands/installHooks';
import { runLedger } from './commands/ledger';
import { runMaterialize } from './commands/materialize';
import { runPlan } from './commands/plan';
import { runPreDispatch, runSubagentStart } from './commands/preDispatch';
import { runPublish } from './commands/publish';
import { runRelease } from './commands/release';
import { runRun } from './commands/run';
import { runSync } from './commands/sync';
import { runValidate } from './commands/validate';
import { runVerify } from './commands/verify';
import { messages } from './messages';

const commands: Record<string, CommandRunner> = {
  validate: runValidate,
  materialize: runMaterialize,
  plan: runPlan,
  digest: runDigest,
  hook: runHook,
  'install-hooks': runInstallHooks,
  amend: runAmend,
  ledger: runLedger,
  publish: runPublish,
  sync: runSync,
  release: runRelease,
  verify: runVerify,
  run: runRun,
  commit: runCommit,
  doctor: runDoctorCommand,
};

// dist/cli.js is one self-contained file: it hands the dispatch hooks it bundles to the hook loader.
provideDispatchCommands({ runPreDispatch, runSubagentStart });
// node:crypto is loaded here in any case (sync, publish, the backstop): its hash serves every digest too.
useNativeSha256((text) => createHash('sha256').update(text, 'utf8').digest('hex'));

/** Runs one `wave-scope` invocation and returns its exit code. Exported so tests can run it in-process. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    printLine(io, messages.usage);
    return name === undefined ? 2 : 0;
  }
  if (name === '--version') {
    printLine(io, messages.version());
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
