// The efficient view's parts below the weights: the plain sentences about the numbers on view,
// the cost at this n and as n grows, and the recurrent forms stepped token by token beside the
// KV cache. They draw the core's results (efficient.js computes them) and count sizes.
import { html, nothing } from 'lit';

import { lineChart } from '../../../shared/chart.js';
import { fmt, fmtWide, shape, sub, subscripted } from '../../../shared/format.js';
import { matrixTable } from '../../../shared/matrix-table.js';
import { indexLabels } from '../../../steps/panels.js';
import { causalOf, COST_SIZES, flopsAt } from './families.js';

const FLOAT32 = 4;
const count = (x) => Math.round(x).toLocaleString('en-US');
const bytesText = (bytes) =>
  bytes >= 1024 ** 3
    ? `${fmt(bytes / 1024 ** 3)} GiB`
    : bytes >= 1024 ** 2
      ? `${fmt(bytes / 1024 ** 2)} MiB`
      : bytes >= 1024
        ? `${fmt(bytes / 1024)} KiB`
        : `${bytes} B`;

// The largest entry of a list and its index.
const largest = (values) => values.reduce((best, x, i) => (x > best.value ? { value: x, index: i } : best), { value: -Infinity, index: 0 });

/** Row sums of the family's weights (min, max) and how many cells are negative. */
function rowFacts(weights) {
  const sums = weights.map((row) => row.reduce((a, b) => a + b, 0));
  const negative = weights.reduce((c, row) => c + row.filter((w) => w < 0).length, 0);
  return { low: Math.min(...sums), high: Math.max(...sums), negative };
}

/** Short sentences, each true of the numbers on view. */
export function renderSentences(v, r) {
  const { queries } = r.inputs;
  const n = r.weights.length;
  const worst = largest(r.rowErrors.map((e) => e.maxAbs));
  const out = fmtWide(r.outputErrors.frobenius);
  const lines = [];
  const worstLine = `The largest weight error is ${fmtWide(worst.value)}, in ${queries[worst.index]}'s row; the output is off by ‖O − O_exact‖ = ${out} (Frobenius).`;
  if (r.distribution) {
    const kls = r.rowErrors.map((e) => e.kl).filter((kl) => kl !== null);
    if (kls.length)
      lines.push(
        `Rows of both are distributions (≥ 0, summing to 1), so KL(family ‖ softmax) measures the gap: at most ${fmtWide(Math.max(...kls))} nats here.`,
      );
  }
  if (v.family === 'linear' || v.family === 'favor') {
    lines.unshift(worstLine);
    if (v.family === 'linear')
      lines.push(
        `φ(q)·φ(k) is a different kernel from exp(q·k·s), so these weights do not converge to softmax's: they are another model. The regrouping turns n × n work into a ${shape(r.linear.kvState.length, r.linear.kvState[0].length)} state.`,
      );
    else lines.push(`With m = ${v.features} random features φ(q)·φ(k) estimates exp(q·k·s); raise m and the error shrinks, roughly as 1/√m.`);
    if (r.linear.zeroNormalizerRows.length)
      lines.push(`${r.linear.zeroNormalizerRows.length} rows met no key at all (normaliser 0): their weights and output are zeros.`);
  } else if (v.family === 'retention') {
    const f = rowFacts(r.weights);
    lines.push(
      `These are decay-weighted scores, not probabilities: their rows sum from ${fmt(f.low)} to ${fmt(f.high)} and ${f.negative} of the ${(n * (n + 1)) / 2} visible cells are negative. No softmax, no normaliser.`,
    );
    lines.push(
      `So retention is not an approximation of softmax: its output differs from causal softmax's by ‖O − O_exact‖ = ${out} (Frobenius). What it buys is a ${shape(r.retention.state.length, r.retention.state[0].length)} state, the same at every n.`,
    );
  } else if (v.family === 'svd') {
    const { spectrumError, weightsError, singularValues } = r.lowRank;
    const f = rowFacts(r.weights);
    lines.push(
      `The dropped singular values give √(Σ σᵢ² over i > ${v.rank}) = ${fmtWide(spectrumError)}; measured cell by cell, ‖A − A_k‖ = ${fmtWide(weightsError)}: the same, as Eckart–Young says.`,
    );
    lines.push(
      `σ₁ = ${fmt(singularValues[0])} and σ${sub(v.rank - 1)} = ${fmt(singularValues[v.rank - 1])}${v.rank < singularValues.length ? `; the first dropped is ${fmt(singularValues[v.rank])}` : ': nothing is dropped, A_k is A'}.`,
    );
    lines.push(
      `A_k is no softmax: its rows sum from ${fmt(f.low)} to ${fmt(f.high)} and ${f.negative} cells are negative. The SVD needs A itself, so it saves nothing: it shows how much of A lives in k directions.`,
    );
    lines.push(worstLine);
  } else if (v.family === 'linformer') {
    const f = rowFacts(r.weights);
    lines.push(
      `The scores are ${shape(n, v.rank)} instead of ${shape(n, r.weights[0].length)}. E and F are random here (seeded), not learned, so the error stays even at k = n.`,
    );
    lines.push(`Its implied weights sum from ${fmt(f.low)} to ${fmt(f.high)} per row and ${f.negative} are negative.`);
    lines.push(worstLine);
  } else {
    const p = r.pattern;
    lines.push(
      `Each query may attend to ${Math.min(...p.keysPerQuery)} to ${Math.max(...p.keysPerQuery)} of the ${p.mask[0].length} keys: ${p.nonzeros} of ${p.mask.length * p.mask[0].length} cells (density ${fmt(p.density)}), so ${count(p.flops)} FLOPs instead of ${count(p.denseFlops)}${causalOf(v) ? ' (the pattern’s counts, before the causal rule drops the later keys)' : ''}.`,
    );
    lines.push(`A hidden key's weight is shared out among the keys the pattern keeps. ${worstLine}`);
  }
  if (causalOf(v) && v.family === 'svd') lines.push('Causal: softmax’s query i sees keys 1 … i, but A_k is not causal: it puts weight on later keys.');
  else if (causalOf(v) && v.family !== 'retention') lines.push('Causal: query i sees keys 1 … i in both matrices.');
  return html`<div class="why" data-role="sentences">${lines.map((line) => html`<p>${subscripted(line)}</p>`)}</div>`;
}

