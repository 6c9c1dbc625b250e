// The efficient view: cheaper attention beside the exact one (issue 37). One example (random
// Q, K, V drawn by the core with a seed, or the stepper's own); a family and its knob; exact
// softmax weights and the family's side by side, the error per row and on the output; the
// FLOPs and bytes as n grows, with times measured live in a Worker (body/measured.js); the
// recurrent forms stepped token by token with their state; and the little model with one head
// or every head computed by the family (body/consequence.js).
// This module is what every page loads (the view's state and its element); the view itself,
// body/ (its own folder, so that views/index.js's glob of views/*/*.js leaves it out), loads
// the first time it opens, so the page's first load stays within its budget.
import { adoptStyles } from 'lit';

import { viewStyles } from '../../shared/styles.js';
import { defineView, ViewBase } from '../../shared/view-base.js';
import { FIELDS, HEADING } from './fields.js';

let body = null; // body.js, once loaded
const loading = () => import('./body/body.js').then((module) => (body = module));

class EfficientView extends ViewBase {
  static styles = viewStyles; // the body's own styles join when it loads (_adoptBody)

  static properties = { ...ViewBase.properties, trace: { attribute: false }, state: { attribute: false } };

  keeps = 'the last good result';

  connectedCallback() {
    super.connectedCallback();
    if (body) return this._adoptBody();
    loading().then(() => {
      this._adoptBody();
      this._computedKey = undefined; // computed now, with the body in
      this.requestUpdate('viewState');
    });
  }

  // The body's styles (body/styles.js, with the shared ones), adopted once by this shadow root.
  _adoptBody() {
    if (this._adopted || !this.renderRoot) return;
    adoptStyles(this.renderRoot, EfficientView.finalizeStyles(body.efficientStyles));
    this._adopted = true;
  }

  willUpdate(changed) {
    // The stepper's inputs are the host's trace: a new one asks the core again.
    if (changed.has('trace') && this.viewState?.source === 'stepper') this._computedKey = undefined;
    super.willUpdate(changed);
  }

  computeKey(v) {
    return body ? JSON.stringify(v.source === 'stepper' ? { ...v, n: 0, width: 0 } : v) : undefined;
  }

  compute(lab, v) {
    return body ? body.compute(this, lab, v) : null;
  }

  render() {
    if (!body || !this._result || !this.viewState) return this.placeholder(HEADING, this._error);
    return body.render(this);
  }
}

export const efficientView = defineView({ id: 'efficient', title: 'Cheaper attention', element: EfficientView, fields: FIELDS });
