// `wave-scope digest`: the scope digest of one agent's scope file, or the prompt line asking for its echo.
// Contract: docs/cli.md § digest; algorithm: docs/file-formats.md § Scope digest.
import { resolve } from 'node:path';
import { readAgentScope } from '../../planner/plan/declarationStore';
import { readTextIfExists } from '../../node/declarationFs';
import { gitTopLevel } from '../../node/git';
import { scopeDigest, scopeEchoInstruction } from '../../planner/scope/scopeDigest';
import { processLocalSessionIds } from '../../planner/plan/sessionBinding';
import { resolveStateDir } from '../../planner/plan/stateDir';
import { printLine, reportError } from '../cliIo';
import type { CliIo } from '../cliIo';
import { parseCommandLine, parseWave, readArguments, UsageProblem } from '../commandLine';
import { declarationMessages as say } from '../messages';

export async function runDigest(args: string[], io: CliIo): Promise<number> {
  const commandLine = parseCommandLine(
    'digest',
    args,
    {
      wave: { type: 'string' },
      agent: { type: 'string' },
      'state-dir': { type: 'string' },
      instruction: { type: 'boolean', default: false },
    },
    { io, usage: say.digestUsage, badArgumentsExit: 1 },
  );
  if ('exitCode' in commandLine) return commandLine.exitCode;
  const { values } = commandLine;
  const input = await readArguments(io, 'digest', () => {
    const wave = parseWave(values.wave);
    const agent = values.agent;
    if (agent === undefined || agent === '') throw new UsageProblem(say.missingOption('--agent'));
    return { wave, agent };
  });
  if (input === undefined) return 1;
  const { wave, agent } = input;
  let stateDir: string;
  if (values['state-dir'] !== undefined && values['state-dir'] !== '') stateDir = resolve(io.cwd, values['state-dir']);
  else {
    const root = gitTopLevel(io.cwd) ?? resolve(io.cwd);
    stateDir = resolveStateDir(root, processLocalSessionIds({ env: io.env }), { readText: readTextIfExists }).stateDir;
  }
  const scope = readAgentScope(stateDir, wave, agent, { readText: readTextIfExists });
  if (!scope.found) {
    reportError(io, scope.message);
    return scope.reason === 'unreadable' ? 2 : 1;
  }
  let digest: string;
  try {
    digest = scopeDigest(scope.entries);
  } catch (error) {
    reportError(io, `${scope.path}: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
  printLine(io, values.instruction ? scopeEchoInstruction(digest) : digest);
  return 0;
}
