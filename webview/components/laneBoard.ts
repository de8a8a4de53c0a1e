// The open wave's agents as columns that wrap (never a horizontal scroll), with the one way to add an
// agent; an empty wave shows a welcome-view style empty state with that action as its primary button.
import { html, nothing } from 'lit';
import type { TemplateResult } from 'lit';
import { repeat } from 'lit/directives/repeat.js';
import { selectedWave } from '../plannerState';
import { count } from '../wording';
import { icons, PlannerPart } from './base';
import { fieldMessage } from './fields';
import './agentLane';

export class LaneBoard extends PlannerPart {
  protected override render(): TemplateResult | typeof nothing {
    const { model, controls } = this;
    if (!model || !controls) return nothing;
    const wave = selectedWave(model.state);
    if (!wave) {
      return html`<section class="board" aria-label="Agents">
        <div class="empty-state board-empty">
          <h3>No waves in this plan</h3>
          <p>A wave is one round of agents working side by side. Add one to start planning.</p>
          <button class="button primary add-wave-first" @click=${() => controls.dispatch({ type: 'addWave' })}>Add a wave</button>
        </div>
      </section>`;
    }
    const addAgent = (): void => {
      controls.dispatch({ type: 'addAgent', wave: wave.wave });
      controls.focusAfterRender('ws-lane:last-of-type .agent-name');
    };
    return html`<section class="board" aria-label="Agents of wave ${wave.wave}">
      <div class="section-header">
        <h2>Agents</h2>
        <span class="section-count">${count(wave.agents.length, 'agent')}</span>
        ${wave.agents.length > 0
          ? html`<button class="button secondary add-agent" @click=${addAgent}>${icons.add()}<span>Add agent</span></button>`
          : nothing}
      </div>
      ${fieldMessage(model.state.fieldMessage, `new-agent:${wave.wave}`)}
      ${wave.agents.length === 0
        ? html`<div class="empty-state board-empty">
            <h3>Wave ${wave.wave} has no agents yet</h3>
            <p>Add an agent for each coding agent of this wave, then drag files and folders onto it from the tree.</p>
            <button class="button primary add-agent" @click=${addAgent}>${icons.add()}<span>Add agent</span></button>
          </div>`
        : html`<div class="lanes">
            ${repeat(
              wave.agents,
              (agent) => agent.id,
              (agent, index) => html`<ws-lane .model=${model} .controls=${controls} .wave=${wave} .agent=${agent} .index=${index}></ws-lane>`,
            )}
          </div>`}
    </section>`;
  }
}

customElements.define('ws-board', LaneBoard);
