// Four builds from one config, picked by --mode:
//   vite build --mode package   the package's entry: web/lib → dist/attnlab.js, one minified file
//   vite build --mode element   <attn-lab> as a library: dist/element.js (+ element.d.ts)
//   vite build --mode worker    the element's Worker: dist/attnlab-worker.js
//   vite build                  the site: web/app → web/dist (also `vite` and `vite preview`)
// The site expects the package and the element in dist/ first (scripts/build.sh package).
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { defaultServerConditions, defineConfig } from 'vite';

import { VIEW_IDS } from './web/element/views/list.js';

const fromRoot = (path) => fileURLToPath(new URL(path, import.meta.url));

// The element and the WebGPU module import the package by its bare names. In the library
// build each stays an import of the sibling file ('attnlab' → ./attnlab.js, and the element's
// long-sequence view loads 'attnlab/webgpu' → ./webgpu.js when it is shown), so
// dist/element.js and dist/webgpu.js work from a plain <script type="module"> and share one
// wasm instance with `import 'attnlab'`.
//
// The library build takes lit's server builds ('node' condition): they are its browser builds
// plus a fallback wherever a DOM global is missing, so importing dist/element.js in Node (an
// SSR build of a docs site or an app) never throws. Their one DOM shim import is replaced by
// a stand-in that leaves Node's globals alone.
function elementConfig() {
  return {
    publicDir: false,
    resolve: {
      conditions: defaultServerConditions,
      alias: { '@lit-labs/ssr-dom-shim': fromRoot('web/element/dom-stand-in.js') },
    },
    build: libraryBuild({ element: fromRoot('web/element/attn-lab.js'), webgpu: fromRoot('web/webgpu/gpu-attention.js') }),
    plugins: [
      workerBesideElement(),
      emitFile('element.d.ts', fromRoot('web/element/element.d.ts'), withViewIds),
      emitFile('webgpu.d.ts', fromRoot('web/webgpu/webgpu.d.ts')),
      emitFile('react.d.ts', fromRoot('web/element/react.d.ts')),
    ],
  };
}

// The element's Worker is a build of its own, so that it shares no chunk with the element:
// dist/attnlab-worker.js, which imports the package as ./attnlab.js.
function workerConfig() {
  return { publicDir: false, build: libraryBuild({ 'attnlab-worker': WORKER_SOURCE }) };
}

// The package's entry, web/lib/attnlab.js with the modules it imports, as one minified file:
// the download is about half that of the commented sources. The core's Emscripten loader is
// in that file too (from the wasm build), so its names are shortened as well; it finds
// attnlab-core.wasm beside dist/attnlab.js. The learning module's loader, imported on demand
// (lab.loadLearning(), lab.trainer()), is a chunk of its own: dist/attnlab-learn.js (+ .wasm).
// attnlab.d.ts holds the documented API.
function packageConfig() {
  const build = libraryBuild({ attnlab: fromRoot('web/lib/attnlab.js') });
  build.rolldownOptions.output.chunkFileNames = '[name].js'; // the learning module's loader: attnlab-learn.js
  const loader = (name) => ({ find: new RegExp(`^\\./${name}\\.js$`), replacement: fromRoot(`build/wasm/cpp/bindings/${name}.js`) });
  return {
    publicDir: false,
    resolve: { alias: [loader('attnlab-core'), loader('attnlab-learn'), loader('attnlab-model')] },
    build,
    plugins: [wasmBesideLoader()],
  };
}

// Each Emscripten loader finds its wasm with new URL("NAME.wasm", import.meta.url); Vite would
// inline the file as base64. Left as written, it names the file beside the loader in dist/,
// and an app's bundler recognises the line and copies the wasm itself.
function wasmBesideLoader() {
  return {
    name: 'attnlab:wasm-beside-loader',
    enforce: 'pre',
    transform(code, id) {
      const name = /\/build\/wasm\/cpp\/bindings\/(attnlab-[a-z]+)\.js$/.exec(id)?.[1];
      if (!name) return null;
      const line = `new URL("${name}.wasm",import.meta.url)`;
      if (!code.includes(line)) throw new Error(`${id} no longer finds its wasm with ${line}`);
      return code.replace(line, `new URL(/* @vite-ignore */ "${name}.wasm",import.meta.url)`);
    },
  };
}

// An ES library build into dist/, next to the package; the package's bare names stay imports
// of the sibling files.
function libraryBuild(entry) {
  return {
    outDir: fromRoot('dist'),
    emptyOutDir: false, // dist/ already holds the package
    lib: { entry, formats: ['es'], fileName: (format, name) => `${name}.js` },
    rolldownOptions: {
      external: ['attnlab', 'attnlab/webgpu'],
      output: {
        paths: { attnlab: './attnlab.js', 'attnlab/webgpu': './webgpu.js' },
        // Vite keeps whitespace and /* @__PURE__ */ in ES libraries for tree-shaking;
        // these files are all side effect (the element registers itself, the worker
        // listens), so minify them fully and keep only the licence comments of lit and KaTeX.
        minify: true,
        comments: { legal: true, annotation: false, jsdoc: false },
      },
    },
  };
}

