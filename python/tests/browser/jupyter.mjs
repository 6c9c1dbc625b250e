// JupyterLab for the browser test: a server on 127.0.0.1 with a random token, from the
// package's virtual environment (python/.venv, where the built wheel is installed), in a
// scratch folder of its own (settings, runtime files, the notebook), and Chromium with every
// request outside 127.0.0.1 refused and recorded.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PYTHON = fileURLToPath(new URL('../../.venv/bin/python', import.meta.url));

export const freePort = () =>
  new Promise((done, fail) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
    server.on('error', fail);
  });

/** A notebook of code cells (each a string), as nbformat 4 writes it. */
export function notebook(cells) {
  return JSON.stringify({
    nbformat: 4,
    nbformat_minor: 5,
    metadata: { kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' } },
    cells: cells.map((source, i) => ({ id: `cell-${i}`, cell_type: 'code', metadata: {}, execution_count: null, outputs: [], source })),
  });
}

/** Starts JupyterLab (app 'lab') or Notebook 7 ('notebook') in a scratch folder holding `files` ({ name: text }). */
export async function startJupyterLab(files, { app = 'lab' } = {}) {
  const root = await mkdtemp(join(tmpdir(), 'attnlab-jupyter-'));
  const settings = join(root, '.settings');
  // Every cell rendered (no windowing), so widgets below the fold exist; the light theme to start.
  const write = async (path, value) => {
    await mkdir(join(settings, path, '..'), { recursive: true });
    await writeFile(join(settings, path), JSON.stringify(value));
  };
  // (JupyterLab's plugins: Notebook 7 has other ones, and throws on some of these.)
  if (app === 'lab') {
    await write('@jupyterlab/notebook-extension/tracker.jupyterlab-settings', { windowingMode: 'none' });
    await write('@jupyterlab/apputils-extension/themes.jupyterlab-settings', { theme: 'JupyterLab Light' });
    await write('@jupyterlab/apputils-extension/notification.jupyterlab-settings', { fetchNews: 'false', checkForUpdates: false });
  }
  for (const [name, text] of Object.entries(files)) await writeFile(join(root, name), text);
  const token = randomBytes(16).toString('hex');
  const port = await freePort();
  const env = { ...process.env, JUPYTER_CONFIG_DIR: join(root, '.config'), JUPYTER_RUNTIME_DIR: join(root, '.runtime'), JUPYTERLAB_SETTINGS_DIR: settings, JUPYTERLAB_WORKSPACES_DIR: join(root, '.workspaces'), IPYTHONDIR: join(root, '.ipython') };
  const server = spawn(PYTHON, ['-m', app === 'lab' ? 'jupyterlab' : 'notebook', '--no-browser', '--ServerApp.ip=127.0.0.1', `--ServerApp.port=${port}`, '--ServerApp.port_retries=0', '--allow-root', ...(app === 'lab' ? ['--LabApp.extension_manager=readonly'] : []), `--IdentityProvider.token=${token}`, `--ServerApp.root_dir=${root}`, ...(app === 'lab' ? ['--LabApp.news_url=None', '--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate'] : [])], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  server.stdout.on('data', (d) => (log += d));
  server.stderr.on('data', (d) => (log += d));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (server.exitCode !== null) throw new Error(`JupyterLab exited: ${log.slice(-2000)}`);
    try {
      if ((await fetch(`${url}/api/status?token=${token}`)).ok) break;
    } catch {
      /* not listening yet */
    }
    if (i > 600) throw new Error(`JupyterLab did not start in 60 s: ${log.slice(-2000)}`);
    await new Promise((done) => setTimeout(done, 100));
  }
  return {
    url,
    token,
    root,
    log: () => log,
    open: (name) => (app === 'lab' ? `${url}/lab/tree/${name}?token=${token}` : `${url}/notebooks/${name}?token=${token}`),
    async stop() {
      server.kill('SIGTERM');
      await new Promise((done) => (server.exitCode !== null ? done() : server.once('exit', done)));
    },
  };
}

/** Refuses every request that leaves 127.0.0.1; returns the list of the refused URLs. */
export async function blockTheNetwork(context) {
  const refused = [];
  await context.route('**/*', (route) => {
    const { hostname, protocol } = new URL(route.request().url());
    if (protocol === 'blob:' || protocol === 'data:' || hostname === '127.0.0.1') return route.continue();
    refused.push(route.request().url());
    return route.abort('internetdisconnected');
  });
  return refused;
}

// ---- the notebook in the page ----

const cell = (page, i) => page.locator('.jp-NotebookPanel:visible .jp-Notebook .jp-Cell').nth(i);

/** Waits until the kernel is idle: JupyterLab's status bar says so; Notebook 7 has none, so its kernel's name and a pause. */
export async function kernelIdle(page, app = 'lab') {
  if (app === 'lab') return page.locator('.jp-StatusBar-TextItem', { hasText: /\| Idle$/ }).first().waitFor({ timeout: 60_000 });
  await page.getByText('Python 3 (ipykernel)').first().waitFor({ timeout: 60_000 });
  await page.waitForTimeout(3000);
}

/** Runs code cell i (selects it in command mode, then Shift+Enter) and waits until it has run. */
export async function runCell(page, i) {
  const prompt = cell(page, i).locator('.jp-InputPrompt').first();
  const before = (await prompt.innerText()).trim();
  await prompt.click();
  await page.keyboard.press('Escape');
  await page.keyboard.press('Shift+Enter');
  await page.waitForFunction(
    ({ i, before }) => {
      const cells = document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell');
      const now = cells[i]?.querySelector('.jp-InputPrompt')?.innerText.trim() ?? '';
      return /\[\d+\]/.test(now) && now !== before;
    },
    { i, before },
    { timeout: 60_000 },
  );
}

/** Runs cell i and returns its printed line starting with `marker` (the last run's: marker and a fresh count). */
export async function runAndRead(page, i, marker) {
  const before = await cell(page, i).locator('.jp-OutputArea-output').allInnerTexts();
  await runCell(page, i);
  const line = await page.waitForFunction(
    ({ i, marker, before }) => {
      const cells = [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell')];
      const outputs = [...(cells[i]?.querySelectorAll('.jp-OutputArea-output') ?? [])].map((o) => o.innerText);
      if (outputs.join('\n') === before.join('\n')) return null;
      const error = outputs.find((o) => /Traceback \(most recent call last\)/.test(o));
      if (error) return { error };
      const found = outputs.join('\n').split('\n').find((l) => l.startsWith(marker));
      return found ? { line: found } : null;
    },
    { i, marker, before },
    { timeout: 60_000 },
  );
  const { error, line: text } = await line.jsonValue();
  if (error) throw new Error(`cell ${i} failed: ${error}`);
  return JSON.parse(text.slice(marker.length));
}

// ---- any page of these tests ----

/** A fresh page whose context refuses the network; `errors` collects its uncaught errors (with where). */
export async function offlinePage(browser, t) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
  t.after(() => context.close());
  const refused = await blockTheNetwork(context);
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(`${error.message} @ ${(error.stack ?? '').split('\n').slice(1, 3).join(' ')}`));
  return { page, refused, errors };
}

/** In the page, given an <attn-lab>: its softmax result tables, [head][row][column] (pass to evaluate). */
export function softmaxTables(element) {
  return [...element.shadowRoot.querySelectorAll('[data-role="result"] table[data-matrix="softmax"]')].map((table) => {
    const rows = [];
    for (const td of table.querySelectorAll('td[data-value]')) (rows[Number(td.dataset.row)] ??= [])[Number(td.dataset.col)] = Number(td.dataset.value);
    return rows;
  });
}
