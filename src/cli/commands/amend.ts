// `wave-scope amend --wave N --agent ID --add ENTRY... --reason TEXT`: one more file for an agent of the
// active wave, proven disjoint first (src/planner/dispatch/amendment.ts), then written through the one
// safe chain (writeWavePlan), recorded in the session ledger and, with its reason, in the events.
import { resolve } from 'node:path';
import type { CliIo } from '../cliIo';
import { printLine, reportError, reportWarning } from '../cliIo';
import { parseCommandLine, parseWave, readArguments, UsageProblem } from '../commandLine';
import { shownPath, writeConfinement } from '../commandRepository';
import { declarationMessages, dispatchMessages as say } from '../messages';
import { nodeDeclarationFs, nodePlanReadingFs } from '../../node/declarationFs';
import { acquireLedgerLock, writeLedger } from '../../node/dispatchLedgerStore';
import { planWriteLockAt } from '../../node/planWriteLock';
import { ledgerLocation, readLedger } from '../../node/ledgerFile';
import { appendEvent } from '../../node/eventLog';
import { listRepositoryFiles } from '../../node/git';
import { probeTranscript } from '../../node/transcriptLines';
import { amendLedger, checkAmendment, isOwnRecord } from '../../planner/dispatch/amendment';
import type { AmendCheck } from '../../planner/dispatch/amendment';
import { amendedEvent } from '../../planner/dispatch/dispatchEvents';
import type { AmendOutcome } from '../../planner/dispatch/dispatchEvents';
import type { Liveness } from '../../planner/dispatch/liveness';
import { allRecords, waveOfKey } from '../../planner/dispatch/sessionLedger';
import type { LedgerRead } from '../../planner/dispatch/sessionLedger';
import { readWaveDeclaration } from '../../planner/plan/declarationStore';
import { stoppedOnInput, writeWavePlan } from '../../planner/plan/planWriter';
import { processLocalSessionIds } from '../../planner/plan/sessionBinding';
import { inspectStateDir, resolveStateDir } from '../../planner/plan/stateDir';
import { locateDispatchRoot, sessionOf } from './dispatchContext';
import { ledgersOfWave } from './ledgerFiles';

const MAX_PROBE_ROUNDS = 3;

/** Checks the amendment against one ledger, reading its transcript when a collision needs it. */
function checkAgainst(base: Omit<Parameters<typeof checkAmendment>[0], 'ledger' | 'liveness' | 'canProbe'>, ledger: LedgerRead): AmendCheck {
  const liveness = new Map<string, Liveness>();
  for (let round = 0; ; round += 1) {
    const check = checkAmendment({ ...base, ledger, liveness, canProbe: round < MAX_PROBE_ROUNDS });
    if (check.kind !== 'probe') return check;
    const transcript = ledger.kind === 'ok' ? ledger.ledger.transcriptPath : undefined;
    for (const [key, value] of probeTranscript(transcript, check.targets, undefined, Date.now()).liveness) liveness.set(key, value);
  }
}

