// `wave-scope hook post-bash | stop | turn-start`: the backstop's hooks (src/planner/backstop/
// shellCheck.ts). Built as a bundle of its own, `dist/backstop-hook.js`, which `hook.js` loads only
// for these names, so the write gate's hook (`enforce-write`, on every edit) never loads any of this.
//
// Every call answers and exits 0: a blocked shell call has already run, so there is nothing to
// refuse, only something to tell the agent. A failure inside the check is told to the agent too.
import { rmSync } from 'node:fs';
import type { CliIo } from '../cliIo';
import { printLine, reportNote } from '../cliIo';
import { backstopMessages } from '../messages';
import { appendLine, fingerprintPlanFiles, readSavedText, writeFileBelow } from '../../node/backstopFiles';
import { nodeSnapshotHost } from '../../node/backstopGit';
import { readSubagentScope } from '../../node/subagentScope';
import { nodeWriteGateHost } from '../../node/writeGateHost';
import {
  checkShellCall,
  eventsPath,
  formatShellReply,
  ObserverPayloadError,
  parseObserverPayload,
  planFilesGone,
  resolveShellContext,
  shellCheckEvent,
  shellStorePath,
} from '../../planner/backstop/shellCheck';
import type { ObserverPayload, ShellCheckResult, ShellContext, ShellHookName, ShellVerdict } from '../../planner/backstop/shellCheck';
import { planPathForReport } from '../../planner/backstop/planFiles';
import { normalizeScopeEntry } from '../../planner/scope/scopeEntry';
import type { ChangeViolation } from '../../planner/backstop/turnScope';
import type { PlanFileChange } from '../../planner/backstop/planFiles';

const AGENT_CLIS = ['claude', 'codex'];

/**
 * The most changes a reply names one by one. A command such as `npm install` run outside the scope can
 * change tens of thousands of paths; a reply naming each is megabytes the agent reads as its context, and
 * the count says as much.
 */
export const MAX_REPLY_LINES = 200;

