// The Wave Scope extension: commands, the planner panels (one per workspace folder), Explorer and
// gutter decorations for contested files, and the workspace-trust rules (plan and read anywhere;
// write declarations and install hooks only in a trusted workspace).
import * as vscode from 'vscode';
import { isAgentId } from '../planner/plan/agentId';
import { STATE_FILES_GLOB } from '../planner/plan/stateDir';
import type { PlanDraft, SaveOutcome } from '../protocol/plannerProtocol';
import { ContestedDecorations } from './contestedDecorations';
import { FolderPlan } from './folderPlans';
import { installHooksInto, saveDraftToDisk, validateDraft } from './planFiles';
import type { DraftValidation } from './planFiles';
import { PLANNER_VIEW_TYPE, PlannerPanel } from './plannerPanel';
import type { PlannerPanelServices } from './plannerPanel';

/** What `activate` returns: used by the in-host tests to look inside without mocking anything. */
export interface WaveScopeApi {
  /** The open planner panel of a folder, if any. */
  panelFor(folder: vscode.WorkspaceFolder): PlannerPanel | undefined;
  /** Contested-file decoration state. */
  decorations: ContestedDecorations;
  /** Timings the planner webview reported, newest last. */
  timings: { name: string; milliseconds: number }[];
}

class WaveScopeExtension implements PlannerPanelServices, vscode.Disposable {
  readonly output = vscode.window.createOutputChannel('Wave Scope', { log: true });
  readonly decorations: ContestedDecorations;
  readonly timings: { name: string; milliseconds: number }[] = [];
  private readonly folders = new Map<string, FolderPlan>();
  private readonly panels = new Map<string, PlannerPanel>();
  private readonly watchers = new Map<string, vscode.Disposable[]>();

  constructor(private readonly context: vscode.ExtensionContext) {
    this.decorations = new ContestedDecorations(context.extensionUri);
  }

  log(message: string): void {
    this.output.appendLine(message);
  }

  folderPlan(folder: vscode.WorkspaceFolder): FolderPlan {
    const key = folder.uri.toString();
    let plan = this.folders.get(key);
    if (!plan) {
      plan = new FolderPlan(folder, this.context.workspaceState, this.context.storageUri);
      this.folders.set(key, plan);
      this.watch(plan);
    }
    return plan;
  }

  panelFor(folder: vscode.WorkspaceFolder): PlannerPanel | undefined {
    return this.panels.get(folder.uri.toString());
  }

  // ---- watching the disk -----------------------------------------------------------------------

