// `wave-scope doctor`: proves the installed hooks work by running them. For each agent CLI of the
// registration table and for git, it reads the exact command line the settings file (or the
// pre-commit hook) holds, runs it through `sh -c` as the agent CLI or git would, with a synthetic
// payload of that CLI, and checks the answer: a write outside every scope must be denied in that CLI's
// format, by the gate itself (the reason names the file), and a write inside a scope must be allowed.
//
// The probes run against a fixture repository in a temporary directory (its wave allows `inside/`
// only), so they prove the hook whatever waves the user's repository has. Where the repository's own
// wave is active and enforced, the allow probe writes inside that wave's scope instead (a probe
// inside the fixture would be outside the repository the session is bound to). Nothing is ever
// written by a probe: a pre-tool hook only answers. For git, every other checkout that runs a pre-commit hook
// file of its own (linked worktrees, with a relative core.hooksPath) is checked as well: one without the
// guard (a worktree added since install-hooks last ran) is named, with the command that guards it.
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'jsonc-parser';
import { fileStateOf, gitHooksDirectory, isExecutable, repositoryCheckouts } from './hookInstall';
import { NotARegularFileError, readRegularFileIfExists } from './declarationFs';
import { AGENT_CLIS, CHAINED_SUFFIX, GIT_BLOCK_BEGIN, GIT_BLOCK_END, HOOK_REGISTRATIONS, ourHookOf } from '../planner/enforce/hookInstaller';
import type { AgentCli, HookRegistration } from '../planner/enforce/hookInstaller';
import { preCommitHook, type PreCommitHook } from '../planner/enforce/hookInstaller';
import { FAIL_OPEN_HOOKS } from '../planner/enforce/hookNames';
import { findManifest } from '../planner/enforce/writeGate';
import { nodeLocateFileSystem } from './hookFileSystem';
import { DEFAULT_STATE_DIR_NAME, LAUNCHER_FILE_NAME, MANIFEST_FILE_NAME, STATE_DIR_NAMES } from '../planner/plan/stateDirNames';

/**
 * The text of the file at `path` (a link followed); undefined when nothing, or nothing but a regular file, is
 * there: a FIFO put at a settings path must not hang doctor in open(2), and it holds no hook either way.
 */
function fileText(path: string): string | undefined {
  try {
    return readRegularFileIfExists(path)?.toString('utf8');
  } catch (error) {
    if (error instanceof NotARegularFileError) return undefined;
    throw error;
  }
}

/**
 * The launcher a command names when it is there but is no regular file: node would block opening a FIFO, and a
 * probe's timeout kills only the `sh` it runs, so the probe (and doctor) would wait for node for good.
 */
function launcherNotAFile(command: string, root: string): string | undefined {
  for (const dir of STATE_DIR_NAMES) {
    if (!command.includes(`${dir}/${LAUNCHER_FILE_NAME}`)) continue;
    const launcher = join(root, dir, LAUNCHER_FILE_NAME);
    // stat follows a link as node will, and opens nothing.
    if (statSync(launcher, { throwIfNoEntry: false })?.isFile() === false) return launcher;
  }
  return undefined;
}

function notAFileCheck(launcher: string): DoctorCheck {
  return { name: 'runs', ok: false, detail: `the launcher ${launcher} is not a regular file (a FIFO, a directory or a device), so the hook cannot run it: remove it and run "wave-scope install-hooks" again` };
}

/** One check the doctor ran. */
export interface DoctorCheck {
  /** `worktree`: another checkout of the repository that runs a pre-commit hook file of its own, and whether the guard is in it. */
  readonly name: 'installed' | 'deny-outside' | 'allow-inside' | 'registration' | 'runs' | 'shell-check' | 'worktree';
  readonly ok: boolean;
  readonly detail: string;
  /** For a `worktree` check: that checkout's top level. */
  readonly worktree?: string;
}

/** What the doctor found for one agent CLI or for git. */
export interface DoctorResult {
  readonly target: AgentCli | 'git';
  readonly status: 'working' | 'broken' | 'not-installed';
  /** The file the hook is registered in. */
  readonly file: string;
  /** The exact command line run. */
  readonly command?: string;
  readonly checks: readonly DoctorCheck[];
}

export interface DoctorReport {
  readonly version: 1;
  readonly repository: string;
  readonly results: readonly DoctorResult[];
}

