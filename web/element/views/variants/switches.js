// The switches of the variants view, one entry per variant: whether it is on, the control
// that turns it on, the trace step it changes (opened when it is switched), and what it does
// and why, in a learner's words. The numbers quoted come from the core's trace.
import { html, nothing } from 'lit';

import { fmt } from '../../shared/format.js';
import { ALIGNMENT_QUERIES, CONTEXT_TOKENS, DEFAULT_BIAS, HEADS, TOKENS } from './example.js';

// The window's sides (keys behind, keys ahead) and the caps a learner can pick.
export const SIDES = [0, 1, 2, 3, 4, 5].map((n) => [n, String(n)]);
export const SOFTCAPS = [0.5, 1, 2, 5];

const checkbox = (id, label, checked, change, { disabled = false } = {}) =>
  html`<label><input type="checkbox" data-control=${id} .checked=${checked} ?disabled=${disabled} @change=${(e) => change({ [id]: e.target.checked })} />${label}</label>`;

const select = (id, label, options, value, change) =>
  html`<label>${label}
    <select data-control=${id} @change=${(e) => change({ [id]: Number(e.target.value) })}>
      ${options.map(([v, text]) => html`<option value=${v} ?selected=${v === value}>${text}</option>`)}
    </select></label>`;

// Which keys a window of w leaves a token, in words: |i − j| < w.
const windowReach = (w) =>
  w === 1
    ? 'each token attends only to itself'
    : `each token attends only to the tokens at most ${w - 1} ${w === 2 ? 'position' : 'positions'} away, itself included`;

// The ALiBi slopes, as the trace's bias steps report them.
const slopes = (trace) => trace.groups.find((g) => g.id === 'bias')?.steps.map((s) => fmt(s.slope)) ?? [];

