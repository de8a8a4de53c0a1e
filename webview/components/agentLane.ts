// One agent as a column: its colour, editable id, assignment target and removal on top; its entries one
// line each (pattern, match count, a compact collision or claim badge whose hover names the other agent
// and the witness, actions on hover or focus as VS Code's trees show them); an input at the bottom that
// validates as you type and keeps the text when the entry cannot be used.
import { html, nothing } from 'lit';
import type { TemplateResult } from 'lit';
import { repeat } from 'lit/directives/repeat.js';
import { styleProps } from './styleProps';
import type { AgentDraft, ClaimConflictSummary, WaveDraft } from '../../src/protocol/plannerProtocol';
import { compileScopeEntry } from '../../src/planner/scope/scopeEntry';
import { collisionNote } from '../collisionText';
import { checkEntry } from '../entryInput';
import type { EntryCheck } from '../entryInput';
import { entryWarnings } from '../entryWarnings';
import type { EntryWarning } from '../entryWarnings';
import type { WaveAnalysis, WaveCollision } from '../planAnalysis';
import { entryKey, narrowEntry } from '../planAnalysis';
import { count } from '../wording';
import { icons, PlannerPart } from './base';
import { fieldMessage, inlineMessage } from './fields';

/** What an entry's spelling alone says (typo warnings, pattern or path), once per spelling. */
/**
 * An entry's badge that counts what it meets (collisions, or overlaps with other clones' claims): its hover
 * explains them, a click takes the focus to where they are resolved.
 */
function badge(input: { kind: string; icon: TemplateResult; total: number; hoverId: string; label: string; onClick: () => void }): TemplateResult {
  return html`<button class="entry-badge ${input.kind}" aria-describedby=${input.hoverId} aria-label=${input.label} @click=${input.onClick}>
    ${input.icon}<span>${input.total}</span>
  </button>`;
}

const spellingFacts = new Map<string, { warnings: EntryWarning[]; pattern: boolean }>();

function factsOf(entry: string, ignoreCase: boolean): { warnings: EntryWarning[]; pattern: boolean } {
  const key = `${ignoreCase ? 'i' : 'c'}\0${entry}`;
  let facts = spellingFacts.get(key);
  if (!facts) {
    let pattern = false;
    try {
      pattern = compileScopeEntry(entry.endsWith('/') ? entry.slice(0, -1) || entry : entry, { ignoreCase }).kind !== 'plain';
    } catch {
      pattern = false;
    }
    facts = { warnings: entryWarnings(entry, { ignoreCase }), pattern };
    if (spellingFacts.size > 20_000) spellingFacts.clear();
    spellingFacts.set(key, facts);
  }
  return facts;
}

export class AgentLane extends PlannerPart {
  static override properties = {
    ...PlannerPart.properties,
    wave: { attribute: false },
    agent: { attribute: false },
    index: { attribute: false },
    typed: { state: true },
    check: { state: true },
    dropping: { state: true },
  };
  declare wave: WaveDraft | undefined;
  declare agent: AgentDraft | undefined;
  declare index: number;
  declare typed: string;
  declare check: EntryCheck | undefined;
  declare dropping: boolean;

  constructor() {
    super();
    this.index = 0;
    this.typed = '';
    this.check = undefined;
    this.dropping = false;
  }

