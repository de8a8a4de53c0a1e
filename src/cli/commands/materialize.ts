// `wave-scope materialize`: writes a wave's two declaration shapes from one record array on stdin.
// Contract (flags, output, exit codes): docs/cli.md § materialize.
import { lstatSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { findMissingPaths, materializeWave } from '../../planner/plan/declarations';
import { FileIndex } from '../../planner/scope/fileIndex';
import { nodeDeclarationFs } from '../../node/declarationFs';
import { STATE_DIR_NAMES } from '../../planner/plan/stateDir';
import { scopeRecordWarnings } from '../../planner/scope/scopeWarnings';
import { reportWarning } from '../cliIo';
import type { CliIo } from '../cliIo';
import { locateCommandRepository } from '../commandRepository';
import { parseCommandLine } from '../commandLine';
import { declarationMessages as say, messages, scopeWarningMessages } from '../messages';

/** Arguments or stdin the command cannot work with; the message is one sentence. */
export class UsageProblem extends Error {}

/** Parses `--wave`'s value: a positive decimal integer. */
export function parseWave(value: string | undefined): number {
  if (value === undefined) throw new UsageProblem(say.missingOption('--wave'));
  if (!/^[1-9][0-9]{0,8}$/.test(value)) throw new UsageProblem(say.badWave(value));
  return Number(value);
}

/** Reads stdin as JSON (the record array). */
export async function readRecords(io: CliIo): Promise<unknown> {
  const text = await io.readStdin();
  if (text.trim() === '') throw new UsageProblem(say.noRecords);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageProblem(say.recordsNotJson((error as Error).message));
  }
}

/**
 * Where writes are confined: the repository root when the state directory lies inside it (so a
 * `.claude` that is a symbolic link is refused too), else the state directory itself.
 */
export function writeConfinement(repositoryRoot: string, stateDir: string): string {
  const rel = relative(repositoryRoot, stateDir);
  return rel === '' || rel.startsWith('..') || isAbsolute(rel) ? stateDir : repositoryRoot;
}

/** A path for messages: relative to the working directory when inside it. */
export function shownPath(cwd: string, path: string): string {
  const rel = relative(cwd, path);
  return rel === '' || rel.startsWith('..') ? path : rel.split(sep).join('/');
}

function existsNoFollow(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

export async function runMaterialize(args: string[], io: CliIo): Promise<number> {
  const commandLine = parseCommandLine(
    'materialize',
    args,
    {
      'state-dir': { type: 'string' },
      wave: { type: 'string' },
      'warn-missing': { type: 'boolean', default: false },
      'new-file': { type: 'string', multiple: true, default: [] },
      json: { type: 'boolean', default: false },
    },
    { io, usage: say.materializeUsage, badArgumentsExit: 1 },
  );
  if ('exitCode' in commandLine) return commandLine.exitCode;
  const { values } = commandLine;
  let wave: number;
  let records: unknown;
  try {
    if (values['state-dir'] === undefined || values['state-dir'] === '') throw new UsageProblem(say.missingOption('--state-dir'));
    wave = parseWave(values.wave);
    records = await readRecords(io);
  } catch (error) {
    if (!(error instanceof UsageProblem)) throw error;
    io.writeStderr(messages.badArguments('materialize', error.message));
    return 1;
  }
  const stateDir = resolve(io.cwd, values['state-dir']);
  const repository = locateCommandRepository(io.cwd);
  for (const { record, warning } of scopeRecordWarnings(records, { repoRoot: repository.root, ignoreCase: repository.ignoreCase })) {
    reportWarning(io, scopeWarningMessages.inRecords(record, warning.message));
  }
  const result = materializeWave(
    {
      stateDir,
      wave,
      records,
      repoRoot: repository.root,
      ignoreCase: repository.ignoreCase,
      files: repository.inGit ? new FileIndex(repository.files, { ignoreCase: repository.ignoreCase }) : undefined,
      newFiles: values['new-file'],
    },
    nodeDeclarationFs(writeConfinement(repository.root, stateDir)),
  );
  if (!result.ok) {
    if (result.reason === 'invalid-input') {
      for (const error of result.errors) io.writeStderr(say.error(error.message));
      io.writeStderr(say.nothingWritten);
      return 1;
    }
    io.writeStderr(say.fileSystemError(result.message));
    return 2;
  }
  if (!STATE_DIR_NAMES.some((name) => join(repository.root, name) === stateDir)) {
    io.writeStderr(say.unusualStateDir(shownPath(io.cwd, stateDir)));
  }
  if (values['warn-missing']) {
    const missing = findMissingPaths(result.records, {
      newFiles: result.newFiles,
      ignoreCase: repository.ignoreCase,
      exists: (path) => existsNoFollow(join(repository.root, ...path.split('/'))),
    });
    for (const { agent, path } of missing) io.writeStderr(say.missingPath(agent, path));
  }
  if (values.json) {
    io.writeStdout(`${JSON.stringify({ wave, stateDir, written: result.written, removed: result.removed }, null, 2)}\n`);
  } else {
    const sidecar = result.written[result.written.length - 1] ?? '';
    const removedStale = result.removed.filter((path) => path !== sidecar).length;
    io.writeStdout(say.materialized(wave, result.records.length, removedStale, shownPath(io.cwd, sidecar)));
  }
  return 0;
}
