// `wave-scope validate`: the declaration checks (subset, disjoint, union, in that order) or, with no
// assertion flag, the manifest check. The contract (flags, exit codes, output) is in docs/cli.md.
import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { findCollisions } from '../../planner/scope/collisions';
import { FileIndex } from '../../planner/scope/fileIndex';
import { validateManifest, validateManifestDocument } from '../../planner/plan/manifest';
import type { WaveManifest } from '../../planner/plan/manifest';
import { parseJsonText } from '../../planner/plan/jsonText';
import { covers } from '../../planner/scope/scopeAlgebra';
import { ScopeEntryError } from '../../planner/scope/scopeEntry';
import { normalizeRecordEntry, parseScopeRecords, ScopeInputError } from '../../planner/plan/scopeRecords';
import type { ScopeRecord } from '../../planner/scope/collisions';
import { union } from '../../planner/scope/scopeUnion';
import { expandTestSiblings } from '../../planner/scope/testSiblings';
import { scopeEntryWarnings, scopeRecordWarnings } from '../../planner/scope/scopeWarnings';
import { ScopeEngineBug } from '../../planner/scope/scopeAlgebra';
import { printLine, reportError, reportWarning } from '../cliIo';
import type { CliIo } from '../cliIo';
import { parseCommandLine, reportBadArguments } from '../commandLine';
import { locateCommandRepository } from '../commandRepository';
import { scopeWarningMessages, validateMessages } from '../messages';

/** Input the command cannot work with: exit 2 with one `ERROR:` line. */
class UnusableInput extends Error {}

interface Repository {
  root: string;
  files: FileIndex | undefined;
  ignoreCase: boolean;
}

/**
 * The files named on the command line, read before anything else, and read asynchronously: a FIFO (what
 * `<(…)` names) is waited on with this thread free, so a SIGTERM still ends the command (a synchronous
 * read of a FIFO nobody writes to blocked it for good, found by red-team review, 2026-12-06). Unreadable
 * is unusable input, reported where the file is used.
 */
async function readInputFiles(paths: ReadonlyArray<string | undefined>, cwd: string): Promise<Map<string, string | NodeJS.ErrnoException>> {
  const texts = new Map<string, string | NodeJS.ErrnoException>();
  for (const path of new Set(paths)) {
    if (path === undefined) continue;
    try {
      texts.set(path, await readFile(isAbsolute(path) ? path : resolve(cwd, path), 'utf8'));
    } catch (error) {
      texts.set(path, error as NodeJS.ErrnoException);
    }
  }
  return texts;
}

/** The command line's files as readInputFiles read them. */
type InputFiles = ReadonlyMap<string, string | NodeJS.ErrnoException>;

/** A file named on the command line, as readInputFiles read it; unreadable is unusable input. */
function readInputFile(files: InputFiles, path: string, what: string): string {
  const text = files.get(path);
  if (typeof text === 'string') return text;
  throw new UnusableInput(validateMessages.cannotRead(what, path, text?.code ?? String(text)));
}

function readJsonFile(files: InputFiles, path: string, what: string): unknown {
  const json = parseJsonText(readInputFile(files, path, what));
  if (!json.ok) throw new UnusableInput(validateMessages.badJson(what, path, json.message));
  return json.value;
}

/** The repository, its known files (`--known-files`, else what git tracks) and whether case folds. */
function locateRepository(io: CliIo, files: InputFiles, knownFilesPath: string | undefined, ignoreCaseFlag: boolean): Repository {
  // With --known-files, git is asked only for the root and core.ignorecase, not for its file list.
  const located = locateCommandRepository(io.cwd, { includeUntracked: false, listFiles: knownFilesPath === undefined });
  const ignoreCase = ignoreCaseFlag || located.ignoreCase;
  if (knownFilesPath === undefined) {
    return { root: located.root, files: located.inGit ? new FileIndex(located.files, { ignoreCase }) : undefined, ignoreCase };
  }
  const known = readInputFile(files, knownFilesPath, '--known-files')
    .split('\n')
    .map((line) => line.replace(/\r$/, ''))
    .filter((line) => line !== '');
  return { root: located.root, files: new FileIndex(known, { ignoreCase }), ignoreCase };
}

function readSidecar(path: string, io: CliIo, files: InputFiles, repository: Repository): ScopeRecord[] {
  const json = readJsonFile(files, path, 'sidecar');
  let records: ScopeRecord[];
  try {
    records = parseScopeRecords(json, { repoRoot: repository.root, ignoreCase: repository.ignoreCase, files: repository.files });
  } catch (error) {
    if (error instanceof ScopeInputError) throw new UnusableInput(validateMessages.badSidecar(path, error.message));
    throw error;
  }
  for (const { record, warning } of scopeRecordWarnings(json, { repoRoot: repository.root, ignoreCase: repository.ignoreCase })) {
    reportWarning(io, scopeWarningMessages.inSidecar(path, record, warning.message));
  }
  return records;
}

