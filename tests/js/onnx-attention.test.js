// ONNX's own test cases for its Attention operator (opsets 23 to 25, from the onnx package
// pinned in python/requirements-dev.txt; scripts/onnx-cases.py writes them to
// build/onnx-cases.json) through every attnlab path that takes their options (attention(),
// trace(), flashAttention(), naiveAttention(), attnlab/webgpu, sampledWeights(); not decode(),
// which runs causal self-attention with one query per new key, what most cases are not), each case
// turned into attnlab requests per batch item as docs/javascript.md's framework table says:
// is_causal → causal; the cache's offset (n_past with past_key, nonpad_kv_seqlen[b] − n_q
// without) → an integer causalAlignment; nonpad_kv_seqlen → keyPadding; left/right_window_size →
// window; a float attn_mask → bias, a boolean one → mask (or a −Infinity bias where a path has
// no mask or the mask differs per head); q_num_heads/kv_num_heads or the 4D head axis →
// heads/kvHeads. Y, present_key/present_value and qk_matmul_output are compared with ONNX's
// expected outputs; the fp16 and bf16 cases run on their rounded inputs in float32.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { gpuForFile } from './support/dawn.js';
import { decodeCase, describeCase } from './support/onnx-cases.js';
import { attnlab, importFromConsumer } from './support/package.js';

const lab = await attnlab.createAttnLab();
const { createGpuAttention } = await importFromConsumer('attnlab/webgpu');
const held = gpuForFile(createGpuAttention);

const casesFile = process.env.ONNX_CASES ?? fileURLToPath(new URL('../../build/onnx-cases.json', import.meta.url));
assert.ok(existsSync(casesFile), `${casesFile} is missing: scripts/test.sh writes it with python/.venv/bin/python scripts/onnx-cases.py`);
const dump = JSON.parse(readFileSync(casesFile, 'utf8'));
const cases = dump.cases.map(decodeCase).map(describeCase);

// The dump is the pinned onnx's: a new release adds or changes cases, so the pin and this count
// move together (a filter bug that drops cases fails here too).
const ONNX_VERSION = '1.23.2';
const CASE_COUNT = 93;

// float32: ONNX's scale is applied as √scale to Q and to K, each rounded; attnlab multiplies the
// score once. That, and a different summation order, stay far below this.
const FLOAT32_TOLERANCE = 1e-5;
// fp16 and bf16 cases: ONNX's expected Y is rounded to the case's type at each of its steps
// (Q·√s, K·√s, the scores, the weights, Y), up to 1.3 units in the last place of Y's largest
// entry in these cases; attnlab gets the same rounded inputs and computes in float32. Held to
// 2 units in the last place of the largest |Y| against the expected output, and to the float32
// tolerance against ONNX's own reference run in float32 on the same inputs.
const SIGNIFICAND_BITS = { float16: 10, bfloat16: 7 };
const ulpsOf = (dtype, largest) => 2 ** (Math.floor(Math.log2(largest)) - SIGNIFICAND_BITS[dtype]);

// What a path cannot express, by rule: the reason and the refusal expected. Such a case is run
// anyway and must be refused with that message (a path that learns it fails here, to be moved
// into the comparison); it is listed by name, never counted as passed. Every other path takes
// every case of onnx 1.23.2.
const NOT_EXPRESSIBLE = {
  'attnlab/webgpu': (p) => p.dv !== p.d && { reason: 'the WGSL kernel needs d_v = d_k', refusal: /needs V as wide as K/ },
};

const columns = (m, first, count) => m.map((row) => row.slice(first, first + count));
const unflatten = ({ rows, cols, data }) => Array.from({ length: rows }, (_, r) => Array.from(data.subarray(r * cols, (r + 1) * cols)));

// |a − b|, 0 when both are the same infinity (masked logits), Infinity when only one is
// infinite or either is NaN (so that it fails every tolerance).
function difference(a, b) {
  if (a === b) return 0;
  const d = Math.abs(a - b);
  return Number.isNaN(d) ? Infinity : d;
}