export const VARIANTS = [
  {
    id: 'cross',
    on: (v) => v.cross,
    step: () => 'scores',
    control: (v, change) => checkbox('cross', 'Cross-attention', v.cross, change, { disabled: v.kvCache }),
    why: () =>
      `Cross-attention: the queries come from one sequence (the ${TOKENS.length} English tokens) and the keys and values from another (the ${CONTEXT_TOKENS.length} French ones), as a translation model's decoder reads its encoder's output. The scores are ${TOKENS.length}×${CONTEXT_TOKENS.length}: a row per query, a column per key of the other sequence.`,
  },
  {
    id: 'causal',
    on: (v) => v.causal && !v.kvCache,
    step: () => 'mask',
    control: (v, change) => checkbox('causal', 'Causal mask', v.causal || v.kvCache, change, { disabled: v.kvCache }),
    why: () => 'Causal: each token may attend only to itself and to earlier tokens, as in a model that writes text left to right.',
  },
  {
    id: 'rope',
    on: (v) => v.rope,
    step: () => 'rotate-q',
    control: (v, change) => checkbox('rope', 'RoPE', v.rope, change),
    why: () =>
      'RoPE adds nothing to X. It turns each head’s query and key, pair of numbers by pair, through an angle proportional to the token’s position. The dot product of two turned vectors depends only on the difference of their angles, so the score of tokens m and n depends on m − n: on how far apart they are, not on where they sit.',
  },
  {
    id: 'alibi',
    on: (v) => v.alibi,
    step: () => 'bias',
    control: (v, change) => checkbox('alibi', 'ALiBi', v.alibi, change),
    why: (_, trace) =>
      `ALiBi subtracts from each scaled score a penalty that grows linearly with the distance |i − j| between query and key, with one slope per head (here ${slopes(trace).join(', ')}): a steep head looks near, a gentle one far. Nothing is added to X, and no length is built in.`,
  },
  {
    id: 'window',
    on: (v) => v.window > 0,
    step: () => 'mask',
    control: (v, change) => html`${select(
      'window',
      'Sliding window',
      [
        [0, 'off'],
        [1, '1'],
        [2, '2'],
        [3, '3'],
        [4, '4'],
      ],
      v.window,
      change,
    )}
      ${checkbox('global', 'First token global', v.global, change, { disabled: v.window === 0 })}
      ${checkbox('asymmetric', 'Asymmetric', v.asymmetric, change, { disabled: v.window === 0 })}
      ${v.asymmetric && v.window > 0 ? html`${select('left', 'left (behind)', SIDES, v.left, change)} ${select('right', 'right (ahead)', SIDES, v.right, change)}` : nothing}`,
    why: (v) =>
      `${
        v.asymmetric
          ? `Asymmetric window { left: ${v.left}, right: ${v.right} }: token i attends to keys i − ${v.left} … i + ${v.right}, ${v.left} behind and ${v.right} ahead. With right = 0 it is causal by itself, as Mistral’s window is (left 4,095, nothing ahead); an encoder may look a little ahead as well.`
          : `Sliding window of ${v.window}: ${windowReach(v.window)} (|i − j| < ${v.window}), so the work grows like n × window rather than n².`
      } ${v.global ? `“${TOKENS[0]}” is global: it attends to every token and every token attends to it, so information can cross the windows.` : ''}`,
  },
  {
    id: 'softcap',
    on: (v) => v.softcap > 0,
    step: () => 'softcap',
    control: (v, change) => select('softcap', 'Softcap c', [[0, 'off'], ...SOFTCAPS.map((c) => [c, String(c)])], v.softcap, change),
    why: (v) =>
      `Softcap (Gemma 2): every scaled score s̃ becomes ${v.softcap}·tanh(s̃ / ${v.softcap}) before the softmax, so no score passes ±${v.softcap} (below: one row before and after).`,
  },
  {
    id: 'bias',
    on: (v) => Boolean(v.bias) && !v.cross,
    step: () => 'bias',
    control: (v, change) =>
      checkbox('bias', 'Additive bias', Boolean(v.bias), (partial) => change({ bias: partial.bias ? DEFAULT_BIAS : '' }), { disabled: v.cross }),
    why: () =>
      'An additive bias B is added to the scaled scores: a float attention mask (PyTorch’s float attn_mask, ONNX’s attn_mask) or a relative bias a model learned (T5). +1 pulls weight towards a key, −1 pushes it away, and −∞ blocks the key as a mask does: its weight is exactly 0. Click a cell of B (below) to change it.',
  },
  {
    id: 'alignments',
    on: (v) => v.alignments && !v.cross,
    step: () => 'mask',
    control: (v, change) => checkbox('alignments', 'Causal alignments, fewer queries than keys', v.alignments, change, { disabled: v.cross }),
    why: () =>
      `Causal alignments: with fewer queries than keys (below, the last ${ALIGNMENT_QUERIES} tokens’ queries against all ${TOKENS.length} keys) “causal” needs a rule for where the queries sit. Top-left puts query i at key i; bottom-right puts the queries at the end, query i at key i + ${TOKENS.length} − ${ALIGNMENT_QUERIES}.`,
  },
  {
    id: 'kvHeads',
    on: (v) => v.kvHeads < HEADS,
    step: () => 'scores',
    control: (v, change) =>
      select(
        'kvHeads',
        'K/V heads',
        [
          [4, '4: one per head'],
          [2, '2: grouped-query'],
          [1, '1: multi-query'],
        ],
        v.kvHeads,
        change,
      ),
    why: (v) =>
      `${v.kvHeads === 1 ? 'Multi-query' : 'Grouped-query'} attention: the ${HEADS} query heads share ${v.kvHeads} ${v.kvHeads === 1 ? 'key and value head' : 'key and value heads'}, ${HEADS / v.kvHeads} heads to each. W_K and W_V project to fewer columns, and the heads of one group score their own queries against the same Kᵀ. The KV cache shrinks by the group size (below).`,
  },
  {
    id: 'dropout',
    on: (v) => v.dropout > 0,
    step: () => 'dropout',
    control: (v, change) =>
      select(
        'dropout',
        'Dropout p',
        [
          [0, 'off'],
          [0.1, '0.1'],
          [0.25, '0.25'],
          [0.5, '0.5'],
        ],
        v.dropout,
        change,
      ),
    why: (v) =>
      `Dropout, used only in training: each weight is zeroed with probability ${v.dropout}, and the survivors are divided by 1 − p = ${fmt(1 - v.dropout)} so that a row still sums to 1 on average. Any one row now sums to something else: see the Σ column. The seed fixes which weights drop.`,
  },
  {
    id: 'kvCache',
    on: (v) => v.kvCache,
    step: () => 'softmax',
    control: (v, change) => checkbox('kvCache', 'KV cache: generate token by token', v.kvCache, change, { disabled: v.cross }),
    why: () => 'KV cache: the same causal attention, computed as a decoder generates it, one token at a time (below).',
  },
];