interface Probe {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

const PROBE_SESSION = 'wave-scope-doctor-probe';

/** One line of a hook's output for a report: the line that says what went wrong (a stack trace's error line), shortened. */
function summarize(text: string): string {
  const lines = text.split('\n').map((line) => line.trim()).filter((line) => line !== '');
  const line = lines.find((candidate) => /^(?:[A-Z]\w*Error|Error)\b/.test(candidate)) ?? lines[0] ?? '';
  return line.length > 300 ? `${line.slice(0, 299)}…` : line;
}
const PROBE_TIMEOUT_MS = 30_000;

function runCommand(command: string, input: string, cwd: string, env: NodeJS.ProcessEnv): Probe {
  const run = spawnSync('sh', ['-c', command], { input, cwd, env, encoding: 'utf8', timeout: PROBE_TIMEOUT_MS });
  return { status: run.status, stdout: run.stdout ?? '', stderr: `${run.stderr ?? ''}${run.error !== undefined ? run.error.message : ''}` };
}

/** A synthetic pre-tool payload of one agent CLI that writes `target` from `cwd`. */
export function probePayload(agentCli: AgentCli, cwd: string, target: string): string {
  switch (agentCli) {
    case 'claude':
      return JSON.stringify({ session_id: PROBE_SESSION, cwd, hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: target, content: '' } });
    case 'codex':
      return JSON.stringify({
        session_id: PROBE_SESSION,
        turn_id: 'doctor',
        cwd,
        hook_event_name: 'PreToolUse',
        tool_name: 'apply_patch',
        tool_input: { command: `*** Begin Patch\n*** Add File: ${target}\n+probe\n*** End Patch\n` },
      });
    case 'cursor':
      return JSON.stringify({ conversation_id: PROBE_SESSION, hook_event_name: 'preToolUse', workspace_roots: [cwd], cwd, tool_name: 'Write', tool_input: { file_path: target, contents: '' } });
    case 'gemini':
      return JSON.stringify({ session_id: PROBE_SESSION, cwd, hook_event_name: 'BeforeTool', tool_name: 'write_file', tool_input: { file_path: target, content: '' } });
  }
}

/** The decision a reply in one CLI's format carries: deny (with its reason), allow, or unreadable. */
export function replyDecision(agentCli: AgentCli, probe: Probe): { decision: 'allow' | 'deny' | 'unreadable'; reason: string } {
  if (probe.status === 2) return { decision: 'deny', reason: probe.stderr.trim() };
  if (probe.status !== 0) return { decision: 'unreadable', reason: `exit ${String(probe.status)}: ${probe.stderr.trim()}` };
  const text = probe.stdout.trim();
  if (text === '') return agentCli === 'claude' || agentCli === 'codex' ? { decision: 'allow', reason: '' } : { decision: 'unreadable', reason: 'no reply on stdout' };
  let reply: Record<string, unknown>;
  try {
    reply = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return { decision: 'unreadable', reason: `stdout is not JSON: ${text.slice(0, 200)}` };
  }
  if (agentCli === 'claude' || agentCli === 'codex') {
    const output = reply.hookSpecificOutput as Record<string, unknown> | undefined;
    if (output?.permissionDecision === 'deny') return { decision: 'deny', reason: String(output.permissionDecisionReason ?? '') };
    return { decision: 'allow', reason: String(reply.systemMessage ?? '') };
  }
  if (agentCli === 'cursor') {
    if (reply.permission === 'deny') return { decision: 'deny', reason: String(reply.agent_message ?? reply.user_message ?? '') };
    if (reply.permission === 'allow') return { decision: 'allow', reason: '' };
    return { decision: 'unreadable', reason: `no "permission" in ${text.slice(0, 200)}` };
  }
  if (reply.decision === 'deny' || reply.decision === 'block') return { decision: 'deny', reason: String(reply.reason ?? '') };
  if (reply.decision === 'allow' || reply.decision === undefined) return { decision: 'allow', reason: '' };
  return { decision: 'unreadable', reason: text.slice(0, 200) };
}

