// Types of the attnlab package (the ES module in attnlab.js).

/** A matrix as nested rows, or flat row-major data with its shape. */
export type MatrixInput = number[][] | { rows: number; cols: number; data: Float32Array | ArrayLike<number> };
/** A boolean matrix: true where query i may attend to key j. */
export type MaskInput = boolean[][] | { rows: number; cols: number; data: Uint8Array | ArrayLike<number> };
export type Matrix = number[][];

export type ErrorCode = 'shape-mismatch' | 'non-finite' | 'empty' | 'too-large' | 'invalid-argument' | 'out-of-memory';
export declare const ERROR_CODES: readonly ErrorCode[];
/** The codes only attnlab/webgpu throws (its GPU_ERROR_CODES): the device was lost, or the GPU refused the work. */
export type GpuErrorCode = 'device-lost' | 'gpu-error';

export declare class AttnLabError extends Error {
  readonly name: 'AttnLabError';
  /** The core's error code, or one of attnlab/webgpu's. */
  readonly code: ErrorCode | GpuErrorCode;
  constructor(code: ErrorCode | GpuErrorCode, message: string);
}

/**
 * A part of the package loaded on demand (the core, the threaded core, the learning module)
 * that could not load after a few tries (none while the browser is offline): `part` names
 * it, the message says why. A later call tries again.
 */
export declare class LoadError extends Error {
  readonly name: 'LoadError';
  readonly part: string;
  constructor(part: string, reason: string);
}

/**
 * The package's reader of request objects, for wrappers that take options the same way: the
 * own fields of `object` among `known`, each read once, in a null-prototype object. Throws
 * AttnLabError ('invalid-argument') for a key `known` lacks (suggesting the closest known one),
 * a symbol key, or a read that throws. `owner` names the object in messages; `prefix` goes
 * before a field's name.
 */
export declare function ownFields<K extends string>(object: object, known: readonly K[], options: { owner: string; prefix?: string }): Partial<Record<K, unknown>>;

/** Step ids in trace order (StepId): the core's list (AttnLab.stepIds()), known before the wasm loads. */
export declare const STEP_IDS: readonly StepId[];
/** The mask's rules, each one's bit in the mask step's blockedBy: the core's (lab.schema().maskRules), known before the wasm loads. */
export declare const MASK_RULES: Readonly<MaskRules>;

/** The core's documented limits (attnlab::limits), as lab.limits() returns them. */
export interface Limits {
  traceTokens: number;
  traceFeatures: number;
  maxHeads: number;
  traceScores: number;
  backwardTokens: number;
  backwardFeatures: number;
  attentionTokens: number;
  attentionFeatures: number;
  flashTokens: number;
  flashFeatures: number;
  flashValues: number;
  flashScores: number;
  flashMultiplyAdds: number;
  /** longLinearAttention() and longRetention(): chunk at most. */
  longChunk: number;
  /** longLinearAttention() and longRetention() in wasm: heads·max(n_q, n_k)·(chunk·(d + d_v) + 2·d·d_v) at most. */
  longLinearMultiplyAdds: number;
  naiveScores: number;
  naiveMultiplyAdds: number;
  maxHeadWidth: number;
  sampledRows: number;
  sampledCols: number;
  softmaxRow: number;
  scalingDims: number;
  scalingMaxDk: number;
  scalingMinKeys: number;
  scalingMaxKeys: number;
  scalingMaxSamples: number;
  scalingDraws: number;
  sinusoidalMax: number;
  normalValues: number;
  /** linearAttention() with featureMap 'favor': random features m at most. */
  favorFeatures: number;
  /** linearAttention() with featureMap 'favor': m·(d_k·(4·d_k + n_q + n_k) + n_q·n_k) at most. */
  favorMultiplyAdds: number;
  /** sparsePattern(): queries and keys, each at most. */
  sparseTokens: number;
  /** sparsePattern(): queries × keys at most. */
  sparseCells: number;
  walkTokens: number;
  walkFeatures: number;
  walkTile: number;
  globalTokens: number;
  decodeTokens: number;
  /** decode() from a past cache: its rows plus the new tokens, at most this many keys. */
  decodeKeys: number;
  cacheLayers: number;
  cacheKvHeads: number;
  cacheHeadWidth: number;
  /** @deprecated The older name of cacheHeadWidth. */
  cacheHeadDim: number;
  cacheValueBytes: number;
  trainLayers: number;
  trainHeads: number;
  trainDModel: number;
  trainContext: number;
  trainVocab: number;
  trainBatch: number;
  trainSteps: number;
  /** lab.importAttention(): layers at most. */
  importLayers: number;
  /** lab.importAttention(): layers × heads × tokens × tokens at most (tokens at most traceTokens, heads maxHeads). */
  importValues: number;
  /** The bytes of UTF-8 one LanguageModel.tokenize() takes, and the token ids one pieces() takes. */
  tokenizeBytes: number;
}

// The generated interfaces below are each one group of a request's fields as the core
// declares them (cpp/bindings/requests.hpp); the requests combine them.
// ---- Request interfaces: generated from lab.schema() by scripts/typings.mjs; do not edit ----

/** A step id of the core's trace (STEP_IDS lists them in trace order). */
export type StepId =
  | 'encoding'
  | 'positional'
  | 'project-q'
  | 'project-k'
  | 'project-v'
  | 'rotate-q'
  | 'rotate-k'
  | 'feature-q'
  | 'feature-k'
  | 'decay'
  | 'kv-state'
  | 'normalizer'
  | 'implied-weights'
  | 'scores'
  | 'scale'
  | 'softcap'
  | 'bias'
  | 'mask'
  | 'softmax'
  | 'dropout'
  | 'aggregate'
  | 'concat'
  | 'output-projection'
  | 'grad-output'
  | 'grad-wo'
  | 'grad-concat'
  | 'grad-v'
  | 'grad-weights'
  | 'grad-softmax'
  | 'grad-scores'
  | 'grad-q'
  | 'grad-k'
  | 'grad-wq'
  | 'grad-wk'
  | 'grad-wv'
  | 'grad-x';

export interface QKVInput {
  /** (n_q, heads·d_k) */
  Q: MatrixInput;
  /** (n_k, kvHeads·d_k) */
  K: MatrixInput;
  /** (n_k, kvHeads·d_v) */
  V: MatrixInput;
}

export interface AttentionOptions {
  /** Query i may not attend to a key after its position (i, or i + n_k − n_q bottom-right). Default false. */
  causal?: boolean;
  /** Where the queries sit among the keys, for the causal rule and the window. */
  causalAlignment?: CausalAlignment;
  /** One flag per key; true marks padding that no query attends to. */
  keyPadding?: boolean[];
  /** (n_q, n_k): true where query i may attend to key j. */
  mask?: MaskInput;
  /** Multiplies the scores; default 1/√d_k. */
  scale?: number;
  /** Divides the scaled scores. Default 1. */
  temperature?: number;
  /** Logit soft-capping: the scaled scores become softcap·tanh(S̃ / softcap); default off. */
  softcap?: number;
  /** An additive bias on the scaled scores, (n_q, n_k), or one per head (heads·n_q, n_k) in a trace or the long-sequence kernels (the same for every sequence); −Infinity blocks the key. */
  bias?: MatrixInput;
  /** ALiBi: −m_h·|p − j| added to head h's scaled scores, p the query's key position, m_h = 2^(−8(h+1)/heads). Default false. */
  alibi?: boolean;
  /** Sliding window: w lets query i see key j when |i − j| < w (0 = off), or { left, right }. */
  window?: Window;
  /** Positions exempt from the window both ways (at most limits().globalTokens). */
  globalTokens?: number[];
  /** A past KV cache's keys (ONNX's past_key): n_past rows, K's columns; K's rows follow them. */
  pastKey?: MatrixInput;
  /** The cache's values (ONNX's past_value): n_past rows, V's columns; V's rows follow them. */
  pastValue?: MatrixInput;
}

export type AttentionGradientInput = (
  | {
      /** ∂L/∂O, the loss's gradient at the output: (n_q, d_v). */
      dOutput: MatrixInput;
      dO?: undefined;
    }
  | {
      /** @deprecated The older name of dOutput. */
      dO: MatrixInput;
      dOutput?: undefined;
    }
);

export interface ProjectionInput {
  /** Token embeddings: (n, d_model). */
  X: MatrixInput;
  /** (d_model, heads·d_k) */
  Wq: MatrixInput;
  /** (d_model, kvHeads·d_k) */
  Wk: MatrixInput;
  /** (d_model, kvHeads·d_v) */
  Wv: MatrixInput;
  /** Cross-attention: (n_k, d_model); K and V are projected from it, Q from X. */
  context?: MatrixInput;
}

export interface TraceOptions {
  /** (heads·d_v, d_out), applied to the concatenated heads. */
  Wo?: MatrixInput;
  /** Splits the columns of Q, K and V into equal slices. 1 … limits().maxHeads. Default 1. */
  heads?: number;
  /** The sinusoidal encoding added to X (and to the context); X only. Default 'none'. */
  positional?: 'none' | 'sinusoidal';
  /** RoPE: each head's q and k rows rotated in pairs by position·ropeBase^(−2i/d_k); d_k even. Default false. */
  rope?: boolean;
  /** RoPE's base: pair i of a head turns by position·ropeBase^(−2i/d_k). Default 10000. */
  ropeBase?: number;
  /** K/V heads: 0 = heads, 1 = multi-query, else grouped-query (dividing heads); K and V (or Wk, Wv) have kvHeads·d columns. 0 … limits().maxHeads. Default 0. */
  kvHeads?: number;
  /** Dropout on the weights, 0 ≤ p < 1: kept with probability 1 − p, scaled by 1/(1 − p). Default 0. */
  dropout?: number;
  /** The dropout mask's seed; the same seed gives the same mask everywhere. Default 0. */
  dropoutSeed?: number;
}

