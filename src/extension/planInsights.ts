// What the editor knows of each folder's plan: the analysis of the planner's draft (or the plan on
// disk) from the plan worker (owners, contested files, collisions with their narrowings, coordinator
// files, problems of the declaration files and the manifest), and which agents are in flight, from
// the bundled CLI's `ledger show --json`. Recomputed after a quiet period whenever the plan on disk,
// the files, the planner's draft, the ledgers or a setting change; the marks (problems, badges,
// status bar) listen to onDidChange. Nothing here runs on the extension host's thread for long: the
// analysis runs in the worker, the ledger in a child process.
import * as vscode from 'vscode';
import { agentActivities } from '../planner/dispatch/agentActivity';
import type { AgentActivityReport } from '../planner/dispatch/agentActivity';
import { ORCHESTRATOR_DIR_NAME } from '../planner/plan/stateDirNames';
import { jsonOf, runCli } from './cliRunner';
import type { FolderPlan } from './folderPlan';
import type { FolderPlans } from './folderPlans';
import type { Log } from './log';
import type { OwnershipClaim } from '../planner/plan/waveOwnership';
import type { PlanInsightData } from './planWork';
import type { PlanWorker } from './planWorker';
import { affectsMarks, settings } from './settings';

/** Quiet period before a folder is analysed again (ms): a save writes several files, typing changes the draft often. */
const INSIGHT_SETTLE_MS = 200;
/** While an agent is in flight, how often its liveness (read from the session transcript) is read again (ms). */
const ACTIVITY_POLL_MS = 5_000;

/** One folder's insight. */
export interface FolderInsight {
  readonly folder: vscode.WorkspaceFolder;
  /** The folder's plan; its uriOf gives the URI of a path of `data` (repository-relative) as the folder shows it. */
  readonly plan: FolderPlan;
  readonly data: PlanInsightData;
  /** Every folder's agents, in flight or finished, from the dispatch ledgers. */
  readonly activity: AgentActivityReport;
  /** Increases with every new analysis (tests wait on it). */
  readonly generation: number;
  /** The files analysed (repository-relative). */
  readonly files: ReadonlySet<string>;
  /** File → its owners in the active wave. */
  readonly owners: ReadonlyMap<string, readonly OwnershipClaim[]>;
}

const NO_ACTIVITY: AgentActivityReport = { activities: [], nextExpiry: undefined, problems: [] };

interface FolderState {
  insight: FolderInsight | undefined;
  timer: ReturnType<typeof setTimeout> | undefined;
  activityTimer: ReturnType<typeof setTimeout> | undefined;
  activity: AgentActivityReport;
  running: Promise<void> | undefined;
  again: boolean;
  watcher: vscode.FileSystemWatcher | undefined;
}

export class PlanInsights implements vscode.Disposable {
  private readonly states = new Map<string, FolderState>();
  private readonly changed = new vscode.EventEmitter<FolderInsight>();
  private readonly disposables: vscode.Disposable[] = [this.changed];
  private generation = 0;
  private disposed = false;
  /** How many times the ledgers were read, and why the last read found no document (tests read it). */
  readonly activityReads = { count: 0, lastProblem: undefined as string | undefined };
  /** A folder's analysis (or activity) changed. */
  readonly onDidChange = this.changed.event;

