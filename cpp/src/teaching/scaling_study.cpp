#include "attnlab/scaling_study.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>

#include "attnlab/kernels.hpp"
#include "attnlab/limits.hpp"
#include "attnlab/random.hpp"
#include "base/validate.hpp"
#include "kernels/simd_kernels.hpp"

namespace attnlab {
namespace {

std::optional<Error> check(const ScalingStudyOptions& o) {
  if (o.dims.empty()) return Error{ErrorCode::empty, "dims is empty: give at least one d_k"};
  if (o.dims.size() > limits::scaling_dims)
    return Error{ErrorCode::too_large, "dims has " + std::to_string(o.dims.size()) +
                                           " entries; a study takes at most " +
                                           std::to_string(limits::scaling_dims)};
  for (std::size_t dk : o.dims)
    if (auto p = validate::count_within("every d_k in dims", dk, 1, limits::scaling_max_dk))
      return p;
  if (auto p = validate::count_within("keys", o.keys, limits::scaling_min_keys,
                                      limits::scaling_max_keys))
    return p;
  if (auto p = validate::count_within("samples", o.samples, 1, limits::scaling_max_samples))
    return p;
  // Each d_k draws samples queries and samples · keys keys of d_k numbers: the study's cost.
  std::uint64_t dims_sum = 0;
  for (std::size_t dk : o.dims) dims_sum += dk;
  const std::uint64_t draws = std::uint64_t{o.samples} * (o.keys + 1) * dims_sum;
  if (draws <= limits::scaling_draws) return std::nullopt;
  return validate::formatted(ErrorCode::too_large,
                             "the study would draw %llu normal numbers (%zu samples x (%zu keys + "
                             "1) x %llu, the sum of dims), more than the %zu allowed: use fewer "
                             "samples, keys or dims",
                             static_cast<unsigned long long>(draws), o.samples, o.keys,
                             static_cast<unsigned long long>(dims_sum), limits::scaling_draws);
}

// Mean largest weight and mean entropy (nats) of the rows of weights: (samples, keys).
// Accumulated in double: these are averages of many small terms.
struct RowSummary {
  double max_weight = 0;
  double entropy = 0;
};
RowSummary summarize(const Matrix& weights) {
  RowSummary s;
  for (std::size_t r = 0; r < weights.rows; ++r) {
    const float* w = weights.row(r);
    s.max_weight += *std::max_element(w, w + weights.cols);
    for (std::size_t c = 0; c < weights.cols; ++c)
      if (w[c] > 0) s.entropy -= w[c] * std::log(static_cast<double>(w[c]));  // 0·ln 0 = 0
  }
  s.max_weight /= static_cast<double>(weights.rows);
  s.entropy /= static_cast<double>(weights.rows);
  return s;
}

// Population standard deviation of every entry of x, in double.
double spread(const Matrix& x) {
  double mean = 0;
  for (float v : x.data) mean += v;
  mean /= static_cast<double>(x.data.size());
  double squares = 0;
  for (float v : x.data) squares += (v - mean) * (v - mean);
  return std::sqrt(squares / static_cast<double>(x.data.size()));
}

std::vector<float> first_row(const Matrix& m) { return {m.row(0), m.row(0) + m.cols}; }

ScalingPoint study_one(std::size_t dk, const ScalingStudyOptions& o) {
  const ScalingSeeds seeds = scaling_seeds(o.seed, dk);
  // (samples, d_k): within limits::normal_values, as check() keeps samples and d_k small.
  const Matrix q = normal_matrix(o.samples, dk, seeds.queries).value();
  NormalStream key_stream(seeds.keys);  // streamed: all keys at once could be 262 MB
  Matrix scores(o.samples, o.keys);     // (samples, keys) raw q·k
  Matrix keys(o.keys, dk);              // this sample's keys, refilled in place
  const simd::Kernels& kernels = simd::active();
  for (std::size_t s = 0; s < o.samples; ++s) {
    for (float& x : keys.data) x = key_stream.next();
    kernels.dots(q.row(s), keys.data.data(), dk, o.keys, dk, scores.row(s));
  }

  Matrix scaled = scores;
  kernels::scale(scaled, 1.0f / std::sqrt(static_cast<float>(dk)));  // as attention() scales
  const kernels::Softmax with = kernels::softmax_rows(scaled);
  const kernels::Softmax without = kernels::softmax_rows(scores);
  const RowSummary a = summarize(with.weights);
  const RowSummary b = summarize(without.weights);

  ScalingPoint p;
  p.dk = dk;
  p.score_std = static_cast<float>(spread(scores));
  p.sqrt_dk = static_cast<float>(std::sqrt(static_cast<double>(dk)));
  p.max_weight_scaled = static_cast<float>(a.max_weight);
  p.max_weight_unscaled = static_cast<float>(b.max_weight);
  p.entropy_scaled = static_cast<float>(a.entropy);
  p.entropy_unscaled = static_cast<float>(b.entropy);
  p.example_scores = first_row(scores);
  p.example_weights_scaled = first_row(with.weights);
  p.example_weights_unscaled = first_row(without.weights);
  return p;
}

}  // namespace

ScalingSeeds scaling_seeds(std::uint64_t seed, std::size_t dk) {
  const std::uint64_t base = splitmix64_mix(seed) + 2 * std::uint64_t{dk};  // two streams per d_k
  return {splitmix64_mix(base), splitmix64_mix(base + 1)};
}

Result<ScalingStudy> scaling_study(const ScalingStudyOptions& options) {
  if (auto problem = check(options)) return *problem;
  ScalingStudy study;
  study.keys = options.keys;
  study.samples = options.samples;
  study.max_entropy = static_cast<float>(std::log(static_cast<double>(options.keys)));
  for (std::size_t dk : options.dims) study.points.push_back(study_one(dk, options));
  return study;
}

}  // namespace attnlab