// The feature count f of the linear families' state (d for elu/relu and retention, m for FAVOR+).
const featuresOf = (v, r) => (v.family === 'favor' ? v.features : r.inputs.K[0].length);

/** FLOPs and bytes at this n (the family's own) and as n grows (exact, linear, low rank). */
export function renderCost(v, r) {
  const n = r.weights.length;
  const d = r.inputs.K[0].length;
  const f = featuresOf(v, r);
  const here = flopsAt(n, d, { features: f, rank: v.rank });
  const family = {
    linear: [here.linear, (f * d + f) * FLOAT32, `the ${shape(f, d)} state and the ${f} normaliser`],
    favor: [here.linear, (f * d + f) * FLOAT32, `the ${shape(f, d)} state and the ${f} normaliser`],
    retention: [here.linear, f * d * FLOAT32, `the ${shape(f, d)} state`],
    svd: [here.exact, n * n * FLOAT32, 'A itself, before its SVD'],
    linformer: [here.lowRank, n * v.rank * FLOAT32, `the ${shape(n, v.rank)} scores`],
    bigbird: [r.pattern?.flops, (r.pattern?.nonzeros ?? 0) * FLOAT32, 'the allowed cells'],
    strided: [r.pattern?.flops, (r.pattern?.nonzeros ?? 0) * FLOAT32, 'the allowed cells'],
  }[v.family];
  const sizes = [...new Set([n, ...COST_SIZES])].sort((a, b) => a - b);
  const rows = sizes.map((size) => ({ size, ...flopsAt(size, d, { features: f, rank: v.rank }) }));
  const series = [
    { id: 'exact', label: 'exact 4·n²·d', points: rows.map((x) => [x.size, x.exact]) },
    { id: 'linear', label: `linear 4·n·${v.family === 'favor' ? 'm' : 'd'}·d`, points: rows.map((x) => [x.size, x.linear]) },
    { id: 'low-rank', label: 'Linformer 8·n·k·d (dashed)', dashed: true, points: rows.map((x) => [x.size, x.lowRank]) },
  ];
  const all = rows.flatMap((x) => [x.exact, x.linear, x.lowRank]);
  return html`<section data-role="cost">
    <h3>What it costs</h3>
    <p data-role="cost-here" data-flops=${String(family[0])} data-exact-flops=${String(here.exact)}>
      At n = ${n}, d = ${d}: exact attention takes ${count(here.exact)} FLOPs and holds ${bytesText(n * n * FLOAT32)} of n × n weights
      (float32). This family takes ${count(family[0])} FLOPs and holds ${bytesText(family[1])}: ${family[2]}.
    </p>
    <div class="figures">
      <div class="scroll-x"><table class="cost" data-role="cost-table">
        <caption>FLOPs of one head as n grows (d = ${d}, f = ${f}, k = ${v.rank})</caption>
        <thead><tr><th scope="col">n</th><th scope="col">exact</th><th scope="col">linear</th><th scope="col">Linformer</th></tr></thead>
        <tbody>${rows.map((x) => html`<tr data-n=${x.size}><th scope="row">${count(x.size)}</th><td data-exact=${x.exact}>${fmtWide(x.exact)}</td><td data-linear=${x.linear}>${fmtWide(x.linear)}</td><td data-low-rank=${x.lowRank}>${fmtWide(x.lowRank)}</td></tr>`)}</tbody>
      </table></div>
      ${lineChart({
        title: 'FLOPs against n, log-log',
        x: { label: 'n (tokens)', domain: [sizes[0], sizes.at(-1)], type: 'log' },
        y: { label: 'FLOPs', domain: [Math.min(...all), Math.max(...all)], type: 'log' },
        series,
      })}
    </div>
    <p>Exact attention grows as n², the linear families as n (their state does not grow), Linformer as n·k. A sparse pattern costs 4·d per allowed cell.</p>
  </section>`;
}

