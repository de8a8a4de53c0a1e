// `wave-scope digest`: the scope digest of one agent's scope file, or the prompt line asking for its echo.
// Contract: docs/cli.md § digest; algorithm: docs/file-formats.md § Scope digest.
import { resolve } from 'node:path';
import { readAgentScope } from '../../planner/plan/declarations';
import { readTextIfExists } from '../../node/declarationFs';
import { gitTopLevel } from '../../node/git';
import { scopeDigest, scopeEchoInstruction } from '../../planner/scope/scopeDigest';
import { processLocalSessionIds } from '../../planner/plan/sessionBinding';
import { resolveStateDir } from '../../planner/plan/stateDir';
import type { CliIo } from '../cliIo';
import { parseCommandLine } from '../commandLine';
import { declarationMessages as say, dispatchMessages, messages } from '../messages';
import { parseWave, UsageProblem } from './materialize';
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
    { io, usage: `${say.digestUsage}\n${dispatchMessages.verifyUsage}\n`, badArgumentsExit: 1 },
  );
  if ('exitCode' in commandLine) return commandLine.exitCode;
  const { values } = commandLine;
  let wave: number;
  try {
    wave = parseWave(values.wave);
    if (values.verify) {
      if (values.agent !== undefined || values.instruction) throw new UsageProblem('--verify takes the whole wave: drop --agent and --instruction');
      return runDigestVerify({ wave, echo: values.echo ?? [], json: values.json, ...(values['state-dir'] !== undefined ? { stateDir: values['state-dir'] } : {}), ...(values.session !== undefined ? { session: values.session } : {}) }, io);
    }
    if (values.echo !== undefined || values.json || values.session !== undefined) throw new UsageProblem('--echo, --session and --json go with --verify');
    if (values.agent === undefined || values.agent === '') throw new UsageProblem(say.missingOption('--agent'));
  } catch (error) {
    if (!(error instanceof UsageProblem)) throw error;
    io.writeStderr(messages.badArguments('digest', error.message));
    return 1;
  }
  let stateDir: string;
  if (values['state-dir'] !== undefined && values['state-dir'] !== '') stateDir = resolve(io.cwd, values['state-dir']);
  else {
    const root = gitTopLevel(io.cwd) ?? resolve(io.cwd);
    stateDir = resolveStateDir(root, processLocalSessionIds({ env: io.env }), { readText: readTextIfExists }).stateDir;
  }
  const scope = readAgentScope(stateDir, wave, values.agent, { readText: readTextIfExists });
  if (!scope.found) {
    io.writeStderr(say.noAgentScope(scope.message));
    return scope.reason === 'unreadable' ? 2 : 1;
  }
  let digest: string;
  try {
    digest = scopeDigest(scope.entries);
  } catch (error) {
    io.writeStderr(say.noAgentScope(`${scope.path}: ${(error as Error).message}`));
    return 1;
  }
  io.writeStdout(`${values.instruction ? scopeEchoInstruction(digest) : digest}\n`);
  return 0;
}
