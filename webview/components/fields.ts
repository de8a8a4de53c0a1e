// Inline messages under an input, as the Settings editor shows them: an error keeps the typed text and
// marks the field; a note says how the input was adjusted; a warning says it is probably a typo.
import { html, nothing } from 'lit';
import type { TemplateResult } from 'lit';
import type { FieldMessage } from '../plannerState';
import { icons } from './base';

/** The value of the input an event came from. */
export function inputValue(event: Event): string {
  return (event.currentTarget as HTMLInputElement | null)?.value ?? '';
}

/** One inline message, with the id an input's `aria-describedby` names. */
export function inlineMessage(kind: 'error' | 'warning' | 'note', text: string, id?: string): TemplateResult {
  const icon = kind === 'error' ? icons.error() : kind === 'warning' ? icons.warning() : icons.info();
  return html`<div class="field-message is-${kind}" id=${id ?? nothing} role=${kind === 'error' ? 'alert' : 'status'}>${icon}<span>${text}</span></div>`;
}

/** The state's field message, when it belongs to `field`. */
export function fieldMessage(message: FieldMessage | undefined, field: string): TemplateResult | typeof nothing {
  if (!message || message.field !== field) return nothing;
  return inlineMessage(message.kind, message.text);
}
