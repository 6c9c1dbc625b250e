#include "attnlab/attention_backward.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string_view>
#include <vector>

#include "attnlab/kernels.hpp"
#include "attnlab/tiling.hpp"
#include "base/validate.hpp"
#include "kernels/attention_checks.hpp"
#include "kernels/simd_kernels.hpp"

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
  if (auto p = validate::well_formed("dO", d_out)) return p;
  if (auto p = validate::same_extent("dO", d_out, true, "Q", q, true,
                                     "dO is the gradient of the output, one row per query"))
    return p;
  if (auto p =
          validate::same_extent("dO", d_out, false, "V", v, false,
                                "dO is the gradient of the output, one column per column of V"))
    return p;
  return validate::finite("dO", d_out);
}

// NaN or Infinity in any gradient, from finite inputs.
Problem overflowed(const AttentionGradients& g) {
  if (auto p = validate::overflowed("dQ", g.dq)) return p;
  if (auto p = validate::overflowed("dK", g.dk)) return p;
  return validate::overflowed("dV", g.dv);
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
  // The keys and values the weights span: the past cache's rows, then K's and V's.
  const Matrix keys = detail::appended(options.past_key, k);
  const Matrix values = detail::appended(options.past_value, v);

  AttentionGradients g;
  g.dv = kernels::matmul(transposed(a), d_out);           // Aᵀ·dO: (n_k, d_v)
  Matrix ds = kernels::matmul_transposed(d_out, values);  // dA = dO·Vᵀ: (n_q, n_k)
  // Per row, the softmax Jacobian diag(a) − aaᵀ: dS = A ⊙ (dA − rowsum(dA ⊙ A)). Masked cells
  // and fully masked rows have A = 0, so they get dS = 0.
  for (std::size_t i = 0; i < ds.rows; ++i) {
    float dot = 0.0f;
    for (std::size_t j = 0; j < ds.cols; ++j) dot += ds(i, j) * a(i, j);
    for (std::size_t j = 0; j < ds.cols; ++j) ds(i, j) = a(i, j) * (ds(i, j) - dot);
  }
  // Soft-capping: d(c·tanh(x/c))/dx = 1 − tanh²(x/c) = 1 − (capped/c)²; a bias adds a constant.
  if (options.softcap) {
    const Matrix& capped = forward.value().capped;
    const float cap = *options.softcap;
    for (std::size_t i = 0; i < ds.data.size(); ++i) {
      const float t = capped.data[i] / cap;
      ds.data[i] *= 1.0f - t * t;
    }
  }
  // The scaled scores are scores · f, with f = scale / temperature.
  kernels::scale(ds, forward.value().factor);
  g.dq = kernels::matmul(ds, keys);           // dS·K: (n_q, d_k)
  g.dk = kernels::matmul(transposed(ds), q);  // dSᵀ·Q: (n_k, d_k)

  if (auto p = overflowed(g)) return *p;
  return g;
}

