#include "blas_attention.hpp"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace attnlab::bench {

Matrix blas_attention(const Matrix& q, const Matrix& k, const Matrix& v, int heads, bool causal,
                      std::size_t threads) {
  openblas_set_num_threads(static_cast<int>(threads));
  const std::size_t n = q.rows, n_k = k.rows, d = q.cols / heads;
  const float scale = 1.0f / std::sqrt(static_cast<float>(d));
  Matrix out(n, v.cols);
  std::vector<float> s(n * n_k);  // scores, then weights: (n, n_k)
  for (int h = 0; h < heads; ++h) {
    const std::size_t offset = static_cast<std::size_t>(h) * d;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(n), static_cast<int>(n_k),
                static_cast<int>(d), scale, q.data.data() + offset, static_cast<int>(q.cols),
                k.data.data() + offset, static_cast<int>(k.cols), 0.0f, s.data(),
                static_cast<int>(n_k));
    for (std::size_t i = 0; i < n; ++i) {
      float* row = s.data() + i * n_k;
      const std::size_t keys = causal ? std::min(i + 1, n_k) : n_k;
      const float max = *std::max_element(row, row + keys);
      float sum = 0.0f;
      for (std::size_t j = 0; j < keys; ++j) sum += row[j] = std::exp(row[j] - max);
      for (std::size_t j = 0; j < keys; ++j) row[j] /= sum;
      std::fill(row + keys, row + n_k, 0.0f);
    }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(n), static_cast<int>(d),
                static_cast<int>(n_k), 1.0f, s.data(), static_cast<int>(n_k),
                v.data.data() + offset, static_cast<int>(v.cols), 0.0f, out.data.data() + offset,
                static_cast<int>(out.cols));
  }
  return out;
}

}  // namespace attnlab::bench
