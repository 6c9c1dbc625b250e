// Retention (RetNet, Sun et al. 2023): attention without softmax whose past fades by a decay
// γ per token, so the same output comes from two computations:
//   parallel:  O = (Q·Kᵀ ⊙ D)·V,  D_ij = γ^(i−j) for j ≤ i, 0 above the diagonal;
//   recurrent: S_t = γ·S_{t−1} + k_tᵀv_t (d_k × d_v),  o_t = q_t·S_t.
// The recurrent form's state stays d_k × d_v however long the sequence, where a KV cache grows
// by a key and a value per token. (RetNet's group norm and per-head γ sit outside this core.)
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "attnlab/error.hpp"
#include "attnlab/linear_attention.hpp"  // AttentionForm
#include "attnlab/matrix.hpp"

namespace attnlab {

// γ^m for m = 0 … count − 1, in double, each from the one before: count roundings of 1e-16 stay
// far below float32's, and the core's wasm links no pow (about 2 KB). The small and the long
// kernels' one rule for D.
inline std::vector<double> decay_powers(float decay, std::size_t count) {
  std::vector<double> powers(count, 1.0);
  for (std::size_t m = 1; m < count; ++m) powers[m] = powers[m - 1] * decay;
  return powers;
}

struct RetentionOptions {
  // γ in (0, 1]: 1 keeps the whole past (causal linear attention without φ or normaliser);
  // RetNet's heads use 1 − 2^(−5−h). Required: absent is an invalid_argument error.
  std::optional<float> decay;
  AttentionForm form = AttentionForm::parallel;
};

// The decay's problem, if any: missing, or outside (0, 1] (the small and the long kernels').
std::optional<Error> check_decay(std::optional<float> decay);

struct RetentionResult {
  float decay = 1.0f;
  // Q·Kᵀ ⊙ D, present when n·n ≤ limits::trace_scores: (n, n), 0 above the diagonal.
  std::optional<Matrix> weights;
  Matrix state;   // S_n, the state after the last token: (d_k, d_v)
  Matrix output;  // (n, d_v)
};

// q: (n, d_k), k: (n, d_k), v: (n, d_v): one sequence, so Q and K have the same rows; each
// within limits::attention_tokens × attention_features. Errors: empty, too_large,
// shape_mismatch, non_finite (an input, or scores, state or output past float32),
// invalid_argument (decay missing or outside (0, 1]).
Result<RetentionResult> retention(const Matrix& q, const Matrix& k, const Matrix& v,
                                  const RetentionOptions& options);

}  // namespace attnlab
