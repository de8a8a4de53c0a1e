// `wave-scope hook enforce-write` (the pre-tool write gate) and `wave-scope hook commit-guard` (git
// pre-commit). The write gate fails closed: every path that is not a clear allow answers deny, an
// unexpected failure answers deny, and if even the deny cannot be produced the process exits 2,
// the one exit code every supported agent CLI reads as "block".
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { printLine, reportError, reportNote } from '../cliIo';
import type { CliIo } from '../cliIo';
import { hookMessages } from '../messages';
import { checkStagedChanges, parseNameStatusZ, parseSessionStart } from '../../planner/enforce/commitGuard';
import type { EarlierWaveSidecar } from '../../planner/enforce/commitGuard';
import { formatHookReply, HOOK_PROTOCOLS, HookPayloadError, parseHookPayload } from '../../planner/enforce/hookPayloads';
import type { HookProtocol, HookVerdict } from '../../planner/enforce/hookPayloads';
import { runGit } from '../../node/git';
import { DISPATCH_HOOK_NAMES, runDispatchHook } from './dispatchHooks';
import { canonicalDirectory, nodeLocateFileSystem, nodeTargetFileSystem } from '../../node/hookFileSystem';
import { configIgnoreCase, locateRepository } from '../../planner/enforce/repoLocation';
import { isAgentId } from '../../planner/plan/agentId';
import { agentScopePath, filescopesPath, waveDirPath, waveOfSidecarName } from '../../planner/plan/declarationPaths';
import { processLocalSessionIds } from '../../planner/plan/sessionBinding';
import { FILESCOPES_DIR_NAME, MANIFEST_FILE_NAME } from '../../planner/plan/stateDir';
import { findManifest, runWriteGate } from '../../planner/enforce/writeGate';
import type { WriteGateResult } from '../../planner/enforce/writeGate';
import type { WriteViolation } from '../../planner/enforce/writeDecision';

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function violationLine(violation: WriteViolation, context: { agent?: string; wave: number; writeRoot: string; agentScopePath: string }): string {
  switch (violation.kind) {
    case 'invalid-path':
      return hookMessages.targetProblem(violation.raw, String(violation.problem));
    case 'control-file':
      return hookMessages.controlFile(violation.shown);
    case 'outside-root':
      return hookMessages.outsideRoot(violation.shown, context.writeRoot);
    case 'no-agent-scope':
      return hookMessages.noAgentScope(context.agent ?? '?', context.agentScopePath, String(violation.problem));
    case 'outside-scope':
      return context.agent === undefined
        ? hookMessages.outsideWave(violation.shown, context.wave)
        : hookMessages.outsideAgent(violation.shown, context.agent);
  }
}

/** Turns the gate's result into what the agent CLI is told. */
export function verdictOf(result: WriteGateResult): HookVerdict {
  const { decision } = result;
  if (decision.decision === 'allow') return { decision: 'allow' };
  if (decision.decision === 'deny-invalid-manifest') {
    return { decision: 'deny', reason: hookMessages.invalidManifest(decision.manifestPath, decision.problems) };
  }
  const context = {
    ...(decision.agent !== undefined ? { agent: decision.agent } : {}),
    wave: decision.wave,
    writeRoot: result.location?.writeRoot ?? '',
    agentScopePath: agentScopePathOf(result, decision.agent, decision.wave),
  };
  const lines = decision.violations.map((violation) => violationLine(violation, context));
  const source = decision.against === 'agent' ? hookMessages.agentSource(decision.agent) : hookMessages.waveSource(decision.wave, decision.manifestPath);
  const body = [...lines.map(hookMessages.violationLine), hookMessages.allowedLine(decision.allowed, source)];
  if (decision.decision === 'warn') return { decision: 'warn', message: [hookMessages.warnHeader, ...body].join('\n') };
  return { decision: 'deny', reason: [hookMessages.denyHeader, ...body, hookMessages.denyAdvice].join('\n') };
}

function agentScopePathOf(result: WriteGateResult, agent: string | undefined, wave: number): string {
  if (result.stateDir === undefined || agent === undefined) return '';
  try {
    return isAgentId(agent) ? agentScopePath(result.stateDir, wave, agent) : waveDirPath(result.stateDir, wave);
  } catch {
    // A wave number that cannot name a directory (a hand-edited manifest): nothing to show; the deny says why.
    return '';
  }
}

function parseAgentCli(args: string[]): { protocol?: HookProtocol; error?: string } {
  const index = args.indexOf('--agent-cli');
  if (index === -1) return {};
  const value = args[index + 1] ?? '';
  if (!(HOOK_PROTOCOLS as readonly string[]).includes(value)) return { error: hookMessages.badAgentCli(value) };
  return { protocol: value as HookProtocol };
}

