// Scaled dot-product attention for one head: softmax(Q·Kᵀ · scale / temperature + mask) · V.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "attnlab/error.hpp"
#include "attnlab/kernels.hpp"
#include "attnlab/key_band.hpp"
#include "attnlab/matrix.hpp"
#include "attnlab/score_rules.hpp"

namespace attnlab {

// attention()'s options: the score rules (score_rules.hpp), every one of them; one head, so
// ALiBi's slope is alibi_slope(0, 1) and a bias is (n_q, n_k).
struct AttentionOptions : ScoreRules {};

// The mask_rule bits that block (query, key) of n_q queries over n_k keys (the past cache's
// rows included) under these rules (a per-head bias: head 0's); 0 when it may attend. The same
// as rules.head(0, 1, n_q, n_k, ·).blocked_by(query, key).
std::uint8_t blocked_by(const ScoreRules& options, std::size_t n_q, std::size_t n_k,
                        std::size_t query, std::size_t key);

// Every intermediate of one attention call, so a learner can inspect each step.
struct AttentionResult {
  Matrix scores;             // Q·Kᵀ: (n_q, n_k)
  float scale = 1.0f;        // options.scale or the default 1/√d_k, temperature excluded
  float temperature = 1.0f;  // options.temperature (the head's)
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
