// The planner's summary, first on the page: the open wave, whether it is active (enforced), its
// collisions and unowned files, one save status that is always true, and the one next action; below it
// the banners that need a decision (the disk changed under the draft, a refused save, Restricted mode).
import { html, nothing } from 'lit';
import type { TemplateResult } from 'lit';
import { staleChangesOf } from '../plannerState';
import { offersDiskLoad } from '../plannerSummary';
import type { NextAction } from '../plannerSummary';
import { count } from '../wording';
import { icons, PlannerPart } from './base';

export class SummaryBar extends PlannerPart {
  protected override render(): TemplateResult | typeof nothing {
    const model = this.model;
    const controls = this.controls;
    if (!model || !controls) return nothing;
    const { summary } = model;
    const next = summary.next;
    const saveIsNext = next?.kind === 'save';
    const statusIcon = summary.status.tone === 'ok' ? icons.check() : summary.status.tone === 'error' ? icons.error() : icons.dot();
    const unowned = summary.unowned;
    return html`
      <header class="summary" aria-label="Summary">
        <div class="summary-main">
          <div class="summary-title">
            <span class="summary-folder" title="Workspace folder">${model.folderName}</span>
            <h1 class="summary-wave">${summary.title}</h1>
            ${summary.title !== 'No waves'
              ? html`<span
                  class="state-pill ${summary.active ? 'is-active' : 'is-inactive'}"
                  data-active=${String(summary.active)}
                  title=${summary.enforcementDetail ?? ''}
                  >${summary.active ? icons.dot() : icons.circle()}<span>${summary.enforcement}</span></span
                >`
              : nothing}
          </div>
          <ul class="summary-facts" aria-label="Facts of this wave">
            <li class="fact fact-collisions ${summary.collisions > 0 ? 'has-problem' : ''}" data-count=${summary.collisions}>
              ${summary.collisions > 0 ? icons.warning() : icons.check()}
              <span class="collision-count">${summary.collisions > 0 ? count(summary.collisions, 'collision') : 'No collisions'}</span>
              ${summary.collisionsElsewhere > 0
                ? html`<span class="fact-aside">(${count(summary.collisionsElsewhere, 'more', 'more')} in other waves)</span>`
                : nothing}
            </li>
            ${unowned === undefined
              ? nothing
              : html`<li class="fact fact-unowned">
                  <button
                    class="link-button unowned-count"
                    title="Show only the files no agent of this wave owns"
                    @click=${() => {
                      controls.dispatch({ type: 'setTreeMode', mode: 'unassigned' });
                      controls.focusAfterRender('.tree');
                    }}
                  >
                    ${unowned === 0 ? 'Every file has an owner' : count(unowned, 'unowned file')}
                  </button>
                </li>`}
            ${summary.claimConflicts > 0
              ? html`<li class="fact fact-claims has-problem">${icons.lock()}<span>${count(summary.claimConflicts, 'overlap')} with other clones</span></li>`
              : nothing}
            <li class="fact save-status" data-tone=${summary.status.tone} role="status" aria-live="polite" title=${summary.status.detail ?? ''}>
              <span class="status-icon">${statusIcon}</span><span class="status-text">${summary.status.text}</span>
            </li>
          </ul>
        </div>
        <div class="summary-actions">
          <button
            class="icon-button undo"
            ?disabled=${model.undoLabel === undefined}
            title=${model.undoLabel ? `Undo: ${model.undoLabel} (Ctrl+Z)` : 'Nothing to undo'}
            aria-label=${model.undoLabel ? `Undo: ${model.undoLabel}` : 'Undo'}
            @click=${() => controls.dispatch({ type: 'undo' })}
          >
            ${icons.undo()}
          </button>
          <button
            class="icon-button redo"
            ?disabled=${model.redoLabel === undefined}
            title=${model.redoLabel ? `Redo: ${model.redoLabel} (Ctrl+Shift+Z)` : 'Nothing to redo'}
            aria-label=${model.redoLabel ? `Redo: ${model.redoLabel}` : 'Redo'}
            @click=${() => controls.dispatch({ type: 'redo' })}
          >
            ${icons.redo()}
          </button>
          ${next && !saveIsNext ? this.nextButton(next) : nothing}
          <button
            class="button save ${saveIsNext ? 'primary' : 'secondary'}"
            ?disabled=${!summary.canSave}
            title=${model.trusted ? 'Save the plan (Ctrl+S)' : 'Saving needs a trusted workspace'}
            @click=${() => controls.save()}
          >
            Save plan
          </button>
        </div>
      </header>
      ${this.banners()}
    `;
  }