/** A running comparison: the worst difference and where, of each output. */
class Check {
  constructor(c) {
    this.c = c;
    this.worst = {};
    this.failures = [];
  }
  compare(what, got, want, tolerance, where) {
    const d = difference(got, want);
    const worst = this.worst[what];
    if (!worst || d > worst.d) this.worst[what] = { d, got, want, where };
    if (!(d <= tolerance)) this.failures.push(`${what} ${where}: ${got} vs ${want} (|Δ| ${d.toExponential(2)} > ${tolerance.toExponential(1)})`);
  }
}

/**
 * Compares one path's result with the case's expected outputs: Y(b, h, i, c) for every head,
 * and where the path gave them qk(b, h, i, j) (the case's qk_matmul_output) and the present
 * K/V(b, g, j, c) of each K/V head.
 */
function compareOutputs(check, p, got) {
  const { c } = check;
  const reference32 = c.float32Reference;
  const largestY = Math.max(...c.outputs.Y.data.map(Math.abs));
  for (let b = 0; b < p.batch; b++) {
    for (let h = 0; h < p.heads; h++) {
      for (let i = 0; i < p.nq; i++) {
        for (let col = 0; col < p.dv; col++) {
          const where = `(b ${b}, head ${h}, query ${i}, column ${col})`;
          const y = got.Y(b, h, i, col);
          if (c.dtype === 'float32') check.compare('Y', y, p.expectedY(c.outputs.Y, b, h, i, col), FLOAT32_TOLERANCE, where);
          else {
            check.compare('Y vs float32 reference', y, p.expectedY(reference32.Y, b, h, i, col), FLOAT32_TOLERANCE, where);
            check.compare(`Y vs ${c.dtype}`, y, p.expectedY(c.outputs.Y, b, h, i, col), 2 * ulpsOf(c.dtype, largestY), where);
          }
        }
      }
      if (got.qk && c.outputs.qk_matmul_output) {
        const expected = c.outputs.qk_matmul_output;
        const largest = Math.max(...expected.data.filter(Number.isFinite).map(Math.abs));
        for (let i = 0; i < p.nq; i++) {
          for (let j = 0; j < p.nk; j++) {
            const where = `(b ${b}, head ${h}, query ${i}, key ${j})`;
            const qk = got.qk(b, h, i, j);
            if (c.dtype === 'float32') check.compare('qk_matmul_output', qk, p.at(expected, b, h, i, j), FLOAT32_TOLERANCE, where);
            else {
              check.compare('qk_matmul_output vs float32 reference', qk, p.at(reference32.qk_matmul_output, b, h, i, j), FLOAT32_TOLERANCE, where);
              check.compare(`qk_matmul_output vs ${c.dtype}`, qk, p.at(expected, b, h, i, j), 2 * ulpsOf(c.dtype, largest), where);
            }
          }
        }
      }
    }
    if (got.present && c.outputs.present_key) {
      for (let g = 0; g < p.kvHeads; g++) {
        for (let j = 0; j < p.nk; j++) {
          // A copy of the inputs: exact.
          for (let col = 0; col < p.d; col++)
            check.compare(
              'present_key',
              got.present.key(b, g, j, col),
              p.at(c.outputs.present_key, b, g, j, col),
              0,
              `(b ${b}, K/V head ${g}, key ${j}, column ${col})`,
            );
          for (let col = 0; col < p.dv; col++)
            check.compare(
              'present_value',
              got.present.value(b, g, j, col),
              p.at(c.outputs.present_value, b, g, j, col),
              0,
              `(b ${b}, K/V head ${g}, key ${j}, column ${col})`,
            );
        }
      }
    }
  }
}

// ---- The paths: each returns { Y, qk?, present? } as functions of (b, head, row, column) ----

