// The confirmation a destructive action asks for, with the counts of what goes: a modal <dialog> (the
// browser traps focus in it and Escape cancels), its destructive button first in reading order but the
// safe one focused, as VS Code's own dialogs do.
import { html, LitElement, nothing } from 'lit';
import type { PropertyValues, TemplateResult } from 'lit';
import type { ConfirmRequest } from './model';

export class ConfirmDialog extends LitElement {
  static override properties = { request: { attribute: false } };
  declare request: (ConfirmRequest & { answer(confirmed: boolean): void }) | undefined;

  protected override createRenderRoot(): HTMLElement {
    return this;
  }

  protected override render(): TemplateResult | typeof nothing {
    const request = this.request;
    if (!request) return nothing;
    const answer = (confirmed: boolean) => () => {
      (this.querySelector('dialog') as HTMLDialogElement | null)?.close();
      request.answer(confirmed);
    };
    return html`<dialog class="confirm" aria-labelledby="confirm-title" aria-describedby="confirm-body" @cancel=${answer(false)}>
      <h2 id="confirm-title">${request.title}</h2>
      <p id="confirm-body">${request.body}</p>
      <div class="confirm-actions">
        <button class="button primary confirm-yes" @click=${answer(true)}>${request.confirmLabel}</button>
        <button class="button secondary confirm-no" @click=${answer(false)}>${request.cancelLabel ?? 'Cancel'}</button>
      </div>
    </dialog>`;
  }

  protected override updated(changed: PropertyValues): void {
    super.updated(changed);
    const dialog = this.querySelector('dialog') as HTMLDialogElement | null;
    if (dialog && this.request && !dialog.open) {
      dialog.showModal();
      (dialog.querySelector('.confirm-no') as HTMLElement | null)?.focus();
    }
  }
}

customElements.define('ws-confirm', ConfirmDialog);
