// attnlab, attnlab/element and attnlab/webgpu imported in plain Node, as a server-side render
// (a docs site's or an app's build) imports them: nothing throws, no DOM is needed and none is
// installed; where a DOM shim offers a registry, the element registers in it.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { importFromConsumer } from './support/package.js';

const DOM_GLOBALS = ['window', 'document', 'HTMLElement', 'customElements'];
const domGlobals = () => DOM_GLOBALS.filter((name) => globalThis[name] !== undefined);

test('the three entry points import in Node without a DOM, and install none', async () => {
  assert.deepEqual(domGlobals(), [], 'plain Node has no DOM');
  const [core, element, webgpu] = await Promise.all(['attnlab', 'attnlab/element', 'attnlab/webgpu'].map((s) => importFromConsumer(s)));
  assert.equal(typeof core.createAttnLab, 'function');
  assert.equal(typeof element.AttnLabElement, 'function');
  assert.equal(typeof element.StateError, 'function');
  assert.equal(typeof webgpu.createGpuAttention, 'function');
  assert.deepEqual(domGlobals(), [], 'no DOM global after the imports');
  // The class is whole: Lit works out its attributes without a DOM.
  assert.ok(element.AttnLabElement.observedAttributes.includes('preset'));
});

test('where customElements exists, importing the element registers <attn-lab>', async (t) => {
  const defined = new Map();
  globalThis.HTMLElement = class {}; // what a DOM shim (happy-dom, jsdom) would provide
  globalThis.customElements = { get: (tag) => defined.get(tag), define: (tag, element) => defined.set(tag, element) };
  t.after(() => DOM_GLOBALS.forEach((name) => delete globalThis[name]));

  const { AttnLabElement } = await importFromConsumer('attnlab/element', '?with-registry');
  assert.equal(defined.get('attn-lab'), AttnLabElement);
  assert.ok(Object.getPrototypeOf(AttnLabElement.prototype) instanceof HTMLElement, 'built on the DOM shim');
  assert.ok(defined.has('attn-topic-quiz') && defined.has('attn-geometry-view'), `the inner elements too: ${[...defined.keys()]}`);
});
