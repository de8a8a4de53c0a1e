// Wave Scope: Install Hooks, Uninstall Hooks, Verify Hooks. Each runs the bundled CLI in the folder's
// repository (a child process): the plan first (`install-hooks --dry-run --json`: which agent CLIs it
// detected, every file it would change with its whole text before and after), shown as one diff
// preview with the targets to choose (preselected from `waveScope.hooks.install`), then the change,
// then `wave-scope doctor --json` to prove the installed hooks work. The change is made with the plan the
// person confirmed (`--confirmed-plan -`): a file written by anyone while the preview was open makes the
// CLI refuse, writing nothing, rather than install something other than what was shown. Results go to the output channel,
// with a one-line summary and "Show details". Trusted workspaces only: they change agent settings and
// git hooks, and Verify runs the commands those files hold.
import * as vscode from 'vscode';
import type { InstallPlan } from '../../node/hookInstall';
import type { DoctorReport } from '../../node/hookDoctor';
import { jsonOf, runCli } from '../cliRunner';
import type { CliResult } from '../cliRunner';
import { HOOK_TARGET_LABELS, HOOK_TARGETS, isHookTarget } from '../hookTargets';
import type { HookTarget } from '../hookTargets';
import type { HookPreview } from '../hookPreview';
import { settings } from '../settings';
import type { CommandServices, WaveScopeCommand } from './command';
import { pickFolder } from './pickFolder';

/** What a caller (a test, a walkthrough) may pass instead of answering the pickers. */
export interface HookCommandOptions {
  /** The folder (its URI as a string); else the usual folder pick. */
  readonly folderUri?: string;
  /** The targets; `all` for every one installed (uninstall) or known. Else a pick. */
  readonly targets?: readonly HookTarget[] | 'all';
  /** Skip the confirmation (the preview still opens unless `preview` is false). */
  readonly confirm?: boolean;
  readonly preview?: boolean;
}

/** What Install Hooks and Uninstall Hooks return (tests read it). */
export interface HookCommandResult {
  readonly done: boolean;
  readonly plan: InstallPlan | undefined;
  readonly doctor: DoctorReport | undefined;
  readonly message: string;
}

function optionsOf(value: unknown): HookCommandOptions {
  if (typeof value !== 'object' || value === null || value instanceof vscode.Uri) return {};
  const raw = value as Record<string, unknown>;
  const targets = raw.targets === 'all' ? 'all' : Array.isArray(raw.targets) ? raw.targets.filter(isHookTarget) : undefined;
  return {
    ...(typeof raw.folderUri === 'string' ? { folderUri: raw.folderUri } : {}),
    ...(targets !== undefined ? { targets } : {}),
    ...(typeof raw.confirm === 'boolean' ? { confirm: raw.confirm } : {}),
    ...(typeof raw.preview === 'boolean' ? { preview: raw.preview } : {}),
  };
}

async function folderOf(hint: unknown, options: HookCommandOptions): Promise<vscode.WorkspaceFolder | undefined> {
  if (options.folderUri !== undefined) {
    const folder = (vscode.workspace.workspaceFolders ?? []).find((item) => item.uri.toString() === options.folderUri);
    if (folder) return folder;
  }
  return pickFolder(hint instanceof vscode.Uri ? hint : undefined);
}

function flagsOf(targets: readonly HookTarget[]): string[] {
  return targets.map((target) => `--${target}`);
}

function labelOf(targets: readonly HookTarget[]): string {
  return targets.map((target) => HOOK_TARGET_LABELS[target]).join(', ');
}

function cliProblem(what: string, result: CliResult): string {
  return result.failure ?? (`${result.stderr}${result.stdout}`.trim() || `${what} exited ${result.code ?? '?'}`);
}

/** The CLI's plan for `args` (install or uninstall, dry run). */
async function planOf(services: CommandServices, root: string, args: readonly string[]): Promise<InstallPlan> {
  const result = await runCli(services.extensionUri.fsPath, root, ['install-hooks', ...args, '--dry-run', '--json']);
  const plan = jsonOf(result) as InstallPlan | undefined;
  if (plan === undefined || plan.version !== 1) throw new Error(cliProblem('install-hooks --dry-run --json', result));
  return plan;
}

/** Runs `doctor --json` for `targets` (every target when empty) and logs every check. */
export async function runDoctor(services: CommandServices, root: string, targets: readonly HookTarget[]): Promise<DoctorReport> {
  const result = await runCli(services.extensionUri.fsPath, root, ['doctor', ...flagsOf(targets), '--json']);
  const report = jsonOf(result) as DoctorReport | undefined;
  if (report === undefined || !Array.isArray((report as { results?: unknown }).results)) throw new Error(cliProblem('doctor --json', result));
  for (const item of report.results) {
    services.log.info(`doctor: ${HOOK_TARGET_LABELS[item.target]} ${item.status}${item.file ? ` (${item.file})` : ''}`);
    if (item.status !== 'not-installed') for (const check of item.checks) services.log.info(`  ${check.ok ? 'ok' : 'FAILED'} ${check.name}: ${check.detail}`);
  }
  return report;
}

