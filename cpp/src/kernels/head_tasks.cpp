// A flash call's checks and (batch, head) tasks, and what the flash and naive kernels share
// after the call: which rows saw no key, and whether anything overflowed (head_tasks.hpp).
#include "kernels/head_tasks.hpp"

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include "attnlab/limits.hpp"
#include "attnlab/tiling.hpp"
#include "attnlab/variants.hpp"
#include "base/validate.hpp"
#include "kernels/attention_checks.hpp"

namespace attnlab {

using simd::HeadTask;
using simd::minus_infinity;

namespace {

// Whether query i of a sequence sees no key: none in its band, or each padding or blocked by
// the bias.
bool sees_no_key(const HeadTask& task, std::size_t i) {
  const KeyRange seen = task.band.range(i);
  for (std::size_t j = seen.begin; j < seen.end; ++j)
    if (!task.rules || !task.rules->blocked_in_band(i, j)) return false;
  return true;
}

}  // namespace

std::size_t flash_tasks::group_size(const LongAttentionOptions& o) {
  return o.kv_heads > 0 ? static_cast<std::size_t>(o.heads / o.kv_heads) : 1;
}

std::vector<HeadTask> flash_tasks::head_tasks(const Matrix& q, const Matrix& k, const Matrix& v,
                                              const LongAttentionOptions& o, Matrix* out) {
  const auto heads = static_cast<std::size_t>(o.heads);
  const std::size_t group = group_size(o);
  const std::size_t d = q.cols / heads, d_v = v.cols / (heads / group);
  const std::size_t n_q = q.rows / o.batch, n_k = k.rows / o.batch;
  std::vector<HeadTask> list;
  for (std::size_t b = 0; b < o.batch; ++b)
    for (std::size_t h = 0; h < heads; ++h) {
      const HeadRules rules = o.head(h, heads, n_q, n_k, d);  // the same for every sequence
      list.push_back(HeadTask{
          q.row(b * n_q) + h * d, k.row(b * n_k) + h / group * d, v.row(b * n_k) + h / group * d_v,
          out ? out->row(b * n_q) + h * d_v : nullptr, b * n_q, q.cols, k.cols, v.cols,
          out ? out->cols : 0, n_q, n_k, d, d_v, rules.factor, rules.band});
      if (o.has_cell_rules()) list.back().rules = rules;
    }
  return list;
}

std::size_t flash_tasks::output_cols(const Matrix& v, const LongAttentionOptions& o) {
  const auto heads = static_cast<std::size_t>(o.heads);
  return v.cols / (heads / group_size(o)) * heads;
}

std::vector<std::size_t> flash_tasks::fully_masked(const std::vector<HeadTask>& list,
                                                   std::size_t heads, std::size_t rows,
                                                   std::vector<std::uint8_t>* no_weight) {
  std::vector<std::size_t> masked;
  for (std::size_t row = 0; row < rows; ++row) {
    std::size_t blind = 0;
    for (std::size_t h = 0; h < heads; ++h)
      if (sees_no_key(list[h], row % list[h].n_q)) {
        ++blind;
        if (no_weight && (*no_weight)[h * rows + row] == 1) (*no_weight)[h * rows + row] = 0;
      }
    if (blind == heads) masked.push_back(row);
  }
  return masked;
}

// These kernels give no key a -Infinity score of its own, and a row that sees no key is known
// from its band (not flagged), so a row with a score beyond float32 or no weight left
// (`no_weight`, one flag per head and row), or an output beyond float32, means that a score or
// the weighted sum of V overflowed:
// attention()'s non-finite error, never NaN, Infinity, a row reported as fully masked or a key
// silently left out. The flash kernel flags its non-finite outputs itself (outputs_flagged);
// the naive one leaves them to a scan here.
std::optional<Error> flash_tasks::overflow(std::string_view kernel, const Matrix& q,
                                           const Matrix& k, const Matrix& v, const Matrix& out,
                                           std::vector<std::uint8_t>& no_weight,
                                           const std::vector<HeadTask>& list,
                                           std::vector<std::size_t>& fully_masked_rows,
                                           bool outputs_flagged) {
  // The heads and rows that see no key (LongAttentionResult::fully_masked_rows) have no weight by
  // right.
  fully_masked_rows = fully_masked(list, no_weight.size() / q.rows, q.rows, &no_weight);
  std::optional<std::size_t> row;
  for (std::size_t i = 0; i < no_weight.size() && !row; ++i)
    if (no_weight[i]) row = i % q.rows;
  if (!row && !outputs_flagged && !simd::active().all_finite(out.data.data(), out.data.size()))
    for (std::size_t i = 0; i < out.data.size() && !row; ++i)
      if (!std::isfinite(out.data[i])) row = i / out.cols;
  if (!row) return std::nullopt;
  return Error{ErrorCode::non_finite, std::string(kernel) + " overflows float32 at row " +
                                          std::to_string(*row + 1) + ": the scores of Q (" +
                                          shape_string(q) + ") and K (" + shape_string(k) +
                                          ") or the weighted sum of V (" + shape_string(v) +
                                          ") are beyond ±3.4e38; use smaller values"};
}

std::optional<Error> flash_tasks::check_work(const char* kernel, const Matrix& q, const Matrix& k,
                                             const Matrix& v, const LongAttentionOptions& o,
                                             std::uint64_t scores, std::uint64_t multiply_adds) {
  const std::uint64_t pairs = std::uint64_t{q.rows} * (k.rows / o.batch);  // per head
  const auto heads = static_cast<std::uint64_t>(o.heads);
  const auto count = [](std::uint64_t n) { return static_cast<unsigned long long>(n); };
  if (pairs * heads > scores)
    return validate::formatted(
        ErrorCode::too_large,
        "%s would compute %llu scores (%zu queries x %zu keys x %d heads), more than the %llu "
        "allowed: use fewer tokens or heads",
        kernel, count(pairs * heads), q.rows, k.rows / o.batch, o.heads, count(scores));
  const std::size_t out_cols = output_cols(v, o);
  const std::uint64_t width = q.cols + out_cols;
  if (pairs * width > multiply_adds)
    return validate::formatted(
        ErrorCode::too_large,
        "%s would compute %llu multiply-adds (%zu queries x %zu keys x (%zu + %zu columns of Q "
        "and V per query head)), more than the %llu allowed: use fewer tokens or narrower Q, K "
        "and V",
        kernel, count(pairs * width), q.rows, k.rows / o.batch, q.cols, out_cols,
        count(multiply_adds));
  return std::nullopt;
}

std::optional<Error> flash_tasks::untaken_rule(const LongAttentionOptions& o) {
  if (!o.mask && o.global_tokens.empty() && !o.past_key && !o.past_value) return std::nullopt;
  return Error{ErrorCode::invalid_argument,
               std::string(o.mask                     ? "mask"
                           : !o.global_tokens.empty() ? "globalTokens"
                                                      : "pastKey") +
                   ": the long-sequence kernels do not take it; attention() and trace() do"};
}

// K's own checks come first, so only the heads' message names the V of sampled_weights().
std::optional<Error> flash_tasks::check(const Matrix& q, const Matrix& k, const Matrix& v,
                                        const LongAttentionOptions& o, const char* v_name,
                                        bool values, const char* kernel) {
  if (auto e = validate::attention_shapes(q, k, v, limits::flash_tokens, limits::flash_features,
                                          kernel, false))
    return e;
  for (const auto& [name, m] : {std::pair{"Q", &q}, std::pair{"K", &k}, std::pair{"V", &v}})
    if (std::uint64_t{m->rows} * m->cols > limits::flash_values)
      return validate::formatted(ErrorCode::too_large,
                                 "%s (%zu×%zu) is too large: the long-sequence kernels take at "
                                 "most %zu values (rows × columns)",
                                 name, m->rows, m->cols, limits::flash_values);
  // Messages through formatted(): the wasm core's download budget counts every string built.
  const auto shape = [](const Matrix& m) { return shape_string(m); };
  if (o.heads < 1 || q.cols % static_cast<std::size_t>(o.heads) != 0)
    return validate::formatted(ErrorCode::invalid_argument,
                               "heads (%d) must be at least 1 and divide the width of Q (%s)",
                               o.heads, shape(q).c_str());
  if (o.kv_heads < 0 || (o.kv_heads > 0 && o.heads % o.kv_heads != 0))
    return validate::formatted(ErrorCode::invalid_argument, "kvHeads (%d) must divide heads (%d)",
                               o.kv_heads, o.heads);
  const std::size_t kv_heads = static_cast<std::size_t>(o.heads) / group_size(o);
  const std::size_t d = q.cols / static_cast<std::size_t>(o.heads);
  if (k.cols != kv_heads * d || v.cols % kv_heads != 0) {
    const std::string others = v_name == std::string_view("K")
                                   ? ""
                                   : " and " + std::string(v_name) + " (" + shape(v) + ")";
    return validate::formatted(ErrorCode::shape_mismatch,
                               "K (%s)%s must have %zu head%s of width %zu (Q (%s) over %d heads)",
                               shape(k).c_str(), others.c_str(), kv_heads, kv_heads == 1 ? "" : "s",
                               d, shape(q).c_str(), o.heads);
  }
  if (d > tiling::max_head_width)
    return validate::formatted(ErrorCode::too_large,
                               "the head width of Q (%s) over %d heads is above %zu",
                               shape(q).c_str(), o.heads, tiling::max_head_width);
  if (o.batch < 1 || q.rows % o.batch != 0 || k.rows % o.batch != 0)
    return validate::formatted(ErrorCode::invalid_argument,
                               "batch (%zu) must be at least 1 and divide the rows of Q (%s) and K "
                               "(%s)",
                               o.batch, shape(q).c_str(), shape(k).c_str());
  if (auto e = untaken_rule(o)) return e;
  // Per sequence: the same rules (padding, bias) for each.
  const std::size_t n_q = q.rows / o.batch, n_k = k.rows / o.batch;
  if (auto e = detail::check_rules(o, n_q, n_k, q, k, static_cast<std::size_t>(o.heads))) return e;
  for (std::size_t h = 0; h < static_cast<std::size_t>(o.heads); ++h)
    if (auto e = validate::positive_finite(
            "scale / temperature",
            o.head(h, static_cast<std::size_t>(o.heads), n_q, n_k, d).factor))
      return e;
  if (!values) return std::nullopt;
  return validate::finite_qkv(q, k, v);
}

}  // namespace attnlab
