// custom-elements.json, the Custom Elements Manifest in the packed package, against the
// element itself, imported in Node from the same package: its tag, its attributes and
// properties (Lit's own account of the element's reactive properties), its CSS custom
// properties (those its :host rule declares) and its events (the typings' event map). Then
// the typings: a TSX file using <attn-lab> passes tsc --strict, and wrong uses fail it.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';

import { consumerDir, importFromConsumer, packageDir } from './support/package.js';

const packageJson = JSON.parse(await readFile(join(packageDir, 'package.json'), 'utf8'));
const manifestPath = createRequire(join(consumerDir, 'package.json')).resolve('attnlab/custom-elements.json');
const cem = JSON.parse(await readFile(manifestPath, 'utf8'));
const { AttnLabElement } = await importFromConsumer('attnlab/element');

// The manifest's declaration of the class that its custom-element-definition names 'attn-lab'.
function attnLabDeclaration() {
  const definitions = cem.modules.flatMap((module) => module.exports ?? []).filter((e) => e.kind === 'custom-element-definition');
  assert.deepEqual(
    definitions.map((d) => d.name),
    ['attn-lab'],
  );
  const { name, module } = definitions[0].declaration;
  assert.equal(module, 'dist/element.js', 'the module that ships the element');
  return cem.modules.find((m) => m.path === module).declarations.find((d) => d.name === name);
}
const lab = attnLabDeclaration();

// Lit's reactive properties that have an attribute, as { property: attribute }, and which reflect.
function litAttributes() {
  const attributes = {};
  const reflected = [];
  for (const [name, options] of AttnLabElement.elementProperties) {
    if (options.state || options.attribute === false) continue;
    attributes[name] = typeof options.attribute === 'string' ? options.attribute : name.toLowerCase();
    if (options.reflect) reflected.push(name);
  }
  return { attributes, reflected };
}

test('package.json names the manifest, and the package exports it', () => {
  assert.equal(packageJson.customElements, 'custom-elements.json');
  assert.equal(manifestPath, join(packageDir, 'custom-elements.json'));
  assert.equal(lab.tagName, 'attn-lab');
  assert.equal(lab.customElement, true);
});

test("the manifest's attributes are the ones the element observes, each with its property", () => {
  assert.deepEqual(lab.attributes.map((a) => a.name).sort(), [...AttnLabElement.observedAttributes].sort());
  const { attributes, reflected } = litAttributes();
  assert.deepEqual(Object.fromEntries(lab.attributes.map((a) => [a.fieldName, a.name])), attributes);
  const fields = lab.members.filter((m) => m.kind === 'field' && m.attribute);
  assert.deepEqual(Object.fromEntries(fields.map((f) => [f.name, f.attribute])), attributes);
  assert.deepEqual(
    fields
      .filter((f) => f.reflects)
      .map((f) => f.name)
      .sort(),
    reflected.sort(),
  );
  assert.ok(
    lab.attributes.every((a) => a.description && a.type?.text),
    'every attribute has a type and a description',
  );
});

test("the manifest's CSS custom properties are those the element's :host rule declares", () => {
  const css = AttnLabElement.finalizeStyles(AttnLabElement.styles)
    .map((style) => style.cssText)
    .join('\n');
  const hostRules = [...css.matchAll(/:host\s*\{([^}]*)\}/g)].map((match) => match[1]).join('\n');
  const declared = [...hostRules.matchAll(/(--[\w-]+)\s*:/g)].map((match) => match[1]);
  assert.ok(declared.length > 0, 'the :host rule declares custom properties');
  assert.deepEqual(lab.cssProperties.map((p) => p.name).sort(), declared.sort());
});

test("the manifest's events are the ones the typings declare, and its methods the typed ones", async () => {
  const types = await readFile(join(packageDir, 'dist/element.d.ts'), 'utf8');
  const eventMap = types.match(/interface HTMLElementEventMap \{([^}]*)\}/)[1];
  const typedEvents = [...eventMap.matchAll(/'([\w-]+)': CustomEvent/g)].map((match) => match[1]);
  assert.deepEqual(lab.events.map((e) => e.name).sort(), typedEvents.sort());
  const methods = lab.members.filter((m) => m.kind === 'method').map((m) => m.name);
  assert.ok(methods.length > 0);
  for (const name of methods) assert.match(types, new RegExp(`\\n  ${name}\\(`), `${name}() is in element.d.ts`);
});

test('a TSX file using <attn-lab> type-checks under --strict, and wrong uses do not', async () => {
  const dir = join(consumerDir, 'typings');
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir);
  await copyFile('tests/js/fixtures/typings.tsx', join(dir, 'typings.tsx'));
  const compilerOptions = { target: 'ES2022', lib: ['ES2022', 'DOM'], module: 'ESNext', moduleResolution: 'bundler', jsx: 'react-jsx', types: [] };
  await writeFile(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['typings.tsx'] }));
  const tsc = resolve('node_modules/.bin/tsc');
  await promisify(execFile)(tsc, ['-p', dir, '--strict', '--noEmit']).catch((error) => assert.fail(`tsc:\n${error.stdout}${error.stderr}`));
});

// The ids of views, steps and presets are kept in one list each (views/list.js, the core's
// step ids); the typings and the manifest are written from them by the build, never by hand.
test("the typings' ViewId and the manifest's view, step and preset types are the ids of the one lists", async () => {
  const { VIEW_IDS, TEACHING_VIEW_IDS } = await import('../../web/element/views/list.js');
  const { createAttnLab } = await importFromConsumer('attnlab');
  const stepIds = (await createAttnLab()).stepIds(); // the core's own list
  const union = (text) => text.split('|').map((id) => id.trim().replace(/^'|'$/g, ''));
  const types = await readFile(join(packageDir, 'dist/element.d.ts'), 'utf8');
  assert.deepEqual(union(/export type ViewId = ([^;]*);/.exec(types)[1]), VIEW_IDS);
  const typeOf = (name) => union(lab.attributes.find((a) => a.name === name).type.text);
  assert.deepEqual(typeOf('view'), VIEW_IDS);
  assert.deepEqual([...typeOf('step')].sort(), [...new Set(stepIds)].sort());
  assert.deepEqual(
    typeOf('preset').filter((id) => TEACHING_VIEW_IDS.includes(id)),
    TEACHING_VIEW_IDS,
  );
});
