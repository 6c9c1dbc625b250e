// Pieces shared by the core's own sources, not part of the public API.
#pragma once

#include <optional>

#include "attnlab/attention.hpp"
#include "attnlab/trace.hpp"
#include "base/validate.hpp"

namespace attnlab::detail {

// attention() with ALiBi's distance bias on the (capped) scaled scores before the mask, beside
// options.bias: alibi is null or (n_q, n_k). result.scaled and result.capped stay without
// either; result.logits include both.
Result<AttentionResult> attention(const Matrix& q, const Matrix& k, const Matrix& v,
                                  const AttentionOptions& options, const Matrix* alibi);

// attention()'s checks of the options against Q (n_q, ·) and K (n_k, ·); a trace of `heads`
// heads also takes a bias per head, stacked.
validate::Problem check_attention_options(const Matrix& q, const Matrix& k,
                                          const AttentionOptions& options, std::size_t heads = 1);

// Key padding (empty, or n_k flags) and a bias ((n_q, n_k), or one per head stacked: heads·n_q
// rows; no NaN or +∞, −∞ blocks) for n_q queries over n_k keys; q and k as messages name them.
validate::Problem check_key_cells(const std::vector<bool>& key_padding,
                                  const std::optional<Matrix>& bias, std::size_t n_q,
                                  std::size_t n_k, const Matrix& q, const Matrix& k,
                                  std::size_t heads = 1);

// A numeric causalAlignment (CausalAlignment::at_key) places query 0 at a key position from −n_q
// (every query before the first key) to n_k (after the last), as ONNX's offsets do: n_past with
// a cache, nonpad_kv_seqlen − n_q (possibly negative) with an external one.
validate::Problem check_alignment(const CausalAlignment& alignment, std::size_t n_q,
                                  std::size_t n_k);

// The past cache (AttentionOptions::past_key, past_value) against the new keys and values:
// both or neither, K's and V's columns (k_cols, v_cols, of the inputs named k_name and v_name),
// one length, finite, and with the k_rows new keys at most max_keys keys in all.
validate::Problem check_past(const AttentionOptions& options, const char* k_name,
                             std::size_t k_rows, std::size_t k_cols, const char* v_name,
                             std::size_t v_cols, std::size_t max_keys);

// The rows of past (when given) above those of m: the keys or values with a past cache.
Matrix appended(const std::optional<Matrix>& past, const Matrix& m);

// Head h's (n_q, n_k) rows of a bias given one per head (heads·n_q rows), else the bias itself.
Matrix head_bias(const Matrix& bias, std::size_t h, std::size_t n_q);

// trace()'s checks of its input, every size and value, before anything is computed.
validate::Problem check_trace_input(const TraceInput& input);

// The trace's forward steps (trace.cpp), without the groups; group() adds them once every
// step is in. trace() (trace_backward.cpp) appends the backward steps in between.
Result<Trace> forward_steps(const TraceInput& input);
void group(Trace& t);

// Q (n_q, heads·d_k), K (n_k, kv_heads·d_k) and V (n_k, kv_heads·d_v) of a checked input,
// with the projection steps recorded in t when the input has X.
struct Qkv {
  Matrix q, k, v;
  std::optional<std::size_t> q_step, k_step, v_step;
};
Result<Qkv> qkv_of(Trace& t, const TraceInput& input);

// The K/V heads of a checked input: kv_heads, or heads when 0.
inline std::size_t kv_heads_of(const TraceInput& input) {
  return static_cast<std::size_t>(input.kv_heads > 0 ? input.kv_heads : input.heads);
}

// The trace's checks of the variants (RoPE, dropout) given the head width d_k.
validate::Problem check_variants(const TraceInput& input, std::size_t d_k);

// What the variants did to one head (variants.cpp), for the trace's steps.
struct HeadVariants {
  std::optional<Rotation> q_rotation, k_rotation;  // RoPE
  Matrix rotated_q, rotated_k;
  std::optional<float> slope;  // ALiBi
  // B, ALiBi's bias plus the given bias, and the (capped) scaled scores plus B (with either)
  Matrix bias, biased;
  std::optional<DropoutCells> dropout;
  Matrix dropped;  // the weights after dropout
};

// Head h's Q (n_q, d_k), K (n_k, d_k) and V (n_k, d_v): its slices (K and V its group's),
// Q and K rotated under RoPE (with their rotations in variants).
struct HeadInputs {
  Matrix q, k, v;
  HeadVariants variants;
};
HeadInputs head_inputs(const TraceInput& input, const Qkv& qkv, std::size_t h);

// A rotation of head_inputs() that overflowed float32, named as the rotated q or k.
validate::Problem rotation_overflowed(const HeadInputs& in);

// Head h through every variant: attention() with the ALiBi bias, then dropout (result.output
// is then the dropped weights times V).
struct HeadRun {
  AttentionResult result;
  HeadVariants variants;
  AttentionOptions options;  // the head's: input.options with its rows of a per-head bias
};
Result<HeadRun> run_head(const TraceInput& input, const Qkv& qkv, std::size_t h);

}  // namespace attnlab::detail