export interface BackwardFields {
  /** ∂L/∂Y, the output's shape: the backward steps follow the forward ones (the learning module: await lab.loadLearning() first). */
  dOutput?: MatrixInput;
  /** The query row whose softmax Jacobian the grad-softmax steps carry; without it every row when n_q·n_k²·heads ≤ limits().traceScores, else row 0. */
  jacobianRow?: number;
}

export interface TraceFamilyOptions {
  /** What each head computes. Default 'softmax'. */
  family?: 'softmax' | 'linear' | 'retention';
  /** 'linear': φ. Default 'elu'. */
  featureMap?: 'elu' | 'relu' | 'favor';
  /** 'linear', 'favor': m. 1 … limits().favorFeatures. */
  features?: number;
  /** 'linear', 'favor': the seed. */
  seed?: number;
  /** 'retention': γ in (0, 1]. */
  decay?: number;
}

export interface PermutationOrder {
  /** A permutation of 0…n−1: new row i is token order[i]. */
  order: number[];
}

export type KvCacheShape = {
  /** Layers of the model. 1 … limits().cacheLayers. Default 1. */
  layers: number;
  /** K/V heads per layer. 1 … limits().cacheKvHeads. Default 1. */
  kvHeads: number;
  /** Bytes per cached number: 2 for fp16/bf16, 1 for fp8, 4 for fp32. 1 … limits().cacheValueBytes. Default 2. */
  bytesPerValue: number;
} & (
  | {
      /** The head width d_k. 1 … limits().cacheHeadWidth. Default 1. */
      headWidth: number;
      headDim?: undefined;
    }
  | {
      /** @deprecated The older name of headWidth. */
      headDim: number;
      headWidth?: undefined;
    }
);

export interface LongAttentionOptions {
  /** Query i may not attend to a key after its position (i, or i + n_k − n_q bottom-right). Default false. */
  causal?: boolean;
  /** Where the queries sit among the keys, for the causal rule and the window. */
  causalAlignment?: CausalAlignment;
  /** Sliding window: w lets query i see key j when |i − j| < w (0 = off), or { left, right }. */
  window?: Window;
  /** Query heads: equal column slices of Q (the core checks that they divide its width). Default 1. */
  heads?: number;
  /** K/V heads (grouped-query attention): 0 = heads, else a divisor of heads; query head h reads K/V head ⌊h / (heads / kvHeads)⌋. Default 0. */
  kvHeads?: number;
  /** Multiplies the scores; default 1/√d_k. */
  scale?: number;
}

export interface KernelOptions {
  /** Threads to run on; 0: lab.threads. The single-threaded core always uses 1. Default 0. */
  threads?: number;
  /** Sequences: Q, K and V rows split into this many, each attending only to its own. Default 1. */
  batch?: number;
}

export type ScoreRules = Pick<AttentionOptions, 'keyPadding' | 'temperature' | 'softcap' | 'bias' | 'alibi'>;

export type QKInput = Pick<QKVInput, 'Q' | 'K'>;

export interface SampleAt {
  /** The query head whose weights are sampled (0 … heads − 1). Default 0. */
  head?: number;
  /** Query rows (at most limits().sampledRows). */
  rows: number[];
  /** Key columns (at most limits().sampledCols). */
  cols: number[];
}

export interface WalkOptions {
  /** Query i may not attend to key j > i. Default false. */
  causal?: boolean;
  /** Multiplies the scores; default 1/√d. */
  scale?: number;
  /** Br, queries per block. 1 … limits().walkTile. Default 2. */
  queryRows?: number;
  /** Bc, keys per tile. 1 … limits().walkTile. Default 2. */
  keyRows?: number;
}

export type SinusoidalEncodingRequest = {
  /** Columns (features). 1 … limits().sinusoidalMax. Default 0. */
  width: number;
} & (
  | {
      /** Rows: the positions 0 … positions − 1. 1 … limits().sinusoidalMax. Default 0. */
      positions: number;
      tokens?: undefined;
    }
  | {
      /** @deprecated The older name of positions. */
      tokens: number;
      positions?: undefined;
    }
);

export interface SoftmaxBreakdownRequest {
  /** One row of scores (at most limits().softmaxRow). */
  scores: ArrayLike<number>;
  /** Divides the scores. Default 1. */
  temperature?: number;
}

export interface TilePlanRequest {
  /** The head width d. 1 … limits().maxHeadWidth. Default 0. */
  headWidth: number;
}

export interface ScalingStudyRequest {
  /** d_k values, at most limits().scalingDims of them. Each 1 … limits().scalingMaxDk. */
  dims: number[];
  /** Keys per query. limits().scalingMinKeys … limits().scalingMaxKeys. Default 16. */
  keys?: number;
  /** Queries per d_k; samples·(keys + 1)·(the sum of dims) at most limits().scalingDraws. 1 … limits().scalingMaxSamples. Default 256. */
  samples?: number;
  /** The same seed gives the same numbers everywhere. Default 1. */
  seed?: number;
}

export interface NormalMatrixRequest {
  /** Rows; rows · cols at most limits().normalValues. 1 … limits().normalValues. Default 0. */
  rows: number;
  /** Columns. 1 … limits().normalValues. Default 0. */
  cols: number;
  /** The same seed gives the same numbers everywhere. Default 1. */
  seed?: number;
}

export type TrainerConfig = {
  /** What is learned at each target position (TrainingTask). Default 'previous-token'. */
  task?: TrainingTask;
  /** Attention layers. 1 … limits().trainLayers. Default 1. */
  layers?: number;
  /** Heads per layer, dividing dModel. 1 … limits().trainHeads. Default 1. */
  heads?: number;
  /** Width of the residual stream (d_head = dModel / heads). 1 … limits().trainDModel. Default 16. */
  dModel?: number;
  /** Token ids 0 … vocab − 1. 2 … limits().trainVocab. Default 8. */
  vocab?: number;
  /** Sequences per step. 1 … limits().trainBatch. Default 16. */
  batch?: number;
  /** Adam's step size (β1 0.9, β2 0.999, ε 1e-8), above 0 and at most 1. Default 0.01. */
  learningRate?: number;
  /** The same seed gives the same run everywhere. Default 1. */
  seed?: number;
} & (
  | {
      /** Tokens per sequence. 4 … limits().trainContext. Default 8. */
      contextLength?: number;
      context?: undefined;
    }
  | {
      /** @deprecated The older name of contextLength. */
      context?: number;
      contextLength?: undefined;
    }
);

export interface StepRequest {
  /** Adam steps to take per call. 1 … limits().trainSteps. Default 1. */
  count?: number;
}

export interface GradientAt {
  /** The input or weight whose gradient entry is checked. */
  parameter: 'X' | 'Q' | 'K' | 'V' | 'Wq' | 'Wk' | 'Wv' | 'Wo';
  /** The entry's row. Default 0. */
  row: number;
  /** The entry's column. Default 0. */
  col: number;
}

export interface LinearAttentionOptions {
  /** φ: 'elu' (elu(x) + 1, always positive), 'relu' (max(x, 0)), or 'favor' (Performer's positive orthogonal random features, FAVOR+: φ(q)·φ(k) estimates exp(q·k·scale)). Default 'elu'. */
  featureMap?: 'elu' | 'relu' | 'favor';
  /** Query i sees keys 0 … i only (n_q = n_k). Default false. */
  causal?: boolean;
  /** 'parallel': the n × n kernel matrix, each row over its sum; 'recurrent': the state Σφ(k)vᵀ and the normaliser Σφ(k), one key at a time. The same output. Default 'parallel'. */
  form?: 'parallel' | 'recurrent';
  /** Multiplies each query before φ: φ(scale·q); default 1, as the paper applies φ to q as it is. 'favor': multiplies q·k (φ(√scale·q)·φ(√scale·k)); default 1/√d_k, as softmax's. */
  scale?: number;
  /** 'favor' only: m, the random features (default 256); m·(d_k·(4·d_k + n_q + n_k) + n_q·n_k) at most limits().favorMultiplyAdds. 1 … limits().favorFeatures. */
  features?: number;
  /** 'favor' only: the seed of the random features (default 1); the same seed gives the same features everywhere. */
  seed?: number;
}

export interface RetentionOptions {
  /** γ in (0, 1]: how much of the state each token keeps (key j counts γ^(i−j) at query i). */
  decay: number;
  /** 'parallel': (Q·Kᵀ ⊙ D)·V; 'recurrent': S_t = γ·S_{t−1} + k_tᵀv_t, o_t = q_t·S_t. The same output. Default 'parallel'. */
  form?: 'parallel' | 'recurrent';
}

