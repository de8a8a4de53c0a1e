// One planner webview panel for one workspace folder: builds the page (CSP with a nonce, only
// `media/` loadable), answers the webview's requests, and queues notifications until the webview
// has said it is ready.
import * as vscode from 'vscode';
import type { HostNotification, PlanDraft, ReadyResult, ReplyMessage, SaveOutcome } from '../protocol/plannerProtocol';
import {
  isDraftChangedCommand,
  isOpenFileCommand,
  isReadyRequest,
  isReportTimingCommand,
  isSavePlanRequest,
} from '../protocol/plannerProtocol';

/** The view type, also used by `onWebviewPanel:` activation and the serializer. */
export const PLANNER_VIEW_TYPE = 'waveScope.planner';

/** What a panel needs from the extension: the folder's plan and files, saving, logging. */
export interface PlannerPanelServices {
  ready(folder: vscode.WorkspaceFolder): Promise<ReadyResult>;
  save(folder: vscode.WorkspaceFolder, draft: PlanDraft): Promise<SaveOutcome>;
  draftChanged(folder: vscode.WorkspaceFolder, draft: PlanDraft, contested: string[], dirty: boolean, updatedAt: number): void;
  openFile(folder: vscode.WorkspaceFolder, path: string): Promise<void>;
  timing(name: string, milliseconds: number): void;
  log(message: string): void;
}

function makeNonce(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let nonce = '';
  for (let i = 0; i < 32; i += 1) nonce += alphabet.charAt(Math.floor(Math.random() * alphabet.length));
  return nonce;
}

/** The page: one stylesheet and one script, both from `media/`, nothing inline without the nonce. */
export function plannerHtml(webview: vscode.Webview, extensionUri: vscode.Uri, folderName: string): string {
  const nonce = makeNonce();
  const script = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'media', 'dist', 'planner.js'));
  const style = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'media', 'planner.css'));
  const csp = [
    "default-src 'none'",
    `style-src ${webview.cspSource} 'nonce-${nonce}'`,
    `script-src 'nonce-${nonce}'`,
    `img-src ${webview.cspSource} data:`,
    `font-src ${webview.cspSource}`,
  ].join('; ');
  const title = folderName.replace(/[<>&"]/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${style.toString()}" nonce="${nonce}">
<title>Wave planner — ${title}</title>
</head>
<body data-title="${title}">
<div id="planner" data-nonce-check="${nonce.length}"></div>
<script nonce="${nonce}" src="${script.toString()}"></script>
</body>
</html>`;
}

export class PlannerPanel implements vscode.Disposable {
  private readyReceived = false;
  private readonly queue: HostNotification[] = [];
  private readonly disposables: vscode.Disposable[] = [];
  private readonly disposeListeners: (() => void)[] = [];
  /** The newest draft the webview reported (palette commands save and validate this). */
  latestDraft: PlanDraft | undefined;

  constructor(
    readonly panel: vscode.WebviewPanel,
    readonly folder: vscode.WorkspaceFolder,
    private readonly extensionUri: vscode.Uri,
    private readonly services: PlannerPanelServices,
  ) {
    panel.webview.options = {
      enableScripts: true,
      localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'media')],
    };
    panel.title = `Wave Planner: ${folder.name}`;
    panel.iconPath = vscode.Uri.joinPath(extensionUri, 'media', 'wave-scope.svg');
    panel.webview.html = plannerHtml(panel.webview, extensionUri, folder.name);
    this.disposables.push(
      panel.webview.onDidReceiveMessage((message: unknown) => void this.onMessage(message)),
      panel.onDidDispose(() => this.dispose()),
    );
  }

  /** Called once when the panel goes away. */
  onDispose(listener: () => void): void {
    this.disposeListeners.push(listener);
  }

  /** Sends a notification now, or once the webview is ready. */
  notify(notification: HostNotification): void {
    if (!this.readyReceived) {
      this.queue.push(notification);
      return;
    }
    void this.panel.webview.postMessage(notification);
  }

  get isReady(): boolean {
    return this.readyReceived;
  }

  private reply(message: ReplyMessage): void {
    void this.panel.webview.postMessage(message);
  }

  private async onMessage(message: unknown): Promise<void> {
    try {
      if (isReadyRequest(message)) {
        const result = await this.services.ready(this.folder);
        if (result.storedDraft?.dirty) this.latestDraft ??= result.storedDraft.draft;
        this.reply({ kind: 'reply', id: message.id, result });
        this.readyReceived = true;
        for (const queued of this.queue.splice(0)) void this.panel.webview.postMessage(queued);
      } else if (isSavePlanRequest(message)) {
        this.latestDraft = message.params.draft;
        try {
          const result = await this.services.save(this.folder, message.params.draft);
          this.reply({ kind: 'reply', id: message.id, result });
        } catch (error) {
          this.services.log(`save failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
          this.reply({ kind: 'reply', id: message.id, error: { message: `Saving failed: ${error instanceof Error ? error.message : String(error)}` } });
        }
      } else if (isDraftChangedCommand(message)) {
        this.latestDraft = message.params.draft;
        const { draft, contested, dirty, updatedAt } = message.params;
        this.services.draftChanged(this.folder, draft, contested, dirty, updatedAt);
      } else if (isOpenFileCommand(message)) {
        await this.services.openFile(this.folder, message.params.path);
      } else if (isReportTimingCommand(message)) {
        this.services.timing(message.params.name, message.params.milliseconds);
      } else {
        this.services.log(`ignored a message the planner protocol does not know: ${JSON.stringify(message).slice(0, 200)}`);
      }
    } catch (error) {
      this.services.log(`planner message failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      if (isReadyRequest(message)) {
        this.reply({ kind: 'reply', id: message.id, error: { message: error instanceof Error ? error.message : String(error) } });
      }
    }
  }

  private disposed = false;

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.panel.dispose();
    for (const disposable of this.disposables.splice(0)) disposable.dispose();
    for (const listener of this.disposeListeners.splice(0)) listener();
  }
}
