// The planner panels: one per workspace folder, always. A panel VS Code restores after a reload wins
// over one the extension opened meanwhile (open-on-startup can race the restore): the extension's own
// is closed, the restored one adopted. Also the services every panel calls (ready, save, draft
// changes), and keeping the Explorer's contested marks in step with the planner or, without one, with
// the plan on disk.
import * as vscode from 'vscode';
import type { ParamsOf } from '../protocol/ipc';
import type { DraftChangedCommand, EditorNarrowing, OverwriteChoice, PlanDraft, ReadyResult, SaveOutcome } from '../protocol/plannerProtocol';
import type { AgentActivityView } from '../protocol/plannerProtocol';
import { DidChangeAgentActivityNotification, DidChangeClaimsNotification, DidChangeFilesNotification, DidChangeTrustNotification, DidLoadPlanNotification, DidNarrowNotification, planAsSaved } from '../protocol/plannerProtocol';
import { listedFileToOpen } from '../node/listedFile';
import type { DraftValidation } from '../planner/plan/draftSave';
import type { ContestedDecorations } from './contestedDecorations';
import type { FolderPlan } from './folderPlan';
import type { FolderPlans } from './folderPlans';
import type { Log } from './log';
import type { PlanWorker } from './planWorker';
import { controlFilesAmong, describeClaimRefusal, draftClaims, plannedStateDir, readRepositoryClaims } from './plannerFacts';
import type { DraftClaims } from './plannerFacts';
import { PLANNER_VIEW_TYPE, PlannerPanel, plannerTitle } from './plannerPanel';
import type { PlannerPanelServices } from './plannerPanel';
import { affectsPlanReading } from './settings';

/** Which entry of which agent a Narrow replaced, and the files it keeps (EditorNarrowing without its save). */
export type NarrowedEntry = Pick<EditorNarrowing, 'wave' | 'agentId' | 'entry' | 'files'>;

/** How long the webview waits for the answer to a save (ms); WAVE_SCOPE_PLANNER_REQUEST_TIMEOUT_MS overrides it. */
const REQUEST_TIMEOUT_MS = 60_000;

function requestTimeoutMs(): number {
  const configured = Number(process.env.WAVE_SCOPE_PLANNER_REQUEST_TIMEOUT_MS);
  return Number.isFinite(configured) && configured > 0 ? configured : REQUEST_TIMEOUT_MS;
}

/** The URIs under which the folder shows repository-relative files (its Explorer's, for the badges). */
function shownUris(plan: FolderPlan, paths: readonly string[]): vscode.Uri[] {
  return paths.flatMap((path) => plan.uriOf(path) ?? []);
}

/**
 * The folder a restored planner belongs to: the one its persisted state names, else the one its tab
 * title names (the state can lag behind: a browser reload does not wait for it), else the only folder.
 */
function restoredFolder(webviewPanel: vscode.WebviewPanel, state: unknown): vscode.WorkspaceFolder | undefined {
  const folders = vscode.workspace.workspaceFolders ?? [];
  const folderUri = typeof state === 'object' && state !== null ? (state as { folderUri?: unknown }).folderUri : undefined;
  return (
    folders.find((item) => item.uri.toString() === folderUri) ??
    folders.find((item) => plannerTitle(item) === webviewPanel.title) ??
    (folders.length === 1 ? folders[0] : undefined)
  );
}

export class PlannerPanels implements PlannerPanelServices, vscode.Disposable {
  private readonly panels = new Map<string, PlannerPanel>();
  private readonly disposables: vscode.Disposable[] = [];
  /** Timings the planner webviews reported, newest last. */
  readonly timings: { name: string; milliseconds: number }[] = [];
  private readonly draftChangedEmitter = new vscode.EventEmitter<vscode.WorkspaceFolder>();
  /** A planner's draft changed (the editor's marks follow it). */
  readonly onDidChangeDraft = this.draftChangedEmitter.event;
  /** What the lanes show of the dispatch ledgers (set by activate: PlanInsights knows it). */
  activityOf: (folder: vscode.WorkspaceFolder) => AgentActivityView[] = () => [];
  /** Per folder: the claims view last read (this clone's copy of the plan ref) and what the planner was last told. */
  private readonly claims = new Map<string, { read: ReturnType<typeof readRepositoryClaims>; sent: string }>();

