// A VitePress docs site with <attn-lab> in its Markdown. The build renders every page in Node
// (SSR) with the page's `import 'attnlab/element'`, which registers nothing there; the
// browser upgrades the tag when the page's script loads.
export default {
  title: 'attnlab in VitePress',
  description: 'Scaled dot-product attention, step by step',
  head: [['link', { rel: 'icon', href: 'data:,' }]], // no favicon to fetch
  // The element runs training and long kernels in a module Worker whose code loads the
  // learning module on demand (a dynamic import, so a chunk of its own). VitePress's Vite (5)
  // bundles workers as IIFE by default, which cannot hold a second chunk; ES workers can.
  vite: { worker: { format: 'es' } },
  vue: {
    // <attn-lab> is a custom element, not a Vue component: Vue passes it through as HTML.
    template: { compilerOptions: { isCustomElement: (tag) => tag === 'attn-lab' } },
  },
};
