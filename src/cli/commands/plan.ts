// `wave-scope plan write` (the one safe chain) and `wave-scope plan show` (every wave on disk).
// Contract (flags, output, exit codes): docs/cli.md § plan; JSON shapes: docs/file-formats.md.
import { resolve } from 'node:path';
import { ENFORCEMENT_VALUES } from '../../planner/plan/manifest';
import type { Enforcement } from '../../planner/plan/manifest';
import { nodeDeclarationFs, nodePlanReadingFs } from '../../node/declarationFs';
import { readPlan } from '../../planner/plan/planReader';
import type { PlanView } from '../../planner/plan/planReader';
import { stoppedOnInput, writeWavePlan } from '../../planner/plan/planWriter';
import type { WavePlanResult } from '../../planner/plan/planWriter';
import { processLocalSessionIds } from '../../planner/plan/sessionBinding';
import { scopeRecordWarnings } from '../../planner/scope/scopeWarnings';
import { coordinatorAssignmentsOfInput } from '../../planner/plan/coordinatorFiles';
import { printLine, reportError, reportWarning } from '../cliIo';
import type { CliIo } from '../cliIo';
import { governingCheckoutElsewhere } from '../../planner/enforce/repoLocation';
import { nodeLocateFileSystem } from '../../node/hookFileSystem';
import { planWriteLockAt } from '../../node/planWriteLock';
import { parseCommandLine, parseWave, readArguments, readRecords, reportBadArguments, UsageProblem } from '../commandLine';
import { declarationMessages as say, planShowMessages as show, scopeWarningMessages } from '../messages';
import { locateCommandRepository, shownPath, writeConfinement } from '../commandRepository';
import { claimsForPlanShow, formatClaimsView } from './syncShared';

export async function runPlan(args: string[], io: CliIo): Promise<number> {
  const [subcommand, ...rest] = args;
  if (subcommand === undefined || subcommand === '--help' || subcommand === '-h') {
    printLine(io, say.planUsage());
    return subcommand === undefined ? 1 : 0;
  }
  if (subcommand === 'write') return runPlanWrite(rest, io);
  if (subcommand === 'show') return runPlanShow(rest, io);
  reportBadArguments(io, 'plan', say.unknownPlanSubcommand(subcommand));
  return 1;
}

function isEnforcement(value: string): value is Enforcement {
  return (ENFORCEMENT_VALUES as readonly string[]).includes(value);
}

function jsonResult(result: WavePlanResult): string {
  return JSON.stringify(result, null, 2);
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
    { io, usage: say.planUsage(), badArgumentsExit: 1 },
  );
  if ('exitCode' in commandLine) return commandLine.exitCode;
  const { values } = commandLine;
  const input = await readArguments(io, 'plan', async () => {
    const wave = parseWave(values.wave);
    const role = values.role;
    if (role === undefined) throw new UsageProblem(say.missingOption('--role'));
    if (role.trim() === '') throw new UsageProblem(say.emptyRole);
    const enforcement = values.enforcement;
    if (enforcement !== undefined && !isEnforcement(enforcement)) throw new UsageProblem(say.badEnforcement(enforcement));
    return { wave, role, enforcement, records: await readRecords(io) };
  });
  if (input === undefined) return 1;
  const { wave, role, enforcement, records } = input;

  const repository = locateCommandRepository(io.cwd);
  for (const { record, warning } of scopeRecordWarnings(records, { repoRoot: repository.root, ignoreCase: repository.ignoreCase })) {
    reportWarning(io, scopeWarningMessages.inRecords(record, warning.message));
  }
  // Package manifests and lockfiles stay with the coordinator (the editor warns the same way); a warning, never a refusal.
  for (const assignment of coordinatorAssignmentsOfInput(records, { repoRoot: repository.root, ignoreCase: repository.ignoreCase, files: repository.files })) {
    reportWarning(io, assignment.message);
  }
  const ownIds = processLocalSessionIds({ env: io.env });
  let named: string | undefined;
  if (values['state-dir'] !== undefined && values['state-dir'] !== '') named = resolve(io.cwd, values['state-dir']);
  else {
    const main = repository.inGit ? governingCheckoutElsewhere(repository.root, nodeLocateFileSystem) : undefined;
    if (main !== undefined) {
      reportError(io, say.planStopped('state-dir', say.planInLinkedWorktree(repository.root, main)));
      return 1;
    }
  }

  // Without --state-dir, the chain resolves the state directory itself, holding the plan-write lock: a plan
  // another writer puts into an earlier state directory meanwhile is seen, not written around.
  const result = writeWavePlan(
    {
      repoRoot: repository.root,
      ...(named !== undefined ? { stateDir: named } : {}),
      wave,
      role,
      enforcement,
      records,
      blockedCommands: values['blocked-command'],
      ownIds,
      // Without a session of its own (a person's terminal), the writer leaves whom the plan binds as it was.
      keepBinding: true,
      ignoreCase: repository.ignoreCase,
      knownFiles: repository.files,
      newFiles: values['new-file'],
      lockPlan: planWriteLockAt(repository.root),
    },
    nodeDeclarationFs(named !== undefined ? writeConfinement(repository.root, named) : repository.root),
  );
  if (!result.ok && result.inTheWay !== undefined) {
    // Refused before the first write, as sync refuses it: local state the chain will not write through.
    reportError(io, say.plantedInStateDir('plan write', shownPath(io.cwd, result.inTheWay.path), result.inTheWay.found));
    if (values.json) printLine(io, jsonResult(result));
    return 1;
  }
  if (!result.ok) {
    reportError(io, say.planStopped(result.step, result.message));
    if (result.errors.length > 1 || result.errors[0] !== result.message) {
      for (const detail of result.errors) reportError(io, say.planDetail(detail));
    }
    if (values.json) printLine(io, jsonResult(result));
    return stoppedOnInput(result) ? 1 : 2;
  }
  for (const warning of result.warnings) reportWarning(io, warning);
  if (values.json) printLine(io, jsonResult(result));
  else {
    printLine(
      io,
      say.planWritten(wave, result.manifest.role, shownPath(io.cwd, result.manifestPath), result.manifest.allowedPaths.length, result.manifest.session_id),
    );
    for (const [id, digest] of Object.entries(result.digests)) printLine(io, say.planAgentDigest(id, digest));
  }
  return 0;
}

