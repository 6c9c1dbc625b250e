#include "attnlab/attention.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "attnlab/limits.hpp"
#include "base/validate.hpp"
#include "kernels/attention_checks.hpp"

namespace attnlab {

using validate::Problem;

Problem detail::check_key_cells(const std::vector<bool>& key_padding,
                                const std::optional<Matrix>& bias, std::size_t n_q, std::size_t n_k,
                                const Matrix& q, const Matrix& k, std::size_t heads) {
  if (!key_padding.empty() && key_padding.size() != n_k)
    return validate::formatted(ErrorCode::shape_mismatch,
                               "key padding has %zu flags but K (%s) has %zu keys: give one flag "
                               "per key",
                               key_padding.size(), shape_string(k).c_str(), n_k);
  if (!bias) return std::nullopt;
  if (auto p = validate::well_formed("bias", *bias)) return p;
  if (bias->cols != n_k || (bias->rows != n_q && bias->rows != heads * n_q)) {
    const std::string per_head =
        heads > 1 ? " or, one per head, " + shape_string(heads * n_q, n_k) : "";
    return validate::formatted(ErrorCode::shape_mismatch,
                               "bias (%s) must be %s%s: one row per query of Q (%s), one column "
                               "per key of K (%s)",
                               shape_string(*bias).c_str(), shape_string(n_q, n_k).c_str(),
                               per_head.c_str(), shape_string(q).c_str(), shape_string(k).c_str());
  }
  for (std::size_t i = 0; i < bias->data.size(); ++i)
    if (std::isnan(bias->data[i]) || bias->data[i] == std::numeric_limits<float>::infinity())
      return validate::formatted(ErrorCode::non_finite,
                                 "bias (%s) is %s at row %zu, column %zu: a bias entry is a "
                                 "finite number, or -Infinity to block the key",
                                 shape_string(*bias).c_str(),
                                 validate::number_text(bias->data[i]).c_str(), i / bias->cols + 1,
                                 i % bias->cols + 1);
  return std::nullopt;
}

bool ScoreRules::bias_blocks() const {
  return bias && std::any_of(bias->data.begin(), bias->data.end(),
                             [](float b) { return b == -std::numeric_limits<float>::infinity(); });
}

Problem detail::check_alignment(const CausalAlignment& alignment, std::size_t n_q,
                                std::size_t n_k) {
  const std::int64_t p = alignment.first_key;
  if (alignment.kind != CausalAlignment::Kind::at_key ||
      (p >= -static_cast<std::int64_t>(n_q) && p <= static_cast<std::int64_t>(n_k)))
    return std::nullopt;
  return validate::formatted(ErrorCode::invalid_argument,
                             "causalAlignment %lld places query 0 beyond the sequence: with %zu "
                             "queries and %zu keys it may sit at key -%zu to %zu",
                             static_cast<long long>(p), n_q, n_k, n_q, n_k);
}

Problem detail::check_rules(const ScoreRules& options, std::size_t n_q, std::size_t n_k,
                            const Matrix& q, const Matrix& k, std::size_t heads) {
  if (auto p = check_alignment(options.alignment(), n_q, n_k)) return p;
  if (auto p = detail::check_key_cells(options.key_padding, options.bias, n_q, n_k, q, k, heads))
    return p;
  if (options.softcap)
    if (auto p = validate::positive_finite("softcap", *options.softcap)) return p;
  if (options.mask)
    if (auto p = validate::well_formed("mask", *options.mask)) return p;
  if (options.mask && (options.mask->rows != n_q || options.mask->cols != n_k))
    return validate::formatted(ErrorCode::shape_mismatch,
                               "mask (%s) must be %s: one row per query of Q (%s), one column per "
                               "key of K (%s)",
                               shape_string(*options.mask).c_str(), shape_string(n_q, n_k).c_str(),
                               shape_string(q).c_str(), shape_string(k).c_str());
  if (options.scale)
    if (auto p = validate::positive_finite("scale", *options.scale)) return p;
  if (auto p = validate::positive_finite("temperature", options.temperature)) return p;
  if (options.global_tokens.size() > limits::global_tokens)
    return validate::formatted(ErrorCode::too_large,
                               "%zu global tokens are more than the %zu allowed",
                               options.global_tokens.size(), limits::global_tokens);
  const std::size_t positions = std::max(n_q, n_k);
  for (std::size_t g : options.global_tokens)
    if (g >= positions)
      return Error{ErrorCode::invalid_argument,
                   "global token " + std::to_string(g) + " is not a position: there are " +
                       std::to_string(positions) + " (0 to " + std::to_string(positions - 1) + ")"};
  return std::nullopt;
}

Problem detail::check_attention_options(const Matrix& q, const Matrix& k, const ScoreRules& options,
                                        std::size_t heads) {
  return check_rules(options, q.rows, k.rows, q, k, heads);
}

Problem detail::check_past(const ScoreRules& options, const char* k_name, std::size_t k_rows,
                           std::size_t k_cols, const char* v_name, std::size_t v_cols,
                           std::size_t max_keys) {
  const auto &key = options.past_key, &value = options.past_value;
  if (!key && !value) return std::nullopt;
  if (!key || !value)
    return Error{ErrorCode::invalid_argument, "pastKey and pastValue go together: give both"};
  if (auto p = validate::not_empty("pastKey", *key)) return p;
  if (auto p = validate::well_formed("pastValue", *value)) return p;
  if (key->cols != k_cols || value->cols != v_cols || key->rows != value->rows)
    return validate::formatted(
        ErrorCode::shape_mismatch,
        "pastKey (%s) and pastValue (%s) must be %s and %s: earlier rows of %s and %s",
        shape_string(*key).c_str(), shape_string(*value).c_str(),
        shape_string(key->rows, k_cols).c_str(), shape_string(key->rows, v_cols).c_str(), k_name,
        v_name);
  if (key->rows + k_rows > max_keys)
    return validate::formatted(ErrorCode::too_large,
                               "pastKey's %zu rows and %zu new keys make %zu keys, over %zu",
                               key->rows, k_rows, key->rows + k_rows, max_keys);
  if (auto p = validate::finite("pastKey", *key)) return p;
  return validate::finite("pastValue", *value);
}

Matrix detail::appended(const std::optional<Matrix>& past, const Matrix& m) {
  if (!past) return m;
  Matrix out = *past;
  out.rows += m.rows;
  out.data.insert(out.data.end(), m.data.begin(), m.data.end());
  return out;
}

namespace {

Problem check_inputs(const Matrix& q, const Matrix& k, const Matrix& v, const ScoreRules& options,
                     std::size_t heads) {
  if (auto p = validate::attention_shapes(q, k, v, limits::attention_tokens,
                                          limits::attention_features, "attention"))
    return p;
  if (auto p = detail::check_attention_options(q, k, options, heads)) return p;
  return validate::finite_qkv(q, k, v);
}

}  // namespace

std::uint8_t blocked_by(const ScoreRules& options, std::size_t n_q, std::size_t n_k,
                        std::size_t query, std::size_t key) {
  return options.head(0, 1, n_q, n_k, 0).blocked_by(query, key);
}

Result<AttentionResult> attention(const Matrix& q, const Matrix& k, const Matrix& v,
                                  const AttentionOptions& options) {
  // Q, K and V within the limits before the cache is checked against them.
  if (auto p = validate::attention_shapes(q, k, v, limits::attention_tokens,
                                          limits::attention_features, "attention"))
    return *p;
  if (auto p =
          detail::check_past(options, "K", k.rows, k.cols, "V", v.cols, limits::attention_tokens))
    return *p;
  return detail::attention(q, detail::appended(options.past_key, k),
                           detail::appended(options.past_value, v), options);
}

Result<AttentionResult> detail::attention(const Matrix& q, const Matrix& k, const Matrix& v,
                                          const ScoreRules& rules, std::size_t head,
                                          std::size_t heads) {
  if (auto p = check_inputs(q, k, v, rules, heads)) return *p;  // k, v: the cache's rows too
  return attention_head(q, k, v, rules.head(head, heads, q.rows, k.rows, q.cols));
}

Result<AttentionResult> detail::attention_head(const Matrix& q, const Matrix& k, const Matrix& v,
                                               const HeadRules& rules, std::size_t first_query) {
  AttentionResult r;
  r.scores = kernels::matmul_transposed(q, k);  // scores: (n_q, n_k)
  if (auto p = validate::overflowed("the scores Q·Kᵀ", r.scores)) return *p;

  r.scale = rules.scale;
  r.temperature = rules.temperature;
  r.factor = rules.factor;
  if (auto p = validate::positive_finite("scale / temperature", r.factor)) return *p;
  r.scaled = r.scores;
  kernels::scale(r.scaled, r.factor);
  if (auto p = validate::overflowed("the scaled scores", r.scaled)) return *p;

  const ScoreRules& o = *rules.rules;
  if (o.softcap) {  // |cap·tanh(x / cap)| < cap: nothing to overflow
    r.capped = r.scaled;
    for (float& x : r.capped.data) x = rules.capped(x);
  }
  // logits: (n_q, n_k), the (capped) scaled scores plus the biases, -inf where masked; query i
  // of these rows is query first_query + i of the rules
  r.logits = o.softcap ? r.capped : r.scaled;
  if (rules.slope != 0.0f || rules.bias) {
    for (std::size_t i = 0; i < q.rows; ++i)
      for (std::size_t j = 0; j < k.rows; ++j)
        r.logits(i, j) = rules.biased(first_query + i, j, r.logits(i, j));
    if (auto p = validate::overflowed("the scaled scores plus the bias", r.logits)) return *p;
  }
  if (o.has_mask()) {
    constexpr float blocked = -std::numeric_limits<float>::infinity();
    // The band (causal rule, window) blocks whole runs of keys, so a row asks only the cells
    // inside it of the other rules; global tokens pierce the window, so then every cell is asked.
    const bool per_cell = !o.global_tokens.empty();
    const bool in_band = !o.key_padding.empty() || o.mask || o.bias_blocks();
    for (std::size_t i = 0; i < q.rows; ++i) {
      float* row = r.logits.row(i);
      const std::size_t query = first_query + i;
      if (per_cell) {
        for (std::size_t j = 0; j < k.rows; ++j)
          if (rules.blocked_by(query, j) != 0) row[j] = blocked;
        continue;
      }
      const KeyRange keys = rules.band.range(query);
      std::fill(row, row + keys.begin, blocked);
      std::fill(row + keys.end, row + k.rows, blocked);
      if (in_band)
        for (std::size_t j = keys.begin; j < keys.end; ++j)
          if (rules.blocked_in_band(query, j)) row[j] = blocked;
    }
  }

  r.softmax = kernels::softmax_rows(r.logits);
  for (std::size_t i = 0; i < q.rows; ++i)
    if (r.softmax.row_sum[i] == 0.0f) r.fully_masked_rows.push_back(i);

  r.output = kernels::matmul(r.softmax.weights, v);  // output: (n_q, d_v)
  // A weighted sum of finite values can pass float32's limit (0.1·FLT_MAX ten times).
  if (auto p = validate::overflowed("the output A·V", r.output)) return *p;
  return r;
}

}  // namespace attnlab
