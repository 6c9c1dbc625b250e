// Softmax of one row, stage by stage, for the "softmax up close" view: divide by the
// temperature, subtract the max, exponentiate, add up, divide. Beside it, the same row
// without subtracting the max, computed in real float32 so its overflow is the one such an
// implementation would hit (exp(x) is +Infinity for x above ln(FLT_MAX) ≈ 88.72).
#pragma once

#include <span>
#include <vector>

#include "attnlab/error.hpp"

namespace attnlab {

// The row's softmax without subtracting the max (what goes wrong), in float32.
struct SoftmaxWithoutMax {
  std::vector<float> exponentials;  // (n) exp(scaled): +Infinity past ≈ 88.72, 0 below ≈ −103.97
  float sum = 0.0f;                 // +Infinity once any term (or the running sum) overflows
  std::vector<float> weights;       // (n) exponentials / sum: NaN for ∞/∞ and 0/0
  bool overflowed = false;          // sum is +Infinity
  bool term_overflowed = false;     // some exponentials entry is +Infinity itself
  bool underflowed = false;         // sum is 0: every exp(scaled) rounded to 0
};

struct SoftmaxBreakdown {
  float temperature = 1.0f;
  std::vector<float> scaled;        // (n) scores / temperature
  float max = 0.0f;                 // the largest scaled entry
  std::vector<float> shifted;       // (n) scaled − max, all ≤ 0
  std::vector<float> exponentials;  // (n) exp(shifted), in (0, 1]; the max entry gives 1
  float sum = 0.0f;                 // sum of exponentials, ≥ 1
  std::vector<float> weights;       // (n) exponentials / sum
  SoftmaxWithoutMax without_max;    // the same row without the max
};

// scores: (n), 1 ≤ n ≤ limits::softmax_row, all finite; temperature: finite, > 0.
// Errors: empty (n = 0), too_large, non_finite (a score, or scores / temperature or
// scaled − max overflowing), invalid_argument (temperature).
Result<SoftmaxBreakdown> softmax_breakdown(std::span<const float> scores, float temperature);

}  // namespace attnlab
