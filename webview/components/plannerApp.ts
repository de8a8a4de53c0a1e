// The planner's page: the summary, the wave tabs, then the file tree beside the agents' board and the
// collisions; the confirmation dialog on top when one is asked. Lays the parts out and moves focus where
// an action asked it to go once the parts have rendered (a resolved collision, a new lane).
import { html, LitElement, nothing } from 'lit';
import type { PropertyValues, TemplateResult } from 'lit';
import { styleProps } from './styleProps';
import type { ConfirmRequest, PlannerControls, PlannerModel } from './model';
import './collisionPanel';
import './confirmDialog';
import './laneBoard';
import './summaryBar';
import './treePane';
import './waveTabs';

export class PlannerApp extends LitElement {
  static override properties = {
    model: { attribute: false },
    controls: { attribute: false },
    confirmation: { attribute: false },
  };
  declare model: PlannerModel | undefined;
  declare controls: PlannerControls | undefined;
  declare confirmation: (ConfirmRequest & { answer(confirmed: boolean): void }) | undefined;

  /** Selectors to focus after the next render, first match wins. */
  private pendingFocus: string[] = [];

  protected override createRenderRoot(): HTMLElement {
    return this;
  }

  /** Focuses the first element matching one of `selectors` once the parts have rendered. */
  focusAfterRender(selectors: string[]): void {
    this.pendingFocus = selectors;
    this.requestUpdate();
  }

  protected override render(): TemplateResult | typeof nothing {
    const { model, controls } = this;
    if (!model || !controls) return nothing;
    return html`
      <ws-summary .model=${model} .controls=${controls}></ws-summary>
      <ws-wave-tabs .model=${model} .controls=${controls}></ws-wave-tabs>
      <main class="workspace" ${styleProps({ '--tree-width': `${model.state.treeWidth}px` })}>
        <ws-tree-pane .model=${model} .controls=${controls}></ws-tree-pane>
        <div class="plan-pane">
          <ws-board .model=${model} .controls=${controls}></ws-board>
          <ws-collisions .model=${model} .controls=${controls}></ws-collisions>
        </div>
      </main>
      <ws-confirm .request=${this.confirmation}></ws-confirm>
    `;
  }

  protected override async updated(changed: PropertyValues): Promise<void> {
    super.updated(changed);
    if (this.pendingFocus.length === 0) return;
    const selectors = this.pendingFocus;
    this.pendingFocus = [];
    // The parts render after this element: wait for every one of them.
    const parts = [...this.querySelectorAll<LitElement>('ws-summary, ws-wave-tabs, ws-tree-pane, ws-board, ws-lane, ws-collisions')];
    await Promise.all(parts.map((part) => part.updateComplete));
    for (const selector of selectors) {
      const target = this.querySelector<HTMLElement>(selector);
      if (target) {
        target.focus();
        if (target instanceof HTMLInputElement && target.classList.contains('agent-name')) target.select();
        target.scrollIntoView?.({ block: 'nearest' });
        return;
      }
    }
  }
}

customElements.define('ws-planner', PlannerApp);
