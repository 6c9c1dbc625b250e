// Plain scalar kernels, written for clarity. They mirror kernels.hpp, and with T = double
// they are the float64 reference the tests check the float32 SIMD path against.
#pragma once

#include <cmath>
#include <limits>
#include <vector>

#include "attnlab/matrix.hpp"

namespace attnlab::reference {

// out: (m, n) = a: (m, k) · b: (k, n). Each out(i, j) is summed over l in order, from 0;
// the loops run l outside j so that b is read row by row (a column walk of b costs a cache
// miss per term at 512 columns: the gradient check's float64 forward took seconds).
template <class T>
BasicMatrix<T> matmul(const BasicMatrix<T>& a, const BasicMatrix<T>& b) {
  BasicMatrix<T> out(a.rows, b.cols);  // zero-filled
  for (std::size_t i = 0; i < a.rows; ++i)
    for (std::size_t l = 0; l < a.cols; ++l) {
      const T a_il = a(i, l);
      const T* b_row = b.row(l);
      T* out_row = out.row(i);
      for (std::size_t j = 0; j < b.cols; ++j) out_row[j] += a_il * b_row[j];
    }
  return out;
}

// out: (n, m) = m: (m, n)ᵀ
template <class T>
BasicMatrix<T> transpose(const BasicMatrix<T>& m) {
  BasicMatrix<T> out(m.cols, m.rows);
  for (std::size_t r = 0; r < m.rows; ++r)
    for (std::size_t c = 0; c < m.cols; ++c) out(c, r) = m(r, c);
  return out;
}

// out: (m, n) = a: (m, k) · b: (n, k)ᵀ, summed in the same order as matmul.
template <class T>
BasicMatrix<T> matmul_transposed(const BasicMatrix<T>& a, const BasicMatrix<T>& b) {
  return matmul(a, transpose(b));
}

template <class T>
std::vector<T> row_sums(const BasicMatrix<T>& x) {
  std::vector<T> sums(x.rows, T{0});
  for (std::size_t i = 0; i < x.rows; ++i)
    for (std::size_t j = 0; j < x.cols; ++j) sums[i] += x(i, j);
  return sums;
}

template <class T>
void scale(BasicMatrix<T>& x, T factor) {
  for (T& v : x.data) v *= factor;
}

template <class T>
void gelu(BasicMatrix<T>& x) {
  for (T& u : x.data)
    u = T(0.5) * u * (T(1) + std::tanh(T(0.7978845608028654) * (u + T(0.044715) * u * u * u)));
}

template <class T>
struct Softmax {
  BasicMatrix<T> exponentials;
  BasicMatrix<T> weights;
  std::vector<T> row_max;
  std::vector<T> row_sum;
};

template <class T>
Softmax<T> softmax_rows(const BasicMatrix<T>& logits) {
  Softmax<T> s{BasicMatrix<T>(logits.rows, logits.cols), BasicMatrix<T>(logits.rows, logits.cols),
               std::vector<T>(logits.rows), std::vector<T>(logits.rows)};
  for (std::size_t i = 0; i < logits.rows; ++i) {
    T max = -std::numeric_limits<T>::infinity();
    for (std::size_t j = 0; j < logits.cols; ++j) max = std::max(max, logits(i, j));
    T sum = 0;
    if (max != -std::numeric_limits<T>::infinity())
      for (std::size_t j = 0; j < logits.cols; ++j) {
        s.exponentials(i, j) = std::exp(logits(i, j) - max);
        sum += s.exponentials(i, j);
      }
    for (std::size_t j = 0; j < logits.cols; ++j)
      s.weights(i, j) = sum > 0 ? s.exponentials(i, j) / sum : T{0};
    s.row_max[i] = max;
    s.row_sum[i] = sum;
  }
  return s;
}

}  // namespace attnlab::reference
