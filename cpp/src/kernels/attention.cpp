#include "attnlab/attention.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "attnlab/limits.hpp"
#include "base/detail.hpp"
#include "base/validate.hpp"

namespace attnlab {

using validate::Problem;

Problem detail::check_attention_options(const Matrix& q, const Matrix& k,
                                        const AttentionOptions& options) {
  if (!options.key_padding.empty() && options.key_padding.size() != k.rows)
    return Error{ErrorCode::shape_mismatch,
                 "key padding has " + std::to_string(options.key_padding.size()) +
                     " flags but K (" + shape_string(k) + ") has " + std::to_string(k.rows) +
                     " keys: give one flag per key"};
  if (options.mask && (options.mask->rows != q.rows || options.mask->cols != k.rows))
    return Error{ErrorCode::shape_mismatch,
                 "mask (" + shape_string(*options.mask) + ") must be " +
                     shape_string(q.rows, k.rows) + ": one row per query of Q (" + shape_string(q) +
                     "), one column per key of K (" + shape_string(k) + ")"};
  if (options.scale)
    if (auto p = validate::positive_finite("scale", *options.scale)) return p;
  if (auto p = validate::positive_finite("temperature", options.temperature)) return p;
  if (options.global_tokens.size() > limits::global_tokens)
    return validate::formatted(ErrorCode::too_large,
                               "%zu global tokens are more than the %zu allowed",
                               options.global_tokens.size(), limits::global_tokens);
  const std::size_t positions = std::max(q.rows, k.rows);
  for (std::size_t g : options.global_tokens)
    if (g >= positions)
      return Error{ErrorCode::invalid_argument,
                   "global token " + std::to_string(g) + " is not a position: there are " +
                       std::to_string(positions) + " (0 to " + std::to_string(positions - 1) + ")"};
  return std::nullopt;
}

namespace {

Problem check_inputs(const Matrix& q, const Matrix& k, const Matrix& v,
                     const AttentionOptions& options) {
  if (auto p = validate::attention_shapes(q, k, v, limits::attention_tokens,
                                          limits::attention_features, "attention"))
    return p;
  if (auto p = detail::check_attention_options(q, k, options)) return p;
  return validate::finite_qkv(q, k, v);
}

}  // namespace

std::uint8_t blocked_by(const AttentionOptions& options, std::size_t n_q, std::size_t n_k,
                        std::size_t query, std::size_t key) {
  const KeyBand band(options.causal, options.causal_alignment, options.window, n_q, n_k);
  std::uint8_t rules = 0;
  if (band.causal_blocks(query, key)) rules |= mask_rule::causal;
  if (!options.key_padding.empty() && options.key_padding[key]) rules |= mask_rule::key_padding;
  if (options.mask && (*options.mask)(query, key) == 0) rules |= mask_rule::mask;
  const auto global = [&](std::size_t p) {
    return std::find(options.global_tokens.begin(), options.global_tokens.end(), p) !=
           options.global_tokens.end();
  };
  if (band.window_blocks(query, key) && !global(query) && !global(key)) rules |= mask_rule::window;
  return rules;
}

Result<AttentionResult> attention(const Matrix& q, const Matrix& k, const Matrix& v,
                                  const AttentionOptions& options) {
  return detail::attention(q, k, v, options, nullptr);
}

Result<AttentionResult> detail::attention(const Matrix& q, const Matrix& k, const Matrix& v,
                                          const AttentionOptions& options, const Matrix* bias) {
  if (auto p = check_inputs(q, k, v, options)) return *p;

  AttentionResult r;
  r.scores = kernels::matmul_transposed(q, k);  // scores: (n_q, n_k)
  if (auto p = validate::overflowed("the scores Q·Kᵀ", r.scores)) return *p;

  const float base = options.scale.value_or(1.0f / std::sqrt(static_cast<float>(q.cols)));
  r.scale = base;
  r.temperature = options.temperature;
  r.factor = base / options.temperature;
  if (auto p = validate::positive_finite("scale / temperature", r.factor)) return *p;
  r.scaled = r.scores;
  kernels::scale(r.scaled, r.factor);
  if (auto p = validate::overflowed("the scaled scores", r.scaled)) return *p;

  r.logits = r.scaled;  // logits: (n_q, n_k), plus the bias, -inf where masked
  if (bias) {
    for (std::size_t i = 0; i < r.logits.data.size(); ++i) r.logits.data[i] += bias->data[i];
    if (auto p = validate::overflowed("the scaled scores plus the bias", r.logits)) return *p;
  }
  if (options.has_mask())
    for (std::size_t i = 0; i < q.rows; ++i)
      for (std::size_t j = 0; j < k.rows; ++j)
        if (blocked_by(options, q.rows, k.rows, i, j) != 0)
          r.logits(i, j) = -std::numeric_limits<float>::infinity();

  r.softmax = kernels::softmax_rows(r.logits);
  for (std::size_t i = 0; i < q.rows; ++i)
    if (r.softmax.row_sum[i] == 0.0f) r.fully_masked_rows.push_back(i);

  r.output = kernels::matmul(r.softmax.weights, v);  // output: (n_q, d_v)
  // A weighted sum of finite values can pass float32's limit (0.1·FLT_MAX ten times).
  if (auto p = validate::overflowed("the output A·V", r.output)) return *p;
  return r;
}

}  // namespace attnlab
