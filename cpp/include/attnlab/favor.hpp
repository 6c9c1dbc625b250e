// Performer's FAVOR+ (Choromanski et al. 2021, "Rethinking Attention with Performers"):
// positive orthogonal random features whose dot product estimates softmax's kernel,
//   φ(x) = exp(Wx − ‖x‖²/2) / √m,   E[φ(x)ᵀφ(y)] = exp(xᵀy),
// for m rows w_1 … w_m of W drawn N(0, I_d). Orthogonal rows lower the variance: each block of
// d consecutive rows is orthonormalised (Gram–Schmidt), and each row is then given the length
// of an independent Gaussian vector (chi-distributed with d degrees of freedom), so every row
// keeps the N(0, I_d) marginal the estimate needs. linear_attention() with FeatureMap::favor
// uses these on √scale·q and √scale·k, so φ(q)ᵀφ(k) estimates exp(qᵀk·scale).
#pragma once

#include <cstddef>
#include <cstdint>

#include "attnlab/error.hpp"
#include "attnlab/matrix.hpp"

namespace attnlab {

// The m × d matrix W of FAVOR+, from the seeded generator alone, the same in every build:
// normal_matrix(2m, d, seed)'s first m rows are the Gaussian rows, orthonormalised in float64
// (modified Gram–Schmidt) block by block (rows 0 … d−1, d … 2d−1, …; the last block may be
// shorter), and row m + i's length is row i's. Errors: invalid_argument (features or width 0),
// too_large (features above limits::favor_features, width above limits::attention_features).
Result<Matrix> favor_projection(std::size_t features, std::size_t width, std::uint64_t seed);

// φ(root·x) for each row of x (n, d): exp(w_l·(root·x) − ‖root·x‖²/2) / √m, (n, m) for W
// (m, d). Entries past float32 come back as Infinity (the caller checks; see linear_attention).
Matrix favor_features(const Matrix& x, const Matrix& projection, float root);

}  // namespace attnlab
