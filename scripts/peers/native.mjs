// The native contestants of npm run bench:peers, each a child process fed one command a line:
// attnlab's flash kernel (build/native/attnlab-peer), onnxruntime-node's CPU kernels
// (ort-peer.mjs: com.microsoft MultiHeadAttention non-causal, GroupQueryAttention causal) and
// PyTorch's CPU scaled_dot_product_attention (torch-peer.py), all given the same Q, K, V file
// and thread count. Each kernel is { name, run({ keepOutput, calls }) → { times, output } }:
// times each of `calls` back-to-back calls' ms in the peer's process.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { constants } from 'node:os';
import { readFile, writeFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';

const ATTNLAB_PEER = ['build/native/attnlab-peer'];
const ORT_PEER = (home, models) => [process.execPath, new URL('ort-peer.mjs', import.meta.url).pathname, home, models];
const TORCH_PEER = (python) => [python, new URL('torch-peer.py', import.meta.url).pathname];
// The files the processes exchange (Q, K, V in; each one's O out) lie in memory, in /dev/shm
// where there is one: on disk, the kernel's writeback flushed a large row's files in the middle
// of the next rows' timings (docs/long-sequences.md, "Against the peers"). A run removes its
// folder as it exits; one killed outright (SIGKILL, out of memory) cannot, so each folder is named
// after its process, and a later run removes those whose process is gone.
const SHM = '/dev/shm';
const PREFIX = 'attnlab-peers-';
const OWNER = new RegExp(`^${PREFIX}(\\d+)-`); // the pid in a folder's name

const running = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM'; // alive, another user's
  }
};

function removeOrphans() {
  for (const name of readdirSync(SHM)) {
    const pid = Number(OWNER.exec(name)?.[1]);
    try {
      if (pid && !running(pid)) rmSync(`${SHM}/${name}`, { recursive: true, force: true });
    } catch {
      // another user's: theirs to remove
    }
  }
}

const EXCHANGE = (() => {
  let dir;
  try {
    removeOrphans();
    dir = mkdtempSync(`${SHM}/${PREFIX}${process.pid}-`);
  } catch {
    return 'build/peers';
  }
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => process.exit(128 + constants.signals[signal]));
  return dir;
})();
const INPUTS = `${EXCHANGE}/qkv.bin`;

// Every peer's glibc keeps the memory its process frees, as ONNX Runtime's arena does its own: left
// to glibc's defaults, a call's output freed at the end of one command went back to the system and
// was faulted in again on the next (attnlab, n = 1,024, d = 64, 1 thread: 249 page faults a call,
// the first two calls of each command 23.4-23.6 ms against 22.4 for the next; kept, no faults and
// 21.7-21.9 ms for each, AMD EPYC family 25). The faults are the harness's pattern of calls, not
// the kernel's work, so no peer pays them. A threshold set by hand also stops glibc from raising
// the mmap one as it goes (the trim threshold alone had every output mapped anew: 513 a call).
const KEEP_FREED = { MALLOC_TRIM_THRESHOLD_: String(2 ** 30), MALLOC_MMAP_THRESHOLD_: String(2 ** 30) };

/** A peer process (its argv, and variables added to its environment): ask(line) → its JSON reply. */
function startPeer([program, ...args], env = {}) {
  const child = spawn(program, args, {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, ...KEEP_FREED, ...env },
  });
  const replies = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  return {
    async ask(line) {
      child.stdin.write(`${line}\n`);
      const { value, done } = await replies.next();
      if (done) throw new Error(`${program} exited (${child.exitCode})`);
      const reply = JSON.parse(value);
      if (reply.error) throw new Error(reply.error);
      return reply;
    },
    stop: () => child.stdin.end(),
  };
}

export const startDriver = () => startPeer(ATTNLAB_PEER);
/** ONNX Runtime from `home`'s node_modules (the installed one, or its AVX2 copy). */
export const startOrt = (home, models) => startPeer(ORT_PEER(home, models));
// ATEN_CPU_CAPABILITY holds ATen's own kernels (SDPA's softmax) to AVX2, but not the matrix products
// inside its flash kernel, which are MKL's: MKL picks its instruction set itself (on an Intel Xeon
// with AVX-512, n = 1,024, d = 128, 1 thread: 33 ms with ATen alone held, 60 ms with MKL held too),
// and oneDNN likewise.
const TORCH_AVX2 = { ATEN_CPU_CAPABILITY: 'avx2', MKL_ENABLE_INSTRUCTIONS: 'AVX2', ONEDNN_MAX_CPU_ISA: 'AVX2' };

/** PyTorch under `python`, held to AVX2 where `avx2` (ATen, MKL and oneDNN alike). */
export const startTorch = (python, avx2) => startPeer(TORCH_PEER(python), avx2 ? TORCH_AVX2 : {});

// One contestant: `command(output, calls)` is its run line, writing O to `output` ('-': nowhere).
function contestant(name, peer, command) {
  const output = `${EXCHANGE}/${name}-output.bin`;
  return {
    name,
    async run({ keepOutput, calls = 1 }) {
      const { times } = await peer.ask(command(keepOutput ? output : '-', calls));
      if (!keepOutput) return { times };
      const bytes = await readFile(output);
      return { times, output: new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4) };
    },
  };
}

/** Writes Q, K and V one after the other into the file attnlab-peer's commands name; returns its path. */
export async function writeInputs(Q, K, V) {
  const concatenated = new Float32Array(3 * Q.data.length);
  [Q, K, V].forEach((m, i) => concatenated.set(m.data, i * Q.data.length));
  await writeFile(INPUTS, concatenated);
  return INPUTS;
}

/** The kernels of one native row: attnlab's `driver`, the ORT process `ort` and PyTorch's `torch` (when there is one). */
export async function nativeKernels({ driver, ort, torch, row, Q, K, V }) {
  const { n, d, heads, causal, threads } = row;
  // One file of Q, K, V for both: each reads it on the first run and keeps it.
  await writeInputs(Q, K, V);
  const command = (output, calls) => `run ${INPUTS} ${n} ${d} ${heads} ${causal ? 1 : 0} ${threads} ${output} ${calls}`;
  const peer = contestant(causal ? 'ort-gqa' : 'ort-mha', ort, command);
  const kernels = [contestant('attnlab', driver, command), { ...peer, release: () => ort.ask('release') }];
  if (torch) kernels.push({ ...contestant('torch-sdpa', torch, command), release: () => torch.ask('release') });
  return kernels;
}
