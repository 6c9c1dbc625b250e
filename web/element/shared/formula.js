// Renders the core's TeX formulas with KaTeX, as MathML that browsers draw natively
// (no KaTeX fonts or CSS to ship). katex.render builds DOM nodes: no HTML strings.
import katex from 'katex';
import { noChange } from 'lit';
import { Directive, directive, PartType } from 'lit/directive.js';

class FormulaDirective extends Directive {
  constructor(part) {
    super(part);
    if (part.type !== PartType.ELEMENT) throw new Error('formula() goes on an element');
  }

  update(part, [tex]) {
    if (tex !== this.tex) {
      this.tex = tex;
      katex.render(tex, part.element, { output: 'mathml', throwOnError: false, displayMode: true });
    }
    return noChange;
  }

  render() {
    return noChange;
  }
}

/** `<div ${formula(tex)}></div>` */
export const formula = directive(FormulaDirective);
