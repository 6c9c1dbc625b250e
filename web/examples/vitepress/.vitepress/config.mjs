// A VitePress docs site with <attn-lab> in its Markdown. The build renders every page in Node
// (SSR) with the page's `import 'attnlab/element'`, which registers nothing there; the
// browser upgrades the tag when the page's script loads.
export default {
  title: 'attnlab in VitePress',
  description: 'Scaled dot-product attention, step by step',
  head: [['link', { rel: 'icon', href: 'data:,' }]], // no favicon to fetch
  vue: {
    // <attn-lab> is a custom element, not a Vue component: Vue passes it through as HTML.
    template: { compilerOptions: { isCustomElement: (tag) => tag === 'attn-lab' } },
  },
};
