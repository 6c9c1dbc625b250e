// The singular value decomposition of a small dense matrix by one-sided Jacobi (Hestenes
// 1958), in float64: rotate pairs of vectors until every pair is orthogonal; their lengths are
// then the singular values and their directions singular vectors. No LAPACK, a few dozen lines,
// and accurate even for the small singular values (each rotation is exact to rounding).
#pragma once

#include <cstddef>
#include <vector>

#include "attnlab/matrix.hpp"

namespace attnlab::svd {

struct Decomposition {
  // σ_1 ≥ … ≥ σ_r ≥ 0, r = min(rows, cols).
  std::vector<double> values;
  // (r, length): unit singular vectors in the order of `values` (a zero row where σ = 0). Right
  // singular vectors (length = cols) when right is true, left ones (length = rows) otherwise:
  // the Jacobi rotations act on the shorter side's vectors, A's rows when rows ≤ cols.
  BasicMatrix<double> vectors;
  bool right = true;
  int sweeps = 0;  // sweeps over every pair until none rotated
};

Decomposition jacobi(const BasicMatrix<double>& a);

// A_k = A·V_k·V_kᵀ (right vectors) or U_k·U_kᵀ·A (left): A projected onto its first k singular
// directions, the best rank-k approximation (Eckart–Young).
BasicMatrix<double> truncate(const BasicMatrix<double>& a, const Decomposition& d, std::size_t k);

}  // namespace attnlab::svd