  constructor(
    private readonly extensionUri: vscode.Uri,
    readonly log: Log,
    private readonly plans: FolderPlans,
    private readonly decorations: ContestedDecorations,
    private readonly worker: PlanWorker,
  ) {
    this.disposables.push(
      this.draftChangedEmitter,
      plans.onDidChangeDiskPlan((plan) => this.diskPlanChanged(plan)),
      plans.onDidChangeFiles((plan) => void this.filesChanged(plan)),
      plans.onDidForgetFolder((folder) => {
        this.panelFor(folder)?.close();
        // Its ⚠ marks are keyed by the URIs it showed: nothing else would replace them.
        decorations.setContested(folder.uri, []);
      }),
      // The plan on disk is read from the state directory one setting names and with the case rule another
      // gives (FolderPlan.diskPlan, FolderPlan.ignoreCase): a change of either is a new plan on disk, reloaded
      // as a change of its files is (an unsaved draft is kept).
      vscode.workspace.onDidChangeConfiguration((event) => {
        for (const folder of vscode.workspace.workspaceFolders ?? []) {
          if (!plans.watchersOf(folder) || !affectsPlanReading(event, folder.uri)) continue;
          plans.get(folder).then(
            (plan) => this.planReadingChanged(plan),
            (error: unknown) => this.log.quietFailure(`reading the plan of ${folder.name}`, error),
          );
        }
      }),
      vscode.workspace.onDidGrantWorkspaceTrust(() => {
        for (const panel of this.panels.values()) panel.notify(DidChangeTrustNotification, { trusted: true });
      }),
    );
  }

  /** The open planner of a folder, if any. */
  panelFor(folder: vscode.WorkspaceFolder): PlannerPanel | undefined {
    return this.panels.get(folder.uri.toString());
  }

  /** Opens (or reveals) the planner of `folder`. */
  open(folder: vscode.WorkspaceFolder): PlannerPanel {
    const existing = this.panelFor(folder);
    if (existing) {
      existing.reveal();
      return existing;
    }
    const webviewPanel = vscode.window.createWebviewPanel(PLANNER_VIEW_TYPE, plannerTitle(folder), vscode.ViewColumn.Active, {
      enableScripts: true,
      retainContextWhenHidden: true,
      localResourceRoots: [vscode.Uri.joinPath(this.extensionUri, 'media')],
    });
    return this.track(new PlannerPanel(webviewPanel, folder, false, this.extensionUri, this));
  }

  /**
   * Takes over a panel VS Code restored (the serializer). One planner per folder: a panel the
   * extension opened meanwhile gives way to the restored one; a second restored panel of the same
   * folder (left over from a window that had two) is closed.
   */
  adoptRestored(webviewPanel: vscode.WebviewPanel, state: unknown): void {
    const folder = restoredFolder(webviewPanel, state);
    if (!folder) {
      this.log.info(`closed a restored planner "${webviewPanel.title}" whose folder is not in this workspace`);
      webviewPanel.dispose();
      return;
    }
    const existing = this.panelFor(folder);
    if (existing?.restored) {
      this.log.info(`closed a second restored planner of ${folder.name}`);
      webviewPanel.dispose();
      existing.reveal();
      return;
    }
    this.track(new PlannerPanel(webviewPanel, folder, true, this.extensionUri, this));
    if (existing) {
      this.log.info(`the restored planner of ${folder.name} replaces the one opened meanwhile`);
      existing.close();
    }
  }