  private watch(plan: FolderPlan): void {
    const disposables: vscode.Disposable[] = [];
    let planTimer: ReturnType<typeof setTimeout> | undefined;
    let filesTimer: ReturnType<typeof setTimeout> | undefined;
    const planChanged = (): void => {
      if (planTimer) clearTimeout(planTimer);
      planTimer = setTimeout(() => {
        const { plan: diskPlan, problem } = plan.diskPlan();
        this.panelFor(plan.folder)?.notify({ kind: 'notification', method: 'didLoadPlan', params: { diskPlan, problem } });
        if (!this.panelFor(plan.folder)) this.refreshDiskDecorations(plan);
      }, 150);
    };
    const filesChanged = (uri: vscode.Uri): void => {
      if (/[\\/]\.git[\\/]/.test(uri.fsPath)) return;
      if (filesTimer) clearTimeout(filesTimer);
      filesTimer = setTimeout(() => {
        const panel = this.panelFor(plan.folder);
        if (!panel) return;
        panel.notify({ kind: 'notification', method: 'didChangeFiles', params: { files: plan.files(true) } });
      }, 500);
    };
    const planWatcher = vscode.workspace.createFileSystemWatcher(
      new vscode.RelativePattern(plan.folder, STATE_FILES_GLOB),
    );
    const fileWatcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(plan.folder, '**/*'), false, true, false);
    disposables.push(
      planWatcher,
      planWatcher.onDidCreate(planChanged),
      planWatcher.onDidChange(planChanged),
      planWatcher.onDidDelete(planChanged),
      fileWatcher,
      fileWatcher.onDidCreate(filesChanged),
      fileWatcher.onDidDelete(filesChanged),
      { dispose: () => (planTimer ? clearTimeout(planTimer) : undefined) },
      { dispose: () => (filesTimer ? clearTimeout(filesTimer) : undefined) },
    );
    this.watchers.set(plan.folder.uri.toString(), disposables);
  }

  /** Without an open planner, the Explorer shows what the plan on disk contests in its active wave. */
  refreshDiskDecorations(plan: FolderPlan): void {
    if (!plan.repoRoot) return;
    try {
      const draft = plan.currentDraft(undefined);
      const validation = validateDraft(draft, plan.files(), plan.ignoreCase);
      const wave = draft.activeWave ?? draft.waves[0]?.wave;
      const contested = validation.waves.find((item) => item.wave === wave)?.contested ?? [];
      plan.contested = contested;
      this.decorations.setContested(vscode.Uri.file(plan.repoRoot), contested);
    } catch (error) {
      this.log(`could not compute contested files for ${plan.folder.name}: ${String(error)}`);
    }
  }

  // ---- PlannerPanelServices --------------------------------------------------------------------

  async ready(folder: vscode.WorkspaceFolder) {
    const plan = this.folderPlan(folder);
    const started = Date.now();
    const files = plan.takeFiles();
    const { plan: diskPlan, problem } = plan.diskPlan();
    this.log(`planner ready for ${folder.name}: ${files.length} files, ${diskPlan.waves.length} waves on disk, ${Date.now() - started} ms`);
    return {
      folderName: folder.name,
      folderUri: folder.uri.toString(),
      rootUri: plan.repoRoot ? vscode.Uri.file(plan.repoRoot).toString() : folder.uri.toString(),
      files,
      ignoreCase: plan.ignoreCase,
      diskPlan,
      storedDraft: plan.storedRecord(),
      trusted: vscode.workspace.isTrusted,
      diskProblem: problem,
    };
  }

  async save(folder: vscode.WorkspaceFolder, draft: PlanDraft): Promise<SaveOutcome> {
    const plan = this.folderPlan(folder);
    if (!vscode.workspace.isTrusted) {
      return { ok: false, message: 'Saving writes declarations: trust this workspace first (Restricted mode only plans).', collisions: [] };
    }
    if (!plan.repoRoot) return { ok: false, message: `${folder.name} is not inside a git repository.`, collisions: [] };
    const stateDirName = vscode.workspace.getConfiguration('waveScope.plan', folder.uri).get<string>('stateDirectory', 'auto');
    const outcome = saveDraftToDisk(plan.repoRoot, draft, {
      ignoreCase: plan.ignoreCase,
      files: plan.files(),
      stateDirName: stateDirName === 'auto' ? undefined : stateDirName,
    });
    this.log(`save ${folder.name}: ${outcome.message}`);
    if (outcome.ok) plan.storeDraft(draft, false, Date.now());
    return outcome;
  }

  draftChanged(folder: vscode.WorkspaceFolder, draft: PlanDraft, contested: string[], dirty: boolean, updatedAt: number): void {
    const plan = this.folderPlan(folder);
    plan.storeDraft(draft, dirty, updatedAt);
    plan.contested = contested;
    if (plan.repoRoot) this.decorations.setContested(vscode.Uri.file(plan.repoRoot), contested);
  }

  async openFile(folder: vscode.WorkspaceFolder, path: string): Promise<void> {
    const plan = this.folderPlan(folder);
    if (!plan.repoRoot || path.split('/').includes('..')) return;
    await vscode.window.showTextDocument(vscode.Uri.joinPath(vscode.Uri.file(plan.repoRoot), ...path.split('/')), { preview: true });
  }

  timing(name: string, milliseconds: number): void {
    this.timings.push({ name, milliseconds });
    this.log(`timing ${name}: ${milliseconds.toFixed(1)} ms`);
  }

  // ---- panels ----------------------------------------------------------------------------------

  /** Opens (or reveals) the planner of `folder`, or adopts a panel VS Code restored after a reload. */
  openPlanner(folder: vscode.WorkspaceFolder, restored?: vscode.WebviewPanel): PlannerPanel {
    const key = folder.uri.toString();
    const existing = this.panels.get(key);
    if (existing && !restored) {
      existing.panel.reveal();
      return existing;
    }
    const webviewPanel =
      restored ??
      vscode.window.createWebviewPanel(PLANNER_VIEW_TYPE, `Wave Planner: ${folder.name}`, vscode.ViewColumn.Active, {
        enableScripts: true,
        retainContextWhenHidden: true,
        localResourceRoots: [vscode.Uri.joinPath(this.context.extensionUri, 'media')],
      });
    const panel = new PlannerPanel(webviewPanel, folder, this.context.extensionUri, this);
    this.panels.set(key, panel);
    // The browser loads the page meanwhile; git lists the files in parallel instead of after `ready`.
    setTimeout(() => {
      try {
        this.folderPlan(folder).prefetchFiles();
      } catch (error) {
        this.log(`listing the files of ${folder.name} failed: ${String(error)}`);
      }
    }, 0);
    panel.onDispose(() => {
      if (this.panels.get(key) === panel) this.panels.delete(key);
      this.refreshDiskDecorations(this.folderPlan(folder));
    });
    return panel;
  }

  /** The folder a command acts on: from its argument, the active editor, the only folder, or a pick. */
  async pickFolder(hint?: unknown): Promise<vscode.WorkspaceFolder | undefined> {
    const folders = vscode.workspace.workspaceFolders ?? [];
    if (hint instanceof vscode.Uri) {
      const folder = vscode.workspace.getWorkspaceFolder(hint);
      if (folder) return folder;
    }
    if (folders.length === 0) {
      void vscode.window.showWarningMessage('Wave Scope plans a workspace folder: open a folder first.');
      return undefined;
    }
    if (folders.length === 1) return folders[0];
    const active = vscode.window.activeTextEditor?.document.uri;
    const fromEditor = active ? vscode.workspace.getWorkspaceFolder(active) : undefined;
    if (fromEditor) return fromEditor;
    return vscode.window.showWorkspaceFolderPick({ placeHolder: 'Which folder’s plan?' });
  }

  dispose(): void {
    for (const panel of this.panels.values()) panel.dispose();
    for (const list of this.watchers.values()) for (const disposable of list) disposable.dispose();
    this.decorations.dispose();
    this.output.dispose();
  }
}

