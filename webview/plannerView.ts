// The planner's controller: talks to the host, holds the state, runs the reducer and the analysis, and
// hands each render's model to the <ws-planner> component tree (webview/components/). Rules live in the
// pure modules (plannerState, planAnalysis, plannerSummary, entryInput); components only lay them out.
import { literalEntryOf, unnameableNotice } from '../src/planner/scope/literalEntry';
import { RequestFailedError } from '../src/protocol/ipc';
import type { AgentActivityView, EditorNarrowing, KeptDraft, OverwriteChoice, PlanDraft, SaveOutcome } from '../src/protocol/plannerProtocol';
import {
  DidAssignNotification,
  DidChangeAgentActivityNotification,
  DidChangeClaimsNotification,
  DidChangeFilesNotification,
  DidChangeTrustNotification,
  DidFocusNotification,
  DidLoadPlanNotification,
  DidNarrowNotification,
  DidRequestActionNotification,
  DidSaveNotification,
  DraftChangedCommand,
  OpenFileCommand,
  PLANNER_STATE_VERSION,
  ReadyRequest,
  ReportTimingCommand,
  SavePlanRequest,
} from '../src/protocol/plannerProtocol';
import type { PlannerApp } from './components/plannerApp';
import './components/plannerApp';
import type { ClaimsModel, ConfirmRequest, PlannerControls, PlannerModel } from './components/model';
import { DRAG_TYPE } from './components/model';
import { buildFileTree } from './fileTree';
import type { FolderNode } from './fileTree';
import { droppedPathOf } from './droppedUris';
import type { DropRoot } from './droppedUris';
import type { Host } from './host';
import { contestedForDecorations, DraftAnalyses, MatchCache } from './planAnalysis';
import type { WaveAnalysis } from './planAnalysis';
import type { AbsoluteRoot, PlannerAction, PlannerState } from './plannerState';
import { narrowingFit, overwriteOf, redoLabel, reduce, reduceAll, removalCounts, selectedWave, staleChangesOf, undoLabel } from './plannerState';
import { summarize } from './plannerSummary';
import type { WaveFacts } from './plannerSummary';
import { count } from './wording';

/** A failed request, for a person; a timeout says the extension did not answer. */
function requestProblem(error: unknown): string {
  if (error instanceof RequestFailedError && error.reason === 'timeout') return `Wave Scope did not answer in time (${error.message.replace(/\.$/, '')})`;
  return error instanceof Error ? error.message.replace(/\.$/, '') : String(error);
}

/** Whether a key event belongs to a text field (its own undo and redo apply there). */
function inTextField(event: KeyboardEvent): boolean {
  const target = event.composedPath()[0];
  if (!(target instanceof HTMLElement)) return false;
  if (target instanceof HTMLTextAreaElement) return true;
  if (target instanceof HTMLInputElement) return !['checkbox', 'radio', 'button', 'color', 'range'].includes(target.type);
  return target.isContentEditable;
}

export class PlannerView implements PlannerControls {
  private state: PlannerState;
  private files: string[] = [];
  private controlFiles = new Set<string>();
  private tree: FolderNode = buildFileTree([]);
  private cache = new MatchCache([]);
  private analyses = new DraftAnalyses(this.cache);
  private ignoreCase = false;
  private trusted = true;
  private dropRoots: DropRoot[] = [];
  private absoluteRoots: AbsoluteRoot[] = [];
  private folderName = '';
  private ready = false;
  private loadProblem: string | undefined;
  private diskProblem: string | undefined;
  private claims: ClaimsModel = { claims: [], conflicts: [], problem: undefined };
  /** Which agents the dispatch ledgers say are in flight or finished (the editor's live status). */
  private activity: readonly AgentActivityView[] = [];
  /** An Open in Planner not yet carried out (see applyFocusRequest). */
  private focusRequest: { wave: number; file?: string } | undefined;
  /** How long a request waits for its answer; the host says so in its answer to ready. */
  private requestTimeoutMs: number | undefined;
  /** True until the first paint of the tree: entry matching waits so the tree shows first. */
  private deferAnalysis = false;
  private lastReported = '';
  private readonly app: PlannerApp;

