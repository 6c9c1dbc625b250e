// What npm run bench:peers needs beyond the repo's devDependencies, installed on demand into
// build/peers/ rather than listed in package.json: onnxruntime-node and -web are ~430 MB that
// npm test never uses, and onnxruntime-node's install script (which npm ci would run) fails
// here trying to download CUDA files; its CPU binaries ship inside the package, so
// --ignore-scripts is all it needs. The one-op models are written by Debian's python3-onnx
// (scripts/setup.sh python3-onnx installs it; package.json's bench:peers does).
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const ROOT = new URL('../../', import.meta.url).pathname;
const PEERS = `${ROOT}build/peers`;
const VERSION = '1.30';
export const MODELS = `${PEERS}/models`;
/** The folder whose node_modules holds the installed onnxruntime-node (ort-peer.mjs's argument). */
export const ORT_HOME = PEERS;

function installOrt() {
  mkdirSync(PEERS, { recursive: true });
  if (!existsSync(`${PEERS}/package.json`)) writeFileSync(`${PEERS}/package.json`, '{ "name": "attnlab-bench-peers", "private": true }\n');
  console.log(`bench:peers: installing onnxruntime-node@${VERSION} and onnxruntime-web@${VERSION} into build/peers/`);
  execFileSync(
    'npm',
    ['install', '--prefix', PEERS, '--ignore-scripts', '--no-audit', '--no-fund', `onnxruntime-node@${VERSION}`, `onnxruntime-web@${VERSION}`],
    { stdio: 'inherit' },
  );
}

// A package's version in build/peers (its package.json; onnxruntime-web's exports hide it).
function version(name) {
  try {
    return JSON.parse(readFileSync(`${PEERS}/node_modules/${name}/package.json`, 'utf8')).version;
  } catch {
    return undefined;
  }
}

/** { ortWeb, versions }, installing the packages and writing the models first. */
export async function ensurePeers() {
  const require = createRequire(`${PEERS}/package.json`);
  if (!version('onnxruntime-node')?.startsWith(`${VERSION}.`) || !version('onnxruntime-web')?.startsWith(`${VERSION}.`)) installOrt();
  try {
    execFileSync('/usr/bin/python3', [`${ROOT}scripts/peer-models.py`, MODELS], { stdio: ['ignore', 'inherit', 'pipe'] });
  } catch (error) {
    throw new Error(`bench:peers: writing the ONNX models failed (is python3-onnx installed? bash scripts/setup.sh python3-onnx): ${error.stderr}`, {
      cause: error,
    });
  }
  const ortWeb = await import(require.resolve('onnxruntime-web'));
  ortWeb.env.wasm.numThreads = 1; // the wasm rows are single-threaded, like attnlab's build
  const tfVersion = createRequire(import.meta.url)('@tensorflow/tfjs-backend-wasm/package.json').version;
  const versions = `Node ${process.version}, onnxruntime-node ${version('onnxruntime-node')}, onnxruntime-web ${version('onnxruntime-web')} (wasm, SIMD, 1 thread), tfjs-backend-wasm ${tfVersion}`;
  return { ortWeb, versions };
}

// ORT's MLAS picks its kernels from CPUID, with no switch, so on a CPU with AVX-512 it runs
// AVX-512 even where attnlab is forced to AVX2. For those rows bench:peers runs a copy of the
// library (build/peers/ort-avx2/) that never takes the one branch enabling MLAS's AVX-512
// kernels: the check that the OS saves the AVX-512 registers (XCR0 bits 5–7), which 1.30's
// x64 build compiles to `not rax; test al, 0xE0; je <AVX-512 setup>`. Its `je` becomes a
// 6-byte nop, so MLAS goes on as it does on a CPU without AVX-512: AVX2 + FMA3 kernels.
const AVX512_BRANCH = Buffer.from('48f7d0a8e00f84', 'hex');
const JE_OFFSET = 5; // the `je rel32` (0f 84 + 4 bytes) after `not rax; test al, 0xE0`
const NOP6 = Buffer.from('660f1f440000', 'hex');

/** The folder of an onnxruntime-node whose MLAS runs AVX2 + FMA3, or throws why not. */
export function ortWithoutAvx512() {
  const home = `${PEERS}/ort-avx2`;
  const copy = `${home}/node_modules/onnxruntime-node`;
  const library = `${copy}/bin/napi-v6/linux/x64/libonnxruntime.so.1`;
  rmSync(home, { recursive: true, force: true }); // always a fresh copy of the installed one
  cpSync(`${PEERS}/node_modules/onnxruntime-node`, copy, { recursive: true });
  const bytes = readFileSync(library);
  const at = bytes.indexOf(AVX512_BRANCH);
  if (at < 0 || bytes.indexOf(AVX512_BRANCH, at + 1) >= 0)
    throw new Error(
      `onnxruntime-node ${version('onnxruntime-node')}: MLAS's AVX-512 check is not found once in its library (found ${at < 0 ? 'none' : 'several'})`,
    );
  NOP6.copy(bytes, at + JE_OFFSET);
  writeFileSync(library, bytes);
  return home; // its onnxruntime-common resolves to build/peers/node_modules'
}

// PyTorch, from PyPI into its own virtual environment (build/peers/torch/), pinned; npm test
// never installs it. PyPI's Linux wheel is the CUDA build (about 5 GB with its libraries): only
// its CPU kernels run here. ATTNLAB_PEERS_TORCH_PYTHON names a Python that already has this
// torch instead; ATTNLAB_PEERS_TORCH=0 leaves PyTorch out.
const TORCH_VERSION = '2.15.0';
const TORCH_HOME = `${PEERS}/torch`;

const torchVersionOf = (python) => {
  try {
    return execFileSync(python, ['-c', 'import torch, numpy; print(torch.__version__)'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
};

/** The Python that runs torch-peer.py with torch TORCH_VERSION, or undefined when left out. */
export function ensureTorch() {
  if (process.env.ATTNLAB_PEERS_TORCH === '0') return undefined;
  const python = process.env.ATTNLAB_PEERS_TORCH_PYTHON ?? `${TORCH_HOME}/bin/python`;
  if (torchVersionOf(python)?.split('+')[0] === TORCH_VERSION) return python;
  if (process.env.ATTNLAB_PEERS_TORCH_PYTHON) throw new Error(`bench:peers: ${python} has no torch ${TORCH_VERSION} with numpy`);
  console.log(`bench:peers: installing torch==${TORCH_VERSION} from PyPI into build/peers/torch/ (about 5 GB)`);
  execFileSync('/usr/bin/python3', ['-m', 'venv', TORCH_HOME], { stdio: 'inherit' });
  execFileSync(`${TORCH_HOME}/bin/pip`, ['install', '--quiet', `torch==${TORCH_VERSION}`, 'numpy==2.4.6'], { stdio: 'inherit' });
  return python;
}
