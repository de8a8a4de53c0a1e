// The Wave Scope extension: wires the folder plans (and their watchers), the planner panels (one per
// workspace folder), the plan worker, the editor's marks (Problems, hovers, code actions, Explorer
// badges, status bar: editorMarks.ts, fed by planInsights.ts), and the command table. The
// workspace-trust rules: plan and read anywhere; write declarations and install hooks only in a
// trusted workspace. Everything registered here goes into context.subscriptions; deactivation only
// releases listeners (VS Code persists open tabs late, so the planner panels are left open).
import * as vscode from 'vscode';
import type { CommandServices } from './commands/command';
import { registerCommands } from './commands/command';
import { COMMANDS } from './commands/commandTable';
import { ContestedDecorations } from './contestedDecorations';
import { hookPreviewHolder } from './commands/installHooks';
import { EditorMarks } from './editorMarks';
import { FolderPlans } from './folderPlans';
import { HookPreview } from './hookPreview';
import { Log } from './log';
import { PlanInsights } from './planInsights';
import { PlanWorker } from './planWorker';
import { PLANNER_VIEW_TYPE } from './plannerPanel';
import type { PlannerPanel } from './plannerPanel';
import { PlannerPanels } from './plannerPanels';

/** What `activate` returns: used by the in-host tests to look inside without mocking anything. */
export interface WaveScopeApi {
  /** The open planner panel of a folder, if any. */
  panelFor(folder: vscode.WorkspaceFolder): PlannerPanel | undefined;
  /** Contested-file decoration state. */
  decorations: ContestedDecorations;
  /** Timings the planner webview reported, newest last. */
  timings: { name: string; milliseconds: number }[];
  /** The folder plans and their watchers. */
  plans: FolderPlans;
  /** The planner panels, one per folder. */
  planners: PlannerPanels;
  /** The plan worker (saving and analysing off the extension host's thread). */
  worker: PlanWorker;
  /** What the editor knows of each folder's plan and agents. */
  insights: PlanInsights;
  /** Problems, hovers, code actions, badges and the status bar. */
  marks: EditorMarks;
}

export function activate(context: vscode.ExtensionContext): WaveScopeApi {
  const log = new Log();
  const decorations = new ContestedDecorations(context.extensionUri);
  const plans = new FolderPlans(context.workspaceState, context.storageUri, log);
  const worker = new PlanWorker(vscode.Uri.joinPath(context.extensionUri, 'dist', 'planWorker.js').fsPath, (message) => log.warn(message));
  const planners = new PlannerPanels(context.extensionUri, log, plans, decorations, worker);
  const insights = new PlanInsights(plans, worker, context.extensionUri.fsPath, log);
  const marks = new EditorMarks(insights, decorations);
  const preview = new HookPreview();
  hookPreviewHolder.preview = preview;
  planners.activityOf = (folder) =>
    (insights.of(folder)?.activity.activities ?? []).map((item) => ({
      ...(item.wave !== undefined ? { wave: item.wave } : {}),
      agent: item.agent,
      state: item.state,
      presumed: item.presumed,
      since: item.since,
    }));
  let shownActivity = new Map<string, string>();
  context.subscriptions.push(
    planners.onDidChangeDraft((folder) => insights.schedule(folder)),
    insights.onDidChange((insight) => {
      // The lanes hear of the ledgers only when what they show changed.
      const key = insight.folder.uri.toString();
      const text = JSON.stringify(planners.activityOf(insight.folder));
      if (shownActivity.get(key) === text) return;
      shownActivity = new Map(shownActivity).set(key, text);
      planners.showActivity(insight.folder);
    }),
  );
  // Disposed in this order: the panels release their listeners (and stay open), the log goes last.
  context.subscriptions.push(planners, marks, insights, preview, plans, decorations, worker, log);

  const services: CommandServices = { extensionUri: context.extensionUri, log, plans, planners, decorations, insights };
  registerCommands(context.subscriptions, services, COMMANDS);

  context.subscriptions.push(
    vscode.window.registerWebviewPanelSerializer(PLANNER_VIEW_TYPE, {
      async deserializeWebviewPanel(webviewPanel: vscode.WebviewPanel, state: unknown) {
        try {
          planners.adoptRestored(webviewPanel, state);
        } catch (error) {
          log.failure('Restoring the planner', error);
        }
      },
    }),
  );

  void startUp(services);
  return { panelFor: (folder) => planners.panelFor(folder), decorations, timings: planners.timings, plans, planners, worker, insights, marks };
}

/**
 * Explorer marks for plans already on disk, and the planner itself when the user asked for it at
 * start-up (activation by `workspaceContains` means a plan is on disk) and VS Code is not restoring one.
 */
async function startUp({ log, plans, planners, insights }: CommandServices): Promise<void> {
  const folders = vscode.workspace.workspaceFolders ?? [];
  const first = folders[0];
  if (first && vscode.workspace.getConfiguration('waveScope.planner').get<boolean>('openOnStartup', false) && !planners.hasPlannerTab(first)) {
    try {
      planners.open(first);
    } catch (error) {
      log.failure('Opening the planner at start-up', error);
    }
  }
  for (const folder of folders) insights.track(folder);
  await Promise.all(
    folders.map(async (folder) => {
      try {
        await planners.showDiskContested(await plans.get(folder));
      } catch (error) {
        log.quietFailure(`marking the contested files of ${folder.name}`, error);
      }
    }),
  );
}

/** Nothing to do: every listener is in context.subscriptions, and the planner panels stay open. */
export function deactivate(): void {}