export interface SparsePatternRequest {
  /** n_q: the pattern's rows. 1 … limits().sparseTokens. Default 0. */
  queries: number;
  /** n_k: the pattern's columns; default queries. 1 … limits().sparseTokens. */
  keys?: number;
  /** Key j for query i when |i − j| < window (counted in blocks with blockSize); 0 = off. Default 0. */
  window?: number;
  /** Positions that attend to every key and that every query attends to. */
  globalTokens?: number[];
  /** Random keys per query (key blocks per query block with blockSize), drawn among those no other part allows. Default 0. */
  random?: number;
  /** BigBird's blocks: window and random count blocks of this many tokens; 0 = single tokens. Default 0. */
  blockSize?: number;
  /** The Sparse Transformer's strided pattern: key j when i − j is a multiple of stride; 0 = off. Default 0. */
  stride?: number;
  /** The same seed gives the same random keys everywhere. Default 1. */
  seed?: number;
  /** d, for the FLOP counts (d_k = d_v = d); default 64. 1 … limits().attentionFeatures. Default 64. */
  headWidth?: number;
}

export interface LowRankOptions {
  /** 'svd': A's best rank-k approximation A_k from its singular values; 'linformer': K and V projected along the sequence to k rows by E and F (Wang et al. 2020). Default 'svd'. */
  method?: 'svd' | 'linformer';
  /** k: the singular values kept (svd: 1 … min(n_q, n_k)) or the projected keys (linformer: 1 … n_k). */
  rank: number;
  /** svd: query i sees keys 0 … i, as in attention(); refused with linformer, whose projections mix every key. Default false. */
  causal?: boolean;
  /** Multiplies the scores; default 1/√d_k. */
  scale?: number;
  /** linformer: E and F drawn from N(0, 1/k); the same seed gives the same E and F everywhere. Default 1. */
  seed?: number;
  /** linformer: your own projection of the keys, (rank, n_k); with F. */
  E?: MatrixInput;
  /** linformer: your own projection of the values, (rank, n_k); with E. */
  F?: MatrixInput;
}

export interface LongLayout {
  /** Query heads: equal column slices of Q (the core checks that they divide its width). Default 1. */
  heads?: number;
  /** K/V heads: 0 = heads, else a divisor of heads; query head h reads K/V head ⌊h / (heads / kvHeads)⌋. Default 0. */
  kvHeads?: number;
  /** Sequences: Q, K and V rows split into this many. Default 1. */
  batch?: number;
  /** Threads to run on (one sequence and head per task); 0: lab.threads. Default 0. */
  threads?: number;
  /** Tokens per chunk of the causal pass (0: 64); changes the rounding only. 0 … limits().longChunk. Default 0. */
  chunk?: number;
}

export interface LongLinearOptions {
  /** φ: 'elu' (elu(x) + 1) or 'relu' (max(x, 0)); 'favor' is linearAttention's only. Default 'elu'. */
  featureMap?: 'elu' | 'relu' | 'favor';
  /** Query i sees keys 0 … i (n_q = n_k): by chunks, the state carried across. Default false. */
  causal?: boolean;
  /** Multiplies each query before φ: φ(scale·q); default 1. */
  scale?: number;
}

export interface LongRetentionOptions {
  /** γ in (0, 1]: how much of the state each token keeps (causal, n_q = n_k). */
  decay: number;
}

export interface ModelConfig {
  /** Token ids 0 … vocab − 1. Default 512. */
  vocab: number;
  /** The most tokens one forward pass reads. Default 128. */
  contextLength: number;
  /** Width of the residual stream. Default 128. */
  dModel: number;
  /** Decoder blocks. Default 3. */
  layers: number;
  /** Heads per block, dividing dModel (d_k = dModel / heads). Default 4. */
  heads: number;
}

export interface ForwardRequest {
  /** Token ids, each below the model's vocab, at most its context length. */
  tokenIds: number[];
  /** false: blocks is [] and no head's n × n weights are formed (the flash kernel runs the heads): the logits alone, faster, equal to the full pass's within float rounding. Default true. */
  blocks?: boolean;
}

export interface HeadScoresRequest {
  /** Token ids, each below the model's vocab, at most its context length. */
  tokenIds: number[];
  /** The length of a sequence the tokens repeat (0: none), for the duplicate-token and induction scores; at most half the context length. Default 0. */
  period?: number;
}

export interface HeadAt {
  /** The block, 0 … layers − 1. Default 0. */
  layer: number;
  /** The head of that block, 0 … heads − 1. Default 0. */
  head: number;
}

export interface GenerateRequest {
  /** The token ids to continue. */
  prompt: number[];
  /** Tokens to generate, 1 … the context length less the prompt's length. Default 0. */
  count: number;
}

export interface SampleOptions {
  /** Divides the logits before the softmax; 0 takes the likeliest token. Default 1. */
  temperature?: number;
  /** Keeps the k likeliest tokens (0: all), at most the vocab. Default 0. */
  topK?: number;
  /** The same seed draws the same tokens everywhere. Default 1. */
  seed?: number;
}

export interface LogitsRow {
  /** One row of forward()'s logits: vocab numbers. */
  logits: ArrayLike<number>;
}

export type DistributionOptions = Pick<SampleOptions, 'temperature' | 'topK'>;

export interface InductionProbeRequest {
  /** Random tokens drawn, then repeated: 1 … contextLength / 2. Default 0. */
  period: number;
  /** The same seed draws the same tokens everywhere. Default 1. */
  seed?: number;
}

export interface ImportedAttentionFields {
  /** Each token's text, in order. */
  tokens: string[];
  /** Every layer, as model(…, output_attentions=True) gives it: [layer][batch][head][query][key], a batch of one sequence; or attention instead. */
  attentions?: number[][][][][];
  /** One layer: [head][query][key]; or attentions instead. */
  attention?: number[][][];
}

export type ReplaceLinear = Pick<LinearAttentionOptions, 'featureMap' | 'scale' | 'features' | 'seed'>;

export type ReplaceRetention = Pick<RetentionOptions, 'decay'>;

export type ReplaceLowRank = Pick<LowRankOptions, 'rank'>;

export type ReplaceSparse = Pick<SparsePatternRequest, 'window' | 'globalTokens' | 'random' | 'blockSize' | 'stride' | 'seed'>;

/** The mask's rules: the bits of the mask step's blockedBy. */
export interface MaskRules {
  causal: 1;
  keyPadding: 2;
  mask: 4;
  window: 8;
  bias: 16;
}

// ---- End of the generated request interfaces ----

/** A request field as lab.schema() describes it. */
export interface SchemaField {
  name: string;
  kind: 'boolean' | 'number' | 'probability' | 'whole' | 'matrix' | 'mask' | 'flags' | 'indices' | 'row' | 'window' | 'choice' | 'text' | 'labels' | 'layers' | 'heads';
  required?: true;
  /** The documented range: each end a number or a name in limits(). */
  min?: string;
  max?: string;
  /** The largest whole number the core's type takes unchanged. */
  bound?: number;
  choices?: string[];
  default?: number | boolean | string;
  /** The field's doc (the learning module's schema only; the core's download leaves it out). */
  doc?: string;
  /** A deprecated older name of the field named here. */
  aliasOf?: string;
}

/** lab.schema(): groups of fields (each an interface of these typings), each entry's groups, the mask's rules. */
export interface Schema {
  groups: Record<string, SchemaField[]>;
  requests: Record<string, string[]>;
  maskRules: MaskRules;
}

// How the entries combine the generated groups, and the rules between fields that a group
// alone cannot say: a past cache's keys and values together, a trace's X with its weights or
// Q, K and V (never a mix).

/** A past KV cache: pastKey and pastValue together, or neither (the core refuses one alone). */
export type PastCache = { pastKey?: undefined; pastValue?: undefined } | { pastKey: MatrixInput; pastValue: MatrixInput };

export type AttentionRequest = QKVInput & AttentionOptions & PastCache;

export type AttentionBackwardRequest = AttentionRequest & AttentionGradientInput;

interface TraceCommon extends TraceOptions, AttentionOptions {
  /** Labels for the tokens, passed through to the result. */
  tokens?: string[];
}

/** A trace of tokens X through the projections (no Q, K or V beside them). */
export type ProjectionTraceRequest = ProjectionTraceFields & PastCache;

interface ProjectionTraceFields extends TraceCommon, ProjectionInput {
  Q?: undefined;
  K?: undefined;
  V?: undefined;
}

/** A trace of Q, K and V as given (no X, weights or context beside them). */
export type DirectTraceRequest = DirectTraceFields & PastCache;

interface DirectTraceFields extends TraceCommon, QKVInput {
  /** The sinusoidal encoding needs X. */
  positional?: 'none';
  X?: undefined;
  Wq?: undefined;
  Wk?: undefined;
  Wv?: undefined;
  context?: undefined;
}

export type TraceRequest = (ProjectionTraceRequest | DirectTraceRequest) & BackwardFields & TraceFamilyOptions;

export type PermutationCheckRequest = ProjectionTraceRequest & PermutationOrder;

/** linearAttention(): one head's Q, K and V and how φ(q)ᵀφ(k) is taken. */
export type LinearAttentionRequest = QKVInput & LinearAttentionOptions;

/** retention(): one sequence's Q, K and V (Q and K of the same rows), the decay and the form. */
export type RetentionRequest = QKVInput & RetentionOptions;

/** lowRankAttention(): one head's Q, K and V, the rank k and the method. */
export type LowRankAttentionRequest = QKVInput & LowRankOptions;

export interface LongAttentionRequest extends QKVInput, LongAttentionOptions, KernelOptions, ScoreRules {}

/** longLinearAttention(): Q, K, V of many heads (flat Float32Array inputs welcome), the layout and φ. */
export type LongLinearAttentionRequest = QKVInput & LongLayout & LongLinearOptions;

