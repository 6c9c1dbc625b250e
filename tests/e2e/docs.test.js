// The docs site (npm run docs → docs/.vitepress/dist/): every page, reached by following the
// links from the home page, loads without a console error; every link within the site leads to
// a file that exists and, with a #fragment, to an element of that id; every view of the one
// list (views/list.js) runs live on the views page; and every page that quotes a measured time
// names the machine it was measured on.
import assert from 'node:assert/strict';
import { access } from 'node:fs/promises';
import { test } from 'node:test';

import { VIEW_IDS } from '../../web/element/views/list.js';
import { browserSession } from './support/session.js';

const SITE = 'docs/.vitepress/dist';
const session = browserSession(SITE);

// A time or a throughput that a run measured ("87.6 ms", "0.24 s", "10.66 GFLOP/s"), not a
// budget or a setting ("no task over 100 ms", "for 30 s", "within 2 s", "1 s apart").
const NOT_AFTER = '(?<!\\b(?:over|within|for|under|most|every|than) )';
const NOT_BEFORE = '(?![^.]*\\bapart\\b)'; // "tried 0.25 s and 1 s apart": a setting too
const MEASURED = new RegExp(`${NOT_AFTER}\\b\\d[\\d,.]*\\s?(?:ms|GFLOP/s)\\b${NOT_BEFORE}|${NOT_AFTER}\\b\\d+(?:\\.\\d+)? s\\b${NOT_BEFORE}`);
const MACHINE = /AMD EPYC|Intel(?:\(R\))? Xeon|SwiftShader/; // lscpu names the Xeon "Intel(R) Xeon(R) Processor"

test('the built site is there (npm run docs)', async () => {
  await access(`${SITE}/index.html`);
});

test('every page of the site loads cleanly, and no link within it is dead', async (t) => {
  const { page } = await session.open(t, 'index.html', { wait: false });
  const origin = new URL(page.url()).origin;
  const problems = [];
  page.on('console', (message) => message.type() === 'error' && problems.push(`${page.url()}: ${message.text()}`));
  page.on('pageerror', (error) => problems.push(`${page.url()}: ${error.message}`));
  page.on('response', (response) => response.status() >= 400 && problems.push(`${response.url()}: HTTP ${response.status()}`));

  const queue = [`${origin}/index.html`];
  const pages = new Map(); // page URL (no fragment) → { ids, links, blocks }
  while (queue.length) {
    const url = queue.shift();
    if (pages.has(url)) continue;
    const response = await page.goto(url, { waitUntil: 'load' });
    assert.equal(response.status(), 200, `${url} loads`);
    const found = await page.evaluate(() => ({
      ids: [...document.querySelectorAll('[id]')].map((element) => element.id),
      strayLabs: document.querySelectorAll('attn-lab:not(main attn-lab)').length, // a tag in the nav's text would make one
      links: [...document.querySelectorAll('a[href], img[src], link[href], script[src]')].map((element) => element.href || element.src),
      // Each paragraph, list item and table, with the paragraph before it (which introduces a table or a list).
      blocks: [...document.querySelectorAll('main p, main li, main table')].map((block) => {
        const before = block.closest('ul, ol, table')?.previousElementSibling ?? block.previousElementSibling;
        return { text: block.innerText, context: `${before?.innerText ?? ''} ${block.innerText}` };
      }),
    }));
    pages.set(url, found);
    assert.equal(found.strayLabs, 0, `${url}: every <attn-lab> is in the page's content`);
    for (const link of found.links) {
      const target = new URL(link);
      if (target.origin !== origin) continue;
      const bare = `${target.origin}${target.pathname}`;
      if (target.pathname.endsWith('.html') || target.pathname.endsWith('/')) queue.push(bare.endsWith('/') ? `${bare}index.html` : bare);
    }
  }
  assert.ok(pages.size >= 12, `the crawl reached every page (${[...pages.keys()].join(', ')})`);

  const dead = [];
  for (const [from, { links }] of pages) {
    for (const link of links) {
      const target = new URL(link);
      if (target.origin !== origin) continue;
      const bare = `${target.origin}${target.pathname.endsWith('/') ? `${target.pathname}index.html` : target.pathname}`;
      if (pages.has(bare)) {
        const id = decodeURIComponent(target.hash.slice(1));
        if (id && !pages.get(bare).ids.includes(id)) dead.push(`${from} → ${link} (no element #${id})`);
      } else {
        const status = (await page.request.get(bare)).status();
        if (status !== 200) dead.push(`${from} → ${link} (HTTP ${status})`);
      }
    }
  }
  assert.deepEqual(dead, []);
  assert.deepEqual(problems, []);

  const unnamed = [...pages].flatMap(([url, { blocks }]) =>
    blocks
      .filter(({ text, context }) => MEASURED.test(text) && !MACHINE.test(context))
      .map(({ text }) => `${url}: "${MEASURED.exec(text)[0]}" in "${text.slice(0, 80)}…"`),
  );
  assert.deepEqual(unnamed, [], 'every figure measured names the machine, in its paragraph or the one before');
});

test('every view of the one list runs live on the views page, the built element rendering it', async (t) => {
  const { page, problems } = await session.open(t, 'views.html', { wait: false });
  for (const id of VIEW_IDS) {
    await page.waitForFunction(
      (id) => {
        const lab = document.querySelector(`.live-view[data-view="${id}"] attn-lab`);
        return (
          lab?.dataset.view === id && lab.shadowRoot.querySelector(id === 'stepper' ? '[data-role="result"] table' : `[data-role="view"][data-view="${id}"]`)
        );
      },
      id,
      { timeout: 30_000 },
    );
  }
  assert.deepEqual(problems, { consoleErrors: [], pageErrors: [], dialogs: [] });
});
