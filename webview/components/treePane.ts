// The repository's files as a virtualised tree (only the rows on screen exist): a filter, an
// "unassigned" view with its count, owners on every file and folder, contested marks, drag to a lane,
// keyboard assignment, double-click to open beside the planner. Control state never shows: no agent can
// own it. The splitter beside it sets its width.
import { html, nothing } from 'lit';
import type { PropertyValues, TemplateResult } from 'lit';
import { styleProps } from './styleProps';
import { unnameableNotice } from '../../src/planner/scope/literalEntry';
import { flattenTree, rowEntry } from '../fileTree';
import type { FolderNode, TreeRow } from '../fileTree';
import type { WaveAnalysis } from '../planAnalysis';
import { selectedWave, TREE_WIDTH } from '../plannerState';
import { count } from '../wording';
import { icons, PlannerPart } from './base';
import { DRAG_TYPE } from './model';

const ROW_HEIGHT = 22;
const OVERSCAN = 8;

export class TreePane extends PlannerPart {
  static override properties = { ...PlannerPart.properties, activeRow: { state: true }, scrollTop: { state: true }, viewportHeight: { state: true } };
  declare activeRow: number;
  declare scrollTop: number;
  declare viewportHeight: number;

  private rows: TreeRow[] = [];
  private rowsKey: unknown[] = [];
  private resizeObserver: ResizeObserver | undefined;

  constructor() {
    super();
    this.activeRow = 0;
    this.scrollTop = 0;
    this.viewportHeight = 600;
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.resizeObserver?.disconnect();
  }

  protected override firstUpdated(): void {
    const viewport = this.viewport();
    if (!viewport) return;
    this.resizeObserver = new ResizeObserver(() => {
      this.viewportHeight = viewport.clientHeight || this.viewportHeight;
    });
    this.resizeObserver.observe(viewport);
  }

  private viewport(): HTMLElement | null {
    return this.querySelector('.tree');
  }

  /** The rows of the current filter, view and expanded folders (flattened again only when one changes). */
  private currentRows(tree: FolderNode, analysis: WaveAnalysis | undefined): TreeRow[] {
    const model = this.model;
    if (!model) return [];
    const { state } = model;
    const unassigned = state.treeMode === 'unassigned' && analysis !== undefined;
    const key = [tree, state.filter, state.expanded, unassigned ? analysis : undefined];
    if (key.length !== this.rowsKey.length || key.some((part, index) => part !== this.rowsKey[index])) {
      const owners = analysis?.owners;
      this.rows = flattenTree(tree, new Set(state.expanded), state.filter, Infinity, unassigned && owners ? (file) => !owners.has(file) : undefined);
      this.rowsKey = key;
      this.activeRow = Math.min(this.activeRow, Math.max(0, this.rows.length - 1));
    }
    return this.rows;
  }

