// The registry of FolderPlans, one per workspace folder, each with the file watchers it owns: one on
// the plan's files (manifest and declarations in every state directory) and one on the folder's
// files. A folder removed from the workspace is forgotten, and its watchers and pending timers die
// with it. Listeners hear about changes after a short quiet period (a save writes several files).
import * as vscode from 'vscode';
import { STATE_FILES_GLOB } from '../planner/plan/stateDirNames';
import { DraftStore } from './draftStore';
import { FolderPlan } from './folderPlan';
import type { Log } from './log';

/** Quiet period after the last change of a plan file before listeners hear of it (ms). */
const PLAN_SETTLE_MS = 150;
/** Quiet period after the last created or deleted file before the file list is refreshed (ms). */
const FILES_SETTLE_MS = 500;

/** What the registry keeps for one folder. */
interface Entry {
  readonly folder: vscode.WorkspaceFolder;
  readonly plan: Promise<FolderPlan>;
  readonly watchers: FolderWatchers;
}

/** The two watchers of one folder and their debounce timers; disposing it stops both for good. */
export class FolderWatchers implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];
  private readonly timers = new Map<'plan' | 'files', ReturnType<typeof setTimeout>>();
  private disposedFlag = false;

  constructor(
    folder: vscode.WorkspaceFolder,
    onPlanChanged: () => void,
    onFilesChanged: () => void,
  ) {
    const settle = (which: 'plan' | 'files', ms: number, fire: () => void) => () => {
      if (this.disposedFlag) return;
      const pending = this.timers.get(which);
      if (pending) clearTimeout(pending);
      this.timers.set(
        which,
        setTimeout(() => {
          this.timers.delete(which);
          if (!this.disposedFlag) fire();
        }, ms),
      );
    };
    const planChanged = settle('plan', PLAN_SETTLE_MS, onPlanChanged);
    const filesChanged = settle('files', FILES_SETTLE_MS, onFilesChanged);
    const planWatcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(folder, STATE_FILES_GLOB));
    // Changes of content do not change the file list: only creations and deletions count.
    const fileWatcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(folder, '**/*'), false, true, false);
    const onFile = (uri: vscode.Uri) => {
      if (!/[\\/]\.git[\\/]/.test(uri.fsPath)) filesChanged();
    };
    this.disposables.push(
      planWatcher,
      planWatcher.onDidCreate(planChanged),
      planWatcher.onDidChange(planChanged),
      planWatcher.onDidDelete(planChanged),
      fileWatcher,
      fileWatcher.onDidCreate(onFile),
      fileWatcher.onDidDelete(onFile),
    );
  }

  /** Whether dispose() ran (the folder was forgotten or the extension deactivated). */
  get disposed(): boolean {
    return this.disposedFlag;
  }

  dispose(): void {
    if (this.disposedFlag) return;
    this.disposedFlag = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    for (const disposable of this.disposables.splice(0)) disposable.dispose();
  }
}

export class FolderPlans implements vscode.Disposable {
  private readonly entries = new Map<string, Entry>();
  private readonly planChanged = new vscode.EventEmitter<FolderPlan>();
  private readonly filesChanged = new vscode.EventEmitter<FolderPlan>();
  private readonly forgotten = new vscode.EventEmitter<vscode.WorkspaceFolder>();
  private readonly disposables: vscode.Disposable[] = [this.planChanged, this.filesChanged, this.forgotten];

  /** The plan on disk of a folder changed (after the quiet period). */
  readonly onDidChangeDiskPlan = this.planChanged.event;
  /** Files were created or deleted in a folder (after the quiet period). */
  readonly onDidChangeFiles = this.filesChanged.event;
  /** A folder left the workspace; its plan and watchers are gone. */
  readonly onDidForgetFolder = this.forgotten.event;

  constructor(
    private readonly state: vscode.Memento,
    private readonly storage: vscode.Uri | undefined,
    private readonly log: Log,
    /** Whether to follow workspace folder removals (the extension's registry does; a test's own may not). */
    options: { followWorkspace?: boolean } = {},
  ) {
    if (options.followWorkspace ?? true) {
      this.disposables.push(
        vscode.workspace.onDidChangeWorkspaceFolders((event) => {
          for (const folder of event.removed) this.forget(folder);
        }),
      );
    }
  }

  /** The FolderPlan of `folder`, created (and watched) on first use. */
  get(folder: vscode.WorkspaceFolder): Promise<FolderPlan> {
    return this.entry(folder).plan;
  }

  /** The watchers of a folder this registry knows, if any. */
  watchersOf(folder: vscode.WorkspaceFolder): FolderWatchers | undefined {
    return this.entries.get(folder.uri.toString())?.watchers;
  }

  /** Drops a folder: its watchers stop, its FolderPlan is no longer handed out. */
  forget(folder: vscode.WorkspaceFolder): void {
    const key = folder.uri.toString();
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    entry.watchers.dispose();
    this.forgotten.fire(entry.folder);
  }

  dispose(): void {
    for (const entry of this.entries.values()) entry.watchers.dispose();
    this.entries.clear();
    for (const disposable of this.disposables.splice(0)) disposable.dispose();
  }

  private entry(folder: vscode.WorkspaceFolder): Entry {
    const key = folder.uri.toString();
    const existing = this.entries.get(key);
    if (existing) return existing;
    const drafts = new DraftStore(folder.uri, this.state, this.storage, (error) => this.log.quietFailure(`keeping the draft of ${folder.name}`, error));
    const plan = FolderPlan.open(folder, drafts);
    const fire = (emitter: vscode.EventEmitter<FolderPlan>) => () => {
      plan.then(
        (opened) => {
          if (this.entries.get(key)?.plan === plan) emitter.fire(opened);
        },
        (error: unknown) => this.log.quietFailure(`reading ${folder.name}`, error),
      );
    };
    const watchers = new FolderWatchers(folder, fire(this.planChanged), fire(this.filesChanged));
    const entry: Entry = { folder, plan, watchers };
    this.entries.set(key, entry);
    return entry;
  }
}