function readScopeFile(path: string, io: CliIo, files: InputFiles, repository: Repository): string[] {
  const json = readJsonFile(files, path, 'scope file');
  if (!Array.isArray(json)) throw new UnusableInput(validateMessages.scopeFileNotArray(path));
  let entries: string[];
  try {
    entries = json.map((entry: unknown, index) =>
      normalizeRecordEntry(entry, `entry ${index + 1}`, { repoRoot: repository.root, ignoreCase: repository.ignoreCase }),
    );
  } catch (error) {
    if (error instanceof ScopeInputError) throw new UnusableInput(validateMessages.badScopeFile(path, error.message));
    throw error;
  }
  for (const entry of json as string[]) {
    for (const warning of scopeEntryWarnings(entry, { repoRoot: repository.root, ignoreCase: repository.ignoreCase })) {
      reportWarning(io, scopeWarningMessages.inScopeFile(path, warning.message));
    }
  }
  return entries;
}

async function readManifest(io: CliIo): Promise<{ manifest: WaveManifest; text: string }> {
  const text = await io.readStdin();
  if (text.trim() === '') throw new UnusableInput(validateMessages.noManifest);
  const json = parseJsonText(text);
  if (!json.ok) throw new UnusableInput(validateMessages.manifestNotJson(json.message));
  const validation = validateManifest(json.value);
  if (validation.manifest === undefined) throw new UnusableInput(validateMessages.manifestInvalid(validation.errors));
  return { manifest: validation.manifest, text };
}

async function validateManifestOnly(io: CliIo): Promise<number> {
  const validation = validateManifestDocument(await io.readStdin());
  for (const error of validation.errors) reportError(io, error);
  for (const warning of validation.warnings) reportWarning(io, warning);
  return validation.errors.length > 0 ? 1 : 0;
}

export async function runValidate(args: string[], io: CliIo): Promise<number> {
  const commandLine = parseCommandLine(
    'validate',
    args,
    {
      'assert-disjoint': { type: 'string' },
      'assert-subset': { type: 'string' },
      union: { type: 'string' },
      'no-manifest': { type: 'boolean', default: false },
      'known-files': { type: 'string' },
      'ignore-case': { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
    { io, usage: validateMessages.usage, badArgumentsExit: 2 },
  );
  if ('exitCode' in commandLine) return commandLine.exitCode;
  const { values } = commandLine;
  const disjointPath = values['assert-disjoint'];
  const subsetPath = values['assert-subset'];
  const unionPath = values.union;
  if (disjointPath === undefined && subsetPath === undefined && unionPath === undefined) {
    if (values['no-manifest'] || values.json || values['known-files'] !== undefined) {
      reportBadArguments(io, 'validate', validateMessages.flagsNeedAssertion);
      return 2;
    }
    return validateManifestOnly(io);
  }
  if (values['no-manifest'] && (unionPath !== undefined || subsetPath !== undefined)) {
    reportBadArguments(io, 'validate', validateMessages.noManifestRefuses);
    return 2;
  }
  if (values.json && unionPath !== undefined) {
    reportBadArguments(io, 'validate', validateMessages.jsonWithUnion);
    return 2;
  }

  try {
    const files = await readInputFiles([values['known-files'], subsetPath, disjointPath, unionPath], io.cwd);
    const repository = locateRepository(io, files, values['known-files'], values['ignore-case']);
    const manifest = values['no-manifest'] ? undefined : await readManifest(io);
    // Read and check every input before deciding anything: unusable input is exit 2 whatever else is wrong.
    const subset = subsetPath === undefined ? undefined : readScopeFile(subsetPath, io, files, repository);
    const disjoint = disjointPath === undefined ? undefined : readSidecar(disjointPath, io, files, repository);
    const unionRecords = unionPath === undefined ? undefined : unionPath === disjointPath ? disjoint : readSidecar(unionPath, io, files, repository);

    if (subset !== undefined && manifest !== undefined) {
      const uncovered = subset.flatMap((entry) => {
        const coverage = covers(manifest.manifest.allowedPaths, entry, { ignoreCase: repository.ignoreCase });
        return coverage.covered ? [] : [validateMessages.notCovered(entry, subsetPath as string, coverage)];
      });
      if (uncovered.length > 0) {
        for (const line of uncovered) reportError(io, line);
        return 1;
      }
    }

    if (disjoint !== undefined) {
      const report = findCollisions(disjoint, { knownFiles: repository.files, ignoreCase: repository.ignoreCase });
      if (values.json) printLine(io, JSON.stringify({ ok: report.ok, collisions: report.collisions, duplicateIds: report.duplicateIds }));
      else {
        for (const collision of report.collisions) reportError(io, validateMessages.collision(collision));
        for (const id of report.duplicateIds) reportError(io, validateMessages.duplicateId(id));
      }
      if (!report.ok) return 1;
    }

    if (unionRecords !== undefined && manifest !== undefined) {
      const entries = expandTestSiblings(union(unionRecords, { ignoreCase: repository.ignoreCase }), { role: manifest.manifest.role });
      printLine(io, JSON.stringify(entries, null, 2));
    } else if (manifest !== undefined && !values.json) {
      io.writeStdout(manifest.text);
    }
    return 0;
  } catch (error) {
    if (error instanceof UnusableInput) {
      reportError(io, error.message);
      return 2;
    }
    if (error instanceof ScopeEntryError) {
      reportError(io, validateMessages.badAllowedPath(error.message));
      return 2;
    }
    // The engine refused one of its own answers: an internal error, reported as one, and nothing decided.
    if (error instanceof ScopeEngineBug) {
      reportError(io, error.message);
      return 2;
    }
    throw error;
  }
}
