// The workspace folder a command acts on.
import * as vscode from 'vscode';

/** From the command's argument (a URI inside a folder), the only folder, the active editor's, or a pick. */
export async function pickFolder(hint?: unknown): Promise<vscode.WorkspaceFolder | undefined> {
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
