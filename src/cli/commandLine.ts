// Every subcommand reads what its caller gives it the same way: flags through Node's own strict
// parser, an `ERROR:` line and the command's usage hint on a bad flag or bad input, and `--help`
// answered before anything else happens.
import { parseArgs } from 'node:util';
import type { ParseArgsConfig } from 'node:util';
import { printLine, reportError, reportNote } from './cliIo';
import type { CliIo } from './cliIo';
import { parseJsonText } from '../planner/plan/jsonText';
import { declarationMessages, messages } from './messages';

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

/** Arguments or stdin the command cannot work with; the message is one sentence. */
export class UsageProblem extends Error {}

/**
 * Reads a command's input with `read`, which throws UsageProblem for anything unusable: then the
 * problem is reported like a bad flag (an `ERROR:` line and the usage hint) and the result is
 * undefined, so the command returns its bad-arguments exit code. Any other error propagates.
 */
export async function readArguments<T extends object>(io: CliIo, command: string, read: () => T | Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (error) {
    if (!(error instanceof UsageProblem)) throw error;
    reportBadArguments(io, command, error.message);
    return undefined;
  }
}

/** Parses `--wave`'s value: a positive decimal integer. */
export function parseWave(value: string | undefined): number {
  if (value === undefined) throw new UsageProblem(declarationMessages.missingOption('--wave'));
  if (!/^[1-9][0-9]{0,8}$/.test(value)) throw new UsageProblem(declarationMessages.badWave(value));
  return Number(value);
}

/** Reads stdin as JSON (the record array of materialize and plan write). */
export async function readRecords(io: CliIo): Promise<unknown> {
  const text = await io.readStdin();
  if (text.trim() === '') throw new UsageProblem(declarationMessages.noRecords);
  const json = parseJsonText(text);
  if (!json.ok) throw new UsageProblem(declarationMessages.recordsNotJson(json.message));
  return json.value;
}

/**
 * The flags that pick what `install-hooks` and `doctor` act on: one per agent CLI (`--claude`,
 * `--codex`, `--cursor`, `--gemini`) and `--git`.
 */
export const HOOK_TARGET_FLAGS = {
  claude: { type: 'boolean' },
  codex: { type: 'boolean' },
  cursor: { type: 'boolean' },
  gemini: { type: 'boolean' },
  git: { type: 'boolean' },
} as const satisfies Options;
