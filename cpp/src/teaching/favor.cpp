#include "attnlab/favor.hpp"

#include <cmath>
#include <vector>

#include "attnlab/kernels.hpp"
#include "attnlab/limits.hpp"
#include "attnlab/random.hpp"
#include "base/validate.hpp"
#include "kernels/simd_kernels.hpp"

namespace attnlab {

Result<Matrix> favor_projection(std::size_t features, std::size_t width, std::uint64_t seed) {
  if (auto p = validate::count_within("features", features, 1, limits::favor_features)) return *p;
  if (auto p =
          validate::count_within("the features' width d_k", width, 1, limits::attention_features))
    return *p;
  auto draws = normal_matrix(2 * features, width, seed);  // (2m, d): the rows, then their lengths
  if (!draws) return draws.error();
  const Matrix& g = draws.value();
  const std::size_t m = features, d = width;
  Matrix w(m, d);
  std::vector<double> basis(d * d);  // the block's orthonormal rows so far: (d, d)
  std::vector<double> row(d);
  for (std::size_t i = 0; i < m; ++i) {
    const std::size_t in_block = i % d;  // rows before this one in its block
    for (std::size_t a = 0; a < d; ++a) row[a] = g(i, a);
    // Modified Gram–Schmidt in float64: a Gaussian block is well conditioned, so one pass
    // leaves the rows orthogonal to about 1e-13.
    for (std::size_t b = 0; b < in_block; ++b) {
      const double* u = &basis[b * d];
      double dot = 0;
      for (std::size_t a = 0; a < d; ++a) dot += row[a] * u[a];
      for (std::size_t a = 0; a < d; ++a) row[a] -= dot * u[a];
    }
    double norm = 0, length = 0;  // ‖the orthogonalised row‖, and the chi-distributed length
    for (std::size_t a = 0; a < d; ++a) {
      norm += row[a] * row[a];
      length += double{g(m + i, a)} * g(m + i, a);
    }
    norm = std::sqrt(norm);
    length = std::sqrt(length);
    for (std::size_t a = 0; a < d; ++a) {
      basis[in_block * d + a] = row[a] / norm;
      w(i, a) = static_cast<float>(row[a] / norm * length);
    }
  }
  return w;
}

Matrix favor_features(const Matrix& x, const Matrix& projection, float root) {
  const simd::Kernels& simd = simd::active();
  Matrix scaled = x;  // root·x: (n, d)
  simd.scale(scaled.data.data(), scaled.data.size(), root);
  Matrix out = kernels::matmul_transposed(scaled, projection);               // w_l·x: (n, m)
  const float norm = 1.0f / std::sqrt(static_cast<float>(projection.rows));  // 1/√m
  for (std::size_t i = 0; i < out.rows; ++i) {
    const float half = 0.5f * simd.dot(scaled.row(i), scaled.row(i), scaled.cols);  // ‖x‖²/2
    simd.exp_shifted(out.row(i), half, out.row(i), out.cols);
    simd.scale(out.row(i), out.cols, norm);
  }
  return out;
}

}  // namespace attnlab
