// The plan in the editor itself, from PlanInsights: Problems (a contested file of the active wave, and
// of draft waves when `waveScope.decorations.draftWaves` is on; a coordinator file an agent owns; every
// problem of a declaration file or of a manifest `validate` rejects), their code actions (Open in
// Planner on that wave and file, Narrow … for each side of a collision that can give way), hovers
// with the same text and command links, Explorer and tab badges with the owner's letter and colour
// (and a quieter hint for a file outside every scope of the active wave), and the status bar item.
import * as vscode from 'vscode';
import { LANE_COLORS } from '../protocol/laneColors';
import type { AgentActivity } from '../planner/dispatch/agentActivity';
import { foldCase } from '../planner/scope/scopeEntry';
import type { ContestedDecorations } from './contestedDecorations';
import type { FolderInsight, PlanInsights } from './planInsights';
import type { CollisionInsight, WaveInsight } from './planWork';
import { settings } from './settings';

/** The diagnostics' source, as the Problems view shows it. */
export const DIAGNOSTIC_SOURCE = 'Wave Scope';

/** What Open in Planner receives: the folder, and the wave and file to show. */
export interface FocusTarget {
  readonly folderUri: string;
  readonly wave?: number | undefined;
  readonly file?: string | undefined;
}

/** What Narrow receives: one side of one collision and the files the entry keeps. */
export interface NarrowTarget {
  readonly folderUri: string;
  readonly wave: number;
  readonly agent: string;
  readonly entry: string;
  readonly other: string;
  readonly files: readonly string[];
}

/** One mark of one file: its diagnostic text and the actions that go with it. */
export interface FileMark {
  readonly kind: 'contested' | 'coordinator' | 'declaration';
  readonly message: string;
  readonly severity: vscode.DiagnosticSeverity;
  readonly range: vscode.Range | undefined;
  /** Offsets into the file's text, turned into a range once the text is read. */
  readonly offsets?: { readonly start: number; readonly end: number };
  readonly code: string;
  readonly focus: FocusTarget;
  readonly narrowings: readonly NarrowTarget[];
}

/** The letter(s) an agent's badge shows (a FileDecoration badge holds at most two characters). */
export function badgeOf(agent: string): string {
  const letters = agent.replace(/[^A-Za-z0-9]/g, '');
  return (letters.slice(0, 1).toUpperCase() || '?') + (/\d$/.test(agent) ? agent.slice(-1) : '');
}

/** The theme colour id of a lane colour (contributed in package.json as waveScope.lane1 … lane8). */
export function laneThemeColor(color: string, index: number): string {
  const at = LANE_COLORS.indexOf(foldCase(color) as (typeof LANE_COLORS)[number]);
  const slot = at >= 0 ? at : ((index % LANE_COLORS.length) + LANE_COLORS.length) % LANE_COLORS.length;
  return `waveScope.lane${slot + 1}`;
}

function waveName(wave: WaveInsight): string {
  return `Wave ${wave.wave}${wave.active ? '' : ' (draft)'}`;
}

function narrowLabel(target: NarrowTarget): string {
  return `Narrow ${target.agent}'s ${target.entry} so ${target.other} keeps the shared files`;
}

