// Low-rank attention: how much of softmax attention survives in k dimensions, two ways.
//   'svd': the attention matrix A = softmax(Q·Kᵀ·scale) itself (n_q × n_k, as attention()
//     computes it, causal or not), its singular value decomposition A = Σ_i σ_i u_i v_iᵀ
//     (one-sided Jacobi in float64, no LAPACK), and its best rank-k approximation
//     A_k = Σ_{i≤k} σ_i u_i v_iᵀ with the output A_k·V. Eckart–Young: no rank-k matrix is closer
//     to A in the Frobenius norm, and ‖A − A_k‖_F = sqrt(Σ_{i>k} σ_i²).
//   'linformer' (Wang et al. 2020): the keys and values projected along the sequence by E and
//     F (k × n_k), so the scores are n_q × k: O = softmax(Q·(E·K)ᵀ·scale)·(F·V). Its implied
//     weights W = softmax(…)·F (n_q × n_k) give O = W·V, cell by cell beside A.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "attnlab/error.hpp"
#include "attnlab/matrix.hpp"

namespace attnlab {

enum class LowRankMethod : std::uint8_t { svd, linformer };

struct LowRankOptions {
  LowRankMethod method = LowRankMethod::svd;
  // k: 1 … min(n_q, n_k) for svd (the singular values kept); 1 … n_k for linformer (the
  // projected keys). Required: absent is an invalid_argument error.
  std::optional<std::size_t> rank;
  // svd only: query i sees keys 0 … i, as attention() applies it. Linformer's projections mix every
  // key into each projected one, so it has no causal form: refused.
  bool causal = false;
  // Multiplies the scores; absent: 1/√d_k, as attention().
  std::optional<float> scale;
  // linformer: E and F drawn from N(0, 1/k) (normal_matrix(2k, n_k, seed) / √k, E its first k
  // rows, F the rest), unless the caller gives its own.
  std::uint64_t seed = 1;
  // linformer: the caller's projections, (rank, n_k) each, both or neither (svd refuses them).
  std::optional<Matrix> e, f;
};

struct LowRankResult {
  std::size_t rank = 0;
  float scale = 1.0f;  // options.scale or 1/√d_k
  // svd: σ_1 ≥ σ_2 ≥ … ≥ 0, min(n_q, n_k) of them; empty for linformer.
  std::vector<float> singular_values;
  // The approximate weights, output = weights·V: A_k (svd) or W = softmax(…)·F (linformer),
  // whose rows need not sum to 1 and may be negative. (n_q, n_k), present when
  // n_q·n_k ≤ limits::trace_scores.
  std::optional<Matrix> weights;
  std::optional<Matrix> exact_weights;  // A, the same size and condition
  Matrix output;                        // (n_q, d_v)
  Matrix exact_output;                  // A·V, attention()'s output: (n_q, d_v)
  // ‖A − weights‖_F, measured cell by cell in float64.
  float weights_error = 0.0f;
  // svd: sqrt(Σ_{i>k} σ_i²), Eckart–Young's value of the same error from the spectrum; absent
  // for linformer.
  std::optional<float> spectrum_error;
  float output_error = 0.0f;  // ‖output − exact_output‖_F
  // linformer: E and F (rank, n_k) as used; softmax(Q·(E·K)ᵀ·scale), the weights over the k
  // projected keys (n_q, rank). Absent for svd.
  std::optional<Matrix> e, f, projected_weights;
};

// q: (n_q, d_k), k: (n_k, d_k), v: (n_k, d_v), within limits::attention_tokens ×
// attention_features; svd also n_q and n_k within limits::low_rank_tokens. Errors name the
// field: empty, too_large, shape_mismatch (Q, K, V; E, F), non_finite (an
// input, E, F, or a product past float32), invalid_argument (rank, scale, causal with
// linformer, E without F).
Result<LowRankResult> low_rank_attention(const Matrix& q, const Matrix& k, const Matrix& v,
                                         const LowRankOptions& options);

}  // namespace attnlab
