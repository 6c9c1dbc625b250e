// Self-attention is permutation-equivariant: reorder the tokens and, without positional
// encoding or a mask, the output rows are the same rows reordered the same way. This checks
// it on a real trace, so a learner can see it hold without positions and fail with them.
#pragma once

#include <cstddef>
#include <span>

#include "attnlab/error.hpp"
#include "attnlab/matrix.hpp"
#include "attnlab/trace.hpp"

namespace attnlab {

// Reordering changes the order of float sums inside softmax and V's weighted sum, so equal
// rows agree only up to rounding: within this much per unit of the output's largest entry.
inline constexpr double permutation_tolerance = 1e-5;

struct PermutationCheck {
  Matrix original;   // trace(input).output: (n, d_out)
  Matrix permuted;   // the output when X's row i is the original row order[i]: (n, d_out)
  Matrix predicted;  // original's rows reordered the same way (row i = original row order[i])
  double max_difference = 0.0;  // max |permuted - predicted| over all entries
  double tolerance = 0.0;       // permutation_tolerance · max(1, max |original|)
  // max_difference <= tolerance: "the same rows, just reordered". False with sinusoidal positions
  // (positions stay 0…n−1, so moved tokens get new encodings) and generally with a causal mask or
  // key padding, which also belong to positions rather than to tokens.
  bool reordered_only = false;
};

// input: self-attention from tokens (the Projections source; X has n rows); order: a
// permutation of 0…n−1. Traces the input as given and with X's rows reordered by `order`;
// every option (heads, W_O, masks, positional) applies to both traces unchanged.
// Errors: invalid_argument when the source is Q, K, V given directly or `order` is not a
// permutation of 0…n−1; otherwise whatever trace() reports for the input.
Result<PermutationCheck> permutation_check(const TraceInput& input,
                                           std::span<const std::size_t> order);

}  // namespace attnlab
