// What npm run bench:peers needs beyond the repo's devDependencies, installed on demand into
// build/peers/ rather than listed in package.json: onnxruntime-node and -web are ~430 MB that
// npm test never uses, and onnxruntime-node's install script (which npm ci would run) fails
// here trying to download CUDA files; its CPU binaries ship inside the package, so
// --ignore-scripts is all it needs. The one-op models are written by Debian's python3-onnx
// (scripts/setup.sh python3-onnx installs it; package.json's bench:peers does).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const ROOT = new URL('../../', import.meta.url).pathname;
const PEERS = `${ROOT}build/peers`;
const VERSION = '1.30';
export const MODELS = `${PEERS}/models`;

function installOrt() {
  mkdirSync(PEERS, { recursive: true });
  if (!existsSync(`${PEERS}/package.json`)) writeFileSync(`${PEERS}/package.json`, '{ "name": "attnlab-bench-peers", "private": true }\n');
  console.log(`bench:peers: installing onnxruntime-node@${VERSION} and onnxruntime-web@${VERSION} into build/peers/`);
  execFileSync('npm', ['install', '--prefix', PEERS, '--ignore-scripts', '--no-audit', '--no-fund', `onnxruntime-node@${VERSION}`, `onnxruntime-web@${VERSION}`], { stdio: 'inherit' });
}

// A package's version in build/peers (its package.json; onnxruntime-web's exports hide it).
function version(name) {
  try {
    return JSON.parse(readFileSync(`${PEERS}/node_modules/${name}/package.json`, 'utf8')).version;
  } catch {
    return undefined;
  }
}

/** { ortNode, ortWeb, versions }, installing the packages and writing the models first. */
export async function ensurePeers() {
  const require = createRequire(`${PEERS}/package.json`);
  if (!version('onnxruntime-node')?.startsWith(`${VERSION}.`) || !version('onnxruntime-web')?.startsWith(`${VERSION}.`)) installOrt();
  try {
    execFileSync('/usr/bin/python3', [`${ROOT}scripts/peer-models.py`, MODELS], { stdio: ['ignore', 'inherit', 'pipe'] });
  } catch (error) {
    throw new Error(`bench:peers: writing the ONNX models failed (is python3-onnx installed? bash scripts/setup.sh python3-onnx): ${error.stderr}`);
  }
  const ortNode = require('onnxruntime-node');
  const ortWeb = await import(require.resolve('onnxruntime-web'));
  ortWeb.env.wasm.numThreads = 1; // the wasm rows are single-threaded, like attnlab's build
  const tfVersion = createRequire(import.meta.url)('@tensorflow/tfjs-backend-wasm/package.json').version;
  const versions = `Node ${process.version}, onnxruntime-node ${version('onnxruntime-node')}, onnxruntime-web ${version('onnxruntime-web')} (wasm, SIMD, 1 thread), tfjs-backend-wasm ${tfVersion}`;
  return { ortNode, ortWeb, versions };
}
