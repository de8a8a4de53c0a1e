// Inline style through the CSSOM. The page's content security policy refuses style attributes (rightly:
// no 'unsafe-inline'), and lit's styleMap writes the attribute on its first render; this element
// directive sets each property with `style.setProperty`, which the policy allows.
import { noChange } from 'lit';
import type { ElementPart } from 'lit';
import { Directive, directive, PartType } from 'lit/directive.js';
import type { PartInfo } from 'lit/directive.js';

class StyleProps extends Directive {
  private previous = new Set<string>();

  constructor(part: PartInfo) {
    super(part);
    if (part.type !== PartType.ELEMENT) throw new Error('styleProps() belongs on an element: <div ${styleProps({...})}>');
  }

  render(_properties: Record<string, string>): typeof noChange {
    return noChange;
  }

  override update(part: ElementPart, [properties]: [Record<string, string>]): typeof noChange {
    const style = (part.element as HTMLElement).style;
    for (const name of this.previous) if (!(name in properties)) style.removeProperty(name);
    for (const [name, value] of Object.entries(properties)) style.setProperty(name, value);
    this.previous = new Set(Object.keys(properties));
    return noChange;
  }
}

/** Sets CSS properties (custom properties included, `kebab-case` names) on the element it is placed on. */
export const styleProps = directive(StyleProps);
