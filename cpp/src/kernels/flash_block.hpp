// The flash kernel's micro-kernels and its query block pass, for one xsimd architecture
// (internal; only simd_arch.cpp includes this). flash.cpp splits a call into head tasks and
// query blocks and owns the buffers (see simd_kernels.hpp).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numbers>

#include "attnlab/tiling.hpp"
#include "kernels/simd_kernels.hpp"
#include "kernels/simd_spans.hpp"
#include "kernels/transpose.hpp"

namespace attnlab::simd {

template <class Arch>
struct FlashBlock {
  using S = Spans<Arch>;
  using Batch = typename S::Batch;
  static constexpr std::size_t lanes = S::lanes;
  // The block works on transposed tiles, query rows along the batch lanes: scores Sᵀ (keys,
  // rows), output Oᵀ (d_v, rows). So the softmax of every query row runs down the lanes (its
  // max, exp and sum are plain vector operations), and K and V are read as they lie: each
  // micro-kernel pass broadcasts `key_group` values of K (or `column_group` of V) against two
  // batches of queries. A group's accumulators (two each), two batches of queries and a
  // broadcast fill the registers: AVX-512 (32) takes 12 keys, AVX2 and SSE (16) take 6, and
  // wasm takes 4, since V8 keeps two of the 16 for itself and 6 spill. The value pass takes 8
  // columns on AVX-512, so head widths of 64 and 128 need no padding (12 would pay 72 for 64).
#ifdef __EMSCRIPTEN__
  static constexpr std::size_t key_group = 4;
#else
  static constexpr std::size_t key_group = lanes >= 16 ? 12 : 6;
#endif
  static constexpr std::size_t column_group = lanes >= 16 ? 8 : key_group;
  static constexpr std::size_t row_group = 2 * lanes;  // query rows per pass
  // Groups of 6 columns (AVX2, SSE) would pad d = 64 to 66 and d = 128 to 132; there passes of 4
  // take the columns 6 does not divide, so a width need only be even (n = 4,096, AVX2, d = 64:
  // 0.99x the time, d = 128: 0.985x).
  static constexpr std::size_t tail_group = column_group == 6 ? 4 : column_group;

  // The columns V and the output accumulator take for d_v: whole value passes.
  static constexpr std::size_t value_width(std::size_t d_v) {
    return tail_group == column_group ? round_up(d_v, column_group)
                                      : std::max(tail_group, round_up(d_v, 2));
  }

  // st: (keys, rows) = k: (keys, d) · qᵀ, with qt: (d, rows) and k's rows ld_k apart. The
  // last pass reads up to key_group - 1 keys past `keys` (gather() provides them), so st holds as
  // many rows of extra scores after `keys`. With row_max (rows), it also folds the scores into
  // each row's max while they are in registers, which saves the softmax a pass over the
  // block. The loops walk pointers rather than index, which wasm's code generation needs.
  static void scores(const float* qt, const float* k, std::size_t ld_k, float* st, std::size_t keys,
                     std::size_t rows, std::size_t d, float* row_max) {
    for (std::size_t j = 0; j < keys; j += key_group) {
      for (std::size_t r = 0; r < rows; r += row_group) {
        Batch acc[key_group][2] = {};
        const float* q = qt + r;          // qt[l][r …]
        const float* key = k + j * ld_k;  // k[j][l]
        for (std::size_t l = 0; l < d; ++l, q += rows, ++key) {
          const Batch q0 = Batch::load_unaligned(q);
          const Batch q1 = Batch::load_unaligned(q + lanes);
          for (std::size_t i = 0; i < key_group; ++i) {
            const Batch kv(key[i * ld_k]);
            acc[i][0] = S::fma(kv, q0, acc[i][0]);
            acc[i][1] = S::fma(kv, q1, acc[i][1]);
          }
        }
        for (std::size_t i = 0; i < key_group; ++i) {
          acc[i][0].store_unaligned(st + (j + i) * rows + r);
          acc[i][1].store_unaligned(st + (j + i) * rows + r + lanes);
        }
        if (!row_max) continue;
        for (std::size_t i = 1; i < key_group; ++i) {
          acc[0][0] = xsimd::max(acc[0][0], acc[i][0]);
          acc[0][1] = xsimd::max(acc[0][1], acc[i][1]);
        }
        xsimd::max(acc[0][0], Batch::load_unaligned(row_max + r)).store_unaligned(row_max + r);
        xsimd::max(acc[0][1], Batch::load_unaligned(row_max + r + lanes))
            .store_unaligned(row_max + r + lanes);
      }
    }
  }

