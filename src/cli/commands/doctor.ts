// `wave-scope doctor`: runs every installed hook with a synthetic payload and reports each agent CLI
// and git as working, broken (with why) or not installed (src/node/hookDoctor.ts does the probing).
import { realpathSync } from 'node:fs';
import { printLine, reportError } from '../cliIo';
import type { CliIo } from '../cliIo';
import { HOOK_TARGET_FLAGS, parseCommandLine } from '../commandLine';
import { doctorMessages as say } from '../messages';
import { canonicalDirectory, nodeLocateFileSystem } from '../../node/hookFileSystem';
import { runDoctor } from '../../node/hookDoctor';
import { AGENT_CLIS } from '../../planner/enforce/hookInstaller';
import type { AgentCli } from '../../planner/enforce/hookInstaller';
import { locateRepository } from '../../planner/enforce/repoLocation';

export async function runDoctorCommand(args: string[], io: CliIo): Promise<number> {
  const parsed = parseCommandLine(
    'doctor',
    args,
    {
      ...HOOK_TARGET_FLAGS,
      json: { type: 'boolean' },
    },
    { io, usage: say.usage, badArgumentsExit: 2 },
  );
  if ('exitCode' in parsed) return parsed.exitCode;
  const location = locateRepository(canonicalDirectory(io.cwd), nodeLocateFileSystem);
  if (location === undefined) {
    reportError(io, say.notInRepository(io.cwd));
    return 2;
  }
  const named: Array<AgentCli | 'git'> = [...AGENT_CLIS.filter((agentCli) => parsed.values[agentCli] === true), ...(parsed.values.git === true ? ['git' as const] : [])];
  const report = runDoctor({
    root: realpathSync(location.manifestRoot),
    writeRoot: location.writeRoot,
    env: io.env,
    ...(named.length > 0 ? { targets: named } : {}),
  });
  const broken = report.results.filter((result) => result.status === 'broken').length;
  if (parsed.values.json === true) {
    printLine(io, JSON.stringify(report, null, 2));
    return broken > 0 ? 1 : 0;
  }
  for (const result of report.results) {
    printLine(io, say.result(result.target, result.status));
    if (result.status !== 'not-installed') for (const check of result.checks) printLine(io, say.check(check.ok, check.detail));
  }
  const working = report.results.filter((result) => result.status === 'working').length;
  printLine(io, say.summary(working, broken, report.results.length - working - broken));
  return broken > 0 ? 1 : 0;
}
