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

// (p, q) ← (c·p − s·q, s·p + c·q), entry by entry.
void rotate(double* p, double* q, std::size_t n, double c, double s) {
  for (std::size_t l = 0; l < n; ++l) {
    const double x = p[l], y = q[l];
    p[l] = c * x - s * y;
    q[l] = s * x + c * y;
  }
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
      for (std::size_t c = 0; c < a.cols; ++c) x(c, i) = a(i, c);
  const std::size_t r = x.rows, n = x.cols;
  BasicMatrix<double> j(r, r);  // J, the rotations so far: x = J·B
  for (std::size_t i = 0; i < r; ++i) j(i, i) = 1;
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
      for (std::size_t b = i + 1; b < r; ++b) {
        const double alpha = norms[i], beta = norms[b];
        if (alpha == 0 || beta == 0) continue;
        const double gamma = dot(x.row(i), x.row(b), n);
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
        rotate(x.row(i), x.row(b), n, c, s);
        rotate(j.row(i), j.row(b), r, c, s);
        norms[i] = alpha - t * gamma;
        norms[b] = beta + t * gamma;
      }
  }
  std::vector<double> lengths(r);
  for (std::size_t i = 0; i < r; ++i) lengths[i] = std::sqrt(dot(x.row(i), x.row(i), n));
  std::vector<std::size_t> order(r);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t p, std::size_t q) { return lengths[p] > lengths[q]; });
  d.values.resize(r);
  d.rotated = BasicMatrix<double>(r, n);
  d.rotations = BasicMatrix<double>(r, r);
  for (std::size_t i = 0; i < r; ++i) {
    d.values[i] = lengths[order[i]];
    std::copy(x.row(order[i]), x.row(order[i]) + n, d.rotated.row(i));
    std::copy(j.row(order[i]), j.row(order[i]) + r, d.rotations.row(i));
  }
  return d;
}

BasicMatrix<double> truncate(const Decomposition& d, std::size_t k) {
  const std::size_t r = d.rotated.rows, n = d.rotated.cols;
  BasicMatrix<double> b(r, n);  // B_k[a] = Σ_{i<k} J[i][a]·X[i]
  for (std::size_t a = 0; a < r; ++a)
    for (std::size_t i = 0; i < k; ++i) {
      const double w = d.rotations(i, a);
      const double* x = d.rotated.row(i);
      double* out = b.row(a);
      for (std::size_t l = 0; l < n; ++l) out[l] += w * x[l];
    }
  if (d.right) return b;
  BasicMatrix<double> t(n, r);  // A_k = B_kᵀ
  for (std::size_t a = 0; a < r; ++a)
    for (std::size_t l = 0; l < n; ++l) t(l, a) = b(a, l);
  return t;
}

}  // namespace attnlab::svd