  protected override render(): TemplateResult | typeof nothing {
    const { model, controls, wave, agent } = this;
    if (!model || !controls || !wave || !agent) return nothing;
    const analysis = model.analysis;
    const target = model.state.targetAgent === agent.id;
    const collisionsByEntry = new Map<string, { collision: WaveCollision; side: 0 | 1 }[]>();
    for (const collision of analysis?.collisions ?? []) {
      for (const side of [0, 1] as const) {
        if (collision.agents[side] !== agent.id) continue;
        const list = collisionsByEntry.get(collision.entries[side]) ?? [];
        list.push({ collision, side });
        collisionsByEntry.set(collision.entries[side], list);
      }
    }
    const claimsByEntry = new Map<string, ClaimConflictSummary[]>();
    for (const conflict of model.claims.conflicts) {
      if (conflict.wave !== wave.wave || conflict.agent !== agent.id) continue;
      claimsByEntry.set(conflict.entry, [...(claimsByEntry.get(conflict.entry) ?? []), conflict]);
    }
    const files = analysis ? new Set(agent.entries.flatMap((entry) => [...model.cache.filesOf(entry)])).size : undefined;
    const nameField = `agent:${wave.wave}:${agent.id}`;
    const message = model.state.fieldMessage;
    const inputId = `add-${wave.wave}-${this.index}`;
    return html`<section
      class="lane ${target ? 'target' : ''} ${this.dropping ? 'drop-target' : ''}"
      data-agent=${agent.id}
      aria-label="Agent ${agent.id}${target ? ' (assignment target)' : ''}"
      ${styleProps({ '--lane-color': agent.color })}
      @dragover=${(event: DragEvent) => {
        event.preventDefault();
        this.dropping = true;
      }}
      @dragleave=${(event: DragEvent) => {
        if (!(event.currentTarget as HTMLElement).contains(event.relatedTarget as Node | null)) this.dropping = false;
      }}
      @drop=${(event: DragEvent) => this.onDrop(event)}
    >
      <header class="lane-header">
        <label class="lane-swatch" title="Colour of ${agent.id}">
          <input
            type="color"
            class="lane-color"
            .value=${agent.color}
            aria-label="Colour of ${agent.id}"
            @change=${(event: Event) =>
              controls.dispatch({ type: 'setAgentColor', wave: wave.wave, agentId: agent.id, color: (event.currentTarget as HTMLInputElement).value })}
          />
        </label>
        <input
          class="agent-name"
          .value=${agent.id}
          aria-label="Name of agent ${agent.id}"
          aria-invalid=${String(message?.field === nameField && message.kind === 'error')}
          spellcheck="false"
          @keydown=${(event: KeyboardEvent) => {
            if (event.key === 'Enter') (event.currentTarget as HTMLInputElement).blur();
            if (event.key === 'Escape') {
              (event.currentTarget as HTMLInputElement).value = agent.id;
              (event.currentTarget as HTMLInputElement).blur();
            }
          }}
          @change=${(event: Event) => {
            const to = (event.currentTarget as HTMLInputElement).value;
            controls.dispatch({ type: 'renameAgent', wave: wave.wave, agentId: agent.id, to });
          }}
        />
        <span class="lane-counts" title="${count(agent.entries.length, 'entry', 'entries')}${files !== undefined ? `, ${count(files, 'file')}` : ''}"
          >${files !== undefined ? count(files, 'file') : count(agent.entries.length, 'entry', 'entries')}</span
        >
        ${this.activityBadge(wave.wave, agent.id)}
        <button
          class="icon-button target-button"
          aria-pressed=${String(target)}
          aria-label="Assignment target: ${agent.id}"
          title=${target ? `${agent.id} gets what Enter assigns in the tree (and ${this.index + 1})` : `Make ${agent.id} the target of Enter in the tree (or press ${this.index + 1} there)`}
          @click=${() => controls.dispatch({ type: 'setTargetAgent', agentId: agent.id })}
        >
          ${target ? icons.target() : icons.circle()}
        </button>
        <button class="icon-button remove-agent" aria-label="Remove agent ${agent.id}" title="Remove agent ${agent.id}" @click=${() => controls.removeAgent(wave.wave, agent.id)}>
          ${icons.trash()}
        </button>
      </header>
      ${fieldMessage(message, nameField)}
      ${agent.entries.length === 0
        ? html`<div class="lane-empty">Drop files or folders here, or type a path below.</div>`
        : html`<ul class="entries" aria-label="Entries of ${agent.id}">
            ${repeat(
              agent.entries,
              (entry) => entry,
              (entry, position) => this.renderEntry(entry, position, analysis, collisionsByEntry.get(entry) ?? [], claimsByEntry.get(entry) ?? []),
            )}
          </ul>`}
      <div class="lane-add">
        <input
          id=${inputId}
          class="text-input glob-input"
          placeholder="Add a path, folder/ or glob"
          aria-label="Add a path or glob to ${agent.id}"
          aria-describedby="${inputId}-message"
          aria-invalid=${String(this.check !== undefined && !this.check.ok)}
          spellcheck="false"
          .value=${this.typed}
          @input=${(event: Event) => this.onType((event.currentTarget as HTMLInputElement).value)}
          @keydown=${(event: KeyboardEvent) => {
            if (event.key === 'Enter') this.commit();
            if (event.key === 'Escape') this.onType('');
          }}
        />
        ${this.inputMessage(`${inputId}-message`)}
      </div>
    </section>`;
  }