/** Our handler's command for one registration in a settings file's text, when it is installed. */
function installedCommand(text: string, registration: HookRegistration): { command?: string; element?: Record<string, unknown> } {
  const value = parse(text) as Record<string, unknown> | undefined;
  const list = (value?.hooks as Record<string, unknown> | undefined)?.[registration.event];
  if (!Array.isArray(list)) return {};
  for (const element of list as Array<Record<string, unknown>>) {
    const handlers = registration.layout === 'flat' ? [element] : Array.isArray(element?.hooks) ? (element.hooks as Array<Record<string, unknown>>) : [];
    for (const handler of handlers) {
      if (ourHookOf(handler?.command) === registration.hook) return { command: String(handler.command), element };
    }
  }
  return {};
}

/** A target inside the enforced wave of the repository itself, when one is active: a literal grant's path. */
function insideRepositoryWave(root: string): string | undefined {
  const found = findManifest(root, new Set([PROBE_SESSION]), nodeLocateFileSystem);
  if (found.state.kind !== 'loaded' || found.state.session === 'foreign' || found.state.manifest.enforcement === 'off') return undefined;
  const literal = found.state.manifest.allowedPaths.find((entry) => !/[*?[\]{}]/.test(entry));
  if (literal === undefined) return '';
  return join(root, literal.endsWith('/') ? `${literal}wave-scope-doctor-probe` : literal);
}

/** The fixture: a git repository whose wave allows `inside/` only. */
function makeFixture(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-doctor-')));
  spawnSync('git', ['init', '--quiet', dir], { encoding: 'utf8' });
  mkdirSync(join(dir, DEFAULT_STATE_DIR_NAME), { recursive: true });
  mkdirSync(join(dir, 'inside'), { recursive: true });
  writeFileSync(
    join(dir, DEFAULT_STATE_DIR_NAME, MANIFEST_FILE_NAME),
    `${JSON.stringify({ version: 1, wave: 1, role: 'implementation', enforcement: 'strict', allowedPaths: ['inside/'], blockedCommands: [] }, null, 2)}\n`,
  );
  return dir;
}

function probeEnvironment(env: NodeJS.ProcessEnv, root: string): NodeJS.ProcessEnv {
  const clean: NodeJS.ProcessEnv = { ...env, CLAUDE_PROJECT_DIR: root, GEMINI_PROJECT_DIR: root };
  // A probe is the coordinator's own call: no agent identity or session of the doctor's shell.
  for (const key of ['WAVE_SCOPE_AGENT', 'CLAUDE_CODE_SESSION_ID', 'WAVE_SCOPE_SESSION_START']) delete clean[key];
  return clean;
}

function checkAgentCli(agentCli: AgentCli, root: string, fixture: string, env: NodeJS.ProcessEnv): DoctorResult {
  const registration = HOOK_REGISTRATIONS.find((row) => row.agentCli === agentCli && row.hook === 'enforce-write') as HookRegistration;
  const file = join(root, registration.configFile);
  const text = fileText(file);
  const { command, element } = text === undefined ? {} : installedCommand(text, registration);
  if (command === undefined) {
    return { target: agentCli, status: 'not-installed', file, checks: [{ name: 'installed', ok: false, detail: `no Wave Scope ${registration.event} hook in ${file}` }] };
  }
  const checks: DoctorCheck[] = [{ name: 'installed', ok: true, detail: `${registration.event} hook in ${file}` }];
  const matcher = element?.matcher;
  if (registration.matcher !== undefined && matcher !== registration.matcher) {
    checks.push({ name: 'registration', ok: false, detail: `the matcher is ${JSON.stringify(matcher)}, not ${JSON.stringify(registration.matcher)}: run "wave-scope install-hooks" to update it` });
  }
  const badLauncher = launcherNotAFile(command, root);
  if (badLauncher !== undefined) return { target: agentCli, status: 'broken', file, command, checks: [...checks, notAFileCheck(badLauncher)] };
  const probeEnv = probeEnvironment(env, root);
  const outside = join(fixture, 'outside', 'wave-scope-doctor-probe.txt');
  const denied = replyDecision(agentCli, runCommand(command, probePayload(agentCli, fixture, outside), fixture, probeEnv));
  const byGate = denied.decision === 'deny' && denied.reason.includes('wave-scope-doctor-probe.txt');
  checks.push({
    name: 'deny-outside',
    ok: byGate,
    detail: byGate
      ? `a write outside every scope is denied in ${agentCli}'s format`
      : denied.decision === 'deny'
        ? `the hook blocks, but not by the gate's decision: ${summarize(denied.reason)}`
        : `a write outside every scope is not denied (${denied.decision}${denied.reason !== '' ? `: ${summarize(denied.reason)}` : ''})`,
  });
  const repositoryTarget = insideRepositoryWave(root);
  if (repositoryTarget === '') {
    checks.push({ name: 'allow-inside', ok: true, detail: 'not probed: the repository\'s active wave grants only globs, so no single path inside it can be named' });
  } else {
    const [cwd, inside] = repositoryTarget === undefined ? [fixture, join(fixture, 'inside', 'wave-scope-doctor-probe.txt')] : [root, repositoryTarget];
    const allowed = replyDecision(agentCli, runCommand(command, probePayload(agentCli, cwd, inside), cwd, probeEnv));
    checks.push({
      name: 'allow-inside',
      ok: allowed.decision === 'allow',
      detail: allowed.decision === 'allow' ? 'a write inside the scope is allowed' : `a write inside the scope is not allowed (${allowed.decision}: ${summarize(allowed.reason)})`,
    });
  }
  checks.push(...checkOtherRows(agentCli, root, fixture, env));
  return { target: agentCli, status: checks.every((check) => check.ok) ? 'working' : 'broken', file, command, checks };
}

