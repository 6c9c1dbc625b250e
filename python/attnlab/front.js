// attnlab's notebook front end: the anywidget module of every widget of the Python package.
// It draws the built <attn-lab> element (dist/element.js) from files that travel inside the
// widget's own state, never from a server: anywidget imports this module from a blob: URL in
// JupyterLab, Notebook 7, VS Code, Colab and marimo alike, so the element's relative imports
// and its import.meta.url-relative wasm, Worker and model files would point nowhere. Each file
// becomes a blob: URL instead, and each JavaScript file's names of its siblings ("./attnlab.js",
// `attnlab-core.wasm`, …) are rewritten to those URLs before it is imported; the rest of the
// element is unchanged, so the numbers are the core's as on the page.

// One registry per page (per Worker, the worker has its own): several widgets share one module
// graph, so one wasm core and one definition of each custom element, as several <attn-lab>
// on a page do.
const registry = (globalThis.__attnlab ??= { graphs: new Map(), modelUrls: new Map() });

const TYPES = { js: 'text/javascript', wasm: 'application/wasm', json: 'application/json', bin: 'application/octet-stream' };
const MODEL_DATA = ['model.json', 'tokenizer.json', 'weights.bin'];
const bytesOf = (view) => new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// The little model's files are big (weights.bin is 1.5 MB) and only the model view reads them,
// so only the widgets that need them carry them. The package reads them lazily through the
// URLs it made when it loaded (dist/model.js), so those URLs are URL objects kept here, which a
// widget that brings the files points at them later (a URL object's href can change).
registry.modelUrl ??= (name) => {
  if (!registry.modelUrls.has(name)) registry.modelUrls.set(name, new URL(`blob:${location.origin}/attnlab-${name}-not-sent`));
  return registry.modelUrls.get(name);
};

function provideModelData(files) {
  for (const name of MODEL_DATA) {
    if (!files[name]) continue;
    const url = registry.modelUrl(name);
    if (url.href.endsWith('-not-sent')) url.href = URL.createObjectURL(new Blob([bytesOf(files[name])], { type: TYPES[name.split('.').pop()] }));
  }
}

// files: { name: DataView } as the Python side sent them (attnlab/_assets.py). Returns
// { name: blob URL }, JavaScript files imported in dependency order (the graph has no cycle:
// element → attnlab → model → attnlab-model, and so on).
function moduleGraph(files) {
  const urls = {};
  const scripts = {};
  for (const [name, view] of Object.entries(files)) {
    if (MODEL_DATA.includes(name)) continue;
    if (name.endsWith('.js')) scripts[name] = new TextDecoder().decode(bytesOf(view));
    else urls[name] = URL.createObjectURL(new Blob([bytesOf(view)], { type: TYPES[name.split('.').pop()] }));
  }
  const siblings = Object.keys(files).filter((name) => !MODEL_DATA.includes(name));
  // A sibling named as a whole string literal, with or without "./".
  const literal = new RegExp(`([\`'"])(?:\\./)?(${siblings.map(escape).join('|')})\\1`, 'g');
  // The model's files, named relative to dist/ ("../model/…"): the registry's URL objects.
  const modelFile = new RegExp(`new URL\\(([\`'"])\\.\\./model/(${MODEL_DATA.map(escape).join('|')})\\1\\s*,\\s*import\\.meta\\.url\\)`, 'g');
  const needs = (text) => [...text.matchAll(literal)].map((m) => m[2]).filter((name) => name in scripts);
  let left = Object.keys(scripts);
  while (left.length) {
    const ready = left.filter((name) => needs(scripts[name]).every((dep) => dep === name || dep in urls));
    if (!ready.length) throw new Error(`attnlab: the element's files import each other in a cycle (${left.join(', ')})`);
    for (const name of ready) {
      const text = scripts[name]
        .replace(modelFile, (_, quote, file) => `(globalThis.__attnlab?.modelUrl(${JSON.stringify(file)}) ?? new URL("about:blank"))`)
        .replace(literal, (whole, quote, file) => (urls[file] ? JSON.stringify(urls[file]) : whole));
      urls[name] = URL.createObjectURL(new Blob([text], { type: TYPES.js }));
    }
    left = left.filter((name) => !ready.includes(name));
  }
  return urls;
}

async function loadElement(model) {
  const files = model.get('_files');
  provideModelData(files);
  const key = model.get('_bundle');
  if (!registry.graphs.has(key)) registry.graphs.set(key, moduleGraph(files));
  const urls = registry.graphs.get(key);
  await import(urls['element.js']);
  await customElements.whenDefined('attn-lab');
}

