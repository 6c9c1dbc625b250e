// The NumPy and PyTorch exports of every step of ≥ 500 random element states, over every
// option and attention family the stepper can show (support/export-states.js), run by Python and compared with
// the trace the core returned (the numbers on screen): the oracle is the core, never the
// export. The NumPy exports run under Debian's python3-numpy; the PyTorch exports under a
// NumPy-backed stand-in of the few torch functions they use (support/torch-standin), so CI
// needs no torch. ATTNLAB_TORCH_PYTHON=/path/to/python (a Python with torch) runs the PyTorch
// exports of the first ATTNLAB_TORCH_STATES (default 100) states against real PyTorch instead
// (web/element/README.md, "Exports"); ATTNLAB_NUMPY_PYTHON runs the NumPy exports under
// another Python (NumPy 2, say).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';

import { createAttnLab } from '../../dist/attnlab.js';
import { traceRequest } from '../../web/element/state.js';
import { exportProblem, fromJson, numpyCode, pytorchCode } from '../../web/element/steps/export.js';
import { randomState, seeded } from './support/export-states.js';

const STATES = 520;
const TOLERANCE = 1e-5; // |got − want| ≤ 1e-5 · max(1, |want|): float32 sums in another order
const RUNNER = new URL('./support/run-exports.py', import.meta.url).pathname;

const lab = await createAttnLab();
await lab.loadLearning(); // the backward steps

// The built core takes an integer causalAlignment (query 0's key) where it has it.
const numericAlignment = (() => {
  try {
    lab.trace({ Q: [[1]], K: [[1]], V: [[1]], causal: true, causalAlignment: 0 });
    return true;
  } catch {
    return false;
  }
})();

// The traces of the random states: each state through the element's own state → request
// mapping, with a seeded ∂L/∂Y when the state runs backward.
function traces() {
  const random = seeded(20261201);
  const out = [];
  const refused = [];
  while (out.length < STATES) {
    const state = randomState(random, { numericAlignment });
    const request = traceRequest(state);
    try {
      const forward = lab.trace(request);
      if (!state.backward) {
        out.push({ state, trace: forward });
        continue;
      }
      const dOutput = forward.output.map((row) => row.map(() => Math.round((random() * 2 - 1) * 100) / 100));
      out.push({ state, trace: lab.trace({ ...request, dOutput }) });
    } catch (error) {
      refused.push(error.message); // a combination the core refuses: not on screen, nothing to export
    }
  }
  return { cases: out, refused };
}

const { cases, refused } = traces();

/** Runs the scripts in one Python process; returns each one's { results, dtypes } or { error }. */
function runAll(python, scripts, flags = []) {
  const text = execFileSync(python, [RUNNER, ...flags], { input: JSON.stringify(scripts), encoding: 'utf8', maxBuffer: 1 << 30 });
  // "-Infinity" back to -Infinity, the JSON export's convention (fromJson's, for its own layout).
  const revive = (values) => fromJson(JSON.stringify([{ values }]))[0].values;
  return JSON.parse(text).map((out) => (out.results ? { ...out, results: out.results.map(revive) } : out));
}

// Every step of every case, with the numbers the core put on screen for it.
const jobs = cases.flatMap(({ state, trace }, index) => trace.groups.map(({ id, steps }) => ({ index, state, trace, id, want: steps.map((s) => s.values) })));

/** Compares what each script computed with the trace; returns the worst differences. */
function compare(outputs, chosen, label, { dtype }) {
  const worst = { abs: 0, rel: 0, absWhere: '', relWhere: '' };
  outputs.forEach((output, i) => {
    const { index, id, want, state } = chosen[i];
    const where = `${label}, state ${index}, step ${id}`;
    assert.ok(!output.error, `${where}: ${output.error}\n${JSON.stringify(state)}`);
    assert.equal(output.results.length, want.length, `${where}: one result per head`);
    output.dtypes.forEach((d) => assert.equal(d, dtype, `${where}: float32 results`));
    output.results.forEach((got, h) => {
      assert.deepEqual([got.length, got[0].length], [want[h].length, want[h][0].length], `${where}, head ${h + 1}: shape`);
      got.forEach((row, r) =>
        row.forEach((v, c) => {
          const w = want[h][r][c];
          if (v === w) return; // equal, −∞ included
          const abs = Math.abs(v - w);
          assert.ok(abs <= TOLERANCE * Math.max(1, Math.abs(w)), `${where}, head ${h + 1}, cell (${r}, ${c}): ${v} vs the core's ${w}`);
          if (abs > worst.abs) Object.assign(worst, { abs, absWhere: `${where} (${w})` });
          const rel = abs / Math.max(1, Math.abs(w));
          if (rel > worst.rel) Object.assign(worst, { rel, relWhere: where });
        }),
      );
    });
  });
  return worst;
}

const figures = (worst) =>
  `worst |diff| ${worst.abs.toExponential(2)} (${worst.absWhere}), worst |diff| / max(1, |value|) ${worst.rel.toExponential(2)} (${worst.relWhere})`;

