// <attn-lab url-state>: the element's state kept in the page's URL (location.hash, the schema
// of state-link.js). Reads the link the page opened on, follows a link navigated to, and writes
// the last state the core accepted back, a moment after the last change and at once when the
// page is left. Without url-state the element never touches the host's URL.
import { decodeHash, encodeHash, writeLink } from './state-link.js';

const URL_WRITE_DELAY_MS = 120;

/** A Lit reactive controller of the host's link to the URL; the host reloads its state on a hash change. */
export class UrlLink {
  constructor(host, onHashChange) {
    this.host = host;
    this.linkedHash = null; // the hash read, or written since
    this._onHashChange = onHashChange;
    this._flush = () => {
      clearTimeout(this._timer);
      // A link navigated to whose hashchange has not run yet (a reload right after it) is the
      // newer state: it stays in the URL.
      if (!host.good || window.location.hash !== this.linkedHash) return;
      this.linkedHash = encodeHash(host.good.state);
      window.history.replaceState(null, '', this.linkedHash);
    };
    host.addController(this);
  }

  hostConnected() {
    if (!this.host.urlState) return;
    window.addEventListener('hashchange', this._onHashChange);
    window.addEventListener('pagehide', this._flush);
  }

  hostDisconnected() {
    window.removeEventListener('hashchange', this._onHashChange);
    window.removeEventListener('pagehide', this._flush);
  }

  /** The partial state the URL holds (with url-state), else null; throws StateError on a bad link. */
  read() {
    this.linkedHash = window.location.hash;
    return this.host.urlState ? decodeHash(window.location.hash) : null;
  }

  /**
   * Writes the host's last good state to the URL a moment after the last change: writing it
   * costs more than a whole re-render, so a burst of edits writes it once (leaving the page
   * writes it at once). Compressed off the main thread where the browser can; a link that
   * comes back after a newer change is not written.
   */
  write() {
    if (!this.host.urlState) return;
    clearTimeout(this._timer);
    this._timer = setTimeout(() => {
      if (window.location.hash !== this.linkedHash) return; // a link navigated to comes first
      writeLink(() => this.host.good?.state).then((link) => (this.linkedHash = link ?? this.linkedHash));
    }, URL_WRITE_DELAY_MS);
  }
}