  constructor(
    private readonly plans: FolderPlans,
    private readonly worker: PlanWorker,
    private readonly extensionPath: string,
    private readonly log: Log,
  ) {
    this.disposables.push(
      plans.onDidChangeDiskPlan((plan) => this.schedule(plan.folder)),
      plans.onDidChangeFiles((plan) => this.schedule(plan.folder)),
      plans.onDidForgetFolder((folder) => this.forget(folder)),
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (affectsMarks(event)) for (const folder of vscode.workspace.workspaceFolders ?? []) this.schedule(folder);
      }),
      vscode.workspace.onDidGrantWorkspaceTrust(() => {
        for (const folder of vscode.workspace.workspaceFolders ?? []) this.refreshActivity(folder);
      }),
    );
  }

  /** Every folder's latest insight. */
  all(): FolderInsight[] {
    return [...this.states.values()].flatMap((state) => (state.insight ? [state.insight] : []));
  }

  /** The latest insight of `folder`, if it was analysed. */
  of(folder: vscode.WorkspaceFolder): FolderInsight | undefined {
    return this.states.get(folder.uri.toString())?.insight;
  }

  /** The insight whose repository holds `uri`, with the file's repository-relative path. */
  forUri(uri: vscode.Uri): { insight: FolderInsight; path: string } | undefined {
    for (const insight of this.all()) {
      const path = insight.plan.relativePath(uri);
      if (path !== undefined) return { insight, path };
    }
    return undefined;
  }

  /** Starts watching `folder` and analyses it (after the quiet period). */
  track(folder: vscode.WorkspaceFolder): void {
    this.schedule(folder, 0);
    this.refreshActivity(folder);
  }

  /** Analyses `folder` again after the quiet period (the planner's draft changed, a setting changed). */
  schedule(folder: vscode.WorkspaceFolder, delay = INSIGHT_SETTLE_MS): void {
    if (this.disposed) return;
    const state = this.state(folder);
    if (state.timer) clearTimeout(state.timer);
    state.timer = setTimeout(() => {
      state.timer = undefined;
      void this.analyse(folder, state);
    }, delay);
  }

  /** Analyses `folder` now and resolves with the new insight (commands and tests use it). */
  async refresh(folder: vscode.WorkspaceFolder): Promise<FolderInsight | undefined> {
    const state = this.state(folder);
    if (state.timer) clearTimeout(state.timer);
    state.timer = undefined;
    await this.analyse(folder, state);
    // A run that was already under way ran with older input: it ran again, wait for that too.
    while (state.running) await state.running;
    return state.insight;
  }

  /** Reads the dispatch ledgers of `folder` again (`ledger show --json`). */
  refreshActivity(folder: vscode.WorkspaceFolder): Promise<void> {
    return this.readActivity(folder, this.state(folder));
  }

  dispose(): void {
    this.disposed = true;
    for (const state of this.states.values()) this.stop(state);
    this.states.clear();
    for (const disposable of this.disposables.splice(0)) disposable.dispose();
  }

  // ---- internals ---------------------------------------------------------------------------------

  private state(folder: vscode.WorkspaceFolder): FolderState {
    const key = folder.uri.toString();
    let state = this.states.get(key);
    if (!state) {
      state = { insight: undefined, timer: undefined, activityTimer: undefined, activity: NO_ACTIVITY, running: undefined, again: false, watcher: undefined };
      this.states.set(key, state);
      const created = state;
      // The ledgers live under .orchestrator/ of the checkout; any change there may move a lane. The
      // directory itself too: a file written right after its directory is created can come before the
      // watcher sees the new directory, and its own event is then lost.
      const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(folder, `{${ORCHESTRATOR_DIR_NAME},${ORCHESTRATOR_DIR_NAME}/*.json}`));
      const poke = () => void this.readActivity(folder, created);
      watcher.onDidCreate(poke);
      watcher.onDidChange(poke);
      watcher.onDidDelete(poke);
      state.watcher = watcher;
    }
    return state;
  }

  private forget(folder: vscode.WorkspaceFolder): void {
    const key = folder.uri.toString();
    const state = this.states.get(key);
    if (!state) return;
    this.stop(state);
    this.states.delete(key);
  }

  private stop(state: FolderState): void {
    if (state.timer) clearTimeout(state.timer);
    if (state.activityTimer) clearTimeout(state.activityTimer);
    state.timer = undefined;
    state.activityTimer = undefined;
    state.watcher?.dispose();
  }

  private analyse(folder: vscode.WorkspaceFolder, state: FolderState): Promise<void> {
    if (state.running) {
      state.again = true;
      return state.running;
    }
    const run = this.analyseOnce(folder, state)
      .catch((error: unknown) => this.log.quietFailure(`analysing the plan of ${folder.name}`, error))
      .finally(() => {
        state.running = undefined;
        if (state.again && !this.disposed) {
          state.again = false;
          void this.analyse(folder, state);
        }
      });
    state.running = run;
    return run;
  }

  private async analyseOnce(folder: vscode.WorkspaceFolder, state: FolderState): Promise<void> {
    const plan = await this.plans.get(folder);
    if (!plan.repoRoot || this.disposed) return;
    const record = await plan.drafts.read();
    const files = await plan.files();
    const data = await this.worker.run('insight', {
      repoRoot: plan.repoRoot,
      // The planner's unsaved draft is what the user sees; otherwise the plan on disk, read in the worker.
      draft: record?.dirty ? record.draft : undefined,
      remembered: plan.drafts.look(),
      files,
      ignoreCase: plan.ignoreCase,
      draftWaves: settings.draftWaves(),
    });
    if (this.disposed || this.states.get(folder.uri.toString()) !== state) return;
    this.generation += 1;
    const owners = new Map(data.waves.find((wave) => wave.active)?.owners ?? []);
    state.insight = { folder, plan, data, activity: state.activity, generation: this.generation, files: new Set(files), owners };
    this.changed.fire(state.insight);
  }

  private async readActivity(folder: vscode.WorkspaceFolder, state: FolderState): Promise<void> {
    if (state.activityTimer) clearTimeout(state.activityTimer);
    state.activityTimer = undefined;
    // `ledger show` reads files an agent can write: only in a trusted workspace, like the hooks.
    if (this.disposed || !vscode.workspace.isTrusted) return;
    const plan = await this.plans.get(folder);
    if (!plan.repoRoot) return;
    // Every session's ledger: the editor is no session of its own.
    const result = await runCli(this.extensionPath, plan.repoRoot, ['ledger', 'show', '--json'], { CLAUDE_CODE_SESSION_ID: undefined });
    this.activityReads.count += 1;
    if (this.disposed || this.states.get(folder.uri.toString()) !== state) return;
    const document = jsonOf(result);
    this.activityReads.lastProblem = document === undefined ? `${result.code ?? result.failure}: ${result.stderr}` : undefined;
    const activity = document === undefined ? { ...NO_ACTIVITY, problems: [result.failure ?? (result.stderr.trim() || 'ledger show printed no document')] } : agentActivities(document);
    for (const problem of activity.problems) this.log.warn(`dispatch ledger of ${folder.name}: ${problem}`);
    state.activity = activity;
    if (state.insight) {
      this.generation += 1;
      state.insight = { ...state.insight, activity, generation: this.generation };
      this.changed.fire(state.insight);
    }
    // Liveness comes from the session transcript, which no watcher here sees: read again while anything runs.
    const inFlight = activity.activities.some((item) => item.state === 'in-flight');
    if (inFlight || activity.nextExpiry !== undefined) {
      const wait = activity.nextExpiry !== undefined ? Math.min(ACTIVITY_POLL_MS, Math.max(250, activity.nextExpiry - Date.now())) : ACTIVITY_POLL_MS;
      state.activityTimer = setTimeout(() => void this.readActivity(folder, state), wait);
    }
  }
}
