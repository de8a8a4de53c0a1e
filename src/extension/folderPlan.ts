// One workspace folder's plan: the git repository behind it (found without blocking the extension
// host), its files, its plan on disk, and the planner's kept draft. Multi-root: every folder has its
// own FolderPlan (FolderPlans keeps them) and its own plan on disk.
import { realpathSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import * as vscode from 'vscode';
import { isOtherWayIn, pathBelowFolder, readFolderPlacement } from '../node/folderPlacement';
import type { FolderPlacement } from '../node/folderPlacement';
import { gitIgnoreCaseAsync, gitTopLevelAsync, listRepositoryFilesAsync } from '../node/git';
import { foldCase } from '../planner/scope/scopeEntry';
import type { PlanDraft } from '../protocol/plannerProtocol';
import type { DraftStore } from './draftStore';
import { readDiskPlan, saveStateDirOf } from './planFiles';
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
    /** Where the folder sits in the repository (undefined without one): see uriOf. */
    private readonly placement: FolderPlacement | undefined,
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
    const placement = repoRoot ? await readFolderPlacement(repoRoot, folder.uri.fsPath, ignoreCase) : undefined;
    return new FolderPlan(folder, repoRoot, ignoreCase, drafts, placement);
  }

  /**
   * The URI under which this folder shows the repository-relative `path`: below the folder's own URI
   * when the folder is reached through a link (to the repository, or to a subfolder that holds `path`),
   * else below the repository root git reports. The Explorer, editors and drops use the former, so
   * every mark of a file is keyed by it. Undefined when the folder is not in a git repository.
   */
  uriOf(path: string): vscode.Uri | undefined {
    if (!this.repoRoot || !this.placement) return undefined;
    const below = pathBelowFolder(this.placement, path);
    if (below === undefined) return vscode.Uri.joinPath(vscode.Uri.file(this.repoRoot), ...path.split('/'));
    return below === '' ? this.folder.uri : vscode.Uri.joinPath(this.folder.uri, ...below.split('/'));
  }

  /**
   * The repository's absolute spellings: its top level as git reports it, and the folder when it is
   * another way in (a subfolder, or reached through a link), each with the repository-relative folder it
   * stands for. A path pasted or a file dropped into the planner is made repository-relative with them.
   */
  roots(): { path: string; uri: vscode.Uri; repoRelative: string }[] {
    if (!this.repoRoot || !this.placement) return [];
    const top = { path: this.repoRoot, uri: vscode.Uri.file(this.repoRoot), repoRelative: '' };
    const inside = this.placement.repoRelative;
    return inside !== undefined && isOtherWayIn(this.placement) ? [top, { path: this.folder.uri.fsPath, uri: this.folder.uri, repoRelative: inside }] : [top];
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

  /**
   * The plan on disk as a draft (lane colours and roles from what the planner remembered), read from the
   * state directory a save writes (setting `waveScope.plan.stateDirectory`): the base a save compares.
   */
  diskPlan(): { plan: PlanDraft; problem: string | undefined } {
    if (!this.repoRoot) {
      return {
        plan: { version: 1, waves: [], activeWave: undefined },
        problem: `${this.folder.name} is not inside a git repository: Wave Scope plans the files git knows.`,
      };
    }
    return readDiskPlan(this.repoRoot, this.drafts.look(), this.ignoreCase, saveStateDirOf(this.repoRoot, settings.stateDirectory(this.folder.uri)));
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
