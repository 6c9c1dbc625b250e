// Calls the package refuses at run time, each rejected by the typings too: the line after
// each expect-error directive must fail to compile (tsc reports a directive with nothing to
// reject). One per rule that the request's types can say; ranges and shapes are the core's
// alone. At the end: an error code (only the typings check it) and the element's state
// (setState throws a StateError).
import { AttnLabError, createAttnLab } from 'attnlab';
import type { Matrix } from 'attnlab';

declare const X: Matrix, Wq: Matrix, Wk: Matrix, Wv: Matrix, Q: Matrix, K: Matrix, V: Matrix, dOutput: Matrix;
const lab = await createAttnLab();

// A trace takes X with Wq, Wk, Wv or Q, K, V, not a mix, and nothing half given.
// @ts-expect-error: X and Q together
lab.trace({ X, Wq, Wk, Wv, Q });
// @ts-expect-error: Q, K and V with a weight
lab.trace({ Q, K, V, Wq });
// @ts-expect-error: Q, K and V with a context (cross-attention projects it)
lab.trace({ Q, K, V, context: X });
// @ts-expect-error: X without Wq
lab.trace({ X, Wk, Wv });
// @ts-expect-error: Q and K without V
lab.trace({ Q, K });
// @ts-expect-error: the sinusoidal encoding needs X
lab.trace({ Q, K, V, positional: 'sinusoidal' });
// @ts-expect-error: decode() takes the trace's inputs the same way
lab.decode({ X, Wq, Wk, Wv, V });
// @ts-expect-error: permutationCheck() needs X
lab.permutationCheck({ Q, K, V, order: [0] });
// @ts-expect-error: lowRankAttention() needs rank
lab.lowRankAttention({ Q, K, V, method: 'svd' });
// @ts-expect-error: an unknown method
lab.lowRankAttention({ Q, K, V, rank: 2, method: 'nystrom' });

// Cheaper attention: FAVOR+'s features count, a pattern's size.
// @ts-expect-error: features is a number of random features
lab.linearAttention({ Q, K, V, featureMap: 'favor', features: '256' });
// @ts-expect-error: sparsePattern() needs queries
lab.sparsePattern({ window: 3 });
// @ts-expect-error: globalTokens are positions, not one position
lab.sparsePattern({ queries: 8, globalTokens: 0 });

// A past cache is pastKey and pastValue together.
// @ts-expect-error: pastKey without pastValue
lab.attention({ Q, K, V, pastKey: K });
// @ts-expect-error: pastValue without pastKey
lab.attention({ Q, K, V, pastValue: V });
// @ts-expect-error: pastKey without pastValue, in a trace
lab.trace({ Q, K, V, pastKey: K });
// @ts-expect-error: pastKey without pastValue, in decode()
lab.decode({ X, Wq, Wk, Wv, pastKey: K });
// @ts-expect-error: pastValue without pastKey, in attentionBackward()
lab.attentionBackward({ Q, K, V, dOutput, pastValue: V });

// checkGradient()'s entry.
// @ts-expect-error: no parameter Wz
lab.checkGradient({ Q, K, V, dOutput }, { parameter: 'Wz', row: 0, col: 0 });
// @ts-expect-error: row and col are needed
lab.checkGradient({ Q, K, V, dOutput }, { parameter: 'Q' });

// Unknown option names (the core suggests the closest: "casual: did you mean causal?").
// @ts-expect-error: casual
lab.attention({ Q, K, V, casual: true });
// @ts-expect-error: attention() has no heads (trace() does)
lab.attention({ Q, K, V, heads: 2 });
// @ts-expect-error: the long-sequence kernels take no mask (keyPadding, window, bias)
lab.flashAttention({ Q, K, V, mask: [[true]] });
// @ts-expect-error: nor dropout
lab.naiveAttention({ Q, K, V, dropout: 0.1 });
// @ts-expect-error: sampledWeights takes every option of flashAttention but threads and batch
lab.sampledWeights({ Q, K, rows: [0], cols: [0], threads: 2 });
// @ts-expect-error: nextTokenDistribution draws nothing, so takes no seed
(await lab.loadModel()).nextTokenDistribution([0], { seed: 1 });
// @ts-expect-error: an ablation is 'zero' or 'mean'
(await lab.loadModel()).forward([1, 2], { ablate: [{ layer: 0, head: 0 }], ablation: 'random' });
// @ts-expect-error: an ablated head is { layer, head }, not a pair
(await lab.loadModel()).loss([1, 2], { ablate: [[0, 0]] });
// @ts-expect-error: decay is retention's option, not linear attention's
(await lab.loadModel()).forward([1, 2], { replace: { family: 'linear', decay: 0.5, heads: 'all' } });
// @ts-expect-error: retention needs its decay
(await lab.loadModel()).loss([1, 2], { replace: { family: 'retention', heads: 'all' } });
// @ts-expect-error: the heads to replace are a list of { layer, head } or 'all'
(await lab.loadModel()).forward([1, 2], { replace: { family: 'lowRank', rank: 2, heads: 'every' } });

