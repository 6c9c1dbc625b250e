// The flash kernel's micro-kernels and its query block pass, for one xsimd architecture
// (internal; only simd_arch.cpp includes this). flash.cpp splits a call into head tasks and
// query blocks, packs K and V and owns the buffers (see simd_kernels.hpp).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "attnlab/tiling.hpp"
#include "simd_kernels.hpp"
#include "simd_spans.hpp"

namespace attnlab::simd {

template <class Arch>
struct FlashBlock {
  using S = Spans<Arch>;
  using Batch = typename S::Batch;
  static constexpr std::size_t lanes = S::lanes;
  // Query rows per micro-kernel pass: 8 rows x 2 batches = 16 accumulators fit AVX-512's 32
  // registers; narrower ISAs (16 registers) take 4 rows.
  static constexpr std::size_t row_group = lanes >= 16 ? 8 : 4;
  static constexpr std::size_t col_group = 2 * lanes;  // two batches of columns per pass

  // s: (rows, cols) = q: (rows, d) · kᵀ, with kᵀ as packed panels (see PackedHead); rows a
  // multiple of row_group, cols of col_group.
  static void block_scores(const float* q, const float* kt, float* s, std::size_t rows,
                           std::size_t cols, std::size_t d, std::size_t ld_s) {
    for (std::size_t c = 0; c < cols; c += col_group) {
      const float* panel = kt + c * d;  // panel c / col_group: (d, col_group)
      for (std::size_t r = 0; r < rows; r += row_group) {
        Batch acc[row_group][2] = {};
        for (std::size_t l = 0; l < d; ++l) {
          const Batch k0 = Batch::load_unaligned(panel + l * col_group);
          const Batch k1 = Batch::load_unaligned(panel + l * col_group + lanes);
          for (std::size_t i = 0; i < row_group; ++i) {
            const Batch qv(q[(r + i) * d + l]);
            acc[i][0] = xsimd::fma(qv, k0, acc[i][0]);
            acc[i][1] = xsimd::fma(qv, k1, acc[i][1]);
          }
        }
        for (std::size_t i = 0; i < row_group; ++i) {
          acc[i][0].store_unaligned(s + (r + i) * ld_s + c);
          acc[i][1].store_unaligned(s + (r + i) * ld_s + c + lanes);
        }
      }
    }
  }

  // acc: (rows, width) += p: (rows, keys) · v: (keys, width), rows a multiple of row_group,
  // width of col_group.
  static void block_aggregate(const float* p, const float* v, float* acc, std::size_t rows,
                              std::size_t keys, std::size_t width, std::size_t ld_p) {
    // Columns outside, rows inside: one column strip of V (keys x col_group) stays in L1
    // while every row group passes over it.
    for (std::size_t c = 0; c < width; c += col_group)
      for (std::size_t r = 0; r < rows; r += row_group) {
        Batch a[row_group][2];
        for (std::size_t i = 0; i < row_group; ++i) {
          a[i][0] = Batch::load_unaligned(acc + (r + i) * width + c);
          a[i][1] = Batch::load_unaligned(acc + (r + i) * width + c + lanes);
        }
        for (std::size_t j = 0; j < keys; ++j) {
          const Batch v0 = Batch::load_unaligned(v + j * width + c);
          const Batch v1 = Batch::load_unaligned(v + j * width + c + lanes);
          for (std::size_t i = 0; i < row_group; ++i) {
            const Batch pv(p[(r + i) * ld_p + j]);
            a[i][0] = xsimd::fma(pv, v0, a[i][0]);
            a[i][1] = xsimd::fma(pv, v1, a[i][1]);
          }
        }
        for (std::size_t i = 0; i < row_group; ++i) {
          a[i][0].store_unaligned(acc + (r + i) * width + c);
          a[i][1].store_unaligned(acc + (r + i) * width + c + lanes);
        }
      }
  }

  // Online softmax of one row of a key block: folds the block's `allowed` leading scores
  // into the row's running max m and sum l, rescales the accumulator when m grows, and
  // leaves exp(score - m) in place (zeros past `allowed`) for block_aggregate.
  static void online_softmax_row(float* s, std::size_t allowed, std::size_t cols, float& m,
                                 float& l, float* acc_row, std::size_t width) {
    if (allowed == 0) {
      std::fill_n(s, cols, 0.0f);
      return;
    }
    const float m_new = std::max(m, S::max_of(s, allowed));
    const float correction = std::exp(m - m_new);  // 0 on the first block (m = -inf)
    const float sum = S::exp_shifted(s, m_new, s, allowed);
    std::fill(s + allowed, s + cols, 0.0f);
    if (correction != 1.0f) S::scale(acc_row, width, correction);
    l = l * correction + sum;
    m = m_new;
  }

  // Kernels::query_block for this architecture.
  static void query_block(const HeadTask& p, const PackedHead& kv, const tiling::TilePlan& plan,
                          std::size_t first, const BlockBuffers& w, std::uint8_t* no_weight) {
    const std::size_t rows = std::min(plan.query_rows, p.n_q - first);
    const std::size_t rows_padded = round_up(rows, row_group);
    std::fill_n(w.q, w.rows * p.d, 0.0f);
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t c = 0; c < p.d; ++c)
        w.q[r * p.d + c] = p.q[(first + r) * p.ld_q + c] * p.scale;
    std::fill_n(w.acc, w.rows * w.width_v, 0.0f);
    std::fill_n(w.m, w.rows, minus_infinity);
    std::fill_n(w.l, w.rows, 0.0f);

    const std::size_t last_query = first + rows - 1;
    const std::size_t key_step = plan.cpu_key_rows();
    for (std::size_t j0 = 0; j0 < p.n_k; j0 += key_step) {
      if (p.causal && j0 > last_query) break;  // this and later key blocks are all in the future
      const std::size_t keys = std::min(key_step, p.n_k - j0);
      const std::size_t cols = round_up(keys, col_group);
      block_scores(w.q, kv.kt + j0 * p.d, w.s, rows_padded, cols, p.d, w.keys);
      for (std::size_t r = 0; r < rows_padded; ++r) {
        const std::size_t query = first + r;
        // Causal: keys j0 … query are allowed, a prefix of the block (the diagonal tile).
        std::size_t allowed = r < rows ? keys : 0;
        if (p.causal && r < rows) allowed = query < j0 ? 0 : std::min(keys, query - j0 + 1);
        float* scores = w.s + r * w.keys;
        // No key is masked with -Infinity here, so one is a score that overflowed (a partial
        // sum past -3.4e38), not a zero weight; +Infinity and NaN leave l NaN, flagged below.
        if (no_weight && allowed > 0 && S::any_minus_infinity(scores, allowed))
          no_weight[p.first_row + query] = 1;
        online_softmax_row(scores, allowed, cols, w.m[r], w.l[r], w.acc + r * w.width_v, w.width_v);
      }
      block_aggregate(w.s, kv.v + j0 * kv.width_v, w.acc, rows_padded, keys, w.width_v, w.keys);
    }

    for (std::size_t r = 0; r < rows; ++r) {
      float* out = p.out + (first + r) * p.ld_out;
      const float* acc = w.acc + r * w.width_v;
      const float inverse = w.l[r] > 0.0f ? 1.0f / w.l[r] : 0.0f;  // no key: zeros, not NaN
      for (std::size_t c = 0; c < p.d_v; ++c) out[c] = acc[c] * inverse;
      if (no_weight && !(w.l[r] > 0.0f)) no_weight[p.first_row + first + r] = 1;
    }
  }
};

}  // namespace attnlab::simd