/** longRetention(): Q, K, V of many heads (Q and K of the same rows), the layout and the decay. */
export type LongRetentionRequest = QKVInput & LongLayout & LongRetentionOptions;

export type SampledWeightsRequest = QKInput & LongAttentionOptions & ScoreRules & SampleAt;

export interface FlashWalkRequest extends QKVInput, WalkOptions {}

/** Where the queries sit among the keys: query i at key i, or at key i + n_k − n_q (the last queries of a sequence, as in generation with a cache). */
/** Where query 0 sits among the keys: top-left (key 0), bottom-right (key n_k − n_q), or that key position (ONNX's n_past). */
export type CausalAlignment = 'top-left' | 'bottom-right' | number;

/**
 * A sliding window: a number w lets query i attend to key j only when |i − j| < w (0 = off);
 * { left, right } to keys i − left … i + right (a side left out does not limit). Positions are
 * placed by causalAlignment.
 */
export type Window = number | { left?: number; right?: number };

// ---- Result interfaces: generated from the core's results() by scripts/typings.mjs; do not edit ----

/** attention(): every intermediate of softmax(Q·Kᵀ · factor)·V. */
export interface AttentionResult {
  /** Q·Kᵀ: (n_q, n_k). */
  scores: Matrix;
  /** options.scale or the default 1/√d_k, temperature excluded. */
  scale: number;
  /** options.temperature (default 1). */
  temperature: number;
  /** scale / temperature: what multiplies the scores. */
  factor: number;
  /** scores · factor. */
  scaled: Matrix;
  /** scaled, -Infinity where masked. */
  logits: Matrix;
  /** Each row's max logit; -Infinity for a fully masked row. */
  rowMax: number[];
  /** Each row's sum of exponentials. */
  rowSum: number[];
  /** exp(logit − row max). */
  exponentials: Matrix;
  /** softmax rows: (n_q, n_k). */
  weights: Matrix;
  /** weights · V: (n_q, d_v). */
  output: Matrix;
  /** The rows whose query sees no key: their weights and output are zeros. */
  fullyMaskedRows: number[];
}

/**
 * What feeds a step. An operand that is another step's result has that step's very `values` array
 * (the same object); inputs (X, Wq, …) and head slices of Q, K, V carry their own.
 */
export interface TraceOperand {
  /** The source step's id ('scores', 'project-q', …) or the input's name ('X', 'Q', 'Wq', 'Wo', …). */
  name: StepId | 'X' | 'Q' | 'K' | 'V' | 'Wq' | 'Wk' | 'Wv' | 'Wo' | 'context' | 'alibi' | 'bias';
  /** Plain-text caption without a head index: 'X', 'X + PE', 'W_Q', 'Q', 'S', 'S̃', 'A', 'V', 'O', 'C', 'W_O'. */
  symbol: string;
  /** Zero-based head, on per-head operands when heads > 1. */
  head?: number;
  values: Matrix;
  /** K and V with a pastKey: their first pastRows rows are the cache's, the rest the new tokens'. */
  pastRows?: number;
  /** The rows and columns of values. */
  shape: [rows: number, cols: number];
}

/**
 * One step of the trace. Operands by step: encoding [] (PE itself); positional [X, encoding];
 * project-q/k/v [X (or positional), Wq/Wk/Wv] (project-k/v: [context, Wk/Wv] under
 * cross-attention); rotate-q/k [Q/K head slice]; scores [Q, K] (head slices, or rotate-q/k); scale
 * [scores]; bias [scale, alibi (the bias)]; mask [bias or scale]; softmax [mask, bias or scale];
 * dropout [softmax]; aggregate [dropout or softmax, V slice]; concat [aggregate of each head];
 * output-projection [concat (or aggregate with one head), Wo]. Backward (with dOutput): grad-output
 * []; grad-wo [concat, grad-output]; grad-concat [grad-output, Wo]; grad-v [softmax, ∂O];
 * grad-weights [∂O, V slice]; grad-softmax [softmax, grad-weights]; grad-scores [grad-softmax];
 * grad-q [grad-scores, K slice]; grad-k [grad-scores, Q slice]; grad-wq/wk/wv [X (or positional),
 * ∂Q/∂K/∂V over every head]; grad-x [∂Q, Wq, ∂K, Wk, ∂V, Wv]. ∂O is grad-concat's (or
 * grad-output's) head slice. The families (linear, retention; the learning module): feature-q/k
 * [Q/K slice]; kv-state [feature-k, V slice] (retention: [K, V slices]); normalizer [feature-q,
 * feature-k]; decay []; implied-weights [feature-q, feature-k, normalizer] (retention: [Q, K
 * slices, decay]); aggregate [implied-weights, V slice].
 */
export interface TraceStep {
  id: StepId;
  /** Zero-based head index, on per-head steps when heads > 1. */
  head?: number;
  /** Plain-language name, the same for every head (the head is `head`). */
  title: string;
  /** TeX. */
  formula: string;
  values: Matrix;
  /** The sum of each row of values, masked (-Infinity) entries left out: always finite (1 for every unmasked row of weights). */
  rowTotals: number[];
  operands: TraceOperand[];
  /** Softmax steps only; -Infinity for a fully masked row. */
  rowMax?: number[];
  /** Softmax steps only: each row's sum of exponentials. */
  rowSum?: number[];
  /** Softmax steps only: exp(logit − row max). */
  exponentials?: Matrix;
  /** Scale steps only: the option or the default 1/√d_k, temperature excluded. */
  scale?: number;
  /** Scale steps only. */
  temperature?: number;
  /** Scale steps only: scale / temperature, what multiplies the scores. */
  factor?: number;
  /** Scale steps only: the head width d_k. */
  dk?: number;
  /** Scale steps only: true when scale is the default 1/√d_k (no scale option given). */
  defaultScale?: boolean;
  /** Mask steps only: (n_q, n_k), true where query i may attend to key j. */
  allowed?: boolean[][];
  /** Mask steps only: (n_q, n_k) bit flags of what blocks a cell (1 causal, 2 key padding, 4 mask, 8 window, 16 a -Infinity bias); 0 = allowed. */
  blockedBy?: number[][];
  /** rotate-q / rotate-k steps: (rows, d_k/2) angle of each pair, position · frequencies[i]. */
  angles?: Matrix;
  /** rotate-q / rotate-k steps: θ_i = ropeBase^(−2i/d_k), (d_k/2). */
  frequencies?: number[];
  /** rotate-q / rotate-k steps. */
  ropeBase?: number;
  /** bias steps with ALiBi: the head's slope m_h (the bias matrix B is operand 1, named 'alibi', or 'bias' without ALiBi). */
  slope?: number;
  /** softcap steps: the cap c. */
  softcap?: number;
  /** dropout steps: (n_q, n_k), true where the weight was kept. */
  keep?: boolean[][];
  /** dropout steps: p. */
  rate?: number;
  /** dropout steps: 1 / (1 − p). */
  keepScale?: number;
  /** grad-softmax steps only: rowsum(∂A ⊙ A) of every row, what the Jacobian subtracts. */
  rowDot?: number[];
  /** grad-softmax steps only: the rows whose Jacobian is in `jacobians`. */
  jacobianRows?: number[];
  /** grad-softmax steps only: diag(a) − aaᵀ, (n_k, n_k), for each of jacobianRows. */
  jacobians?: Matrix[];
  /** feature-q / feature-k steps: φ, entry by entry (elu: x > 0 ? x + 1 : eˣ; relu: max(x, 0)) or FAVOR+'s random features of the whole row x (favor: exp(W·x − ‖x‖²/2)/√m), x = featureScale · the input. */
  featureMap?: 'elu' | 'relu' | 'favor';
  /** feature-q / feature-k steps: what multiplies the input before φ (elu, relu: the scale for Q, 1 for K; favor: √scale for both). */
  featureScale?: number;
  /** retention's decay and kv-state steps: γ (kv-state: S_t = γ·S_{t−1} + k_tᵀv_t, from S_0 = 0). */
  decay?: number;
  /** linear attention's normalizer and implied-weights steps: whether query i sees keys j ≤ i only. */
  causal?: boolean;
  /** The rows and columns of values. */
  shape: [rows: number, cols: number];
}

/** One per distinct step id, in trace order; `steps` are the same objects as in Trace.steps. */
export interface TraceGroup {
  id: StepId;
  title: string;
  /** The step's entries, one per head in head order (one entry for whole-sequence steps). */
  steps: TraceStep[];
}

/** trace(): every step of the computation, in order. */
export interface Trace {
  steps: TraceStep[];
  groups: TraceGroup[];
  output: Matrix;
  /** Per head h: the queries of head h that may attend to no key (their weights are zeros). */
  fullyMaskedRows: number[][];
  /** Family 'linear' with featureMap 'favor': W, the m random rows (m, d_k) drawn from the seed, the same for every head's feature-q and feature-k. */
  randomFeatures?: Matrix;
  /** The tokens, when the request gave text. */
  tokens?: string[];
}

/** One head at one position of decode(): only the new rows are computed; the cache grows. */
export interface DecodeHead {
  /** The new row (1, d_k), rotated under RoPE. */
  q: Matrix;
  /** The new row (1, d_k), rotated under RoPE. */
  k: Matrix;
  /** The new row (1, d_v). */
  v: Matrix;
  /** The cache after adding them: (t+1, d_k) (the head's K/V group's; a given pastKey's rows first). */
  keys: Matrix;
  /** The cache after adding them: (t+1, d_v). */
  values: Matrix;
  /** (1, t+1): q·Kᵀ·scale/temperature, plus the ALiBi bias, -Infinity where the window, mask or padding blocks a key. */
  scores: Matrix;
  /** (1, t+1). */
  weights: Matrix;
  /** (1, d_v). */
  output: Matrix;
}

