// softmax_breakdown(): every stage against a float64 reference, the path without the max
// (its real float32 overflow and underflow), the temperature, and every error.
#include "attnlab/softmax_breakdown.hpp"

#include <catch2/catch.hpp>
#include <cfloat>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

#include "attnlab/attention.hpp"
#include "attnlab/limits.hpp"
#include "test_support.hpp"

namespace {

using attnlab::ErrorCode;
using attnlab::SoftmaxBreakdown;

constexpr float infinity = std::numeric_limits<float>::infinity();
constexpr float not_a_number = std::numeric_limits<float>::quiet_NaN();

SoftmaxBreakdown breakdown(const std::vector<float>& scores, float temperature = 1.0f) {
  auto r = attnlab::softmax_breakdown(scores, temperature);
  REQUIRE(r.ok());
  return std::move(r).value();
}

ErrorCode error_code(const std::vector<float>& scores, float temperature = 1.0f) {
  const auto r = attnlab::softmax_breakdown(scores, temperature);
  REQUIRE_FALSE(r.ok());
  return r.error().code;
}

// The stages in float64, from the same float32 scores.
struct Reference {
  std::vector<double> scaled, shifted, exponentials, weights;
  double max = -INFINITY, sum = 0;
};
Reference reference(const std::vector<float>& scores, float temperature) {
  Reference r;
  for (float s : scores) r.scaled.push_back(static_cast<double>(s) / temperature);
  for (double x : r.scaled) r.max = std::max(r.max, x);
  for (double x : r.scaled) r.shifted.push_back(x - r.max);
  for (double x : r.shifted) r.exponentials.push_back(std::exp(x));
  for (double e : r.exponentials) r.sum += e;
  for (double e : r.exponentials) r.weights.push_back(e / r.sum);
  return r;
}

double max_abs_diff(const std::vector<float>& got, const std::vector<double>& want) {
  if (got.size() != want.size()) return INFINITY;
  double worst = 0;
  for (std::size_t i = 0; i < got.size(); ++i)
    worst = std::max(worst, std::abs(static_cast<double>(got[i]) - want[i]));
  return worst;
}

}  // namespace

TEST_CASE("every stage matches float64 for random rows and temperatures", "[softmax-breakdown]") {
  const std::size_t n = GENERATE(1, 3, 7, 12, 17, 64);
  const float temperature = GENERATE(0.25f, 1.0f, 3.0f);
  CAPTURE(n, temperature);
  const attnlab::Matrix row = attnlab::test::random_matrix(1, n, 100 + n, 3.0f);
  const SoftmaxBreakdown b = breakdown(row.data, temperature);
  const Reference want = reference(row.data, temperature);

  // Float32 rounds each of a few operations by ε/2 relative to values of size ≤ max|scaled|;
  // xsimd's exp adds a few ulps. 4·ε·(1 + max|scaled|) bounds all of it with room to spare.
  double largest = 0;
  for (double x : want.scaled) largest = std::max(largest, std::abs(x));
  const double tolerance = 4 * FLT_EPSILON * (1 + largest);
  CHECK(b.temperature == temperature);
  CHECK(max_abs_diff(b.scaled, want.scaled) <= tolerance);
  CHECK(std::abs(b.max - want.max) <= tolerance);
  CHECK(max_abs_diff(b.shifted, want.shifted) <= tolerance);
  CHECK(max_abs_diff(b.exponentials, want.exponentials) <= tolerance);
  CHECK(std::abs(b.sum - want.sum) <= tolerance * static_cast<double>(n));
  CHECK(max_abs_diff(b.weights, want.weights) <= tolerance);
  CHECK(attnlab::test::row_sum(attnlab::Matrix(1, n, b.weights), 0) == Approx(1.0).margin(1e-5));

  // Scores this small never overflow: the path without the max agrees with the stable one.
  CHECK_FALSE(b.without_max.overflowed);
  CHECK_FALSE(b.without_max.term_overflowed);
  CHECK_FALSE(b.without_max.underflowed);
  CHECK(max_abs_diff(b.without_max.weights, want.weights) <= tolerance);
}

