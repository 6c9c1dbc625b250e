// Every call in docs/javascript.md, in the order the page shows it, type-checked under
// --strict against the package's typings (tsconfig.json): each must compile as documented,
// older names included. The calls the page says are refused are in invalid.ts.
import { AttnLabError, ERROR_CODES, LoadError, MASK_RULES, STEP_IDS, createAttnLab, ownFields } from 'attnlab';
import type { ErrorCode, Matrix, ProjectionTraceRequest, StepId, TraceRequest } from 'attnlab';
import { GPU_ERROR_CODES } from 'attnlab/webgpu';

// The page's free names: a trace's inputs and the loss's gradient.
declare const X: Matrix, Wq: Matrix, Wk: Matrix, Wv: Matrix, Wo: Matrix, dOutput: Matrix;
declare const Q: Matrix, K: Matrix, V: Matrix;

// Import the module.
const lab = await createAttnLab(); // loads the wasm once ({ threads: true }: see Long sequences)
const r = lab.attention({
  Q: [[1, 0], [0, 1]],
  K: [[1, 0], [1, 1], [0, 1]],
  V: [[1, 0], [0, 2], [1, 1]],
  causal: false,
});
r.weights satisfies number[][];
r.output satisfies number[][];
r.scale satisfies number;
r.temperature satisfies number;
r.factor satisfies number;

const t = lab.trace({ X, Wq, Wk, Wv, Wo, heads: 2, causal: true, positional: 'sinusoidal' });
const { id, title, formula, shape, values, rowTotals, operands } = t.steps[0];
[id satisfies StepId, title, formula, shape[0], values[0][0], rowTotals[0], operands.length];
t.groups[0].steps[1].head satisfies number | undefined;

// Matrices in as number[][] or { rows, cols, data: Float32Array }; flat ones out.
lab.attention({ Q: { rows: 1, cols: 2, data: new Float32Array([1, 0]) }, K, V, keyPadding: [false, true], mask: [[true, false]], scale: 0.5, temperature: 2 });
const flat = lab.flashAttention({ Q, K, V }).output;
[flat.rows, flat.cols, flat.data satisfies Float32Array];
lab.naiveAttention({ Q, K, V }).output.data satisfies Float32Array;
lab.normalMatrix({ rows: 2, cols: 3, seed: 1 }).data satisfies Float32Array;

// attentionBackward({ Q, K, V, dOutput, ...options }); dO, its older name, still works.
const options = { causal: true, scale: 0.5 };
const { dQ, dK, dV } = lab.attentionBackward({ Q, K, V, dOutput, ...options });
[dQ[0][0], dK[0][0], dV[0][0]];
lab.attentionBackward({ Q, K, V, dO: dOutput });

// trainer(config): every field optional; `context` is contextLength's older name.
await lab.trainer();
await lab.trainer({ task: 'induction-anywhere', layers: 2, heads: 2, dModel: 16, contextLength: 8, vocab: 8, batch: 16, learningRate: 0.01, seed: 1 });
await lab.trainer({ task: 'copy-first', context: 8 });
try {
  await lab.trainer({ task: 'reverse' });
} catch (error) {
  if (error instanceof LoadError) error.part satisfies string;
}

const trainer = await lab.trainer({ task: 'previous-token', seed: 1 });
const progress = trainer.step(50); // { step: 50, loss, heldOutLoss, accuracy, previousToken, induction }
[progress.step, progress.loss, progress.heldOutLoss, progress.accuracy] satisfies number[];
[progress.previousToken, progress.induction] satisfies number[][][]; // [layer][head], 0 … 1
const sample = trainer.attention(); // { tokenIds, weights[layer][head] }
sample.weights[0][0] satisfies Matrix;
sample.tokenIds satisfies number[];
sample.tokens satisfies number[]; // the older name of tokenIds
const layer1 = trainer.model(); // { X, Wq, Wk, Wv, Wo, heads, tokenIds }: layer 1 on the sample, for trace(); model(1): layer 2
trainer.model(1).X satisfies Matrix;
lab.trace({ X: layer1.X, Wq: layer1.Wq, Wk: layer1.Wk, Wv: layer1.Wv, Wo: layer1.Wo, heads: layer1.heads, causal: true });
layer1.tokenIds satisfies number[];
layer1.tokens satisfies number[];
trainer.delete(); // frees it; start again with a new trainer