/** The write gate. Always answers; see the header for the fail-closed ladder. */
export async function runEnforceWrite(args: string[], io: CliIo): Promise<number> {
  const chosen = parseAgentCli(args);
  let protocol: HookProtocol = chosen.protocol ?? 'claude';
  try {
    if (chosen.error !== undefined) throw new Error(chosen.error);
    const stdin = await io.readStdin();
    let verdict: HookVerdict;
    try {
      const request = parseHookPayload(stdin, chosen.protocol);
      protocol = request.protocol;
      const result = runWriteGate(request, {
        targetFs: nodeTargetFileSystem,
        locateFs: nodeLocateFileSystem,
        canonicalDirectory,
        env: io.env,
        processCwd: io.cwd,
        platform: process.platform === 'win32' ? 'win32' : 'posix',
      });
      verdict = verdictOf(result);
    } catch (error) {
      const reason =
        error instanceof HookPayloadError ? hookMessages.unreadablePayload(error.message) : hookMessages.internalFailure(describe(error));
      verdict = { decision: 'deny', reason };
    }
    io.writeStdout(formatHookReply(protocol, verdict));
    return 0;
  } catch (error) {
    try {
      io.writeStdout(formatHookReply(protocol, { decision: 'deny', reason: hookMessages.internalFailure(describe(error)) }));
      return 0;
    } catch (lastError) {
      reportNote(io, hookMessages.lastResort(describe(lastError)));
      return 2;
    }
  }
}

function readSidecars(stateDir: string): EarlierWaveSidecar[] {
  const dir = filescopesPath(stateDir);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const sidecars: EarlierWaveSidecar[] = [];
  for (const name of names) {
    const wave = waveOfSidecarName(name);
    if (wave === undefined) continue;
    const path = join(dir, name);
    try {
      const text = nodeLocateFileSystem.readText(path);
      if (text === undefined) continue;
      sidecars.push({ wave, path, mtimeMs: statSync(path).mtimeMs, records: JSON.parse(text) as unknown });
    } catch {
      // An unreadable sidecar declares nothing: it can only narrow what the commit may carry.
    }
  }
  return sidecars;
}

/** The git pre-commit check. Exit 0 lets the commit through, 1 blocks it (docs/cli.md). */
export async function runCommitGuard(_args: string[], io: CliIo): Promise<number> {
  try {
    const cwd = canonicalDirectory(io.cwd);
    const location = locateRepository(cwd, nodeLocateFileSystem);
    if (location === undefined) return 0;
    const manifestRoot = nodeTargetFileSystem.realpath(location.manifestRoot) ?? location.manifestRoot;
    const ownIds = processLocalSessionIds({ payloadSessionIds: [], env: io.env });
    const found = findManifest(manifestRoot, ownIds, nodeLocateFileSystem);
    if (found.state.kind === 'missing') return 0;
    const output = runGit(location.writeRoot, ['-c', 'core.quotePath=false', 'diff', '--cached', '--name-status', '-z', '-M']);
    const changes = parseNameStatusZ(output);
    const ignoreCase = configIgnoreCase(nodeLocateFileSystem.readText(join(location.commonDir, 'config')));
    const stateName = found.stateDir === undefined ? undefined : found.stateDir.slice(manifestRoot.length + 1);
    const controlPaths = stateName === undefined ? [] : [`${stateName}/${MANIFEST_FILE_NAME}`, `${stateName}/${FILESCOPES_DIR_NAME}/`];
    const result = checkStagedChanges({
      changes,
      manifest: found.state,
      sidecars: found.stateDir === undefined ? [] : readSidecars(found.stateDir),
      sessionStartMs: parseSessionStart(io.env.WAVE_SCOPE_SESSION_START),
      controlPaths,
      repoRoot: location.writeRoot,
      ignoreCase,
    });
    if (result.kind === 'stand-down') return 0;
    if (result.kind === 'invalid-manifest') {
      reportNote(io, hookMessages.commitInvalidManifest(result.manifestPath, result.problems));
      return 1;
    }
    for (const line of result.results) {
      if (line.verdict === 'earlier-wave' && line.wave !== undefined) reportNote(io, hookMessages.commitEarlierWave(line.path, line.wave));
    }
    const blocked = result.results.filter((line) => line.verdict === 'blocked');
    if (blocked.length === 0) return 0;
    reportNote(
      io,
      result.ok ? hookMessages.commitWarnHeader(result.wave, result.manifestPath) : hookMessages.commitBlockedHeader(result.wave, result.manifestPath),
    );
    for (const line of blocked) reportNote(io, hookMessages.commitBlockedLine(line.path, line.status));
    if (!result.ok) reportNote(io, hookMessages.commitAdvice);
    return result.ok ? 0 : 1;
  } catch (error) {
    reportNote(io, hookMessages.commitFailure(describe(error)));
    reportNote(io, hookMessages.commitFailClosed);
    return 1;
  }
}

export async function runHook(args: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = args;
  if (name === 'enforce-write') return runEnforceWrite(rest, io);
  if (name === 'commit-guard') return runCommitGuard(rest, io);
  if (name !== undefined && DISPATCH_HOOK_NAMES.includes(name)) return runDispatchHook(name, rest, io);
  // The backstop's hooks live in their own bundle (dist/backstop-hook.js): enforce-write never loads them.
  if (name === 'post-bash' || name === 'stop' || name === 'turn-start') return (await import('./backstopHook')).runBackstopHook(name, rest, io);
  if (name === undefined || name === '--help' || name === '-h') {
    printLine(io, hookMessages.usage);
    return name === undefined ? 2 : 0;
  }
  reportError(io, hookMessages.unknownSubcommand(name));
  return 2;
}