/** A synthetic payload of Claude Code or Codex (they share the shape) for one of the lifecycle and shell hooks. */
function lifecyclePayload(registration: HookRegistration, cwd: string, session: string): string {
  const base = { session_id: session, cwd, hook_event_name: registration.event, ...(registration.agentCli === 'codex' ? { turn_id: 'doctor' } : {}) };
  switch (registration.hook) {
    case 'post-bash':
      return JSON.stringify({ ...base, tool_name: 'Bash', tool_input: { command: 'true' }, tool_response: {} });
    case 'pre-dispatch':
      // A dispatch without a FILE-SCOPE block: the guard records nothing and lets it through.
      return JSON.stringify({ ...base, tool_name: 'Agent', tool_use_id: 'doctor-probe', tool_input: { description: 'doctor probe', prompt: 'probe', subagent_type: 'general-purpose' } });
    case 'subagent-start':
      return JSON.stringify({ ...base, agent_id: 'doctor-probe', agent_type: 'general-purpose' });
    case 'stop':
      return JSON.stringify({ ...base, stop_hook_active: false });
    default:
      return JSON.stringify({ ...base, prompt: 'probe' });
  }
}

/** Whether a backstop reply blocks (`{"decision": "block"}` on stdout, or exit 2), and why. */
function blocks(probe: Probe): { blocked: boolean; reason: string } {
  if (probe.status === 2) return { blocked: true, reason: probe.stderr };
  try {
    const reply = JSON.parse(probe.stdout.trim() || '{}') as Record<string, unknown>;
    return { blocked: reply.decision === 'block', reason: String(reply.reason ?? '') };
  } catch {
    return { blocked: false, reason: probe.stdout };
  }
}

/** The launcher's own note when it could not run the CLI and let a fail-open hook's call through. */
const FAILED_OPEN_NOTE = /did not run and let this call through|hook launcher did not run/;

/**
 * Every other hook of the CLI's rows: installed with its matcher, and run. The post-shell check fails
 * closed, so it is proved the way the gate is: a shell call that leaves a file outside every scope
 * must be blocked. The hooks that fail open are proved to run (exit 0 with no note that the launcher
 * failed): a synthetic collision would prove no more about the installed command line than that.
 */
