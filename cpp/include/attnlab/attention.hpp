// Scaled dot-product attention for one head: softmax(Q·Kᵀ · scale / temperature + mask) · V.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "attnlab/error.hpp"
#include "attnlab/kernels.hpp"
#include "attnlab/key_band.hpp"
#include "attnlab/matrix.hpp"

namespace attnlab {

using BoolMatrix = BasicMatrix<std::uint8_t>;

struct AttentionOptions {
  // Query i may not attend to a key after its position (key_band.hpp).
  bool causal = false;
  // Where the queries sit among the keys, for the causal rule and the window: query i at key i
  // (top-left), or at key i + n_k − n_q (bottom-right, the last queries of a sequence). Unset:
  // top-left (PyTorch's is_causal), or bottom-right with a past cache, whose new queries follow
  // the cached keys (ONNX's Attention with past_key): see alignment().
  std::optional<CausalAlignment> causal_alignment;
  // A past KV cache (ONNX's past_key/past_value): rows of earlier tokens' keys and values that
  // K's and V's rows are appended to, so the keys are [past_key; K] and the values
  // [past_value; V]. Same columns as K and V (a trace's: one slice per K/V head); n_past rows
  // each; both or neither. The new rows sit at positions n_past, n_past + 1, … The mask, key
  // padding and bias then have a column per key of the whole (n_past + n_k) sequence.
  std::optional<Matrix> past_key, past_value;
  // Empty, or one flag per key: true marks a padding key that no query attends to.
  std::vector<bool> key_padding;
  // Optional (n_q, n_k) matrix: nonzero where query i may attend to key j.
  std::optional<BoolMatrix> mask;
  // Multiplies the scores; when absent, 1/sqrt(d_k). Must be finite and > 0.
  std::optional<float> scale;
  // Divides the scaled scores; > 1 flattens the weights, < 1 sharpens them.
  float temperature = 1.0f;
  // Sliding window (local attention): off by default; a number w lets query i attend to key j
  // only when |i − j| < w; Window{left, right} to keys i − left … i + right (positions as
  // causal_alignment places them).
  Window window;
  // Logit soft-capping (Gemma 2): the scaled scores S̃ become softcap·tanh(S̃ / softcap), so none
  // passes ±softcap. Absent = off; else finite and > 0.
  std::optional<float> softcap;
  // An additive bias on the (capped) scaled scores, (n_q, n_k): a float attention mask (ONNX's
  // and PyTorch's attn_mask) or a learned relative bias (T5). A −∞ entry blocks its key as the
  // mask does (mask_rule::bias); +∞ and NaN are refused. A trace also takes one per head,
  // stacked: (heads·n_q, n_k), head h's rows from h·n_q.
  std::optional<Matrix> bias;
  // Positions exempt from the window both ways: a global query attends to every key, every
  // query attends to a global key. At most limits::global_tokens, each below max(n_q, n_k).
  std::vector<std::size_t> global_tokens;

  bool has_mask() const {
    return causal || !key_padding.empty() || mask.has_value() || window.active() || bias_blocks();
  }
  // Whether some bias entry is −∞.
  bool bias_blocks() const;
  // causal_alignment, or its default: bottom-right with a past cache, else top-left.
  CausalAlignment alignment() const {
    return causal_alignment.value_or(past_key ? CausalAlignment::bottom_right
                                              : CausalAlignment::top_left);
  }
  // The rows of the past cache: 0 without one.
  std::size_t past_rows() const { return past_key ? past_key->rows : 0; }
};

// Why a cell (query i, key j) may not be attended to: a bit per rule, 0 = allowed.
namespace mask_rule {
inline constexpr std::uint8_t causal = 1;       // key j comes after query i
inline constexpr std::uint8_t key_padding = 2;  // key j is padding
inline constexpr std::uint8_t mask = 4;         // the explicit mask says no
inline constexpr std::uint8_t window = 8;       // key j is outside query i's window
inline constexpr std::uint8_t bias = 16;        // the bias is −∞ there
}  // namespace mask_rule

// The mask_rule bits that block (query, key) of n_q queries over n_k keys (the past cache's
// rows included) under these options; 0 when it may attend.
std::uint8_t blocked_by(const AttentionOptions& options, std::size_t n_q, std::size_t n_k,
                        std::size_t query, std::size_t key);

// Every intermediate of one attention call, so a learner can inspect each step.
struct AttentionResult {
  Matrix scores;             // Q·Kᵀ: (n_q, n_k)
  float scale = 1.0f;        // options.scale or the default 1/√d_k, temperature excluded
  float temperature = 1.0f;  // options.temperature
  float factor = 1.0f;       // scale / temperature: what multiplies the scores
  Matrix scaled;             // scores · factor: (n_q, n_k)
  Matrix capped;             // softcap·tanh(scaled / softcap) with a softcap, else empty
  Matrix logits;             // scaled, with masked entries set to -inf: (n_q, n_k)
  kernels::Softmax softmax;  // exponentials, weights, row max and sum of the logits
  Matrix output;             // weights · V: (n_q, d_v)
  std::vector<std::size_t> fully_masked_rows;  // queries that may attend to no key

  const Matrix& weights() const { return softmax.weights; }
};

// q: (n_q, d_k), k: (n_k, d_k), v: (n_k, d_v). Errors name the offending inputs. With a past
// cache, the scores, weights and logits have n_past + n_k columns.
Result<AttentionResult> attention(const Matrix& q, const Matrix& k, const Matrix& v,
                                  const AttentionOptions& options = {});

}  // namespace attnlab