  constructor(
    private readonly host: Host,
    container: HTMLElement,
    restored: PlannerState,
  ) {
    this.state = restored;
    this.app = document.createElement('ws-planner') as PlannerApp;
    this.app.controls = this;
    container.replaceChildren(this.app);
    this.listen();
    document.addEventListener('keydown', (event) => this.onKey(event));
    this.render();
    void this.start();
  }

  // ---- host traffic ----------------------------------------------------------------------------

  private async start(): Promise<void> {
    document.body.dataset.readySentMs = performance.now().toFixed(1);
    let result;
    try {
      result = await this.host.request(ReadyRequest, { stateVersion: PLANNER_STATE_VERSION });
    } catch (error) {
      document.body.dataset.readyFailed = error instanceof RequestFailedError ? error.reason : 'error';
      this.loadProblem = `The planner could not load: ${requestProblem(error)}. Close the planner and open it again.`;
      this.render();
      return;
    }
    document.body.dataset.readyAnsweredMs = performance.now().toFixed(1);
    this.requestTimeoutMs = result.requestTimeoutMs;
    this.ignoreCase = result.ignoreCase;
    this.trusted = result.trusted;
    this.dropRoots = result.dropRoots;
    this.absoluteRoots = result.absoluteRoots ?? [];
    this.folderName = result.folderName;
    this.diskProblem = result.diskProblem;
    this.setFiles(result.files, result.controlFiles);
    this.deferAnalysis = true;
    // The newer of the webview's own state and the host's copy wins (either can lag behind a reload).
    const own: KeptDraft = { draft: this.state.draft, dirty: this.state.dirty, updatedAt: this.state.updatedAt ?? 0, base: this.state.base };
    const kept = result.keptDraft;
    const newest = kept && kept.updatedAt > own.updatedAt ? kept : own;
    this.ready = true;
    // Persisted at once: VS Code hands this state back when it restores the panel, and the folder is
    // how the extension knows whose planner it is (in a multi-root window).
    this.state = { ...this.state, folderUri: result.folderUri };
    this.host.setState(this.state);
    this.dispatch({ type: 'loadDisk', diskPlan: result.diskPlan, keepDraft: newest.dirty ? newest.draft : undefined, keepBase: newest.dirty ? newest.base : undefined });
    this.render();
    document.body.dataset.title = result.folderName;
    await this.app.updateComplete;
    requestAnimationFrame(() => {
      // From the start of this webview document's navigation (its time origin) to the painted tree.
      const milliseconds = performance.now();
      document.body.dataset.treeShownMs = milliseconds.toFixed(1);
      this.host.command(ReportTimingCommand, { name: 'treeShown', milliseconds });
      // Then match counts, owners and collisions.
      setTimeout(() => {
        this.deferAnalysis = false;
        this.render();
        this.reportDraft();
      }, 0);
    });
  }

  private setFiles(files: string[], controlFiles: readonly string[] | undefined): void {
    if (controlFiles) this.controlFiles = new Set(controlFiles);
    const control = this.controlFiles;
    this.files = control.size === 0 ? files : files.filter((file) => !control.has(file));
    this.tree = buildFileTree(this.files);
    this.cache = new MatchCache(this.files, this.ignoreCase);
    this.analyses = new DraftAnalyses(this.cache);
  }

