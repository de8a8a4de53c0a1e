// The open wave's collisions explained, each with its two kinds told apart ("2 existing files, e.g. …"
// or "no file today, but any path like … would be owned by both") and its resolutions in the order its
// agents are named: narrow or remove, for either side. Then the overlaps with waves other clones claim,
// and the claims themselves ("wave 3 in clone X since 10:42").
import { html, nothing } from 'lit';
import type { TemplateResult } from 'lit';
import type { ClaimConflictSummary } from '../../src/protocol/plannerProtocol';
import { resolutionsOf } from '../planAnalysis';
import type { Resolution, WaveCollision } from '../planAnalysis';
import { collisionReason, resolutionLabel } from '../collisionText';
import { selectedWave } from '../plannerState';
import { clockTime, count } from '../wording';
import { icons, PlannerPart } from './base';

export class CollisionPanel extends PlannerPart {
  protected override render(): TemplateResult | typeof nothing {
    const { model, controls } = this;
    if (!model || !controls) return nothing;
    const wave = selectedWave(model.state);
    if (!wave) return nothing;
    const analysis = model.analysis;
    const collisions = analysis?.collisions ?? [];
    const duplicates = analysis?.duplicateIds ?? [];
    const conflicts = model.claims.conflicts.filter((conflict) => conflict.wave === wave.wave);
    const claims = model.claims.claims;
    return html`
      <section class="collisions" aria-labelledby="collisions-heading">
        <div class="section-header">
          <h2 id="collisions-heading" tabindex="-1">Collisions</h2>
          <span class="section-count ${collisions.length > 0 ? 'has-problem' : ''}" data-count=${collisions.length}>${collisions.length}</span>
        </div>
        ${analysis === undefined
          ? html`<p class="quiet">Checking the wave…</p>`
          : collisions.length === 0 && duplicates.length === 0
            ? html`<p class="quiet no-collisions">${icons.check()}<span>No two agents of wave ${wave.wave} own the same path.</span></p>`
            : nothing}
        ${duplicates.map((id) => html`<p class="problem-line">${icons.error()}<span>Wave ${wave.wave} names the agent ${id} twice: rename one of them.</span></p>`)}
        ${collisions.length > 0
          ? html`<ol class="collision-list">
              ${collisions.map((collision, index) => this.renderCollision(collision, index, collisions.length))}
            </ol>`
          : nothing}
      </section>
      ${conflicts.length > 0 || claims.length > 0 ? this.renderClaims(conflicts) : nothing}
    `;
  }

  private renderCollision(collision: WaveCollision, index: number, total: number): TemplateResult {
    const { model, controls } = this;
    const wave = model && selectedWave(model.state);
    if (!model || !controls || !wave) return html``;
    const [a, b] = collision.agents;
    const [entryA, entryB] = collision.entries;
    const resolutions = resolutionsOf(wave, collision, model.cache);
    const resolve = (resolution: Resolution): void => {
      if (resolution.kind === 'remove') controls.dispatch({ type: 'removeEntry', wave: wave.wave, agentId: resolution.agent, entry: resolution.entry });
      else controls.dispatch({ type: 'replaceEntry', wave: wave.wave, agentId: resolution.agent, entry: resolution.entry, with: resolution.files ?? [] });
      // Keyboard users stay in the list: the next collision (now at this place), else the previous one, else the heading.
      const next = Math.min(index, total - 2);
      controls.focusAfterRender(next >= 0 ? `.collision-list > .collision:nth-child(${next + 1}) .resolve` : '#collisions-heading', '#collisions-heading');
    };
    return html`<li class="collision" data-agents="${a} ${b}" data-kind=${collision.shared > 0 ? 'existing' : 'future'}>
      <div class="collision-text">
        ${icons.warning()}
        <span><strong>${a}</strong> <span class="mono">${entryA}</span> and <strong>${b}</strong> <span class="mono">${entryB}</span></span>
      </div>
      <p class="collision-why" data-witness=${collision.witness}>${collisionReason(collision)}</p>
      <div class="collision-actions" role="group" aria-label="Resolve the collision of ${a} and ${b}">
        ${resolutions.map(
          (resolution) => html`<button
            class="button secondary resolve resolve-${resolution.kind}"
            data-agent=${resolution.agent}
            data-entry=${resolution.entry}
            @click=${() => resolve(resolution)}
          >
            ${resolution.kind === 'narrow' ? icons.narrow() : icons.close()}<span>${resolutionLabel(resolution)}</span>
          </button>`,
        )}
      </div>
    </li>`;
  }

  private renderClaims(conflicts: ClaimConflictSummary[]): TemplateResult {
    const { model, controls } = this;
    if (!model || !controls) return html``;
    const claims = model.claims.claims;
    return html`<section class="claims" aria-labelledby="claims-heading">
      <div class="section-header">
        <h2 id="claims-heading" tabindex="-1">Other clones</h2>
        <span class="section-count ${conflicts.length > 0 ? 'has-problem' : ''}">${count(claims.length, 'claim')}</span>
      </div>
      ${conflicts.length > 0
        ? html`<ol class="claim-conflicts">
            ${conflicts.map(
              (conflict) => html`<li class="claim-conflict" data-agent=${conflict.agent} data-entry=${conflict.entry}>
                <div class="collision-text">
                  ${icons.lock()}
                  <span
                    ><strong>${conflict.agent}</strong> <span class="mono">${conflict.entry}</span>${conflict.testSibling ? ' (its test siblings)' : ''} overlaps wave
                    ${conflict.otherWave} claimed by clone ${conflict.cloneName} since ${clockTime(conflict.claimedAt)}: <strong>${conflict.otherAgent}</strong>
                    <span class="mono">${conflict.otherEntry}</span></span
                  >
                </div>
                <p class="collision-why">Both would own ${conflict.witness}. Saving is refused until the overlap is gone.</p>
                <div class="collision-actions">
                  <button
                    class="button secondary resolve resolve-remove"
                    data-agent=${conflict.agent}
                    data-entry=${conflict.entry}
                    @click=${() => {
                      controls.dispatch({ type: 'removeEntry', wave: conflict.wave, agentId: conflict.agent, entry: conflict.entry });
                      controls.focusAfterRender('.claim-conflict .resolve', '#claims-heading');
                    }}
                  >
                    ${icons.close()}<span>Remove ${conflict.entry} from ${conflict.agent}</span>
                  </button>
                </div>
              </li>`,
            )}
          </ol>`
        : nothing}
      <ul class="claim-list">
        ${claims.map(
          (claim) => html`<li class="claim">
            ${icons.cloud()}
            <span
              >Wave ${claim.wave} claimed in clone <strong>${claim.cloneName}</strong> since ${clockTime(claim.claimedAt)}, until ${clockTime(claim.expiresAt)}:
              ${count(claim.agents.length, 'agent')}${claim.problems.length > 0 ? html` <em>(cannot be read: ${claim.problems.join('; ')})</em>` : nothing}</span
            >
          </li>`,
        )}
      </ul>
    </section>`;
  }
}

customElements.define('ws-collisions', CollisionPanel);
