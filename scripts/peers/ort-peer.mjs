// ONNX Runtime's side of bench:peers' native rows, a child process like attnlab-peer, so that
// each row can run the onnxruntime-node it names (the installed one, or its AVX2 copy: a
// process holds one libonnxruntime). One command a line on stdin, one JSON line back:
//   run INPUT N D HEADS CAUSAL THREADS OUTPUT [CALLS]  → {"times":[…]}; INPUT holds Q, K, V
//     ([N, HEADS·D] each, float32, one after another), OUTPUT ("-" for none) receives O; CALLS
//     runs back to back (1 when absent), "times" each one's ms
//   release                                   → {} (frees the sessions)
// argv: the folder whose node_modules holds onnxruntime-node, the folder of .onnx models.
// Non-causal rows run com.microsoft MultiHeadAttention, causal ones GroupQueryAttention.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';

const [home, models] = process.argv.slice(2);
const ort = createRequire(`${home}/package.json`)('onnxruntime-node');
const sessions = new Map(); // "model threads" → InferenceSession
let inputs = { key: '' }; // the last INPUT read, kept while the rows share it

function feedsFor(path, n, d, heads, causal) {
  const key = `${path} ${n} ${d} ${heads}`;
  if (inputs.key !== key) {
    const bytes = readFileSync(path);
    const all = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4);
    const size = n * heads * d;
    if (all.length !== 3 * size) throw new Error(`${path} holds ${all.length} floats, not 3 × ${n} × ${heads * d}`);
    const tensor = (i) => new ort.Tensor('float32', all.subarray(i * size, (i + 1) * size), [1, n, heads * d]);
    inputs = { key, Q: tensor(0), K: tensor(1), V: tensor(2) };
  }
  const feeds = { Q: inputs.Q, K: inputs.K, V: inputs.V };
  if (causal) {
    feeds.seqlens_k = new ort.Tensor('int32', Int32Array.of(n - 1), [1]);
    feeds.total_sequence_length = new ort.Tensor('int32', Int32Array.of(n), []);
  }
  return feeds;
}

async function session(model, threads) {
  const key = `${model} ${threads}`;
  if (!sessions.has(key))
    sessions.set(
      key,
      await ort.InferenceSession.create(`${models}/${model}.onnx`, {
        intraOpNumThreads: threads,
        interOpNumThreads: 1,
        executionMode: 'sequential',
        logSeverityLevel: 3, // its symbolic-shape warnings would fill the table
      }),
    );
  return sessions.get(key);
}

async function run([input, ...rest]) {
  const [n, d, heads, causal, threads] = rest.slice(0, 5).map(Number);
  const output = rest[5];
  const calls = Number(rest[6] ?? 1);
  if (!(calls >= 1)) throw new Error(`CALLS must be at least 1, not ${rest[6]}`);
  const feeds = feedsFor(input, n, d, heads, causal === 1);
  const ready = await session(causal ? `gqa-h${heads}` : `mha-h${heads}`, threads);
  const times = []; // each call's ms
  let O;
  for (let call = 0; call < calls; call++) {
    const start = performance.now();
    ({ O } = await ready.run(feeds, ['O']));
    times.push(performance.now() - start);
  }
  if (output !== '-') writeFileSync(output, O.data);
  return { times };
}

async function release() {
  for (const s of sessions.values()) await s.release();
  sessions.clear();
  return {};
}

for await (const line of createInterface({ input: process.stdin })) {
  const [command, ...args] = line.trim().split(/\s+/);
  let reply;
  try {
    if (command === 'run') reply = await run(args);
    else if (command === 'release') reply = await release();
    else reply = { error: `unknown command "${command}" (run, release)` };
  } catch (error) {
    reply = { error: String(error?.message ?? error).split('\n')[0] };
  }
  process.stdout.write(`${JSON.stringify(reply)}\n`);
}
