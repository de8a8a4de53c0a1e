// `wave-scope hook enforce-write` (the pre-tool write gate), `wave-scope hook commit-guard` (git
// pre-commit) and `wave-scope hook session-start` (the agent CLI's SessionStart). The write gate
// fails closed: every path that is not a clear allow answers deny, an unexpected failure answers deny,
// a payload whose agent CLI cannot be told answers with a deny every supported CLI reads as one (exit
// 2), and if even the deny cannot be produced the process exits 2.
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { printLine, reportError, reportNote } from '../cliIo';
import type { CliIo } from '../cliIo';
import { hookMessages } from '../messages';
import { checkStagedChanges, parseNameStatusZ, parseSessionStart } from '../../planner/enforce/commitGuard';
import type { EarlierWaveSidecar } from '../../planner/enforce/commitGuard';
import { HOOK_PROTOCOLS, HookPayloadError, hookReply, parseHookPayload } from '../../planner/enforce/hookPayloads';
import type { HookProtocol, HookReply, HookVerdict } from '../../planner/enforce/hookPayloads';
import {
  canonicalDirectory,
  nodeLocateFileSystem,
  nodeTargetFileSystem,
  readOwnControlFile,
} from '../../node/hookFileSystem';
import { writeFileAtomicSync } from '../../node/atomicFile';
import { appendEvent, ensureRealDirectory } from '../../node/eventLog';
import { readSubagentScope } from '../../node/subagentScope';
import { nodeWriteGateHost } from '../../node/writeGateHost';
import { subagentBindingEvent } from '../../planner/dispatch/dispatchEvents';
import { scanGitConfig } from '../../planner/enforce/gitConfig';
import { locateGitDirectory, locateRepository, ownFilesBelow } from '../../planner/enforce/repoLocation';
import type { RepoLocation } from '../../planner/enforce/repoLocation';
import { formatSessionRecord, nextSessionRecord, parseSessionRecord, weighSessionEvidence } from '../../planner/enforce/sessionRecord';
import { DISPATCH_HOOK_NAMES, runDispatchHook } from './dispatchHooks';
import { isAgentId } from '../../planner/plan/agentId';
import { agentScopePath, filescopesPath, waveDirPath, waveOfSidecarName } from '../../planner/plan/declarationPaths';
import { manifestSessionIds, processLocalSessionIds } from '../../planner/plan/sessionBinding';
import { inspectStateDir, resolveStateDir } from '../../planner/plan/stateDir';
import { FILESCOPES_DIR_NAME, MANIFEST_FILE_NAME, STATE_DIR_NAMES } from '../../planner/plan/stateDirNames';
import { SESSION_FILE_NAME } from '../../planner/plan/stateDirNames';
import { namedAgentOf, PROJECT_DIR_VARIABLES, runWriteGate } from '../../planner/enforce/writeGate';
import type { WriteGateHost, WriteGateResult } from '../../planner/enforce/writeGate';
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
    case 'agent-scope-unbacked':
      return hookMessages.agentScopeUnbacked(violation.shown, context.agent ?? '?', context.wave);
    case 'outside-scope':
      if (context.agent === undefined) return hookMessages.outsideWave(violation.shown, context.wave);
      return violation.contestedBy === undefined
        ? hookMessages.outsideAgent(violation.shown, context.agent)
        : hookMessages.contestedSibling(violation.shown, context.agent, violation.contestedBy);
  }
}

