// `wave-scope digest --verify --wave N`: the declared digests (the wave's aggregate), the digests the
// dispatch guard saw in dispatch prompts (the events) and the digests agents echoed (their reports)
// joined on the digest (src/planner/dispatch/digestJoin.ts).
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { CliIo } from '../cliIo';
import { printLine, reportError, reportWarning } from '../cliIo';
import { writeConfinement } from '../commandRepository';
import { dispatchMessages as say } from '../messages';
import { nodePlanReadingFs } from '../../node/declarationFs';
import { forEachLine } from '../../node/transcriptLines';
import { SCOPE_CHECKED_EVENT, sessionHash } from '../../planner/dispatch/dispatchEvents';
import { dispatchedDigests, joinDigests } from '../../planner/dispatch/digestJoin';
import { EVENTS_FILE } from '../../planner/plan/stateDirNames';
import { processLocalSessionIds } from '../../planner/plan/sessionBinding';
import { resolveStateDir } from '../../planner/plan/stateDir';
import { extractScopeEcho } from '../../planner/scope/scopeDigest';
import { locateDispatchRoot, readDeclaredWave } from './dispatchContext';

export interface VerifyOptions {
  readonly wave: number;
  readonly echo: readonly string[];
  readonly stateDir?: string;
  readonly session?: string;
  readonly json: boolean;
}

/** Runs the join. Exit 0 when every digest matched, 1 when one did not, 2 when a file cannot be read. */
export function runDigestVerify(options: VerifyOptions, io: CliIo): number {
  const { root } = locateDispatchRoot(io.cwd, io.env);
  const named = options.stateDir !== undefined && options.stateDir !== '' ? resolve(io.cwd, options.stateDir) : undefined;
  // The aggregate as the dispatch guard reads it: one reached through a link, or with a second name, is unusable.
  const planOnDisk = nodePlanReadingFs(writeConfinement(root, named ?? root));
  const stateDir = named ?? resolveStateDir(root, processLocalSessionIds({ env: io.env }), planOnDisk).stateDir;
  const declared = readDeclaredWave(stateDir, options.wave, planOnDisk);
  if (declared.kind !== 'declared') {
    reportError(io, say.verifyNoDeclaration(options.wave, declared.problem ?? declared.reason));
    return declared.reason === 'unusable-declaration' ? 2 : 1;
  }
  const echoed: string[] = [];
  for (const file of options.echo) {
    let text: string;
    try {
      text = readFileSync(resolve(io.cwd, file), 'utf8');
    } catch (error) {
      reportError(io, say.verifyCannotRead(file, (error as Error).message));
      return 2;
    }
    const digest = extractScopeEcho(text);
    if (digest === undefined) reportWarning(io, say.verifyNoEcho(file));
    else echoed.push(digest);
  }
  const lines: string[] = [];
  // Streamed: the events file only grows. Only the dispatch records are kept.
  const read = forEachLine(
    join(root, EVENTS_FILE),
    (line) => {
      if (line.includes(SCOPE_CHECKED_EVENT)) lines.push(line);
    },
    { maxBytes: Number.MAX_SAFE_INTEGER },
  );
  if (read.kind === 'failed') {
    reportError(io, say.verifyCannotRead(join(root, EVENTS_FILE), read.message));
    return 2;
  }
  const sent = dispatchedDigests(lines, options.wave, options.session === undefined ? undefined : sessionHash(options.session));
  const join_ = joinDigests({ declared: declared.agents, dispatched: sent.digests, echoed, transportObserved: sent.observed });
  if (!join_.transportObserved) reportWarning(io, say.verifyNoTransport(options.wave));
  if (options.json) printLine(io, JSON.stringify({ version: 1, wave: options.wave, ...join_ }, null, 2));
  else for (const row of join_.rows) printLine(io, say.verifyRow(row.verdict, row.digest, row.agents, row.dispatched, row.echoed));
  return join_.rows.every((row) => row.verdict === 'matched') ? 0 : 1;
}