/** The plan view for a person, one line each. */
function formatPlanView(view: PlanView): string[] {
  const lines: string[] = [];
  const manifest = view.manifest;
  if (!manifest.found) lines.push(show.noManifest(view.stateDir, manifest.path));
  else if (manifest.problem !== null) lines.push(show.unusableManifest(view.stateDir, manifest.path, manifest.problem.message));
  else {
    lines.push(
      show.manifest(view.stateDir, manifest.path, {
        wave: manifest.wave,
        role: manifest.role,
        enforcement: manifest.enforcement,
        allowed: manifest.allowedPaths.length,
        session: manifest.session,
        boundTo: manifest.boundTo,
      }),
    );
  }
  if (view.waves.length === 0) lines.push(show.noWave);
  for (const wave of view.waves) {
    lines.push(show.wave(wave.wave, wave.status, wave.active, wave.sidecar));
    for (const agent of wave.agents) {
      lines.push(show.agent(agent.id, agent.coordinator, agent.digest));
      for (const entry of agent.entries) lines.push(show.entry(entry.entry, entry.matches));
    }
    for (const collision of wave.collisions) lines.push(show.collision(collision));
    for (const problem of wave.problems) lines.push(show.problem(problem));
  }
  return lines;
}

async function runPlanShow(args: string[], io: CliIo): Promise<number> {
  const commandLine = parseCommandLine(
    'plan',
    args,
    {
      'state-dir': { type: 'string' },
      json: { type: 'boolean', default: false },
    },
    { io, usage: say.planUsage(), badArgumentsExit: 1 },
  );
  if ('exitCode' in commandLine) return commandLine.exitCode;
  const { values } = commandLine;
  const repository = locateCommandRepository(io.cwd);
  const ownIds = processLocalSessionIds({ env: io.env });
  const stateDir = values['state-dir'] === undefined || values['state-dir'] === '' ? undefined : resolve(io.cwd, values['state-dir']);
  let view: PlanView;
  try {
    // The plan's files are read as the hooks read them: one reached through a link, or with a second
    // name, is shown as unreadable, as the hooks would take it, never as the file it leads to.
    const confinement = writeConfinement(repository.root, stateDir ?? repository.root);
    view = readPlan(
      repository.root,
      { stateDir, ownIds, ignoreCase: repository.ignoreCase, files: repository.files },
      nodePlanReadingFs(confinement),
    );
  } catch (error) {
    reportError(io, say.cannotReadPlan(error instanceof Error ? error.message : String(error)));
    return 2;
  }
  // Other clones' claims (docs/sync.md), from this clone's copy of the plan ref.
  const now = Date.now();
  const claims = claimsForPlanShow(io.cwd, view, { ignoreCase: repository.ignoreCase, files: repository.files, now });
  if (values.json) printLine(io, JSON.stringify({ ...view, claims }, null, 2));
  else for (const line of [...formatPlanView(view), ...formatClaimsView(claims, now)]) printLine(io, line);
  return 0;
}
