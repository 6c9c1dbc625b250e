#include "attnlab/softmax_breakdown.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include "attnlab/kernels.hpp"
#include "attnlab/limits.hpp"
#include "attnlab/matrix.hpp"
#include "base/validate.hpp"

namespace attnlab {
namespace {

std::optional<Error> check_row(std::span<const float> scores, float temperature) {
  if (scores.empty())
    return Error{ErrorCode::empty, "the scores row is empty: it needs at least one score"};
  if (scores.size() > limits::softmax_row)
    return Error{ErrorCode::too_large, "the scores row has " + std::to_string(scores.size()) +
                                           " entries; the softmax breakdown allows at most " +
                                           std::to_string(limits::softmax_row)};
  if (auto p = validate::finite("score", scores)) return p;
  return validate::positive_finite("temperature", temperature);
}

// The row without subtracting the max, as a plain float32 loop would do it. Scalar on
// purpose: this is the path to look at, not to make fast.
SoftmaxWithoutMax softmax_without_max(const std::vector<float>& scaled) {
  const std::size_t n = scaled.size();
  SoftmaxWithoutMax w;
  w.exponentials.resize(n);
  w.weights.resize(n);
  float sum = 0.0f;
  for (std::size_t i = 0; i < n; ++i) {
    w.exponentials[i] = std::exp(scaled[i]);  // float overload: overflows in float32
    sum += w.exponentials[i];
  }
  for (std::size_t i = 0; i < n; ++i) w.weights[i] = w.exponentials[i] / sum;
  w.sum = sum;
  w.overflowed = std::isinf(sum);
  w.term_overflowed = std::any_of(w.exponentials.begin(), w.exponentials.end(),
                                  [](float e) { return std::isinf(e); });
  w.underflowed = sum == 0.0f;
  return w;
}

}  // namespace

Result<SoftmaxBreakdown> softmax_breakdown(std::span<const float> scores, float temperature) {
  if (auto problem = check_row(scores, temperature)) return *problem;
  SoftmaxBreakdown b;
  b.temperature = temperature;

  // Scaled as attention() scales its scores (by base / temperature, here base 1) through
  // the same kernel, so the numbers agree exactly.
  const float factor = 1.0f / temperature;
  if (auto p = validate::positive_finite("1 / temperature", factor)) return *p;
  Matrix scaled(1, scores.size(), std::vector<float>(scores.begin(), scores.end()));  // (1, n)
  kernels::scale(scaled, factor);
  if (auto p = validate::finite("scores / temperature", scaled)) {
    p->message += ": dividing by the temperature " + validate::number_text(temperature) +
                  " overflows float32";
    return *p;
  }

  // The stable path is the same xsimd kernel attention() uses, so the numbers agree.
  const kernels::Softmax s = kernels::softmax_rows(scaled);
  b.max = s.row_max[0];
  b.sum = s.row_sum[0];
  b.exponentials = s.exponentials.data;
  b.weights = s.weights.data;
  b.shifted.resize(scores.size());
  for (std::size_t i = 0; i < scores.size(); ++i) {
    b.shifted[i] = scaled.data[i] - b.max;
    // Scores spread wider than float32 (−3e38 beside 3e38) make scaled − max −Infinity.
    if (!std::isfinite(b.shifted[i]))
      return Error{ErrorCode::non_finite, "score " + std::to_string(i) + " minus the largest, " +
                                              validate::number_text(b.max) +
                                              ", overflows float32: the scores / temperature "
                                              "span more than 3.4e38; use a narrower row"};
  }
  b.scaled = std::move(scaled.data);

  b.without_max = softmax_without_max(b.scaled);
  return b;
}

}  // namespace attnlab