// attention(): one head at a time (it has no heads option): head h's columns of Q, its K/V
// group's of K, V and the cache, the head's slice of a per-head mask. Its qk_matmul_output is
// `scaled` (mode 0/1 without softcap: it has no field for the capped scores), `logits` (mode 2)
// or `weights` (mode 3).
function viaAttention(p) {
  const results = [];
  for (let b = 0; b < p.batch; b++) {
    const item = p.item(b);
    results.push(
      Array.from({ length: p.heads }, (_, h) => {
        const g = p.groupOf(h);
        const request = { Q: columns(item.Q, h * p.d, p.d), K: columns(item.K, g * p.d, p.d), V: columns(item.V, g * p.dv, p.dv), ...item.rules };
        if (item.pastKey) Object.assign(request, { pastKey: columns(item.pastKey, g * p.d, p.d), pastValue: columns(item.pastValue, g * p.dv, p.dv) });
        if (item.mask) Object.assign(request, item.mask.boolean ? { mask: item.mask.of(h) } : { bias: item.mask.of(h) });
        return lab.attention(request);
      }),
    );
  }
  const mode = p.c.attributes.qk_matmul_output_mode ?? 0;
  const field = mode === 3 ? 'weights' : mode === 2 ? 'logits' : p.rules0.softcap ? null : 'scaled';
  return {
    Y: (b, h, i, col) => results[b][h].output[i][col],
    qk: field && ((b, h, i, j) => results[b][h][field][i][j]),
    qkNote: field ? undefined : 'attention() has no field for the capped scores: qk_matmul_output compared through trace() only',
  };
}

// trace(): every head in one request; a boolean mask the same for every head is `mask`, else the
// mask goes in as a bias (−Infinity where a boolean mask says no), one per head stacked when it
// differs per head. qk_matmul_output from the matching step: mode 0/1 the scaled (capped)
// scores, mode 2 with the bias and the rules' −Infinity, mode 3 the softmax. present_key and
// present_value are the K and V operands of each head's steps: the cache's rows, then the new.
function viaTrace(p) {
  const traces = [];
  for (let b = 0; b < p.batch; b++) {
    const item = p.item(b);
    const request = { Q: item.Q, K: item.K, V: item.V, heads: p.heads, kvHeads: p.kvHeads, ...item.rules };
    if (item.pastKey) Object.assign(request, { pastKey: item.pastKey, pastValue: item.pastValue });
    if (item.mask) Object.assign(request, item.mask.boolean && !item.mask.perHead ? { mask: item.mask.of(0) } : { bias: item.mask.asBias() });
    traces.push(lab.trace(request));
  }
  const stepOf = (b, h, ...ids) => {
    for (const id of ids) {
      const group = traces[b].groups.find((g) => g.id === id);
      if (group) return group.steps.find((s) => (s.head ?? 0) === h);
    }
    throw new Error(`the trace has none of the steps ${ids.join(', ')}`);
  };
  const mode = p.c.attributes.qk_matmul_output_mode ?? 0;
  const qkSteps = mode === 3 ? ['softmax'] : mode === 2 ? ['mask', 'bias', 'softcap', 'scale'] : ['softcap', 'scale'];
  const operand = (b, g, name, step) => {
    // Every query head of the group reads the same K/V head: check them all against it.
    const slices = [];
    for (let h = 0; h < p.heads; h++) {
      if (p.groupOf(h) !== g) continue;
      const o = stepOf(b, h, step).operands.find((x) => x.name === name);
      assert.equal(o.pastRows ?? 0, p.nPast, `${name} operand's pastRows`);
      slices.push(o.values);
    }
    for (const s of slices.slice(1)) assert.deepEqual(s, slices[0], `${name} operands of K/V head ${g}`);
    return slices[0];
  };
  const keys = [];
  const values = [];
  for (let b = 0; b < p.batch; b++) {
    keys.push(Array.from({ length: p.kvHeads }, (_, g) => operand(b, g, 'K', 'scores')));
    values.push(Array.from({ length: p.kvHeads }, (_, g) => operand(b, g, 'V', 'aggregate')));
  }
  return {
    Y: (b, h, i, col) => traces[b].output[i][h * p.dv + col],
    qk: (b, h, i, j) => stepOf(b, h, ...qkSteps).values[i][j],
    present: { key: (b, g, j, col) => keys[b][g][j][col], value: (b, g, j, col) => values[b][g][j][col] },
    traces,
    softmax: (b, h) => stepOf(b, h, 'softmax').values,
  };
}