/** The recurrent form at token t: the state S_t (and z_t), its output row beside the parallel form's, and the KV cache's growth. */
export function renderRecurrent({ v, r, onToken }) {
  const { token: t, state, normalizer, output } = r.step;
  const n = r.weights.length;
  const { queries } = r.inputs;
  const dv = state[0].length;
  const stateBytes = (state.length * dv + (normalizer?.length ?? 0)) * FLOAT32;
  const linear = normalizer !== null;
  const tokens = [...new Set([t + 1, n, 1024, 65536])].sort((a, b) => a - b);
  return html`<section data-role="recurrent">
    <h3>The recurrent form, token by token: ${queries[t]}, token ${t + 1} of ${n}</h3>
    <div class="controls" role="group" aria-label="Token">
      <button data-action="prev-token" ?disabled=${t === 0} @click=${() => onToken(t - 1)}>◀ Previous token</button>
      <button data-action="next-token" ?disabled=${t === n - 1} @click=${() => onToken(t + 1)}>Next token ▶</button>
    </div>
    <p>${
      linear
        ? `After token ${t + 1}, S${sub(t)} = S${sub(t - 1)} + φ(k${sub(t)})v${sub(t)}ᵀ and z${sub(t)} = z${sub(t - 1)} + φ(k${sub(t)}): one addition per token, then o = φ(q)ᵀS / φ(q)ᵀz.`
        : `After token ${t + 1}, S${sub(t)} = ${fmt(v.decay)}·S${sub(t - 1)} + k${sub(t)}ᵀv${sub(t)}: the old state fades by γ, the new token adds its outer product, then o = q·S.`
    }
      The state is ${shape(state.length, dv)} whatever the token; softmax's KV cache grows by a row of K and of V per token.</p>
    <div class="matrices">
      ${matrixTable({ name: 'state', caption: `S${sub(t)} (${shape(state.length, dv)})`, values: state, rowLabels: indexLabels(state.length), colLabels: indexLabels(dv) })}
      ${linear ? matrixTable({ name: 'normalizer', caption: `z${sub(t)} (${normalizer.length})`, values: [normalizer], rowLabels: ['z'], colLabels: indexLabels(normalizer.length) }) : nothing}
      ${matrixTable({ name: 'recurrent-output', caption: `o${sub(t)}, from the state`, values: [output], rowLabels: [queries[t]], colLabels: indexLabels(dv) })}
      ${matrixTable({ name: 'parallel-output', caption: `row ${t + 1} of the parallel form`, values: [r.output[t]], rowLabels: [queries[t]], colLabels: indexLabels(dv) })}
    </div>
    <div class="scroll-x"><table class="cost" data-role="cache-growth">
      <caption>Memory carried from token to token (float32)</caption>
      <thead><tr><th scope="col">tokens so far</th><th scope="col">softmax's KV cache</th><th scope="col">this state</th></tr></thead>
      <tbody>${tokens.map((k) => html`<tr data-tokens=${k}><th scope="row">${count(k)}</th><td data-bytes=${k * r.kvBytesPerToken}>${bytesText(k * r.kvBytesPerToken)}</td><td data-bytes=${stateBytes}>${bytesText(stateBytes)}</td></tr>`)}</tbody>
    </table></div>
  </section>`;
}
