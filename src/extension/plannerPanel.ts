// One planner webview panel for one workspace folder: builds the page, answers the webview's requests,
// handles its commands, and holds notifications until the webview has sent its ready request. Every
// message goes through the protocol's endpoint, so what arrives has been checked against its schema.
import * as vscode from 'vscode';
import { describeError, IpcEndpoint } from '../protocol/ipc';
import type { NotificationType, ParamsOf } from '../protocol/ipc';
import type { OverwriteChoice, PlanDraft, ReadyResult, SaveOutcome } from '../protocol/plannerProtocol';
import {
  DraftChangedCommand,
  OpenFileCommand,
  ReadyRequest,
  ReportProblemCommand,
  ReportTimingCommand,
  SavePlanRequest,
} from '../protocol/plannerProtocol';
import type { Log } from './log';
import { plannerHtml } from './plannerHtml';

/** The view type, also used by `onWebviewPanel:` activation and the serializer. */
export const PLANNER_VIEW_TYPE = 'waveScope.planner';

/** The title of a folder's planner tab. */
export function plannerTitle(folder: vscode.WorkspaceFolder): string {
  return `Wave Planner: ${folder.name}`;
}

/** What a panel needs from the extension: the folder's plan and files, saving, logging. */
export interface PlannerPanelServices {
  readonly log: Log;
  ready(folder: vscode.WorkspaceFolder): Promise<ReadyResult>;
  save(folder: vscode.WorkspaceFolder, draft: PlanDraft, base: PlanDraft | undefined, overwrite?: OverwriteChoice): Promise<SaveOutcome>;
  draftChanged(folder: vscode.WorkspaceFolder, change: ParamsOf<typeof DraftChangedCommand>): Promise<void>;
  openFile(folder: vscode.WorkspaceFolder, path: string): Promise<void>;
  timing(name: string, milliseconds: number): void;
}

export class PlannerPanel implements vscode.Disposable {
  private readonly endpoint: IpcEndpoint;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly closed = new vscode.EventEmitter<void>();
  private released = false;
  /** Fires once, when the person (or the extension) closed the panel. */
  readonly onDidClose = this.closed.event;
  /** The newest draft the webview reported (palette commands save and validate this). */
  latestDraft: PlanDraft | undefined;
  /** The plan on disk that draft was edited from, as the webview reported it. */
  latestBase: PlanDraft | undefined;

  constructor(
    readonly panel: vscode.WebviewPanel,
    readonly folder: vscode.WorkspaceFolder,
    /** Whether VS Code restored this panel after a reload (rather than the extension creating it). */
    readonly restored: boolean,
    extensionUri: vscode.Uri,
    private readonly services: PlannerPanelServices,
  ) {
    panel.webview.options = { enableScripts: true, localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'media')] };
    panel.title = plannerTitle(folder);
    panel.iconPath = vscode.Uri.joinPath(extensionUri, 'media', 'wave-scope.svg');
    const { log } = services;
    this.endpoint = new IpcEndpoint({
      post: (message) => void panel.webview.postMessage(message),
      onProblem: (problem) => log.warn(`planner of ${folder.name}: ${problem}`),
      holdNotificationsUntilReplyTo: ReadyRequest,
    });
    this.handleMessages();
    this.disposables.push(
      panel.webview.onDidReceiveMessage((message: unknown) => {
        // The message boundary: a command that fails is logged and shown once; a failed request is
        // answered with an error the webview shows (see answer()).
        this.endpoint.receive(message).catch((error: unknown) => log.failure(`The planner of ${folder.name}`, error));
      }),
      panel.onDidDispose(() => {
        this.release();
        this.closed.fire();
        this.closed.dispose();
      }),
    );
    panel.webview.html = plannerHtml(panel.webview, extensionUri, folder.name);
  }

  /** Whether the webview's ready request has been answered (held notifications went out). */
  get isReady(): boolean {
    return this.endpoint.released;
  }

  /** Sends a notification now, or once the webview is ready. */
  notify<T extends NotificationType>(type: T, params: ParamsOf<T>): void {
    this.endpoint.sendNotification(type, params);
  }

  /** Shows the panel. */
  reveal(): void {
    this.panel.reveal();
  }

  /**
   * Stops listening and answering, and leaves the panel itself alone: what deactivation does. VS Code
   * persists open tabs late; a panel the extension disposed during shutdown would be missing after the
   * reload.
   */
  release(): void {
    if (this.released) return;
    this.released = true;
    this.endpoint.close();
    for (const disposable of this.disposables.splice(0)) disposable.dispose();
  }

  /** Closes the panel (a duplicate, or its folder left the workspace). Never called on deactivation. */
  close(): void {
    this.panel.dispose();
  }

  /** As a Disposable, a panel only releases its listeners (see release()); close() closes it. */
  dispose(): void {
    this.release();
  }

  private handleMessages(): void {
    const { folder, services } = this;
    const answer =
      <P, R>(what: string, handle: (params: P) => Promise<R>) =>
      async (params: P): Promise<R> => {
        try {
          return await handle(params);
        } catch (error) {
          services.log.error(`${what} for ${folder.name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
          throw new Error(`${what} failed: ${describeError(error)}`);
        }
      };
    this.endpoint.onRequest(
      ReadyRequest,
      answer('Loading the planner', async () => {
        const result = await services.ready(folder);
        if (result.keptDraft?.dirty && this.latestDraft === undefined) {
          this.latestDraft = result.keptDraft.draft;
          this.latestBase = result.keptDraft.base;
        }
        return result;
      }),
    );
    this.endpoint.onRequest(
      SavePlanRequest,
      answer('Saving', async ({ draft, base, overwrite, overwriteManifest }) => {
        this.latestDraft = draft;
        this.latestBase = base;
        return services.save(folder, draft, base, { overwrite, overwriteManifest });
      }),
    );
    this.endpoint.onCommand(DraftChangedCommand, async (change) => {
      this.latestDraft = change.draft;
      this.latestBase = change.base;
      await services.draftChanged(folder, change);
    });
    this.endpoint.onCommand(OpenFileCommand, ({ path }) => services.openFile(folder, path));
    this.endpoint.onCommand(ReportTimingCommand, ({ name, milliseconds }) => services.timing(name, milliseconds));
    this.endpoint.onCommand(ReportProblemCommand, ({ message }) => services.log.warn(`planner of ${folder.name}: ${message}`));
  }
}
