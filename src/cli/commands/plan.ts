// `wave-scope plan write` (the one safe chain) and `wave-scope plan show` (every wave on disk).
// Contract (flags, output, exit codes): docs/cli.md § plan; JSON shapes: docs/file-formats.md.
import { resolve } from 'node:path';
import { ENFORCEMENT_VALUES } from '../../planner/plan/manifest';
import type { Enforcement } from '../../planner/plan/manifest';
import { nodeDeclarationFs, readTextIfExists } from '../../node/declarationFs';
import { readPlan } from '../../planner/plan/planReader';
import type { PlanView } from '../../planner/plan/planReader';
import { resolveWriteStateDir, writeWavePlan } from '../../planner/plan/planWriter';
import type { WavePlanResult } from '../../planner/plan/planWriter';
import { processLocalSessionIds } from '../../planner/plan/sessionBinding';
import { scopeRecordWarnings } from '../../planner/scope/scopeWarnings';
import { reportWarning } from '../cliIo';
import type { CliIo } from '../cliIo';
import { parseCommandLine } from '../commandLine';
import { declarationMessages as say, messages, scopeWarningMessages } from '../messages';
import { locateCommandRepository } from '../commandRepository';
import { parseWave, readRecords, shownPath, UsageProblem, writeConfinement } from './materialize';

// Steps whose failure is the input's fault (exit 1); the rest are the file system's (exit 2).
const INPUT_STEPS = new Set(['validate', 'state-dir', 'assert-disjoint']);

export async function runPlan(args: string[], io: CliIo): Promise<number> {
  const [subcommand, ...rest] = args;
  if (subcommand === undefined || subcommand === '--help' || subcommand === '-h') {
    io.writeStdout(say.planUsage);
    return subcommand === undefined ? 1 : 0;
  }
  if (subcommand === 'write') return runPlanWrite(rest, io);
  if (subcommand === 'show') return runPlanShow(rest, io);
  io.writeStderr(messages.badArguments('plan', say.unknownPlanSubcommand(subcommand)));
  return 1;
}

function jsonResult(result: WavePlanResult): string {
  return `${JSON.stringify(result, null, 2)}\n`;
}

async function runPlanWrite(args: string[], io: CliIo): Promise<number> {
  const commandLine = parseCommandLine(
    'plan',
    args,
    {
      wave: { type: 'string' },
      role: { type: 'string' },
      'state-dir': { type: 'string' },
      enforcement: { type: 'string' },
      'new-file': { type: 'string', multiple: true, default: [] },
      'blocked-command': { type: 'string', multiple: true },
      json: { type: 'boolean', default: false },
    },
    { io, usage: say.planUsage, badArgumentsExit: 1 },
  );
  if ('exitCode' in commandLine) return commandLine.exitCode;
  const { values } = commandLine;
  let wave: number;
  let records: unknown;
  let enforcement: Enforcement | undefined;
  try {
    wave = parseWave(values.wave);
    if (values.role === undefined) throw new UsageProblem(say.missingOption('--role'));
    if (values.role.trim() === '') throw new UsageProblem(say.emptyRole);
    if (values.enforcement !== undefined) {
      if (!ENFORCEMENT_VALUES.includes(values.enforcement as Enforcement)) throw new UsageProblem(say.badEnforcement(values.enforcement));
      enforcement = values.enforcement as Enforcement;
    }
    records = await readRecords(io);
  } catch (error) {
    if (!(error instanceof UsageProblem)) throw error;
    io.writeStderr(messages.badArguments('plan', error.message));
    return 1;
  }

  const repository = locateCommandRepository(io.cwd);
  for (const { record, warning } of scopeRecordWarnings(records, { repoRoot: repository.root, ignoreCase: repository.ignoreCase })) {
    reportWarning(io, scopeWarningMessages.inRecords(record, warning.message));
  }
  const ownIds = processLocalSessionIds({ env: io.env });
  let stateDir: string;
  if (values['state-dir'] !== undefined && values['state-dir'] !== '') stateDir = resolve(io.cwd, values['state-dir']);
  else {
    const resolved = resolveWriteStateDir(repository.root, ownIds, { readText: readTextIfExists });
    if ('problem' in resolved) {
      io.writeStderr(say.planStopped('state-dir', resolved.problem));
      return 1;
    }
    stateDir = resolved.stateDir;
  }

  const result = writeWavePlan(
    {
      repoRoot: repository.root,
      stateDir,
      wave,
      role: values.role,
      enforcement,
      records,
      blockedCommands: values['blocked-command'],
      ownIds,
      ignoreCase: repository.ignoreCase,
      knownFiles: repository.files,
      newFiles: values['new-file'],
    },
    nodeDeclarationFs(writeConfinement(repository.root, stateDir)),
  );
  if (!result.ok) {
    io.writeStderr(say.planStopped(result.step, result.message));
    if (result.errors.length > 1 || result.errors[0] !== result.message) {
      for (const detail of result.errors) io.writeStderr(say.planDetail(detail));
    }
    if (values.json) io.writeStdout(jsonResult(result));
    return INPUT_STEPS.has(result.step) ? 1 : 2;
  }
  for (const warning of result.warnings) io.writeStderr(say.warning(warning));
  if (values.json) io.writeStdout(jsonResult(result));
  else {
    io.writeStdout(
      say.planWritten(wave, result.manifest.role, shownPath(io.cwd, result.manifestPath), result.manifest.allowedPaths.length, result.manifest.session_id),
    );
    for (const [id, digest] of Object.entries(result.digests)) io.writeStdout(say.planAgentDigest(id, digest));
  }
  return 0;
}

