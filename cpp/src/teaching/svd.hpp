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
  // The rotations act on the shorter side's vectors: B = A's rows when rows ≤ cols (right is
  // true), else Aᵀ's. They end as X = J·B (r × length), rows orthogonal, row i = σ_i times a
  // unit singular vector (right ones of A, or left ones), sorted as `values`; J (r × r) is the
  // product of the rotations, orthogonal, so B = Jᵀ·X exactly, even where the rows of X that
  // hold rounding noise (σ below 1e-17·‖A‖_F) were left unrotated.
  BasicMatrix<double> rotated, rotations;
  bool right = true;
  int sweeps = 0;  // sweeps over every pair until none rotated
};

Decomposition jacobi(const BasicMatrix<double>& a);

// A_k = Σ_{i≤k} σ_i·u_i·v_iᵀ, from B_k = J_kᵀ·X_k (the first k rows of J and X): the best rank-k
// approximation (Eckart–Young); k = r gives A back.
BasicMatrix<double> truncate(const Decomposition& d, std::size_t k);

}  // namespace attnlab::svd
