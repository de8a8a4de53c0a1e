// Every subcommand reads its flags the same way: Node's own strict parser, an `ERROR:` line and the
// command's usage hint on a bad flag, and `--help` answered before anything else happens.
import { parseArgs } from 'node:util';
import type { ParseArgsConfig } from 'node:util';
import { printLine, reportError, reportNote } from './cliIo';
import type { CliIo } from './cliIo';
import { messages } from './messages';

type Options = NonNullable<ParseArgsConfig['options']>;

/** An `ERROR:` line for a bad argument, then the hint that names the command's `--help`. */
export function reportBadArguments(io: CliIo, command: string, detail: string): void {
  reportError(io, detail);
  reportNote(io, messages.optionsHint(command));
}

export type ParsedCommandLine<T extends Options> = ReturnType<typeof parseArgs<{ options: T; allowPositionals: true; strict: true }>>;

/**
 * Parses a subcommand's flags (no positional arguments). Returns the parsed values, or the exit code to
 * return at once: 0 after printing `usage` for `--help`/`-h`, `badArgumentsExit` after an `ERROR:` line for
 * an unknown or malformed flag or a stray argument.
 */
export function parseCommandLine<T extends Options>(
  command: string,
  args: string[],
  options: T,
  context: { io: CliIo; usage: string; badArgumentsExit: number },
): ParsedCommandLine<T> | { exitCode: number } {
  let parsed: ParsedCommandLine<T>;
  try {
    parsed = parseArgs({ args, options: { ...options, help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals: true }) as ParsedCommandLine<T>;
  } catch (error) {
    reportBadArguments(context.io, command, error instanceof Error ? error.message : String(error));
    return { exitCode: context.badArgumentsExit };
  }
  if ((parsed.values as { help?: boolean }).help === true) {
    printLine(context.io, context.usage);
    return { exitCode: 0 };
  }
  const [unexpected] = parsed.positionals;
  if (unexpected !== undefined) {
    reportBadArguments(context.io, command, messages.unexpectedArgument(unexpected));
    return { exitCode: context.badArgumentsExit };
  }
  return parsed;
}