  // ot: (width, rows) = ot · diag(correction) + vᵀ · p, with p: (keys, rows) and v: (keys,
  // width), width = value_width(d_v) (gather() pads it). The online softmax's rescale of each
  // row is folded into the pass that loads the accumulators anyway. A null correction is a
  // query block's first key block: ot = vᵀ · p, nothing to load or rescale (and no pass of a
  // whole call rescales when all its keys fit one block).
  static void aggregate(const float* p, const float* v, const float* correction, float* ot,
                        std::size_t keys, std::size_t rows, std::size_t width) {
    for (std::size_t r = 0; r < rows; r += row_group) {
      const float* f = correction ? correction + r : nullptr;
      std::size_t c = 0;
      if constexpr (tail_group != column_group)
        for (; (width - c) % column_group != 0; c += tail_group)
          columns<tail_group>(p + r, v + c, f, ot + c * rows + r, keys, rows, width);
      for (; c < width; c += column_group)
        columns<column_group>(p + r, v + c, f, ot + c * rows + r, keys, rows, width);
    }
  }

  // One pass of aggregate: `group` columns of ot (rows `rows` apart) for one row group, from
  // p's row group (keys, rows apart), v's columns (keys, width apart) and the row group's
  // correction. Its loops over the group are unrolled by request: left to itself, GCC kept the
  // accumulators on the stack in some of its inlining choices (1.04x to 1.6x the time).
  template <std::size_t group>
  static void columns(const float* p, const float* v, const float* correction, float* ot,
                      std::size_t keys, std::size_t rows, std::size_t width) {
    const Batch f0 = correction ? Batch::load_unaligned(correction) : Batch(0.0f);
    const Batch f1 = correction ? Batch::load_unaligned(correction + lanes) : Batch(0.0f);
    Batch acc[group][2] = {};
#pragma GCC unroll 16
    for (std::size_t i = 0; i < group && correction; ++i) {
      acc[i][0] = Batch::load_unaligned(ot + i * rows) * f0;
      acc[i][1] = Batch::load_unaligned(ot + i * rows + lanes) * f1;
    }
    for (std::size_t j = 0; j < keys; ++j, p += rows, v += width) {
      const Batch p0 = Batch::load_unaligned(p);
      const Batch p1 = Batch::load_unaligned(p + lanes);
#pragma GCC unroll 16
      for (std::size_t i = 0; i < group; ++i) {
        const Batch vv(v[i]);
        acc[i][0] = S::fma(vv, p0, acc[i][0]);
        acc[i][1] = S::fma(vv, p1, acc[i][1]);
      }
    }
#pragma GCC unroll 16
    for (std::size_t i = 0; i < group; ++i) {
      acc[i][0].store_unaligned(ot + i * rows);
      acc[i][1].store_unaligned(ot + i * rows + lanes);
    }
  }

  // Sets the scores of keys outside a row's band (key_band.hpp) to -Infinity (a zero weight):
  // key j0 + j of query first + r, for the `rows` real rows of the block. Both ends of a band
  // only grow with the row, so the rows that may not see a key are a prefix (their band ended
  // before it) and a suffix (theirs begins after it). Then block_max: (padded) = each row's
  // max over the keys.
  static void mask_and_max(float* st, std::size_t keys, std::size_t rows, std::size_t padded,
                           const KeyBand& band, std::size_t first, std::size_t j0,
                           float* block_max) {
    std::fill_n(block_max, padded, minus_infinity);
    std::size_t ended = 0, begun = 0;  // rows whose band ends at or before / begins by the key
    for (std::size_t j = 0; j < keys; ++j) {
      const std::size_t key = j0 + j;
      while (ended < rows && band.range(first + ended).end <= key) ++ended;
      while (begun < rows && band.range(first + begun).begin <= key) ++begun;
      float* row = st + j * padded;
      std::fill_n(row, ended, minus_infinity);
      std::fill(row + std::max(begun, ended), row + rows, minus_infinity);
      for (std::size_t r = 0; r < padded; r += lanes)
        xsimd::max(Batch::load_unaligned(row + r), Batch::load_unaligned(block_max + r))
            .store_unaligned(block_max + r);
    }
  }