TEST_CASE("the stages have their defining properties", "[softmax-breakdown]") {
  const SoftmaxBreakdown b = breakdown({2.0f, -1.0f, 0.5f, 2.0f});
  CHECK(b.max == 2.0f);
  CHECK(b.shifted == std::vector<float>{0.0f, -3.0f, -1.5f, 0.0f});
  CHECK(b.exponentials[0] == 1.0f);  // exp(0): the max entry is exactly 1
  CHECK(b.exponentials[3] == 1.0f);
  CHECK(b.sum >= 2.0f);
  CHECK(b.weights[0] == b.weights[3]);  // equal scores, equal weights
}

TEST_CASE("scores [100, 99, 98] overflow float32 without the max, and not with it",
          "[softmax-breakdown]") {
  const std::vector<float> scores{100.0f, 99.0f, 98.0f};
  const SoftmaxBreakdown b = breakdown(scores);
  // Stable: e⁰, e⁻¹, e⁻² over their sum, exactly as in float64.
  const Reference want = reference(scores, 1.0f);
  CHECK(max_abs_diff(b.weights, want.weights) <= 1e-6);
  CHECK(b.weights[0] == Approx(1 / (1 + std::exp(-1.0) + std::exp(-2.0))).epsilon(1e-6));

  // Naive: exp(98) ≈ 3.6e42 is past FLT_MAX ≈ 3.4e38, so every term is +Infinity and
  // every weight is Infinity / Infinity = NaN.
  for (float e : b.without_max.exponentials) CHECK(std::isinf(e));
  CHECK(std::isinf(b.without_max.sum));
  for (float w : b.without_max.weights) CHECK(std::isnan(w));
  CHECK(b.without_max.overflowed);
  CHECK(b.without_max.term_overflowed);
  CHECK_FALSE(b.without_max.underflowed);
}

TEST_CASE("the float32 overflow starts just above ln(FLT_MAX) ≈ 88.72", "[softmax-breakdown]") {
  const SoftmaxBreakdown below = breakdown({88.0f, 0.0f});
  CHECK(std::isfinite(below.without_max.exponentials[0]));
  CHECK_FALSE(below.without_max.overflowed);
  CHECK_FALSE(below.without_max.term_overflowed);
  CHECK(below.without_max.weights[0] == Approx(below.weights[0]).epsilon(1e-6));

  const SoftmaxBreakdown above = breakdown({89.0f, 0.0f});
  CHECK(std::isinf(above.without_max.exponentials[0]));
  CHECK(above.without_max.overflowed);
  CHECK(above.without_max.term_overflowed);
  CHECK(std::isnan(above.without_max.weights[0]));  // ∞ / ∞
  CHECK(above.without_max.weights[1] == 0.0f);      // 1 / ∞
  CHECK(above.weights[0] == Approx(1 / (1 + std::exp(-89.0))).epsilon(1e-6));
}

TEST_CASE("finite terms can still overflow the sum without the max", "[softmax-breakdown]") {
  // exp(88.5) ≈ 2.7e38 fits in float32; two of them (5.4e38) do not.
  const SoftmaxBreakdown b = breakdown({88.5f, 88.5f, 0.0f});
  for (float e : b.without_max.exponentials) CHECK(std::isfinite(e));
  CHECK(b.without_max.overflowed);
  CHECK_FALSE(b.without_max.term_overflowed);                            // only the sum is Infinity
  CHECK(b.without_max.weights == std::vector<float>{0.0f, 0.0f, 0.0f});  // finite / ∞
  CHECK(b.weights[0] == Approx(0.5).epsilon(1e-6));
}

TEST_CASE("very negative scores underflow to 0 / 0 without the max", "[softmax-breakdown]") {
  // exp(-110) ≈ 1.7e-48 is below the smallest float32 (≈ 1.4e-45): it rounds to 0.
  const SoftmaxBreakdown b = breakdown({-110.0f, -120.0f});
  CHECK(b.without_max.exponentials == std::vector<float>{0.0f, 0.0f});
  CHECK(b.without_max.underflowed);
  CHECK_FALSE(b.without_max.overflowed);
  for (float w : b.without_max.weights) CHECK(std::isnan(w));
  CHECK(b.weights[0] == Approx(1 / (1 + std::exp(-10.0))).epsilon(1e-6));
}

