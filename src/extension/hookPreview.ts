// The texts Install Hooks and Uninstall Hooks show before they change anything: every file of the
// CLI's plan (`install-hooks --dry-run --json`), before and after, served read-only under the
// `wave-scope-preview` scheme and opened together in one multi-file diff.
import * as vscode from 'vscode';
import type { PlannedChange } from '../node/hookInstall';

export const PREVIEW_SCHEME = 'wave-scope-preview';

export class HookPreview implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly registration = vscode.workspace.registerTextDocumentContentProvider(PREVIEW_SCHEME, this);
  private round = 0;

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? '';
  }

  /** Opens the diff of every change; returns the [file, before, after] triples it showed. */
  async show(title: string, changes: readonly PlannedChange[]): Promise<[vscode.Uri, vscode.Uri, vscode.Uri][]> {
    this.round += 1;
    this.texts.clear();
    const triples = changes.map((change, index): [vscode.Uri, vscode.Uri, vscode.Uri] => {
      const file = vscode.Uri.file(change.path);
      const side = (name: string, text: string | null) => {
        const uri = vscode.Uri.from({ scheme: PREVIEW_SCHEME, path: change.path, query: `${this.round}-${index}-${name}` });
        this.texts.set(uri.toString(), text ?? '');
        return uri;
      };
      const replacing = change.replaces !== undefined && change.replaces.kind !== 'absent' ? ', replacing the file there' : '';
      const after =
        change.renameTo !== undefined
          ? `(renamed to ${change.renameTo}${replacing})\n${change.before ?? ''}`
          : change.linkTo !== undefined
            ? `(saved as ${change.linkTo} too, left as it is here)\n${change.before ?? ''}`
            : change.after;
      return [file, side('before', change.before), side('after', after)];
    });
    if (triples.length === 0) return triples;
    try {
      await vscode.commands.executeCommand('vscode.changes', title, triples);
    } catch {
      // A host without the multi-file diff: the first file's diff (the list is in the confirmation).
      const first = triples[0];
      if (first) await vscode.commands.executeCommand('vscode.diff', first[1], first[2], `${title}: ${vscode.workspace.asRelativePath(first[0])}`);
    }
    return triples;
  }

  dispose(): void {
    this.registration.dispose();
    this.changed.dispose();
  }
}