/** One token of decode(): its position and every head's new rows. */
export interface DecodeStep {
  /** t: the token's row, after the n_past rows of a given pastKey. */
  position: number;
  /** Each head's rows at this position. */
  heads: DecodeHead[];
  /** (1, d_out): the heads side by side, times Wo when given. */
  output: Matrix;
}

/** decode(): the steps token by token. */
export interface DecodeTrace {
  /** One per token. */
  steps: DecodeStep[];
  /** (n, d_out): the steps' output rows stacked; equals trace({ ...request, causal: true }).output. */
  output: Matrix;
}

/** Self-attention traced on tokens X as given and reordered: see AttnLab.permutationCheck. */
export interface PermutationCheck {
  /** trace(request).output: (n, d_out). */
  original: Matrix;
  /** The output when row i of X is the original token order[i]: (n, d_out). */
  permuted: Matrix;
  /** original's rows reordered the same way: what equivariance predicts for permuted. */
  predicted: Matrix;
  /** max |permuted − predicted|. */
  maxDifference: number;
  /** How far float rounding alone may move it: 1e-5 · max(1, max |original|). */
  tolerance: number;
  /** maxDifference ≤ tolerance: the same rows, just reordered. */
  reorderedOnly: boolean;
}

/** The gradients of a loss L through attention(); masked cells pass none. */
export interface AttentionGradients {
  /** ∂L/∂Q: (n_q, d_k). */
  dQ: Matrix;
  /** ∂L/∂K: (n_k, d_k). */
  dK: Matrix;
  /** ∂L/∂V: (n_k, d_v). */
  dV: Matrix;
}

/** One step of the tile walk: a query block's visit to a key tile, or the block's end. */
export interface WalkEvent {
  /** A tile visit or the block's finish. */
  kind: 'tile' | 'finish';
  queryBlock: number;
  keyBlock: number;
  firstQuery: number;
  firstKey: number;
  queries: number;
  keys: number;
  /** (queries, keys): the tile's scaled scores, -Infinity where masked (tile events). */
  scores: Matrix;
  oldMax: number[];
  newMax: number[];
  /** exp(oldMax − newMax): what the running sum and accumulator shrink by. */
  rescale: number[];
  sum: number[];
  acc: Matrix;
  /** finish events: acc / sum, the block's rows of the output. */
  output: Matrix;
}

/** flashWalk(): the walk's events and its output. */
export interface FlashWalk {
  events: WalkEvent[];
  output: Matrix;
  /** Floats held at once: the Q, K, V and score tiles, and m, l and acc. */
  tileFloats: number;
  /** Floats of the n_q × n_k score matrix the walk never forms. */
  matrixFloats: number;
}

/** flashAttention() and naiveAttention(): the output, flat. */
export interface LongAttentionResult {
  /** (n_q, heads·d_v), flat. */
  output: FlatMatrix;
  /** Rows whose query sees no key under the causal rule and the window, or only padding or −∞-biased keys (their output is zeros). */
  fullyMaskedRows: number[];
}

/** longLinearAttention() and longRetention(): the output, flat. */
export interface LongLinearResult {
  /** (n_q, heads·d_v), flat. */
  output: Matrix;
  /** Rows where some head's normaliser is 0: that head's columns are zeros (linear attention only). */
  zeroNormalizerRows: number[];
}

/** lab.sampledCells(): the sampled weights and what hides each cell. */
export interface SampledCells {
  /** The weights of the sampled rows (each normalised over all keys) at the sampled columns. */
  weights: Matrix;
  /** true where the causal rule, the window, a padding key or a −∞ bias hides key cols[c] from query rows[r] (its weight is 0). */
  hidden: boolean[][];
  /** The keys each sampled query row sees: its weights sum to 1 over them. */
  visibleKeys: number[];
}

/**
 * lab.flashPlan(): the flash kernel's own rules for a request, for a pass run elsewhere
 * (attnlab/webgpu).
 */
export interface FlashPlan {
  /** d: each query head's slice of Q's columns (and its K/V head's of K). */
  headWidth: number;
  /** d_v: each head's slice of V's columns. */
  valueWidth: number;
  /** The scale: the request's, or 1/√d (the temperature excluded). */
  scale: number;
  /** What multiplies each query head's scores q·k: the scale over the temperature. */
  factors: Float32Array;
  /** Whether some score q·k·scale could pass float32 by the kernel's bound (d · max|q| · max|k| · max(1, scale)), so each score must be checked. */
  mayOverflow: boolean;
  /** (n_q·2): the keys [begin, end) each query of a sequence sees under the causal rule, its alignment and the window; both ends grow with the query, so a block of queries sees from its first query's begin to its last query's end. */
  keyBands: Uint32Array;
  /** Query i sits at key i + positionOffset (n_k − n_q bottom-right, else 0): ALiBi's distances. */
  positionOffset: number;
  /** ALiBi's slope m_h of each query head; empty without ALiBi. */
  slopes: Float32Array;
  /** Whether the bias is one per head (heads·n_q rows) rather than one for every head. */
  biasPerHead: boolean;
  /** The rows of Q that see no key in any head (flashAttention's fullyMaskedRows). */
  fullyMaskedRows: number[];
  /** Query heads per K/V head: query head h reads K/V head ⌊h / kvGroup⌋ (1 without kvHeads). */
  kvGroup: number;
}

/** Br query rows per workgroup, Bc keys per K/V tile, d the head width. */
export interface TilePlan {
  queryRows: number;
  keyRows: number;
  headWidth: number;
  cpuKeyRows: number;
  workgroupStorageBytes: number;
}

/** The same row's softmax without subtracting the max, in float32: what goes wrong. */
export interface SoftmaxWithoutMax {
  /** exp(scaled): Infinity past ≈ 88.72, 0 below ≈ −103.97. */
  exponentials: number[];
  sum: number;
  /** exponentials / sum: NaN for ∞/∞ and 0/0, 0 for finite/∞. */
  weights: number[];
  /** sum is Infinity. */
  overflowed: boolean;
  /** Some exponentials entry is Infinity itself (not only their sum). */
  termOverflowed: boolean;
  /** sum is 0 (every term underflowed). */
  underflowed: boolean;
}

/** One row of softmax, stage by stage, in float32. */
export interface SoftmaxBreakdown {
  temperature: number;
  /** scores / temperature. */
  scaled: number[];
  /** The largest scaled entry. */
  max: number;
  /** scaled − max, all ≤ 0. */
  shifted: number[];
  /** exp(shifted), in (0, 1]. */
  exponentials: number[];
  /** Σ exponentials, ≥ 1. */
  sum: number;
  /** exponentials / sum. */
  weights: number[];
  withoutMax: SoftmaxWithoutMax;
}

/** One d_k of scalingStudy(). */
export interface ScalingPoint {
  dk: number;
  /** Standard deviation of the raw scores q·k (over samples × keys). */
  scoreStd: number;
  sqrtDk: number;
  /** Mean largest weight of softmax(q·k/√d_k). */
  maxWeightScaled: number;
  /** Mean largest weight of softmax(q·k). */
  maxWeightUnscaled: number;
  /** Mean entropy −Σ w ln w (nats) of the scaled rows. */
  entropyScaled: number;
  /** Mean entropy −Σ w ln w (nats) of the unscaled rows. */
  entropyUnscaled: number;
  /** The first query's row: raw scores, (keys). */
  exampleScores: number[];
  /** The first query's row: softmax(q·k/√d_k), (keys). */
  exampleWeightsScaled: number[];
  /** The first query's row: softmax(q·k), (keys). */
  exampleWeightsUnscaled: number[];
}

/** scalingStudy(): why 1/√d_k, per d_k. */
export interface ScalingStudy {
  keys: number;
  samples: number;
  /** ln(keys): the entropy of uniform weights. */
  maxEntropy: number;
  /** One per requested d_k, in order. */
  points: ScalingPoint[];
}

/**
 * linearAttention(): φ(q)ᵀφ(k) in place of exp(q·k), so the sum over keys regroups into a d_k × d_v
 * state (Katharopoulos et al. 2020).
 */
export interface LinearAttentionResult {
  /** request.scale or its default 1: multiplies Q before φ. */
  scale: number;
  /** φ(scale·Q): (n_q, d_k); 'favor': φ(√scale·Q), (n_q, m). */
  featureQ: Matrix;
  /** φ(K): (n_k, d_k); 'favor': φ(√scale·K), (n_k, m). */
  featureK: Matrix;
  /** 'favor': W, the m random rows w_l (orthogonal in blocks of d_k, chi-distributed lengths): (m, d_k); φ(x) = exp(W·x − ‖x‖²/2)/√m. */
  randomFeatures?: Matrix;
  /** φ(K)ᵀV = Σ_j φ(k_j)v_jᵀ over every key: (d_k, d_v), the recurrent form's state after the last key. */
  kvState: Matrix;
  /** Σ_j φ(k_j): (d_k), the normaliser's state after the last key. */
  keySum: number[];
  /** φ(q_i)·Σφ(k_j) over the keys query i sees: (n_q). */
  normalizer: number[];
  /** φ(q_i)·φ(k_j), unnormalised, 0 where causal hides the key ('favor': the estimate of exp(q_i·k_j·scale)): (n_q, n_k); absent past limits().traceScores. */
  kernel?: Matrix;
  /** The implied weights, kernel rows over their normalizer: (n_q, n_k); absent past limits().traceScores. */
  weights?: Matrix;
  /** (n_q, d_v). */
  output: Matrix;
  /** Queries whose normalizer is 0 (relu features that meet no key's, or features underflowing to 0): their weights and output are zeros. */
  zeroNormalizerRows: number[];
}

