// Stands in for @lit-labs/ssr-dom-shim in dist/element.js (see vite.config.js). Outside a
// browser (server-side rendering in Node) Lit's server build extends this class, so the
// element's module evaluates without throwing. No registry is offered, so customElements
// stays undefined on globalThis (the real shim would install one) and nothing registers.
export class HTMLElement {}
export const customElements = undefined;
