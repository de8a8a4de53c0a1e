// Contested files (owned by two agents of the planned wave) marked in VS Code itself: a badge and
// colour in the Explorer (FileDecorationProvider) and a gutter icon plus overview-ruler mark on the
// first line of an open editor.
import * as vscode from 'vscode';

export class ContestedDecorations implements vscode.FileDecorationProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri[]>();
  readonly onDidChangeFileDecorations = this.changed.event;
  /** Contested file URIs (as strings) → their note, of every folder. */
  private contested = new Map<string, string>();
  /** Each workspace folder's (by its URI) contested file URIs → their note. */
  private readonly byFolder = new Map<string, Map<string, string>>();
  private readonly gutter: vscode.TextEditorDecorationType;
  private readonly disposables: vscode.Disposable[] = [];
  /** The hover of a contested file's gutter mark (EditorMarks gives the full text with command links). */
  private hoverOf: (uri: vscode.Uri) => vscode.MarkdownString | undefined = () => undefined;

  constructor(extensionUri: vscode.Uri) {
    this.gutter = vscode.window.createTextEditorDecorationType({
      gutterIconPath: vscode.Uri.joinPath(extensionUri, 'media', 'contested.svg'),
      gutterIconSize: 'contain',
      overviewRulerColor: new vscode.ThemeColor('editorError.foreground'),
      overviewRulerLane: vscode.OverviewRulerLane.Left,
      isWholeLine: true,
    });
    this.disposables.push(
      this.gutter,
      this.changed,
      vscode.window.registerFileDecorationProvider(this),
      vscode.window.onDidChangeVisibleTextEditors(() => this.decorateEditors()),
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (event.affectsConfiguration('waveScope.decorations.enabled')) this.refreshAll();
      }),
    );
  }

  private get enabled(): boolean {
    return vscode.workspace.getConfiguration('waveScope.decorations').get<boolean>('enabled', true);
  }

  /**
   * Replaces the contested files of one workspace folder (`folder` is its URI): `files` are their URIs as
   * the folder shows them (FolderPlan.uriOf), which through a linked folder are not the repository's.
   */
  setContested(folder: vscode.Uri, files: readonly vscode.Uri[], note = 'contested by two agents in the plan'): void {
    const key = folder.toString();
    const before = this.byFolder.get(key) ?? new Map<string, string>();
    const after = new Map(files.map((file) => [file.toString(), note]));
    if (after.size > 0) this.byFolder.set(key, after);
    else this.byFolder.delete(key);
    const next = new Map<string, string>();
    for (const marks of this.byFolder.values()) for (const [uri, text] of marks) next.set(uri, text);
    this.contested = next;
    const touched = new Set([...before.keys(), ...after.keys()]);
    this.changed.fire([...touched].map((uri) => vscode.Uri.parse(uri)));
    this.decorateEditors();
  }

  /** Whether the file is currently marked contested (used by tests and the status of commands). */
  isContested(uri: vscode.Uri): boolean {
    return this.contested.has(uri.toString());
  }

  provideFileDecoration(uri: vscode.Uri): vscode.FileDecoration | undefined {
    if (!this.enabled) return undefined;
    const note = this.contested.get(uri.toString());
    if (!note) return undefined;
    return {
      badge: '⚠',
      tooltip: `Wave Scope: ${note}`,
      color: new vscode.ThemeColor('list.errorForeground'),
      propagate: true,
    };
  }

  /** Where the gutter mark's hover text comes from. */
  setHover(hoverOf: (uri: vscode.Uri) => vscode.MarkdownString | undefined): void {
    this.hoverOf = hoverOf;
  }

  /** Sets the gutter marks again (their hover text changed). */
  refreshHovers(): void {
    this.decorateEditors();
  }

  private refreshAll(): void {
    this.changed.fire([...this.contested.keys()].map((uri) => vscode.Uri.parse(uri)));
    this.decorateEditors();
  }

  private decorateEditors(): void {
    for (const editor of vscode.window.visibleTextEditors) {
      const note = this.enabled ? this.contested.get(editor.document.uri.toString()) : undefined;
      editor.setDecorations(
        this.gutter,
        note ? [{ range: new vscode.Range(0, 0, 0, 0), hoverMessage: this.hoverOf(editor.document.uri) ?? `Wave Scope: ${note}` }] : [],
      );
    }
  }

  dispose(): void {
    for (const disposable of this.disposables.splice(0)) disposable.dispose();
  }
}
