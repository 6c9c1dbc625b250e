// CSS properties set through the CSSOM, never as a style attribute: the page's
// Content-Security-Policy (style-src 'self', docs/hardening.md) refuses inline style
// attributes, and Lit's styleMap writes one on its first render.
// Use: html`<span style=${cssProps({ '--w': 0.5, width: '3px' })}>` (names as CSS spells them).
import { noChange } from 'lit';
import { Directive, PartType, directive } from 'lit/directive.js';

class CssProps extends Directive {
  #names = [];

  constructor(part) {
    super(part);
    if (part.type !== PartType.ATTRIBUTE || part.name !== 'style') throw new Error('cssProps() binds to a style attribute');
  }

  render() {
    return noChange;
  }

  update(part, [props]) {
    const { style } = part.element;
    for (const name of this.#names) if (!(name in props)) style.removeProperty(name);
    for (const [name, value] of Object.entries(props)) style.setProperty(name, String(value));
    this.#names = Object.keys(props);
    return noChange;
  }
}

export const cssProps = directive(CssProps);