// core-worker.js starts the Worker with new Worker(new URL('./attnlab-worker.js', import.meta.url)).
// dist/element.js keeps that line as written (Vite would bundle the worker into it): from a
// plain <script type="module"> it finds dist/attnlab-worker.js beside it, and an app's bundler
// recognises the line and bundles the worker itself. The site's build bundles it as usual.
const WORKER_SOURCE = fromRoot('web/element/shared/attnlab-worker.js');
const WORKER_URL = "new URL('./attnlab-worker.js', import.meta.url)";

function workerBesideElement() {
  return {
    name: 'attnlab:worker-beside-element',
    enforce: 'pre',
    transform(code, id) {
      if (id !== fromRoot('web/element/shared/core-worker.js')) return null;
      if (!code.includes(WORKER_URL)) throw new Error(`${id} no longer starts its worker with ${WORKER_URL}`);
      return code.replace(WORKER_URL, "new URL(/* @vite-ignore */ './attnlab-worker.js', import.meta.url)");
    },
  };
}

// The site bundles everything, the package included, and imports only the package's public
// entries: `attnlab` resolves to the built package, whose
// `new URL('attnlab-core.wasm', import.meta.url)` Vite turns into an asset; `attnlab/element`
// and `attnlab/webgpu` to their sources (the files dist/element.js and dist/webgpu.js are
// built from), so the site's bundle shares one copy of lit and of the package.
function siteConfig() {
  return {
    root: fromRoot('web/app'),
    base: './', // relative URLs: the site works from any folder of a static host
    publicDir: false,
    resolve: {
      alias: [
        { find: /^attnlab$/, replacement: fromRoot('dist/attnlab.js') },
        { find: /^attnlab\/element$/, replacement: fromRoot('web/element/attn-lab.js') },
        { find: /^attnlab\/webgpu$/, replacement: fromRoot('web/webgpu/gpu-attention.js') },
      ],
    },
    // The packaged model's files stay files (the JSON ones are small enough for Vite to inline
    // as data: URLs, which a policy's connect-src 'self' would refuse to fetch).
    build: { outDir: fromRoot('web/dist'), emptyOutDir: true, assetsInlineLimit: (file) => (file.startsWith(fromRoot('model/')) ? false : undefined) },
    worker: { format: 'es' }, // the element's Worker is a module worker
    preview: { host: '127.0.0.1', port: 5173, strictPort: true },
    plugins: [tutorialInSite()],
  };
}

/** Copies one file into the build output as it is. */
function emitFile(fileName, sourcePath, transform = (text) => text) {
  return {
    name: `attnlab:emit-${fileName}`,
    async generateBundle() {
      this.emitFile({ type: 'asset', fileName, source: transform(await readFile(sourcePath, 'utf8')) });
    },
  };
}

// The element's typings name its views by the one list of them (views/list.js).
const VIEW_ID_LINE = 'export type ViewId = string;';

function withViewIds(text) {
  if (!text.includes(VIEW_ID_LINE)) throw new Error(`element.d.ts no longer declares "${VIEW_ID_LINE}" for the build to fill in`);
  return text.replace(VIEW_ID_LINE, `export type ViewId = ${VIEW_IDS.map((id) => `'${id}'`).join(' | ')};`);
}

// The footer links to the tutorial, so the site carries a copy of web/examples/ together
// with the built element it loads (under pkg/): every .js and .wasm file of the package in
// dist/, so a module the package adds travels too, and the packaged model beside it (model/).
// index.html never loads these files.
const PACKAGE_FILE = /\.(js|wasm)$/;
const MODEL_FILES = ['model.json', 'tokenizer.json', 'weights.bin'];

function tutorialInSite() {
  return {
    name: 'attnlab:tutorial-in-site',
    apply: 'build',
    async generateBundle() {
      const names = (await readdir(fromRoot('dist')).catch(() => [])).filter((name) => PACKAGE_FILE.test(name));
      for (const needed of ['element.js', 'attnlab-worker.js', 'attnlab.js', 'attnlab-core.wasm']) {
        if (!names.includes(needed)) throw new Error(`dist/${needed} is missing: build the package and the element first (scripts/build.sh package)`);
      }
      for (const name of names) {
        this.emitFile({ type: 'asset', fileName: `pkg/${name}`, source: await readFile(fromRoot(`dist/${name}`)) });
      }
      // The packaged model, where pkg/model.js looks for it (../model/, as in the npm package).
      for (const name of MODEL_FILES) this.emitFile({ type: 'asset', fileName: `model/${name}`, source: await readFile(fromRoot(`model/${name}`)) });
      const tutorial = await readFile(fromRoot('web/examples/tutorial.html'), 'utf8');
      const script = '../../dist/element.js';
      if (!tutorial.includes(script)) throw new Error(`web/examples/tutorial.html no longer loads ${script}`);
      this.emitFile({ type: 'asset', fileName: 'examples/tutorial.html', source: tutorial.replace(script, '../pkg/element.js') });
      this.emitFile({ type: 'asset', fileName: 'examples/tutorial.css', source: await readFile(fromRoot('web/examples/tutorial.css')) });
    },
  };
}

const CONFIGS = { package: packageConfig, element: elementConfig, worker: workerConfig };
export default defineConfig(({ mode }) => (CONFIGS[mode] ?? siteConfig)());
