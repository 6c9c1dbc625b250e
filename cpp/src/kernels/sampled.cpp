// The sampled weights of a long sequence: a few rows and columns of one head's softmax, with
// every rule of the flash kernel, without forming the whole (n_q, n_k) matrix.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <tuple>

#include "attnlab/flash.hpp"
#include "attnlab/limits.hpp"
#include "base/validate.hpp"
#include "kernels/attention_checks.hpp"
#include "kernels/head_tasks.hpp"
#include "kernels/simd_kernels.hpp"

namespace attnlab {

namespace {

// The cells asked for against one sequence of n_q queries over n_k keys: the head, at most
// limits::sampled_rows rows and sampled_cols columns, each an index within them.
std::optional<Error> check_cells(std::size_t n_q, std::size_t n_k,
                                 const std::vector<std::size_t>& rows,
                                 const std::vector<std::size_t>& cols, int head,
                                 const LongAttentionOptions& options) {
  if (options.batch != 1)
    return Error{ErrorCode::invalid_argument, "sampled weights take one sequence (batch 1)"};
  if (head < 0 || head >= options.heads)
    return Error{ErrorCode::invalid_argument, "head " + std::to_string(head) +
                                                  " is not one of the " +
                                                  std::to_string(options.heads) + " heads"};
  for (const auto& [name, indices, most] : {std::tuple{"rows", &rows, limits::sampled_rows},
                                            std::tuple{"cols", &cols, limits::sampled_cols}})
    if (indices->size() > most)
      return validate::formatted(ErrorCode::too_large,
                                 "%s lists %zu indices; sampled weights take at most %zu", name,
                                 indices->size(), most);
  for (const auto& [name, indices, limit] :
       {std::tuple{"row", &rows, n_q}, std::tuple{"column", &cols, n_k}})
    for (std::size_t index : *indices)
      if (index >= limit)
        return Error{ErrorCode::invalid_argument, std::string(name) + " " + std::to_string(index) +
                                                      " is outside 0 … " +
                                                      std::to_string(limit - 1)};
  return std::nullopt;
}

Error overflow(const Matrix& q, const Matrix& k, std::size_t row, const char* what) {
  return Error{ErrorCode::non_finite, "the sampled weights overflow float32 at row " +
                                          std::to_string(row + 1) + ": " + what + " of Q (" +
                                          shape_string(q) + ") and K (" + shape_string(k) +
                                          ") are beyond ±3.4e38; use smaller values"};
}

}  // namespace

Result<Matrix> sampled_weights(const Matrix& q, const Matrix& k,
                               const std::vector<std::size_t>& rows,
                               const std::vector<std::size_t>& cols, int head,
                               const LongAttentionOptions& options) {
  if (auto e = flash_tasks::check(q, k, k, options, "K")) return *e;
  if (auto e = check_cells(q.rows, k.rows, rows, cols, head, options)) return *e;
  const simd::HeadTask task =
      flash_tasks::head_tasks(q, k, k, options, nullptr)[static_cast<std::size_t>(head)];
  simd::HeadTask scaled = task;  // the rules on scores already scaled (and checked)
  scaled.scale = 1.0f;
  const simd::Kernels& kernels = simd::active();
  Matrix weights(rows.size(), cols.size());  // (rows, cols)
  std::vector<float> scores(k.rows);         // one row's scores over the keys it sees
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const std::size_t i = rows[r];
    const KeyRange seen = task.band.range(i);
    if (seen.empty()) continue;  // a fully masked row: zeros
    const std::size_t keys = seen.end - seen.begin;
    kernels.dots(task.q + i * task.ld_q, task.k + seen.begin * task.ld_k, task.ld_k, keys, task.d,
                 scores.data());
    kernels.scale(scores.data(), keys, task.scale);
    // Beyond float32 before any rule: the flash kernel's non-finite error (flash.cpp).
    if (!kernels.all_finite(scores.data(), keys)) return overflow(q, k, i, "the scores");
    if (task.rules) simd::apply_score_rules(scaled, scores.data(), keys, 1, 1, 0, i, seen.begin);
    const float max = kernels.max_of(scores.data(), keys);
    // The bias can push a score past +3.4e38 (NaN once shifted), or every seen key past
    // −3.4e38 where no rule blocks it: the flash kernel refuses both (head_tasks.cpp).
    if (!(max < std::numeric_limits<float>::infinity()))
      return overflow(q, k, i, "the scaled scores plus the bias");
    if (max == simd::minus_infinity) {
      for (std::size_t j = seen.begin; j < seen.end; ++j)
        if (!task.rules || !task.rules->blocked_in_band(i, j))
          return overflow(q, k, i, "the scaled scores plus the bias");
      continue;  // every key padding or blocked: zeros
    }
    const float sum = kernels.exp_shifted(scores.data(), max, scores.data(), keys);  // ≥ 1
    for (std::size_t c = 0; c < cols.size(); ++c)
      weights(r, c) = seen.contains(cols[c]) ? scores[cols[c] - seen.begin] / sum : 0.0f;
  }
  return weights;
}

Result<SampledMask> sampled_mask(std::size_t n_q, std::size_t n_k,
                                 const std::vector<std::size_t>& rows,
                                 const std::vector<std::size_t>& cols, int head,
                                 const LongAttentionOptions& options) {
  if (auto e = check_cells(n_q, n_k, rows, cols, head, options)) return *e;
  if (auto e = flash_tasks::untaken_rule(options)) return *e;
  if (auto e = detail::check_alignment(options.alignment(), n_q, n_k)) return *e;
  // The rules' own sizes against n_q and n_k (their values were checked with Q and K).
  const auto heads = static_cast<std::size_t>(options.heads);
  if (!options.key_padding.empty() && options.key_padding.size() != n_k)
    return validate::formatted(ErrorCode::shape_mismatch, "key padding has %zu flags for %zu keys",
                               options.key_padding.size(), n_k);
  if (const auto& bias = options.bias) {
    if (auto e = validate::well_formed("bias", *bias)) return *e;
    if (bias->cols != n_k || (bias->rows != n_q && bias->rows != heads * n_q))
      return validate::formatted(ErrorCode::shape_mismatch, "bias (%s) is not (%zu, %zu)",
                                 shape_string(*bias).c_str(), n_q, n_k);
  }
  const HeadRules rules = options.head(static_cast<std::size_t>(head), heads, n_q, n_k, 0);
  const KeyBand& band = rules.band;
  const auto hidden = [&](std::size_t i, std::size_t j) {
    return !band.range(i).contains(j) || rules.blocked_in_band(i, j);
  };
  SampledMask out{BasicMatrix<std::uint8_t>(rows.size(), cols.size()), {}};
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const KeyRange seen = band.range(rows[r]);
    std::size_t visible = 0;
    for (std::size_t j = seen.begin; j < seen.end; ++j) visible += !hidden(rows[r], j);
    out.visible_keys.push_back(visible);
    for (std::size_t c = 0; c < cols.size(); ++c) out.hidden(r, c) = hidden(rows[r], cols[c]);
  }
  return out;
}

}  // namespace attnlab