TEST_CASE("the stable stages equal attention()'s for the same row and temperature",
          "[softmax-breakdown]") {
  const std::size_t n = GENERATE(1, 5, 17);
  const float temperature = GENERATE(0.3f, 1.0f, 7.0f);
  CAPTURE(n, temperature);
  const attnlab::Matrix row = attnlab::test::random_matrix(1, n, 300 + n, 4.0f);
  const SoftmaxBreakdown b = breakdown(row.data, temperature);
  // Q = [1], K = the row as a column: the scores are the row itself; scale 1.
  attnlab::AttentionOptions options;
  options.scale = 1.0f;
  options.temperature = temperature;
  const auto a = attnlab::attention(attnlab::Matrix(1, 1, 1.0f), attnlab::Matrix(n, 1, row.data),
                                    attnlab::Matrix(n, 1, 0.0f), options);
  REQUIRE(a.ok());
  CHECK(a.value().scores.data == row.data);
  CHECK(b.scaled == a.value().scaled.data);
  CHECK(b.max == a.value().softmax.row_max[0]);
  CHECK(b.exponentials == a.value().softmax.exponentials.data);
  CHECK(b.sum == a.value().softmax.row_sum[0]);
  CHECK(b.weights == a.value().softmax.weights.data);
}

TEST_CASE("the temperature divides the scores: higher is flatter, lower is sharper",
          "[softmax-breakdown]") {
  const std::vector<float> scores{100.0f, 99.0f, 98.0f};
  const SoftmaxBreakdown warm = breakdown(scores, 10.0f);
  CHECK(warm.scaled[0] == 10.0f);
  CHECK_FALSE(warm.without_max.overflowed);  // scaled to 10, 9.9, 9.8: no overflow
  CHECK(max_abs_diff(warm.without_max.weights, reference(scores, 10.0f).weights) <= 1e-6);

  const SoftmaxBreakdown cold = breakdown(scores, 0.1f);
  const SoftmaxBreakdown plain = breakdown(scores, 1.0f);
  CHECK(warm.weights[0] < plain.weights[0]);
  CHECK(plain.weights[0] < cold.weights[0]);
  CHECK(cold.weights[0] == Approx(1.0).margin(1e-4));  // a 10-point gap: one-hot
  CHECK(warm.weights[0] == Approx(1 / (1 + std::exp(-0.1) + std::exp(-0.2))).epsilon(1e-5));
}

TEST_CASE("softmax_breakdown rejects every bad input with its code", "[softmax-breakdown]") {
  CHECK(error_code({}) == ErrorCode::empty);
  CHECK(error_code(std::vector<float>(attnlab::limits::softmax_row + 1, 0.0f)) ==
        ErrorCode::too_large);
  CHECK(attnlab::softmax_breakdown(std::vector<float>(attnlab::limits::softmax_row, 0.0f), 1.0f)
            .ok());
  CHECK(error_code({1.0f, not_a_number}) == ErrorCode::non_finite);
  CHECK(error_code({infinity, 1.0f}) == ErrorCode::non_finite);
  CHECK(error_code({-infinity}) == ErrorCode::non_finite);
  for (float t : {0.0f, -1.0f, not_a_number, infinity, -infinity}) {
    CAPTURE(t);
    CHECK(error_code({1.0f, 2.0f}, t) == ErrorCode::invalid_argument);
  }
  // 1e30 / 1e-10 = 1e40 is past FLT_MAX: the scaled row itself is not finite.
  CHECK(error_code({1e30f, 0.0f}, 1e-10f) == ErrorCode::non_finite);
  // Each score fits, but 3e38 − (−3e38) does not: scaled − max would be −Infinity.
  CHECK(error_code({-3e38f, 3e38f}) == ErrorCode::non_finite);

  const auto r = attnlab::softmax_breakdown(std::vector<float>{1.0f, not_a_number}, 1.0f);
  CHECK_THAT(r.error().message, Catch::Contains("score 2"));
}
