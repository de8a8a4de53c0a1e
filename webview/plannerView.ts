// The planner's DOM: wave tabs, agent lanes, the virtualised file tree and the collision list.
// State lives in plannerState.ts; this file only renders it and turns gestures into actions.
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-textfield/index.js';
import '@vscode-elements/elements/dist/vscode-checkbox/index.js';
import '@vscode-elements/elements/dist/vscode-badge/index.js';
import { buildFileTree, flattenTree } from './fileTree';
import type { FolderNode, TreeRow } from './fileTree';
import { analyzeWave, entryKey, MatchCache, narrowEntry } from './planAnalysis';
import type { WaveAnalysis } from './planAnalysis';
import type { Host } from './host';
import type { PlannerAction, PlannerState } from './plannerState';
import { reduce, selectedWave } from './plannerState';
import { RequestFailedError } from '../src/protocol/ipc';
import type { AgentActivityView, KeptDraft, PlanDraft, SaveOutcome } from '../src/protocol/plannerProtocol';
import {
  DidAssignNotification,
  DidChangeAgentActivityNotification,
  DidChangeFilesNotification,
  DidFocusNotification,
  DidChangeTrustNotification,
  DidLoadPlanNotification,
  DidRequestActionNotification,
  DidSaveNotification,
  DraftChangedCommand,
  OpenFileCommand,
  PLANNER_STATE_VERSION,
  ReadyRequest,
  ReportTimingCommand,
  SavePlanRequest,
} from '../src/protocol/plannerProtocol';

const ROW_HEIGHT = 22;
const OVERSCAN = 10;
const DRAG_TYPE = 'application/x-wave-scope-entries';

/** Attributes, plus properties written as `.name`. */
type Attributes = Record<string, string | number | boolean | undefined>;

/** Creates an element; `on*` keys of `events` become listeners. */
function h(
  tag: string,
  attributes: Attributes = {},
  children: (Node | string | undefined)[] = [],
  events: Record<string, (event: Event) => void> = {},
): HTMLElement {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    if (name.startsWith('.')) {
      // A property, not an attribute (vscode-textfield's `label`, the inner input's accessible name).
      (element as unknown as Record<string, unknown>)[name.slice(1)] = value;
      continue;
    }
    if (name === 'style') {
      // Through the CSSOM: the content security policy (rightly) refuses inline style attributes.
      for (const declaration of String(value).split(';')) {
        const colon = declaration.indexOf(':');
        if (colon > 0) element.style.setProperty(declaration.slice(0, colon).trim(), declaration.slice(colon + 1).trim());
      }
      continue;
    }
    element.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children) if (child !== undefined) element.append(child);
  for (const [name, listener] of Object.entries(events)) element.addEventListener(name, listener);
  return element;
}

/** A failed request, for a person; a timeout says the extension did not answer. */
function requestProblem(error: unknown): string {
  if (error instanceof RequestFailedError && error.reason === 'timeout') return `Wave Scope did not answer in time (${error.message.replace(/\.$/, '')})`;
  return error instanceof Error ? error.message.replace(/\.$/, '') : String(error);
}

/** The value of a vscode-textfield or a plain input. */
function valueOf(element: Element | null): string {
  return (element as HTMLInputElement | null)?.value ?? '';
}

export class PlannerView {
  private state: PlannerState;
  private files: string[] = [];
  private tree: FolderNode = buildFileTree([]);
  private cache = new MatchCache([]);
  private ignoreCase = false;
  private trusted = true;
  /** Which agents the dispatch ledgers say are in flight or finished (the editor's live status). */
  private activity: readonly AgentActivityView[] = [];
  private rootUri = '';
  private analysis: WaveAnalysis | undefined;
  private analysedDraft: PlanDraft | undefined;
  private analysedWave: number | undefined;
  private rows: TreeRow[] = [];
  private rowsKey = '';
  private activeRow = 0;
  /** How long a request waits for its answer; the host says so in its answer to ready. */
  private requestTimeoutMs: number | undefined;
  private saveStatus: { text: string; kind: 'ok' | 'error' | 'info' } | undefined;
  private lastSaveCollisions: SaveOutcome | undefined;
  private draftTimer: ReturnType<typeof setTimeout> | undefined;
  private ready = false;
  /** True until the first paint of the tree: entry matching waits so the tree shows first. */
  private deferAnalysis = false;

