// attnlab, attnlab/element and attnlab/webgpu imported in plain Node, as a server-side render
// (a docs site's or an app's build) imports them: nothing throws, no DOM is needed and none is
// installed; where a DOM shim offers a registry, the element registers in it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';

import { consumerDir, importFromConsumer } from './support/package.js';

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

// In a process of its own, the shim installed before the first import, as an app installs
// happy-dom or jsdom: the element bundle shares chunks (Lit among them) that a module graph
// evaluates once, so a second import in this process would not see the shim.
test('where customElements exists, importing the element registers <attn-lab>', () => {
  const element = pathToFileURL(createRequire(join(consumerDir, 'package.json')).resolve('attnlab/element')).href;
  const script = `
    const defined = new Map();
    globalThis.HTMLElement = class {}; // what a DOM shim (happy-dom, jsdom) would provide
    globalThis.customElements = { get: (tag) => defined.get(tag), define: (tag, element) => defined.set(tag, element) };
    const { AttnLabElement } = await import(${JSON.stringify(element)});
    console.log(JSON.stringify({
      registered: defined.get('attn-lab') === AttnLabElement,
      onShim: Object.getPrototypeOf(AttnLabElement.prototype) instanceof HTMLElement,
      tags: [...defined.keys()],
    }));`;
  const { registered, onShim, tags } = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }));
  assert.ok(registered, '<attn-lab> is the exported class');
  assert.ok(onShim, 'built on the DOM shim');
  assert.ok(tags.includes('attn-topic-quiz') && tags.includes('attn-geometry-view'), `the inner elements too: ${tags}`);
});
