// The float32 kernels, built from the SIMD span primitives in simd_spans.hpp.
#include "attnlab/kernels.hpp"

#include <algorithm>
#include <xsimd/xsimd.hpp>

#include "simd_spans.hpp"

namespace attnlab::kernels {

using simd::axpy;
using simd::dot;
using simd::exp_shifted;
using simd::max_of;
using simd::minus_infinity;
using simd::scale_span;
using simd::sum_of;

Matrix matmul(const Matrix& a, const Matrix& b) {
  Matrix out(a.rows, b.cols);  // out: (m, n), zero-filled
  for (std::size_t i = 0; i < a.rows; ++i)
    for (std::size_t l = 0; l < a.cols; ++l) axpy(a(i, l), b.row(l), out.row(i), b.cols);
  return out;
}

Matrix matmul_transposed(const Matrix& a, const Matrix& b) {
  Matrix out(a.rows, b.rows);  // out: (m, n)
  for (std::size_t i = 0; i < a.rows; ++i)
    for (std::size_t j = 0; j < b.rows; ++j) out(i, j) = dot(a.row(i), b.row(j), a.cols);
  return out;
}

std::vector<float> row_sums(const Matrix& x) {
  std::vector<float> sums(x.rows);  // sums: (rows)
  for (std::size_t i = 0; i < x.rows; ++i) sums[i] = sum_of(x.row(i), x.cols);
  return sums;
}

void scale(Matrix& x, float factor) { scale_span(x.data.data(), x.data.size(), factor); }

Softmax softmax_rows(const Matrix& logits) {
  Softmax s{Matrix(logits.rows, logits.cols), Matrix(logits.rows, logits.cols),
            std::vector<float>(logits.rows), std::vector<float>(logits.rows)};
  for (std::size_t i = 0; i < logits.rows; ++i) {
    const float max = max_of(logits.row(i), logits.cols);
    s.row_max[i] = max;
    if (max == minus_infinity) continue;  // fully masked: exponentials and weights stay 0
    const float sum = exp_shifted(logits.row(i), max, s.exponentials.row(i), logits.cols);
    s.row_sum[i] = sum;  // >= 1: the max entry contributes exp(0)
    std::copy_n(s.exponentials.row(i), logits.cols, s.weights.row(i));
    scale_span(s.weights.row(i), logits.cols, 1.0f / sum);
  }
  return s;
}

const char* simd_arch() { return xsimd::default_arch::name(); }

}  // namespace attnlab::kernels