function checkOtherRows(agentCli: AgentCli, root: string, fixture: string, env: NodeJS.ProcessEnv): DoctorCheck[] {
  const checks: DoctorCheck[] = [];
  const texts = new Map<string, string | undefined>();
  for (const dir of STATE_DIR_NAMES) {
    const launcher = join(root, dir, LAUNCHER_FILE_NAME);
    const text = fileText(launcher);
    if (text === undefined) continue;
    mkdirSync(join(fixture, dir), { recursive: true });
    writeFileSync(join(fixture, dir, LAUNCHER_FILE_NAME), text, { mode: 0o755 });
  }
  for (const registration of HOOK_REGISTRATIONS) {
    if (registration.agentCli !== agentCli || registration.hook === 'enforce-write') continue;
    const file = join(root, registration.configFile);
    if (!texts.has(file)) texts.set(file, fileText(file));
    const text = texts.get(file);
    const label = `${registration.hook} (${registration.event}${registration.matcher !== undefined ? ` ${registration.matcher}` : ''})`;
    const { command, element } = text === undefined ? {} : installedCommand(text, registration);
    if (command === undefined) {
      checks.push({ name: 'registration', ok: false, detail: `${label} is not installed in ${file}: run "wave-scope install-hooks" to add it` });
      continue;
    }
    if (registration.matcher !== undefined && element?.matcher !== registration.matcher) {
      checks.push({ name: 'registration', ok: false, detail: `${label}: the matcher is ${JSON.stringify(element?.matcher)}: run "wave-scope install-hooks" to update it` });
      continue;
    }
    const session = `${PROBE_SESSION}-${agentCli}-${registration.hook}-${registration.event}`;
    // The backstop looks at the project root's repository: the fixture is the project here, with a
    // byte-for-byte copy of the repository's launcher where the command names it (a sabotaged or gone
    // launcher is copied as it is), so nothing of the user's checkout is written or judged.
    const probeEnv = probeEnvironment(env, fixture);
    const first = runCommand(command, lifecyclePayload(registration, fixture, session), fixture, probeEnv);
    const ran = first.status === 0 && !FAILED_OPEN_NOTE.test(first.stderr) && !blocks(first).blocked;
    if (!ran) {
      checks.push({ name: 'runs', ok: false, detail: `${label} did not run cleanly (exit ${String(first.status)}: ${summarize(`${first.stderr}\n${first.stdout}`)})` });
      continue;
    }
    if (registration.hook !== 'post-bash') {
      checks.push({ name: 'runs', ok: true, detail: `${label} runs${FAIL_OPEN_HOOKS.has(registration.hook) ? ' (it fails open)' : ''}` });
      continue;
    }
    // The first call took the baseline; a file outside every scope written since must block the next.
    const stray = join(fixture, 'outside', `shell-probe-${registration.event}.txt`);
    mkdirSync(join(fixture, 'outside'), { recursive: true });
    writeFileSync(stray, 'probe\n');
    try {
      const second = blocks(runCommand(command, lifecyclePayload(registration, fixture, session), fixture, probeEnv));
      const ok = second.blocked && second.reason.includes('shell-probe');
      checks.push({ name: 'shell-check', ok, detail: ok ? `${label}: a shell call that writes outside every scope is blocked` : `${label}: a shell call that writes outside every scope is not blocked (${summarize(second.reason) || 'no block'})` });
    } finally {
      rmSync(stray, { force: true });
    }
  }
  return checks;
}

/** The guard's command line inside our block of a pre-commit hook. */
function guardCommand(text: string): string | undefined {
  const start = text.indexOf(GIT_BLOCK_BEGIN);
  const end = text.indexOf(GIT_BLOCK_END, start);
  if (start === -1 || end === -1) return undefined;
  return text
    .slice(start, end)
    .split('\n')
    .find((line) => line.trim() !== '' && !line.trim().startsWith('#'))
    ?.trim();
}

/**
 * Why a pre-commit hook has no guard when an install-hooks run stopped while chaining it (killed, a power cut):
 * the saved copy is there, and either the same hook is still in place (the current chaining's first step
 * done, its wrapper not yet) or nothing is (an earlier version's first step, a rename, done). Empty otherwise.
 */
function unfinishedChainNote(hookFile: string): string {
  const saved = `${hookFile}${CHAINED_SUFFIX}`;
  const savedState = fileStateOf(saved);
  if (savedState.kind !== 'file' && savedState.kind !== 'link') return '';
  const hookState = fileStateOf(hookFile);
  const modeOf = (path: string) => (lstatSync(path, { throwIfNoEntry: false })?.mode ?? 0) & 0o7777;
  const same = JSON.stringify(hookState) === JSON.stringify(savedState) && modeOf(hookFile) === modeOf(saved);
  if (hookState.kind !== 'absent' && !same) return '';
  const left = hookState.kind === 'absent' ? 'the hook it saved, and nothing is in its place' : 'the same hook, saved before the wrapper was to replace it';
  return `; ${saved} holds ${left}: an install-hooks run stopped while chaining it. Run "wave-scope install-hooks --git" to finish it, or "wave-scope install-hooks --git --uninstall" to undo it`;
}

function git(cwd: string, ...args: string[]): void {
  spawnSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 'wave-scope doctor', GIT_AUTHOR_EMAIL: 'doctor@example.invalid', GIT_COMMITTER_NAME: 'wave-scope doctor', GIT_COMMITTER_EMAIL: 'doctor@example.invalid' } });
}