  protected override render(): TemplateResult | typeof nothing {
    const model = this.model;
    const controls = this.controls;
    if (!model || !controls) return nothing;
    const { state, analysis } = model;
    const rows = this.currentRows(model.tree, analysis);
    const wave = selectedWave(state);
    const colors = new Map((wave?.agents ?? []).map((agent) => [agent.id, agent.color]));
    const first = Math.max(0, Math.floor(this.scrollTop / ROW_HEIGHT) - OVERSCAN);
    const last = Math.min(rows.length, Math.ceil((this.scrollTop + this.viewportHeight) / ROW_HEIGHT) + OVERSCAN);
    const visible: TemplateResult[] = [];
    for (let index = first; index < last; index += 1) {
      const row = rows[index];
      if (row) visible.push(this.renderRow(row, index, analysis, colors));
    }
    const unowned = analysis?.unowned;
    const files = rows.filter((row) => !row.isFolder).length;
    const summary =
      state.treeMode === 'unassigned' && unowned !== undefined
        ? state.filter
          ? `${count(files, 'unowned file')} match`
          : count(unowned, 'unowned file')
        : state.filter
          ? `${count(files, 'file')} of ${model.fileCount} match`
          : count(model.fileCount, 'file');
    const active = rows[this.activeRow];
    return html`
      <aside class="tree-pane" aria-label="Files">
        <div class="pane-header">
          <h2>Files</h2>
          <span class="tree-summary" aria-live="polite">${summary}</span>
        </div>
        <div class="tree-tools">
          <input
            class="text-input tree-filter"
            type="search"
            placeholder="Filter files"
            aria-label="Filter files"
            .value=${state.filter}
            @input=${(event: Event) => controls.dispatch({ type: 'setFilter', filter: (event.currentTarget as HTMLInputElement).value })}
          />
          <div class="segmented" role="radiogroup" aria-label="Which files">
            <button
              class="segment tree-mode-all"
              role="radio"
              aria-checked=${String(state.treeMode === 'all')}
              @click=${() => controls.dispatch({ type: 'setTreeMode', mode: 'all' })}
            >
              All
            </button>
            <button
              class="segment tree-mode-unassigned"
              role="radio"
              aria-checked=${String(state.treeMode === 'unassigned')}
              title="Files no agent of this wave owns"
              @click=${() => controls.dispatch({ type: 'setTreeMode', mode: 'unassigned' })}
            >
              Unassigned${unowned !== undefined ? html` <span class="segment-count">${unowned}</span>` : nothing}
            </button>
          </div>
        </div>
        <div
          class="tree"
          role="tree"
          tabindex="0"
          aria-label="Repository files"
          aria-activedescendant=${active ? `row-${this.activeRow}` : nothing}
          @scroll=${(event: Event) => {
            this.scrollTop = (event.currentTarget as HTMLElement).scrollTop;
          }}
          @keydown=${(event: KeyboardEvent) => this.onKey(event, rows)}
        >
          <div class="tree-spacer" ${styleProps({ height: `${rows.length * ROW_HEIGHT}px` })}>
            <div class="tree-window" ${styleProps({ transform: `translateY(${first * ROW_HEIGHT}px)` })}>${visible}</div>
          </div>
          ${rows.length === 0 ? this.emptyState() : nothing}
        </div>
      </aside>
      <div
        class="splitter"
        role="separator"
        tabindex="0"
        aria-orientation="vertical"
        aria-label="Width of the file tree"
        aria-valuemin=${TREE_WIDTH.min}
        aria-valuemax=${TREE_WIDTH.max}
        aria-valuenow=${state.treeWidth}
        title="Drag to resize the file tree (or use the arrow keys)"
        @pointerdown=${(event: PointerEvent) => this.startResize(event)}
        @keydown=${(event: KeyboardEvent) => this.onSplitterKey(event)}
      ></div>
    `;
  }

  private emptyState(): TemplateResult {
    const model = this.model;
    const controls = this.controls;
    if (!model || !controls) return html``;
    const { state } = model;
    const wave = selectedWave(state);
    if (state.filter) {
      return html`<div class="empty-state tree-empty">
        <p>No ${state.treeMode === 'unassigned' ? 'unowned ' : ''}files match “${state.filter}”.</p>
        <button class="button secondary clear-filter" @click=${() => controls.dispatch({ type: 'setFilter', filter: '' })}>Clear the filter</button>
      </div>`;
    }
    if (state.treeMode === 'unassigned') {
      return html`<div class="empty-state tree-empty">
        <p>Every file has an owner in wave ${wave?.wave ?? ''}.</p>
        <button class="button secondary show-all" @click=${() => controls.dispatch({ type: 'setTreeMode', mode: 'all' })}>Show all files</button>
      </div>`;
    }
    return html`<div class="empty-state tree-empty"><p>${model.ready ? 'git knows no files in this folder yet.' : 'Listing the files…'}</p></div>`;
  }