  // The online softmax over a key block, for every row at once: the running max m of the
  // scaled scores and their sum l take the block (whose max unscaled score is block_max),
  // correction gets the exponential of m_old - m_new (0 on a row's first block, where m = -inf),
  // and st holds the exponential of scale · score - m_new for aggregate.
  //
  // With `fused` (scores well inside 2^20 and scale · log2(e) a normal float: flash.cpp decides),
  // the softmax runs in base 2, with log2(e) folded into the scale and applied inside one fused
  // multiply-add: 2^x needs no two-part reduction, so the weights cost 12 vector operations instead
  // of 17. The scale's rounding moves each logit by at most half an ulp of itself, an error the
  // scores' own rounding already has. The max lands within half an ulp of m_new from 0, a shift
  // shared by the whole row. Otherwise (a rule or scores that may be huge) it runs in base e with
  // each scaled score rounded first, the max's exactly as m_new's, so it lands on exp(0) = 1
  // however large the scores: log2(e) in the scale would overflow there.
  static void softmax(float* st, std::size_t keys, std::size_t rows, float scale, bool fused,
                      const float* block_max, float* m, float* l, float* correction) {
    if (fused)
      online_softmax<true>(st, keys, rows, scale * std::numbers::log2e_v<float>, block_max, m, l,
                           correction);
    else
      online_softmax<false>(st, keys, rows, scale, block_max, m, l, correction);
  }

  template <bool base2>
  static Batch exponential(Batch x) {
    return base2 ? S::exp2_nonpositive(x) : S::exp_nonpositive(x);
  }

  template <bool base2>
  static void online_softmax(float* st, std::size_t keys, std::size_t rows, float scale,
                             const float* block_max, float* m, float* l, float* correction) {
    const Batch factor(scale);
    for (std::size_t r = 0; r < rows; r += lanes) {
      const Batch m_old = Batch::load_unaligned(m + r);
      const Batch m_new = xsimd::max(m_old, Batch::load_unaligned(block_max + r) * factor);
      // A row that has seen no key yet keeps m = -inf; shifting it by 0 instead of m gives its
      // scores a weight of 0 and its correction 0, where -inf - (-inf) would give NaN.
      const Batch shift = xsimd::select(m_new == Batch(minus_infinity), Batch(0.0f), m_new);
      const Batch f = exponential<base2>(m_old - shift);
      const Batch block_sum = exponentiate<base2>(st + r, keys, rows, factor, shift);
      (Batch::load_unaligned(l + r) * f + block_sum).store_unaligned(l + r);
      m_new.store_unaligned(m + r);
      f.store_unaligned(correction + r);
    }
  }

  // st[j · rows] = the exponential of factor · st[j · rows] - shift for j < keys, one batch of
  // rows, and the sum of those (see softmax: fused in base 2, rounded in base e). Four partial
  // sums (keys j mod 4): a quarter of the rounding of one long sum, and four independent chains
  // of exponentials. Four named sums, not an array: GCC kept an array sum[j % 4] on the stack,
  // a load and a store per key.
  template <bool base2>
  static Batch exponentiate(float* st, std::size_t keys, std::size_t rows, Batch factor,
                            Batch shift) {
    const Batch minus_shift = -shift;
    const auto weight = [&](float* at) {
      const Batch s = Batch::load_unaligned(at);
      const Batch e =
          exponential<base2>(base2 ? S::fma(s, factor, minus_shift) : s * factor - shift);
      e.store_unaligned(at);
      return e;
    };
    Batch s0(0.0f), s1(0.0f), s2(0.0f), s3(0.0f);
    std::size_t j = 0;
#ifndef __EMSCRIPTEN__  // four exponentials a step natively; in wasm the core's size counts
    for (; j + 4 <= keys; j += 4) {
      s0 += weight(st + j * rows);
      s1 += weight(st + (j + 1) * rows);
      s2 += weight(st + (j + 2) * rows);
      s3 += weight(st + (j + 3) * rows);
    }
#endif
    for (; j < keys; ++j) {  // each key to the next sum: the sums take turns
      const Batch next = s0 + weight(st + j * rows);
      s0 = s1;
      s1 = s2;
      s2 = s3;
      s3 = next;
    }
    return (s0 + s1) + (s2 + s3);
  }

  // Reads one float of each cache line of from[0, floats), in order: a walk the hardware
  // prefetchers follow, where the micro-kernels' walks (12 key rows at once, then V by column
  // groups) left them behind once K and V came from memory (see HeadTask::streamed).
  static void bring_in(const float* from, std::size_t floats) {
    float sum = 0.0f;
    for (std::size_t i = 0; i < floats; i += 16) sum += from[i];
    volatile float kept = sum;  // so the loads stay
    (void)kept;
  }