export async function runAmend(args: string[], io: CliIo): Promise<number> {
  const commandLine = parseCommandLine(
    'amend',
    args,
    {
      wave: { type: 'string' },
      agent: { type: 'string' },
      add: { type: 'string', multiple: true },
      reason: { type: 'string' },
      'state-dir': { type: 'string' },
      session: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
    { io, usage: say.amendUsage, badArgumentsExit: 1 },
  );
  if ('exitCode' in commandLine) return commandLine.exitCode;
  const { values } = commandLine;
  const input = await readArguments(io, 'amend', () => {
    const wave = parseWave(values.wave);
    const agentId = values.agent;
    if (agentId === undefined || agentId === '') throw new UsageProblem(declarationMessages.missingOption('--agent'));
    const reason = values.reason;
    if (reason === undefined) throw new UsageProblem(declarationMessages.missingOption('--reason'));
    return { wave, agentId, reason };
  });
  if (input === undefined) return 1;
  const { wave, agentId, reason } = input;
  const add = values.add ?? [];
  const session = sessionOf(values.session, io.env);
  const place = locateDispatchRoot(io.cwd, io.env);
  const root = place.root;
  const now = Date.now();
  const record = (outcome: AmendOutcome, addedCount: number) =>
    appendEvent(root, amendedEvent({ now: Date.now(), ...(session !== undefined ? { sessionId: session } : {}), wave, outcome, addedCount, reason }));
  const finish = (exit: number, document: Record<string, unknown>) => {
    if (values.json) printLine(io, JSON.stringify({ wave, agent: agentId, ...document }, null, 2));
    return exit;
  };

  const ownIds = processLocalSessionIds({ payloadSessionIds: session === undefined ? [] : [session], env: io.env });
  // From the first reading of the plan to the last write, no other writer of this checkout's plan runs
  // (src/planner/plan/planWriteLock.ts): the amendment is decided on the plan it is written over.
  const lock = planWriteLockAt(root)();
  if (!lock.held) {
    reportError(io, say.amendWriteFailed('state-dir', lock.problem));
    record('failed', 0);
    return finish(1, { outcome: 'failed', step: 'state-dir', errors: [lock.problem] });
  }
  try {
    const fs = nodeDeclarationFs(root);
    const named = values['state-dir'] !== undefined && values['state-dir'] !== '' ? resolve(io.cwd, values['state-dir']) : undefined;
    // The plan the amendment carries forward is read as the hooks read it: a file that is a link, lies
    // through one or has a second name is unreadable. Read through such a file, it would be an agent's
    // text that the chain then writes back as a plain file of the plan, which the hooks would trust.
    const planOnDisk = nodePlanReadingFs(writeConfinement(root, named ?? root));
    const resolution = named !== undefined ? inspectStateDir(named, ownIds, planOnDisk) : resolveStateDir(root, ownIds, planOnDisk);
    const manifest = resolution.manifest;
    if (manifest === undefined || manifest.wave !== wave) {
      reportError(io, say.amendNotActive(wave, manifest?.wave ?? null));
      record('invalid', 0);
      return finish(1, { outcome: 'invalid' });
    }
    const declaration = readWaveDeclaration(resolution.stateDir, wave, planOnDisk, { ignoreCase: place.ignoreCase });
    if (declaration.status !== 'complete' || declaration.records === undefined) {
      reportError(io, say.amendNoDeclaration(wave, declaration.problems));
      record('invalid', 0);
      return finish(1, { outcome: 'invalid' });
    }
    let knownFiles: string[] | undefined;
    if (place.location !== undefined) {
      try {
        knownFiles = listRepositoryFiles(root, { includeUntracked: true });
      } catch {
        knownFiles = undefined;
      }
    }

    // The ledgers to check: this session's; without a session, every session's that names this wave.
    const own = session !== undefined ? ledgerLocation(root, session) : undefined;
    const ledgers = own !== undefined ? [{ location: own, read: readLedger(own) }] : ledgersOfWave(root, wave);
    if (session === undefined) reportWarning(io, say.amendNoSession);
    // A ledger that cannot be read may hold an agent still running with the entries asked for: the check
    // cannot be made, so neither is the amendment (found by red-team review, 2026-12-06: a ledger given a
    // second name was taken for an empty one, and alice was granted what a running carol held).
    const unreadable = ledgers.flatMap(({ location, read }) => (read.kind === 'corrupt' ? [{ path: location.ledgerPath, problem: read.problem }] : []));
    if (unreadable.length > 0) {
      for (const { path, problem } of unreadable) reportError(io, say.amendLedgerUnreadable(path, problem));
      record('invalid', 0);
      return finish(1, { outcome: 'invalid', problems: unreadable.map(({ path }) => `${path} cannot be read`) });
    }
    const base = { agentId, add, reason, records: declaration.records, now, grammar: { repoRoot: root, ignoreCase: place.ignoreCase }, ...(knownFiles !== undefined ? { knownFiles } : {}) };
    let check: AmendCheck = checkAgainst(base, { kind: 'absent' });
    for (const { read } of ledgers) {
      if (check.kind !== 'ok') break;
      check = checkAgainst(base, read);
    }
    if (check.kind === 'invalid') {
      for (const problem of check.problems) reportError(io, problem);
      record('invalid', 0);
      return finish(1, { outcome: 'invalid', problems: check.problems });
    }
    if (check.kind === 'refused-declared' || check.kind === 'refused-in-flight') {
      reportError(io, say.amendRefusedHeader(agentId, wave));
      for (const conflict of check.conflicts) {
        reportError(
          io,
          check.kind === 'refused-declared'
            ? say.amendRefusedDeclared(conflict.sibling, conflict.entries[0], conflict.entries[1], conflict.witness)
            : say.amendRefusedInFlight(conflict.sibling, conflict.entries[0], conflict.entries[1], conflict.witness, conflict.liveness?.evidence ?? 'probe-unavailable'),
        );
      }
      reportError(io, say.amendRefusedAdvice);
      record(check.kind, 0);
      return finish(1, { outcome: check.kind, conflicts: check.conflicts });
    }
    if (check.kind === 'probe') throw new Error('the amendment check asked for a probe after its last round');

    const written = writeWavePlan(
      {
        repoRoot: root,
        stateDir: resolution.stateDir,
        wave,
        role: manifest.role,
        enforcement: manifest.enforcement,
        records: check.records,
        ownIds,
        // Without a session of its own, the amendment leaves whom the plan binds as it was.
        keepBinding: true,
        ignoreCase: place.ignoreCase,
        ...(knownFiles !== undefined ? { knownFiles } : {}),
      },
      fs,
    );
    if (!written.ok) {
      if (written.inTheWay !== undefined) {
        // Refused before the first write, as plan write and sync refuse it: local state the chain will not write through.
        reportError(io, declarationMessages.plantedInStateDir('amend', shownPath(io.cwd, written.inTheWay.path), written.inTheWay.found));
      } else {
        reportError(io, say.amendWriteFailed(written.step, written.message));
        for (const problem of written.errors) reportError(io, problem);
      }
      record('failed', check.added.length);
      return finish(stoppedOnInput(written) ? 1 : 2, { outcome: 'failed', step: written.step, errors: written.errors });
    }

    // The agent's own ledger records claim the new entries too, so dispatches from now on see them.
    for (const { location } of ledgers) {
      const ledgerLock = acquireLedgerLock(location);
      try {
        const read = readLedger(location);
        if (read.kind !== 'ok' || !allRecords(read.ledger).some(({ waveKey, record: own }) => isOwnRecord(own, agentId) && waveOfKey(waveKey) === wave)) continue;
        writeLedger(location, amendLedger(read.ledger, wave, agentId, check.added, Date.now()));
      } catch (error) {
        reportWarning(io, say.warnWriteFailed(location.ledgerPath, (error as Error).message));
      } finally {
        ledgerLock.release();
      }
    }
    record('applied', check.added.length);
    const digest = written.digests[agentId] ?? '';
    if (!values.json) printLine(io, say.amendApplied(agentId, wave, check.added, digest));
    return finish(0, { outcome: 'applied', added: check.added, digest, manifest: written.manifestPath });
  } finally {
    lock.release();
  }
}
