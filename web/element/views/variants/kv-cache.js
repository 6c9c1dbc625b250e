// The KV cache part of the variants view: generation token by token (lab.decode), where
// each new token adds one row to the cached K and V and only its own query row is computed;
// and the cache's size per token for the toy and for real models (lab.kvCacheBytes).
import { html, nothing } from 'lit';

import { WEIGHT_SCALE } from '../../shared/colors.js';
import { fmt, sub } from '../../shared/format.js';
import { matrixTable } from '../../shared/matrix-table.js';
import { indexLabels as features } from '../../steps/panels.js';
import { HEAD_WIDTH, TOKENS } from './example.js';

// Published configurations (layers, query heads, K/V heads, head width), their caches held
// in 16 bits a value (fp16 or bf16), as these models usually run.
const MODELS = [
  { name: 'Llama 2 7B', layers: 32, heads: 32, kvHeads: 32, headWidth: 128 },
  { name: 'Mistral 7B', layers: 32, heads: 32, kvHeads: 8, headWidth: 128 },
  { name: 'Llama 2 70B', layers: 80, heads: 64, kvHeads: 8, headWidth: 128 },
  { name: 'Falcon 7B', layers: 32, heads: 71, kvHeads: 1, headWidth: 64 },
];
const FP16 = { bytes: 2, type: 'fp16 or bf16' };
const FLOAT32 = { bytes: 4, type: 'float32' };

const bytesText = (bytes) => (bytes >= 1024 * 1024 ? `${fmt(bytes / (1024 * 1024))} MiB` : bytes >= 1024 ? `${fmt(bytes / 1024)} KiB` : `${bytes} B`);

/**
 * The decode walk at `position` for `head`: the new rows, the cache they join, the weights
 * row and the output row, beside row `position` of the full causal trace (`fullOutput`).
 */
export function renderDecode({ decode, position: asked, head, kvHeads, fullOutput, past, rope, onPosition, onHead, onPast }) {
  // Decoding from a cache starts at token past + 1: an earlier position shows the first one.
  const position = Math.max(asked, past);
  const step = decode.steps[position - past];
  const h = step.heads[head];
  const seen = TOKENS.slice(0, position + 1);
  const last = { rows: [position] };
  return html`<section data-role="kv-cache">
    <h3>The KV cache: generating “${TOKENS[position]}”, token ${position + 1} of ${TOKENS.length}</h3>
    <div class="controls" role="group" aria-label="Generated token">
      <button data-action="prev-token" ?disabled=${position === past} @click=${() => onPosition(position - 1)}>◀ Previous token</button>
      <button data-action="next-token" ?disabled=${position === TOKENS.length - 1} @click=${() => onPosition(position + 1)}>Next token ▶</button>
      <label>Head
        <select data-control="head" @change=${(e) => onHead(Number(e.target.value))}>
          ${step.heads.map((_, i) => html`<option value=${i} ?selected=${i === head}>${i + 1}</option>`)}
        </select></label>
      <label title=${rope ? 'The core takes no past cache with RoPE yet: switch RoPE off' : ''}>Continue from a cache of the first
        <select data-control="past" ?disabled=${rope} @change=${(e) => onPast(Number(e.target.value))}>
          ${TOKENS.slice(0, -1).map((_, k) => html`<option value=${k} ?selected=${k === past}>${k === 0 ? 'none' : `${k} ${k === 1 ? 'token' : 'tokens'}`}</option>`)}
        </select></label>
    </div>
    <p data-role="why">
      A decoder makes one token at a time, and with the causal mask no earlier row ever changes. So it keeps every earlier
      token's k and v (the cache), appends the new token's, and computes only the new query's row: ${position + 1} scores
      instead of a ${position + 1}×${position + 1} matrix.${
        kvHeads < step.heads.length
          ? ` With ${kvHeads} K/V ${kvHeads === 1 ? 'head' : 'heads'} for ${step.heads.length} query heads, each cached K and V serves ${step.heads.length / kvHeads} query heads.`
          : ''
      }
    </p>
    <div class="matrices">
      ${matrixTable({ name: 'decode-q', caption: `q${sub(position)}, the new query`, values: h.q, rowLabels: [TOKENS[position]], colLabels: features(HEAD_WIDTH) })}
      ${matrixTable({ name: 'decode-keys', caption: `cached K (${position + 1}×${HEAD_WIDTH}), new row marked`, values: h.keys, rowLabels: seen, colLabels: features(HEAD_WIDTH), highlight: last })}
      ${matrixTable({ name: 'decode-values', caption: `cached V (${position + 1}×${HEAD_WIDTH})`, values: h.values, rowLabels: seen, colLabels: features(HEAD_WIDTH), highlight: last })}
      ${matrixTable({ name: 'decode-weights', caption: 'its weights, one row', values: h.weights, rowLabels: [TOKENS[position]], colLabels: seen, scale: WEIGHT_SCALE })}
      ${matrixTable({ name: 'decode-output', caption: 'its output row', values: h.output, rowLabels: [TOKENS[position]], colLabels: features(HEAD_WIDTH) })}
    </div>
    ${past > 0 ? renderContinued(decode, fullOutput, past) : nothing}
    <div class="matrices" data-role="decode-check">
      ${matrixTable({ name: 'decode-row', caption: 'this token, from the cache', values: step.output, rowLabels: [TOKENS[position]], colLabels: features(step.output[0].length) })}
      ${matrixTable({ name: 'full-row', caption: `row ${position + 1} of full causal attention`, values: [fullOutput[position]], rowLabels: [TOKENS[position]], colLabels: features(fullOutput[position].length) })}
    </div>
  </section>`;
}