  private renderRow(row: TreeRow, index: number, analysis: WaveAnalysis | undefined, colors: Map<string, string>): TemplateResult {
    const controls = this.controls;
    const owners = (row.isFolder ? analysis?.folderOwners.get(row.path) : analysis?.owners.get(row.path)) ?? [];
    const contested = row.isFolder ? (analysis?.contestedFolders.has(row.path) ?? false) : owners.length > 1;
    const entry = rowEntry(row.path, row.isFolder);
    const ownerText = owners.length === 0 ? '' : owners.length === 1 ? (owners[0] as string) : `${owners[0]} +${owners.length - 1}`;
    const label = `${row.name}${row.isFolder ? `, folder, ${count(row.fileCount, 'file')}` : ''}${owners.length > 0 ? `, owned by ${owners.join(' and ')}` : ', no owner'}${contested ? ', contested' : ''}`;
    const selected = index === this.activeRow;
    return html`<div
      id="row-${index}"
      class="tree-row ${row.isFolder ? 'folder' : 'file'} ${contested ? 'contested' : ''} ${selected ? 'active' : ''}"
      role="treeitem"
      aria-level=${row.depth + 1}
      aria-expanded=${row.isFolder ? String(row.expanded) : nothing}
      aria-selected=${String(selected)}
      aria-label=${label}
      data-path=${row.path}
      draggable=${entry === undefined ? 'false' : 'true'}
      ${styleProps({ 'padding-left': `${6 + row.depth * 12}px` })}
      title=${entry === undefined ? unnameableNotice([row.path]) : row.isFolder ? `${row.path}/ (${count(row.fileCount, 'file')})` : `${row.path} (double-click to open)`}
      @click=${() => {
        this.activeRow = index;
        if (row.isFolder) controls?.dispatch({ type: 'toggleFolder', folder: row.path });
      }}
      @dblclick=${() => {
        if (!row.isFolder) controls?.openFile(row.path);
      }}
      @dragstart=${(event: DragEvent) => {
        const data = event.dataTransfer;
        if (!data || entry === undefined) return;
        data.setData(DRAG_TYPE, JSON.stringify([entry]));
        data.setData('text/plain', entry);
        data.effectAllowed = 'copy';
      }}
    >
      <span class="twisty">${row.isFolder ? (row.expanded ? icons.chevronDown() : icons.chevronRight()) : nothing}</span>
      <span class="row-name">${row.name}</span>
      ${contested ? html`<span class="contested-mark" title="Contested: more than one agent owns this">${icons.warning()}</span>` : nothing}
      ${owners.length > 0
        ? html`<span class="row-owners" title=${`Owned by ${owners.join(', ')}`}
            >${owners.slice(0, 3).map((owner) => html`<span class="owner-chip" ${styleProps({ '--chip-color': colors.get(owner) ?? 'transparent' })}></span>`)}<span
              class="owner-name"
              >${ownerText}</span
            ></span
          >`
        : nothing}
    </div>`;
  }

  private moveTo(to: number, rows: readonly TreeRow[]): void {
    const viewport = this.viewport();
    this.activeRow = Math.max(0, Math.min(rows.length - 1, to));
    if (!viewport) return;
    const top = this.activeRow * ROW_HEIGHT;
    if (top < viewport.scrollTop) viewport.scrollTop = top;
    else if (top + ROW_HEIGHT > viewport.scrollTop + viewport.clientHeight) viewport.scrollTop = top + ROW_HEIGHT - viewport.clientHeight;
    this.scrollTop = viewport.scrollTop;
  }