/** One line per violation, at most MAX_REPLY_LINES of them, and a line counting the rest. */
function violationLines(violations: readonly ChangeViolation[]): string[] {
  const lines = violations.slice(0, MAX_REPLY_LINES).map((violation) => backstopMessages.shellLine(violation.change, violation.kind, violation.contestedBy));
  if (violations.length > MAX_REPLY_LINES) lines.push(backstopMessages.shellMoreLines(MAX_REPLY_LINES, violations.length - MAX_REPLY_LINES));
  return lines;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** What the work tree's changes come to, before the plan files are added. */
function treeVerdictOf(hook: ShellHookName, result: ShellCheckResult): ShellVerdict {
  if (result.baseline === 'damaged') return { decision: 'block', reason: backstopMessages.shellDamaged };
  const judgement = result.judgement;
  if (judgement === undefined || judgement.verdict === 'in-scope' || judgement.verdict === 'not-checked') return { decision: 'allow' };
  if (judgement.verdict === 'invalid-manifest') {
    return result.changes.length === 0 ? { decision: 'allow' } : { decision: 'block', reason: backstopMessages.shellInvalidManifest(judgement.manifestPath, judgement.problems) };
  }
  const lines = violationLines(judgement.violations);
  const against = judgement.against === 'agent' ? `agent "${judgement.agent}"` : `wave ${judgement.wave}, ${judgement.manifestPath}`;
  const allowed = backstopMessages.allowedLine(against, judgement.allowed);
  if (judgement.verdict === 'warn') return { decision: 'warn', message: [backstopMessages.shellWarnHeader, ...lines, allowed].join('\n') };
  const header = backstopMessages.shellHeader(hook === 'stop' ? 'stop' : 'post-bash');
  return { decision: 'block', reason: [header, ...lines, allowed, backstopMessages.shellAdvice].join('\n') };
}

/**
 * The reply: the work tree's verdict, and for a dispatched caller the plan files. A changed plan file
 * blocks whatever the enforcement level (control state, as for the write gate); a plan that could not
 * be compared (a snapshot saved by an earlier version) is said, never passed over in silence.
 */
function verdictOf(hook: ShellHookName, result: ShellCheckResult, writeRoot: string): ShellVerdict {
  const tree = treeVerdictOf(hook, result);
  const treeText = tree.decision === 'block' ? tree.reason : tree.decision === 'warn' ? tree.message : undefined;
  const join = (...parts: Array<string | undefined>) => parts.filter((part): part is string => part !== undefined).join('\n\n');
  const { plan } = result;
  if (plan.state === 'uncompared') {
    return tree.decision === 'block' ? { decision: 'block', reason: join(treeText, backstopMessages.shellPlanUncompared) } : { decision: 'warn', message: join(treeText, backstopMessages.shellPlanUncompared) };
  }
  if (plan.state !== 'compared' || plan.changes.length === 0) return tree;
  return { decision: 'block', reason: join(treeText, planChangeText(hook, plan.changes, writeRoot, { firstCheck: result.baseline === 'coordinator' })) };
}

/**
 * What a dispatched caller is told of the plan files that changed: each with its kind of change, and what to
 * do; with `gone`, that no wave is in force any more, so nothing else could be checked (planFilesGone).
 */
function planChangeText(hook: ShellHookName, changes: readonly PlanFileChange[], writeRoot: string, options: { firstCheck?: boolean; gone?: boolean }): string {
  return [
    backstopMessages.shellPlanHeader(hook === 'stop' ? 'stop' : 'post-bash'),
    ...changes.map((change) => backstopMessages.shellPlanLine(planPathForReport(change.path, writeRoot), change.kind)),
    ...(options.gone === true ? [backstopMessages.shellPlanGone] : []),
    backstopMessages.shellPlanAdvice(options.firstCheck === true),
  ].join('\n');
}

function watchedIgnored(env: NodeJS.ProcessEnv, root: string): string[] {
  const entries: string[] = [];
  for (const entry of (env.WAVE_SCOPE_WATCH_IGNORED ?? '').split(':')) {
    if (entry.trim() === '') continue;
    try {
      entries.push(normalizeScopeEntry(entry, { repoRoot: root }));
    } catch {
      // An entry the grammar refuses watches nothing; the scope check itself is unaffected.
    }
  }
  return entries;
}

function recordEvent(context: Extract<ShellContext, { kind: 'checked' }>, event: object): void {
  try {
    appendLine(eventsPath(context.manifestRoot), JSON.stringify(event));
  } catch {
    // Telemetry never changes what the agent is told.
  }
}

/** Runs one backstop hook. Always exits 0 with the reply on stdout (docs/hooks.md). */
export async function runBackstopHook(hook: ShellHookName, args: string[], io: CliIo): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    printLine(io, backstopMessages.hookUsage);
    return 0;
  }
  const started = Date.now();
  const cliIndex = args.indexOf('--agent-cli');
  const agentCli = cliIndex === -1 ? 'claude' : (args[cliIndex + 1] ?? '');
  let payload: ObserverPayload = { sessionIds: [], stopHookActive: false };
  let verdict: ShellVerdict = { decision: 'allow' };
  try {
    if (!AGENT_CLIS.includes(agentCli)) throw new ObserverPayloadError(backstopMessages.unknownHookCli(agentCli));
    payload = parseObserverPayload(await io.readStdin());
    // The write gate's own host, subagent binding included: a bound subagent's shell call is judged by its own scope.
    const context = resolveShellContext(payload, nodeWriteGateHost({ env: io.env, cwd: io.cwd, subagentScope: readSubagentScope }));
    if (context.kind === 'off-repository') {
      reportNote(io, backstopMessages.shellOffRepository(context.cwd));
      return 0;
    }
    const writeRoot = context.location.writeRoot;
    // The saved snapshots are read and written only through real directories below the work tree, and read
    // only with one link: a snapshot an agent could rewrite through another name could hide its changes.
    const store = {
      read: (name: string) => readSavedText(writeRoot, shellStorePath(writeRoot, name)),
      write: (name: string, text: string) => writeFileBelow(writeRoot, shellStorePath(writeRoot, name), text),
      remove: (name: string) => rmSync(shellStorePath(writeRoot, name), { force: true }),
    };
    if (context.kind === 'no-wave') {
      // Nothing to check against, unless a dispatched caller's plan went away since its last call.
      const gone = hook === 'turn-start' ? undefined : planFilesGone(context, { store, planFiles: fingerprintPlanFiles });
      if (gone !== undefined && gone.length > 0) verdict = { decision: 'block', reason: planChangeText(hook, gone, writeRoot, { gone: true }) };
      else return 0;
    } else {
      const result = await checkShellCall(
        context,
        { compare: hook !== 'turn-start', watchIgnored: watchedIgnored(io.env, writeRoot) },
        { snapshot: nodeSnapshotHost(writeRoot, { gitDir: context.location.gitDir, commonDir: context.location.commonDir }), store, planFiles: fingerprintPlanFiles },
      );
      verdict = verdictOf(hook, result, writeRoot);
      recordEvent(
        context,
        shellCheckEvent({ at: new Date(), hook, agentCli, context, result, decision: verdict.decision, durationMs: Date.now() - started }),
      );
    }
  } catch (error) {
    const reason = error instanceof ObserverPayloadError ? backstopMessages.shellPayload(error.message) : backstopMessages.shellFailed(describe(error));
    verdict = { decision: 'block', reason };
  }
  io.writeStdout(formatShellReply(hook, verdict, { stopHookActive: payload.stopHookActive }));
  return 0;
}