test(`≥ ${STATES} random states cover every option, and every step of each can be exported`, () => {
  const has = (check) => cases.filter(({ state }) => check(state)).length;
  const coverage = {
    qkv: has((s) => s.mode === 'qkv'),
    positional: has((s) => s.positional === 'sinusoidal'),
    context: has((s) => s.context),
    heads: has((s) => s.heads > 1),
    kvHeads: has((s) => s.kvHeads && s.kvHeads !== s.heads),
    causal: has((s) => s.causal),
    bottomRight: has((s) => s.causal && s.causalAlignment === 'bottom-right'),
    window: has((s) => s.window),
    globalTokens: has((s) => s.globalTokens),
    keyPadding: has((s) => s.keyPadding?.includes(true)),
    mask: has((s) => s.mask),
    bias: has((s) => s.bias),
    biasPerHead: has((s) => s.bias && s.heads > 1 && s.bias.length === s.heads * (s.X ?? s.Q).length),
    alibi: has((s) => s.alibi),
    alibiWithCache: has((s) => s.alibi && s.pastKey),
    softcap: has((s) => s.softcap),
    temperature: has((s) => s.temperature !== 1),
    scale: has((s) => s.scale !== true),
    rope: has((s) => s.rope),
    dropout: has((s) => s.dropout),
    pastKey: has((s) => s.pastKey),
    Wo: has((s) => s.Wo),
    backward: has((s) => s.backward),
    linearElu: has((s) => s.family === 'linear' && s.featureMap === 'elu'),
    linearRelu: has((s) => s.family === 'linear' && s.featureMap === 'relu'),
    favor: has((s) => s.featureMap === 'favor'),
    linearCausal: has((s) => s.family === 'linear' && s.causal),
    retention: has((s) => s.family === 'retention'),
    ...(numericAlignment ? { numericAlignment: has((s) => typeof s.causalAlignment === 'number') } : {}),
  };
  for (const [option, count] of Object.entries(coverage)) assert.ok(count >= 5, `${option}: only ${count} states`);
  assert.ok(cases.length >= 500);
  assert.ok(refused.length < cases.length / 2, `the core refused ${refused.length} states: ${refused.slice(0, 3).join('; ')}`);
  for (const { trace, index, id } of jobs) assert.equal(exportProblem(trace, id), null, `state ${index}, ${id}`);
});

test('every NumPy export runs under python3-numpy and computes the core’s numbers', (t) => {
  const outputs = runAll(
    process.env.ATTNLAB_NUMPY_PYTHON ?? '/usr/bin/python3',
    jobs.map(({ trace, id }) => numpyCode(trace, id)),
  );
  const worst = compare(outputs, jobs, 'NumPy', { dtype: 'float32' });
  t.diagnostic(`${cases.length} states, ${jobs.length} steps; ${figures(worst)}; ${refused.length} states refused by the core`);
});

const torchPython = process.env.ATTNLAB_TORCH_PYTHON;

test(`every PyTorch export compiles and computes the core’s numbers (${torchPython ? 'real PyTorch' : 'NumPy-backed stand-in of torch'})`, (t) => {
  const chosen = torchPython ? jobs.filter((job) => job.index < Number(process.env.ATTNLAB_TORCH_STATES ?? 100)) : jobs;
  const outputs = runAll(
    torchPython ?? '/usr/bin/python3',
    chosen.map(({ trace, id }) => pytorchCode(trace, id)),
    torchPython ? [] : ['--torch-standin'],
  );
  const worst = compare(outputs, chosen, torchPython ? 'PyTorch' : 'PyTorch stand-in', { dtype: torchPython ? 'torch.float32' : 'float32' });
  t.diagnostic(`${new Set(chosen.map((j) => j.index)).size} states, ${chosen.length} steps; ${figures(worst)}`);
});

test('an export that cannot be written is refused with its reason, never written otherwise', () => {
  const { trace } = cases.find((c) => c.trace.groups.some((g) => g.id === 'mask'));
  // A mask step without its table of blocked cells: the export must not guess them.
  const steps = trace.steps.map((s) => (s.id === 'mask' ? { ...s, blockedBy: undefined } : s));
  const broken = {
    ...trace,
    steps,
    groups: trace.groups.map((g) => ({ ...g, steps: g.steps.map((s) => (s.id === 'mask' ? { ...s, blockedBy: undefined } : s)) })),
  };
  assert.match(exportProblem(broken, 'mask'), /lacks blocked_by/);
  assert.throws(() => numpyCode(broken, 'mask'), /no NumPy export: .*blocked_by/);
  assert.match(exportProblem(trace, 'attention-sink') ?? '', /no step “attention-sink”/);
  // A step the export does not know (a new trace step): refused until its math is written.
  const renamed = { ...trace, groups: [...trace.groups, { id: 'new-step', title: 'New', steps: [{ ...trace.steps[0], id: 'new-step' }] }] };
  assert.match(exportProblem(renamed, 'new-step'), /does not know the step “new-step”/);
});