// Decoding that continues from a given cache (decode() with pastKey and pastValue): its rows
// beside the last rows of the full causal trace, both the core's.
function renderContinued(decode, fullOutput, past) {
  const rows = TOKENS.slice(past);
  const cols = features(fullOutput[0].length);
  return html`<p data-role="continued-why">
      The decoder was handed the K and V of the first ${past} ${past === 1 ? 'token' : 'tokens'} as a past cache (lab.decode()’s pastKey and pastValue) and only
      the ${rows.length} new tokens: each new query sits after the cached keys (bottom-right), and its rows equal the last
      ${rows.length} rows of full causal attention over all ${TOKENS.length}.
    </p>
    <div class="matrices" data-role="continued-check">
      ${matrixTable({ name: 'continued-output', caption: `decoded from the cache of ${past}`, values: decode.output, rowLabels: rows, colLabels: cols })}
      ${matrixTable({ name: 'continued-full', caption: `rows ${past + 1}–${TOKENS.length} of full causal attention`, values: fullOutput.slice(past), rowLabels: rows, colLabels: cols })}
    </div>`;
}

/** Bytes of K and V cached per token: the toy beside real models, and each as if every head had its own K and V. */
export function renderCacheBytes(lab, kvHeads) {
  const perToken = (layers, heads, headWidth, bytesPerValue) => lab.kvCacheBytes({ layers, kvHeads: heads, headWidth, bytesPerValue });
  const rows = [{ name: 'This example', layers: 1, heads: 4, kvHeads, headWidth: HEAD_WIDTH, value: FLOAT32 }, ...MODELS.map((m) => ({ ...m, value: FP16 }))];
  return html`<section data-role="kv-bytes">
    <h3>What the cache costs per token</h3>
    <div class="scroll-x"><table class="bytes">
      <thead><tr><th scope="col">Model</th><th scope="col">layers</th><th scope="col">query heads</th><th scope="col">K/V heads</th><th scope="col">head width</th><th scope="col">bytes a value</th><th scope="col">cache per token</th><th scope="col">with a K/V per head</th></tr></thead>
      <tbody>
        ${rows.map((r) => {
          const shared = perToken(r.layers, r.kvHeads, r.headWidth, r.value.bytes);
          const full = perToken(r.layers, r.heads, r.headWidth, r.value.bytes);
          return html`<tr data-model=${r.name}>
            <th scope="row">${r.name}</th><td>${r.layers}</td><td>${r.heads}</td><td>${r.kvHeads}</td><td>${r.headWidth}</td>
            <td data-bytes-per-value=${String(r.value.bytes)}>${r.value.bytes} (${r.value.type})</td>
            <td data-value=${String(shared)}>${bytesText(shared)}</td><td data-value=${String(full)}>${bytesText(full)}</td>
          </tr>`;
        })}
      </tbody>
    </table></div>
    <p>K and V are cached for every layer and every K/V head: 2 × layers × K/V heads × head width values per token, each of
      the bytes its row states. This example computes in float32 (4 bytes a value); the models' rows take a 16-bit cache (fp16
      or bf16, 2 bytes a value), as they usually run. Sharing K and V across query heads (multi-query: one K/V head;
      grouped-query: a few) divides the cache by the group size.</p>
  </section>`;
}
