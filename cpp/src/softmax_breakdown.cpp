#include "attnlab/softmax_breakdown.hpp"

#include <cmath>
#include <optional>
#include <string>

#include "attnlab/kernels.hpp"
#include "attnlab/limits.hpp"
#include "attnlab/matrix.hpp"
#include "validate.hpp"

namespace attnlab {
namespace {

std::optional<Error> check_row(std::span<const float> scores, float temperature) {
  if (scores.empty())
    return Error{ErrorCode::empty, "the scores row is empty: it needs at least one score"};
  if (scores.size() > limits::softmax_row)
    return Error{ErrorCode::too_large, "the scores row has " + std::to_string(scores.size()) +
                                           " entries; the softmax breakdown allows at most " +
                                           std::to_string(limits::softmax_row)};
  for (std::size_t i = 0; i < scores.size(); ++i)
    if (!std::isfinite(scores[i]))
      return Error{ErrorCode::non_finite, "score " + std::to_string(i) + " is " +
                                              (std::isnan(scores[i]) ? "NaN" : "not finite") +
                                              ": every score must be a finite number"};
  return validate::positive_finite("temperature", temperature);
}

// The row without subtracting the max, as a naive float32 loop would do it. Scalar on
// purpose: this is the path to look at, not to make fast.
void naive_softmax(SoftmaxBreakdown& b) {
  const std::size_t n = b.scaled.size();
  b.naive_exponentials.resize(n);
  b.naive_weights.resize(n);
  float sum = 0.0f;
  for (std::size_t i = 0; i < n; ++i) {
    b.naive_exponentials[i] = std::exp(b.scaled[i]);  // float overload: overflows in float32
    sum += b.naive_exponentials[i];
  }
  for (std::size_t i = 0; i < n; ++i) b.naive_weights[i] = b.naive_exponentials[i] / sum;
  b.naive_sum = sum;
  b.naive_overflowed = std::isinf(sum);
  b.naive_underflowed = sum == 0.0f;
}

}  // namespace

Result<SoftmaxBreakdown> softmax_breakdown(std::span<const float> scores, float temperature) {
  if (auto problem = check_row(scores, temperature)) return *problem;
  SoftmaxBreakdown b;
  b.temperature = temperature;

  Matrix scaled(1, scores.size());  // (1, n): one row for the shared softmax kernel
  for (std::size_t i = 0; i < scores.size(); ++i) {
    scaled.data[i] = scores[i] / temperature;
    if (!std::isfinite(scaled.data[i]))
      return Error{ErrorCode::non_finite, "score " + std::to_string(i) +
                                              " divided by the temperature " +
                                              std::to_string(temperature) + " overflows float32"};
  }

  // The stable path is the same xsimd kernel attention() uses, so the numbers agree.
  const kernels::Softmax s = kernels::softmax_rows(scaled);
  b.max = s.row_max[0];
  b.sum = s.row_sum[0];
  b.exponentials = s.exponentials.data;
  b.weights = s.weights.data;
  b.shifted.resize(scores.size());
  for (std::size_t i = 0; i < scores.size(); ++i) b.shifted[i] = scaled.data[i] - b.max;
  b.scaled = std::move(scaled.data);

  naive_softmax(b);
  return b;
}

}  // namespace attnlab