// loadModel().
const model = await lab.loadModel();
const { tokenIds, pieces } = model.tokenize('The Congress'); // byte-pair token ids and their text
pieces satisfies string[];
const { logits, blocks } = model.forward(tokenIds); // blocks[l]: input, norm1, attention[h], …
model.forward(tokenIds, { blocks: false }).logits satisfies Matrix; // the logits alone (blocks: []), faster: nothing else is copied out
blocks[0].attention[0] satisfies Matrix;
const distribution = model.nextTokenDistribution(logits.at(-1), { temperature: 0.8, topK: 20 }); // { tokenIds, probabilities }
[distribution.tokenIds, distribution.probabilities, distribution.tokens] satisfies number[][];
model.generate(tokenIds, { count: 32, temperature: 0.8, topK: 20, seed: 1 }) satisfies number[]; // token ids, via the KV cache
const scores = model.headScores(tokenIds); // [layer][head] { previousToken, firstToken, role, roleScore }
[scores[0][0].previousToken, scores[0][0].firstToken, scores[0][0].roleScore] satisfies number[];
scores[0][0].role satisfies string;
const head = model.headWeights(0, 1); // layer 1, head 2: with blocks[0].norm1 as X, trace()'s head
lab.trace({ X: blocks[0].norm1, Wq: head.Wq, Wk: head.Wk, Wv: head.Wv, causal: true });
model.forward(tokenIds, { ablate: [{ layer: 1, head: 2 }], ablation: 'mean' }).logits satisfies Matrix; // that head's output replaced by its mean
model.loss(tokenIds, { ablate: [{ layer: 1, head: 2 }] }) satisfies number[]; // each next token's loss (nats), n − 1 numbers; ablation 'zero'
model.loss(tokenIds, { replace: { family: 'linear', featureMap: 'favor', features: 64, heads: 'all' } }) satisfies number[]; // every head by FAVOR+
model.forward(tokenIds, { replace: { family: 'sparse', window: 8, globalTokens: [0], random: 2, heads: [{ layer: 0, head: 1 }] } }).logits satisfies Matrix;
model.rollout(tokenIds) satisfies Matrix[]; // [layer] n × n: attention rollout, how much each token reaches each position
model.delete();

// One name per concept; the older names still work.
model.config.contextLength satisfies number;
model.config.context satisfies number;
model.tokenize('The Union').tokens satisfies number[];
lab.sinusoidalEncoding({ positions: 8, width: 16 });
lab.sinusoidalEncoding({ tokens: 8, width: 16 });
lab.trace({ Q, K, V, tokens: ['The', 'cat'] }).tokens satisfies string[] | undefined;

// The trace's backward pass.
declare const request: ProjectionTraceRequest;
lab.trace({ ...request, dOutput });
await lab.loadLearning();
const backward = lab.trace({ X, Wq, Wk, Wv, Wo, heads: 2, dOutput: [[1, 0], [0, 1], [1, 1]] });
const gradSoftmax = backward.steps.find((s) => s.id === 'grad-softmax');
[gradSoftmax?.rowDot, gradSoftmax?.jacobianRows, gradSoftmax?.jacobians?.[0]];
const check = lab.checkGradient({ X, Wq, Wk, Wv, Wo, heads: 2, dOutput }, { parameter: 'Wq', row: 0, col: 1 });
[check.analytic, check.numeric, check.relativeError, check.epsilon] satisfies number[];
lab.trace({ Q, K, V, dOutput, jacobianRow: 1 });
for (const parameter of ['X', 'Q', 'K', 'V', 'Wq', 'Wk', 'Wv', 'Wo'] as const) lab.checkGradient({ Q, K, V, dOutput }, { parameter, row: 0, col: 0 });