  /** The host's notifications (it holds them until it has answered the ready request). */
  private listen(): void {
    this.host.onNotification(DidLoadPlanNotification, ({ diskPlan, problem }) => {
      this.diskProblem = problem;
      this.dispatch({ type: 'loadDisk', diskPlan });
      this.render();
    });
    this.host.onNotification(DidChangeFilesNotification, ({ files, controlFiles, ignoreCase }) => {
      // A change of waveScope.plan.ignoreCase: every match and collision is worked out again with the new rule.
      if (ignoreCase !== undefined) this.ignoreCase = ignoreCase;
      this.setFiles(files, controlFiles);
      this.render();
      this.reportDraft();
    });
    this.host.onNotification(DidAssignNotification, ({ wave, agentId, entries }) => {
      this.dispatchAll(
        [{ type: 'ensureAgent', wave, agentId }, { type: 'selectWave', wave }, { type: 'addEntries', wave, agentId, entries }],
        `Assign ${entries.length === 1 ? entries[0] : count(entries.length, 'entry', 'entries')} to ${agentId}`,
      );
    });
    this.host.onNotification(DidSaveNotification, ({ outcome, savedDraft }) => this.showSaveOutcome(outcome, savedDraft));
    this.host.onNotification(DidNarrowNotification, (narrowing) => this.takeNarrowing(narrowing));
    this.host.onNotification(DidChangeTrustNotification, ({ trusted }) => {
      this.trusted = trusted;
      this.render();
    });
    this.host.onNotification(DidChangeClaimsNotification, ({ claims, conflicts, problem }) => {
      this.claims = { claims, conflicts, problem };
      this.render();
    });
    this.host.onNotification(DidChangeAgentActivityNotification, ({ agents }) => {
      this.activity = agents;
      this.render();
    });
    // The editor's Open in Planner: show the wave the problem is about.
    // The editor's Open in Planner. It can arrive before the planner has loaded its plan (a planner the
    // command just opened) or analysed it: kept until the wave and its collisions are on screen.
    this.host.onNotification(DidFocusNotification, ({ wave, file }) => {
      this.focusRequest = { wave, ...(file !== undefined ? { file } : {}) };
      this.render();
    });
    this.host.onNotification(DidRequestActionNotification, ({ action }) => {
      const wave = this.state.selectedWave;
      if (action === 'addWave') this.dispatch({ type: 'addWave' });
      else if (action === 'addAgent' && wave !== undefined) {
        this.dispatch({ type: 'addAgent', wave });
        this.focusAfterRender('ws-lane:last-of-type .agent-name');
      } else if (action === 'focusFilter') this.focusAfterRender('.tree-filter');
      else if (action === 'undo') this.dispatch({ type: 'undo' });
      else if (action === 'redo') this.dispatch({ type: 'redo' });
    });
  }

  save(): void {
    void this.saveNow(undefined);
  }

  overwrite(): void {
    const overwrite = overwriteOf(this.state);
    if (overwrite === undefined) return;
    const stale = staleChangesOf(this.state);
    const changes = stale.join('. ');
    void this.confirm({
      title: 'Overwrite the changes on disk?',
      body: `Someone changed the plan on disk after this draft was made (${changes}). Saving the draft writes over ${stale.length === 1 ? 'that change' : 'those changes'}; they are lost unless made again.`,
      confirmLabel: 'Overwrite changes on disk',
    }).then((confirmed) => {
      if (confirmed) void this.saveNow(overwrite);
    });
  }

  /** Saves the draft; `overwrite` names what changed on disk that the person chose to write over. */
  private async saveNow(overwrite: OverwriteChoice | undefined): Promise<void> {
    if (!this.ready || !this.trusted || this.state.save.kind === 'saving') return;
    const { draft, base } = this.state;
    this.dispatch({ type: 'saveStarted' });
    let outcome: SaveOutcome;
    try {
      outcome = await this.host.request(SavePlanRequest, { draft, base, ...overwrite }, { timeoutMs: this.requestTimeoutMs });
    } catch (error) {
      const late = error instanceof RequestFailedError && error.reason === 'timeout';
      this.dispatch({
        type: 'saveFailed',
        uncertain: late,
        message: late
          ? `${requestProblem(error)}: the plan may or may not be saved. The draft is kept, and the planner follows the plan on disk.`
          : `Saving failed: ${requestProblem(error)}`,
      });
      return;
    }
    this.showSaveOutcome(outcome, draft);
  }

