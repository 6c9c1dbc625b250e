// scaling_study(): every statistic recomputed in float64 from the same draws,
// the properties the view teaches (spread ≈ √d_k, one-hot without scaling, flat entropy with
// it), and every error.
#include "attnlab/scaling_study.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstddef>
#include <vector>

#include "attnlab/limits.hpp"

namespace {

using attnlab::ErrorCode;
using attnlab::Matrix;
using attnlab::ScalingPoint;
using attnlab::ScalingStudy;
using attnlab::ScalingStudyOptions;

const std::vector<std::size_t> powers_of_two{1, 2, 4, 8, 16, 32, 64, 128, 256, 512};

ScalingStudy study(const ScalingStudyOptions& options) {
  auto r = attnlab::scaling_study(options);
  REQUIRE(r.ok());
  return std::move(r).value();
}

ErrorCode error_code(const ScalingStudyOptions& options) {
  const auto r = attnlab::scaling_study(options);
  REQUIRE_FALSE(r.ok());
  return r.error().code;
}

std::vector<double> softmax(std::vector<double> x) {
  const double max = *std::max_element(x.begin(), x.end());
  double sum = 0;
  for (double& v : x) sum += v = std::exp(v - max);
  for (double& v : x) v /= sum;
  return x;
}

double entropy(const std::vector<double>& w) {
  double h = 0;
  for (double v : w)
    if (v > 0) h -= v * std::log(v);
  return h;
}

// One d_k recomputed in float64 from the study's own draws (scaling_seeds + normal_matrix).
struct Expected {
  double std = 0, max_scaled = 0, max_unscaled = 0, entropy_scaled = 0, entropy_unscaled = 0;
  std::vector<double> scores, scaled, unscaled;  // the first sample's row
};
Expected recompute(std::size_t dk, const ScalingStudyOptions& o) {
  const auto seeds = attnlab::scaling_seeds(o.seed, dk);
  const Matrix q = attnlab::normal_matrix(o.samples, dk, seeds.queries).value();
  const Matrix k = attnlab::normal_matrix(o.samples * o.keys, dk, seeds.keys).value();
  Expected e;
  std::vector<double> all;
  for (std::size_t s = 0; s < o.samples; ++s) {
    std::vector<double> row(o.keys), scaled(o.keys);
    for (std::size_t j = 0; j < o.keys; ++j) {
      for (std::size_t l = 0; l < dk; ++l)
        row[j] += static_cast<double>(q(s, l)) * k(s * o.keys + j, l);
      scaled[j] = row[j] / std::sqrt(static_cast<double>(dk));
      all.push_back(row[j]);
    }
    const auto with = softmax(scaled), without = softmax(row);
    e.max_scaled += *std::max_element(with.begin(), with.end()) / o.samples;
    e.max_unscaled += *std::max_element(without.begin(), without.end()) / o.samples;
    e.entropy_scaled += entropy(with) / o.samples;
    e.entropy_unscaled += entropy(without) / o.samples;
    if (s == 0) e.scores = row, e.scaled = with, e.unscaled = without;
  }
  double mean = 0, squares = 0;
  for (double v : all) mean += v / all.size();
  for (double v : all) squares += (v - mean) * (v - mean);
  e.std = std::sqrt(squares / all.size());
  return e;
}

void check_close(const std::vector<float>& got, const std::vector<double>& want, double tol) {
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i) CHECK(std::abs(got[i] - want[i]) <= tol);
}

}  // namespace

TEST_CASE("every statistic matches a float64 recomputation from the same draws",
          "[scaling-study]") {
  ScalingStudyOptions options;
  options.dims = {1, 3, 16, 64, 100};
  options.keys = 8;
  options.samples = 50;
  options.seed = 5;
  const ScalingStudy s = study(options);
  CHECK(s.keys == 8);
  CHECK(s.samples == 50);
  CHECK(s.max_entropy == Approx(std::log(8.0)).epsilon(1e-7));
  REQUIRE(s.points.size() == options.dims.size());
  for (std::size_t i = 0; i < options.dims.size(); ++i) {
    const ScalingPoint& p = s.points[i];
    const Expected e = recompute(options.dims[i], options);
    CAPTURE(p.dk);
    CHECK(p.dk == options.dims[i]);
    CHECK(p.sqrt_dk == Approx(std::sqrt(static_cast<double>(p.dk))).epsilon(1e-7));
    // Float32 dot products of d_k terms of size ~1 err by about d_k·ε ≤ 1e-5 here; an
    // error δ in a score moves a softmax weight by at most δ/2, and an entropy by ~δ·ln(keys).
    CHECK(p.score_std == Approx(e.std).epsilon(1e-5));
    check_close(p.example_scores, e.scores, 1e-4);
    check_close(p.example_weights_scaled, e.scaled, 1e-5);
    check_close(p.example_weights_unscaled, e.unscaled, 1e-4);
    CHECK(p.max_weight_scaled == Approx(e.max_scaled).margin(1e-5));
    CHECK(p.max_weight_unscaled == Approx(e.max_unscaled).margin(1e-4));
    CHECK(p.entropy_scaled == Approx(e.entropy_scaled).margin(1e-5));
    CHECK(p.entropy_unscaled == Approx(e.entropy_unscaled).margin(1e-4));
  }
}

