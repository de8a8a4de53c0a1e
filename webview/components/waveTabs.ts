// The waves as tabs, each with its collision count and a mark on the active one, and the open wave's
// settings (role, number, active, delete) in a strip that opens on demand: they are set once, looked at
// rarely, and the summary above already says what matters.
import { html, nothing } from 'lit';
import type { TemplateResult } from 'lit';
import { repeat } from 'lit/directives/repeat.js';
import { selectedWave } from '../plannerState';
import { tabCollisionLabel } from '../plannerSummary';
import { icons, PlannerPart } from './base';
import { fieldMessage, inputValue } from './fields';

export class WaveTabs extends PlannerPart {
  static override properties = { ...PlannerPart.properties, settingsOpen: { state: true } };
  declare settingsOpen: boolean;

  constructor() {
    super();
    this.settingsOpen = false;
  }

  protected override render(): TemplateResult | typeof nothing {
    const model = this.model;
    const controls = this.controls;
    if (!model || !controls) return nothing;
    const { state } = model;
    const waves = state.draft.waves;
    const open = selectedWave(state);
    return html`
      <nav class="wave-bar" aria-label="Waves">
        <div class="wave-tabs" role="tablist" aria-label="Waves">
          ${repeat(
            waves,
            (wave) => wave.wave,
            (wave) => {
              const selected = wave.wave === state.selectedWave;
              const active = state.draft.activeWave === wave.wave;
              const collisions = model.facts.get(wave.wave)?.collisions ?? 0;
              const collisionLabel = tabCollisionLabel(collisions);
              const name = `Wave ${wave.wave}${active ? ', active' : ''}${collisionLabel ? `, ${collisionLabel}` : ''}`;
              return html`<button
                class="wave-tab ${selected ? 'selected' : ''}"
                role="tab"
                aria-selected=${String(selected)}
                aria-label=${name}
                tabindex=${selected ? 0 : -1}
                data-wave=${wave.wave}
                title=${active ? 'The active wave: the manifest names it' : `Wave ${wave.wave}`}
                @click=${() => controls.dispatch({ type: 'selectWave', wave: wave.wave })}
                @keydown=${(event: KeyboardEvent) => this.onTabKey(event, wave.wave)}
              >
                ${active ? html`<span class="tab-active-mark">${icons.dot()}</span>` : nothing}
                <span class="tab-label">Wave ${wave.wave}</span>
                ${collisions > 0 ? html`<span class="tab-badge" aria-hidden="true">${collisions}</span>` : nothing}
              </button>`;
            },
          )}
          <button class="icon-button add-wave" title="Add a wave" aria-label="Add a wave" @click=${() => controls.dispatch({ type: 'addWave' })}>
            ${icons.add()}
          </button>
        </div>
        ${open
          ? html`<button
              class="toolbar-button wave-settings-toggle"
              aria-expanded=${String(this.settingsOpen)}
              aria-controls="wave-settings"
              title="Role, number and deletion of wave ${open.wave}"
              @click=${() => (this.settingsOpen = !this.settingsOpen)}
            >
              ${icons.gear()}<span>Role: ${open.role}</span>${this.settingsOpen ? icons.chevronDown() : icons.chevronRight()}
            </button>`
          : nothing}
      </nav>
      ${open && this.settingsOpen ? this.settings(open.wave, open.role, state.draft.activeWave === open.wave) : nothing}
    `;
  }

  private settings(wave: number, role: string, active: boolean): TemplateResult {
    const model = this.model;
    const controls = this.controls;
    if (!model || !controls) return html``;
    const message = model.state.fieldMessage;
    return html`<section id="wave-settings" class="wave-settings" aria-label="Settings of wave ${wave}">
      <div class="field">
        <label for="wave-role">Role</label>
        <input
          id="wave-role"
          class="text-input wave-role"
          .value=${role}
          aria-invalid=${String(message?.field === `role:${wave}` && message.kind === 'error')}
          @change=${(event: Event) => controls.dispatch({ type: 'setRole', wave, role: inputValue(event) })}
        />
        ${fieldMessage(message, `role:${wave}`)}
      </div>
      <div class="field field-narrow">
        <label for="wave-number">Number</label>
        <input
          id="wave-number"
          class="text-input wave-number"
          type="number"
          min="1"
          .value=${String(wave)}
          aria-invalid=${String(message?.field === `number:${wave}` && message.kind === 'error')}
          @change=${(event: Event) => controls.dispatch({ type: 'renumberWave', wave, to: Number(inputValue(event)) })}
        />
        ${fieldMessage(message, `number:${wave}`)}
      </div>
      <label class="check wave-active">
        <input
          type="checkbox"
          .checked=${active}
          @change=${(event: Event) => controls.dispatch({ type: 'setActiveWave', wave: (event.currentTarget as HTMLInputElement).checked ? wave : undefined })}
        />
        <span>Active wave (the manifest names it)</span>
      </label>
      <button class="button secondary delete-wave" @click=${() => controls.deleteWave(wave)}>${icons.trash()}<span>Delete wave ${wave}</span></button>
    </section>`;
  }

  private onTabKey(event: KeyboardEvent, wave: number): void {
    const model = this.model;
    const controls = this.controls;
    if (!model || !controls) return;
    const waves = model.state.draft.waves.map((item) => item.wave);
    const at = waves.indexOf(wave);
    let next: number | undefined;
    if (event.key === 'ArrowRight') next = waves[(at + 1) % waves.length];
    else if (event.key === 'ArrowLeft') next = waves[(at - 1 + waves.length) % waves.length];
    else if (event.key === 'Home') next = waves[0];
    else if (event.key === 'End') next = waves[waves.length - 1];
    else if (event.key === 'Delete') {
      event.preventDefault();
      controls.deleteWave(wave);
      return;
    }
    if (next === undefined) return;
    event.preventDefault();
    controls.dispatch({ type: 'selectWave', wave: next });
    controls.focusAfterRender(`.wave-tab[data-wave="${next}"]`);
  }
}

customElements.define('ws-wave-tabs', WaveTabs);