/**
 * Why git does not run the pre-commit hook file, or undefined when it does. git runs `gitRuns` when it is
 * executable; with husky's layout that is husky's generated hook (`.husky/_/pre-commit`, made in each
 * checkout by husky's `prepare` script), which runs the hook file through sh.
 */
function whyNotRun({ file, gitRuns, runner }: PreCommitHook): string | undefined {
  if (runner === 'git') return isExecutable(file) ? undefined : `${file} is not executable, so git does not run it`;
  if (!existsSync(gitRuns)) return `git runs ${gitRuns}, which is not there (husky generates it in each checkout with its "prepare" script: "npm install" or "npx husky" there), so ${file} does not run`;
  return isExecutable(gitRuns) ? undefined : `${gitRuns}, which git runs and which runs ${file}, is not executable, so git does not run it`;
}

/** Runs the guard's command line in the fixture: a staged file outside every scope must be blocked by the guard, one inside let through. */
function probeGuard(command: string, root: string, fixture: string, env: NodeJS.ProcessEnv): DoctorCheck[] {
  const guard = command.replace(/\s*\|\|\s*exit 1\s*$/, '');
  writeFileSync(join(fixture, 'outside-probe.txt'), 'probe\n');
  git(fixture, 'add', 'outside-probe.txt');
  const blocked = runCommand(guard, '', fixture, probeEnvironment(env, root));
  const byGuard = blocked.status === 1 && blocked.stderr.includes('outside-probe.txt');
  git(fixture, 'reset', '--quiet', 'outside-probe.txt');
  writeFileSync(join(fixture, 'inside', 'probe.txt'), 'probe\n');
  git(fixture, 'add', 'inside/probe.txt');
  const allowed = runCommand(guard, '', fixture, probeEnvironment(env, root));
  git(fixture, 'reset', '--quiet', 'inside/probe.txt');
  return [
    {
      name: 'deny-outside',
      ok: byGuard,
      detail: byGuard ? 'a commit staging a file outside every scope is blocked' : `a commit staging a file outside every scope is not blocked by the guard (exit ${String(blocked.status)}: ${summarize(blocked.stderr)})`,
    },
    {
      name: 'allow-inside',
      ok: allowed.status === 0,
      detail: allowed.status === 0 ? 'a commit staging a file inside the scope goes through' : `a commit staging a file inside the scope is blocked (exit ${String(allowed.status)}: ${summarize(allowed.stderr)})`,
    },
  ];
}

/**
 * The other checkouts of the repository that run a pre-commit hook file of their own (a relative core.hooksPath:
 * each linked worktree runs its own copy), one check each: the guard is in it, git runs it, and its command
 * works (probed like the first hook's when it is another command line). A checkout without the guard, a
 * worktree added after install-hooks ran among them, fails, naming it and the command that guards it.
 */