  private inputMessage(id: string): TemplateResult | typeof nothing {
    const check = this.check;
    if (!check || this.typed.trim() === '') return nothing;
    if (!check.ok) return inlineMessage('error', check.problem, id);
    const parts: TemplateResult[] = [];
    for (const warning of check.warnings) parts.push(inlineMessage('warning', warning.message));
    for (const note of check.notes) parts.push(inlineMessage('note', note));
    return parts.length > 0 ? html`<div id=${id} class="field-messages">${parts}</div>` : nothing;
  }

  private onType(value: string): void {
    this.typed = value;
    const { model, agent } = this;
    if (!model || !agent || value.trim() === '') {
      this.check = undefined;
      return;
    }
    this.check = checkEntry(value, {
      ignoreCase: model.ignoreCase,
      absoluteRoots: model.absoluteRoots,
      cache: model.cache,
      controlFiles: model.controlFiles,
      existing: agent.entries,
      agent: agent.id,
    });
  }

  /** Enter: an entry that can be used joins the lane and the input empties; otherwise the text stays. */
  private commit(): void {
    const { controls, wave, agent } = this;
    if (!controls || !wave || !agent || this.typed.trim() === '') return;
    this.onType(this.typed);
    const check = this.check;
    if (!check || !check.ok) return;
    controls.dispatch({ type: 'addEntries', wave: wave.wave, agentId: agent.id, entries: [check.entry] });
    this.typed = '';
    this.check = undefined;
  }

  /** The lane's dispatch state (in flight, finished), when the ledgers know the agent. */
  private activityBadge(wave: number, agentId: string): TemplateResult | typeof nothing {
    const found = this.model?.activity.find((item) => item.agent === agentId && (item.wave === undefined || item.wave === wave));
    if (found === undefined) return nothing;
    const text = found.state === 'in-flight' ? 'in flight' : found.presumed ? 'finished (presumed)' : 'finished';
    return html`<span class="lane-activity" data-state=${found.state} title="Dispatched ${found.since}">${text}</span>`;
  }

  private onDrop(event: DragEvent): void {
    const { controls, wave, agent } = this;
    event.preventDefault();
    this.dropping = false;
    if (!controls || !wave || !agent) return;
    const started = performance.now();
    const entries = controls.entriesFromDrop(event.dataTransfer);
    if (entries.length === 0) return;
    controls.dispatch({ type: 'addEntries', wave: wave.wave, agentId: agent.id, entries });
    controls.droppedAt(started);
  }