TEST_CASE("raw scores spread like √d_k; only the scaled softmax stays soft", "[scaling-study]") {
  ScalingStudyOptions options;
  options.dims = {powers_of_two.begin(), powers_of_two.end() - 1};
  options.keys = 16;
  options.samples = 1920;
  options.seed = 11;
  // Two studies, each within limits::scaling_draws: a d_k's numbers depend only on d_k and
  // the seed, so d_k = 512 alone joins the others.
  ScalingStudy s = study(options);
  options.dims = {powers_of_two.back()};
  s.points.push_back(study(options).points.front());
  REQUIRE(s.points.size() == powers_of_two.size());
  for (const ScalingPoint& p : s.points) {
    CAPTURE(p.dk, p.score_std, p.entropy_scaled, p.entropy_unscaled);
    // 30,720 scores, 16 to a query (which they share): the standard error of the estimated
    // spread is about 2% at d_k = 1 (heavy-tailed products) and less above, so 5% is ≥ 2.4σ.
    CHECK(p.score_std / p.sqrt_dk == Approx(1.0).margin(0.05));
    CHECK(p.entropy_scaled <= s.max_entropy);
    CHECK(p.entropy_unscaled <= s.max_entropy);
    // Scaled scores keep a spread of about 1 at every d_k, so the rows stay soft.
    CHECK(p.max_weight_scaled < 0.5);
    CHECK(p.entropy_scaled > 0.75 * s.max_entropy);
  }
  const ScalingPoint& small = s.points.front();  // d_k = 1: scaling changes nothing
  const ScalingPoint& large = s.points.back();   // d_k = 512
  CHECK(small.entropy_scaled == Approx(small.entropy_unscaled).margin(1e-6));
  CHECK(large.max_weight_unscaled > 0.9);  // near one-hot
  CHECK(large.entropy_unscaled < 0.25);
  // The unscaled rows sharpen steadily as d_k grows; the scaled entropy stays nearly flat.
  for (std::size_t i = 1; i < s.points.size(); ++i)
    CHECK(s.points[i].entropy_unscaled < s.points[i - 1].entropy_unscaled);
  const auto [lo, hi] = std::minmax_element(s.points.begin(), s.points.end(),
                                            [](const ScalingPoint& a, const ScalingPoint& b) {
                                              return a.entropy_scaled < b.entropy_scaled;
                                            });
  CHECK(hi->entropy_scaled - lo->entropy_scaled <
        0.15);  // nats; the unscaled entropy falls by over 2 across the same d_k
}

TEST_CASE("a d_k's draws do not depend on the other d_k or on repetition", "[scaling-study]") {
  ScalingStudyOptions one;
  one.dims = {8};
  one.samples = 20;
  ScalingStudyOptions two = one;
  two.dims = {1, 8};
  const ScalingPoint a = study(one).points[0];
  const ScalingPoint b = study(two).points[1];
  CHECK(a.example_scores == b.example_scores);
  CHECK(a.score_std == b.score_std);
  CHECK(study(one).points[0].entropy_unscaled == a.entropy_unscaled);
  ScalingStudyOptions other = one;
  other.seed = 2;
  CHECK(study(other).points[0].example_scores != a.example_scores);
}

TEST_CASE("scaling_study rejects every bad option with its code", "[scaling-study]") {
  using attnlab::limits::scaling_max_dk;
  const auto with = [](auto change) {
    ScalingStudyOptions o;
    o.dims = {4};
    o.samples = 4;
    change(o);
    return o;
  };
  CHECK(attnlab::scaling_study(with([](auto&) {})).ok());
  CHECK(error_code(with([](auto& o) { o.dims = {}; })) == ErrorCode::empty);
  CHECK(error_code(with([](auto& o) { o.dims = std::vector<std::size_t>(17, 2); })) ==
        ErrorCode::too_large);
  CHECK(error_code(with([](auto& o) { o.dims = {4, 0}; })) == ErrorCode::invalid_argument);
  CHECK(error_code(with([](auto& o) { o.dims = {scaling_max_dk + 1}; })) == ErrorCode::too_large);
  CHECK(attnlab::scaling_study(with([](auto& o) { o.dims = {scaling_max_dk}; })).ok());
  CHECK(error_code(with([](auto& o) { o.keys = 1; })) == ErrorCode::invalid_argument);
  CHECK(error_code(with([](auto& o) { o.keys = 65; })) == ErrorCode::too_large);
  CHECK(error_code(with([](auto& o) { o.samples = 0; })) == ErrorCode::invalid_argument);
  CHECK(error_code(with([](auto& o) { o.samples = 2001; })) == ErrorCode::too_large);
  // samples · (keys + 1) · (the sum of dims) at most scaling_draws: 2000 · 17 · 512 is above.
  const auto draws = attnlab::scaling_study(with([](auto& o) {
    o.dims = {scaling_max_dk};
    o.samples = 2000;
  }));
  REQUIRE_FALSE(draws.ok());
  CHECK(draws.error().code == ErrorCode::too_large);
  CHECK_THAT(draws.error().message,
             Catch::Contains("17408000 normal numbers") && Catch::Contains("16777216"));
  CHECK(attnlab::scaling_study(with([](auto& o) {
          o.dims = {scaling_max_dk};
          o.samples = 1920;  // 1920 · 17 · 512 = 16,711,680
        })).ok());
  const auto r = attnlab::scaling_study(with([](auto& o) { o.keys = 65; }));
  CHECK_THAT(r.error().message, Catch::Contains("keys") && Catch::Contains("65"));
}
