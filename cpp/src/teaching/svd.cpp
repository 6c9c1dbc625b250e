#include "teaching/svd.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace attnlab::svd {
namespace {

// Four running sums: independent additions the compiler may overlap (a plain loop of doubles
// stays one chain without fast-math).
double dot(const double* x, const double* y, std::size_t n) {
  double s[4] = {0, 0, 0, 0};
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4)
    for (std::size_t l = 0; l < 4; ++l) s[l] += x[i + l] * y[i + l];
  for (; i < n; ++i) s[0] += x[i] * y[i];
  return (s[0] + s[1]) + (s[2] + s[3]);
}

constexpr int max_sweeps = 60;  // quadratic convergence: random 256 × 256 cases take about 15

}  // namespace

Decomposition jacobi(const BasicMatrix<double>& a) {
  Decomposition d;
  d.right = a.rows <= a.cols;
  // x: the vectors rotated, one per row: A's rows, or Aᵀ's.
  BasicMatrix<double> x = d.right ? a : BasicMatrix<double>(a.cols, a.rows);
  if (!d.right)
    for (std::size_t i = 0; i < a.rows; ++i)
      for (std::size_t j = 0; j < a.cols; ++j) x(j, i) = a(i, j);
  const std::size_t r = x.rows, n = x.cols;
  // A pair counts as orthogonal when |x_i·x_j| ≤ tolerance·‖x_i‖·‖x_j‖: the dot product's own
  // rounding, about √n·ε.
  const double tolerance = 4 * std::numeric_limits<double>::epsilon() * std::sqrt(double(n));
  std::vector<double> norms(r);  // ‖x_i‖²
  // Or when the rotation would move either vector by at most `negligible`, about |x_i·x_j| /
  // ‖x_i‖: far below float32's last digit of ‖A‖_F. Without it, the singular values below
  // 1e-17·‖A‖_F (a causal A has them near 1e-21) took three times the sweeps to settle.
  double frobenius = 0;
  for (std::size_t i = 0; i < r; ++i) frobenius += dot(x.row(i), x.row(i), n);
  const double negligible = 1e-17 * std::sqrt(frobenius);
  for (bool rotated = true; rotated && d.sweeps < max_sweeps; ++d.sweeps) {
    rotated = false;
    for (std::size_t i = 0; i < r; ++i) norms[i] = dot(x.row(i), x.row(i), n);  // no drift
    for (std::size_t i = 0; i + 1 < r; ++i)
      for (std::size_t j = i + 1; j < r; ++j) {
        const double alpha = norms[i], beta = norms[j];
        if (alpha == 0 || beta == 0) continue;
        const double gamma = dot(x.row(i), x.row(j), n);
        if (std::abs(gamma) <= tolerance * std::sqrt(alpha * beta) ||
            std::abs(gamma) <= negligible * std::sqrt(std::max(alpha, beta)))
          continue;
        rotated = true;
        // The rotation that zeroes x_i·x_j: tan θ = t, the smaller root of t² + 2ζt − 1 = 0.
        const double zeta = (beta - alpha) / (2 * gamma);
        const double t = std::abs(zeta) > 1e150 ? 0.5 / zeta
                                                : std::copysign(1.0, zeta) /
                                                      (std::abs(zeta) + std::sqrt(1 + zeta * zeta));
        const double c = 1 / std::sqrt(1 + t * t), s = c * t;
        double* xi = x.row(i);
        double* xj = x.row(j);
        for (std::size_t l = 0; l < n; ++l) {
          const double p = xi[l], q = xj[l];
          xi[l] = c * p - s * q;
          xj[l] = s * p + c * q;
        }
        norms[i] = alpha - t * gamma;
        norms[j] = beta + t * gamma;
      }
  }
  std::vector<double> lengths(r);
  for (std::size_t i = 0; i < r; ++i) lengths[i] = std::sqrt(dot(x.row(i), x.row(i), n));
  std::vector<std::size_t> order(r);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t p, std::size_t q) { return lengths[p] > lengths[q]; });
  d.values.resize(r);
  d.vectors = BasicMatrix<double>(r, n);
  for (std::size_t i = 0; i < r; ++i) {
    const double sigma = lengths[order[i]];
    d.values[i] = sigma;
    if (sigma > 0)
      for (std::size_t l = 0; l < n; ++l) d.vectors(i, l) = x(order[i], l) / sigma;
  }
  return d;
}

BasicMatrix<double> truncate(const BasicMatrix<double>& a, const Decomposition& d, std::size_t k) {
  BasicMatrix<double> out(a.rows, a.cols);
  const BasicMatrix<double>& w = d.vectors;
  std::vector<double> c(k);
  if (d.right) {  // row by row: a_i projected on v_1 … v_k
    for (std::size_t i = 0; i < a.rows; ++i) {
      for (std::size_t l = 0; l < k; ++l) c[l] = dot(a.row(i), w.row(l), a.cols);
      for (std::size_t l = 0; l < k; ++l)
        for (std::size_t j = 0; j < a.cols; ++j) out(i, j) += c[l] * w(l, j);
    }
  } else {  // column by column: a_j projected on u_1 … u_k
    std::vector<double> column(a.rows);
    for (std::size_t j = 0; j < a.cols; ++j) {
      for (std::size_t i = 0; i < a.rows; ++i) column[i] = a(i, j);
      for (std::size_t l = 0; l < k; ++l) c[l] = dot(column.data(), w.row(l), a.rows);
      for (std::size_t l = 0; l < k; ++l)
        for (std::size_t i = 0; i < a.rows; ++i) out(i, j) += c[l] * w(l, i);
    }
  }
  return out;
}

}  // namespace attnlab::svd
