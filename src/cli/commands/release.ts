// `wave-scope release --wave N`: ends this clone's claim on a wave. Contract: docs/cli.md § release.
import { locateSyncRepository, planStoreOf, updateLocalSyncState } from '../../node/cloneState';
import { PlanRefError, releaseClaim } from '../../planner/sync/publish';
import type { ReleaseResult } from '../../planner/sync/publish';
import { printLine, reportError, reportNote } from '../cliIo';
import type { CliIo } from '../cliIo';
import { parseCommandLine, parseWave, reportBadArguments } from '../commandLine';
import { syncMessages as say } from '../messages';
import { claimingIdentity, refuseUnknownRemote, remoteOf } from './syncShared';

export async function runRelease(args: string[], io: CliIo): Promise<number> {
  const commandLine = parseCommandLine(
    'release',
    args,
    { wave: { type: 'string' }, remote: { type: 'string' }, json: { type: 'boolean', default: false } },
    { io, usage: say.releaseUsage, badArgumentsExit: 1 },
  );
  if ('exitCode' in commandLine) return commandLine.exitCode;
  const { values } = commandLine;
  let remote: string;
  let wave: number;
  try {
    wave = parseWave(values.wave);
    remote = remoteOf(values.remote);
  } catch (error) {
    reportBadArguments(io, 'release', (error as Error).message);
    return 1;
  }
  const repository = locateSyncRepository(io.cwd);
  if (repository === undefined) {
    reportError(io, say.notInGit('release'));
    return 2;
  }
  if (refuseUnknownRemote(repository, remote, io)) return 1;
  const clone = claimingIdentity(repository, io);
  if (clone === undefined) return 2;
  let result: ReleaseResult;
  try {
    result = await releaseClaim({ clone, wave, now: () => Date.now() }, planStoreOf(repository, remote));
  } catch (error) {
    if (!(error instanceof PlanRefError)) throw error;
    reportError(io, say.gitFailed(error.message));
    return 2;
  }
  if (values.json) printLine(io, JSON.stringify({ remote, wave, ...result }, null, 2));
  if (!result.ok) {
    if (result.reason === 'corrupt-plan') {
      reportError(io, say.corruptPlanRef(remote, result.problems.join('; ')));
      return 1;
    }
    reportError(io, result.reason === 'push-refused' ? say.pushRefused(remote, result.message) : say.contention(remote, result.attempts));
    return 2;
  }
  if (result.released === null) {
    reportNote(io, say.nothingToRelease(wave, result.expired !== null));
    return 0;
  }
  const at = new Date().toISOString();
  const commit = result.commit;
  updateLocalSyncState(repository.gitDir, (state) => ({ ...state, fetched: { ...state.fetched, [remote]: { at, commit } } }));
  if (!values.json) printLine(io, say.released(wave, remote));
  return 0;
}