/** Turns the gate's result into what the agent CLI is told. */
export function verdictOf(result: WriteGateResult): HookVerdict {
  const { decision } = result;
  if (decision.decision === 'allow') return { decision: 'allow' };
  if (decision.decision === 'deny-invalid-manifest') {
    return { decision: 'deny', reason: hookMessages.invalidManifest(decision.manifestPath, decision.problems) };
  }
  if (decision.decision === 'deny-no-plan') {
    return { decision: 'deny', reason: decision.via === 'named' ? hookMessages.noPlanForAgent(decision.agent) : hookMessages.noPlanForSubagent(decision.agent, decision.wave) };
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

/**
 * The write gate's view of this process, with the subagent binding: the dispatch a subagent's write
 * belongs to (src/node/subagentScope.ts), and a `wave_dispatch.subagent_binding` event for every write
 * that falls back to the wave's union (docs/hooks.md, "Each subagent in its own scope").
 */
export function nodeWriteGateHostFor(io: CliIo): WriteGateHost {
  return nodeWriteGateHost({
    env: io.env,
    cwd: io.cwd,
    subagentScope(query) {
      const scope = readSubagentScope(query);
      if (scope.kind === 'union' && query.uncounted !== true) {
        appendEvent(query.root, subagentBindingEvent({ now: Date.now(), ...(query.sessionId !== undefined ? { sessionId: query.sessionId } : {}), outcome: 'union-fallback', reason: scope.reason, lock: 'none', declaredAgent: false, by: 'write-gate' }));
      }
      return scope;
    },
  });
}

/** The write gate's whole answer to one payload. Never throws. */
export function answerEnforceWrite(stdin: string, chosen: { protocol?: HookProtocol; error?: string }, host: WriteGateHost): HookReply {
  let protocol = chosen.protocol;
  let verdict: HookVerdict;
  try {
    if (chosen.error !== undefined) throw new Error(chosen.error);
    const request = parseHookPayload(stdin, chosen.protocol);
    protocol = request.protocol;
    verdict = verdictOf(runWriteGate(request, host));
  } catch (error) {
    if (error instanceof HookPayloadError) {
      protocol ??= error.protocol;
      verdict = { decision: 'deny', reason: hookMessages.unreadablePayload(error.message) };
    } else {
      verdict = { decision: 'deny', reason: hookMessages.internalFailure(describe(error)) };
    }
  }
  return hookReply(protocol, verdict);
}

/** The write gate. Always answers; see the header for the fail-closed ladder. */
export async function runEnforceWrite(args: string[], io: CliIo): Promise<number> {
  const chosen = parseAgentCli(args);
  let reply: HookReply;
  try {
    reply = answerEnforceWrite(await io.readStdin(), chosen, nodeWriteGateHostFor(io));
  } catch (error) {
    reply = hookReply(chosen.protocol, { decision: 'deny', reason: hookMessages.internalFailure(describe(error)) });
  }
  try {
    if (reply.stdout !== '') io.writeStdout(reply.stdout);
    if (reply.stderr !== '') io.writeStderr(reply.stderr);
    return reply.exitCode;
  } catch (lastError) {
    try {
      reportNote(io, hookMessages.lastResort(describe(lastError)));
    } catch {
      // Nothing left to say it with; the exit code still blocks.
    }
    return 2;
  }
}

/**
 * The earlier waves' aggregates of a state directory below `root`, read as Wave Scope's own files: one
 * reached through a link, or with a second name, is left out with the unreadable ones.
 */
function readSidecars(root: string, stateDir: string): EarlierWaveSidecar[] {
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
      const file = readOwnControlFile(root, path);
      if (file === undefined) continue;
      sidecars.push({ wave, path, mtimeMs: file.mtimeMs, records: JSON.parse(file.text) as unknown });
    } catch {
      // An unreadable sidecar declares nothing: it can only narrow what the commit may carry.
    }
  }
  return sidecars;
}

/**
 * The repository a commit goes into, as the guard must judge it; undefined outside any. git runs the hook
 * at the top of the work tree the committing shell chose (`--work-tree`, GIT_WORK_TREE, `core.worktree`, or
 * GIT_DIR from another directory), and then names the git directory it commits into in GIT_DIR, which the
 * walk up from the working directory may not lead to: that git directory is judged (locateGitDirectory).
 * Without GIT_DIR, git found the repository from here, as the walk does.
 */
function commitRepository(cwd: string, env: CliIo['env']): RepoLocation | undefined {
  const walked = locateRepository(cwd, nodeLocateFileSystem);
  const named = env.GIT_DIR;
  if (named === undefined || named === '') return walked;
  const real = (path: string) => nodeTargetFileSystem.realpath(path) ?? path;
  const gitDir = real(resolve(cwd, named));
  if (walked !== undefined && real(walked.gitDir) === gitDir) return walked;
  return locateGitDirectory(gitDir, cwd, nodeLocateFileSystem);
}

