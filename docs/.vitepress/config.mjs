// The docs site (npm run docs): the guide written here in docs/*.md, the reference pages
// generated into docs/reference/ from the typings and the element's manifest
// (scripts/docs-reference.mjs), and every view live: the built element, copied with the
// package into docs/public/pkg/ (scripts/docs.mjs), loaded by each page as a module script.
export default {
  title: 'attnlab',
  description: 'Scaled dot-product attention, computed by a C++/WebAssembly core, with every step exposed for learning',
  // The screenshot folders beside the pages hold pictures, not pages.
  srcExclude: ['views/**', 'steps/**'],
  cleanUrls: false,
  head: [
    ['link', { rel: 'icon', href: 'data:,' }], // no favicon to fetch
    ['script', { type: 'module', src: '/pkg/element.js' }],
  ],
  vue: {
    // <attn-lab> is a custom element, not a Vue component: Vue passes it through as HTML.
    template: { compilerOptions: { isCustomElement: (tag) => tag.startsWith('attn-') } },
  },
  themeConfig: {
    nav: [
      { text: 'Guide', link: '/getting-started' },
      { text: 'Views', link: '/views' },
      { text: 'API', link: '/reference/api' },
      { text: 'Element', link: '/reference/element' },
    ],
    sidebar: [
      {
        text: 'Guide',
        items: [
          { text: 'Getting started', link: '/getting-started' },
          { text: 'Teaching views, live', link: '/views' },
          { text: 'The element', link: '/element' },
          { text: 'The JavaScript module', link: '/javascript' },
          { text: 'The C++ library', link: '/cpp' },
          { text: 'Notebooks (Python)', link: '/notebooks' },
          { text: 'Training and the model', link: '/training' },
          { text: 'Long sequences', link: '/long-sequences' },
          { text: 'Hardening', link: '/hardening' },
          { text: 'Layout and builds', link: '/layout' },
        ],
      },
      {
        text: 'Reference (generated)',
        items: [
          { text: 'API (attnlab.d.ts)', link: '/reference/api' },
          { text: '&lt;attn-lab&gt; (custom-elements.json)', link: '/reference/element' }, // the sidebar's text is HTML
        ],
      },
    ],
    outline: [2, 3],
  },
};
