// Per workspace folder: the repository behind it, its files, its plan on disk, the planner's
// unsaved draft (kept in workspaceState so it survives a window reload), and which files the draft
// contests. Multi-root: every folder has its own FolderPlan and its own plan on disk.
import { realpathSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import * as vscode from 'vscode';
import { gitIgnoreCase, gitTopLevel, listRepositoryFiles } from '../planner/nodeHost';
import type { PlanDraft } from '../../webview/protocol';
import { isPlanDraft } from '../../webview/protocol';
import { readDiskPlan } from './planFiles';

const DRAFT_KEY = 'waveScope.draft:';
const COLORS_KEY = 'waveScope.colors:';

/** What is stored per folder in workspaceState. */
interface StoredDraft {
  version: 1;
  draft: PlanDraft;
}

export class FolderPlan implements vscode.Disposable {
  /** Repository root (git top level), or undefined when the folder is not in a git repository. */
  readonly repoRoot: string | undefined;
  readonly ignoreCase: boolean;
  private filesCache: string[] | undefined;
  /** Contested files of the planner's open wave, repository-relative. */
  contested: string[] = [];

  constructor(
    readonly folder: vscode.WorkspaceFolder,
    private readonly state: vscode.Memento,
  ) {
    this.repoRoot = folder.uri.scheme === 'file' ? gitTopLevel(folder.uri.fsPath) : undefined;
    this.ignoreCase = this.repoRoot ? gitIgnoreCase(this.repoRoot) : false;
  }

  private prefetched: string[] | undefined;

  /** Lists the files now (while VS Code is still loading the webview); the next `ready` uses them. */
  prefetchFiles(): void {
    this.prefetched = this.files(true);
  }

  /** The prefetched list once, else a fresh listing. */
  takeFiles(): string[] {
    const files = this.prefetched ?? this.files(true);
    this.prefetched = undefined;
    return files;
  }

  /** Tracked plus untracked-not-ignored files (setting `waveScope.planner.includeUntracked`). */
  files(refresh = false): string[] {
    if (!this.repoRoot) return [];
    if (this.filesCache && !refresh) return this.filesCache;
    const includeUntracked = vscode.workspace
      .getConfiguration('waveScope.planner', this.folder.uri)
      .get<boolean>('includeUntracked', true);
    this.filesCache = listRepositoryFiles(this.repoRoot, { includeUntracked });
    return this.filesCache;
  }

  /** The plan on disk as a draft (lane colours from what the planner remembered). */
  diskPlan(): { plan: PlanDraft; problem: string | undefined } {
    if (!this.repoRoot) {
      return {
        plan: { version: 1, waves: [], activeWave: undefined },
        problem: `${this.folder.name} is not inside a git repository: Wave Scope plans the files git knows.`,
      };
    }
    return readDiskPlan(this.repoRoot, this.colors(), this.ignoreCase);
  }

  /** The unsaved draft kept for this folder, if any. */
  storedDraft(): PlanDraft | undefined {
    const stored = this.state.get<StoredDraft>(DRAFT_KEY + this.folder.uri.toString());
    return stored && stored.version === 1 && isPlanDraft(stored.draft) ? stored.draft : undefined;
  }

  /** Keeps (or, when `dirty` is false, forgets) the draft; remembers lane colours either way. */
  async storeDraft(draft: PlanDraft, dirty: boolean): Promise<void> {
    const key = DRAFT_KEY + this.folder.uri.toString();
    await this.state.update(key, dirty ? ({ version: 1, draft } satisfies StoredDraft) : undefined);
    const colors = this.colors();
    for (const wave of draft.waves) for (const agent of wave.agents) colors[agent.id] = agent.color;
    await this.state.update(COLORS_KEY + this.folder.uri.toString(), colors);
  }

  private colors(): Record<string, string> {
    return { ...(this.state.get<Record<string, string>>(COLORS_KEY + this.folder.uri.toString()) ?? {}) };
  }

  /** The draft palette commands act on: the planner's newest, else the stored one, else the disk plan. */
  currentDraft(latestFromPanel: PlanDraft | undefined): PlanDraft {
    return latestFromPanel ?? this.storedDraft() ?? this.diskPlan().plan;
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
    const same = this.ignoreCase ? path.toLowerCase().startsWith(`${root.toLowerCase()}/`) : path.startsWith(`${root}/`);
    return same ? path.slice(root.length + 1) : undefined;
  }

  dispose(): void {
    this.filesCache = undefined;
  }
}