  // Kernels::query_block for this architecture.
  static void query_block(const HeadTask& p, const tiling::TilePlan& plan, std::size_t first,
                          const BlockBuffers& w, std::uint8_t* no_weight) {
    const std::size_t rows = std::min(plan.query_rows, p.n_q - first);
    const std::size_t padded = round_up(rows, row_group);  // lanes of the transposed tiles
    transpose_q(p, first, rows, padded, w.qt);
    std::fill_n(w.m, padded, minus_infinity);
    std::fill_n(w.l, padded, 0.0f);

    // The keys any row of the block sees, [begin, end): tiles outside are skipped.
    const KeyRange first_keys = p.band.range(first), last_keys = p.band.range(first + rows - 1);
    const std::size_t begin = first_keys.begin, end = last_keys.end;
    // No key block: zeros (l = 0 too); otherwise the first block sets ot.
    if (begin >= end) std::fill_n(w.ot, value_width(p.d_v) * padded, 0.0f);
    for (std::size_t j0 = begin; j0 < end; j0 += plan.cpu_key_rows()) {
      const std::size_t keys = std::min(plan.cpu_key_rows(), end - j0);
#ifndef __EMSCRIPTEN__  // natively only: these reads cost the wasm core 280 B of its budget
      if (p.streamed) {
        bring_in(p.k + j0 * p.ld_k, keys * p.ld_k);
        bring_in(p.v + j0 * p.ld_v, keys * p.ld_v);
      }
#endif
      // A block that every row sees whole takes its max from the scores in registers. Those
      // include the up to key_group - 1 keys the last pass reads past the block: the next block's
      // (a larger shift than needed only where a key really dominates) or copies of the last
      // key, but outside some rows' bands when a rule limits them, hence their place in the test.
      const std::size_t last_read = std::min(j0 + round_up(keys, key_group), p.n_k) - 1;
      const bool whole = !p.rules && j0 >= last_keys.begin && last_read < first_keys.end;
      if (whole) std::fill_n(w.block_max, padded, minus_infinity);
      scores(w.qt, p.k + j0 * p.ld_k, p.ld_k, w.st, keys, padded, p.d,
             whole ? w.block_max : nullptr);
      // No key is masked with -Infinity before this, so one is a score that overflowed (a
      // partial sum past -3.4e38), not a zero weight; +Infinity and NaN leave l NaN, flagged
      // below.
      if (no_weight && p.may_overflow)
        flag_minus_infinity(p, w.st, keys, rows, padded, first, j0, no_weight);
      // Score rules beyond the band turn the scores into logits, scale included.
      if (p.rules) apply_score_rules(p, w.st, keys, rows, padded, 1, first, j0);
      if (!whole) mask_and_max(w.st, keys, rows, padded, p.band, first, j0, w.block_max);
      softmax(w.st, keys, padded, p.rules ? 1.0f : p.scale, p.fused_scale && !p.rules, w.block_max,
              w.m, w.l, w.correction);
      aggregate(w.st, p.v + j0 * p.ld_v, j0 == begin ? nullptr : w.correction, w.ot, keys, padded,
                p.ld_v);
    }

    write_output(p, w, first, rows, padded, no_weight);
  }

  // qt: (d, padded) = the block's rows of Q transposed, zeros past `rows`. Tile by tile where
  // the instruction set transposes tiles, then row by row: each reads one row of Q whole (rows
  // of all heads apart, so reading down a column would touch a new cache line at every value;
  // at n = 256, d = 128 that was a fifth of the call), asking for the row four ahead meanwhile
  // (the copy waited on Q's rows: n = 4,096, d = 128, 0.98x the time).
  static void transpose_q(const HeadTask& p, std::size_t first, std::size_t rows,
                          std::size_t padded, float* qt) {
    std::size_t tiled = 0;  // the columns the tiles copied
    if constexpr (tile_transpose_available<Batch>()) {
      tiled = p.d - p.d % lanes;
      for (std::size_t r0 = 0; tiled && r0 < padded; r0 += lanes)
        for (std::size_t c0 = 0; c0 < tiled; c0 += lanes) {
          Batch x[lanes];
          for (std::size_t i = 0; i < lanes; ++i)
            x[i] = r0 + i < rows ? Batch::load_unaligned(p.q + (first + r0 + i) * p.ld_q + c0)
                                 : Batch(0.0f);
          transpose_tile(x);
          for (std::size_t j = 0; j < lanes; ++j) x[j].store_unaligned(qt + (c0 + j) * padded + r0);
        }
    }
    for (std::size_t r = 0; tiled < p.d && r < padded; ++r) {
      const float* row = p.q + (first + r) * p.ld_q;
      if (r + 4 < rows)
        for (std::size_t c = tiled; c < p.d; c += 16) __builtin_prefetch(row + 4 * p.ld_q + c);
      for (std::size_t c = tiled; c < p.d; ++c) qt[c * padded + r] = r < rows ? row[c] : 0.0f;
    }
  }

