// Why attention divides by √d_k, measured: draw queries q and keys k with independent
// N(0, 1) entries, form the raw scores q·k, and watch their spread grow like √d_k and the
// softmax rows collapse to one-hot unless the scores are scaled by 1/√d_k.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "attnlab/error.hpp"
#include "attnlab/matrix.hpp"
#include "attnlab/random.hpp"

namespace attnlab {

// The seeds of the study's draws for one d_k, keyed by d_k (not by its place in the list),
// so a d_k gets the same numbers whichever other d_k are asked for.
struct ScalingSeeds {
  std::uint64_t queries;  // Q: normal_matrix(samples, d_k, queries)
  std::uint64_t keys;     // K: normal_matrix(samples · keys, d_k, keys); sample s owns rows
                          //    s·keys … s·keys + keys − 1
};
ScalingSeeds scaling_seeds(std::uint64_t seed, std::size_t dk);

struct ScalingStudyOptions {
  std::vector<std::size_t> dims;  // d_k values, each 1 … limits::scaling_max_dk
  std::size_t keys = 16;          // keys per query, limits::scaling_min_keys … scaling_max_keys
  std::size_t samples = 256;      // queries per d_k, 1 … limits::scaling_max_samples
  std::uint64_t seed = 1;
};

// One d_k. Means are over the `samples` softmax rows; the spread is over all samples·keys
// raw scores.
struct ScalingPoint {
  std::size_t dk = 0;
  float score_std = 0;            // population standard deviation of the raw scores q·k
  float sqrt_dk = 0;              // what score_std should be near: Var(q·k) = d_k
  float max_weight_scaled = 0;    // mean largest weight of softmax(q·k / √d_k)
  float max_weight_unscaled = 0;  // mean largest weight of softmax(q·k)
  float entropy_scaled = 0;       // mean −Σ w ln w (nats) of the scaled rows
  float entropy_unscaled = 0;     // the same for the unscaled rows
  // The first sample's row: (keys) each.
  std::vector<float> example_scores;
  std::vector<float> example_weights_scaled;
  std::vector<float> example_weights_unscaled;
};

struct ScalingStudy {
  std::size_t keys = 0;
  std::size_t samples = 0;
  float max_entropy = 0;  // ln(keys): the entropy of uniform weights, the most a row can have
  std::vector<ScalingPoint> points;  // one per options.dims entry, in that order
};

// Errors: empty (no dims), too_large (too many dims, d_k, keys or samples above the limits),
// invalid_argument (d_k = 0, keys < 2, samples = 0).
Result<ScalingStudy> scaling_study(const ScalingStudyOptions& options);

}  // namespace attnlab
