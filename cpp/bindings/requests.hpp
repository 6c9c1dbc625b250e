// Every request field of the package, declared once (request_reader.hpp says how a row is
// read), in groups that request_entries.hpp places in each entry's request: the core module
// (bindings.cpp) and the learning module (learn_bindings.cpp) read their requests through
// these tables, and lab.schema() exports them. A new field is one row here beside the C++
// member it fills.
#pragma once

#include <array>
#include <utility>

#include "attnlab/attnlab.hpp"
#include "attnlab/training.hpp"
#include "efficient_requests.hpp"  // the cheaper attentions' rows, which trace() takes too
#include "request_reader.hpp"

namespace attnlab::bindings {

#define F ATTNLAB_FIELD

// ---- Request structs of the entries whose fields are not one core struct ----------------

struct AttentionGradientInput {
  Matrix d_output;
};
struct SampledCells {
  int head = 0;
  std::vector<std::size_t> rows, cols;
};
struct SinusoidalEncodingRequest {
  std::size_t positions = 0, width = 0;
};
struct SoftmaxBreakdownRequest {
  std::vector<float> scores;
  float temperature = 1.0f;
};
struct TilePlanRequest {
  std::size_t head_width = 0;
};
struct NormalMatrixRequest {
  std::size_t rows = 0, cols = 0;
  std::uint64_t seed = 1;
};
struct StepRequest {
  std::size_t count = 1;
};
struct GradientAt {
  std::string parameter;
  std::size_t row = 0, col = 0;
};
struct PermutationOrder {
  std::vector<std::size_t> order;
};

inline constexpr const char* alignments[] = {"top-left", "bottom-right"};
inline constexpr const char* positionals[] = {"none", "sinusoidal"};
// The names checkGradient() takes (attnlab::gradient_parameters), listed for the schema and
// the typings; the field keeps the string, which the core checks.
template <std::size_t... I>
constexpr std::array<const char*, sizeof...(I)> gradient_parameter_names(
    std::index_sequence<I...>) {
  return {attnlab::gradient_parameters[I].data()...};  // literals: each ends in a null
}
inline constexpr auto gradient_parameters =
    gradient_parameter_names(std::make_index_sequence<std::size(attnlab::gradient_parameters)>{});
constexpr Field naming(Field f, const auto& names) {
  f.choices = names.data();
  f.choice_count = static_cast<std::uint8_t>(names.size());
  return f;
}
// trace()'s families (TraceFamily).
inline constexpr const char* trace_families[] = {"softmax", "linear", "retention"};
inline constexpr const char* training_tasks[] = {"previous-token", "copy-first", "reverse",
                                                 "induction", "induction-anywhere"};

// ---- Groups: a run of fields of one struct, named for its interface in attnlab.d.ts ---------

inline constexpr Field qkv_fields[] = {
    F(DirectQKV, q, "Q", "(n_q, heads·d_k)").need(),
    F(DirectQKV, k, "K", "(n_k, kvHeads·d_k)").need(),
    F(DirectQKV, v, "V", "(n_k, kvHeads·d_v)").need(),
};
inline constexpr Group qkv_group = group<DirectQKV>("QKVInput", qkv_fields);

inline constexpr Field qk_fields[] = {qkv_fields[0], qkv_fields[1]};
inline constexpr Group qk_group = group<DirectQKV>("QKInput", qk_fields);

// The score rules (ScoreRules, score_rules.hpp), each row declared once. AttentionOptions,
// LongAttentionOptions and a trace's options embed ScoreRules as their first base, at offset 0, so
// one row fills either struct; each group below lists the rules its entries take.
enum class Rule : std::uint8_t {
  causal,
  alignment,
  window,
  key_padding,
  mask,
  scale,
  temperature,
  softcap,
  bias,
  alibi,
  global_tokens,
  past_key,
  past_value,
  count
};

inline constexpr Field rule_fields[static_cast<std::size_t>(Rule::count)] = {
    F(ScoreRules, causal, "causal",
      "Query i may not attend to a key after its position (i, or i + n_k − n_q bottom-right)."),
    F(ScoreRules, causal_alignment, "causalAlignment",
      "Where the queries sit among the keys, for the causal rule and the window.")
        .one_of(alignments),
    F(ScoreRules, window, "window",
      "Sliding window: w lets query i see key j when |i − j| < w (0 = off), or { left, right }."),
    F(ScoreRules, key_padding, "keyPadding",
      "One flag per key; true marks padding that no query attends to."),
    F(ScoreRules, mask, "mask", "(n_q, n_k): true where query i may attend to key j."),
    F(ScoreRules, scale, "scale", "Multiplies the scores; default 1/√d_k."),
    F(ScoreRules, temperature, "temperature", "Divides the scaled scores."),
    F(ScoreRules, softcap, "softcap",
      "Logit soft-capping: the scaled scores become softcap·tanh(S̃ / softcap); default off."),
    F(ScoreRules, bias, "bias",
      "An additive bias on the scaled scores, (n_q, n_k), or one per head (heads·n_q, n_k) in a "
      "trace or the long-sequence kernels (the same for every sequence); −Infinity blocks the "
      "key."),
    F(ScoreRules, alibi, "alibi",
      "ALiBi: −m_h·|p − j| added to head h's scaled scores, p the query's key position, m_h = "
      "2^(−8(h+1)/heads)."),
    F(ScoreRules, global_tokens, "globalTokens",
      "Positions exempt from the window both ways (at most limits().globalTokens)."),
    F(ScoreRules, past_key, "pastKey",
      "A past KV cache's keys (ONNX's past_key): n_past rows, K's columns; K's rows follow them."),
    F(ScoreRules, past_value, "pastValue",
      "The cache's values (ONNX's past_value): n_past rows, V's columns; V's rows follow them."),
};

constexpr Field rule(Rule r) { return rule_fields[static_cast<std::size_t>(r)]; }

inline constexpr Field attention_fields[] = {
    rule(Rule::causal),     rule(Rule::alignment),     rule(Rule::key_padding),
    rule(Rule::mask),       rule(Rule::scale),         rule(Rule::temperature),
    rule(Rule::softcap),    rule(Rule::bias),          rule(Rule::alibi),
    rule(Rule::window),     rule(Rule::global_tokens), rule(Rule::past_key),
    rule(Rule::past_value),
};
inline constexpr Group attention_group =
    group<AttentionOptions>("AttentionOptions", attention_fields);

inline constexpr Field gradient_fields[] = {
    F(AttentionGradientInput, d_output, "dOutput",
      "∂L/∂O, the loss's gradient at the output: (n_q, d_v).")
        .need(),
    F(AttentionGradientInput, d_output, "dOutput", "").deprecated_name("dO"),
};
inline constexpr Group gradient_group =
    group<AttentionGradientInput>("AttentionGradientInput", gradient_fields);

inline constexpr Field projection_fields[] = {
    F(Projections, x, "X", "Token embeddings: (n, d_model).").need(),
    F(Projections, w_q, "Wq", "(d_model, heads·d_k)").need(),
    F(Projections, w_k, "Wk", "(d_model, kvHeads·d_k)").need(),
    F(Projections, w_v, "Wv", "(d_model, kvHeads·d_v)").need(),
    F(Projections, context, "context",
      "Cross-attention: (n_k, d_model); K and V are projected from it, Q from X."),
};
inline constexpr Group projections_group = group<Projections>("ProjectionInput", projection_fields);

inline constexpr Field trace_fields[] = {
    F(TraceInput, w_o, "Wo", "(heads·d_v, d_out), applied to the concatenated heads."),
    F(TraceInput, heads, "heads", "Splits the columns of Q, K and V into equal slices.")
        .range("1", "maxHeads"),
    F(TraceInput, positional, "positional",
      "The sinusoidal encoding added to X (and to the context); X only.")
        .one_of(positionals),
    F(TraceInput, rope, "rope",
      "RoPE: each head's q and k rows rotated in pairs by position·ropeBase^(−2i/d_k); d_k even."),
    F(TraceInput, rope_base, "ropeBase",
      "RoPE's base: pair i of a head turns by position·ropeBase^(−2i/d_k)."),
    F(TraceInput, kv_heads, "kvHeads",
      "K/V heads: 0 = heads, 1 = multi-query, else grouped-query (dividing heads); K and V (or Wk, "
      "Wv) "
      "have kvHeads·d columns.")
        .range("0", "maxHeads"),
    F(TraceInput, dropout, "dropout",
      "Dropout on the weights, 0 ≤ p < 1: kept with probability 1 − p, scaled by 1/(1 − p).")
        .as(Kind::probability),
    F(TraceInput, dropout_seed, "dropoutSeed",
      "The dropout mask's seed; the same seed gives the same mask everywhere."),
};
inline constexpr Group trace_group = group<TraceInput>("TraceOptions", trace_fields);

inline constexpr Field backward_fields[] = {
    F(TraceInput, d_output, "dOutput",
      "∂L/∂Y, the output's shape: the backward steps follow the forward ones (the learning "
      "module: await lab.loadLearning() first)."),
    F(TraceInput, jacobian_row, "jacobianRow",
      "The query row whose softmax Jacobian the grad-softmax steps carry; without it every row "
      "when "
      "n_q·n_k²·heads ≤ limits().traceScores, else row 0."),
};
inline constexpr Group backward_group = group<TraceInput>("BackwardFields", backward_fields);

// trace()'s cheaper attentions: linearAttention()'s and retention()'s settings, by their names.
inline constexpr Field family_fields[] = {
    F(TraceInput, family, "family", "What each head computes.").one_of(trace_families),
    F(TraceInput, feature_map, "featureMap", "'linear': φ.").one_of(feature_maps),
    F(TraceInput, features, "features", "'linear', 'favor': m.").range("1", "favorFeatures"),
    F(TraceInput, seed, "seed", "'linear', 'favor': the seed."),
    F(TraceInput, decay, "decay", "'retention': γ in (0, 1]."),
};
inline constexpr Group family_group = group<TraceInput>("TraceFamilyOptions", family_fields);

inline constexpr Field order_fields[] = {
    F(PermutationOrder, order, "order", "A permutation of 0…n−1: new row i is token order[i].")
        .need(),
};
inline constexpr Group order_group = group<PermutationOrder>("PermutationOrder", order_fields);

inline constexpr Field cache_fields[] = {
    F(KvCacheShape, layers, "layers", "Layers of the model.").need().range("1", "cacheLayers"),
    F(KvCacheShape, kv_heads, "kvHeads", "K/V heads per layer.").need().range("1", "cacheKvHeads"),
    F(KvCacheShape, head_width, "headWidth", "The head width d_k.")
        .need()
        .range("1", "cacheHeadWidth"),
    F(KvCacheShape, head_width, "headWidth", "").deprecated_name("headDim"),
    F(KvCacheShape, bytes_per_value, "bytesPerValue",
      "Bytes per cached number: 2 for fp16/bf16, 1 for fp8, 4 for fp32.")
        .need()
        .range("1", "cacheValueBytes"),
};
inline constexpr Group cache_group = group<KvCacheShape>("KvCacheShape", cache_fields);

inline constexpr Field long_fields[] = {
    rule(Rule::causal),
    rule(Rule::alignment),
    rule(Rule::window),
    F(LongAttentionOptions, heads, "heads",
      "Query heads: equal column slices of Q (the core checks that they divide its width)."),
    F(LongAttentionOptions, kv_heads, "kvHeads",
      "K/V heads (grouped-query attention): 0 = heads, else a divisor of heads; query head h reads "
      "K/V head ⌊h / (heads / kvHeads)⌋."),
    rule(Rule::scale),
};
inline constexpr Group long_sequence_group =
    group<LongAttentionOptions>("LongAttentionOptions", long_fields);

// What only the long-sequence kernels take (not sampledWeights).
inline constexpr Field kernel_fields[] = {
    F(LongAttentionOptions, threads, "threads",
      "Threads to run on; 0: lab.threads. The single-threaded core always uses 1."),
    F(LongAttentionOptions, batch, "batch",
      "Sequences: Q, K and V rows split into this many, each attending only to its own."),
};
inline constexpr Group kernel_group = group<LongAttentionOptions>("KernelOptions", kernel_fields);

// The score rules beyond the band: the long-sequence kernels and sampledWeights.
inline constexpr Field score_rule_fields[] = {
    rule(Rule::key_padding), rule(Rule::temperature), rule(Rule::softcap),
    rule(Rule::bias),        rule(Rule::alibi),
};
inline constexpr Group score_rules_group =
    group<LongAttentionOptions>("ScoreRules", score_rule_fields);

inline constexpr Field sampled_fields[] = {
    F(SampledCells, head, "head", "The query head whose weights are sampled (0 … heads − 1)."),
    F(SampledCells, rows, "rows", "Query rows (at most limits().sampledRows).").need(),
    F(SampledCells, cols, "cols", "Key columns (at most limits().sampledCols).").need(),
};
// Named apart from the SampledCells result of lab.sampledCells(): one name, one interface.
inline constexpr Group sampled_group = group<SampledCells>("SampleAt", sampled_fields);

inline constexpr Field walk_fields[] = {
    F(WalkOptions, causal, "causal", "Query i may not attend to key j > i."),
    F(WalkOptions, scale, "scale", "Multiplies the scores; default 1/√d."),
    F(WalkOptions, query_rows, "queryRows", "Br, queries per block.").range("1", "walkTile"),
    F(WalkOptions, key_rows, "keyRows", "Bc, keys per tile.").range("1", "walkTile"),
};
inline constexpr Group walk_group = group<WalkOptions>("WalkOptions", walk_fields);

inline constexpr Field positions_field =
    F(SinusoidalEncodingRequest, positions, "positions", "Rows: the positions 0 … positions − 1.")
        .need()
        .range("1", "sinusoidalMax");
inline constexpr Field sinusoidal_fields[] = {
    positions_field,
    positions_field.deprecated_name("tokens"),
    F(SinusoidalEncodingRequest, width, "width", "Columns (features).")
        .need()
        .range("1", "sinusoidalMax"),
};
inline constexpr Group sinusoidal_group =
    group<SinusoidalEncodingRequest>("SinusoidalEncodingRequest", sinusoidal_fields);

inline constexpr Field softmax_fields[] = {
    F(SoftmaxBreakdownRequest, scores, "scores", "One row of scores (at most limits().softmaxRow).")
        .need(),
    F(SoftmaxBreakdownRequest, temperature, "temperature", "Divides the scores."),
};
inline constexpr Group softmax_group =
    group<SoftmaxBreakdownRequest>("SoftmaxBreakdownRequest", softmax_fields);

inline constexpr Field tile_fields[] = {
    F(TilePlanRequest, head_width, "headWidth", "The head width d.")
        .need()
        .range("1", "maxHeadWidth"),
};
inline constexpr Group tile_group = group<TilePlanRequest>("TilePlanRequest", tile_fields);

inline constexpr Field scaling_fields[] = {
    F(ScalingStudyOptions, dims, "dims", "d_k values, at most limits().scalingDims of them.")
        .need()
        .range("1", "scalingMaxDk"),
    F(ScalingStudyOptions, keys, "keys", "Keys per query.")
        .range("scalingMinKeys", "scalingMaxKeys"),
    F(ScalingStudyOptions, samples, "samples",
      "Queries per d_k; samples·(keys + 1)·(the sum of dims) at most limits().scalingDraws.")
        .range("1", "scalingMaxSamples"),
    F(ScalingStudyOptions, seed, "seed", "The same seed gives the same numbers everywhere."),
};
inline constexpr Group scaling_group =
    group<ScalingStudyOptions>("ScalingStudyRequest", scaling_fields);

inline constexpr Field normal_fields[] = {
    F(NormalMatrixRequest, rows, "rows", "Rows; rows · cols at most limits().normalValues.")
        .need()
        .range("1", "normalValues"),
    F(NormalMatrixRequest, cols, "cols", "Columns.").need().range("1", "normalValues"),
    F(NormalMatrixRequest, seed, "seed", "The same seed gives the same numbers everywhere."),
};
inline constexpr Group normal_group =
    group<NormalMatrixRequest>("NormalMatrixRequest", normal_fields);

inline constexpr Field context_length_field =
    F(TrainingConfig, context_length, "contextLength", "Tokens per sequence.")
        .range("4", "trainContext");
inline constexpr Field trainer_fields[] = {
    F(TrainingConfig, task, "task", "What is learned at each target position (TrainingTask).")
        .one_of(training_tasks),
    F(TrainingConfig, layers, "layers", "Attention layers.").range("1", "trainLayers"),
    F(TrainingConfig, heads, "heads", "Heads per layer, dividing dModel.").range("1", "trainHeads"),
    F(TrainingConfig, d_model, "dModel", "Width of the residual stream (d_head = dModel / heads).")
        .range("1", "trainDModel"),
    context_length_field,
    context_length_field.deprecated_name("context"),
    F(TrainingConfig, vocab, "vocab", "Token ids 0 … vocab − 1.").range("2", "trainVocab"),
    F(TrainingConfig, batch, "batch", "Sequences per step.").range("1", "trainBatch"),
    F(TrainingConfig, learning_rate, "learningRate",
      "Adam's step size (β1 0.9, β2 0.999, ε 1e-8), above 0 and at most 1."),
    F(TrainingConfig, seed, "seed", "The same seed gives the same run everywhere."),
};
inline constexpr Group trainer_group = group<TrainingConfig>("TrainerConfig", trainer_fields);

inline constexpr Field step_fields[] = {
    F(StepRequest, count, "count", "Adam steps to take per call.").range("1", "trainSteps"),
};
inline constexpr Group step_group = group<StepRequest>("StepRequest", step_fields);

inline constexpr Field gradient_at_fields[] = {
    naming(F(GradientAt, parameter, "parameter",
             "The input or weight whose gradient entry is checked.")
               .need(),
           gradient_parameters),
    F(GradientAt, row, "row", "The entry's row.").need(),
    F(GradientAt, col, "col", "The entry's column.").need(),
};
inline constexpr Group gradient_at_group = group<GradientAt>("GradientAt", gradient_at_fields);

#undef F

}  // namespace attnlab::bindings