  // The block's output rows, O = Oᵀ transposed with each row over its sum l (zeros where no key
  // gave it weight), and their flags in no_weight (see finish_row). Tile by tile where the
  // instruction set transposes tiles: a row's flag then comes from the tiles' probes, lane by
  // lane (a lane is a row before the transpose).
  static void write_output(const HeadTask& p, const BlockBuffers& w, std::size_t first,
                           std::size_t rows, std::size_t padded, std::uint8_t* no_weight) {
    std::size_t r0 = 0;
    if constexpr (tile_transpose_available<Batch>()) {
      const std::size_t tiled = p.d_v - p.d_v % lanes;
      for (; tiled && r0 + lanes <= rows; r0 += lanes) {
        const Batch l = Batch::load_unaligned(w.l + r0);
        const Batch inverse = xsimd::select(l > Batch(0.0f), Batch(1.0f) / l, Batch(0.0f));
        Batch probes(0.0f);
        for (std::size_t c0 = 0; c0 < tiled; c0 += lanes) {
          Batch x[lanes];
          for (std::size_t j = 0; j < lanes; ++j) {
            x[j] = Batch::load_unaligned(w.ot + (c0 + j) * padded + r0) * inverse;
            probes += Batch(0.0f) * x[j];
          }
          transpose_tile(x);
          for (std::size_t i = 0; i < lanes; ++i)
            x[i].store_unaligned(p.out + (first + r0 + i) * p.ld_out + c0);
        }
        float probe[lanes];
        probes.store_unaligned(probe);
        for (std::size_t i = 0; i < lanes; ++i)
          finish_row(p, w, first, r0 + i, padded, tiled, probe[i], no_weight);
      }
    }
    for (std::size_t r = r0; r < rows; ++r) finish_row(p, w, first, r, padded, 0, 0.0f, no_weight);
  }

  // Row r of the block's output from column `from` on, and its flag, given `probe` of the
  // columns before: the probe stays ±0 while every output is finite (0 · ±Infinity is NaN).
  static void finish_row(const HeadTask& p, const BlockBuffers& w, std::size_t first, std::size_t r,
                         std::size_t padded, std::size_t from, float probe,
                         std::uint8_t* no_weight) {
    float* out = p.out + (first + r) * p.ld_out;
    const float inverse = w.l[r] > 0.0f ? 1.0f / w.l[r] : 0.0f;  // no key: zeros, not NaN
    for (std::size_t c = from; c < p.d_v; ++c) {
      out[c] = w.ot[c * padded + r] * inverse;
      probe += 0.0f * out[c];
    }
    // No weight on a row that sees keys: its scores overflowed (a row that sees none is fully
    // masked, its zeros expected): flag 1. An output beyond float32, flag 2, is never expected,
    // not even in a fully masked row (a score that overflowed before a rule blocked it leaves
    // NaN there); flagged as the row is written (reading it back at once waited on its
    // stores), it spares the call a pass over the whole output.
    if (!no_weight) return;
    if (probe != 0.0f)
      no_weight[p.first_row + first + r] = 2;
    else if (!(w.l[r] > 0.0f) && !p.band.range(first + r).empty())
      no_weight[p.first_row + first + r] = 1;
  }

  // Flags the rows with a -Infinity score for a key they see, in st: (keys, padded) of the
  // block from key j0.
  static void flag_minus_infinity(const HeadTask& p, const float* st, std::size_t keys,
                                  std::size_t rows, std::size_t padded, std::size_t first,
                                  std::size_t j0, std::uint8_t* no_weight) {
    if (!S::any_minus_infinity(st, keys * padded)) return;
    for (std::size_t j = 0; j < keys; ++j)
      for (std::size_t r = 0; r < rows; ++r)
        if (st[j * padded + r] == minus_infinity && p.band.range(first + r).contains(j0 + j))
          no_weight[p.first_row + first + r] = 1;
  }
};

}  // namespace attnlab::simd
