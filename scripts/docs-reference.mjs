// The docs site's generated pages (scripts/docs.mjs runs this before VitePress): the API
// reference from the package's typings (dist/*.d.ts, as they ship) and the element reference
// from its Custom Elements Manifest (custom-elements.json), both written into docs/reference/.
// Nothing here is written by hand, so the pages follow the typings and the element's JSDoc.
import { mkdir, readFile, writeFile } from 'node:fs/promises';

const ENTRIES = [
  ['attnlab', 'dist/attnlab.d.ts', 'The core: createAttnLab() and what the AttnLab it returns computes.'],
  ['attnlab/webgpu', 'dist/webgpu.d.ts', "The flash kernel's tiles as a WGSL compute shader."],
  ['attnlab/element', 'dist/element.d.ts', 'The typings of <attn-lab> (its reference: the element page).'],
  ['attnlab/react', 'dist/react.d.ts', '<attn-lab> in React 19 TSX.'],
];

/**
 * The top-level declarations of a .d.ts file, each with its JSDoc: { name, kind, doc, code }.
 * A declaration runs to the `;` or the closing brace that ends it at depth 0.
 */
export function declarations(text) {
  const found = [];
  let doc = '';
  let i = 0;
  while (i < text.length) {
    if (text.startsWith('/**', i)) {
      const end = text.indexOf('*/', i) + 2;
      doc = text.slice(i, end);
      i = end;
    } else if (/^(export|declare|interface|type)\b/.test(text.slice(i, i + 10)) && !text.startsWith('export {', i)) {
      const end = declarationEnd(text, i);
      const code = text.slice(i, end).trim();
      const match = /(interface|type|class|function|const|namespace|module)\s+([\w$'"./-]+)|declare (global)/.exec(code);
      if (match) found.push({ kind: match[1] ?? 'global', name: (match[2] ?? match[3]).replace(/['"]/g, ''), doc: docText(doc), code });
      doc = '';
      i = end;
    } else if (text.startsWith('//', i)) {
      i = text.indexOf('\n', i) + 1 || text.length;
    } else if (/\s/.test(text[i])) {
      i += 1;
    } else {
      doc = ''; // an import or another statement: a JSDoc above it is not a declaration's
      i = text.indexOf('\n', i) + 1 || text.length;
    }
  }
  return found;
}

function declarationEnd(text, start) {
  let depth = 0;
  for (let i = start; i < text.length; i += 1) {
    const c = text[i];
    if (c === '/' && text[i + 1] === '*') i = text.indexOf('*/', i) + 1;
    else if (c === '/' && text[i + 1] === '/') i = text.indexOf('\n', i);
    else if (c === "'" || c === '"' || c === '`') i = text.indexOf(c, i + 1);
    else if (c === '{' || c === '(' || c === '[') depth += 1;
    else if (c === '}' || c === ')' || c === ']') {
      depth -= 1;
      // A closing brace ends it unless a union, an intersection or a `;` goes on.
      if (depth === 0 && c === '}' && !/^\s*[|&;,[]/.test(text.slice(i + 1))) return i + 1;
    } else if (c === ';' && depth === 0) return i + 1;
  }
  return text.length;
}

// A JSDoc block's text, without its /** */ and leading stars.
const docText = (block) =>
  block
    .replace(/^\/\*\*|\*\/$/g, '')
    .split('\n')
    .map((line) => line.replace(/^\s*\* ?/, ''))
    .join('\n')
    .trim();

const escapeText = (text) => text.replace(/</g, '&lt;').replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function apiPage(files) {
  const lines = [
    '# API reference',
    '',
    'Generated from the typings the package ships (`dist/*.d.ts`) by `scripts/docs-reference.mjs` when the',
    'site is built. The guide explains each entry with examples: [the JavaScript module](../javascript.md).',
    '',
  ];
  for (const { entry, about, text } of files) {
    lines.push(`## \`${entry}\``, '', escapeText(about), '');
    for (const { name, kind, doc, code } of declarations(text)) {
      lines.push(`### ${name}`, '', `<small>${kind}</small>`, '');
      if (doc) lines.push(doc.replace(/</g, '&lt;'), '');
      lines.push('```ts', code, '```', '');
    }
  }
  return lines.join('\n');
}

export function elementPage(manifest) {
  const lab = manifest.modules.flatMap((m) => m.declarations ?? []).find((d) => d.tagName === 'attn-lab');
  const table = (head, rows) => [
    `| ${head.join(' | ')} |`,
    `| ${head.map(() => '---').join(' | ')} |`,
    ...rows.map((row) => `| ${row.map((cell) => escapeText(String(cell ?? ''))).join(' | ')} |`),
    '',
  ];
  const code = (text) => (text ? `\`${text}\`` : '');
  const methods = (lab.members ?? []).filter((m) => m.kind === 'method');
  return [
    '# `<attn-lab>` reference',
    '',
    "Generated from the element's Custom Elements Manifest (`custom-elements.json`, written from its JSDoc by",
    '`scripts/build.sh element`) when the site is built. How to use it: [the element guide](../element.md).',
    '',
    escapeText(lab.description ?? ''),
    '',
    '## Attributes',
    '',
    ...table(
      ['attribute', 'property', 'type', 'description'],
      lab.attributes.map((a) => [code(a.name), code(a.fieldName), code(a.type?.text), a.description]),
    ),
    '## Methods',
    '',
    ...table(
      ['method', 'parameters', 'description'],
      methods.map((m) => [code(`${m.name}()`), (m.parameters ?? []).map((p) => `${p.name}${p.type ? `: ${p.type.text}` : ''}`).join(', '), m.description]),
    ),
    '## Events',
    '',
    ...table(
      ['event', 'type', 'description'],
      (lab.events ?? []).map((e) => [code(e.name), code(e.type?.text), e.description]),
    ),
    '## CSS custom properties',
    '',
    ...table(
      ['property', 'description'],
      (lab.cssProperties ?? []).map((p) => [code(p.name), p.description]),
    ),
    '## CSS parts',
    '',
    ...table(
      ['part', 'description'],
      (lab.cssParts ?? []).map((p) => [code(p.name), p.description]),
    ),
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const files = await Promise.all(ENTRIES.map(async ([entry, path, about]) => ({ entry, about, text: await readFile(path, 'utf8') })));
  const manifest = JSON.parse(await readFile('custom-elements.json', 'utf8'));
  await mkdir('docs/reference', { recursive: true });
  await writeFile('docs/reference/api.md', apiPage(files));
  await writeFile('docs/reference/element.md', elementPage(manifest));
  console.log('docs: wrote docs/reference/api.md and docs/reference/element.md');
}
