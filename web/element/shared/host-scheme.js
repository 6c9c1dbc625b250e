// theme="auto" follows the host page: where the page declares a colour scheme (CSS
// `color-scheme` inherited by the element, or <meta name="color-scheme">), the element takes
// it; where it declares none, the reader's system decides (light dark). The element's styles
// read the choice from --attn-auto-scheme (shared/styles.js); theme="light"|"dark" pin either.

const WATCHED = { attributes: true, attributeFilter: ['class', 'style', 'data-theme', 'content', 'media'] };

/** The colour scheme the host page declares where `element` sits, or null for none. */
function declaredScheme(element) {
  const parent = element.parentElement ?? element.getRootNode().host ?? document.documentElement;
  const inherited = getComputedStyle(parent).colorScheme;
  if (inherited && inherited !== 'normal') return inherited;
  const meta = document.querySelector('meta[name="color-scheme"]')?.content.trim();
  return meta && meta !== 'normal' ? meta : null;
}

/** A Lit reactive controller keeping the host's --attn-auto-scheme on what the page declares. */
export class HostScheme {
  constructor(host) {
    this.host = host;
    this._observer = new MutationObserver(() => this.check());
    host.addController(this);
  }

  hostConnected() {
    this.check();
    const watched = new Set([document.documentElement, document.body, document.head, this.host.parentElement]);
    for (const node of watched) if (node) this._observer.observe(node, WATCHED);
    if (document.head) this._observer.observe(document.head, { childList: true, subtree: true, ...WATCHED });
  }

  hostDisconnected() {
    this._observer.disconnect();
  }

  check() {
    const scheme = declaredScheme(this.host) ?? 'light dark';
    if (this.host.style.getPropertyValue('--attn-auto-scheme') !== scheme) this.host.style.setProperty('--attn-auto-scheme', scheme);
  }
}