  private onKey(event: KeyboardEvent, rows: readonly TreeRow[]): void {
    const model = this.model;
    const controls = this.controls;
    if (!model || !controls) return;
    const row = rows[this.activeRow];
    const wave = selectedWave(model.state);
    const viewport = this.viewport();
    const page = Math.max(1, Math.floor((viewport?.clientHeight ?? 400) / ROW_HEIGHT) - 1);
    const assign = (agentId: string | undefined): void => {
      if (!row || !wave) return;
      if (!agentId) {
        controls.dispatch({ type: 'notify', notice: `Wave ${wave.wave} has no such agent: add one with "Add agent" first.` });
        return;
      }
      const entry = rowEntry(row.path, row.isFolder);
      if (entry === undefined) {
        controls.dispatch({ type: 'notify', notice: unnameableNotice([row.path]) });
        return;
      }
      controls.dispatch({ type: 'addEntries', wave: wave.wave, agentId, entries: [entry] });
    };
    switch (event.key) {
      case 'ArrowDown':
        this.moveTo(this.activeRow + 1, rows);
        break;
      case 'ArrowUp':
        this.moveTo(this.activeRow - 1, rows);
        break;
      case 'PageDown':
        this.moveTo(this.activeRow + page, rows);
        break;
      case 'PageUp':
        this.moveTo(this.activeRow - page, rows);
        break;
      case 'Home':
        this.moveTo(0, rows);
        break;
      case 'End':
        this.moveTo(rows.length - 1, rows);
        break;
      case 'ArrowRight':
        if (row?.isFolder && !row.expanded) controls.dispatch({ type: 'toggleFolder', folder: row.path, expanded: true });
        else this.moveTo(this.activeRow + 1, rows);
        break;
      case 'ArrowLeft':
        if (row?.isFolder && row.expanded) controls.dispatch({ type: 'toggleFolder', folder: row.path, expanded: false });
        else if (row) {
          const parent = row.path.includes('/') ? row.path.slice(0, row.path.lastIndexOf('/')) : undefined;
          const at = parent === undefined ? -1 : rows.findIndex((item) => item.isFolder && item.path === parent);
          if (at >= 0) this.moveTo(at, rows);
        }
        break;
      case 'Enter':
        assign(model.state.targetAgent ?? wave?.agents[0]?.id);
        break;
      default:
        if (/^[1-9]$/.test(event.key) && wave && !event.ctrlKey && !event.metaKey && !event.altKey) {
          assign(wave.agents[Number(event.key) - 1]?.id);
          break;
        }
        return;
    }
    event.preventDefault();
  }

  private startResize(event: PointerEvent): void {
    const controls = this.controls;
    const model = this.model;
    if (!controls || !model || event.button !== 0) return;
    const splitter = event.currentTarget as HTMLElement;
    splitter.setPointerCapture(event.pointerId);
    const startX = event.clientX;
    const startWidth = model.state.treeWidth;
    let frame = 0;
    const move = (moved: PointerEvent): void => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => controls.dispatch({ type: 'setTreeWidth', width: startWidth + moved.clientX - startX }));
    };
    const end = (): void => {
      splitter.removeEventListener('pointermove', move);
      splitter.removeEventListener('pointerup', end);
      splitter.removeEventListener('pointercancel', end);
      splitter.classList.remove('dragging');
    };
    splitter.classList.add('dragging');
    splitter.addEventListener('pointermove', move);
    splitter.addEventListener('pointerup', end);
    splitter.addEventListener('pointercancel', end);
    event.preventDefault();
  }

  private onSplitterKey(event: KeyboardEvent): void {
    const controls = this.controls;
    const model = this.model;
    if (!controls || !model) return;
    const width = model.state.treeWidth;
    const to =
      event.key === 'ArrowLeft' ? width - 16 : event.key === 'ArrowRight' ? width + 16 : event.key === 'Home' ? TREE_WIDTH.min : event.key === 'End' ? TREE_WIDTH.max : undefined;
    if (to === undefined) return;
    event.preventDefault();
    controls.dispatch({ type: 'setTreeWidth', width: to });
  }

  protected override updated(changed: PropertyValues): void {
    super.updated(changed);
    const viewport = this.viewport();
    if (viewport && viewport.clientHeight > 0 && viewport.clientHeight !== this.viewportHeight) this.viewportHeight = viewport.clientHeight;
  }
}

customElements.define('ws-tree-pane', TreePane);