  /** Whether a planner tab of `folder` is open, restored or not yet (VS Code restores background tabs when shown). */
  hasPlannerTab(folder: vscode.WorkspaceFolder): boolean {
    if (this.panelFor(folder)) return true;
    const title = plannerTitle(folder);
    return vscode.window.tabGroups.all.some((group) =>
      group.tabs.some((tab) => tab.input instanceof vscode.TabInputWebview && tab.input.viewType.endsWith(PLANNER_VIEW_TYPE) && tab.label === title),
    );
  }

  /** Without an open planner, the Explorer shows what the plan on disk contests in its active wave. */
  /** Proves a draft disjoint, wave by wave, in the plan worker (a large plan takes long on the host's thread). */
  validate(draft: PlanDraft, files: readonly string[], ignoreCase: boolean): Promise<DraftValidation> {
    return this.worker.run('validate', { draft, files, ignoreCase });
  }

  async showDiskContested(plan: FolderPlan): Promise<void> {
    if (!plan.repoRoot || this.panelFor(plan.folder)) return;
    const draft = await plan.currentDraft(undefined);
    const validation = await this.validate(draft, await plan.files(), plan.ignoreCase);
    const wave = draft.activeWave ?? draft.waves[0]?.wave;
    const contested = validation.waves.find((item) => item.wave === wave)?.contested ?? [];
    // A planner that opened meanwhile marks its own draft's contested files.
    if (this.panelFor(plan.folder)) return;
    plan.contested = contested;
    this.decorations.setContested(plan.folder.uri, shownUris(plan, contested));
  }

  // ---- PlannerPanelServices ----------------------------------------------------------------------

  async ready(folder: vscode.WorkspaceFolder): Promise<ReadyResult> {
    const plan = await this.plans.get(folder);
    const started = Date.now();
    const files = await plan.files();
    const { plan: diskPlan, problem } = plan.diskPlan();
    const kept = await plan.drafts.read();
    const controlFiles = plan.repoRoot ? controlFilesAmong(files, { ignoreCase: plan.ignoreCase, stateDir: this.stateDirOf(folder, plan.repoRoot) }) : [];
    this.log.info(`planner ready for ${folder.name}: ${files.length} files, ${diskPlan.waves.length} waves on disk, ${Date.now() - started} ms`);
    // Other clones' claims come after the answer (reading them runs git): the notification waits for it.
    this.claims.delete(folder.uri.toString());
    setTimeout(() => void this.refreshClaims(plan, kept?.dirty ? kept.draft : diskPlan), 0);
    return {
      folderName: folder.name,
      folderUri: folder.uri.toString(),
      dropRoots: plan.roots().map((root) => ({ uri: root.uri.toString(), repoRelative: root.repoRelative })),
      files,
      ignoreCase: plan.ignoreCase,
      diskPlan,
      keptDraft: kept && { draft: kept.draft, dirty: kept.dirty, updatedAt: kept.updatedAt, base: kept.base },
      trusted: vscode.workspace.isTrusted,
      diskProblem: problem,
      requestTimeoutMs: requestTimeoutMs(),
      controlFiles,
      absoluteRoots: plan.roots().map((root) => ({ path: root.path, repoRelative: root.repoRelative })),
    };
  }

