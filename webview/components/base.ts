// What every planner component shares: it renders into the page itself (light DOM), so one stylesheet
// (media/planner.css, loaded under the page's content security policy) styles them all and the theme's
// variables reach every part; and the small icon set, drawn as SVG in the current text colour.
import { LitElement, svg } from 'lit';
import type { SVGTemplateResult } from 'lit';
import type { PlannerControls, PlannerModel } from './model';

/** A component of the planner: given the model and the controls, renders into itself. */
export class PlannerPart extends LitElement {
  static override properties = {
    model: { attribute: false },
    controls: { attribute: false },
  };

  declare model: PlannerModel | undefined;
  declare controls: PlannerControls | undefined;

  protected override createRenderRoot(): HTMLElement {
    return this;
  }
}

const icon = (path: SVGTemplateResult, label?: string) =>
  svg`<svg class="icon" viewBox="0 0 16 16" width="16" height="16" aria-hidden=${label ? 'false' : 'true'} role=${label ? 'img' : 'presentation'} focusable="false">${path}</svg>`;

/** 16×16 icons in the spirit of VS Code's codicons (our own drawings), in `currentColor`. */
export const icons = {
  add: () => icon(svg`<path d="M8 3v10M3 8h10" stroke="currentColor" stroke-width="1.3" fill="none"/>`),
  close: () => icon(svg`<path d="M4 4l8 8M12 4l-8 8" stroke="currentColor" stroke-width="1.3" fill="none"/>`),
  trash: () =>
    icon(svg`<path d="M3 4.5h10M6.5 4.5V3h3v1.5M4.5 4.5l.6 8.5h5.8l.6-8.5M7 7v4M9 7v4" stroke="currentColor" stroke-width="1.1" fill="none"/>`),
  warning: () => icon(svg`<path d="M8 2.2l6 11H2z" stroke="currentColor" stroke-width="1.2" fill="none" stroke-linejoin="round"/><path d="M8 6.5v3.3M8 11.2v1" stroke="currentColor" stroke-width="1.3"/>`),
  error: () => icon(svg`<circle cx="8" cy="8" r="5.8" stroke="currentColor" stroke-width="1.2" fill="none"/><path d="M5.8 5.8l4.4 4.4M10.2 5.8l-4.4 4.4" stroke="currentColor" stroke-width="1.2"/>`),
  check: () => icon(svg`<path d="M3.2 8.4l3 3 6.6-6.6" stroke="currentColor" stroke-width="1.4" fill="none"/>`),
  dot: () => icon(svg`<circle cx="8" cy="8" r="3.2" fill="currentColor"/>`),
  circle: () => icon(svg`<circle cx="8" cy="8" r="4.6" stroke="currentColor" stroke-width="1.2" fill="none"/>`),
  target: () => icon(svg`<circle cx="8" cy="8" r="5.4" stroke="currentColor" stroke-width="1.2" fill="none"/><circle cx="8" cy="8" r="2.2" fill="currentColor"/>`),
  gear: () =>
    icon(svg`<circle cx="8" cy="8" r="2.2" stroke="currentColor" stroke-width="1.2" fill="none"/><path d="M8 1.8v2M8 12.2v2M1.8 8h2M12.2 8h2M3.6 3.6l1.4 1.4M11 11l1.4 1.4M3.6 12.4L5 11M11 5l1.4-1.4" stroke="currentColor" stroke-width="1.2"/>`),
  undo: () => icon(svg`<path d="M5 4L2.5 6.5 5 9" stroke="currentColor" stroke-width="1.2" fill="none"/><path d="M3 6.5h6.5a3.5 3.5 0 010 7H7" stroke="currentColor" stroke-width="1.2" fill="none"/>`),
  redo: () => icon(svg`<path d="M11 4l2.5 2.5L11 9" stroke="currentColor" stroke-width="1.2" fill="none"/><path d="M13 6.5H6.5a3.5 3.5 0 000 7H9" stroke="currentColor" stroke-width="1.2" fill="none"/>`),
  chevronRight: () => icon(svg`<path d="M6 3.5L10.5 8 6 12.5" stroke="currentColor" stroke-width="1.3" fill="none"/>`),
  chevronDown: () => icon(svg`<path d="M3.5 6L8 10.5 12.5 6" stroke="currentColor" stroke-width="1.3" fill="none"/>`),
  narrow: () => icon(svg`<path d="M2.5 3.5h11l-4.2 5v4l-2.6 1.2V8.5z" stroke="currentColor" stroke-width="1.1" fill="none" stroke-linejoin="round"/>`),
  cloud: () =>
    icon(svg`<path d="M4.5 12.5h7a2.8 2.8 0 00.4-5.6A4 4 0 004.3 6 3.3 3.3 0 004.5 12.5z" stroke="currentColor" stroke-width="1.1" fill="none" stroke-linejoin="round"/>`),
  lock: () => icon(svg`<rect x="3.5" y="7" width="9" height="6.5" rx="1" stroke="currentColor" stroke-width="1.1" fill="none"/><path d="M5.5 7V5a2.5 2.5 0 015 0v2" stroke="currentColor" stroke-width="1.1" fill="none"/>`),
  info: () => icon(svg`<circle cx="8" cy="8" r="5.8" stroke="currentColor" stroke-width="1.2" fill="none"/><path d="M8 7v4.2M8 4.8v1" stroke="currentColor" stroke-width="1.3"/>`),
  file: () => icon(svg`<path d="M4 1.8h5l3 3v9.4H4z" stroke="currentColor" stroke-width="1.1" fill="none" stroke-linejoin="round"/><path d="M9 1.8v3h3" stroke="currentColor" stroke-width="1.1" fill="none"/>`),
};