/** The marks of every file of one folder's insight, by repository-relative path. */
export function marksOf(insight: FolderInsight): Map<string, FileMark[]> {
  const marks = new Map<string, FileMark[]>();
  const add = (path: string, mark: FileMark) => marks.set(path, [...(marks.get(path) ?? []), mark]);
  const folderUri = insight.folder.uri.toString();
  for (const wave of insight.data.waves) {
    if (!wave.active && !settings.draftWaves()) continue;
    for (const { file, claims } of wave.contested) {
      const agents = new Set(claims.map((claim) => claim.agent));
      const collisions = wave.collisions.filter((collision: CollisionInsight) => agents.has(collision.agents[0]) && agents.has(collision.agents[1]));
      const owners = claims.map((claim) => `${claim.agent} (${claim.entry})`).join(' and ');
      const witnesses = [...new Set(collisions.map((collision) => collision.witness))];
      const witness = witnesses.length > 0 ? `; witness ${witnesses.join(', ')}` : '';
      add(file, {
        kind: 'contested',
        message: `${waveName(wave)}: ${file} is contested: owned by ${owners}${witness}.`,
        severity: wave.active ? vscode.DiagnosticSeverity.Error : vscode.DiagnosticSeverity.Warning,
        range: new vscode.Range(0, 0, 0, 0),
        code: 'contested',
        focus: { folderUri, wave: wave.wave, file },
        narrowings: collisions.flatMap((collision) =>
          collision.narrowings.map((narrowing) => ({ folderUri, wave: wave.wave, agent: narrowing.agent, entry: narrowing.entry, other: narrowing.other, files: narrowing.files })),
        ),
      });
    }
  }
  const shownWaves = new Set(insight.data.waves.filter((wave) => wave.active || settings.draftWaves()).map((wave) => wave.wave));
  for (const assignment of insight.data.coordinatorAssignments) {
    if (!shownWaves.has(assignment.wave)) continue;
    add(assignment.file, {
      kind: 'coordinator',
      message: `Wave ${assignment.wave}: ${assignment.message}`,
      severity: vscode.DiagnosticSeverity.Warning,
      range: new vscode.Range(0, 0, 0, 0),
      code: 'coordinator-file',
      focus: { folderUri, wave: assignment.wave, file: assignment.file },
      narrowings: [],
    });
  }
  for (const { path, problems } of insight.data.fileProblems) {
    for (const problem of problems) {
      add(path, {
        kind: 'declaration',
        message: problem.message,
        severity: problem.severity === 'error' ? vscode.DiagnosticSeverity.Error : vscode.DiagnosticSeverity.Warning,
        range: undefined,
        offsets: { start: problem.start, end: problem.end },
        code: problem.code,
        focus: { folderUri, wave: insight.data.activeWave },
        narrowings: [],
      });
    }
  }
  return marks;
}

function rangeAt(text: string, start: number, end: number): vscode.Range {
  const position = (offset: number): vscode.Position => {
    const before = text.slice(0, Math.max(0, Math.min(offset, text.length)));
    const lines = before.split('\n');
    return new vscode.Position(lines.length - 1, (lines[lines.length - 1] ?? '').length);
  };
  return new vscode.Range(position(start), position(Math.max(start, end)));
}

/** The owner line of a file of the active wave, for tooltips and hovers. */
function ownerText(insight: FolderInsight, path: string): { text: string; claims: readonly { agent: string; entry: string }[] } | undefined {
  const active = insight.data.waves.find((wave) => wave.active);
  const claims = insight.owners.get(path);
  if (!active || !claims || claims.length === 0) return undefined;
  const activity = (agent: string): string => {
    const found = insight.activity.activities.find((item: AgentActivity) => item.agent === agent && (item.wave === undefined || item.wave === active.wave));
    return found ? `, ${found.state === 'in-flight' ? 'in flight' : 'finished'}` : '';
  };
  return { text: `Wave ${active.wave}: owned by ${claims.map((claim) => `${claim.agent} (${claim.entry}${activity(claim.agent)})`).join(' and ')}`, claims };
}

/**
 * `text` as Markdown that shows exactly that text: every ASCII punctuation character backslash-escaped
 * (CommonMark lets any of them be), line breaks as spaces. A link's text holds agent ids and scope
 * entries, which come from a plan anyone may have written (a clone's, a synced wave): unescaped, an entry
 * such as `src/[Open](command:…)` would put its own link inside ours, and the hover is trusted to run
 * commands (found by red-team review, 2026-12-06).
 */