// Each step's operands and the fields of the scale, mask, softcap and softmax steps.
for (const step of t.steps) {
  const operand = step.operands[0];
  [operand.name, operand.symbol, operand.head, operand.shape, operand.values, operand.pastRows];
  [step.scale, step.temperature, step.factor, step.dk, step.defaultScale];
  [step.allowed?.[0][0] satisfies boolean | undefined, step.blockedBy?.[0][0] satisfies number | undefined];
  [step.softcap, step.rowMax, step.rowSum, step.exponentials];
  [step.angles, step.frequencies, step.ropeBase, step.slope, step.keep, step.rate, step.keepScale];
}
t.groups.map((group) => [group.id, group.title, group.steps.length]);
t.fullyMaskedRows[0] satisfies number[]; // one list per head: fullyMaskedRows[h]

// The frameworks' attention: causalAlignment, pastKey/pastValue, window, softcap, bias.
lab.attention({ Q, K, V, causal: true, causalAlignment: 'bottom-right' });
// The table "framework → attnlab options": ONNX's n_past, flex attention's window, padding.
const n_past = 2, w = 4;
lab.attention({ Q, K, V, causal: true, pastKey: K, pastValue: V, causalAlignment: n_past });
lab.flashAttention({ Q, K, V, causal: true, causalAlignment: -1 });
lab.attention({ Q, K, V, causal: true, window: { left: w - 1 } });
lab.attention({ Q, K, V, causal: true, keyPadding: [false, true] });
lab.attention({ Q, K, V, pastKey: K, pastValue: V });
lab.attentionBackward({ Q, K, V, dOutput, pastKey: K, pastValue: V });
lab.trace({ Q, K, V, pastKey: K, pastValue: V, causal: true });
lab.decode({ Q, K, V, pastKey: K, pastValue: V });
lab.attention({ Q, K, V, window: 2 });
lab.attention({ Q, K, V, window: { left: 4095 }, causal: true }); // Mistral's window
lab.attention({ Q, K, V, window: { left: 1, right: 1 }, globalTokens: [0] });
lab.attentionBackward({ Q, K, V, dOutput, globalTokens: [0], window: 2 });
lab.attention({ Q, K, V, softcap: 50 });
lab.attention({ Q, K, V, bias: [[0, -Infinity]] });
lab.trace({ Q, K, V, heads: 2, bias: { rows: 4, cols: 2, data: new Float32Array(8) } });

// Variants (trace requests).
lab.trace({ X, Wq, Wk, Wv, rope: true, ropeBase: 10000 });
lab.trace({ Q, K, V, heads: 4, alibi: true, kvHeads: 2, dropout: 0.1, dropoutSeed: 7 });
lab.trace({ X, Wq, Wk, Wv, context: X });
const decoded = lab.decode({ X, Wq, Wk, Wv, Wo, heads: 2 });
const { position, heads: [h0], output: stepOutput } = decoded.steps[0];
[position, h0.q, h0.k, h0.v, h0.keys, h0.values, h0.scores, h0.weights, h0.output, stepOutput, decoded.output];
lab.kvCacheBytes({ layers: 80, kvHeads: 8, headWidth: 128, bytesPerValue: 2 }) satisfies number; // Llama 2 70B: 327,680
lab.kvCacheBytes({ layers: 80, kvHeads: 8, headDim: 128, bytesPerValue: 2 });