/** sparsePattern(): which keys each query may attend to, as attention()'s mask takes it. */
export interface SparsePattern {
  /** (n_q, n_k): true where query i may attend to key j; attention({ mask }) and trace({ mask }) take it as it is. */
  mask: boolean[][];
  /** The keys each query may attend to: (n_q). */
  keysPerQuery: number[];
  /** Allowed cells. */
  nonzeros: number;
  /** nonzeros / (n_q·n_k). */
  density: number;
  /** Attention's FLOPs under the pattern at headWidth d: 4·d per allowed cell (q·k and w·v, 2·d each). */
  flops: number;
  /** The same for every cell: 4·d·n_q·n_k. */
  denseFlops: number;
}

/** retention(): (Q·Kᵀ ⊙ D)·V, D_ij = γ^(i−j) for j ≤ i (RetNet, Sun et al. 2023). */
export interface RetentionResult {
  /** γ, request.decay. */
  decay: number;
  /** Q·Kᵀ ⊙ D: (n, n), 0 above the diagonal; absent past limits().traceScores. */
  weights?: Matrix;
  /** S_n = Σ_j γ^(n−1−j) k_jᵀv_j, the recurrent form's state after the last token: (d_k, d_v), whatever n. */
  state: Matrix;
  /** (n, d_v). */
  output: Matrix;
}

/**
 * lowRankAttention(): softmax attention in k dimensions, by the SVD of A or by Linformer's
 * projections (Wang et al. 2020).
 */
export interface LowRankResult {
  /** k, request.rank. */
  rank: number;
  /** request.scale or its default 1/√d_k. */
  scale: number;
  /** svd: A's singular values σ_1 ≥ … ≥ 0, min(n_q, n_k) of them; empty for linformer. */
  singularValues: number[];
  /** output = weights·V: A_k (svd) or softmax(Q·(E·K)ᵀ·scale)·F (linformer, rows need not sum to 1): (n_q, n_k); absent past limits().traceScores. */
  weights?: Matrix;
  /** A, attention()'s weights: (n_q, n_k); absent past limits().traceScores. */
  exactWeights?: Matrix;
  /** (n_q, d_v). */
  output: Matrix;
  /** A·V, attention()'s output: (n_q, d_v). */
  exactOutput: Matrix;
  /** ‖A − weights‖_F, measured cell by cell. */
  weightsError: number;
  /** svd: sqrt(Σ_{i>k} σ_i²), the same error from the spectrum (Eckart–Young). */
  spectrumError?: number;
  /** ‖output − exactOutput‖_F. */
  outputError: number;
  /** linformer: E as used, (rank, n_k). */
  E?: Matrix;
  /** linformer: F as used, (rank, n_k). */
  F?: Matrix;
  /** linformer: softmax(Q·(E·K)ᵀ·scale), the weights over the k projected keys: (n_q, rank). */
  projectedWeights?: Matrix;
}

/** memoryStats(): the core's memory. */
export interface MemoryStats {
  /** Bytes malloc holds now. */
  allocatedBytes: number;
  /** The size of malloc's heap in the wasm memory. */
  heapBytes: number;
  /** Bytes the core holds through operator new now (every matrix it allocates). */
  trackedBytes: number;
  /** The most trackedBytes reached since resetPeakMemory(): a call's working memory. */
  peakTrackedBytes: number;
}

/** checkGradient(): one gradient entry against central finite differences. */
export interface GradientCheck {
  /** The trace's gradient entry (float32). */
  analytic: number;
  /** (L(θ + ε) − L(θ − ε)) / 2ε by a float64 forward, L = Σ dOutput ⊙ Y. */
  numeric: number;
  /** |analytic − numeric| over the largest of |analytic|, |numeric| and the largest |entry| of the analytic gradient. */
  relativeError: number;
  /** ε = 1e-6 · max(1, |θ|). */
  epsilon: number;
}

/** A trainer's step(): where the training stands. */
export interface TrainingProgress {
  /** Steps taken since the trainer was made. */
  step: number;
  /** The last step's batch: mean cross-entropy over its target positions. */
  loss: number;
  /** The fixed evaluation batch: mean cross-entropy over its target positions. */
  heldOutLoss: number;
  /** Argmax = target over the fixed evaluation batch's target positions, 0 … 1. */
  accuracy: number;
  /** previousToken[layer][head]: the head's mean weight on the token before, on the induction probe (HeadScores' previousToken), 0 … 1. */
  previousToken: number[][];
  /** induction[layer][head]: on the induction probe (distinct random tokens, then the same again), the head's mean weight from each token of the copy on the token after its earlier occurrence (HeadScores' induction), 0 … 1. */
  induction: number[][];
}

/** A trainer's attention(): the fixed sample and every head's weights on it. */
export interface TrainingAttention {
  /** The sample's token ids (contextLength). */
  tokenIds: number[];
  /** weights[layer][head]: contextLength × contextLength. */
  weights: Matrix[][];
}

/** A trainer's model(layer): one layer on the sample, as trace() takes it (with causal: true). */
export interface TrainedLayer {
  /** The residual stream entering the layer (layer 1: E[tokenIds] + P): (contextLength, dModel). */
  X: Matrix;
  /** (dModel, dModel). */
  Wq: Matrix;
  /** (dModel, dModel). */
  Wk: Matrix;
  /** (dModel, dModel). */
  Wv: Matrix;
  /** (dModel, dModel). */
  Wo: Matrix;
  /** Heads per layer. */
  heads: number;
  /** The sample's token ids (contextLength). */
  tokenIds: number[];
}

/** One block of the model on a text (n tokens, width dModel); norm1 is the X its attention takes. */
export interface ModelBlock {
  /** The residual stream entering the block: (n, dModel). */
  input: Matrix;
  /** LayerNorm(input): (n, dModel). */
  norm1: Matrix;
  /** Each head's weights (n × n), computed as trace() computes them for norm1 and the block's W_Q, W_K, W_V. */
  attention: Matrix[];
  /** The heads concatenated times W_O: (n, dModel). */
  attentionOutput: Matrix;
  /** LayerNorm(input + attentionOutput): (n, dModel). */
  norm2: Matrix;
  /** GELU(norm2·W_fc + b_fc)·W_proj + b_proj: (n, dModel). */
  mlpOutput: Matrix;
  /** input + attentionOutput + mlpOutput: (n, dModel). */
  output: Matrix;
}

/** A language model's forward(): the logits and every block's steps. */
export interface ModelForward {
  /** One per block, in order. */
  blocks: ModelBlock[];
  /** (n, vocab): row i scores the token after token i. */
  logits: LogitRows;
}

/** A head's scores, each a mean attention weight 0 … 1 (head_scores.hpp). */
export interface HeadScores {
  /** Attention to the token before. */
  previousToken: number;
  /** Attention to the first token. */
  firstToken: number;
  /** With a period (the tokens are a sequence repeated): attention to the earlier copy of the token. */
  duplicateToken?: number;
  /** With a period: attention to the token after the earlier copy (Olsson et al. 2022). */
  induction?: number;
  /** The core's name for what the head does: of the scores measured, the one furthest above what uniform causal attention would score (as a ratio), if at least twice that; else 'spread'. */
  role: 'previous-token' | 'first-token' | 'duplicate-token' | 'induction' | 'spread';
  /** The score behind the role (for 'spread', the score closest to standing out). */
  roleScore: number;
}

/** nextTokenDistribution(): the kept token ids, likeliest first, and their probabilities. */
export interface TokenDistribution {
  /** The kept token ids, likeliest first. */
  tokenIds: number[];
  /** Each one's probability: softmax(logits / temperature) over the kept ones. */
  probabilities: number[];
}

/** headWeights(): one head's columns of its layer's W_Q, W_K and W_V. */
export interface ModelHeadWeights {
  /** (dModel, dModel / heads). */
  Wq: Matrix;
  /** (dModel, dModel / heads). */
  Wk: Matrix;
  /** (dModel, dModel / heads). */
  Wv: Matrix;
}

// ---- End of the generated result interfaces ----

// What the package adds to the core's results.

/** The request's token labels, passed through (decode(), permutationCheck()). */
export interface TokenLabels {
  tokens?: string[];
}

/** memoryStats(): the learning module's share, which the package asks that module for. */
export interface LearningMemory {
  /** Bytes malloc holds in the learning module; 0 before it loads. */
  learningAllocatedBytes: number;
}

/** A matrix as flat row-major float32 data: what long-sequence kernels return. */
export interface FlatMatrix {
  rows: number;
  cols: number;
  data: Float32Array;
}

export interface CheckedLongAttentionRequest extends LongAttentionOptions {
  Q: FlatMatrix;
  K: FlatMatrix;
  V: FlatMatrix;
  causal: boolean;
  heads: number;
}