  private showSaveOutcome(outcome: SaveOutcome, draft: PlanDraft | undefined): void {
    this.dispatch({ type: 'saveFinished', outcome, draft, at: Date.now() });
  }

  /**
   * The editor's Narrow, made again on this draft. When the save was refused and this draft no longer has
   * the narrowed entry, the narrowing and this draft cannot both be kept: the person chooses, and either
   * way is said (undo brings this draft back; keeping it says the narrowing was not added).
   */
  private takeNarrowing(narrowing: EditorNarrowing): void {
    if (narrowing.outcome.ok || narrowingFit(this.state, narrowing) !== 'apart') {
      this.dispatch({ type: 'takeNarrowing', narrowing, at: Date.now() });
      return;
    }
    const { agentId, entry, wave } = narrowing;
    const what = `${agentId}’s ${entry} in wave ${wave}`;
    void this.confirm({
      title: 'Use the narrowed draft instead of this one?',
      body: `Narrowing ${what} from the editor was not saved: the plan on disk changed. This draft no longer has that entry, so the narrowing cannot be added to it. Use the narrowed draft replaces this one (Undo, Ctrl+Z, brings this one back); Keep this draft drops the narrowing.`,
      confirmLabel: 'Use the narrowed draft',
      cancelLabel: 'Keep this draft',
    }).then((confirmed) => {
      if (confirmed) this.dispatch({ type: 'adoptNarrowed', narrowing, at: Date.now() });
      else this.dispatch({ type: 'notify', notice: `Kept this draft: narrowing ${what} was not added to it.` });
    });
  }

  openFile(path: string): void {
    this.host.command(OpenFileCommand, { path });
  }

  // ---- state -----------------------------------------------------------------------------------

  /** Applies an action, persists the state, tells the host about draft changes, and re-renders. */
  dispatch(action: PlannerAction): void {
    this.apply(reduce(this.state, action, this.reduceOptions()), action.type !== 'loadDisk');
  }

  /** Applies several actions as one undoable edit. */
  private dispatchAll(actions: PlannerAction[], label: string): void {
    this.apply(reduceAll(this.state, actions, label, this.reduceOptions()), true);
  }

  private reduceOptions() {
    return { ignoreCase: this.ignoreCase, absoluteRoots: this.absoluteRoots };
  }

  private apply(next: PlannerState, byPerson: boolean): void {
    if (byPerson) this.deferAnalysis = false;
    const before = this.state;
    if (next === before) return;
    // The base counts too: a save that lands under an edit made meanwhile changes only the base, and the
    // host's palette Save must not compare the disk with the base from before that save.
    const draftChanged = next.draft !== before.draft || next.dirty !== before.dirty || next.base !== before.base;
    this.state = draftChanged ? { ...next, updatedAt: Date.now() } : next;
    this.host.setState(this.state);
    this.render();
    if (draftChanged) this.reportDraft();
  }

  /**
   * Tells the host about the draft at once (no delay: a Ctrl+S right after an edit saves what is on
   * screen), with the files to mark in VS Code: those of the active wave, not of the open tab.
   */
  private reportDraft(): void {
    if (!this.ready) return;
    const contested = this.deferAnalysis ? [] : contestedForDecorations(this.state.draft, (wave) => this.analyses.of(wave));
    const message = { draft: this.state.draft, contested, dirty: this.state.dirty, updatedAt: this.state.updatedAt ?? Date.now(), base: this.state.base };
    const key = JSON.stringify([message.draft, contested, message.dirty, message.base]);
    if (key === this.lastReported) return;
    this.lastReported = key;
    this.host.command(DraftChangedCommand, message);
  }

