// Each kernel is written once against xsimd::batch: a vector loop over full batches,
// then a scalar tail for the last (n mod lanes) elements.
#include "attnlab/kernels.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <xsimd/xsimd.hpp>

namespace attnlab::kernels {
namespace {

using Batch = xsimd::batch<float>;
constexpr std::size_t lanes = Batch::size;
constexpr float minus_infinity = -std::numeric_limits<float>::infinity();

// sum(a[i] * b[i]) for i < n
float dot(const float* a, const float* b, std::size_t n) {
  Batch acc(0.0f);
  std::size_t i = 0;
  for (; i + lanes <= n; i += lanes)
    acc = xsimd::fma(Batch::load_unaligned(a + i), Batch::load_unaligned(b + i), acc);
  float sum = xsimd::hadd(acc);
  for (; i < n; ++i) sum += a[i] * b[i];
  return sum;
}

// y[i] += alpha * x[i] for i < n
void axpy(float alpha, const float* x, float* y, std::size_t n) {
  const Batch a(alpha);
  std::size_t i = 0;
  for (; i + lanes <= n; i += lanes)
    xsimd::fma(a, Batch::load_unaligned(x + i), Batch::load_unaligned(y + i))
        .store_unaligned(y + i);
  for (; i < n; ++i) y[i] += alpha * x[i];
}

// x[i] *= factor for i < n
void scale_span(float* x, std::size_t n, float factor) {
  const Batch f(factor);
  std::size_t i = 0;
  for (; i + lanes <= n; i += lanes) (Batch::load_unaligned(x + i) * f).store_unaligned(x + i);
  for (; i < n; ++i) x[i] *= factor;
}

float sum_of(const float* x, std::size_t n) {
  Batch acc(0.0f);
  std::size_t i = 0;
  for (; i + lanes <= n; i += lanes) acc += Batch::load_unaligned(x + i);
  float sum = xsimd::hadd(acc);
  for (; i < n; ++i) sum += x[i];
  return sum;
}

float max_of(const float* x, std::size_t n) {
  Batch acc(minus_infinity);
  std::size_t i = 0;
  for (; i + lanes <= n; i += lanes) acc = xsimd::max(acc, Batch::load_unaligned(x + i));
  std::array<float, lanes> parts;
  acc.store_unaligned(parts.data());
  float max = *std::max_element(parts.begin(), parts.end());
  for (; i < n; ++i) max = std::max(max, x[i]);
  return max;
}

// out[i] = exp(x[i] - shift); returns the sum of out.
float exp_shifted(const float* x, float shift, float* out, std::size_t n) {
  const Batch s(shift);
  Batch acc(0.0f);
  std::size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    const Batch e = xsimd::exp(Batch::load_unaligned(x + i) - s);
    e.store_unaligned(out + i);
    acc += e;
  }
  float sum = xsimd::hadd(acc);
  for (; i < n; ++i) {
    out[i] = std::exp(x[i] - shift);
    sum += out[i];
  }
  return sum;
}

}  // namespace

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
