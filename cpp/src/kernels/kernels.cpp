// The float32 kernels: each allocates its result and runs the active instruction set's
// span kernels (simd_kernels.hpp) over it.
#include "attnlab/kernels.hpp"

#include <algorithm>

#include "kernels/simd_kernels.hpp"

namespace attnlab::kernels {

Matrix matmul(const Matrix& a, const Matrix& b) { return matmul(a, b.data.data(), b.cols); }

Matrix matmul(const Matrix& a, const float* b, std::size_t n) {
  Matrix out(a.rows, n);  // out: (m, n), zero-filled
  simd::active().matmul(a.data.data(), b, out.data.data(), a.rows, a.cols, n);
  return out;
}

Matrix matmul_transposed(const Matrix& a, const Matrix& b) {
  // bᵀ formed once: the register-blocked matmul then runs at several times the speed of one
  // horizontal dot product per entry (a third of the model's attention time).
  Matrix bt(b.cols, b.rows);  // bt: (k, n)
  for (std::size_t i = 0; i < b.rows; ++i)
    for (std::size_t j = 0; j < b.cols; ++j) bt(j, i) = b(i, j);
  return matmul(a, bt);
}

std::vector<float> row_sums(const Matrix& x) {
  const simd::Kernels& k = simd::active();
  std::vector<float> sums(x.rows);  // sums: (rows)
  for (std::size_t i = 0; i < x.rows; ++i) sums[i] = k.sum(x.row(i), x.cols);
  return sums;
}

void scale(Matrix& x, float factor) { simd::active().scale(x.data.data(), x.data.size(), factor); }

void gelu(Matrix& x) { simd::active().gelu(x.data.data(), x.data.size()); }

Softmax softmax_rows(const Matrix& logits) {
  const simd::Kernels& k = simd::active();
  Softmax s{Matrix(logits.rows, logits.cols), Matrix(logits.rows, logits.cols),
            std::vector<float>(logits.rows), std::vector<float>(logits.rows)};
  for (std::size_t i = 0; i < logits.rows; ++i) {
    const float max = k.max_of(logits.row(i), logits.cols);
    s.row_max[i] = max;
    if (max == simd::minus_infinity) continue;  // fully masked: exponentials and weights stay 0
    const float sum = k.exp_shifted(logits.row(i), max, s.exponentials.row(i), logits.cols);
    s.row_sum[i] = sum;  // >= 1: the max entry contributes exp(0)
    std::copy_n(s.exponentials.row(i), logits.cols, s.weights.row(i));
    k.scale(s.weights.row(i), logits.cols, 1.0f / sum);
  }
  return s;
}

}  // namespace attnlab::kernels