export async function runCommitGuard(_args: string[], io: CliIo): Promise<number> {
  try {
    const cwd = canonicalDirectory(io.cwd);
    const location = commitRepository(cwd, io.env);
    // An agent started as one of a wave (WAVE_SCOPE_AGENT) commits nothing where no plan says what it may
    // (its shell may have moved the plan away); the variable only ever narrows what a commit may carry.
    const agent = namedAgentOf(io.env);
    const planless = () => {
      if (agent === undefined) return 0;
      reportNote(io, hookMessages.commitNoPlanForAgent(agent));
      return 1;
    };
    if (location === undefined) return planless();
    const manifestRoot = nodeTargetFileSystem.realpath(location.manifestRoot) ?? location.manifestRoot;
    const ownFiles = ownFilesBelow(manifestRoot, nodeLocateFileSystem);
    const manifests = STATE_DIR_NAMES.map((name) => inspectStateDir(join(manifestRoot, name), new Set(), ownFiles)).filter((found) => found.found);
    if (manifests.length === 0) return planless();
    // Loaded here, not at the top: the write gate never spawns a process, and loading node:child_process
    // is a measurable part of every write's latency.
    const { runGit } = await import('../../node/git');
    // --ignore-submodules=none: a submodule bump is a staged change even where .gitmodules says `ignore = all`.
    const output = runGit(location.writeRoot, ['-c', 'core.quotePath=false', 'diff', '--cached', '--name-status', '-z', '-M', '--ignore-submodules=none']);
    const changes = parseNameStatusZ(output);
    // The repository's own files only: the committing shell sets HOME, XDG_CONFIG_HOME, GIT_CONFIG_GLOBAL
    // and GIT_CONFIG_COUNT, and a case rule from them would let `SRC/A/x.ts` pass for `src/a/`.
    const ignoreCase = scanGitConfig({
      commonDir: location.commonDir,
      gitDir: location.gitDir,
      env: {},
      fs: nodeLocateFileSystem,
      roots: [location.writeRoot, manifestRoot],
    }).ignoreCase;
    const claimed = [...processLocalSessionIds({ env: io.env })];
    let blocked = false;
    let noted = false;
    for (const resolution of manifests) {
      const stateName = resolution.stateDir.slice(manifestRoot.length + 1);
      const state = resolution.problem !== undefined || resolution.manifest === undefined
        ? { kind: 'invalid' as const, path: resolution.manifestPath, problems: resolution.problem?.errors ?? [resolution.problem?.message ?? 'is not a wave manifest'] }
        : { kind: 'loaded' as const, path: resolution.manifestPath, manifest: resolution.manifest, session: 'unknown' as const };
      let sessionStartMs: number | undefined;
      if (state.kind === 'loaded') {
        const recordPath = join(resolution.stateDir, SESSION_FILE_NAME);
        let record;
        try {
          // A record reached through a link or with a second name is no record: no earlier wave counts.
          const text = ownFiles.readText(recordPath);
          record = text === undefined ? undefined : parseSessionRecord(text);
        } catch {
          record = undefined;
        }
        const evidence = weighSessionEvidence({
          manifestSessions: manifestSessionIds(resolution.manifest),
          ...(record !== undefined ? { record } : {}),
          environmentSessions: claimed,
          ...(parseSessionStart(io.env.WAVE_SCOPE_SESSION_START) !== undefined ? { environmentStartMs: parseSessionStart(io.env.WAVE_SCOPE_SESSION_START) } : {}),
        });
        if (evidence.kind === 'contradiction') {
          reportNote(
            io,
            evidence.about === 'session'
              ? hookMessages.commitSessionContradiction(evidence.claimed, evidence.bound, resolution.manifestPath)
              : hookMessages.commitStartContradiction(new Date(evidence.claimedMs).toISOString(), new Date(evidence.recordedMs).toISOString(), recordPath),
          );
          blocked = true;
          continue;
        }
        if (evidence.ignoredStart === true && !noted) {
          reportNote(io, hookMessages.commitIgnoredStart);
          noted = true;
        }
        sessionStartMs = evidence.sessionStartMs;
      }
      const result = checkStagedChanges({
        changes,
        manifest: state,
        sidecars: readSidecars(manifestRoot, resolution.stateDir),
        ...(sessionStartMs !== undefined ? { sessionStartMs } : {}),
        controlPaths: [`${stateName}/${MANIFEST_FILE_NAME}`, `${stateName}/${FILESCOPES_DIR_NAME}/`],
        repoRoot: location.writeRoot,
        ignoreCase,
      });
      if (result.kind === 'stand-down') continue;
      if (result.kind === 'invalid-manifest') {
        reportNote(io, hookMessages.commitInvalidManifest(result.manifestPath, result.problems));
        blocked = true;
        continue;
      }
      for (const line of result.results) {
        if (line.verdict === 'earlier-wave' && line.wave !== undefined) reportNote(io, hookMessages.commitEarlierWave(line.path, line.wave));
      }
      const outside = result.results.filter((line) => line.verdict === 'blocked');
      if (outside.length === 0) continue;
      reportNote(
        io,
        result.ok ? hookMessages.commitWarnHeader(result.wave, result.manifestPath) : hookMessages.commitBlockedHeader(result.wave, result.manifestPath),
      );
      for (const line of outside) reportNote(io, hookMessages.commitBlockedLine(line.path, line.status));
      if (!result.ok) {
        reportNote(io, hookMessages.commitAdvice);
        blocked = true;
      }
    }
    return blocked ? 1 : 0;
  } catch (error) {
    reportNote(io, hookMessages.commitFailure(describe(error)));
    reportNote(io, hookMessages.commitFailClosed);
    return 1;
  }
}