// flashAttention() and naiveAttention(): no cache option, so K and V are the present ones
// ([past; new], which is what ONNX attends over), the queries placed by causalAlignment; no
// mask option, so every mask is a bias (per head stacked when it differs per head).
async function viaLongKernel(p, kernel) {
  const outputs = [];
  for (let b = 0; b < p.batch; b++) {
    const item = p.item(b);
    const request = { Q: item.Q, K: item.presentKey, V: item.presentValue, heads: p.heads, kvHeads: p.kvHeads, ...item.rules };
    if (item.mask) request.bias = item.mask.asBias();
    const result = await kernel(request);
    assert.equal(result.output.rows, p.nq);
    assert.equal(result.output.cols, p.heads * p.dv);
    outputs.push(unflatten(result.output));
  }
  return { Y: (b, h, i, col) => outputs[b][i][h * p.dv + col] };
}

// ---- The tests ----

test(`the dump holds the ${CASE_COUNT} Attention cases of onnx ${ONNX_VERSION}`, () => {
  assert.equal(dump.onnx, ONNX_VERSION);
  assert.equal(cases.length, CASE_COUNT);
  assert.equal(new Set(cases.map((c) => c.name)).size, CASE_COUNT);
  // Each option the framework table maps is exercised by some case.
  const seen = (f) => cases.some((c) => f(c, c.problem));
  for (const [option, f] of Object.entries({
    past_key: (c) => c.inputs.past_key,
    nonpad_kv_seqlen: (c) => c.inputs.nonpad_kv_seqlen,
    'a negative offset': (c, p) => [...Array(p.batch).keys()].some((b) => p.offset(b) < 0),
    'boolean mask per head': (c, p) => p.maskShape?.[1] > 1 && c.inputs.attn_mask.dtype === 'bool',
    'float mask per head': (c, p) => p.maskShape?.[1] > 1 && c.inputs.attn_mask.dtype !== 'bool',
    'a mask narrower than the keys': (c, p) => p.maskShape && p.maskShape[3] < p.nk,
    'grouped-query heads': (c, p) => p.kvHeads < p.heads,
    'a value width unlike the key width': (c, p) => p.dv !== p.d,
    'left and right window': (c) => c.attributes.left_window_size >= 0 && c.attributes.right_window_size >= 0,
    softcap: (c) => c.attributes.softcap > 0,
    'qk_matmul_output modes 0 to 3': () =>
      [0, 1, 2, 3].every((m) => cases.some((c) => c.outputs.qk_matmul_output && (c.attributes.qk_matmul_output_mode ?? 0) === m)),
  })) {
    assert.ok(seen(f), `no case has ${option}`);
  }
});

const paths = {
  'attention() (one head per call)': viaAttention,
  'trace()': viaTrace,
  'flashAttention()': (p) => viaLongKernel(p, (request) => lab.flashAttention(request)),
  'naiveAttention()': (p) => viaLongKernel(p, (request) => lab.naiveAttention(request)),
  // The WGSL kernel (attnlab/webgpu, on Dawn with SwiftShader as webgpu.test.js): flashAttention()'s
  // request, its rules from flashPlan().
  'attnlab/webgpu': (p) => viaLongKernel(p, (request) => held.gpu.attention(request)),
};

const traced = new Map(); // the trace path's results, for sampledWeights()