  private renderEntry(
    entry: string,
    position: number,
    analysis: WaveAnalysis | undefined,
    collisions: { collision: WaveCollision; side: 0 | 1 }[],
    claims: ClaimConflictSummary[],
  ): TemplateResult {
    const { model, controls, wave, agent } = this;
    if (!model || !controls || !wave || !agent) return html``;
    const matches = analysis?.matchCounts.get(entryKey(agent.id, entry));
    const facts = factsOf(entry, model.ignoreCase);
    const warnings = [...facts.warnings];
    if (facts.pattern && matches === 0 && !warnings.some((warning) => warning.reason === 'matches-nothing')) {
      warnings.push({ reason: 'matches-nothing', entry, message: `scope entry ${JSON.stringify(entry)} names none of the files the repository has today` });
    }
    const hoverId = `hover-${wave.wave}-${this.index}-${position}`;
    const notes = [
      ...collisions.map(({ collision, side }) => ({ kind: 'collision', text: collisionNote(collision, side) })),
      ...claims.map((claim) => ({
        kind: 'claim',
        text: `Claimed in clone ${claim.cloneName}: wave ${claim.otherWave}, agent ${claim.otherAgent} (${claim.otherEntry}), at ${claim.witness}`,
      })),
      ...warnings.map((warning) => ({ kind: 'warning', text: warning.message })),
    ];
    const other = collisions[0];
    const narrowed = other ? narrowEntry(wave, agent.id, entry, other.collision.agents[1 - other.side] as string, model.cache) : undefined;
    const classes = ['entry', collisions.length > 0 ? 'collides' : '', claims.length > 0 ? 'claimed' : '', warnings.length > 0 ? 'warned' : ''].filter(Boolean).join(' ');
    return html`<li class=${classes} data-entry=${entry}>
      <span class="entry-text" title=${entry}>${entry}</span>
      ${matches !== undefined
        ? html`<span class="match-count" title=${count(matches, 'matching file')} aria-label=${count(matches, 'matching file')}>${matches}</span>`
        : nothing}
      ${collisions.length > 0
        ? badge({ kind: 'collision-badge', icon: icons.warning(), total: collisions.length, hoverId, label: `${count(collisions.length, 'collision')} of ${entry}`, onClick: () => controls.focusAfterRender(`.collision[data-agents~="${agent.id}"] .resolve`, '#collisions-heading') })
        : nothing}
      ${claims.length > 0
        ? badge({ kind: 'claim-badge', icon: icons.lock(), total: claims.length, hoverId, label: `${count(claims.length, 'overlap')} of ${entry} with other clones`, onClick: () => controls.focusAfterRender('.claim-conflict .resolve', '#claims-heading') })
        : nothing}
      ${warnings.length > 0 && collisions.length === 0 && claims.length === 0
        ? html`<span class="entry-badge warning-badge" tabindex="0" role="note" aria-describedby=${hoverId} aria-label="Probably a typo">${icons.warning()}</span>`
        : nothing}
      <span class="entry-actions">
        ${narrowed
          ? html`<button
              class="icon-button narrow-entry"
              title="Narrow ${entry} to ${count(narrowed.length, 'file')} ${other?.collision.agents[1 - other.side]} does not own"
              aria-label="Narrow ${entry} of ${agent.id} to ${count(narrowed.length, 'file')}"
              @click=${() => controls.dispatch({ type: 'replaceEntry', wave: wave.wave, agentId: agent.id, entry, with: narrowed })}
            >
              ${icons.narrow()}
            </button>`
          : nothing}
        <button
          class="icon-button remove-entry"
          title="Remove ${entry}"
          aria-label="Remove ${entry} from ${agent.id}"
          @click=${() => {
            controls.dispatch({ type: 'removeEntry', wave: wave.wave, agentId: agent.id, entry });
            controls.focusAfterRender(`.lane[data-agent="${agent.id}"] .entry:nth-child(${position + 1}) .remove-entry`, `.lane[data-agent="${agent.id}"] .glob-input`);
          }}
        >
          ${icons.close()}
        </button>
      </span>
      ${notes.length > 0
        ? html`<div class="entry-hover" role="tooltip" id=${hoverId}>
            ${notes.map((note) => html`<p class="hover-line is-${note.kind}">${note.text}</p>`)}
          </div>`
        : nothing}
    </li>`;
  }
}

customElements.define('ws-lane', AgentLane);