/** Runs a command body; on failure logs the details and shows one clear message. */
function guarded<T extends unknown[]>(extension: WaveScopeExtension, name: string, body: (...args: T) => Promise<unknown>) {
  return async (...args: T): Promise<unknown> => {
    try {
      return await body(...args);
    } catch (error) {
      extension.log(`${name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      void vscode.window.showErrorMessage(`Wave Scope: ${name} failed: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    }
  };
}

function describeValidation(validation: DraftValidation): string {
  if (validation.ok) return `Wave Scope: every wave is disjoint (${validation.waves.length} checked).`;
  const first = validation.waves.flatMap((wave) => wave.collisions.map((collision) => ({ wave: wave.wave, collision })))[0];
  const count = validation.waves.reduce((sum, wave) => sum + wave.collisions.length, 0);
  return first
    ? `Wave Scope: ${count} collision${count === 1 ? '' : 's'}; e.g. wave ${first.wave}: ${first.collision.agents[0]} and ${first.collision.agents[1]} both own ${first.collision.witness}.`
    : 'Wave Scope: the plan has duplicate agent ids.';
}

export function activate(context: vscode.ExtensionContext): WaveScopeApi {
  const extension = new WaveScopeExtension(context);
  context.subscriptions.push(extension);

  const command = (id: string, name: string, body: (...args: never[]) => Promise<unknown>): void => {
    context.subscriptions.push(vscode.commands.registerCommand(id, guarded(extension, name, body as (...args: unknown[]) => Promise<unknown>)));
  };

  command('waveScope.openPlanner', 'Open Planner', async (hint?: unknown) => {
    const folder = await extension.pickFolder(hint);
    if (!folder) return undefined;
    extension.openPlanner(folder);
    return folder.uri.toString();
  });

  command(
    'waveScope.assignToAgent',
    'Assign to Agent',
    async (clicked?: vscode.Uri, selected?: vscode.Uri[], options?: { wave?: number; agentId?: string }) => {
      const uris = (selected && selected.length > 0 ? selected : clicked ? [clicked] : []).filter((uri) => uri instanceof vscode.Uri);
      const target = uris[0] ?? vscode.window.activeTextEditor?.document.uri;
      if (!target) {
        void vscode.window.showInformationMessage('Wave Scope: choose files or folders in the Explorer to assign.');
        return undefined;
      }
      const folder = await extension.pickFolder(target);
      if (!folder) return undefined;
      const plan = extension.folderPlan(folder);
      const entries: string[] = [];
      for (const uri of uris.length > 0 ? uris : [target]) {
        const relative = plan.relativePath(uri);
        if (relative === undefined) continue;
        let isFolder = false;
        try {
          isFolder = (await vscode.workspace.fs.stat(uri)).type === vscode.FileType.Directory;
        } catch {
          isFolder = false;
        }
        entries.push(isFolder ? `${relative}/` : relative);
      }
      if (entries.length === 0) {
        void vscode.window.showWarningMessage('Wave Scope: those paths are outside the repository of this folder.');
        return undefined;
      }
      const draft = plan.currentDraft(extension.panelFor(folder)?.latestDraft);
      let wave = options?.wave;
      if (wave === undefined) {
        if (draft.waves.length <= 1) wave = draft.waves[0]?.wave ?? 1;
        else {
          const picked = await vscode.window.showQuickPick(
            draft.waves.map((item) => ({ label: `Wave ${item.wave}`, description: item.role, wave: item.wave })),
            { placeHolder: 'Assign to which wave?' },
          );
          if (!picked) return undefined;
          wave = picked.wave;
        }
      }
      let agentId = options?.agentId;
      if (agentId === undefined) {
        const agents = draft.waves.find((item) => item.wave === wave)?.agents ?? [];
        const picked = await vscode.window.showQuickPick(
          [...agents.map((agent) => ({ label: agent.id, description: `${agent.entries.length} entries` })), { label: '$(add) New agent…', description: '' }],
          { placeHolder: `Assign ${entries.join(', ')} to which agent of wave ${wave}?` },
        );
        if (!picked) return undefined;
        agentId = picked.label.startsWith('$(add)')
          ? await vscode.window.showInputBox({ prompt: 'New agent id (letters, digits, "_" or "-")', validateInput: (value) => (isAgentId(value) ? undefined : 'Use letters, digits, "_" or "-".') })
          : picked.label;
        if (!agentId) return undefined;
      }
      // The planner creates the wave and the agent first when they are new.
      const panel = extension.openPlanner(folder);
      panel.notify({ kind: 'notification', method: 'didAssign', params: { wave: wave ?? 1, agentId, entries } });
      return { wave, agentId, entries };
    },
  );

  command('waveScope.savePlan', 'Save Plan', async (hint?: unknown) => {
    const folder = await extension.pickFolder(hint);
    if (!folder) return undefined;
    const plan = extension.folderPlan(folder);
    const panel = extension.panelFor(folder);
    const draft = plan.currentDraft(panel?.latestDraft);
    const outcome = await extension.save(folder, draft);
    panel?.notify({ kind: 'notification', method: 'didSave', params: { outcome, savedDraft: outcome.ok ? draft : undefined } });
    if (outcome.ok) void vscode.window.showInformationMessage(`Wave Scope: ${outcome.message}`);
    else void vscode.window.showErrorMessage(`Wave Scope: ${outcome.message}`);
    return outcome;
  });

  command('waveScope.validatePlan', 'Validate Plan', async (hint?: unknown) => {
    const folder = await extension.pickFolder(hint);
    if (!folder) return undefined;
    const plan = extension.folderPlan(folder);
    const draft = plan.currentDraft(extension.panelFor(folder)?.latestDraft);
    const validation = validateDraft(draft, plan.files(), plan.ignoreCase);
    for (const wave of validation.waves) {
      for (const collision of wave.collisions) {
        extension.log(`wave ${wave.wave}: ${collision.agents[0]} (${collision.entries[0]}) and ${collision.agents[1]} (${collision.entries[1]}) both own ${collision.witness}`);
      }
    }
    const message = describeValidation(validation);
    if (validation.ok) void vscode.window.showInformationMessage(message);
    else void vscode.window.showWarningMessage(message);
    return validation;
  });

  command('waveScope.installHooks', 'Install Hooks', async (hint?: unknown) => {
    if (!vscode.workspace.isTrusted) {
      void vscode.window.showWarningMessage('Wave Scope: installing hooks changes agent settings; trust this workspace first.');
      return undefined;
    }
    const folder = await extension.pickFolder(hint);
    if (!folder) return undefined;
    const plan = extension.folderPlan(folder);
    if (!plan.repoRoot) throw new Error(`${folder.name} is not inside a git repository`);
    const result = installHooksInto(plan.repoRoot, context.extensionUri.fsPath);
    extension.log(`install hooks in ${folder.name}: ${result.message}`);
    if (result.ok) void vscode.window.showInformationMessage(`Wave Scope: ${result.message}`);
    else void vscode.window.showErrorMessage(`Wave Scope: ${result.message}`);
    return result;
  });

  for (const [id, action] of [
    ['waveScope.addWave', 'addWave'],
    ['waveScope.addAgent', 'addAgent'],
    ['waveScope.focusFileFilter', 'focusFilter'],
  ] as const) {
    command(id, id, async (hint?: unknown) => {
      const folder = await extension.pickFolder(hint);
      if (!folder) return undefined;
      const panel = extension.openPlanner(folder);
      panel.notify({ kind: 'notification', method: 'didRequestAction', params: { action } });
      return action;
    });
  }

  context.subscriptions.push(
    vscode.window.registerWebviewPanelSerializer(PLANNER_VIEW_TYPE, {
      async deserializeWebviewPanel(webviewPanel: vscode.WebviewPanel, state: unknown) {
        const folders = vscode.workspace.workspaceFolders ?? [];
        const folderUri = typeof state === 'object' && state !== null ? (state as { folderUri?: unknown }).folderUri : undefined;
        const folder = folders.find((item) => item.uri.toString() === folderUri) ?? folders[0];
        if (!folder) {
          webviewPanel.dispose();
          return;
        }
        extension.openPlanner(folder, webviewPanel);
      },
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      for (const folder of vscode.workspace.workspaceFolders ?? []) {
        extension.panelFor(folder)?.notify({ kind: 'notification', method: 'didChangeTrust', params: { trusted: true } });
      }
    }),
    vscode.workspace.onDidChangeWorkspaceFolders((event) => {
      for (const folder of event.removed) extension.panelFor(folder)?.dispose();
    }),
  );

  // Explorer decorations for plans already on disk, once the window has settled; and the planner itself
  // when the user asked for it at startup (activation by `workspaceContains` means a plan is on disk).
  setTimeout(() => {
    for (const folder of vscode.workspace.workspaceFolders ?? []) extension.refreshDiskDecorations(extension.folderPlan(folder));
    const firstFolder = vscode.workspace.workspaceFolders?.[0];
    if (firstFolder && vscode.workspace.getConfiguration('waveScope.planner').get<boolean>('openOnStartup', false)) {
      void vscode.commands.executeCommand('waveScope.openPlanner', firstFolder.uri);
    }
  }, 0);

  return { panelFor: (folder) => extension.panelFor(folder), decorations: extension.decorations, timings: extension.timings };
}

export function deactivate(): void {}