function checkOtherCheckouts(writeRoot: string, hookFile: string, command: string, root: string, fixture: string, env: NodeJS.ProcessEnv): DoctorCheck[] {
  let checkouts;
  try {
    checkouts = repositoryCheckouts(writeRoot);
  } catch (error) {
    return [{ name: 'worktree', ok: false, detail: `git cannot list the repository's worktrees: ${(error as Error).message}` }];
  }
  const ownCopies = checkouts[0]?.hooks !== undefined && isWithin(writeRoot, checkouts[0].hooks.dir);
  const seen = new Set([realOrSelf(hookFile)]);
  const checks: DoctorCheck[] = [];
  for (const checkout of checkouts.slice(1)) {
    const { worktree } = checkout;
    if (checkout.hooks === undefined) {
      if (ownCopies) checks.push({ name: 'worktree', ok: true, worktree, detail: `not checked: ${worktree} is not there (${checkout.prunable ?? (checkout.locked !== undefined ? 'locked, and its directory is away' : 'its directory is gone')}), so nothing is committed there` });
      continue;
    }
    const preCommit = preCommitHook(checkout.hooks.dir);
    const file = preCommit.file;
    if (seen.has(realOrSelf(file))) continue;
    seen.add(realOrSelf(file));
    const text = fileText(file);
    const theirs = text === undefined ? undefined : guardCommand(text);
    const locked = checkout.locked !== undefined ? ` It is locked ("git worktree lock"): unlock it ("git worktree unlock ${worktree}") first.` : '';
    if (theirs === undefined) {
      const why = text === undefined
        ? `${file}, which is not there (the branch checked out there has none; install-hooks does not add one), so commits made there are not guarded. Once the hook file is there, run "wave-scope install-hooks --git".`
        : `${file}, which has no Wave Scope commit guard${unfinishedChainNote(file)}: commits made there are not guarded (a worktree added since install-hooks last ran is not guarded until it runs again). Run "wave-scope install-hooks --git" to guard it.`;
      checks.push({ name: 'worktree', ok: false, worktree, detail: `the worktree ${worktree} runs its own pre-commit hook, ${why}${locked}` });
      continue;
    }
    const notRun = whyNotRun(preCommit);
    if (notRun !== undefined) {
      checks.push({ name: 'worktree', ok: false, worktree, detail: `the worktree ${worktree} runs its own pre-commit hook, ${file}, which holds the commit guard, but ${notRun}: commits made there are not guarded` });
      continue;
    }
    if (theirs === command) {
      checks.push({ name: 'worktree', ok: true, worktree, detail: `commit guard in ${file}, the worktree ${worktree}'s own pre-commit hook (the same command line, proved above)` });
      continue;
    }
    const probes = probeGuard(theirs, root, fixture, env);
    const failed = probes.filter((probe) => !probe.ok);
    checks.push({
      name: 'worktree',
      ok: failed.length === 0,
      worktree,
      detail: failed.length === 0
        ? `commit guard in ${file}, the worktree ${worktree}'s own pre-commit hook: a commit staging a file outside every scope is blocked, one inside goes through`
        : `the commit guard in ${file}, the worktree ${worktree}'s own pre-commit hook, does not work: ${failed.map((probe) => probe.detail).join('; ')}. Run "wave-scope install-hooks --git" to write it again.`,
    });
  }
  return checks;
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

function isWithin(root: string, path: string): boolean {
  const r = realOrSelf(root);
  const p = realOrSelf(path);
  return p === r || p.startsWith(`${r}/`);
}

function checkGit(root: string, writeRoot: string, fixture: string, env: NodeJS.ProcessEnv): DoctorResult {
  let preCommit: PreCommitHook;
  try {
    preCommit = preCommitHook(gitHooksDirectory(writeRoot).dir);
  } catch (error) {
    return { target: 'git', status: 'broken', file: writeRoot, checks: [{ name: 'installed', ok: false, detail: `git cannot say where its hooks are: ${(error as Error).message}` }] };
  }
  const hookFile = preCommit.file;
  const text = fileText(hookFile);
  const command = text === undefined ? undefined : guardCommand(text);
  if (command === undefined) {
    return { target: 'git', status: 'not-installed', file: hookFile, checks: [{ name: 'installed', ok: false, detail: `no Wave Scope commit guard in ${hookFile}${unfinishedChainNote(hookFile)}` }] };
  }
  const checks: DoctorCheck[] = [{ name: 'installed', ok: true, detail: `commit guard in ${hookFile}` }];
  const notRun = whyNotRun(preCommit);
  if (notRun !== undefined) checks.push({ name: 'runs', ok: false, detail: notRun });
  const badLauncher = launcherNotAFile(command, root);
  if (badLauncher !== undefined) return { target: 'git', status: 'broken', file: hookFile, command, checks: [...checks, notAFileCheck(badLauncher)] };
  checks.push(...probeGuard(command, root, fixture, env));
  checks.push(...checkOtherCheckouts(writeRoot, hookFile, command, root, fixture, env));
  return { target: 'git', status: checks.every((check) => check.ok) ? 'working' : 'broken', file: hookFile, command, checks };
}

/** Runs every probe. `root` is the coordinator's checkout, `writeRoot` the checkout whose git hooks are checked. */
export function runDoctor(options: { root: string; writeRoot: string; env: NodeJS.ProcessEnv; targets?: ReadonlyArray<AgentCli | 'git'> }): DoctorReport {
  const fixture = makeFixture();
  try {
    const targets = options.targets ?? [...AGENT_CLIS, 'git'];
    const results = targets.map((target) => (target === 'git' ? checkGit(options.root, options.writeRoot, fixture, options.env) : checkAgentCli(target, options.root, fixture, options.env)));
    return { version: 1, repository: options.root, results };
  } finally {
    rmSync(fixture, { recursive: true, force: true });
  }
}

