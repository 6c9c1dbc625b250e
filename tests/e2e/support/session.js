// One Chromium and one static server per test file; a fresh browser context per test.
import { mkdir } from 'node:fs/promises';
import { after, before } from 'node:test';

import { launchChromium } from '../../../scripts/chromium.mjs';
import { serveStatic } from '../../../scripts/serve.mjs';
import { waitForLabs, waitForView, watch } from './lab-page.js';

export const SCREENSHOT_DIR = 'test-results/e2e';

/** Registers before/after hooks serving folder `root`; the returned object works in tests. */
export function browserSession(root) {
  let server;
  let browser;
  before(async () => {
    await mkdir(SCREENSHOT_DIR, { recursive: true });
    server = await serveStatic(root);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  return {
    /** A new page in a fresh context (no shared storage), closed when test `t` ends. */
    async newPage(t, options = {}) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...options });
      t.after(() => context.close());
      return context.newPage();
    },

    /**
     * Opens `path` (relative to the served root) and waits for `labs` rendered elements, or,
     * given `view`, for the first element to show that teaching view; `wait: false` waits
     * for nothing after the load.
     */
    async open(t, path = '', { labs = 1, view, wait = true, ...options } = {}) {
      const page = await this.newPage(t, options);
      const problems = watch(page);
      await page.goto(`${server.url}/${path}`);
      if (!wait) return { page, problems };
      if (view) await waitForView(page, view);
      else await waitForLabs(page, labs);
      return { page, problems };
    },
  };
}