for (const [path, run] of Object.entries(paths)) {
  test(`ONNX's Attention cases through ${path}`, async (t) => {
    const failed = [];
    const notes = new Set();
    const worst = {};
    const refused = {};
    let passed = 0;
    for (const c of cases) {
      const unsupported = NOT_EXPRESSIBLE[path]?.(c.problem);
      if (unsupported) {
        const refusal = await run(c.problem).then(
          () => 'no refusal',
          (error) => error.message,
        );
        if (unsupported.refusal.test(refusal)) (refused[unsupported.reason] ??= []).push(c.name);
        else failed.push(`${c.name}: listed as not expressible (${unsupported.reason}) but got ${refusal}`);
        continue;
      }
      const check = new Check(c);
      try {
        const got = await run(c.problem);
        if (path === 'trace()') traced.set(c.name, got);
        if (got.qkNote && c.outputs.qk_matmul_output) notes.add(`${c.name}: ${got.qkNote}`);
        compareOutputs(check, c.problem, got);
      } catch (error) {
        check.failures.push(`refused or broke: ${error.message}`);
      }
      for (const [what, w] of Object.entries(check.worst)) {
        if (!worst[what] || w.d > worst[what].d) worst[what] = { ...w, name: c.name };
      }
      if (check.failures.length) failed.push(`${c.name}: ${check.failures.length} differences, first ${check.failures.slice(0, 3).join('; ')}`);
      else passed++;
    }
    const notExpressed = Object.values(refused).flat().length;
    t.diagnostic(`${path}: ${passed} of ${cases.length} cases pass${notExpressed ? `, ${notExpressed} not expressible` : ''}`);
    for (const [reason, names] of Object.entries(refused)) t.diagnostic(`  not expressible (${reason}): ${names.join(', ')}`);
    for (const [what, w] of Object.entries(worst)) t.diagnostic(`  worst |Δ| ${what}: ${w.d.toExponential(2)} (${w.name} ${w.where})`);
    for (const note of notes) t.diagnostic(`  ${note}`);
    assert.deepEqual(failed, [], `${path}: ${failed.length} of ${cases.length} cases fail`);
    assert.equal(passed + notExpressed, cases.length);
  });
}

// sampledWeights(): the weights of a few cells (the last and the first query, the last, first
// and middle key; every head) against the trace's softmax step of the same request, and against
// ONNX's own weights where the case asks for them (qk_matmul_output_mode 3). Its options are
// flashAttention()'s: the present K, the mask as a bias.
test("ONNX's Attention cases through sampledWeights() (a few cells per head)", (t) => {
  const failed = [];
  let passed = 0;
  let cells = 0;
  let worst = { d: 0 };
  for (const c of cases) {
    const p = c.problem;
    const check = new Check(c);
    try {
      const trace = traced.get(c.name) ?? viaTrace(p); // its own when run alone (--test-name-pattern)
      for (let b = 0; b < p.batch; b++) {
        const item = p.item(b);
        const rows = [...new Set([p.nq - 1, 0])];
        const cols = [...new Set([p.nk - 1, 0, Math.floor(p.nk / 2)])];
        for (let h = 0; h < p.heads; h++) {
          const request = { Q: item.Q, K: item.presentKey, heads: p.heads, kvHeads: p.kvHeads, ...item.rules, head: h, rows, cols };
          if (item.mask) request.bias = item.mask.asBias();
          const weights = lab.sampledWeights(request);
          const softmax = trace.softmax(b, h);
          const mode3 = c.attributes.qk_matmul_output_mode === 3 ? (c.dtype === 'float32' ? c.outputs : c.float32Reference).qk_matmul_output : null;
          rows.forEach((i, r) =>
            cols.forEach((j, col) => {
              const where = `(b ${b}, head ${h}, query ${i}, key ${j})`;
              check.compare('weight vs trace', weights[r][col], softmax[i][j], 1e-6, where);
              if (mode3) check.compare('weight vs ONNX', weights[r][col], p.at(mode3, b, h, i, j), FLOAT32_TOLERANCE, where);
              cells++;
            }),
          );
        }
      }
    } catch (error) {
      check.failures.push(`refused or broke: ${error.message}`);
    }
    for (const w of Object.values(check.worst)) if (w.d > worst.d) worst = { ...w, name: c.name };
    if (check.failures.length) failed.push(`${c.name}: ${check.failures.slice(0, 3).join('; ')}`);
    else passed++;
  }
  t.diagnostic(`sampledWeights(): ${passed} of ${cases.length} cases pass (${cells} cells)`);
  t.diagnostic(`  worst |Δ|: ${worst.d.toExponential(2)}${worst.name ? ` (${worst.name} ${worst.where})` : ''}`);
  assert.deepEqual(failed, [], `sampledWeights(): ${failed.length} of ${cases.length} cases fail`);
});