  private analysisOf(wave: number | undefined): WaveAnalysis | undefined {
    if (this.deferAnalysis || wave === undefined) return undefined;
    const draftWave = this.state.draft.waves.find((item) => item.wave === wave);
    return draftWave ? this.analyses.of(draftWave) : undefined;
  }

  private model(): PlannerModel {
    const state = this.state;
    const facts = new Map<number, WaveFacts>();
    if (!this.deferAnalysis) {
      for (const wave of state.draft.waves) {
        const analysis = this.analyses.of(wave);
        facts.set(wave.wave, {
          collisions: analysis.collisions.length,
          unowned: analysis.unowned,
          claimConflicts: this.claims.conflicts.filter((conflict) => conflict.wave === wave.wave).length,
        });
      }
    }
    const summary = summarize({ state, facts, trusted: this.trusted, ready: this.ready, analysed: !this.deferAnalysis && this.ready });
    return {
      state,
      folderName: this.folderName || document.body.dataset.title || '',
      ready: this.ready,
      trusted: this.trusted,
      loadProblem: this.loadProblem,
      diskProblem: this.diskProblem,
      analysis: this.analysisOf(state.selectedWave),
      facts,
      summary,
      cache: this.cache,
      tree: this.tree,
      fileCount: this.files.length,
      controlFiles: this.controlFiles,
      ignoreCase: this.ignoreCase,
      absoluteRoots: this.absoluteRoots,
      claims: this.claims,
      activity: this.activity,
      undoLabel: undoLabel(state),
      redoLabel: redoLabel(state),
    };
  }

  private render(): void {
    if (this.focusRequest !== undefined && this.ready) this.applyFocusRequest(this.focusRequest);
    const model = this.model();
    this.app.model = model;
    document.body.dataset.collisions = String(model.analysis?.collisions.length ?? 0);
    document.body.dataset.dirty = String(this.state.dirty);
  }

  /** Shows the wave a problem is about and, once its analysis is there, focuses the collision whose example path is the file. */
  private applyFocusRequest(request: { wave: number; file?: string }): void {
    if (!this.state.draft.waves.some((item) => item.wave === request.wave)) {
      this.focusRequest = undefined;
      return;
    }
    if (this.state.selectedWave !== request.wave) {
      this.state = reduce(this.state, { type: 'selectWave', wave: request.wave }, this.reduceOptions());
      this.host.setState(this.state);
    }
    if (this.analysisOf(request.wave) === undefined) return;
    this.focusRequest = undefined;
    const collision = request.file === undefined ? '.collision .resolve' : `.collision:has(.collision-why[data-witness="${CSS.escape(request.file)}"]) .resolve`;
    this.focusAfterRender(collision, '.collision .resolve');
  }

  // ---- controls --------------------------------------------------------------------------------

  focusAfterRender(selector: string, fallback?: string): void {
    this.app.focusAfterRender(fallback ? [selector, fallback] : [selector]);
  }

  confirm(request: ConfirmRequest): Promise<boolean> {
    return new Promise((resolve) => {
      this.app.confirmation = {
        ...request,
        answer: (confirmed) => {
          this.app.confirmation = undefined;
          resolve(confirmed);
        },
      };
    });
  }

  deleteWave(wave: number): void {
    const draftWave = this.state.draft.waves.find((item) => item.wave === wave);
    if (!draftWave) return;
    const { agents, entries } = removalCounts(draftWave);
    const remove = () => {
      this.dispatch({ type: 'deleteWave', wave });
      this.focusAfterRender('.wave-tab.selected', '.add-wave');
    };
    if (agents === 0) {
      remove();
      return;
    }
    void this.confirm({
      title: `Delete wave ${wave}?`,
      body: `Wave ${wave} has ${count(agents, 'agent')} and ${count(entries, 'entry', 'entries')}. Its declaration files are removed at the next save. Undo (Ctrl+Z) brings the wave back.`,
      confirmLabel: `Delete wave ${wave}`,
    }).then((confirmed) => {
      if (confirmed) remove();
    });
  }