/**
 * The agent CLI's SessionStart hook: records the session id and its start in the session record of
 * the coordinator checkout's state directory (resolved as for every reader), which the commit guard
 * trusts for the session start. Never blocks a session and prints nothing on stdout (several CLIs add
 * a SessionStart hook's stdout to the model's context); a failure is one note on stderr.
 */
export async function runSessionStart(_args: string[], io: CliIo): Promise<number> {
  try {
    const payload = JSON.parse(await io.readStdin()) as Record<string, unknown>;
    const id = ['session_id', 'sessionId', 'conversation_id'].map((key) => payload[key]).find((value): value is string => typeof value === 'string' && value.trim() !== '');
    if (id === undefined) return 0;
    const start = [typeof payload.cwd === 'string' ? payload.cwd : undefined, ...PROJECT_DIR_VARIABLES.map((name) => io.env[name]), io.cwd].find(
      (path): path is string => path !== undefined && path.startsWith('/'),
    );
    if (start === undefined) return 0;
    const location = locateRepository(canonicalDirectory(start), nodeLocateFileSystem);
    if (location === undefined) return 0;
    const root = nodeTargetFileSystem.realpath(location.manifestRoot) ?? location.manifestRoot;
    const ownFiles = ownFilesBelow(root, nodeLocateFileSystem);
    const resolution = resolveStateDir(root, processLocalSessionIds({ payloadSessionIds: [id], env: io.env }), ownFiles);
    if (nodeLocateFileSystem.kind(resolution.stateDir) !== 'dir') return 0;
    // Neither read through a link (an earlier start planted there would be kept) nor written through one.
    ensureRealDirectory(root, resolution.name);
    const path = join(resolution.stateDir, SESSION_FILE_NAME);
    const existingText = ownFiles.readText(path);
    const existing = existingText === undefined ? undefined : parseSessionRecord(existingText);
    const text = formatSessionRecord(nextSessionRecord(existing, id.trim(), Date.now()));
    if (text !== existingText) writeFileAtomicSync(path, text);
  } catch (error) {
    reportNote(io, hookMessages.sessionStartFailure(describe(error)));
  }
  return 0;
}

export async function runHook(args: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = args;
  if (name === 'enforce-write') return runEnforceWrite(rest, io);
  if (name === 'commit-guard') return runCommitGuard(rest, io);
  if (name === 'session-start') return runSessionStart(rest, io);
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