/** One line for a person: every installed target and its state. */
export function doctorSummary(report: DoctorReport): string {
  const installed = report.results.filter((item) => item.status !== 'not-installed');
  if (installed.length === 0) return 'no Wave Scope hooks are installed';
  return installed.map((item) => `${HOOK_TARGET_LABELS[item.target]} ${item.status}`).join(', ');
}

async function announce(services: CommandServices, ok: boolean, message: string): Promise<void> {
  const show = ok ? vscode.window.showInformationMessage : vscode.window.showErrorMessage;
  const answer = await show(`Wave Scope: ${message}`, 'Show details');
  if (answer === 'Show details') services.log.show();
}

/** A problem of the plan as the CLI words it (what stopped the run, how to go on), else its reason and path. */
function problemText(problem: InstallPlan['problems'][number] & { readonly message?: unknown }): string {
  return typeof problem.message === 'string' && problem.message !== '' ? problem.message : `${problem.reason} (${vscode.workspace.asRelativePath(problem.path)})`;
}

function logPlan(services: CommandServices, plan: InstallPlan): void {
  services.log.info(`${plan.mode} plan for ${plan.repository}: detected ${plan.detected.map((item) => `${item.agentCli} (${item.evidence.join(', ')})`).join('; ') || 'no agent CLI'}`);
  for (const change of plan.changes) {
    const target = change.renameTo ?? change.linkTo;
    services.log.info(`  would ${change.action} ${change.path}${target !== undefined ? ` → ${target}` : ''}`);
  }
  for (const note of plan.notes) services.log.warn(`  ${note}`);
  for (const problem of plan.problems) services.log.error(`  ${problem.reason}: ${problem.path}${problem.detail ? ` (${problem.detail})` : ''}`);
}

/** The targets to install: the caller's, else a pick preselected from the setting and what was detected. */
async function chooseTargets(options: HookCommandOptions, detected: readonly HookTarget[], preselected: readonly HookTarget[], title: string): Promise<HookTarget[] | undefined> {
  if (options.targets === 'all') return [...HOOK_TARGETS];
  if (options.targets !== undefined) return [...options.targets];
  const items = HOOK_TARGETS.map((target) => ({
    label: HOOK_TARGET_LABELS[target],
    description: detected.includes(target) ? 'detected' : undefined,
    picked: preselected.includes(target),
    target,
  }));
  const picked = await vscode.window.showQuickPick(items, { canPickMany: true, title, placeHolder: 'The agent CLIs (and git) to change' });
  return picked?.map((item) => item.target);
}

async function previewAndConfirm(preview: HookPreview, options: HookCommandOptions, plan: InstallPlan, verb: string, targets: readonly HookTarget[]): Promise<boolean> {
  if (options.preview !== false) await preview.show(`Wave Scope: ${verb} Hooks (preview)`, plan.changes);
  if (options.confirm === true) return true;
  // The CLI's notes say what the person should know before confirming: a tracked hook file that each linked
  // worktree will show as modified, a worktree left alone (locked, gone, without the hook file).
  const changes = plan.changes.map((change) => `${change.action} ${vscode.workspace.asRelativePath(change.path)}`).join('\n');
  const detail = plan.notes.length > 0 ? `${changes}\n\n${plan.notes.join('\n\n')}` : changes;
  const answer = await vscode.window.showInformationMessage(
    `${verb} Wave Scope hooks for ${labelOf(targets)}? ${plan.changes.length} file${plan.changes.length === 1 ? '' : 's'} change (see the preview).`,
    { modal: true, detail },
    verb,
  );
  return answer === verb;
}

function requireTrust(what: string): boolean {
  if (vscode.workspace.isTrusted) return true;
  void vscode.window.showWarningMessage(`Wave Scope: ${what} changes or runs agent hooks; trust this workspace first.`);
  return false;
}

async function rootOf(services: CommandServices, folder: vscode.WorkspaceFolder): Promise<string> {
  const plan = await services.plans.get(folder);
  if (!plan.repoRoot) throw new Error(`${folder.name} is not inside a git repository`);
  return plan.repoRoot;
}

/** The preview service the hook commands show their plans in (set by activate). */
export const hookPreviewHolder: { preview: HookPreview | undefined } = { preview: undefined };

