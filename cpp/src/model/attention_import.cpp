// Checks an imported attention (attention_import.hpp) and scores its heads.
#include "attnlab/attention_import.hpp"

#include <cmath>

#include "attnlab/limits.hpp"
#include "base/validate.hpp"

namespace attnlab {
namespace {

// One head's weights: n × n, finite, each in [0, 1], each row summing to 1.
std::optional<Error> check_head(const Matrix& a, std::size_t n, std::size_t layer,
                                std::size_t head) {
  if (a.rows != n || a.cols != n)
    return validate::formatted(ErrorCode::shape_mismatch,
                               "layer %zu, head %zu is %zu×%zu, but there are %zu tokens: each "
                               "head's weights must be %zu×%zu (a row per query, a column per key)",
                               layer + 1, head + 1, a.rows, a.cols, n, n, n);
  for (std::size_t i = 0; i < n; ++i) {
    double sum = 0;
    for (std::size_t j = 0; j < n; ++j) {
      const float w = a(i, j);
      if (!std::isfinite(w))
        return validate::formatted(ErrorCode::non_finite,
                                   "layer %zu, head %zu, row %zu, column %zu is %s", layer + 1,
                                   head + 1, i + 1, j + 1, validate::number_text(w).c_str());
      if (w < 0 || w > 1)
        return validate::formatted(
            ErrorCode::invalid_argument,
            "layer %zu, head %zu, row %zu, column %zu is %s: attention weights lie in 0 … 1",
            layer + 1, head + 1, i + 1, j + 1, validate::number_text(w).c_str());
      sum += w;
    }
    if (std::abs(sum - 1) > import_row_tolerance)
      return validate::formatted(ErrorCode::invalid_argument,
                                 "layer %zu, head %zu, row %zu sums to %.4g, not 1 (within %g): "
                                 "each row must be one query's softmax weights",
                                 layer + 1, head + 1, i + 1, sum, import_row_tolerance);
  }
  return std::nullopt;
}

}  // namespace

Result<std::vector<std::vector<HeadScores>>> check_attention_import(
    const std::vector<std::vector<Matrix>>& attention, std::size_t tokens) {
  if (attention.empty()) return Error{ErrorCode::empty, "the attention has no layers"};
  if (attention[0].empty()) return Error{ErrorCode::empty, "layer 1 has no heads"};
  // Two tokens at least: a head's scores compare a query's previous and first token.
  if (auto p = validate::count_within("layers", attention.size(), 1, limits::import_layers))
    return *p;
  if (auto p = validate::count_within("heads", attention[0].size(), 1,
                                      static_cast<std::size_t>(limits::max_heads)))
    return *p;
  if (auto p = validate::count_within("tokens", tokens, 2, limits::trace_tokens)) return *p;
  const std::size_t heads = attention[0].size();
  if (attention.size() * heads * tokens * tokens > limits::import_values)
    return validate::formatted(ErrorCode::too_large,
                               "%zu layers × %zu heads × %zu × %zu tokens are more than %zu "
                               "weights (lab.limits().importValues)",
                               attention.size(), heads, tokens, tokens, limits::import_values);
  std::vector<std::vector<HeadScores>> scores;
  for (std::size_t l = 0; l < attention.size(); ++l) {
    if (attention[l].size() != heads)
      return validate::formatted(ErrorCode::shape_mismatch,
                                 "layer %zu has %zu heads but layer 1 has %zu: every layer needs "
                                 "the same heads",
                                 l + 1, attention[l].size(), heads);
    scores.emplace_back();
    for (std::size_t h = 0; h < heads; ++h) {
      if (auto p = check_head(attention[l][h], tokens, l, h)) return *p;
      auto s = head_scores(attention[l][h], 0);
      if (!s) return s.error();
      scores.back().push_back(s.value());
    }
  }
  return scores;
}

}  // namespace attnlab