  removeAgent(wave: number, agentId: string): void {
    const draftWave = this.state.draft.waves.find((item) => item.wave === wave);
    if (!draftWave) return;
    const { entries } = removalCounts(draftWave, agentId);
    const at = draftWave.agents.findIndex((agent) => agent.id === agentId);
    const remove = () => {
      this.dispatch({ type: 'removeAgent', wave, agentId });
      // The lane that took its place, else the one before it, else the board's action.
      this.focusAfterRender(`ws-lane:nth-of-type(${at + 1}) .remove-agent`, at > 0 ? `ws-lane:nth-of-type(${at}) .remove-agent` : '.add-agent');
    };
    if (entries === 0) {
      remove();
      return;
    }
    void this.confirm({
      title: `Remove agent ${agentId}?`,
      body: `${agentId} owns ${count(entries, 'entry', 'entries')} in wave ${wave}. Undo (Ctrl+Z) brings the agent back.`,
      confirmLabel: `Remove ${agentId}`,
    }).then((confirmed) => {
      if (confirmed) remove();
    });
  }

  adoptDisk(): void {
    void this.confirm({
      title: 'Load the plan from disk?',
      body: 'The draft’s unsaved edits are replaced by the plan on disk. Undo (Ctrl+Z) brings the draft back.',
      confirmLabel: 'Load plan from disk',
    }).then((confirmed) => {
      if (confirmed) this.dispatch({ type: 'adoptDisk' });
    });
  }

  /** Entries carried by a drop: our own tree rows, or files dragged from VS Code's Explorer. */
  entriesFromDrop(data: DataTransfer | null): string[] {
    if (!data) return [];
    const ours = data.getData(DRAG_TYPE);
    if (ours) {
      try {
        const parsed: unknown = JSON.parse(ours);
        if (Array.isArray(parsed)) return parsed.filter((item): item is string => typeof item === 'string');
      } catch {
        return [];
      }
    }
    const uris = (data.getData('application/vnd.code.uri-list') || data.getData('text/uri-list'))
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter((line) => line !== '' && !line.startsWith('#'));
    const result: string[] = [];
    const unnameable: string[] = [];
    for (const uri of uris) {
      const relative = droppedPathOf(uri, this.dropRoots);
      if (relative === undefined) continue;
      const isFolder = !this.cache.index.has(relative) && this.cache.index.hasFilesBeneath(relative);
      const entry = literalEntryOf(relative, { folder: isFolder });
      if (entry === undefined) unnameable.push(relative);
      else result.push(entry);
    }
    if (unnameable.length > 0) this.dispatch({ type: 'notify', notice: unnameableNotice(unnameable) });
    return result;
  }

  droppedAt(started: number): void {
    void this.app.updateComplete.then(() => {
      const milliseconds = performance.now() - started;
      document.body.dataset.lastDropMs = milliseconds.toFixed(1);
      this.host.command(ReportTimingCommand, { name: 'dropToRender', milliseconds });
    });
  }

  // ---- keys ------------------------------------------------------------------------------------

  /** Ctrl+Z / Ctrl+Shift+Z (and Ctrl+Y) undo and redo draft edits, except inside a text field. */
  private onKey(event: KeyboardEvent): void {
    const mod = event.ctrlKey || event.metaKey;
    if (!mod || event.altKey || inTextField(event)) return;
    // With Shift held the key reads "Z" (and with Caps Lock too): both spellings, no case folding of a key.
    const z = event.key === 'z' || event.key === 'Z';
    const y = event.key === 'y' || event.key === 'Y';
    if (z && !event.shiftKey) this.dispatch({ type: 'undo' });
    else if ((z && event.shiftKey) || y) this.dispatch({ type: 'redo' });
    else return;
    event.preventDefault();
  }

  /** The wave on screen (for tests and tools that read the page). */
  get openWave(): number | undefined {
    return selectedWave(this.state)?.wave;
  }
}
