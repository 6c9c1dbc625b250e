// The step-by-step trace: one call computes multi-head attention and keeps every
// intermediate, each labelled with a stable id, a title, its TeX formula and its shape.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "attnlab/attention.hpp"
#include "attnlab/error.hpp"
#include "attnlab/linear_attention.hpp"  // FeatureMap
#include "attnlab/matrix.hpp"

namespace attnlab {

enum class PositionalEncoding { none, sinusoidal };

// What each head computes: softmax attention (scores … aggregate), linear attention
// (linear_attention(): feature-q, feature-k, kv-state, normalizer, implied-weights, aggregate)
// or retention (retention(): decay, kv-state, implied-weights, aggregate).
enum class TraceFamily : std::uint8_t { softmax, linear, retention };

// Self-attention from token embeddings: Q = X·W_Q, K = X·W_K, V = X·W_V; with a context,
// cross-attention: Q = X·W_Q, K = context·W_K, V = context·W_V.
// x: (n_q, d_model); context: (n_k, d_model); w_q: (d_model, heads·d_k);
// w_k: (d_model, kv_heads·d_k); w_v: (d_model, kv_heads·d_v).
struct Projections {
  Matrix x, w_q, w_k, w_v;
  std::optional<Matrix> context;
};

// Q, K and V given directly (cross-attention allowed: n_q may differ from n_k).
// q: (n_q, heads·d_k), k: (n_k, kv_heads·d_k), v: (n_k, kv_heads·d_v).
struct DirectQKV {
  Matrix q, k, v;
};

struct TraceInput {
  std::variant<Projections, DirectQKV> source;
  std::optional<Matrix> w_o;  // (heads·d_v, d_out), applied to the concatenated heads
  int heads = 1;              // splits the columns of Q into equal slices
  // Added to X, and to the context by its own positions (Projections only).
  PositionalEncoding positional = PositionalEncoding::none;
  // The score rules (score_rules.hpp): a given scale applies to every head, a bias is one for
  // every head or one per head, ALiBi gives head h its own slope.
  AttentionOptions options;
  // RoPE: each head's q and k rows rotated in pairs (2i, 2i+1) by position·base^(−2i/d_k);
  // d_k must be even.
  bool rope = false;
  float rope_base = 10000.0f;
  // K and V heads, 0 = heads; 1 is multi-query attention, 1 < kv_heads < heads grouped-query
  // attention: query head h uses K/V group h / (heads / kv_heads). heads % kv_heads == 0.
  int kv_heads = 0;
  // Dropout on the weights, p in [0, 1): each weight kept with probability 1 − p and scaled by
  // 1/(1 − p); the mask drawn from dropout_seed (variants.hpp, dropout_keep).
  float dropout = 0.0f;
  std::uint32_t dropout_seed = 0;
  // ∂L/∂Y, the output's shape: when given, the backward steps follow the forward ones
  // (trace_backward.hpp). The grad-softmax steps carry softmax's Jacobian for jacobian_row,
  // or, without it, for every row when n_q·n_k²·heads ≤ limits::trace_scores (else row 0).
  std::optional<Matrix> d_output;
  std::optional<std::size_t> jacobian_row;
  // The family's own settings; the score rules it takes are options.causal (linear) and
  // options.scale (linear: φ(scale·q), as LinearAttentionOptions::scale), the others refused.
  TraceFamily family = TraceFamily::softmax;
  FeatureMap feature_map = FeatureMap::elu;  // linear: φ
  std::optional<std::size_t> features;       // linear, favor: m
  std::optional<std::uint64_t> seed;         // linear, favor: the random features' seed
  std::optional<float> decay;                // retention: γ in (0, 1], required
};

// Step ids, in trace order. Per-head steps repeat for each head and carry its index.
namespace step {
inline constexpr const char* encoding = "encoding";  // the sinusoidal encoding PE itself
inline constexpr const char* positional = "positional";
inline constexpr const char* project_q = "project-q";
inline constexpr const char* project_k = "project-k";
inline constexpr const char* project_v = "project-v";
inline constexpr const char* rotate_q = "rotate-q";  // RoPE only
inline constexpr const char* rotate_k = "rotate-k";  // RoPE only
// Linear attention and retention (TraceInput::family), per head, in place of scores … softmax.
inline constexpr const char* feature_q = "feature-q";    // φ(Q)
inline constexpr const char* feature_k = "feature-k";    // φ(K)
inline constexpr const char* decay = "decay";            // D_ij = γ^(i−j), j ≤ i
inline constexpr const char* kv_state = "kv-state";      // φ(K)ᵀV; retention: S_n
inline constexpr const char* normalizer = "normalizer";  // φ(q_i)ᵀΣ_j φ(k_j), (n_q, 1)
inline constexpr const char* implied_weights = "implied-weights";  // the n_q × n_k weights
inline constexpr const char* scores = "scores";
inline constexpr const char* scale = "scale";
inline constexpr const char* softcap = "softcap";  // softcap only
inline constexpr const char* bias = "bias";        // ALiBi or a given bias only
inline constexpr const char* mask = "mask";
inline constexpr const char* softmax = "softmax";
inline constexpr const char* dropout = "dropout";  // dropout > 0 only
inline constexpr const char* aggregate = "aggregate";
inline constexpr const char* concat = "concat";
inline constexpr const char* output_projection = "output-projection";
// The backward steps (with TraceInput::d_output): gradients of L, from the output back.
inline constexpr const char* grad_output = "grad-output";    // ∂L/∂Y, given
inline constexpr const char* grad_wo = "grad-wo";            // Cᵀ·∂L/∂Y (with W_O)
inline constexpr const char* grad_concat = "grad-concat";    // ∂L/∂Y·W_Oᵀ (with W_O)
inline constexpr const char* grad_v = "grad-v";              // per head: Aᵀ·∂O
inline constexpr const char* grad_weights = "grad-weights";  // per head: ∂O·Vᵀ
inline constexpr const char* grad_softmax = "grad-softmax";  // per head: A ⊙ (∂A − rowsum(∂A ⊙ A))
inline constexpr const char* grad_scores = "grad-scores";  // per head: factor·∂S̃
inline constexpr const char* grad_q = "grad-q";            // per head: ∂S·K
inline constexpr const char* grad_k = "grad-k";            // per head: ∂Sᵀ·Q
inline constexpr const char* grad_wq = "grad-wq";          // Xᵀ·∂Q (projections)
inline constexpr const char* grad_wk = "grad-wk";
inline constexpr const char* grad_wv = "grad-wv";
inline constexpr const char* grad_x = "grad-x";  // ∂Q·W_Qᵀ + ∂K·W_Kᵀ + ∂V·W_Vᵀ
}  // namespace step

// Every step id, in trace order: the one list the bindings and the JavaScript package use (its
// size deduced: a new step is its id above and its entry here).
inline constexpr std::array step_ids{step::encoding,
                                     step::positional,
                                     step::project_q,
                                     step::project_k,
                                     step::project_v,
                                     step::rotate_q,
                                     step::rotate_k,
                                     step::feature_q,
                                     step::feature_k,
                                     step::decay,
                                     step::kv_state,
                                     step::normalizer,
                                     step::implied_weights,
                                     step::scores,
                                     step::scale,
                                     step::softcap,
                                     step::bias,
                                     step::mask,
                                     step::softmax,
                                     step::dropout,
                                     step::aggregate,
                                     step::concat,
                                     step::output_projection,
                                     step::grad_output,
                                     step::grad_wo,
                                     step::grad_concat,
                                     step::grad_v,
                                     step::grad_weights,
                                     step::grad_softmax,
                                     step::grad_scores,
                                     step::grad_q,
                                     step::grad_k,
                                     step::grad_wq,
                                     step::grad_wk,
                                     step::grad_wv,
                                     step::grad_x};

// What feeds a step: another step's result (by its index in Trace::steps, not copied), or
// values of its own (an input such as X or W_Q, or one head's column slice of Q, K or V).
struct Operand {
  std::string name;         // the source step's id, or the input's name ("X", "Q", "Wq" …)
  std::string symbol;       // plain-text caption, without a head index: "Q", "X + PE", "S̃"
  std::optional<int> head;  // the head it belongs to, when there is more than one head
  std::optional<std::size_t> step;  // index into Trace::steps when it is that step's values
  std::optional<Matrix> values;     // otherwise its own values
  // K and V with a past cache (AttentionOptions::past_key): their first past_rows rows are the
  // cache's, the rest the new tokens'.
  std::optional<std::size_t> past_rows;
};

// Softmax steps: the parts a learner sees (row max, exp(logit − max), row sum).
struct SoftmaxParts {
  std::vector<float> row_max, row_sum;
  Matrix exponentials;
};

// Scale steps: what multiplies the scores. `scale` excludes the temperature, as
// AttentionOptions::scale does; `factor` = scale / temperature is what is applied.
struct ScaleFactors {
  float scale = 1.0f;  // the option, or the default 1/√d_k
  float temperature = 1.0f;
  float factor = 1.0f;        // scale / temperature
  std::size_t dk = 0;         // the head width d_k
  bool default_scale = true;  // scale is the default 1/√d_k (no scale option given)
};

// The cheaper attentions' steps (TraceInput::family): what each is recomputed from (FAVOR+'s W
// is the trace's). One plain member of TraceStep for all: a member that owns memory added code
// to every step's copy and move in the core module.
struct FamilyParts {
  // feature-q and feature-k: φ(factor·x) entry by entry (elu, relu), or FAVOR+'s features of
  // each whole row x = factor·input, exp(W·x − ‖x‖²/2)/√m.
  std::optional<FeatureMap> feature_map{};
  std::optional<float> factor{};  // LinearAttentionResult::query_factor or key_factor
  std::optional<float> decay{};   // retention's decay and kv-state steps: γ
  std::optional<bool> causal{};   // linear attention's normalizer and implied-weights steps
};

// Mask steps: which cells may be attended to, and why not (mask_rule bits, attention.hpp).
struct MaskCells {
  BoolMatrix allowed;                    // (n_q, n_k): 1 where query i may attend to key j
  BasicMatrix<std::uint8_t> blocked_by;  // (n_q, n_k): mask_rule bits, 0 where allowed
};

// Rotate steps (RoPE): the angle each pair of features turned by.
struct Rotation {
  Matrix angles;                   // (rows, d_k/2): position p · frequency i
  std::vector<float> frequencies;  // (d_k/2): θ_i = base^(−2i/d_k)
  float base = 10000.0f;
};

// Dropout steps: which weights were kept and how the kept ones were scaled.
struct DropoutCells {
  BoolMatrix keep;          // (n_q, n_k): 1 where the weight was kept
  float rate = 0.0f;        // p
  float keep_scale = 1.0f;  // 1 / (1 − p)
};

// grad-softmax steps: softmax's Jacobian ∂a/∂s̃ = diag(a) − aaᵀ of chosen rows (n_k, n_k)
// each, and every row's rowsum(∂A ⊙ A), the term the Jacobian subtracts.
struct SoftmaxJacobian {
  std::vector<float> row_dot;              // (n_q)
  std::vector<std::size_t> jacobian_rows;  // the rows whose Jacobian is kept
  std::vector<Matrix> jacobians;           // one per entry of jacobian_rows
};

struct TraceStep {
  std::string id;           // one of attnlab::step
  std::optional<int> head;  // set on per-head steps when there is more than one head
  std::string title;        // short, plain-language name (the head is not in it)
  std::string formula;      // TeX, with this trace's numbers where they help (e.g. √2)
  Matrix values;            // the step's result; shape = values.rows x values.cols
  // The sum of each row of values (a weight row sums to 1), in double so float32 values near
  // its limit cannot sum beyond it; masked (−∞) entries are left out: a total is always finite.
  std::vector<double> row_totals;
  std::vector<Operand> operands;            // what feeds this step, in order
  std::optional<SoftmaxParts> softmax;      // softmax steps only
  std::optional<ScaleFactors> scaling;      // scale steps only
  std::optional<MaskCells> mask;            // mask steps only
  std::optional<Rotation> rotation;         // rotate-q and rotate-k steps only
  std::optional<float> slope;               // bias steps with ALiBi only: the head's slope m_h
  std::optional<float> softcap;             // softcap steps only: the cap c
  std::optional<DropoutCells> dropout;      // dropout steps only
  std::optional<SoftmaxJacobian> jacobian;  // grad-softmax steps only
  std::optional<FamilyParts> family;        // the cheaper attentions' steps only
};

// One per distinct step id, in trace order: the step's entries (one per head) by index.
struct TraceGroup {
  std::string id;
  std::string title;
  std::vector<std::size_t> steps;  // indices into Trace::steps, in head order
};

struct Trace {
  std::vector<TraceStep> steps;
  std::vector<TraceGroup> groups;
  Matrix output;  // the last step's values: (n_q, d_out)
  // One list per head: the queries of head h that may attend to no key (their weights are
  // zeros). Heads differ under a per-head bias.
  std::vector<std::vector<std::size_t>> fully_masked_rows;
  // Linear attention with FAVOR+: W, the m random rows every head's features use (m, d_k).
  std::optional<Matrix> random_features;
};

// An operand's values: its own, or those of the step it refers to.
const Matrix& operand_values(const Trace& trace, const Operand& operand);

// Every step: the forward ones, then, with d_output, the backward ones (trace_backward.cpp).
Result<Trace> trace(const TraceInput& input);

// The forward steps only, refusing d_output: what links without the backward pass (the wasm
// core module; the learning module has trace()).
Result<Trace> forward_trace(const TraceInput& input);

}  // namespace attnlab