export const installHooks: WaveScopeCommand = {
  id: 'waveScope.installHooks',
  name: 'Install Hooks',
  async run(services, hint) {
    if (!requireTrust('Install Hooks')) return undefined;
    const options = optionsOf(hint);
    const folder = await folderOf(hint, options);
    if (!folder) return undefined;
    const root = await rootOf(services, folder);
    // The plan without target flags says which agent CLIs the repository uses.
    const probe = await planOf(services, root, []);
    const detected: HookTarget[] = probe.detected.map((item) => item.agentCli);
    const wanted = settings.hookTargets(folder.uri);
    const preselected = HOOK_TARGETS.filter((target) => wanted.includes(target) || (wanted.includes('detected') && detected.includes(target)));
    const targets = await chooseTargets(options, detected, preselected, 'Wave Scope: Install Hooks');
    if (!targets || targets.length === 0) return undefined;
    const plan = await planOf(services, root, flagsOf(targets));
    logPlan(services, plan);
    if (plan.problems.length > 0) {
      const message = `nothing was installed: ${plan.problems.map(problemText).join(' ')}`;
      void announce(services, false, message);
      return { done: false, plan, doctor: undefined, message } satisfies HookCommandResult;
    }
    if (plan.changes.length === 0) {
      const doctor = await runDoctor(services, root, targets);
      const message = `the hooks for ${labelOf(targets)} are already installed; ${doctorSummary(doctor)}`;
      void announce(services, !doctor.results.some((item) => item.status === 'broken'), message);
      return { done: true, plan, doctor, message } satisfies HookCommandResult;
    }
    const preview = hookPreviewHolder.preview;
    if (preview && !(await previewAndConfirm(preview, options, plan, 'Install', targets))) return undefined;
    const installed = await runCli(services.extensionUri.fsPath, root, ['install-hooks', ...flagsOf(targets), '--confirmed-plan', '-'], {}, JSON.stringify(plan));
    services.log.info(`install-hooks ${flagsOf(targets).join(' ')}:\n${`${installed.stdout}${installed.stderr}`.trim()}`);
    if (installed.code !== 0) {
      const message = `Install Hooks failed: ${cliProblem('install-hooks', installed)}`;
      void announce(services, false, message);
      return { done: false, plan, doctor: undefined, message } satisfies HookCommandResult;
    }
    const doctor = await runDoctor(services, root, targets);
    const broken = doctor.results.some((item) => item.status === 'broken');
    const message = `installed hooks for ${labelOf(targets)} (${plan.changes.length} file${plan.changes.length === 1 ? '' : 's'}); ${doctorSummary(doctor)}`;
    void announce(services, !broken, message);
    return { done: true, plan, doctor, message } satisfies HookCommandResult;
  },
};

export const uninstallHooks: WaveScopeCommand = {
  id: 'waveScope.uninstallHooks',
  name: 'Uninstall Hooks',
  async run(services, hint) {
    if (!requireTrust('Uninstall Hooks')) return undefined;
    const options = optionsOf(hint);
    const folder = await folderOf(hint, options);
    if (!folder) return undefined;
    const root = await rootOf(services, folder);
    const before = await runDoctor(services, root, []);
    const installed: HookTarget[] = before.results.filter((item) => item.status !== 'not-installed').map((item) => item.target);
    const targets = options.targets === 'all' ? installed : await chooseTargets(options, [], installed, 'Wave Scope: Uninstall Hooks');
    if (!targets) return undefined;
    // Everything installed: no target flags, so the launcher goes too.
    const everything = installed.every((target) => targets.includes(target));
    const flags = everything ? [] : flagsOf(targets);
    const plan = await planOf(services, root, ['--uninstall', ...flags]);
    logPlan(services, plan);
    if (plan.problems.length > 0) {
      const message = `nothing was removed: ${plan.problems.map(problemText).join(' ')}`;
      void announce(services, false, message);
      return { done: false, plan, doctor: before, message } satisfies HookCommandResult;
    }
    if (plan.changes.length === 0) {
      const message = 'no Wave Scope hooks to remove';
      void announce(services, true, message);
      return { done: true, plan, doctor: before, message } satisfies HookCommandResult;
    }
    const preview = hookPreviewHolder.preview;
    if (preview && !(await previewAndConfirm(preview, options, plan, 'Uninstall', targets.length > 0 ? targets : installed))) return undefined;
    const removed = await runCli(services.extensionUri.fsPath, root, ['install-hooks', '--uninstall', ...flags, '--confirmed-plan', '-'], {}, JSON.stringify(plan));
    services.log.info(`install-hooks --uninstall ${flags.join(' ')}:\n${`${removed.stdout}${removed.stderr}`.trim()}`);
    const ok = removed.code === 0;
    const message = ok ? `removed Wave Scope's hooks (${plan.changes.length} file${plan.changes.length === 1 ? '' : 's'}); nothing else changed` : `Uninstall Hooks failed: ${cliProblem('install-hooks --uninstall', removed)}`;
    void announce(services, ok, message);
    return { done: ok, plan, doctor: undefined, message } satisfies HookCommandResult;
  },
};

export const verifyHooks: WaveScopeCommand = {
  id: 'waveScope.verifyHooks',
  name: 'Verify Hooks',
  async run(services, hint) {
    if (!requireTrust('Verify Hooks')) return undefined;
    const options = optionsOf(hint);
    const folder = await folderOf(hint, options);
    if (!folder) return undefined;
    const root = await rootOf(services, folder);
    const targets = Array.isArray(options.targets) ? options.targets : [];
    const report = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'Wave Scope: verifying the hooks' },
      () => runDoctor(services, root, targets),
    );
    const broken = report.results.some((item) => item.status === 'broken');
    void announce(services, !broken, `hooks: ${doctorSummary(report)}`);
    return report;
  },
};
