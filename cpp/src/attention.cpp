#include "attnlab/attention.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "attnlab/limits.hpp"
#include "validate.hpp"

namespace attnlab {
namespace {

using validate::Problem;

Problem check_options(const Matrix& q, const Matrix& k, const AttentionOptions& options) {
  if (!options.key_padding.empty() && options.key_padding.size() != k.rows)
    return Error{ErrorCode::shape_mismatch,
                 "key padding has " + std::to_string(options.key_padding.size()) +
                     " flags but K (" + shape_string(k) + ") has " + std::to_string(k.rows) +
                     " keys: give one flag per key"};
  if (options.mask && (options.mask->rows != q.rows || options.mask->cols != k.rows))
    return Error{ErrorCode::shape_mismatch,
                 "mask (" + shape_string(*options.mask) + ") must be " + std::to_string(q.rows) +
                     "x" + std::to_string(k.rows) + ": one row per query of Q (" + shape_string(q) +
                     "), one column per key of K (" + shape_string(k) + ")"};
  if (options.scale)
    if (auto p = validate::positive_finite("scale", *options.scale)) return p;
  return validate::positive_finite("temperature", options.temperature);
}

Problem check_inputs(const Matrix& q, const Matrix& k, const Matrix& v,
                     const AttentionOptions& options) {
  if (auto p = validate::attention_shapes(q, k, v, limits::attention_tokens,
                                          limits::attention_features, "attention"))
    return p;
  if (auto p = check_options(q, k, options)) return p;
  return validate::finite_qkv(q, k, v);
}

// Finite inputs can still overflow float32 in a product; say so instead of returning NaN.
Problem overflowed(std::string_view step, const Matrix& m) {
  auto p = validate::finite(step, m);
  if (p) p->message += ": the values are too large for float32; use smaller inputs";
  return p;
}

}  // namespace

std::uint8_t blocked_by(const AttentionOptions& options, std::size_t query, std::size_t key) {
  std::uint8_t rules = 0;
  if (options.causal && key > query) rules |= mask_rule::causal;
  if (!options.key_padding.empty() && options.key_padding[key]) rules |= mask_rule::key_padding;
  if (options.mask && (*options.mask)(query, key) == 0) rules |= mask_rule::mask;
  return rules;
}

Result<AttentionResult> attention(const Matrix& q, const Matrix& k, const Matrix& v,
                                  const AttentionOptions& options) {
  if (auto p = check_inputs(q, k, v, options)) return *p;

  AttentionResult r;
  r.scores = kernels::matmul_transposed(q, k);  // scores: (n_q, n_k)
  if (auto p = overflowed("the scores Q·Kᵀ", r.scores)) return *p;

  const float base = options.scale.value_or(1.0f / std::sqrt(static_cast<float>(q.cols)));
  r.scale = base;
  r.temperature = options.temperature;
  r.factor = base / options.temperature;
  if (auto p = validate::positive_finite("scale / temperature", r.factor)) return *p;
  r.scaled = r.scores;
  kernels::scale(r.scaled, r.factor);
  if (auto p = overflowed("the scaled scores", r.scaled)) return *p;

  r.logits = r.scaled;  // logits: (n_q, n_k), -inf where masked
  if (options.has_mask())
    for (std::size_t i = 0; i < q.rows; ++i)
      for (std::size_t j = 0; j < k.rows; ++j)
        if (blocked_by(options, i, j) != 0)
          r.logits(i, j) = -std::numeric_limits<float>::infinity();

  r.softmax = kernels::softmax_rows(r.logits);
  for (std::size_t i = 0; i < q.rows; ++i)
    if (r.softmax.row_sum[i] == 0.0f) r.fully_masked_rows.push_back(i);

  r.output = kernels::matmul(r.softmax.weights, v);  // output: (n_q, d_v)
  return r;
}

}  // namespace attnlab
