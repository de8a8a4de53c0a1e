// `wave-scope digest`: the scope digest of one agent's scope file, or the prompt line asking for its echo.
// Contract: docs/cli.md § digest; algorithm: docs/file-formats.md § Scope digest.
import { resolve } from 'node:path';
import { readAgentScope } from '../../planner/plan/declarationStore';
import { nodePlanReadingFs } from '../../node/declarationFs';
import { gitTopLevel } from '../../node/git';
import { scopeDigest, scopeEchoInstruction } from '../../planner/scope/scopeDigest';
import { processLocalSessionIds } from '../../planner/plan/sessionBinding';
import { resolveStateDir } from '../../planner/plan/stateDir';
import { printLine, reportError } from '../cliIo';
import type { CliIo } from '../cliIo';
import { parseCommandLine, parseWave, readArguments, UsageProblem } from '../commandLine';
import { writeConfinement } from '../commandRepository';
import { declarationMessages as say, dispatchMessages } from '../messages';
import { runDigestVerify } from './digestVerify';

export async function runDigest(args: string[], io: CliIo): Promise<number> {
  const commandLine = parseCommandLine(
    'digest',
    args,
    {
      wave: { type: 'string' },
      agent: { type: 'string' },
      'state-dir': { type: 'string' },
      instruction: { type: 'boolean', default: false },
      verify: { type: 'boolean', default: false },
      echo: { type: 'string', multiple: true },
      session: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
    { io, usage: `${say.digestUsage}\n\n${dispatchMessages.verifyUsage}`, badArgumentsExit: 1 },
  );
  if ('exitCode' in commandLine) return commandLine.exitCode;
  const { values } = commandLine;
  const input = await readArguments(io, 'digest', () => {
    const wave = parseWave(values.wave);
    if (values.verify) {
      if (values.agent !== undefined || values.instruction) throw new UsageProblem(dispatchMessages.verifyTakesWholeWave);
      return { wave, verify: true as const };
    }
    if (values.echo !== undefined || values.json || values.session !== undefined) throw new UsageProblem(dispatchMessages.verifyOnlyOptions);
    const agent = values.agent;
    if (agent === undefined || agent === '') throw new UsageProblem(say.missingOption('--agent'));
    return { wave, verify: false as const, agent };
  });
  if (input === undefined) return 1;
  if (input.verify) {
    const { wave } = input;
    return runDigestVerify(
      {
        wave,
        echo: values.echo ?? [],
        json: values.json,
        ...(values['state-dir'] !== undefined ? { stateDir: values['state-dir'] } : {}),
        ...(values.session !== undefined ? { session: values.session } : {}),
      },
      io,
    );
  }
  const { wave, agent } = input;
  const root = gitTopLevel(io.cwd) ?? resolve(io.cwd);
  const named = values['state-dir'] !== undefined && values['state-dir'] !== '' ? resolve(io.cwd, values['state-dir']) : undefined;
  // Read as the hooks read them (a file reached through a link, or with a second name, is unreadable), so
  // the digest printed is the one the dispatch guard will compute, or none.
  const planOnDisk = nodePlanReadingFs(writeConfinement(root, named ?? root));
  const stateDir = named ?? resolveStateDir(root, processLocalSessionIds({ env: io.env }), planOnDisk).stateDir;
  const scope = readAgentScope(stateDir, wave, agent, planOnDisk);
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
