// The float32 SIMD kernels (xsimd). Each has a plain scalar twin in reference.hpp,
// and the tests compare the two with an explicit tolerance.
#pragma once

#include <vector>

#include "attnlab/matrix.hpp"

namespace attnlab::kernels {

// out: (m, n) = a: (m, k) · b: (k, n)
Matrix matmul(const Matrix& a, const Matrix& b);

// out: (m, n) = a: (m, k) · b: (n, k)ᵀ, reading b row by row instead of forming bᵀ.
Matrix matmul_transposed(const Matrix& a, const Matrix& b);

// sums: (rows) = the sum of each row of x: (rows, cols)
std::vector<float> row_sums(const Matrix& x);

// x *= factor, in place.
void scale(Matrix& x, float factor);

// Row softmax that subtracts each row's max before exp. Entries equal to -inf (masked)
// get weight 0; a row with no finite entry gets all zeros, max -inf and sum 0.
struct Softmax {
  Matrix exponentials;         // exp(logit - row max): (rows, cols)
  Matrix weights;              // exponentials / row sum: (rows, cols)
  std::vector<float> row_max;  // (rows)
  std::vector<float> row_sum;  // (rows)
};
Softmax softmax_rows(const Matrix& logits);

// Name of the instruction set xsimd compiled the kernels for, e.g. "avx512bw".
const char* simd_arch();

}  // namespace attnlab::kernels