/**
 * What is learned at each target position i of a sequence x (n = context, m = ⌈n/2⌉):
 * 'previous-token' x[i−1] (i ≥ 1); 'copy-first' x[0] (i ≥ 1); 'reverse' (m random tokens,
 * then the same reversed) x[i+1] for i ≥ m−1; 'induction' (m random tokens, then the same
 * again) x[i+1] for i ≥ m; 'induction-anywhere' (p random tokens, 2 ≤ p ≤ n−2 drawn per
 * sequence, then the same again, so the copy's start is no clue) x[i+1] for i ≥ p.
 */
export type TrainingTask = 'previous-token' | 'copy-first' | 'reverse' | 'induction' | 'induction-anywhere';

/**
 * A tiny attention-only transformer in the core: token and learned position embeddings,
 * causal multi-head attention layers with W_O added to the residual stream, unembedding,
 * cross-entropy, Adam. It holds memory in the wasm heap until delete(); after that every
 * method throws 'invalid-argument'. To start again, make a new one.
 */
export interface Trainer {
  /** count Adam steps (1 … limits().trainSteps, default 1), then the progress. */
  step(count?: number): TrainingProgress;
  /**
   * The fixed sample's token ids and every head's weights on it: weights[layer][head]
   * (contextLength × contextLength). `tokens`, the older name of tokenIds, still reads.
   */
  attention(): TrainingAttention & OlderTokenIds;
  /**
   * Layer `layer` (0 … layers − 1, default 0: layer 1) on the sample, as trace() takes it
   * (with causal: true): X, the residual stream entering the layer (layer 1: E[tokenIds] + P;
   * contextLength × dModel), Wq, Wk, Wv (dModel × dModel), Wo, heads, and the token ids
   * (`tokens`, their older name, still reads).
   */
  model(layer?: number): TrainedLayer & OlderTokenIds;
  /** Frees the core's trainer (a second call does nothing). */
  delete(): void;
}

/** A result's token ids under their older name too (`tokens`, read-only). */
export interface OlderTokenIds {
  /** @deprecated The older name of tokenIds. */
  readonly tokens: number[];
}

/**
 * forward()'s logits, one row per token: the tokens are never empty (forward() refuses none),
 * so `logits.at(-1)` is the last token's row, what nextTokenDistribution() takes.
 */
export interface LogitRows extends Array<number[]> {
  at(index: number): number[];
}

/** What `npm run train-model` writes (model/README.md): model.json and tokenizer.json parsed, weights.bin's bytes. */
export interface ModelFiles {
  model: { format: 'attnlab-model-1'; config: { vocab: number; context: number; d_model: number; layers: number; heads: number }; weights: { count: number } };
  tokenizer: { merges: [number, number][] };
  weights: ArrayBuffer | Uint8Array;
}

/** The Hugging Face layout: every layer ([layer][batch of 1][head][query][key]) or one layer ([head][query][key]). */
export type ImportedAttentionJson =
  | (Omit<ImportedAttentionFields, 'attention'> & Required<Pick<ImportedAttentionFields, 'attentions'>> & { attention?: undefined })
  | (Omit<ImportedAttentionFields, 'attentions'> & Required<Pick<ImportedAttentionFields, 'attention'>> & { attentions?: undefined });

/** An import the core accepted: the tokens, every head's weights ([layer][head], n × n) and scores. */
export interface ImportedAttention {
  tokens: string[];
  attention: number[][][][];
  scores: HeadScores[][];
}

/** A head of the little model, 0-based. */
export interface ModelHead {
  layer: number;
  head: number;
}

/**
 * Heads to switch off in forward() and loss(): each listed head's output (its attention
 * weights times its values, the d_head columns it adds to the concatenation before W_O) is
 * replaced. 'zero' (the default): by zeros, as if its rows of W_O were zero. 'mean': in every
 * position by that head's output averaged over the n positions of this text in the same pass
 * (earlier layers' ablations applied), so each position then sees later positions' mean too.
 * Its attention weights are still computed and returned.
 */
export interface ModelAblation {
  /** Heads to ablate, each { layer: 0 … layers − 1, head: 0 … heads − 1 }; none: the plain pass. */
  ablate?: ModelHead[];
  /** What replaces the head's output. Default 'zero'. */
  ablation?: 'zero' | 'mean';
  /** Heads computed by a cheaper attention instead of softmax (see ModelReplacement). */
  replace?: ModelReplacement;
}

/** forward()'s options: the interventions, and whether to copy out every block. */
export interface ModelForwardOptions extends ModelAblation, Pick<ForwardRequest, 'blocks'> {}

/**
 * Heads of the little model computed by a cheaper attention: each replaced head's output and
 * weights come from the family, on that head's own Q, K and V, causal as the model is, and the
 * rest of the model runs as trained. 'softmax': the head as trained. Each family takes its own
 * entry's options (linearAttention, retention, lowRankAttention with 'svd', sparsePattern),
 * less what the model sets (causal, the form, the sizes). An ablation of the same head applies
 * to the replaced head's output.
 */
export type ModelReplacement = { heads: ModelHead[] | 'all' } & (
  | { family: 'softmax' }
  | ({ family: 'linear' } & ReplaceLinear)
  | ({ family: 'retention' } & ReplaceRetention)
  | ({ family: 'lowRank' } & ReplaceLowRank)
  | ({ family: 'sparse' } & ReplaceSparse)
);

/**
 * The little language model (a GPT-style decoder trained on the State of the Union addresses)
 * in the model module's heap until delete(); after that every method throws 'invalid-argument'.
 */
export interface LanguageModel {
  readonly config: Readonly<ModelConfig & {
    /** @deprecated The older name of contextLength. */
    context: number;
  }>;
  /** The text's token ids and each token's text (byte-level BPE); at most limits().tokenizeBytes bytes of UTF-8. `tokens`, the older name of tokenIds, still reads. */
  tokenize(text: string): { tokenIds: number[]; pieces: string[] } & OlderTokenIds;
  /** Each token id's text, as tokenize() gives it (a piece that splits a UTF-8 character shows U+FFFD); at most limits().tokenizeBytes ids. */
  pieces(tokenIds: ArrayLike<number>): string[];
  /**
   * The distribution generate() draws the next token from, for one row of forward()'s logits
   * (vocab numbers): the kept token ids, likeliest first, and their probabilities,
   * softmax(logits / temperature) over the top k (0: all); temperature 0 keeps the likeliest
   * alone, with probability 1. `tokens`, the older name of tokenIds, still reads.
   */
  nextTokenDistribution(logits: ArrayLike<number>, options?: DistributionOptions): TokenDistribution & OlderTokenIds;
  /**
   * Logits (n × vocab: row i scores the token after token i) and every block's steps; with
   * options.ablate, those heads switched off (see ModelAblation). `ablate: []` gives the plain
   * pass, the same numbers.
   */
  forward(tokenIds: ArrayLike<number>, options?: ModelForwardOptions): ModelForward;
  /**
   * The loss of each next token in nats, n − 1 numbers: entry i is
   * −log p(tokenIds[i + 1] | tokenIds[0 … i]), with options.ablate's heads switched off.
   * At least 2 token ids.
   */
  loss(tokenIds: ArrayLike<number>, options?: ModelAblation): number[];
  /**
   * Attention rollout (Abnar & Zuidema 2020) after each layer, [layer] (n × n): per layer the
   * mean of its heads' weights A, then 0.5·A + 0.5·I with rows renormalised, multiplied
   * through the layers (float64). Row i: how much each input token reaches position i; rows
   * sum to 1.
   */
  rollout(tokenIds: ArrayLike<number>): Matrix[];
  /** count token ids after the prompt through a KV cache; temperature 0 takes the likeliest, topK 0 keeps all. */
  generate(prompt: ArrayLike<number>, options: Omit<GenerateRequest, 'prompt'> & SampleOptions): number[];
  /** [layer][head] scores on the tokens; period: the length of a repeated sequence (0: none). */
  headScores(tokenIds: ArrayLike<number>, period?: number): HeadScores[][];
  /**
   * One head's columns of its layer's W_Q, W_K and W_V (dModel × dModel / heads each), 0-based
   * layer and head: with forward(tokenIds).blocks[layer].norm1 as X, trace({ X, Wq, Wk, Wv,
   * causal: true }) gives that head's weights, the stepper's view of it.
   */
  headWeights(layer: number, head: number): ModelHeadWeights;
  /** The induction probe: period random tokens from the seed, then the same again (for headScores(tokenIds, period)). */
  inductionProbe(period: number, seed?: number): number[];
  /** Frees the core's model (a second call does nothing). */
  delete(): void;
}

/**
 * Every entry takes one request object and returns plain values (nothing to .delete()):
 * matrices as number[][], except the flat FlatMatrix of flashAttention, naiveAttention and
 * normalMatrix. Bad input throws AttnLabError. A request is read as data: its own fields only,
 * each read once. A field the entry does not take (the message suggests the closest known
 * one: "casual: did you mean causal?"), a hole in an array, a typed array whose `length` is not
 * what it holds, a symbol key, or a getter or Proxy that throws is 'invalid-argument', naming
 * the field; a refused call leaves the core's memory as it was.
 */