  private nextButton(next: NextAction): TemplateResult {
    const controls = this.controls;
    const run = (): void => {
      if (!controls) return;
      switch (next.kind) {
        case 'resolve':
          controls.focusAfterRender('.collision .resolve', '#collisions-heading');
          return;
        case 'resolveClaims':
          controls.focusAfterRender('.claim-conflict .resolve', '#claims-heading');
          return;
        case 'makeActive':
          controls.dispatch({ type: 'setActiveWave', wave: next.wave });
          return;
        case 'addAgent':
          controls.dispatch({ type: 'addAgent', wave: next.wave });
          controls.focusAfterRender('ws-lane:last-of-type .agent-name');
          return;
        case 'addWave':
          controls.dispatch({ type: 'addWave' });
          return;
        case 'save':
          controls.save();
      }
    };
    return html`<button class="button primary next-action" data-next=${next.kind} @click=${run}>${next.label}</button>`;
  }

  private banners(): TemplateResult {
    const model = this.model;
    const controls = this.controls;
    if (!model || !controls) return html``;
    const { state } = model;
    const items: TemplateResult[] = [];
    if (model.loadProblem) items.push(html`<div class="banner is-error" role="alert">${icons.error()}<span>${model.loadProblem}</span></div>`);
    if (!model.trusted) {
      items.push(
        html`<div class="banner is-info untrusted">${icons.lock()}<span>Restricted Mode: planning works; saving needs a trusted workspace.</span></div>`,
      );
    }
    if (model.diskProblem) items.push(html`<div class="banner is-warning disk-problem">${icons.warning()}<span>${model.diskProblem}</span></div>`);
    const stale = staleChangesOf(state);
    // A refusal for changes on disk says more than this banner, and offers the same load.
    if (offersDiskLoad(state) && stale.length === 0) {
      items.push(html`<div class="banner is-warning disk-changed">
        ${icons.info()}
        <span>The plan on disk changed while this draft had unsaved edits. The draft is kept.</span>
        <button class="button secondary adopt-disk" @click=${() => controls.adoptDisk()}>Load plan from disk</button>
      </div>`);
    }
    const save = state.save;
    if (stale.length > 0) {
      items.push(html`<div class="banner is-error save-problem save-stale" role="alert">
        ${icons.error()}<span class="save-message">${save.kind === 'refused' ? save.message : ''}</span>
        <button class="button secondary adopt-disk" @click=${() => controls.adoptDisk()}>Load plan from disk</button>
        <button class="button secondary overwrite-disk" @click=${() => controls.overwrite()}>Overwrite changes on disk</button>
      </div>`);
    } else if (save.kind === 'refused' || save.kind === 'failed') {
      items.push(html`<div class="banner is-error save-problem" role="alert">${icons.error()}<span class="save-message">${save.message}</span></div>`);
    }
    if (state.notice) {
      items.push(html`<div class="banner is-warning notice" role="status">
        ${icons.warning()}<span>${state.notice}</span>
        <button class="button secondary dismiss" @click=${() => controls.dispatch({ type: 'dismissNotice' })}>Dismiss</button>
      </div>`);
    }
    if (model.claims.problem) {
      items.push(html`<div class="banner is-warning claims-problem">${icons.cloud()}<span>${model.claims.problem}</span></div>`);
    }
    return items.length === 0 ? html`` : html`<div class="banners">${items}</div>`;
  }
}

customElements.define('ws-summary', SummaryBar);
