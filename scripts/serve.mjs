// A tiny static file server for the browser tests and the page benchmark (node:http only).
// As a command: node scripts/serve.mjs [folder=web/dist] [port=0, a free one]
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import { extname, join, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';

const MIME_TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm', // WebAssembly.instantiateStreaming insists on it
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.ttf': 'font/ttf',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/plain; charset=utf-8',
};

/** The file a URL path names under root, or null when it would leave root. */
function fileFor(root, urlPath) {
  let path;
  try {
    path = decodeURIComponent(urlPath.split('?')[0]);
  } catch {
    return null;
  }
  const file = resolve(join(root, path));
  return file === root || file.startsWith(root + sep) ? file : null;
}

async function handle(root, headers, request, response) {
  const send = (status, text) => response.writeHead(status, { 'content-type': 'text/plain' }).end(text);
  if (request.method !== 'GET' && request.method !== 'HEAD') return send(405, 'method not allowed');
  let file = fileFor(root, request.url);
  if (!file) return send(403, 'forbidden');
  let info = await stat(file).catch(() => null);
  if (info?.isDirectory()) {
    file = join(file, 'index.html');
    info = await stat(file).catch(() => null);
  }
  if (!info?.isFile()) return send(404, 'not found');
  response.writeHead(200, {
    'content-type': MIME_TYPES[extname(file)] ?? 'application/octet-stream',
    'content-length': info.size,
    'cache-control': 'no-store', // every test run sees the files just built
    ...headers,
  });
  if (request.method === 'HEAD') return response.end();
  createReadStream(file).pipe(response);
}

/**
 * Serves folder `root` on 127.0.0.1; resolves to { url, close() } once listening. `headers`
 * go on every file (e.g. a Content-Security-Policy).
 */
export async function serveStatic(root, { port = 0, headers = {} } = {}) {
  const absoluteRoot = resolve(root);
  const server = createServer((request, response) => {
    handle(absoluteRoot, headers, request, response).catch((error) => {
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain' });
      response.end(String(error));
    });
  });
  await new Promise((done, fail) => {
    server.once('error', fail);
    server.listen(port, '127.0.0.1', done);
  });
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((done) => server.close(done)),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [root = 'web/dist', port = '0'] = process.argv.slice(2);
  const { url } = await serveStatic(root, { port: Number(port) });
  console.log(`serving ${root} at ${url}/`);
}