function formatPlanView(view: PlanView): string {
  const lines: string[] = [];
  const manifest = view.manifest;
  if (!manifest.found) lines.push(`State dir ${view.stateDir}: no manifest (${manifest.path})`);
  else if (manifest.problem !== null) lines.push(`State dir ${view.stateDir}: manifest ${manifest.path} is unusable: ${manifest.problem.message}`);
  else {
    lines.push(
      `State dir ${view.stateDir}: manifest ${manifest.path} names wave ${manifest.wave} (${manifest.role}, ${manifest.enforcement}), ` +
        `${manifest.allowedPaths.length} allowed entries, session ${manifest.session}`,
    );
  }
  if (view.waves.length === 0) lines.push('No wave declared.');
  for (const wave of view.waves) {
    lines.push(`Wave ${wave.wave}: ${wave.status}${wave.active ? ', active' : ''} (${wave.sidecar})`);
    for (const agent of wave.agents) {
      lines.push(`  ${agent.id}${agent.coordinator ? ' (coordinator)' : ''}  ${agent.digest ?? 'no digest'}`);
      for (const entry of agent.entries) lines.push(`    ${entry.entry}  ${entry.matches} match${entry.matches === 1 ? '' : 'es'}`);
    }
    for (const collision of wave.collisions) {
      lines.push(`  COLLISION ${collision.agents[0]} / ${collision.agents[1]}: ${collision.entries[0]} vs ${collision.entries[1]}, both name ${collision.witness}`);
    }
    for (const problem of wave.problems) lines.push(`  problem: ${problem}`);
  }
  return `${lines.join('\n')}\n`;
}

async function runPlanShow(args: string[], io: CliIo): Promise<number> {
  const commandLine = parseCommandLine(
    'plan',
    args,
    {
      'state-dir': { type: 'string' },
      json: { type: 'boolean', default: false },
    },
    { io, usage: say.planUsage, badArgumentsExit: 1 },
  );
  if ('exitCode' in commandLine) return commandLine.exitCode;
  const { values } = commandLine;
  const repository = locateCommandRepository(io.cwd);
  const ownIds = processLocalSessionIds({ env: io.env });
  const stateDir = values['state-dir'] === undefined || values['state-dir'] === '' ? undefined : resolve(io.cwd, values['state-dir']);
  let view: PlanView;
  try {
    view = readPlan(
      repository.root,
      { stateDir, ownIds, ignoreCase: repository.ignoreCase, files: repository.files },
      nodeDeclarationFs(stateDir ?? repository.root),
    );
  } catch (error) {
    io.writeStderr(say.error(`cannot read the plan: ${(error as Error).message}`));
    return 2;
  }
  io.writeStdout(values.json ? `${JSON.stringify(view, null, 2)}\n` : formatPlanView(view));
  return 0;
}