// The notebook's theme: JupyterLab marks its body, VS Code its body's class; elsewhere the
// element follows the page (theme="auto").
function notebookTheme() {
  const light = document.body?.dataset.jpThemeLight;
  if (light === 'true' || light === 'false') return light === 'true' ? 'light' : 'dark';
  const classes = document.body?.classList;
  if (classes?.contains('vscode-dark') || classes?.contains('vscode-high-contrast')) return 'dark';
  if (classes?.contains('vscode-light')) return 'light';
  return 'auto';
}

// The trace's values for stepper.values(): { steps: [{ id, head, shape, values: flat }] }, as
// JSON. The widget cannot know when Python will ask (a running cell blocks the kernel, so no
// request can reach it mid-cell), so every accepted state sends them: up to MAX_VALUES numbers
// (a few MB); a bigger trace sends its steps' shapes only, and values() says why.
const MAX_VALUES = 250_000;

function traceValues(element) {
  const trace = element.good?.trace;
  if (!trace) return {};
  const total = trace.steps.reduce((sum, s) => sum + s.shape[0] * s.shape[1], 0);
  const large = total > MAX_VALUES;
  return {
    steps: trace.steps.map((s) => ({ id: s.id, head: s.head ?? null, shape: s.shape, values: large ? null : s.values.flat() })),
    ...(large && { tooLarge: `this trace has ${total} values, more than the ${MAX_VALUES} the widget sends back` }),
  };
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

function drawStepper({ model, el, lab }) {
  // Python → widget: a new state from Python (stepper.Q = …) is merged into the element's.
  const fromPython = () => {
    const state = model.get('state');
    if (!lab.good || !state || same(state, lab.getState())) return;
    try {
      lab.setState(state);
    } catch {
      /* the element shows the StateError's message */
    }
    // A state the core refused: Python gets the last good state back, and the message. Later,
    // not inside this change event: a set() nested in it is compared with the state before
    // the kernel's (Backbone's changedAttributes), finds no change and sends nothing.
    setTimeout(report);
  };
  // widget → Python: every state the element accepts (an edited cell, a step, an option).
  const report = () => {
    const state = lab.getState();
    if (!state) return;
    model.set('state', state);
    model.set('_trace', traceValues(lab));
    model.set('error', lab.message?.error ? lab.message.text : '');
    model.save_changes();
  };
  model.on('change:state', fromPython);
  lab.addEventListener('state-change', () => queueMicrotask(report));
  lab.addEventListener('step-change', () => queueMicrotask(report));
  return () => model.off('change:state', fromPython);
}

function drawAttention({ model, lab }) {
  // show_attention: the element's own import view (the model view's "bring your own
  // attention"), handed the checked weights; the core checks them again and scores every head.
  const show = async () => {
    lab.lab = await (await import(registry.graphs.get(model.get('_bundle'))['attnlab.js'])).createAttnLab();
    await lab._import(model.get('attention_json'), 'show_attention');
    model.set('error', lab._message ?? '');
    model.save_changes();
  };
  show();
  model.on('change:attention_json', show);
  return () => model.off('change:attention_json', show);
}

export default {
  async render({ model, el }) {
    el.classList.add('attnlab-widget');
    try {
      await loadElement(model);
    } catch (error) {
      el.textContent = `attnlab could not load its element: ${error.message}`;
      return undefined;
    }
    const kind = model.get('_kind');
    const lab = document.createElement(kind === 'attention' ? 'attn-attention-import' : 'attn-lab');
    const theme = model.get('theme');
    const applyTheme = () => lab.setAttribute('theme', theme === 'auto' ? notebookTheme() : theme);
    applyTheme();
    const themeWatch = new MutationObserver(applyTheme);
    if (document.body) themeWatch.observe(document.body, { attributes: true, attributeFilter: ['class', 'data-jp-theme-light'] });
    for (const [name, value] of Object.entries(model.get('_attributes'))) {
      if (value === true) lab.setAttribute(name, '');
      else if (value !== false && value !== null) lab.setAttribute(name, String(value));
    }
    if (kind === 'attention') {
      lab.style.colorScheme = lab.getAttribute('theme') === 'dark' ? 'dark' : '';
      el.append(lab);
      const stop = drawAttention({ model, lab });
      return () => [stop(), themeWatch.disconnect()];
    }
    const state = model.get('state');
    if (state && Object.keys(state).length) lab.setAttribute('state', JSON.stringify(state));
    el.append(lab);
    const stop = kind === 'stepper' ? drawStepper({ model, el, lab }) : () => {};
    return () => [stop(), themeWatch.disconnect()];
  },
};