// Other entries, and their older positional forms.
lab.sinusoidalEncoding({ positions: 8, width: 16 }) satisfies Matrix;
const breakdown = lab.softmaxBreakdown({ scores: [1, 2, 3], temperature: 2 });
const { exponentials, sum, weights, overflowed, termOverflowed, underflowed } = breakdown.withoutMax;
[exponentials, sum, weights, overflowed, termOverflowed, underflowed];
const order = [1, 0, 2];
const traceRequest = { X, Wq, Wk, Wv };
const permuted = lab.permutationCheck({ ...traceRequest, order });
[permuted.original, permuted.permuted, permuted.predicted, permuted.maxDifference, permuted.reorderedOnly];
lab.tilePlan({ headWidth: 64 })?.queryRows;
lab.scalingStudy({ dims: [4, 64], keys: 16, samples: 256, seed: 1 }).points[0].scoreStd;
const sampled = { Q, K, rows: [0, 1], cols: [0, 5] };
lab.sampledWeights(sampled) satisfies Matrix;
lab.sampledWeights({ ...sampled, head: 1, heads: 2, kvHeads: 1, causal: true, causalAlignment: 'bottom-right', window: { left: 4 }, scale: 0.5, keyPadding: [false, true], softcap: 30, bias: [[0]], alibi: true });
const cells = lab.sampledCells(sampled);
[cells.weights satisfies Matrix, cells.hidden satisfies boolean[][], cells.visibleKeys satisfies number[]];
lab.checkFlashAttention({ Q, K, V }).Q.data satisfies Float32Array;
const plan = lab.flashPlan({ Q, K, V, causal: true });
[plan.headWidth, plan.scale, plan.mayOverflow, plan.keyBands, plan.positionOffset, plan.slopes, plan.biasPerHead, plan.fullyMaskedRows];
lab.memoryStats().peakTrackedBytes satisfies number;
// Cheaper attention.
const linear = lab.linearAttention({ Q, K, V, featureMap: 'elu', causal: true, form: 'recurrent', scale: 1 });
[linear.output satisfies Matrix, linear.weights, linear.kernel, linear.kvState satisfies Matrix, linear.featureQ, linear.featureK, linear.keySum, linear.normalizer, linear.zeroNormalizerRows satisfies number[], linear.scale];
const favor = lab.linearAttention({ Q, K, V, featureMap: 'favor', features: 256, seed: 7, causal: true, form: 'parallel' });
[favor.kernel, favor.weights, favor.randomFeatures satisfies Matrix | undefined, favor.scale];
const pattern = lab.sparsePattern({ queries: 64, keys: 64, window: 3, globalTokens: [0], random: 2, blockSize: 8, stride: 8, seed: 1, headWidth: 64 });
[pattern.mask satisfies boolean[][], pattern.keysPerQuery satisfies number[], pattern.nonzeros, pattern.density, pattern.flops, pattern.denseFlops];
lab.attention({ Q, K, V, mask: pattern.mask });
const retained = lab.retention({ Q, K, V, decay: 0.9, form: 'parallel' });
[retained.output satisfies Matrix, retained.weights, retained.state satisfies Matrix, retained.decay];
const lowRank = lab.lowRankAttention({ Q, K, V, rank: 4, method: 'svd', causal: true, scale: 0.125 });
[lowRank.output satisfies Matrix, lowRank.weights, lowRank.exactWeights, lowRank.exactOutput satisfies Matrix, lowRank.singularValues satisfies number[], lowRank.spectrumError, lowRank.weightsError satisfies number, lowRank.outputError satisfies number, lowRank.rank, lowRank.scale];
const linformer = lab.lowRankAttention({ Q, K, V, rank: 2, method: 'linformer', seed: 3, E: Q, F: Q });
[linformer.E, linformer.F, linformer.projectedWeights];
lab.sinusoidalEncoding(8, 16);
declare const row: number[];
lab.softmaxBreakdown(row, 2);
lab.permutationCheck(traceRequest, order);
lab.tilePlan(64);
lab.stepIds() satisfies StepId[];
lab.errorCodes() satisfies ErrorCode[];
[STEP_IDS satisfies readonly StepId[], ERROR_CODES satisfies readonly ErrorCode[]];
const schema = lab.schema();
[schema.groups, schema.requests, schema.maskRules.causal, MASK_RULES.window];

// Random inputs: lab.normalMatrix({ rows, cols, seed }).
const rows = 3, cols = 4, seed = 1;
lab.normalMatrix({ rows, cols, seed });

// Limits, errors and reading requests as data.
lab.limits().traceTokens satisfies number;
try {
  lab.attention({ Q, K, V });
} catch (error) {
  if (error instanceof AttnLabError) [error.code satisfies string, error.message];
}
// attnlab/webgpu's two codes are AttnLabError codes too.
GPU_ERROR_CODES satisfies readonly AttnLabError['code'][];
declare const object: object;
const known = ['causal', 'heads'] as const;
ownFields(object, known, { owner: 'wrap()' }).causal satisfies unknown;
r.fullyMaskedRows satisfies number[];
r.rowMax satisfies number[];

// Long sequences (createAttnLab({ threads: true })).
const threaded = await createAttnLab({ threads: true });
threaded.threads satisfies number;
threaded.flashAttention({ Q, K, V, threads: 2, batch: 1, heads: 2 });
void (lab.simdArch satisfies string);
export type { TraceRequest };
