// One workspace folder's plan: the git repository behind it (found without blocking the extension
// host), its files, its plan on disk, and the planner's kept draft. Multi-root: every folder has its
// own FolderPlan (FolderPlans keeps them) and its own plan on disk.
import { realpathSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import * as vscode from 'vscode';
import { gitIgnoreCaseAsync, gitTopLevelAsync, listRepositoryFilesAsync } from '../node/git';
import { foldCase } from '../planner/scope/scopeEntry';
import type { PlanDraft } from '../protocol/plannerProtocol';
import type { DraftStore } from './draftStore';
import { readDiskPlan } from './planFiles';
import { settings } from './settings';

export class FolderPlan {
  private filesCache: Promise<string[]> | undefined;
  /** Contested files of the planner's open wave (or the disk plan's active wave), repository-relative. */
  contested: string[] = [];

  private constructor(
    readonly folder: vscode.WorkspaceFolder,
    /** Repository root (git top level), or undefined when the folder is not in a git repository. */
    readonly repoRoot: string | undefined,
    /** git's core.ignorecase for the repository. */
    readonly gitIgnoreCase: boolean,
    readonly drafts: DraftStore,
  ) {}

  /** Whether paths compare ignoring case: git's core.ignorecase, unless `waveScope.plan.ignoreCase` forces it. */
  get ignoreCase(): boolean {
    const setting = settings.ignoreCase(this.folder.uri);
    return setting === 'auto' ? this.gitIgnoreCase : setting === 'on';
  }

  /** Finds the folder's repository (asynchronously: git runs as a child process). */
  static async open(folder: vscode.WorkspaceFolder, drafts: DraftStore): Promise<FolderPlan> {
    const repoRoot = folder.uri.scheme === 'file' ? await gitTopLevelAsync(folder.uri.fsPath) : undefined;
    const ignoreCase = repoRoot ? await gitIgnoreCaseAsync(repoRoot) : false;
    return new FolderPlan(folder, repoRoot, ignoreCase, drafts);
  }

  /**
   * Tracked plus untracked-not-ignored files (setting `waveScope.planner.includeUntracked`). The last
   * listing unless `refresh`; a listing under way is shared.
   */
  files(refresh = false): Promise<string[]> {
    if (!this.repoRoot) return Promise.resolve([]);
    if (this.filesCache && !refresh) return this.filesCache;
    const includeUntracked = vscode.workspace.getConfiguration('waveScope.planner', this.folder.uri).get<boolean>('includeUntracked', true);
    const listing = listRepositoryFilesAsync(this.repoRoot, { includeUntracked });
    this.filesCache = listing;
    // A failed listing is not remembered: the next call tries again.
    listing.catch(() => {
      if (this.filesCache === listing) this.filesCache = undefined;
    });
    return listing;
  }

  /** The plan on disk as a draft (lane colours and roles from what the planner remembered). */
  diskPlan(): { plan: PlanDraft; problem: string | undefined } {
    if (!this.repoRoot) {
      return {
        plan: { version: 1, waves: [], activeWave: undefined },
        problem: `${this.folder.name} is not inside a git repository: Wave Scope plans the files git knows.`,
      };
    }
    return readDiskPlan(this.repoRoot, this.drafts.look(), this.ignoreCase);
  }

  /** The draft palette commands act on: the planner's newest, else the kept unsaved one, else the disk plan. */
  async currentDraft(latestFromPanel: PlanDraft | undefined): Promise<PlanDraft> {
    return latestFromPanel ?? (await this.drafts.unsavedDraft()) ?? this.diskPlan().plan;
  }

  /** Repository-relative path of `uri`, or undefined when it is outside this folder's repository. */
  relativePath(uri: vscode.Uri): string | undefined {
    if (!this.repoRoot || uri.scheme !== 'file') return undefined;
    const root = this.repoRoot.replace(/\\/g, '/').replace(/\/$/, '');
    // The folder may be opened through a symlink while git reports the real path: resolve the
    // parent folder, never the file itself (a tracked symlink is a file of its own).
    let resolved = uri.fsPath;
    try {
      resolved = join(realpathSync(dirname(uri.fsPath)), basename(uri.fsPath));
    } catch {
      // A path that does not exist yet keeps its spelling.
    }
    const path = resolved.replace(/\\/g, '/');
    const same = this.ignoreCase ? foldCase(path).startsWith(`${foldCase(root)}/`) : path.startsWith(`${root}/`);
    return same ? path.slice(root.length + 1) : undefined;
  }
}
