// custom-elements.json, the Custom Elements Manifest of <attn-lab>, built by
// `scripts/build.sh package`: @custom-elements-manifest/analyzer reads web/element/attn-lab.js,
// its class JSDoc and, through its Lit plugin, its `static properties`.
import { PRESETS } from '../web/element/presets.js';
import { stepEntries } from '../web/element/steps/registry.js';
import { VIEW_IDS } from '../web/element/views/list.js';

const SHIPPED_AS = 'dist/element.js'; // the element is bundled into this file of the package

// The types the JSDoc names by the lists that hold their ids: each becomes a union of them.
const union = (ids) => ids.map((id) => `'${id}'`).join(' | ');
const ID_TYPES = {
  PresetId: union(Object.keys(PRESETS)),
  StepId: union(stepEntries().map((entry) => entry.id)),
  ViewId: union(VIEW_IDS),
};

export default {
  globs: ['web/element/attn-lab.js'],
  outdir: '.',
  litelement: true,
  packagejson: false, // package.json names the manifest itself ("customElements")
  plugins: [publicApiOnly(), idTypes()],
};

/**
 * Keeps the element's public API. The analyzer also lists Lit's internal reactive state
 * (`state: true`, which has no attribute: the Lit plugin misses that), members named with a
 * leading underscore (private in this code base) and an event named after the parameter of
 * the generic `_emit(type, detail)`; the element's events are the ones its JSDoc describes
 * with @fires. Every module path becomes the file that ships the element.
 */
function publicApiOnly() {
  const internal = new Set();
  const isInternal = ({ name, fieldName }) => internal.has(fieldName ?? name) || name.startsWith('_');
  return {
    name: 'attnlab-public-api',
    analyzePhase({ ts, node }) {
      if (!ts.isClassDeclaration(node)) return;
      const declaration = node.members.find(
        (member) => member.name?.getText() === 'properties' && ts.getCombinedModifierFlags(member) & ts.ModifierFlags.Static,
      );
      for (const property of declaration?.initializer?.properties ?? []) {
        const options = property.initializer?.properties ?? [];
        if (options.some((option) => option.name?.getText() === 'state' && option.initializer.kind === ts.SyntaxKind.TrueKeyword)) {
          internal.add(property.name.getText());
        }
      }
    },
    packageLinkPhase({ customElementsManifest }) {
      for (const module of customElementsManifest.modules) {
        module.path = SHIPPED_AS;
        for (const declaration of module.declarations ?? []) {
          declaration.attributes &&= declaration.attributes.filter((attribute) => !isInternal(attribute));
          declaration.members &&= declaration.members.filter((member) => !isInternal(member));
          declaration.events &&= declaration.events.filter((event) => event.description);
        }
        for (const { declaration } of module.exports ?? []) declaration.module = SHIPPED_AS;
      }
    },
  };
}

/** Writes out the id types of the @prop tags (PresetId, StepId, ViewId) as their unions. */
function idTypes() {
  const expand = (item) => {
    if (item.type && Object.hasOwn(ID_TYPES, item.type.text)) item.type.text = ID_TYPES[item.type.text];
  };
  return {
    name: 'attnlab-id-types',
    packageLinkPhase({ customElementsManifest }) {
      for (const declaration of customElementsManifest.modules.flatMap((module) => module.declarations ?? [])) {
        for (const item of [...(declaration.attributes ?? []), ...(declaration.members ?? [])]) expand(item);
      }
    },
  };
}
