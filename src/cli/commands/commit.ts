// `wave-scope commit --wave N --agent ID`: commits the in-scope changes of the agent's last turn that
// `wave-scope run` recorded (src/planner/backstop/turn.ts `commitRecordedTurn`). Exit codes: docs/cli.md.
import type { CliIo } from '../cliIo';
import { reportError, reportNote, reportWarning } from '../cliIo';
import { parseCommandLine } from '../commandLine';
import { backstopMessages } from '../messages';
import { readTextIfExists } from '../../node/declarationFs';
import { writeFileBelow } from '../../node/backstopFiles';
import { nodeSnapshotHost } from '../../node/backstopGit';
import { commitRecordedTurn } from '../../planner/backstop/turn';
import { formatTurnRecord, parseTurnRecord, turnRecordPath } from '../../planner/backstop/turnRecord';
import { waveAndAgent } from './run';
import { locateTurnRepository, readTurnContext } from './turnContext';

/** Exit codes of `commit` (docs/cli.md). */
export const COMMIT_EXIT = { ok: 0, noTurn: 1, usage: 2, failedTurn: 3, commitFailed: 4 } as const;

const OPTIONS = {
  wave: { type: 'string' },
  agent: { type: 'string' },
  'state-dir': { type: 'string' },
} as const;

export async function runCommit(args: string[], io: CliIo): Promise<number> {
  const parsed = parseCommandLine('commit', args, OPTIONS, { io, usage: backstopMessages.commitUsage, badArgumentsExit: COMMIT_EXIT.usage });
  if ('exitCode' in parsed) return parsed.exitCode;
  const target = await waveAndAgent('commit', parsed.values, io);
  if (target === undefined) return COMMIT_EXIT.usage;
  const location = locateTurnRepository(io.cwd);
  if (location === undefined) {
    reportError(io, backstopMessages.offRepository(io.cwd));
    return COMMIT_EXIT.usage;
  }
  const recordPath = turnRecordPath(location.writeRoot, target.wave, target.agent);
  const text = readTextIfExists(recordPath);
  if (text === undefined) {
    reportError(io, backstopMessages.noRecord(recordPath));
    return COMMIT_EXIT.noTurn;
  }
  const record = parseTurnRecord(text);
  if (record === undefined || record.wave !== target.wave || record.agent !== target.agent) {
    reportError(io, backstopMessages.damagedRecord(recordPath));
    return COMMIT_EXIT.noTurn;
  }
  // Judged by the state directory this command resolves to (or --state-dir), as it is now: never by the one
  // the record names. The record lies where a turn, a process it left running or another agent's shell can
  // write it, and a state directory of its choosing would be a scope of its choosing. When the two differ
  // the turn was judged by another plan: refused, with the flag that names the record's, for a person to
  // choose.
  const stateDirFlag = parsed.values['state-dir'];
  const context = readTurnContext({ location, cwd: io.cwd, env: io.env, ...target, ...(stateDirFlag !== undefined && stateDirFlag !== '' ? { stateDir: stateDirFlag } : {}) });
  if (record.stateDir !== context.stateDir) {
    reportError(io, backstopMessages.recordedStateDirDiffers(recordPath, record.stateDir, context.stateDir));
    return COMMIT_EXIT.noTurn;
  }
  const outcome = await commitRecordedTurn(
    record,
    { judge: context.judge, exclude: context.exclude, ignoreCase: context.ignoreCase },
    { snapshot: nodeSnapshotHost(context.writeRoot, { gitDir: context.location.gitDir, commonDir: context.location.commonDir }), writeRecord: async (updated) => writeFileBelow(location.writeRoot, recordPath, formatTurnRecord(updated)) },
  );
  if (outcome.kind === 'refused') {
    switch (outcome.reason) {
      case 'running':
        reportError(io, backstopMessages.recordedTurnRunning(recordPath));
        return COMMIT_EXIT.noTurn;
      case 'failed':
        reportError(io, backstopMessages.recordedTurnFailed(recordPath));
        return COMMIT_EXIT.failedTurn;
      case 'unchecked':
        reportError(io, backstopMessages.recordedTurnUnchecked(recordPath));
        return COMMIT_EXIT.failedTurn;
      case 'already-committed':
        reportError(io, backstopMessages.recordedTurnCommitted(recordPath, record.committed?.commit ?? '?'));
        return COMMIT_EXIT.noTurn;
    }
  }
  if (outcome.noLongerInScope.length > 0) reportWarning(io, backstopMessages.noLongerInScope(outcome.noLongerInScope));
  const { commit } = outcome;
  if (commit.selection !== undefined && commit.selection.drifted.length > 0) reportWarning(io, backstopMessages.drifted(commit.selection.drifted));
  if (commit.kind === 'failed') {
    reportError(io, backstopMessages.commitFailed(commit.message));
    return COMMIT_EXIT.commitFailed;
  }
  if (commit.kind === 'nothing') reportNote(io, backstopMessages.nothingLeftToCommit);
  else reportNote(io, backstopMessages.committedTurn(commit.commit, commit.selection.paths.length));
  return COMMIT_EXIT.ok;
}
