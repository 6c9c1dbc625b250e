// The native contestants of npm run bench:peers: attnlab's flash kernel (build/native/
// attnlab-peer, a child process fed one command a line) and onnxruntime-node's CPU kernels
// (com.microsoft MultiHeadAttention non-causal, GroupQueryAttention causal), both given the
// same Q, K, V and thread count. Each kernel is { name, run() → { ms, output } }.
import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';

const DRIVER = 'build/native/attnlab-peer';
const INPUTS = 'build/peers/qkv.bin';
const OUTPUT = 'build/peers/attnlab-output.bin';

/** The attnlab-peer process: ask(line) → its JSON reply. */
export function startDriver() {
  const child = spawn(DRIVER, [], { stdio: ['pipe', 'pipe', 'inherit'] });
  const replies = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  return {
    async ask(line) {
      child.stdin.write(`${line}\n`);
      const { value, done } = await replies.next();
      if (done) throw new Error(`${DRIVER} exited (${child.exitCode})`);
      const reply = JSON.parse(value);
      if (reply.error) throw new Error(reply.error);
      return reply;
    },
    stop: () => child.stdin.end(),
  };
}

/** The kernels of one native row; `ort` is onnxruntime-node, `models` the folder of .onnx files. */
export async function nativeKernels({ ort, driver, models, row, Q, K, V }) {
  const { n, d, heads, causal, threads } = row;
  // One file of Q, K, V for the driver: it reads it on the first run and keeps it.
  const concatenated = new Float32Array(3 * Q.data.length);
  [Q, K, V].forEach((m, i) => concatenated.set(m.data, i * Q.data.length));
  await writeFile(INPUTS, concatenated);
  const command = (output) => `run ${INPUTS} ${n} ${d} ${heads} ${causal ? 1 : 0} ${threads} ${output}`;
  const attnlab = {
    name: 'attnlab',
    async run({ keepOutput }) {
      const { ms } = await driver.ask(command(keepOutput ? OUTPUT : '-'));
      if (!keepOutput) return { ms };
      const bytes = await readFile(OUTPUT);
      return { ms, output: new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4) };
    },
  };

  const model = causal ? `gqa-h${heads}` : `mha-h${heads}`;
  const tensor = (m) => new ort.Tensor('float32', m.data, [1, n, heads * d]);
  const feeds = { Q: tensor(Q), K: tensor(K), V: tensor(V) };
  if (causal) {
    feeds.seqlens_k = new ort.Tensor('int32', Int32Array.of(n - 1), [1]);
    feeds.total_sequence_length = new ort.Tensor('int32', Int32Array.of(n), []);
  }
  let session;
  const peer = {
    name: causal ? 'ort-gqa' : 'ort-mha',
    async run() {
      session ??= await ort.InferenceSession.create(`${models}/${model}.onnx`, {
        intraOpNumThreads: threads,
        interOpNumThreads: 1,
        executionMode: 'sequential',
        logSeverityLevel: 3, // its symbolic-shape warnings would fill the table
      });
      const start = performance.now();
      const { O } = await session.run(feeds, ['O']);
      return { ms: performance.now() - start, output: O.data };
    },
    release: () => session?.release(),
  };
  return [attnlab, peer];
}
