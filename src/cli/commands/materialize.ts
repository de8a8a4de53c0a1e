// `wave-scope materialize`: writes a wave's two declaration shapes from one record array on stdin.
// Contract (flags, output, exit codes): docs/cli.md § materialize.
import { lstatSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { findMissingPaths } from '../../planner/plan/declarationInput';
import { materializeWave } from '../../planner/plan/declarationStore';
import { FileIndex } from '../../planner/scope/fileIndex';
import { nodeDeclarationFs } from '../../node/declarationFs';
import { planWriteLockAt } from '../../node/planWriteLock';
import { underPlanWriteLock } from '../../planner/plan/planWriteLock';
import { STATE_DIR_NAMES } from '../../planner/plan/stateDirNames';
import { inspectStateDir } from '../../planner/plan/stateDir';
import { processLocalSessionIds } from '../../planner/plan/sessionBinding';
import { scopeRecordWarnings } from '../../planner/scope/scopeWarnings';
import { printLine, reportError, reportWarning } from '../cliIo';
import type { CliIo } from '../cliIo';
import { locateCommandRepository, shownPath, writeConfinement } from '../commandRepository';
import { parseCommandLine, parseWave, readArguments, readRecords, UsageProblem } from '../commandLine';
import { declarationMessages as say, scopeWarningMessages } from '../messages';

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
  const input = await readArguments(io, 'materialize', async () => {
    const stateDirOption = values['state-dir'];
    if (stateDirOption === undefined || stateDirOption === '') throw new UsageProblem(say.missingOption('--state-dir'));
    return { stateDirOption, wave: parseWave(values.wave), records: await readRecords(io) };
  });
  if (input === undefined) return 1;
  const { wave, records } = input;
  const stateDir = resolve(io.cwd, input.stateDirOption);
  const repository = locateCommandRepository(io.cwd);
  for (const { record, warning } of scopeRecordWarnings(records, { repoRoot: repository.root, ignoreCase: repository.ignoreCase })) {
    reportWarning(io, scopeWarningMessages.inRecords(record, warning.message));
  }
  const fs = nodeDeclarationFs(writeConfinement(repository.root, stateDir));
  // The active wave's declarations are what the hooks hold each agent to: only `plan write` writes them,
  // proving them disjoint and computing the manifest from them (found by red-team review, 2026-12-06:
  // materialize rewrote them with overlapping scopes, and the gate let alice write bob's file).
  // The check and the writes hold the checkout's plan-write lock, so the wave cannot be made active in between.
  const locked = underPlanWriteLock(planWriteLockAt(repository.root), () => {
    const governing = inspectStateDir(stateDir, processLocalSessionIds({ env: io.env }), fs);
    if (governing.found && governing.manifest?.wave === wave) return { activeIn: governing.manifestPath };
    return materializeWave(
      {
        stateDir,
        wave,
        records,
        repoRoot: repository.root,
        ignoreCase: repository.ignoreCase,
        files: repository.inGit ? new FileIndex(repository.files, { ignoreCase: repository.ignoreCase }) : undefined,
        newFiles: values['new-file'],
      },
      fs,
    );
  });
  if (!locked.ok) {
    reportError(io, say.materializeLockRefused(locked.problem));
    return 1;
  }
  const result = locked.value;
  if ('activeIn' in result) {
    reportError(io, say.materializeActiveWave(wave, shownPath(io.cwd, result.activeIn)));
    reportError(io, say.nothingWritten);
    return 1;
  }
  if (!result.ok) {
    if (result.reason === 'invalid-input') {
      for (const error of result.errors) reportError(io, error.message);
      reportError(io, say.nothingWritten);
      return 1;
    }
    if (result.reason === 'in-the-way') {
      reportError(io, say.plantedInStateDir('materialize', shownPath(io.cwd, result.inTheWay.path), result.inTheWay.found));
      return 1;
    }
    reportError(io, say.fileSystemError(result.message));
    return 2;
  }
  if (!STATE_DIR_NAMES.some((name) => join(repository.root, name) === stateDir)) {
    reportWarning(io, say.unusualStateDir(shownPath(io.cwd, stateDir)));
  }
  if (values['warn-missing']) {
    const missing = findMissingPaths(result.records, {
      newFiles: result.newFiles,
      ignoreCase: repository.ignoreCase,
      exists: (path) => existsNoFollow(join(repository.root, ...path.split('/'))),
    });
    for (const { agent, path } of missing) reportWarning(io, say.missingPath(agent, path));
  }
  if (values.json) {
    printLine(io, JSON.stringify({ wave, stateDir, written: result.written, removed: result.removed }, null, 2));
  } else {
    const sidecar = result.written[result.written.length - 1] ?? '';
    const removedStale = result.removed.filter((path) => path !== sidecar).length;
    printLine(io, say.materialized(wave, result.records.length, removedStale, shownPath(io.cwd, sidecar)));
  }
  return 0;
}
