// Span-level SIMD primitives shared by the kernels (internal). Each is written once
// against xsimd::batch: a vector loop over full batches, then a scalar tail for the last
// (n mod lanes) elements.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <xsimd/xsimd.hpp>

namespace attnlab::simd {

using Batch = xsimd::batch<float>;
inline constexpr std::size_t lanes = Batch::size;
inline constexpr float minus_infinity = -std::numeric_limits<float>::infinity();

// sum(a[i] * b[i]) for i < n
inline float dot(const float* a, const float* b, std::size_t n) {
  Batch acc(0.0f);
  std::size_t i = 0;
  for (; i + lanes <= n; i += lanes)
    acc = xsimd::fma(Batch::load_unaligned(a + i), Batch::load_unaligned(b + i), acc);
  float sum = xsimd::hadd(acc);
  for (; i < n; ++i) sum += a[i] * b[i];
  return sum;
}

// y[i] += alpha * x[i] for i < n
inline void axpy(float alpha, const float* x, float* y, std::size_t n) {
  const Batch a(alpha);
  std::size_t i = 0;
  for (; i + lanes <= n; i += lanes)
    xsimd::fma(a, Batch::load_unaligned(x + i), Batch::load_unaligned(y + i))
        .store_unaligned(y + i);
  for (; i < n; ++i) y[i] += alpha * x[i];
}

// x[i] *= factor for i < n
inline void scale_span(float* x, std::size_t n, float factor) {
  const Batch f(factor);
  std::size_t i = 0;
  for (; i + lanes <= n; i += lanes) (Batch::load_unaligned(x + i) * f).store_unaligned(x + i);
  for (; i < n; ++i) x[i] *= factor;
}

inline float sum_of(const float* x, std::size_t n) {
  Batch acc(0.0f);
  std::size_t i = 0;
  for (; i + lanes <= n; i += lanes) acc += Batch::load_unaligned(x + i);
  float sum = xsimd::hadd(acc);
  for (; i < n; ++i) sum += x[i];
  return sum;
}

inline float max_of(const float* x, std::size_t n) {
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
inline float exp_shifted(const float* x, float shift, float* out, std::size_t n) {
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

}  // namespace attnlab::simd