  /**
   * Saves `draft` over the plan on disk; `base` is the plan on disk it was edited from (a wave written on
   * disk since is kept, one changed since refuses the save: see SaveDraftOptions.base), undefined when not
   * known; `overwrite` names the changed waves and the manifest's wave the person chose to write over
   * (SaveDraftOptions.overwrite and overwriteManifest).
   */
  async save(folder: vscode.WorkspaceFolder, draft: PlanDraft, base: PlanDraft | undefined, overwrite?: OverwriteChoice): Promise<SaveOutcome> {
    const plan = await this.plans.get(folder);
    if (!vscode.workspace.isTrusted) {
      return { ok: false, message: 'Saving writes declarations: trust this workspace first (Restricted mode only plans).', collisions: [] };
    }
    if (!plan.repoRoot) return { ok: false, message: `${folder.name} is not inside a git repository.`, collisions: [] };
    const stateDirName = vscode.workspace.getConfiguration('waveScope.plan', folder.uri).get<string>('stateDirectory', 'auto');
    const files = await plan.files();
    // Like a local collision: a wave that overlaps another clone's live claim is not saved (read fresh).
    const claims = this.readClaims(plan, files, draft, true);
    if (claims && claims.conflicts.length > 0) {
      this.sendClaims(plan, claims);
      const message = describeClaimRefusal(claims.conflicts);
      this.log.info(`save ${folder.name}: ${message}`);
      return { ok: false, step: 'claims', message, collisions: [], claimConflicts: claims.conflicts };
    }
    const work = { repoRoot: plan.repoRoot, draft, ignoreCase: plan.ignoreCase, files, stateDirName: stateDirName === 'auto' ? undefined : stateDirName, base, overwrite: overwrite?.overwrite, overwriteManifest: overwrite?.overwriteManifest };
    // Saving a large plan spends seconds in fsync: in the plan worker, with progress once it takes a while.
    const saving = this.worker.run('save', work);
    let settled = false;
    void saving.finally(() => (settled = true)).catch(() => undefined);
    const slow = setTimeout(() => {
      if (settled) return;
      void vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Wave Scope: saving the plan of ${folder.name}` }, () => saving.catch(() => undefined));
    }, 1000);
    let outcome: SaveOutcome;
    try {
      outcome = await saving;
    } finally {
      clearTimeout(slow);
    }
    this.log.info(`save ${folder.name}: ${outcome.message}`);
    if (outcome.ok) {
      // The disk is the saved draft now, whoever saved it: the base of the open planner's next palette save.
      const saved = planAsSaved(draft, base, outcome);
      const panel = this.panelFor(folder);
      if (panel) panel.latestBase = saved;
      await plan.drafts.write({ draft, dirty: false, updatedAt: Date.now(), base: saved });
    }
    // Refused for changes on disk the watcher may not have reported yet: an open planner gets the plan on
    // disk now, so loading it from there loads what the refusal described.
    else if (outcome.step === 'stale') this.diskPlanChanged(plan);
    return outcome;
  }

  /**
   * The plan on disk the draft palette commands act on was edited from: the open planner's, else the kept
   * draft's (see FolderPlan.currentDraft); undefined when neither says.
   */
  async baseOf(folder: vscode.WorkspaceFolder): Promise<PlanDraft | undefined> {
    const panel = this.panelFor(folder);
    if (panel?.latestDraft) return panel.latestBase;
    const plan = await this.plans.get(folder);
    const kept = await plan.drafts.read();
    return kept?.dirty ? kept.base : undefined;
  }

  /**
   * Saves the draft a Narrow from the editor made (`change` made on it); `base` is the plan on disk the draft
   * it changed was edited from (baseOf when it was made). `overwrite` as for save. A saved narrowing is made
   * on the open planner's draft too (DidNarrowNotification), which keeps its unsaved edits; a refused one
   * leaves the planner alone until the person chooses Open Planner (openOnRefusedNarrowing).
   */
  async saveNarrowing(folder: vscode.WorkspaceFolder, change: NarrowedEntry, draft: PlanDraft, base: PlanDraft | undefined, overwrite?: OverwriteChoice): Promise<SaveOutcome> {
    const outcome = await this.save(folder, draft, base, overwrite);
    if (outcome.ok) this.panelFor(folder)?.notify(DidNarrowNotification, { ...change, narrowed: draft, base, outcome });
    this.draftChangedEmitter.fire(folder);
    return outcome;
  }

  /**
   * Opens (or shows) the planner of `folder` from the message of a Narrow whose save was refused (step
   * `stale`), and hands it the narrowing, so it is not lost: the planner makes it on the draft it shows
   * (see DidNarrowNotification). A draft with no unsaved edits (the plan on disk) gives way to the narrowed
   * draft, with the base it was made from and the refusal; an unsaved draft, the planner's or the one kept
   * for the folder, edited before or after the Narrow, gets the narrowing as one edit, keeping its own; a
   * draft that no longer has the narrowed entry is replaced only if the person says so.
   */
  openOnRefusedNarrowing(folder: vscode.WorkspaceFolder, narrowing: EditorNarrowing): PlannerPanel {
    const panel = this.open(folder);
    panel.notify(DidNarrowNotification, narrowing);
    return panel;
  }

  /** Tells every open planner of `folder` which agents are in flight. */
  showActivity(folder: vscode.WorkspaceFolder): void {
    this.panelFor(folder)?.notify(DidChangeAgentActivityNotification, { agents: this.activityOf(folder) });
  }

  async draftChanged(folder: vscode.WorkspaceFolder, change: ParamsOf<typeof DraftChangedCommand>): Promise<void> {
    const plan = await this.plans.get(folder);
    plan.contested = change.contested;
    if (plan.repoRoot) this.decorations.setContested(plan.folder.uri, shownUris(plan, change.contested));
    await plan.drafts.write({ draft: change.draft, dirty: change.dirty, updatedAt: change.updatedAt, base: change.base });
    this.draftChangedEmitter.fire(folder);
    const claims = this.readClaims(plan, await plan.files(), change.draft, false);
    if (claims) this.sendClaims(plan, claims);
  }

  async openFile(folder: vscode.WorkspaceFolder, path: string): Promise<void> {
    const plan = await this.plans.get(folder);
    if (!plan.repoRoot) return;
    const target = listedFileToOpen(plan.repoRoot, path, await plan.files());
    if (target === undefined) {
      this.log.warn(`planner of ${folder.name}: did not open ${JSON.stringify(path)}, which is no listed file inside the repository`);
      return;
    }
    // Under the folder's own spelling (a linked folder's, as its Explorer shows it), where its marks are;
    // beside the planner, so the board stays in view.
    await vscode.window.showTextDocument(plan.uriOf(path) ?? vscode.Uri.file(target), { preview: true, viewColumn: vscode.ViewColumn.Beside });
  }

  timing(name: string, milliseconds: number): void {
    this.timings.push({ name, milliseconds });
    this.log.info(`timing ${name}: ${milliseconds.toFixed(1)} ms`);
  }

  /** Releases every panel's listeners and leaves the panels open (see PlannerPanel.release). */
  dispose(): void {
    for (const panel of this.panels.values()) panel.release();
    this.panels.clear();
    for (const disposable of this.disposables.splice(0)) disposable.dispose();
  }

  // ---- internals ---------------------------------------------------------------------------------

  /** The state directory a save of this folder writes to (repository-relative), for what counts as control state. */
  private stateDirOf(folder: vscode.WorkspaceFolder, repoRoot: string): string | undefined {
    const configured = vscode.workspace.getConfiguration('waveScope.plan', folder.uri).get<string>('stateDirectory', 'auto');
    try {
      return plannedStateDir(repoRoot, configured === 'auto' ? undefined : configured);
    } catch (error) {
      this.log.quietFailure(`resolving the state directory of ${folder.name}`, error);
      return undefined;
    }
  }

  /**
   * The draft's standing against other clones' claims: from the claims view read last (`fresh`: read it
   * now), never the network. Undefined outside a repository or when it cannot be read (logged).
   */
  private readClaims(plan: FolderPlan, files: readonly string[], draft: PlanDraft, fresh: boolean): DraftClaims | undefined {
    if (!plan.repoRoot) return undefined;
    const key = plan.folder.uri.toString();
    const now = Date.now();
    try {
      let cached = this.claims.get(key);
      if (fresh || !cached) {
        cached = { read: readRepositoryClaims(plan.repoRoot, { ignoreCase: plan.ignoreCase, files, now }), sent: cached?.sent ?? '' };
        this.claims.set(key, cached);
      }
      return draftClaims(draft, cached.read, { ignoreCase: plan.ignoreCase, files, now });
    } catch (error) {
      this.log.quietFailure(`reading other clones' claims for ${plan.folder.name}`, error);
      return undefined;
    }
  }

  /** Tells the folder's planner about claims and overlaps, when they changed since it was last told. */
  private sendClaims(plan: FolderPlan, claims: DraftClaims): void {
    const entry = this.claims.get(plan.folder.uri.toString());
    const text = JSON.stringify(claims);
    if (entry && entry.sent === text) return;
    if (entry) entry.sent = text;
    this.panelFor(plan.folder)?.notify(DidChangeClaimsNotification, { claims: claims.claims, conflicts: claims.conflicts, problem: claims.problem });
  }

  /** Reads the claims again and tells the planner. */
  private async refreshClaims(plan: FolderPlan, draft: PlanDraft): Promise<void> {
    try {
      const claims = this.readClaims(plan, await plan.files(), draft, true);
      if (claims) this.sendClaims(plan, claims);
    } catch (error) {
      this.log.quietFailure(`reading other clones' claims for ${plan.folder.name}`, error);
    }
  }

  private track(panel: PlannerPanel): PlannerPanel {
    const key = panel.folder.uri.toString();
    this.panels.set(key, panel);
    // The host holds notifications until the webview is ready: the lanes start with the ledgers' state.
    panel.notify(DidChangeAgentActivityNotification, { agents: this.activityOf(panel.folder) });
    // The browser loads the page meanwhile; git lists the files in parallel instead of after `ready`.
    void this.plans
      .get(panel.folder)
      .then((plan) => plan.files(true))
      .catch((error: unknown) => this.log.quietFailure(`listing the files of ${panel.folder.name}`, error));
    panel.onDidClose(() => {
      if (this.panels.get(key) !== panel) return;
      this.panels.delete(key);
      void this.plans
        .get(panel.folder)
        .then((plan) => this.showDiskContested(plan))
        .catch((error: unknown) => this.log.quietFailure(`marking the contested files of ${panel.folder.name}`, error));
    });
    return panel;
  }

  /**
   * A setting that decides how the folder's plan is read changed (affectsPlanReading): the plan on disk is
   * read again, and an open planner is told the files' control state and case rule as they are now.
   */
  private planReadingChanged(plan: FolderPlan): void {
    this.diskPlanChanged(plan);
    void this.filesChanged(plan, false);
  }

  private diskPlanChanged(plan: FolderPlan): void {
    const panel = this.panelFor(plan.folder);
    if (panel) {
      try {
        const { plan: diskPlan, problem } = plan.diskPlan();
        panel.notify(DidLoadPlanNotification, { diskPlan, problem });
        // A sync or publish changes the plan on disk and this clone's copy of the plan ref together.
        void this.refreshClaims(plan, panel.latestDraft ?? diskPlan);
      } catch (error) {
        this.log.quietFailure(`reading the plan of ${plan.folder.name}`, error);
      }
      return;
    }
    this.showDiskContested(plan).catch((error: unknown) => this.log.quietFailure(`marking the contested files of ${plan.folder.name}`, error));
  }

  /** Tells an open planner the folder's files (listed again unless `relist` is false), which are control state, and how they compare. */
  private async filesChanged(plan: FolderPlan, relist = true): Promise<void> {
    const panel = this.panelFor(plan.folder);
    if (!panel) return;
    try {
      const files = await plan.files(relist);
      const { ignoreCase } = plan;
      const controlFiles = plan.repoRoot ? controlFilesAmong(files, { ignoreCase, stateDir: this.stateDirOf(plan.folder, plan.repoRoot) }) : [];
      panel.notify(DidChangeFilesNotification, { files, controlFiles, ignoreCase });
    } catch (error) {
      this.log.quietFailure(`listing the files of ${plan.folder.name}`, error);
    }
  }
}