  private readonly root: HTMLElement;
  private readonly header = h('header', { class: 'planner-header' });
  private readonly tabs = h('div', { class: 'wave-tabs', role: 'tablist', 'aria-label': 'Waves' });
  private readonly waveSettings = h('section', { class: 'wave-settings', 'aria-label': 'Wave settings' });
  private readonly notice = h('div', { class: 'notice', role: 'status', 'aria-live': 'polite' });
  private readonly treeViewport: HTMLElement;
  private readonly treeSpacer = h('div', { class: 'tree-spacer' });
  private readonly treeSummary = h('div', { class: 'tree-summary', 'aria-live': 'polite' });
  private readonly lanes = h('section', { class: 'lanes', 'aria-label': 'Agents' });
  private readonly collisionList = h('section', { class: 'collisions', 'aria-label': 'Collisions' });

  constructor(
    private readonly host: Host,
    container: HTMLElement,
    restored: PlannerState,
  ) {
    this.state = restored;
    this.root = container;
    this.treeViewport = h(
      'div',
      { class: 'tree', role: 'tree', tabindex: 0, 'aria-label': 'Repository files', 'aria-multiselectable': 'false' },
      [this.treeSpacer],
      {
        scroll: () => this.renderTreeRows(),
        keydown: (event) => this.onTreeKey(event as KeyboardEvent),
      },
    );
    const filter = h('vscode-textfield', { class: 'tree-filter', placeholder: 'Filter files', 'aria-label': 'Filter files', '.label': 'Filter files' }, [], {
      input: (event) => this.dispatch({ type: 'setFilter', filter: valueOf(event.currentTarget as Element) }),
    });
    const treePane = h('aside', { class: 'tree-pane', 'aria-label': 'Files' }, [filter, this.treeSummary, this.treeViewport]);
    const body = h('main', { class: 'planner-body' }, [treePane, h('div', { class: 'plan-pane' }, [this.lanes, this.collisionList])]);
    this.root.replaceChildren(this.header, this.notice, this.tabs, this.waveSettings, body);
    new ResizeObserver(() => this.renderTreeRows()).observe(this.treeViewport);
    this.listen();
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
      this.saveStatus = { text: `The planner could not load: ${requestProblem(error)}. Close the planner and open it again.`, kind: 'error' };
      this.render();
      return;
    }
    document.body.dataset.readyAnsweredMs = performance.now().toFixed(1);
    this.requestTimeoutMs = result.requestTimeoutMs;
    this.ignoreCase = result.ignoreCase;
    this.trusted = result.trusted;
    this.rootUri = result.rootUri;
    this.setFiles(result.files);
    this.deferAnalysis = true;
    // The newer of the webview's own state and the host's copy wins (either can lag behind a reload).
    const own: KeptDraft = { draft: this.state.draft, dirty: this.state.dirty, updatedAt: this.state.updatedAt ?? 0 };
    const kept = result.keptDraft;
    const newest = kept && kept.updatedAt > own.updatedAt ? kept : own;
    const keep = newest.dirty ? newest.draft : undefined;
    this.ready = true;
    // Persisted at once: VS Code hands this state back when it restores the panel, and the folder is
    // how the extension knows whose planner it is (in a multi-root window).
    this.state = { ...this.state, folderUri: result.folderUri };
    this.host.setState(this.state);
    this.dispatch({ type: 'loadDisk', diskPlan: result.diskPlan, keepDraft: keep });
    if (result.diskProblem) this.saveStatus = { text: result.diskProblem, kind: 'error' };
    this.render();
    document.body.dataset.title = result.folderName;
    requestAnimationFrame(() => {
      // From the start of this webview document's navigation (its time origin) to the painted tree.
      const milliseconds = performance.now();
      document.body.dataset.treeShownMs = milliseconds.toFixed(1);
      this.host.command(ReportTimingCommand, { name: 'treeShown', milliseconds });
      // Then match counts, owners and collisions.
      setTimeout(() => {
        this.deferAnalysis = false;
        this.render();
      }, 0);
    });
  }

  private setFiles(files: string[]): void {
    this.files = files;
    this.tree = buildFileTree(files);
    this.cache = new MatchCache(files, this.ignoreCase);
    this.analysedDraft = undefined;
    this.rowsKey = '';
  }

  /** The host's notifications (it holds them until it has answered the ready request). */
  private listen(): void {
    this.host.onNotification(DidLoadPlanNotification, ({ diskPlan, problem }) => {
      this.dispatch({ type: 'loadDisk', diskPlan });
      if (problem) this.saveStatus = { text: problem, kind: 'error' };
    });
    this.host.onNotification(DidChangeFilesNotification, ({ files }) => {
      this.setFiles(files);
      this.render();
    });
    this.host.onNotification(DidAssignNotification, ({ wave, agentId, entries }) => {
      this.dispatch({ type: 'ensureAgent', wave, agentId });
      if (this.state.selectedWave !== wave) this.dispatch({ type: 'selectWave', wave });
      this.dispatch({ type: 'addEntries', wave, agentId, entries });
    });
    this.host.onNotification(DidSaveNotification, ({ outcome, savedDraft }) => this.showSaveOutcome(outcome, savedDraft));
    this.host.onNotification(DidChangeTrustNotification, ({ trusted }) => {
      this.trusted = trusted;
      this.render();
    });
    this.host.onNotification(DidChangeAgentActivityNotification, ({ agents }) => {
      this.activity = agents;
      this.render();
    });
    this.host.onNotification(DidFocusNotification, ({ wave }) => {
      if (this.state.draft.waves.some((item) => item.wave === wave) && this.state.selectedWave !== wave) this.dispatch({ type: 'selectWave', wave });
    });
    this.host.onNotification(DidRequestActionNotification, ({ action }) => {
      const wave = this.state.selectedWave;
      if (action === 'addWave') this.dispatch({ type: 'addWave' });
      else if (action === 'addAgent' && wave !== undefined) this.dispatch({ type: 'addAgent', wave });
      else if (action === 'focusFilter') (this.root.querySelector('.tree-filter') as HTMLElement | null)?.focus();
    });
  }

  private async save(): Promise<void> {
    this.saveStatus = { text: 'Saving…', kind: 'info' };
    this.render();
    const draft = this.state.draft;
    let outcome: SaveOutcome;
    try {
      outcome = await this.host.request(SavePlanRequest, { draft }, { timeoutMs: this.requestTimeoutMs });
    } catch (error) {
      const late = error instanceof RequestFailedError && error.reason === 'timeout';
      this.saveStatus = {
        text: late
          ? `${requestProblem(error)}: the plan may or may not be saved. The draft is kept, and the planner follows the plan on disk.`
          : `Saving failed: ${requestProblem(error)}`,
        kind: 'error',
      };
      this.render();
      return;
    }
    this.showSaveOutcome(outcome, outcome.ok ? draft : undefined);
  }

  private showSaveOutcome(outcome: SaveOutcome, savedDraft: PlanDraft | undefined): void {
    this.saveStatus = { text: outcome.message, kind: outcome.ok ? 'ok' : 'error' };
    this.lastSaveCollisions = outcome.ok ? undefined : outcome;
    if (outcome.ok && savedDraft) this.dispatch({ type: 'savedDraft', draft: savedDraft });
    else this.render();
  }

  // ---- state -----------------------------------------------------------------------------------

  /** Applies an action, persists the state, tells the host about draft changes, and re-renders. */
  dispatch(action: PlannerAction): void {
    if (action.type !== 'loadDisk') this.deferAnalysis = false;
    const before = this.state;
    this.state = reduce(before, action, { ignoreCase: this.ignoreCase });
    if (this.state === before) return;
    const draftChanged = this.state.draft !== before.draft || this.state.dirty !== before.dirty;
    if (draftChanged) this.state = { ...this.state, updatedAt: Date.now() };
    this.host.setState(this.state);
    if (draftChanged) this.scheduleDraftReport();
    this.render();
  }

  private scheduleDraftReport(): void {
    if (!this.ready) return;
    if (this.draftTimer !== undefined) clearTimeout(this.draftTimer);
    this.draftTimer = setTimeout(() => {
      this.draftTimer = undefined;
      const contested = [...(this.currentAnalysis()?.contested ?? [])];
      this.host.command(DraftChangedCommand, {
        draft: this.state.draft,
        contested,
        dirty: this.state.dirty,
        updatedAt: this.state.updatedAt ?? Date.now(),
      });
    }, 100);
  }

  private currentAnalysis(): WaveAnalysis | undefined {
    const wave = selectedWave(this.state);
    if (!wave || this.deferAnalysis) return undefined;
    if (this.analysedDraft === this.state.draft && this.analysedWave === wave.wave && this.analysis) return this.analysis;
    this.analysis = analyzeWave(wave, this.cache);
    this.analysedDraft = this.state.draft;
    this.analysedWave = wave.wave;
    return this.analysis;
  }

  // ---- rendering -------------------------------------------------------------------------------

  /** Re-renders a part only when what it shows changed (web components are not free to recreate). */
  private readonly renderedKeys = new Map<string, string>();

  private changed(part: string, key: unknown): boolean {
    const text = JSON.stringify(key);
    if (this.renderedKeys.get(part) === text) return false;
    this.renderedKeys.set(part, text);
    return true;
  }

  private render(): void {
    const analysis = this.currentAnalysis();
    const wave = selectedWave(this.state);
    const { draft } = this.state;
    if (this.changed('header', [this.trusted, this.ready, this.state.dirty, this.saveStatus, this.state.diskChangedUnderDraft, this.state.notice, document.body.dataset.title])) {
      this.renderHeader();
    }
    if (this.changed('tabs', [draft.waves.map((item) => item.wave), this.state.selectedWave, draft.activeWave])) this.renderTabs();
    if (this.changed('settings', [wave?.wave, wave?.role, draft.activeWave, this.state.notice])) this.renderWaveSettings();
    this.renderLanes(analysis);
    this.renderCollisions(analysis);
    this.renderTreeRows(true);
    document.body.dataset.collisions = String(analysis?.collisions.length ?? 0);
    document.body.dataset.dirty = String(this.state.dirty);
  }

  private renderHeader(): void {
    const saveButton = h('vscode-button', { class: 'save', disabled: !this.trusted || !this.ready, title: 'Save the plan (Ctrl+S)' }, ['Save plan'], {
      click: () => void this.save(),
    });
    const status: (Node | string)[] = [];
    if (!this.trusted) status.push(h('span', { class: 'untrusted' }, ['Restricted mode: planning works; saving needs a trusted workspace.']));
    status.push(h('span', { class: 'dirty-flag' }, [this.state.dirty ? 'Unsaved changes' : 'Saved']));
    if (this.saveStatus) status.push(h('span', { class: `save-status ${this.saveStatus.kind}` }, [this.saveStatus.text]));
    const title = h('h1', {}, [`Wave planner${document.body.dataset.title ? ` — ${document.body.dataset.title}` : ''}`]);
    const children: Node[] = [title, h('div', { class: 'header-status' }, status), saveButton];
    if (this.state.diskChangedUnderDraft) {
      children.push(
        h('vscode-button', { class: 'adopt-disk', secondary: true }, ['Load plan from disk (drops the draft)'], {
          click: () => this.dispatch({ type: 'adoptDisk' }),
        }),
      );
    }
    this.header.replaceChildren(...children);
    this.notice.replaceChildren(
      ...(this.state.notice
        ? [
            h('span', {}, [this.state.notice]),
            h('vscode-button', { secondary: true, class: 'dismiss' }, ['Dismiss'], { click: () => this.dispatch({ type: 'dismissNotice' }) }),
          ]
        : []),
    );
  }

  private renderTabs(): void {
    const focused = document.activeElement?.closest?.('.wave-tab') !== null && this.tabs.contains(document.activeElement);
    const tabs = this.state.draft.waves.map((wave) => {
      const selected = wave.wave === this.state.selectedWave;
      const label = `Wave ${wave.wave}${this.state.draft.activeWave === wave.wave ? ' (active)' : ''}`;
      return h(
        'button',
        {
          class: `wave-tab${selected ? ' selected' : ''}`,
          role: 'tab',
          'aria-selected': String(selected),
          tabindex: selected ? 0 : -1,
          'data-wave': wave.wave,
        },
        [label],
        {
          click: () => this.dispatch({ type: 'selectWave', wave: wave.wave }),
          keydown: (event) => this.onTabKey(event as KeyboardEvent, wave.wave),
        },
      );
    });
    const add = h('vscode-button', { class: 'add-wave', secondary: true, title: 'Add a wave' }, ['+ Wave'], {
      click: () => this.dispatch({ type: 'addWave' }),
    });
    this.tabs.replaceChildren(...tabs, add);
    if (focused) (this.tabs.querySelector('.wave-tab.selected') as HTMLElement | null)?.focus();
  }

  private onTabKey(event: KeyboardEvent, wave: number): void {
    const waves = this.state.draft.waves.map((item) => item.wave);
    const at = waves.indexOf(wave);
    let next: number | undefined;
    if (event.key === 'ArrowRight') next = waves[(at + 1) % waves.length];
    else if (event.key === 'ArrowLeft') next = waves[(at - 1 + waves.length) % waves.length];
    else if (event.key === 'Home') next = waves[0];
    else if (event.key === 'End') next = waves[waves.length - 1];
    else if (event.key === 'Delete') {
      this.dispatch({ type: 'deleteWave', wave });
      return;
    }
    if (next === undefined) return;
    event.preventDefault();
    this.dispatch({ type: 'selectWave', wave: next });
    (this.tabs.querySelector('.wave-tab.selected') as HTMLElement | null)?.focus();
  }

  private renderWaveSettings(): void {
    const wave = selectedWave(this.state);
    if (!wave) {
      this.waveSettings.replaceChildren(h('p', {}, ['No waves yet: add one with "+ Wave".']));
      return;
    }
    const role = h('vscode-textfield', { class: 'wave-role', value: wave.role, 'aria-label': `Role of wave ${wave.wave}`, '.label': `Role of wave ${wave.wave}` }, [], {
      change: (event) => this.dispatch({ type: 'setRole', wave: wave.wave, role: valueOf(event.currentTarget as Element) }),
    });
    const number = h(
      'vscode-textfield',
      { class: 'wave-number', value: String(wave.wave), type: 'number', min: 1, 'aria-label': `Number of wave ${wave.wave}`, '.label': `Number of wave ${wave.wave}` },
      [],
      { change: (event) => this.dispatch({ type: 'renumberWave', wave: wave.wave, to: Number(valueOf(event.currentTarget as Element)) }) },
    );
    const active = h('vscode-checkbox', { class: 'wave-active', label: 'Active wave (the manifest names it)', checked: this.state.draft.activeWave === wave.wave }, [], {
      change: (event) => {
        const checked = (event.currentTarget as HTMLInputElement).checked;
        this.dispatch({ type: 'setActiveWave', wave: checked ? wave.wave : undefined });
      },
    });
    const remove = h('vscode-button', { class: 'delete-wave', secondary: true }, [`Delete wave ${wave.wave}`], {
      click: () => this.dispatch({ type: 'deleteWave', wave: wave.wave }),
    });
    this.waveSettings.replaceChildren(
      h('label', {}, ['Role ', role]),
      h('label', {}, ['Number ', number]),
      active,
      remove,
    );
  }

  private renderLanes(analysis: WaveAnalysis | undefined): void {
    const wave = selectedWave(this.state);
    if (!wave) {
      this.lanes.replaceChildren();
      return;
    }
    const collisionsByEntry = new Map<string, string[]>();
    for (const collision of analysis?.collisions ?? []) {
      for (const side of [0, 1] as const) {
        const other = 1 - side;
        const key = entryKey(collision.agents[side], collision.entries[side]);
        const text = `collides with ${collision.agents[other]} (${collision.entries[other]}) at ${collision.witness}`;
        collisionsByEntry.set(key, [...(collisionsByEntry.get(key) ?? []), text]);
      }
    }
    const lanes = wave.agents.map((agent, index) => {
      const target = this.state.targetAgent === agent.id;
      const entries = agent.entries.map((entry) => {
        const key = entryKey(agent.id, entry);
        const count = analysis?.matchCounts.get(key) ?? 0;
        const clashes = collisionsByEntry.get(key) ?? [];
        return h('li', { class: `entry${clashes.length > 0 ? ' collides' : ''}`, 'data-entry': entry }, [
          h('code', { class: 'entry-text' }, [entry]),
          h('vscode-badge', { class: 'match-count', variant: 'counter', title: `${count} matching file${count === 1 ? '' : 's'}`, 'aria-label': `${count} matching files` }, [String(count)]),
          ...clashes.map((text) => h('span', { class: 'witness', role: 'note' }, ['⚠ ', text])),
          h('button', { class: 'remove-entry icon-button', title: `Remove ${entry}`, 'aria-label': `Remove ${entry} from ${agent.id}` }, ['×'], {
            click: () => this.dispatch({ type: 'removeEntry', wave: wave.wave, agentId: agent.id, entry }),
          }),
        ]);
      });
      const addEntry = (input: Element | null): void => {
        const value = valueOf(input);
        if (value.trim() === '') return;
        this.dispatch({ type: 'addEntries', wave: wave.wave, agentId: agent.id, entries: [value] });
        if (input) (input as HTMLInputElement).value = '';
      };
      const globInput = h('vscode-textfield', { class: 'glob-input', placeholder: 'Path, folder/ or glob, then Enter', 'aria-label': `Add a path or glob to ${agent.id}`, '.label': `Add a path or glob to ${agent.id}` }, [], {
        keydown: (event) => {
          if ((event as KeyboardEvent).key === 'Enter') addEntry(event.currentTarget as Element);
        },
      });
      const lane = h(
        'section',
        {
          class: `lane${target ? ' target' : ''}`,
          'data-agent': agent.id,
          'aria-label': `Agent ${agent.id}${target ? ' (assignment target)' : ''}`,
          style: `--lane-color: ${agent.color}`,
        },
        [
          h('div', { class: 'lane-header' }, [
            h('input', { type: 'color', class: 'lane-color', value: agent.color, 'aria-label': `Colour of ${agent.id}` }, [], {
              change: (event) => this.dispatch({ type: 'setAgentColor', wave: wave.wave, agentId: agent.id, color: valueOf(event.currentTarget as Element) }),
            }),
            h('vscode-textfield', { class: 'agent-name', value: agent.id, 'aria-label': `Name of agent ${agent.id}`, '.label': `Name of agent ${agent.id}` }, [], {
              change: (event) => this.dispatch({ type: 'renameAgent', wave: wave.wave, agentId: agent.id, to: valueOf(event.currentTarget as Element) }),
            }),
            h('button', { class: 'target-button icon-button', 'aria-pressed': String(target), title: `Assign with Enter or ${index + 1} in the tree to ${agent.id}` }, [target ? '◉' : '○'], {
              click: () => this.dispatch({ type: 'setTargetAgent', agentId: agent.id }),
            }),
            ...this.activityBadge(wave.wave, agent.id),
            h('vscode-button', { class: 'remove-agent', secondary: true, 'aria-label': `Remove agent ${agent.id}` }, ['Remove'], {
              click: () => this.dispatch({ type: 'removeAgent', wave: wave.wave, agentId: agent.id }),
            }),
          ]),
          h('ul', { class: 'entries', 'aria-label': `Entries of ${agent.id}` }, entries),
          globInput,
        ],
        {
          dragover: (event) => {
            event.preventDefault();
            (event.currentTarget as HTMLElement).classList.add('drop-target');
          },
          dragleave: (event) => (event.currentTarget as HTMLElement).classList.remove('drop-target'),
          drop: (event) => this.onDrop(event as DragEvent, wave.wave, agent.id),
        },
      );
      return lane;
    });
    const add = h('vscode-button', { class: 'add-agent', secondary: true }, ['+ Agent'], {
      click: () => this.dispatch({ type: 'addAgent', wave: wave.wave }),
    });
    const focusedClass = this.focusMemo();
    this.lanes.replaceChildren(...lanes, add);
    this.restoreFocus(focusedClass);
  }

  /** The lane's dispatch state (in flight, finished), when the ledgers know the agent. */
  private activityBadge(wave: number, agentId: string): HTMLElement[] {
    const found = this.activity.find((item) => item.agent === agentId && (item.wave === undefined || item.wave === wave));
    if (!found) return [];
    const text = found.state === 'in-flight' ? 'in flight' : found.presumed ? 'finished (presumed)' : 'finished';
    return [h('span', { class: 'lane-activity', 'data-state': found.state, title: `Dispatched ${found.since}` }, [text])];
  }

  /** Remembers which lane control had focus, so a re-render does not throw keyboard users out. */
  private focusMemo(): { agent: string; selector: string } | undefined {
    const active = document.activeElement as HTMLElement | null;
    const lane = active?.closest?.('.lane') as HTMLElement | null;
    if (!active || !lane) return undefined;
    const selector = ['glob-input', 'agent-name', 'target-button', 'lane-color'].find((name) => active.classList.contains(name));
    return selector ? { agent: lane.dataset.agent ?? '', selector: `.${selector}` } : undefined;
  }

  private restoreFocus(memo: { agent: string; selector: string } | undefined): void {
    if (!memo) return;
    const lane = [...this.lanes.querySelectorAll<HTMLElement>('.lane')].find((item) => item.dataset.agent === memo.agent);
    (lane?.querySelector(memo.selector) as HTMLElement | null)?.focus();
  }

  private onDrop(event: DragEvent, wave: number, agentId: string): void {
    event.preventDefault();
    (event.currentTarget as HTMLElement).classList.remove('drop-target');
    const started = performance.now();
    const entries = this.entriesFromDrop(event.dataTransfer);
    if (entries.length === 0) return;
    this.dispatch({ type: 'addEntries', wave, agentId, entries });
    const milliseconds = performance.now() - started;
    document.body.dataset.lastDropMs = milliseconds.toFixed(1);
    this.host.command(ReportTimingCommand, { name: 'dropToRender', milliseconds });
  }

  /** Entries carried by a drop: our own tree rows, or files dragged from VS Code's Explorer. */
  private entriesFromDrop(data: DataTransfer | null): string[] {
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
    const prefix = this.rootUri.endsWith('/') ? this.rootUri : `${this.rootUri}/`;
    const result: string[] = [];
    for (const uri of uris) {
      if (this.rootUri === '' || !uri.startsWith(prefix)) continue;
      const relative = decodeURIComponent(uri.slice(prefix.length));
      const isFolder = !this.cache.index.has(relative) && this.cache.index.hasFilesBeneath(relative);
      result.push(isFolder ? `${relative}/` : relative);
    }
    return result;
  }

  private renderCollisions(analysis: WaveAnalysis | undefined): void {
    const wave = selectedWave(this.state);
    const items: Node[] = [];
    for (const collision of analysis?.collisions ?? []) {
      const [a, b] = collision.agents;
      const [entryA, entryB] = collision.entries;
      const actions: Node[] = [
        h('vscode-button', { class: 'resolve-remove', secondary: true, 'data-agent': b, 'data-entry': entryB }, [`Remove ${entryB} from ${b}`], {
          click: () => wave && this.dispatch({ type: 'removeEntry', wave: wave.wave, agentId: b, entry: entryB }),
        }),
        h('vscode-button', { class: 'resolve-remove', secondary: true, 'data-agent': a, 'data-entry': entryA }, [`Remove ${entryA} from ${a}`], {
          click: () => wave && this.dispatch({ type: 'removeEntry', wave: wave.wave, agentId: a, entry: entryA }),
        }),
      ];
      for (const [holder, entry, other] of [
        [a, entryA, b],
        [b, entryB, a],
      ] as const) {
        const narrowed = wave ? narrowEntry(wave, holder, entry, other, this.cache) : undefined;
        if (!narrowed || !wave) continue;
        actions.push(
          h('vscode-button', { class: 'resolve-narrow', secondary: true, 'data-agent': holder, 'data-entry': entry }, [`Narrow ${entry} (${holder}) to ${narrowed.length} file${narrowed.length === 1 ? '' : 's'}`], {
            click: () => this.dispatch({ type: 'replaceEntry', wave: wave.wave, agentId: holder, entry, with: narrowed }),
          }),
        );
      }
      items.push(
        h('li', { class: 'collision', 'data-agents': `${a} ${b}` }, [
          h('div', { class: 'collision-text' }, [
            h('strong', {}, [a]),
            ` (${entryA}) and `,
            h('strong', {}, [b]),
            ` (${entryB}) both own `,
            h('code', { class: 'collision-witness' }, [collision.witness]),
          ]),
          h('div', { class: 'collision-actions' }, actions),
        ]),
      );
    }
    if (this.lastSaveCollisions && !this.lastSaveCollisions.ok) {
      for (const refused of this.lastSaveCollisions.collisions) {
        if (refused.wave === wave?.wave) continue;
        items.push(h('li', { class: 'collision saved-refusal' }, [`Wave ${refused.wave}: ${refused.agents[0]} and ${refused.agents[1]} both own ${refused.witness}`]));
      }
    }
    const heading = h('h2', {}, [items.length === 0 ? 'No collisions in this wave' : `Collisions (${analysis?.collisions.length ?? 0})`]);
    this.collisionList.replaceChildren(heading, h('ul', { class: 'collision-list' }, items));
  }

  // ---- the virtualised tree --------------------------------------------------------------------

  private renderTreeRows(structureMayHaveChanged = false): void {
    if (structureMayHaveChanged) {
      const key = `${this.files.length}\0${this.state.filter}\0${this.state.expanded.join('\0')}`;
      if (key !== this.rowsKey || this.rows.length === 0) {
        this.rowsKey = key;
        this.rows = flattenTree(this.tree, new Set(this.state.expanded), this.state.filter);
        this.activeRow = Math.min(this.activeRow, Math.max(0, this.rows.length - 1));
        this.treeSummary.textContent = this.state.filter
          ? `${this.rows.filter((row) => !row.isFolder).length} matching files`
          : `${this.files.length} files`;
      }
    }
    const analysis = this.currentAnalysis();
    const wave = selectedWave(this.state);
    const colors = new Map((wave?.agents ?? []).map((agent) => [agent.id, agent.color]));
    this.treeSpacer.style.height = `${this.rows.length * ROW_HEIGHT}px`;
    const height = this.treeViewport.clientHeight || 600;
    const first = Math.max(0, Math.floor(this.treeViewport.scrollTop / ROW_HEIGHT) - OVERSCAN);
    const last = Math.min(this.rows.length, Math.ceil((this.treeViewport.scrollTop + height) / ROW_HEIGHT) + OVERSCAN);
    const nodes: Node[] = [];
    for (let index = first; index < last; index += 1) {
      const row = this.rows[index];
      if (!row) continue;
      nodes.push(this.renderRow(row, index, analysis, colors));
    }
    this.treeSpacer.replaceChildren(...nodes);
    const active = this.rows[this.activeRow];
    if (active) this.treeViewport.setAttribute('aria-activedescendant', `row-${this.activeRow}`);
    else this.treeViewport.removeAttribute('aria-activedescendant');
  }

  private renderRow(row: TreeRow, index: number, analysis: WaveAnalysis | undefined, colors: Map<string, string>): HTMLElement {
    const owners = row.isFolder ? [] : (analysis?.owners.get(row.path) ?? []);
    const contested = row.isFolder ? (analysis?.contestedFolders.has(row.path) ?? false) : owners.length > 1;
    const entry = row.isFolder ? `${row.path}/` : row.path;
    const chips = owners.map((owner) => h('span', { class: 'owner-chip', title: owner, style: `background: ${colors.get(owner) ?? 'transparent'}` }));
    const label = `${row.name}${row.isFolder ? `, folder, ${row.fileCount} files` : ''}${owners.length > 0 ? `, owned by ${owners.join(' and ')}` : ''}${contested ? ', contested' : ''}`;
    return h(
      'div',
      {
        id: `row-${index}`,
        class: `tree-row${row.isFolder ? ' folder' : ' file'}${contested ? ' contested' : ''}${index === this.activeRow ? ' active' : ''}`,
        role: 'treeitem',
        'aria-level': row.depth + 1,
        'aria-expanded': row.isFolder ? String(row.expanded) : undefined,
        'aria-label': label,
        'aria-selected': String(index === this.activeRow),
        'data-path': row.path,
        draggable: 'true',
        style: `top: ${index * ROW_HEIGHT}px; padding-left: ${8 + row.depth * 14}px`,
      },
      [
        h('span', { class: 'twisty', 'aria-hidden': 'true' }, [row.isFolder ? (row.expanded ? '▾' : '▸') : '']),
        h('span', { class: 'row-name' }, [row.name]),
        ...chips,
        contested ? h('span', { class: 'contested-mark', title: 'Contested: more than one agent owns this' }, ['⚠']) : undefined,
      ],
      {
        click: () => {
          this.activeRow = index;
          if (row.isFolder) this.dispatch({ type: 'toggleFolder', folder: row.path });
          else this.renderTreeRows();
        },
        dblclick: () => {
          if (!row.isFolder) this.host.command(OpenFileCommand, { path: row.path });
        },
        dragstart: (event) => {
          const data = (event as DragEvent).dataTransfer;
          if (!data) return;
          data.setData(DRAG_TYPE, JSON.stringify([entry]));
          data.setData('text/plain', entry);
          data.effectAllowed = 'copy';
        },
      },
    );
  }

  private onTreeKey(event: KeyboardEvent): void {
    const row = this.rows[this.activeRow];
    const wave = selectedWave(this.state);
    const move = (to: number): void => {
      this.activeRow = Math.max(0, Math.min(this.rows.length - 1, to));
      const top = this.activeRow * ROW_HEIGHT;
      if (top < this.treeViewport.scrollTop) this.treeViewport.scrollTop = top;
      else if (top + ROW_HEIGHT > this.treeViewport.scrollTop + this.treeViewport.clientHeight) {
        this.treeViewport.scrollTop = top + ROW_HEIGHT - this.treeViewport.clientHeight;
      }
      this.renderTreeRows();
    };
    const page = Math.max(1, Math.floor(this.treeViewport.clientHeight / ROW_HEIGHT) - 1);
    const assign = (agentId: string | undefined): void => {
      if (!row || !wave || !agentId) {
        if (wave && !agentId) this.dispatch({ type: 'notify', notice: `Wave ${wave.wave} has no such agent: add one with "+ Agent" first.` });
        return;
      }
      this.dispatch({ type: 'addEntries', wave: wave.wave, agentId, entries: [row.isFolder ? `${row.path}/` : row.path] });
    };
    switch (event.key) {
      case 'ArrowDown':
        move(this.activeRow + 1);
        break;
      case 'ArrowUp':
        move(this.activeRow - 1);
        break;
      case 'PageDown':
        move(this.activeRow + page);
        break;
      case 'PageUp':
        move(this.activeRow - page);
        break;
      case 'Home':
        move(0);
        break;
      case 'End':
        move(this.rows.length - 1);
        break;
      case 'ArrowRight':
        if (row?.isFolder && !row.expanded) this.dispatch({ type: 'toggleFolder', folder: row.path, expanded: true });
        else move(this.activeRow + 1);
        break;
      case 'ArrowLeft':
        if (row?.isFolder && row.expanded) this.dispatch({ type: 'toggleFolder', folder: row.path, expanded: false });
        else if (row) {
          const parent = row.path.includes('/') ? row.path.slice(0, row.path.lastIndexOf('/')) : undefined;
          const at = parent === undefined ? -1 : this.rows.findIndex((item) => item.isFolder && item.path === parent);
          if (at >= 0) move(at);
        }
        break;
      case 'Enter':
        assign(this.state.targetAgent ?? wave?.agents[0]?.id);
        break;
      default:
        if (/^[1-9]$/.test(event.key) && wave) {
          assign(wave.agents[Number(event.key) - 1]?.id);
          break;
        }
        return;
    }
    event.preventDefault();
  }
}
