// Per workspace folder: the repository behind it, its files, its plan on disk, the planner's
// unsaved draft (kept in workspaceState so it survives a window reload), and which files the draft
// contests. Multi-root: every folder has its own FolderPlan and its own plan on disk.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, realpathSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import * as vscode from 'vscode';
import writeFileAtomic from 'write-file-atomic';
import { gitIgnoreCase, gitTopLevel, listRepositoryFiles } from '../node/git';
import type { PlanDraft, StoredDraftRecord } from '../protocol/plannerProtocol';
import { isStoredDraftRecord } from '../protocol/plannerProtocol';
import { readDiskPlan } from './planFiles';
import { foldCase } from '../planner/scope/scopeEntry';

const DRAFT_KEY = 'waveScope.draft:';
const COLORS_KEY = 'waveScope.colors:';
const ROLES_KEY = 'waveScope.roles:';


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
    private readonly storage: vscode.Uri | undefined,
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
    return readDiskPlan(this.repoRoot, { colors: this.colors(), roles: this.roles() }, this.ignoreCase);
  }

  /** Where this folder's draft record lives on disk: the extension's own workspace storage. */
  private draftFile(): string | undefined {
    if (!this.storage || this.storage.scheme !== 'file') return undefined;
    const name = createHash('sha256').update(this.folder.uri.toString()).digest('hex').slice(0, 32);
    return join(this.storage.fsPath, 'drafts', `${name}.json`);
  }

  /** The last draft record kept for this folder (the file first: it is written at once, storage lags). */
  storedRecord(): StoredDraftRecord | undefined {
    const file = this.draftFile();
    if (file) {
      try {
        const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
        if (isStoredDraftRecord(parsed)) return parsed;
      } catch {
        // Missing or unreadable: fall back to workspaceState.
      }
    }
    const stored = this.state.get<unknown>(DRAFT_KEY + this.folder.uri.toString());
    return isStoredDraftRecord(stored) ? stored : undefined;
  }

  /** The unsaved draft kept for this folder, if any. */
  storedDraft(): PlanDraft | undefined {
    const record = this.storedRecord();
    return record?.dirty ? record.draft : undefined;
  }

  /** Keeps the draft record (a clean one says "disk is current"); remembers lane colours and wave roles either way. */
  storeDraft(draft: PlanDraft, dirty: boolean, updatedAt: number): void {
    const record: StoredDraftRecord = { draft, dirty, updatedAt };
    const file = this.draftFile();
    if (file) {
      try {
        mkdirSync(dirname(file), { recursive: true });
        writeFileAtomic.sync(file, JSON.stringify(record));
      } catch {
        // workspaceState below still has it.
      }
    }
    void this.state.update(DRAFT_KEY + this.folder.uri.toString(), record);
    const colors = this.colors();
    for (const wave of draft.waves) for (const agent of wave.agents) colors[agent.id] = agent.color;
    void this.state.update(COLORS_KEY + this.folder.uri.toString(), colors);
    // Only the wave the manifest names keeps its role on disk; the others' roles live here.
    const roles = this.roles();
    for (const wave of draft.waves) roles[String(wave.wave)] = wave.role;
    void this.state.update(ROLES_KEY + this.folder.uri.toString(), roles);
  }

  private colors(): Record<string, string> {
    return { ...(this.state.get<Record<string, string>>(COLORS_KEY + this.folder.uri.toString()) ?? {}) };
  }

  private roles(): Record<string, string> {
    return { ...(this.state.get<Record<string, string>>(ROLES_KEY + this.folder.uri.toString()) ?? {}) };
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
    const same = this.ignoreCase ? foldCase(path).startsWith(`${foldCase(root)}/`) : path.startsWith(`${root}/`);
    return same ? path.slice(root.length + 1) : undefined;
  }

  dispose(): void {
    this.filesCache = undefined;
  }
}