export function markdownText(text: string): string {
  return text.replace(/[\r\n]+/g, ' ').replace(/[!-/:-@[-`{-~]/g, (character) => `\\${character}`);
}

function commandLink(title: string, command: string, args: unknown): string {
  return `[${markdownText(title)}](command:${command}?${encodeURIComponent(JSON.stringify([args]))})`;
}

/** The hover of a marked or owned file: every mark's text, with Open in Planner and Narrow links. */
export function hoverMarkdown(insight: FolderInsight, path: string, marks: readonly FileMark[]): vscode.MarkdownString | undefined {
  const owner = ownerText(insight, path);
  if (marks.length === 0 && !owner) return undefined;
  const markdown = new vscode.MarkdownString(undefined, true);
  markdown.isTrusted = { enabledCommands: ['waveScope.showInPlanner', 'waveScope.narrowEntry'] };
  markdown.appendMarkdown('**Wave Scope**\n\n');
  if (owner && !marks.some((mark) => mark.kind === 'contested')) markdown.appendText(`${owner.text}.`).appendMarkdown('\n\n');
  for (const mark of marks) markdown.appendText(mark.message).appendMarkdown('\n\n');
  const links = [commandLink('Open in Planner', 'waveScope.showInPlanner', marks[0]?.focus ?? { folderUri: insight.folder.uri.toString(), wave: insight.data.activeWave, file: path })];
  for (const mark of marks) for (const narrowing of mark.narrowings) links.push(commandLink(narrowLabel(narrowing), 'waveScope.narrowEntry', narrowing));
  markdown.appendMarkdown(links.join(' · '));
  return markdown;
}

export class EditorMarks implements vscode.FileDecorationProvider, vscode.CodeActionProvider, vscode.HoverProvider, vscode.Disposable {
  static readonly providedCodeActionKinds = [vscode.CodeActionKind.QuickFix];
  /** The Problems collection (tests read it through vscode.languages.getDiagnostics as well). */
  readonly diagnostics = vscode.languages.createDiagnosticCollection('wave-scope');
  /** The status bar item: active wave, agents, collisions, agents in flight. */
  readonly statusItem = vscode.window.createStatusBarItem('waveScope.status', vscode.StatusBarAlignment.Left, 50);
  /** The owner of the active editor's file. */
  readonly ownerItem = vscode.window.createStatusBarItem('waveScope.owner', vscode.StatusBarAlignment.Left, 49);
  private readonly changedDecorations = new vscode.EventEmitter<vscode.Uri[] | undefined>();
  readonly onDidChangeFileDecorations = this.changedDecorations.event;
  private updates = 0;
  /** Whether the status bar item is shown (a StatusBarItem cannot say). */
  statusShown = false;
  /** Marks by file URI (string). */
  private marks = new Map<string, FileMark[]>();
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly insights: PlanInsights,
    private readonly contested: ContestedDecorations,
  ) {
    this.statusItem.name = 'Wave Scope: plan';
    this.statusItem.command = 'waveScope.showInPlanner';
    this.ownerItem.name = 'Wave Scope: owner of this file';
    this.disposables.push(
      this.diagnostics,
      this.statusItem,
      this.ownerItem,
      this.changedDecorations,
      vscode.window.registerFileDecorationProvider(this),
      vscode.languages.registerCodeActionsProvider({ scheme: 'file' }, this, { providedCodeActionKinds: EditorMarks.providedCodeActionKinds }),
      vscode.languages.registerHoverProvider({ scheme: 'file' }, this),
      insights.onDidChange(() => void this.update()),
      vscode.window.onDidChangeActiveTextEditor(() => this.updateOwner()),
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (event.affectsConfiguration('waveScope.decorations')) void this.update();
      }),
    );
    contested.setHover((uri) => {
      const found = this.insights.forUri(uri);
      return found ? hoverMarkdown(found.insight, found.path, this.marks.get(uri.toString()) ?? []) : undefined;
    });
  }

  /** The marks of a file (tests read them). */
  marksOf(uri: vscode.Uri): readonly FileMark[] {
    return this.marks.get(uri.toString()) ?? [];
  }

  /** Recomputes diagnostics, badges and the status bar from every folder's insight. */
  async update(): Promise<void> {
    // An update that reads files can be overtaken by a newer one: only the newest applies its marks.
    const mine = ++this.updates;
    const next = new Map<string, FileMark[]>();
    const entries: [vscode.Uri, vscode.Diagnostic[]][] = [];
    for (const insight of this.insights.all()) {
      for (const [path, marks] of marksOf(insight)) {
        // The URI the folder shows the file under (its own, when it is opened through a link).
        const uri = insight.plan.uriOf(path);
        if (!uri) continue;
        let text: string | undefined;
        const placed: FileMark[] = [];
        for (const mark of marks) {
          let range = mark.range;
          if (!range && mark.offsets) {
            text ??= await readText(uri);
            range = rangeAt(text, mark.offsets.start, mark.offsets.end);
          }
          placed.push({ ...mark, range: range ?? new vscode.Range(0, 0, 0, 0) });
        }
        next.set(uri.toString(), placed);
        entries.push([
          uri,
          placed.map((mark) => {
            const diagnostic = new vscode.Diagnostic(mark.range as vscode.Range, mark.message, mark.severity);
            diagnostic.source = DIAGNOSTIC_SOURCE;
            diagnostic.code = mark.code;
            return diagnostic;
          }),
        ]);
      }
    }
    if (mine !== this.updates) return;
    this.marks = next;
    this.diagnostics.clear();
    this.diagnostics.set(entries);
    // Owners can change for any file: every decoration is asked again.
    this.changedDecorations.fire(undefined);
    this.contested.refreshHovers();
    this.updateStatus();
    this.updateOwner();
  }

  // ---- FileDecorationProvider --------------------------------------------------------------------

  provideFileDecoration(uri: vscode.Uri): vscode.FileDecoration | undefined {
    if (!settings.decorationsEnabled()) return undefined;
    const found = this.insights.forUri(uri);
    if (!found) return undefined;
    const { insight, path } = found;
    const marks = this.marks.get(uri.toString()) ?? [];
    const tooltipOf = (): string => {
      const owner = ownerText(insight, path);
      return ['Wave Scope', owner?.text, ...marks.map((mark) => mark.message)].filter(Boolean).join(' · ');
    };
    // Contested files carry the ⚠ of ContestedDecorations; this adds their full text to its tooltip.
    if (marks.some((mark) => mark.kind === 'contested')) return { tooltip: tooltipOf() };
    const active = insight.data.waves.find((wave) => wave.active);
    if (!active) return undefined;
    const claims = insight.owners.get(path);
    if (claims && claims.length > 0) {
      if (settings.decorationStyle() !== 'owners') return marks.length > 0 ? { tooltip: tooltipOf() } : undefined;
      const agent = claims[0]?.agent ?? '';
      const index = active.agents.findIndex((item) => item.id === agent);
      const color = active.agents[index]?.color ?? '';
      return { badge: badgeOf(agent), tooltip: tooltipOf(), color: new vscode.ThemeColor(laneThemeColor(color, Math.max(0, index))) };
    }
    if (marks.length > 0) return { badge: '!', tooltip: tooltipOf(), color: new vscode.ThemeColor('list.warningForeground') };
    // A file git knows that no agent of the active wave owns (folders are left alone: they propagate nothing here).
    if (!insight.data.planOnDisk || active.agents.length === 0) return undefined;
    const hint = settings.outsideScope();
    if (hint === 'off' || !insight.files.has(path)) return undefined;
    const tooltip = `Wave Scope · Wave ${active.wave}: outside every agent's scope (the coordinator's)`;
    return hint === 'badge' ? { badge: '·', tooltip } : { tooltip, color: new vscode.ThemeColor('list.deemphasizedForeground') };
  }

  // ---- CodeActionProvider ------------------------------------------------------------------------

  /** The last code action request (tests and the log read it). */
  lastCodeActions: { uri: string; count: number; error?: string } | undefined;

  provideCodeActions(document: vscode.TextDocument, range: vscode.Range | vscode.Selection, context: vscode.CodeActionContext): vscode.CodeAction[] {
    try {
      const actions = this.codeActions(document, range, context);
      this.lastCodeActions = { uri: document.uri.toString(), count: actions.length };
      return actions;
    } catch (error) {
      this.lastCodeActions = { uri: document.uri.toString(), count: 0, error: String(error) };
      throw error;
    }
  }

  private codeActions(document: vscode.TextDocument, range: vscode.Range | vscode.Selection, context: vscode.CodeActionContext): vscode.CodeAction[] {
    const marks = this.marks.get(document.uri.toString()) ?? [];
    const ours = context.diagnostics.filter((diagnostic) => diagnostic.source === DIAGNOSTIC_SOURCE);
    const actions: vscode.CodeAction[] = [];
    const seen = new Set<string>();
    for (const mark of marks) {
      const diagnostic = ours.find((item) => item.message === mark.message);
      if (!diagnostic && !(mark.range ?? new vscode.Range(0, 0, 0, 0)).intersection(range)) continue;
      const open = new vscode.CodeAction('Open in Planner', vscode.CodeActionKind.QuickFix);
      open.command = { title: 'Open in Planner', command: 'waveScope.showInPlanner', arguments: [mark.focus] };
      if (diagnostic) open.diagnostics = [diagnostic];
      if (!seen.has(`open ${mark.focus.wave ?? ''}`)) {
        seen.add(`open ${mark.focus.wave ?? ''}`);
        actions.push(open);
      }
      for (const narrowing of mark.narrowings) {
        const title = narrowLabel(narrowing);
        if (seen.has(title)) continue;
        seen.add(title);
        const narrow = new vscode.CodeAction(title, vscode.CodeActionKind.QuickFix);
        narrow.command = { title, command: 'waveScope.narrowEntry', arguments: [narrowing] };
        if (diagnostic) narrow.diagnostics = [diagnostic];
        actions.push(narrow);
      }
    }
    return actions;
  }

  // ---- HoverProvider -----------------------------------------------------------------------------

  provideHover(document: vscode.TextDocument, position: vscode.Position): vscode.Hover | undefined {
    const found = this.insights.forUri(document.uri);
    if (!found) return undefined;
    const marks = this.marks.get(document.uri.toString()) ?? [];
    // Marks with a range of their own (a declaration's entry) hover there; file-wide ones on the first line.
    const here = marks.filter((mark) => (mark.kind === 'declaration' ? (mark.range?.contains(position) ?? false) : position.line === 0));
    if (here.length === 0 && (position.line !== 0 || marks.length > 0)) return undefined;
    const markdown = hoverMarkdown(found.insight, found.path, here);
    return markdown ? new vscode.Hover(markdown) : undefined;
  }

  dispose(): void {
    for (const disposable of this.disposables.splice(0)) disposable.dispose();
  }

  // ---- status bar --------------------------------------------------------------------------------

  private updateStatus(): void {
    const shown = this.insights.all().filter((insight) => insight.data.planOnDisk || insight.data.waves.some((wave) => wave.agents.length > 0));
    if (shown.length === 0) {
      this.statusItem.hide();
      this.statusShown = false;
      return;
    }
    const editorFolder = vscode.window.activeTextEditor ? vscode.workspace.getWorkspaceFolder(vscode.window.activeTextEditor.document.uri) : undefined;
    const insight = shown.find((item) => item.folder.uri.toString() === editorFolder?.uri.toString()) ?? shown[0];
    if (!insight) return;
    const active = insight.data.waves.find((wave) => wave.active);
    const activities = insight.activity.activities.filter((item) => active === undefined || item.wave === undefined || item.wave === active.wave);
    const inFlight = activities.filter((item) => item.state === 'in-flight');
    const finished = activities.filter((item) => item.state === 'finished');
    const collisions = active?.collisions.length ?? 0;
    const parts = [
      active ? `Wave ${active.wave}` : 'No active wave',
      ...(active ? [`${active.agents.length} agent${active.agents.length === 1 ? '' : 's'}`] : []),
      ...(collisions > 0 ? [`${collisions} collision${collisions === 1 ? '' : 's'}`] : []),
      ...(inFlight.length > 0 ? [`${inFlight.length} in flight`] : []),
      ...(finished.length > 0 ? [`${finished.length} finished`] : []),
    ];
    this.statusItem.text = `${collisions > 0 ? '$(warning)' : '$(layers)'} ${parts.join(' · ')}`;
    this.statusItem.backgroundColor = collisions > 0 ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    const tooltip = new vscode.MarkdownString(undefined, true);
    tooltip.appendMarkdown(`**Wave Scope** · ${insight.folder.name}\n\n`);
    if (active) {
      for (const agent of active.agents) {
        const activity = activities.find((item) => item.agent === agent.id);
        tooltip.appendText(`${agent.id}: ${agent.entries.length} entr${agent.entries.length === 1 ? 'y' : 'ies'}${activity ? `, ${activity.state === 'in-flight' ? 'in flight' : 'finished'}` : ''}`).appendMarkdown('\n\n');
      }
    }
    tooltip.appendMarkdown('Click to open the planner.');
    this.statusItem.tooltip = tooltip;
    this.statusItem.command = { title: 'Open Planner', command: 'waveScope.showInPlanner', arguments: [{ folderUri: insight.folder.uri.toString(), wave: active?.wave }] };
    this.statusItem.show();
    this.statusShown = true;
  }

  private updateOwner(): void {
    const editor = vscode.window.activeTextEditor;
    const found = editor ? this.insights.forUri(editor.document.uri) : undefined;
    const owner = found ? ownerText(found.insight, found.path) : undefined;
    if (!found || !owner) {
      this.ownerItem.hide();
      return;
    }
    const agents = [...new Set(owner.claims.map((claim) => claim.agent))];
    this.ownerItem.text = `${agents.length > 1 ? '$(warning)' : '$(person)'} ${agents.join(' & ')}`;
    this.ownerItem.tooltip = `${owner.text}.`;
    this.ownerItem.command = { title: 'Open in Planner', command: 'waveScope.showInPlanner', arguments: [{ folderUri: found.insight.folder.uri.toString(), wave: found.insight.data.activeWave, file: found.path }] };
    this.ownerItem.show();
  }
}

async function readText(uri: vscode.Uri): Promise<string> {
  try {
    return new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
  } catch {
    return '';
  }
}