// Wrong types.
// @ts-expect-error: causal is true or false
lab.attention({ Q, K, V, causal: 'yes' });
// @ts-expect-error: heads is a number
lab.trace({ Q, K, V, heads: '2' });
// @ts-expect-error: not an alignment
lab.attention({ Q, K, V, causalAlignment: 'bottom' });
// @ts-expect-error: an alignment is a name or a key position, not a flag
lab.trace({ Q, K, V, causal: true, causalAlignment: true });
// @ts-expect-error: no learned positions
lab.trace({ X, Wq, Wk, Wv, positional: 'learned' });
// @ts-expect-error: a window's side is a number
lab.attention({ Q, K, V, window: { left: '2' } });
// @ts-expect-error: scale is a number
lab.attention({ Q, K, V, scale: '0.5' });
// @ts-expect-error: jacobianRow is a number
lab.trace({ Q, K, V, dOutput, jacobianRow: '1' });
// @ts-expect-error: no such task
lab.trainer({ task: 'copy' });
// @ts-expect-error: scores are numbers
lab.softmaxBreakdown({ scores: 'abc' });
// @ts-expect-error: tilePlan's width is a number
lab.tilePlan('64');

// Required fields.
// @ts-expect-error: attentionBackward needs dOutput
lab.attentionBackward({ Q, K, V });
// @ts-expect-error: sampledWeights needs rows and cols
lab.sampledWeights({ Q, K, rows: [0] });
// @ts-expect-error: normalMatrix needs cols
lab.normalMatrix({ rows: 2 });
// @ts-expect-error: kvCacheBytes needs the head width
lab.kvCacheBytes({ layers: 1, kvHeads: 1, bytesPerValue: 2 });
// @ts-expect-error: generate needs a count
(await lab.loadModel()).generate([1], { temperature: 1 });
// @ts-expect-error: an import needs attentions or attention
lab.importAttention({ tokens: ['a'] });

// A field and its older name: one of them, never both.
// @ts-expect-error: dO and dOutput
lab.attentionBackward({ Q, K, V, dO: dOutput, dOutput });
// @ts-expect-error: headDim and headWidth
lab.kvCacheBytes({ layers: 1, kvHeads: 1, headDim: 64, headWidth: 64, bytesPerValue: 2 });
// @ts-expect-error: tokens and positions
lab.sinusoidalEncoding({ positions: 8, tokens: 8, width: 16 });
// @ts-expect-error: context and contextLength
lab.trainer({ context: 8, contextLength: 8 });
// @ts-expect-error: attentions and attention
lab.importAttention({ tokens: ['a'], attention: [[[1]]], attentions: [[[[[1]]]]] });

// Error codes and the element.
// @ts-expect-error: not an error code (typings only)
new AttnLabError('device-gone', 'no such code');
// @ts-expect-error: not a step id
document.querySelector('attn-lab')?.goToStep('softmaxx');
// @ts-expect-error: not a family of trace()
lab.trace({ Q, K, V, family: 'cosine' });
// @ts-expect-error: decay is a number
lab.trace({ Q, K, V, family: 'retention', decay: '0.9' });
// @ts-expect-error: rope is true or false
document.querySelector('attn-lab')?.setState({ rope: 'yes' });
// @ts-expect-error: no such state field
document.querySelector('attn-lab')?.setState({ ropee: true });
export {};
