#include "attnlab/attention_backward.hpp"

#include <cstddef>
#include <string_view>

#include "attnlab/kernels.hpp"
#include "validate.hpp"

namespace attnlab {
namespace {

using validate::Problem;

// out: (cols, rows) = m: (rows, cols)ᵀ. The kernels take b·ᵀ only on the right, and the
// backward needs Aᵀ and dSᵀ on the left.
Matrix transposed(const Matrix& m) {
  Matrix out(m.cols, m.rows);
  for (std::size_t r = 0; r < m.rows; ++r)
    for (std::size_t c = 0; c < m.cols; ++c) out(c, r) = m(r, c);
  return out;
}

Problem check_d_out(const Matrix& q, const Matrix& v, const Matrix& d_out) {
  if (auto p = validate::same_extent("dO", d_out, true, "Q", q, true,
                                     "dO is the gradient of the output, one row per query"))
    return p;
  if (auto p =
          validate::same_extent("dO", d_out, false, "V", v, false,
                                "dO is the gradient of the output, one column per column of V"))
    return p;
  return validate::finite("dO", d_out);
}

// Finite inputs can still overflow float32 in a product; say so instead of returning NaN.
Problem overflowed(std::string_view gradient, const Matrix& m) {
  auto p = validate::finite(gradient, m);
  if (p) p->message += ": the values are too large for float32; use smaller inputs";
  return p;
}

}  // namespace

Result<AttentionGradients> attention_backward(const Matrix& q, const Matrix& k, const Matrix& v,
                                              const Matrix& d_out,
                                              const AttentionOptions& options) {
  // The forward checks Q, K, V and the options, and gives the weights A: (n_q, n_k).
  auto forward = attention(q, k, v, options);
  if (!forward) return forward.error();
  if (auto p = check_d_out(q, v, d_out)) return *p;
  const Matrix& a = forward.value().weights();

  AttentionGradients g;
  g.dv = kernels::matmul(transposed(a), d_out);      // Aᵀ·dO: (n_k, d_v)
  Matrix ds = kernels::matmul_transposed(d_out, v);  // dA = dO·Vᵀ: (n_q, n_k)
  // Per row, the softmax Jacobian diag(a) − aaᵀ: dS = A ⊙ (dA − rowsum(dA ⊙ A)). Masked cells
  // and fully masked rows have A = 0, so they get dS = 0.
  for (std::size_t i = 0; i < ds.rows; ++i) {
    float dot = 0.0f;
    for (std::size_t j = 0; j < ds.cols; ++j) dot += ds(i, j) * a(i, j);
    for (std::size_t j = 0; j < ds.cols; ++j) ds(i, j) = a(i, j) * (ds(i, j) - dot);
  }
  // The logits are scores · f, with f = scale / temperature.
  kernels::scale(ds, forward.value().factor);
  g.dq = kernels::matmul(ds, k);              // dS·K: (n_q, d_k)
  g.dk = kernels::matmul(transposed(ds), q);  // dSᵀ·Q: (n_k, d_k)

  if (auto p = overflowed("dQ", g.dq)) return *p;
  if (auto p = overflowed("dK", g.dk)) return *p;
  if (auto p = overflowed("dV", g.dv)) return *p;
  return g;
}

}  // namespace attnlab