Result<AttentionGradients> flash_attention_backward(const Matrix& q, const Matrix& k,
                                                    const Matrix& v, const Matrix& d_out,
                                                    const LongAttentionOptions& options) {
  if (options.kv_heads > 0 && options.kv_heads != options.heads)
    return Error{ErrorCode::invalid_argument,
                 "the flash backward pass does not take kvHeads (grouped-query attention) yet: "
                 "give every query head its own K and V"};
  if (options.has_cell_rules())
    return Error{ErrorCode::invalid_argument,
                 "the flash backward pass takes the causal rule and the window only, not key "
                 "padding, softcap, a bias or ALiBi yet"};
  // The forward checks the inputs and options, and gives O: (batch·n_q, heads·d_v).
  auto forward = flash_attention(q, k, v, options);
  if (!forward) return forward.error();
  if (auto p = check_d_out(q, v, d_out)) return *p;
  const Matrix& o = forward.value().output;

  const auto heads = static_cast<std::size_t>(options.heads);
  const std::size_t d = q.cols / heads, d_v = v.cols / heads;
  const std::size_t n_q = q.rows / options.batch, n_k = k.rows / options.batch;
  const tiling::TilePlan plan = *tiling::plan_for(d);
  const std::size_t br = plan.query_rows, bc = plan.key_rows;

  // The SIMD kernels (xsimd, simd_arch.cpp) for this machine, taken once for the call.
  const simd::Kernels& kx = simd::active();
  AttentionGradients g{Matrix(q.rows, q.cols), Matrix(k.rows, k.cols), Matrix(v.rows, v.cols)};
  std::vector<float> lse(n_q), delta(n_q);  // per query of one (sequence, head)
  std::vector<float> row(n_k);              // one query's scores
  std::vector<float> p(bc), dp(bc);         // a tile row of P, then of dS; of dO·V_jᵀ
  for (std::size_t b = 0; b < options.batch; ++b)
    for (std::size_t h = 0; h < heads; ++h) {
      // The head's factor (scale / temperature) and band, as the forward pass took them.
      const HeadRules rules = options.head(h, heads, n_q, n_k, d);
      const float f = rules.factor;
      const KeyBand& band = rules.band;
      // Row r of this (sequence, head)'s slice of Q, K, V, dO, O, dQ, dK, dV.
      const auto at = [&](auto& m, std::size_t first_row, std::size_t width, std::size_t r) {
        return m.row(first_row + r) + h * width;
      };
      const std::size_t qr = b * n_q, kr = b * n_k;
      // L_i = log Σ_j exp(s_ij) over the row's scores (one row held, never the matrix), and
      // D_i = dO_i · O_i (= rowsum(dP ⊙ P), the softmax Jacobian's correction term). A row that
      // sees no key has no gradient: it is skipped below.
      for (std::size_t i = 0; i < n_q; ++i) {
        const KeyRange seen = band.range(i);
        if (seen.empty()) continue;
        const std::size_t keys = seen.end - seen.begin;
        kx.dots(at(q, qr, d, i), at(k, kr, d, seen.begin), k.cols, keys, d, row.data());
        kx.scale(row.data(), keys, f);
        const float m = kx.max_of(row.data(), keys);
        lse[i] = m + std::log(kx.exp_shifted(row.data(), m, row.data(), keys));
        delta[i] = kx.dot(at(d_out, qr, d_v, i), at(o, qr, d_v, i), d_v);
      }

      // Key tile by key tile (FlashAttention-2's outer loop): dK_j and dV_j gather from every
      // query tile that sees them; dQ_i gathers from every key tile.
      for (std::size_t j0 = 0; j0 < n_k; j0 += bc) {
        const std::size_t nj = std::min(bc, n_k - j0);
        for (std::size_t i0 = 0; i0 < n_q; i0 += br) {
          const std::size_t ni = std::min(br, n_q - i0);
          // A tile no row of which sees a key of it (the band's ends grow with the row).
          if (band.range(i0 + ni - 1).end <= j0 || band.range(i0).begin >= j0 + nj) continue;
          for (std::size_t r = 0; r < ni; ++r) {
            // P = exp(S − L) on the keys of the tile the row sees, [from, to).
            const KeyRange seen = band.range(i0 + r);
            const std::size_t from = std::max(seen.begin, j0), to = std::min(seen.end, j0 + nj);
            if (from >= to) continue;
            const std::size_t keys = to - from;
            kx.dots(at(q, qr, d, i0 + r), at(k, kr, d, from), k.cols, keys, d, p.data());
            for (std::size_t c = 0; c < keys; ++c) p[c] = std::exp(f * p[c] - lse[i0 + r]);
            // dV_j += Pᵀ·dO_i
            for (std::size_t c = 0; c < keys; ++c)
              kx.axpy(p[c], at(d_out, qr, d_v, i0 + r), at(g.dv, kr, d_v, from + c), d_v);
            // dS = P ⊙ (dO_i·V_jᵀ − D_i), times f for the scores' factor.
            kx.dots(at(d_out, qr, d_v, i0 + r), at(v, kr, d_v, from), v.cols, keys, d_v, dp.data());
            for (std::size_t c = 0; c < keys; ++c) p[c] *= f * (dp[c] - delta[i0 + r]);
            // dQ_i += dS·K_j, dK_j += dSᵀ·Q_i
            for (std::size_t c = 0; c < keys; ++c) {
              kx.axpy(p[c], at(k, kr, d, from + c), at(g.dq, qr, d, i0 + r), d);
              kx.axpy(p[c], at(q, qr, d, i0 + r), at(g.dk, kr, d, from + c), d);
            }
          }
        }
      }
    }
  if (auto problem = overflowed(g)) return *problem;
  return g;
}

}  // namespace attnlab