export interface AttnLab {
  /** The SIMD instruction set of the core ("sse4.1" is mapped onto wasm SIMD128). */
  readonly simdArch: string;
  /** The most threads one long-sequence call uses: 1, or up to 4 with createAttnLab({ threads: true }). */
  readonly threads: number;
  /** The core's documented limits, one table (README, "Limits"). */
  limits(): Limits;
  /** The core's step ids in trace order (STEP_IDS mirrors them). */
  stepIds(): StepId[];
  /** The core's error codes (ERROR_CODES mirrors them). */
  errorCodes(): ErrorCode[];
  /** Every entry's request fields as the core declares them (without their docs, which are these typings'); the model's entries once this lab's loadModel() or importAttention() has loaded its module; and the mask's blockedBy bits. */
  schema(): Schema;
  attention(request: AttentionRequest): AttentionResult;
  /** The backward pass of attention(): dQ, dK, dV given dOutput = ∂L/∂O (same options and limits). */
  attentionBackward(request: AttentionBackwardRequest): AttentionGradients;
  trace(request: TraceRequest): Trace;
  /**
   * Loads the learning module once (a download of its own, about 95 KB gzipped): the backward
   * steps of trace() (a request with dOutput), checkGradient() and the trainer.
   */
  loadLearning(): Promise<void>;
  /**
   * One entry of a backward step's gradient against central finite differences of
   * L = Σ dOutput ⊙ Y in float64. The request is trace()'s, with dOutput. Needs loadLearning().
   */
  checkGradient(request: TraceRequest, at: GradientAt): GradientCheck;
  /**
   * Causal self-attention token by token, as in generation with a KV cache (at most
   * limits().decodeTokens tokens): the trace's request, causal implied; no context, no dropout.
   * With pastKey and pastValue it continues from that cache (at most limits().decodeKeys keys in
   * all): the request's tokens are the next ones, each query the last of its keys (bottom-right).
   */
  decode(request: ProjectionTraceRequest | DirectTraceRequest): DecodeTrace & TokenLabels;
  /** KV-cache bytes per token: 2 · layers · kvHeads · headWidth · bytesPerValue. */
  kvCacheBytes(request: KvCacheShape): number;
  /**
   * Traces X as given and with its rows reordered (new row i = token order[i], a permutation
   * of 0…n−1; positions stay 0…n−1). Without positional encoding or a mask the permuted output
   * is the original's rows reordered; sinusoidal positions or a causal mask change it.
   */
  permutationCheck(request: PermutationCheckRequest): PermutationCheck & PermutationOrder & TokenLabels;
  /** The older form: the trace request and the order apart. */
  permutationCheck(request: ProjectionTraceRequest, order: number[]): PermutationCheck & PermutationOrder & TokenLabels;
  /** The flash kernel (tiled, FlashAttention-style): O(n·d) memory, for long sequences. */
  flashAttention(request: LongAttentionRequest): LongAttentionResult;
  /** The naive kernel (forms each n×n score matrix), for comparison. */
  naiveAttention(request: LongAttentionRequest): LongAttentionResult;
  /**
   * Checks a request as flashAttention would, less the work limits (flashScores,
   * flashMultiplyAdds: the computing is elsewhere); returns it with flat float32 matrices.
   */
  checkFlashAttention(request: LongAttentionRequest): CheckedLongAttentionRequest;
  /**
   * Exact weights of one head for chosen rows (at most 32) and columns (at most 4096), each row
   * normalised over all keys.
   */
  sampledWeights(request: SampledWeightsRequest): Matrix;
  /** sampledWeights' weights with, for the same cells, which the rules hide (causal, window, padding, −∞ bias), and how many keys each sampled row sees (the core's rules). */
  sampledCells(request: SampledWeightsRequest): SampledCells;
  /** How the flash kernel runs the request's heads, for a pass run elsewhere (attnlab/webgpu): checked as flashAttention checks it. */
  flashPlan(request: LongAttentionRequest): FlashPlan;
  /** The FlashAttention tile walk of a small problem, one tile visit at a time (the flash view). */
  flashWalk(request: FlashWalkRequest): FlashWalk;
  /** The tile plan for head width d (null beyond the supported widths). */
  tilePlan(request: TilePlanRequest): TilePlan | null;
  /** The older form: tilePlan(headWidth). */
  tilePlan(headWidth: number): TilePlan | null;
  /**
   * A tiny transformer that the core trains on a toy task; call delete() when done. The trainer
   * is in the learning module (dist/attnlab-learn.js + .wasm), loaded by the first call; a bad
   * config rejects with an AttnLabError before it loads.
   */
  trainer(config?: TrainerConfig): Promise<Trainer>;
  /**
   * The little language model. Without files, the package's own (model/model.json,
   * tokenizer.json and weights.bin, about 1.5 MB: fetched in a browser relative to the package's
   * files, read from disk in Node) on the first call only; a file that cannot be read rejects
   * with a LoadError. With files, a model of the same format (`npm run train-model`). The model
   * module (dist/attnlab-model.js + .wasm) is loaded by the first call either way. Files of the
   * wrong shape reject with an AttnLabError.
   */
  loadModel(files?: ModelFiles): Promise<LanguageModel>;
  /**
   * Bring your own attention: a real model's weights in the Hugging Face `output_attentions`
   * layout, checked by the core (in the model module, loaded by the first call; the model's
   * weights are not): every head n × n for the n tokens, weights finite and in 0 … 1, each row
   * summing to 1 within 0.01 (float16 exports round), at most limits().importLayers layers,
   * limits().maxHeads heads, limits().traceTokens tokens and limits().importValues weights in
   * all. A bad import rejects with an AttnLabError naming the layer, head and row. The heads'
   * scores and roles are the core's, as for the little model.
   *
   * Written from Python with `transformers`:
   * ```python
   * import json
   * from transformers import AutoModel, AutoTokenizer
   * tok = AutoTokenizer.from_pretrained("gpt2")
   * model = AutoModel.from_pretrained("gpt2", attn_implementation="eager")
   * inputs = tok("The cat sat on the mat because it was tired.", return_tensors="pt")
   * out = model(**inputs, output_attentions=True)
   * json.dump({"tokens": tok.convert_ids_to_tokens(inputs["input_ids"][0]),
   *            "attentions": [layer.tolist() for layer in out.attentions]},
   *           open("attention.json", "w"))
   * ```
   */
  importAttention(json: ImportedAttentionJson): Promise<ImportedAttention>;
  /** The sinusoidal positional encoding: (tokens, width). */
  sinusoidalEncoding(request: SinusoidalEncodingRequest): Matrix;
  /** The older form: sinusoidalEncoding(positions, width). */
  sinusoidalEncoding(positions: number, width: number): Matrix;
  /** One row of softmax stage by stage, and what goes wrong without the max (default temperature 1). */
  softmaxBreakdown(request: SoftmaxBreakdownRequest): SoftmaxBreakdown;
  /** The older form: softmaxBreakdown(scores, temperature). */
  softmaxBreakdown(scores: ArrayLike<number>, temperature?: number): SoftmaxBreakdown;
  /** Why 1/√d_k: the spread of q·k and the softmax rows, scaled and unscaled, per d_k. */
  scalingStudy(request: ScalingStudyRequest): ScalingStudy;
  /** rows × cols values drawn from N(0, 1) by the core's seeded generator, flat (row-major). */
  normalMatrix(request: NormalMatrixRequest): FlatMatrix;
  /** Linear attention (Katharopoulos et al. 2020; featureMap 'favor': Performer's FAVOR+ random features), parallel or recurrent: the output, φ(Q), φ(K), the state φ(K)ᵀV, and the implied weights within limits().traceScores. */
  linearAttention(request: LinearAttentionRequest): LinearAttentionResult;
  /** Retention (RetNet, Sun et al. 2023), parallel or recurrent: the output, the state and Q·Kᵀ ⊙ D within limits().traceScores. */
  retention(request: RetentionRequest): RetentionResult;
  /** A sparse pattern (BigBird's window, global tokens and random keys, per token or per block; the Sparse Transformer's stride), their union as attention()'s mask (true = may attend), with its nonzeros, density and FLOPs against dense. */
  sparsePattern(request: SparsePatternRequest): SparsePattern;
  /** Low-rank attention: A's best rank-k approximation A_k by its SVD (with the singular values and the Eckart–Young error), or Linformer's projections E and F; each beside exact attention's A and A·V. */
  lowRankAttention(request: LowRankAttentionRequest): LowRankResult;
  /** Linear attention ('elu' or 'relu') as a long kernel: O(n·d·d_v), causal by chunks with the state carried across, heads, kvHeads, batch and threads as flashAttention; the output flat. */
  longLinearAttention(request: LongLinearAttentionRequest): LongLinearResult;
  /** Retention (decay γ) as a long kernel: causal by chunks with the decayed state carried across, heads, kvHeads, batch and threads as flashAttention; the output flat. */
  longRetention(request: LongRetentionRequest): LongLinearResult;
  memoryStats(): MemoryStats & LearningMemory;
  /** Starts a new peak for memoryStats().peakTrackedBytes from the bytes held now. */
  resetPeakMemory(): void;
}

/** Loads the wasm core once and resolves to the API. Throws AttnLabError on bad input. */
/** createAttnLab's options. */
export interface AttnLabOptions {
  /**
   * Load the core built with pthreads, so the long-sequence kernels (flashAttention,
   * naiveAttention) run on several threads (at most 4). Used where memory can be shared with
   * workers: in Node, and on a cross-origin-isolated page (served with
   * `Cross-Origin-Opener-Policy: same-origin` and `Cross-Origin-Embedder-Policy: require-corp`);
   * elsewhere the single-threaded core loads. `lab.threads` says which. Default false.
   */
  threads?: boolean;
}

export declare function createAttnLab(options?: AttnLabOptions): Promise<AttnLab>;
