// The WebAssembly contestants of npm run bench:peers, in this Node process, on one thread:
// attnlab's flashAttention (dist/), onnxruntime-web's wasm backend (SIMD) with the
// com.microsoft MultiHeadAttention and the opset-23 Attention op, and tfjs-backend-wasm; and
// attnlab's threaded core on 1 and on 2 threads (createAttnLab({ threads: true })).
// Each kernel is { name, run({ calls }) → { times, output } }: times each of `calls`
// back-to-back calls' ms.
import { dirname } from 'node:path';
import { createRequire } from 'node:module';

/** tfjs-core on its wasm backend, and attention as a tfjs user writes it (matMul → softmax → matMul). */
export async function tfjsWasm() {
  const require = createRequire(import.meta.url);
  const tf = await import('@tensorflow/tfjs-core');
  const backend = await import('@tensorflow/tfjs-backend-wasm');
  backend.setWasmPaths(`${dirname(require.resolve('@tensorflow/tfjs-backend-wasm'))}/`);
  await tf.setBackend('wasm');
  const attention = (Q, K, V, causal) =>
    tf.tidy(() => {
      const [q, k, v] = [Q, K, V].map((m) => tf.tensor2d(m.data, [m.rows, m.cols]));
      let scores = tf.mul(tf.matMul(q, k, false, true), 1 / Math.sqrt(Q.cols));
      if (causal) scores = tf.add(scores, tf.mul(tf.sub(1, tf.linalg.bandPart(tf.ones([Q.rows, Q.rows]), -1, 0)), -1e9));
      return tf.matMul(tf.softmax(scores), v).dataSync();
    });
  return { tf, attention };
}

const timed = async (run, calls = 1) => {
  const times = [];
  let output;
  for (let call = 0; call < calls; call++) {
    const start = performance.now();
    output = await run();
    times.push(performance.now() - start);
  }
  return { times, output };
};

/** The kernels of one wasm row (one head); threadedLab is the threaded core (createAttnLab({ threads: true })). */
export function wasmKernels({ lab, threadedLab, ortWeb, tfjs, models, row, Q, K, V }) {
  const { n, d, causal } = row;
  const tensor = (m) => new ortWeb.Tensor('float32', m.data, [1, n, d]);
  const ortKernel = (name, model) => {
    let session;
    return {
      name,
      async run({ calls } = {}) {
        session ??= await ortWeb.InferenceSession.create(`${models}/${model}-h1${causal ? '-causal' : ''}.onnx`, {
          executionProviders: ['wasm'],
          logSeverityLevel: 3,
        });
        return timed(async () => (await session.run({ Q: tensor(Q), K: tensor(K), V: tensor(V) })).O.data, calls);
      },
      release: () => session?.release(),
    };
  };
  // A kernel that one synchronous call runs: `call` returns its output.
  const synchronous = (name, call) => ({ name, run: ({ calls } = {}) => timed(call, calls) });
  return [
    synchronous('attnlab', () => lab.flashAttention({ Q, K, V, causal }).output.data),
    // The threaded core on 1 and on 2 threads (issue 41: ≥ 1.4× at n = 1,024).
    synchronous('attnlab-thr1', () => threadedLab.flashAttention({ Q, K, V, causal, threads: 1 }).output.data),
    synchronous('attnlab-thr2', () => threadedLab.flashAttention({ Q, K, V, causal, threads: 2 }).output.data),
    ortKernel('ort-web-mha', 'mha'),
    ortKernel('ort-web-attention', 'attention'),
    synchronous('tfjs-wasm', () => tfjs.attention(Q, K, V, causal)),
  ];
}
