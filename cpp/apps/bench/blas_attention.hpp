// Attention as a user would write it on OpenBLAS: S = Q·Kᵀ and O = P·V with cblas_sgemm,
// and a plain row softmax between them. O(n²) memory per head: the baseline to beat.
#pragma once

#include "attnlab/matrix.hpp"

namespace attnlab::bench {

// q: (n, heads·d), k: (n, heads·d), v: (n, heads·d) → (n, heads·d)
Matrix blas_attention(const Matrix& q, const Matrix& k, const Matrix& v, int heads, bool causal,
                      std::size_t threads);

}  // namespace attnlab::bench
