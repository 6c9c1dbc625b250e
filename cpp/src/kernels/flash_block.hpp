// The flash kernel's micro-kernels for one query block against one key block, for one xsimd
// architecture (internal; flash_span.hpp walks them through a span of query blocks, flash.cpp
// splits a call into head tasks and spans and owns the buffers, see simd_kernels.hpp).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <numbers>
#include <type_traits>

#include "attnlab/tiling.hpp"
#include "kernels/simd_kernels.hpp"
#include "kernels/simd_spans.hpp"

namespace attnlab::simd {

template <class Arch>
struct FlashBlock {
  using S = Spans<Arch>;
  using Batch = typename S::Batch;
  static constexpr std::size_t lanes = S::lanes;
  // The block works on transposed tiles, query rows along the batch lanes: scores Sᵀ (keys,
  // rows), output Oᵀ (d_v, rows). So the softmax of every query row runs down the lanes (its
  // max, exp and sum are plain vector operations). K is read as it lies, V from panels of its
  // columns (pack_values): each micro-kernel pass broadcasts `key_group` values of K (or
  // `column_group` of V) against two batches of queries. A group's accumulators (two each), two
  // batches of queries and a broadcast fill the registers: AVX-512 (32) takes 12 keys, AVX2 and
  // SSE (16) take 6, and wasm takes 4, since V8 keeps two of the 16 for itself and 6 spill.
  // AVX-512's passes over whole 64-row blocks take four batches instead (wide_passes).
#ifdef __EMSCRIPTEN__
  static constexpr std::size_t key_group = 4;
#else
  static constexpr std::size_t key_group = lanes >= 16 ? 12 : 6;
#endif
  static constexpr std::size_t column_group = lanes >= 16 ? 6 : key_group;
  static constexpr std::size_t row_group = 2 * lanes;  // query rows per pass
  // Groups of 6 columns would pad d = 64 to 66 and d = 128 to 132; passes of 4 take the columns
  // 6 does not divide, so a width need only be even (n = 4,096, AVX2, d = 64: 0.99x the time,
  // d = 128: 0.985x).
  static constexpr std::size_t tail_group = column_group == 6 ? 4 : column_group;

  // The columns V and the output accumulator take for d_v: whole value passes.
  static constexpr std::size_t value_width(std::size_t d_v) {
    return tail_group == column_group ? round_up(d_v, column_group)
                                      : std::max(tail_group, round_up(d_v, 2));
  }

  // Where the registers allow (AVX-512's 32), a scores pass may instead take wide_keys keys
  // against four batches of queries, a whole 64-row block: the same 24 accumulators, with 10
  // loads for 24 multiply-adds where 12 keys take 14 (on Zen 4, AVX-512, 1 thread: n = 4,096,
  // d = 64, the scores 0.95x the time, the call 0.98x; n = 256 0.96x). A value pass likewise
  // takes 6 columns against four batches: 10 loads for 24 multiply-adds, where 8 columns against
  // two batches took 10 for 16 (Intel Xeon, family 6 model 207, 1 thread, phase timers: the value
  // phase 0.96x at n = 1,024, d = 64, 0.94-0.98x at d = 128; n = 256, d = 128, within noise; on
  // Zen 4, whose AVX-512 runs at half width, unchanged).
  static constexpr std::size_t wide_keys = 6;
#ifdef __EMSCRIPTEN__
  static constexpr bool wide_passes = false;
#else
  static constexpr bool wide_passes = lanes >= 16;
#endif
  static_assert(!wide_passes || wide_keys <= key_group,
                "a pass reads past its keys only as far as gather() pads");

  // st: (keys, rows) = k: (keys, d) · qᵀ, with qt: (d, rows) and k's rows ld_k apart. The
  // last pass reads up to key_group - 1 keys past `keys` (gather() provides them), so st holds as
  // many rows of extra scores after `keys`. With row_max (rows), it also folds the block's scores
  // into each row's max while they are in registers, which saves the softmax a pass over it. Wide
  // passes take the rows in whole wide batches first, and the rest keys first, so the narrow passes
  // over a group of keys read its K from the L1. A group's first pass asks for the next group's K
  // (score_pass's `next`).
  static void scores(const float* qt, const float* k, std::size_t ld_k, float* st, std::size_t keys,
                     std::size_t rows, std::size_t d, float* row_max) {
    const auto next = [&](std::size_t j, std::size_t group) {
      return j + group < keys ? k + (j + group) * ld_k : nullptr;
    };
    std::size_t wide_rows = 0;
    if constexpr (wide_passes)
      for (; wide_rows + 4 * lanes <= rows; wide_rows += 4 * lanes)
        for (std::size_t j = 0; j < keys; j += wide_keys)
          score_pass<wide_keys, 4>(qt + wide_rows, k + j * ld_k, ld_k, st + j * rows + wide_rows,
                                   rows, d, keys - j, row_max ? row_max + wide_rows : nullptr,
                                   next(j, wide_keys));
    if (wide_rows == rows) return;
    for (std::size_t j = 0; j < keys; j += key_group)
      for (std::size_t r = wide_rows; r < rows; r += row_group)
        score_pass<key_group, 2>(qt + r, k + j * ld_k, ld_k, st + j * rows + r, rows, d, keys - j,
                                 row_max ? row_max + r : nullptr,
                                 r == wide_rows ? next(j, key_group) : nullptr);
  }

  // One pass of scores: `group` keys from `key` against `batches` batches of queries from q,
  // their scores to st (keys `rows` apart), and the max of the first `left` keys' into row_max
  // (when given). A key read past the block never moves the max, so a block's max, and so the
  // result, is the same whichever passes took it: a pass with keys past the block takes its max
  // from st, not from the registers. With `next`, the pass also asks for the `group` rows of K
  // from there, spread over the pass (a line of each row per line of columns): its rows are 6 or 12
  // short streams (d floats each), too short for the hardware prefetchers to pick up before they
  // end, so a group's first pass had waited on the L2 or the L3. The loops walk pointers rather
  // than index, which wasm's code generation needs. Out of line: inlined into the span's walk, GCC
  // ran short of registers for the addresses and reloaded them from the stack in the inner loop
  // (1.05x).
  template <std::size_t group, std::size_t batches>
  [[gnu::noinline]] static void score_pass(const float* q, const float* key, std::size_t ld_k,
                                           float* st, std::size_t rows, std::size_t d,
                                           std::size_t left, float* row_max, const float* next) {
    Batch acc[group][batches] = {};
    for (std::size_t l = 0; l < d; ++l, q += rows, ++key) {  // q: qt[l][r …], key: k[j][l]
      if (next && l % floats_per_line == 0)
#pragma GCC unroll 16
        for (std::size_t i = 0; i < group; ++i) __builtin_prefetch(next + i * ld_k + l);
      Batch qs[batches];
#pragma GCC unroll 4
      for (std::size_t b = 0; b < batches; ++b) qs[b] = Batch::load_unaligned(q + b * lanes);
#pragma GCC unroll 16
      for (std::size_t i = 0; i < group; ++i) {
        const Batch kv(key[i * ld_k]);
#pragma GCC unroll 4
        for (std::size_t b = 0; b < batches; ++b) acc[i][b] = S::fma(kv, qs[b], acc[i][b]);
      }
    }
#pragma GCC unroll 16
    for (std::size_t i = 0; i < group; ++i)
#pragma GCC unroll 4
      for (std::size_t b = 0; b < batches; ++b)
        acc[i][b].store_unaligned(st + i * rows + b * lanes);
    if (!row_max) return;
    if (left < group) {
      for (std::size_t i = 0; i < left; ++i)
        for (std::size_t c = 0; c < batches * lanes; c += lanes)
          xsimd::max(Batch::load_unaligned(st + i * rows + c), Batch::load_unaligned(row_max + c))
              .store_unaligned(row_max + c);
      return;
    }
#pragma GCC unroll 16
    for (std::size_t i = 1; i < group; ++i)
#pragma GCC unroll 4
      for (std::size_t b = 0; b < batches; ++b) acc[0][b] = xsimd::max(acc[0][b], acc[i][b]);
#pragma GCC unroll 4
    for (std::size_t b = 0; b < batches; ++b)
      xsimd::max(acc[0][b], Batch::load_unaligned(row_max + b * lanes))
          .store_unaligned(row_max + b * lanes);
  }

  // The columns of value_width(d_v) = width that passes of tail_group take, before the whole
  // column groups.
  static constexpr std::size_t tail_columns(std::size_t width) {
    std::size_t c = 0;
    if constexpr (tail_group != column_group)
      while ((width - c) % column_group != 0) c += tail_group;
    return c;
  }

  // Calls f(c, group) for each value pass over width columns, in order: passes of tail_group up
  // to tail_columns(width), then whole column groups. group is a std::integral_constant, so a
  // pass's width stays a compile-time constant in f.
  template <class F>
  static void for_each_pass(std::size_t width, F&& f) {
    const std::size_t tails = tail_columns(width);
    std::size_t c = 0;
    for (; c < tails; c += tail_group) f(c, std::integral_constant<std::size_t, tail_group>{});
    for (; c < width; c += column_group) f(c, std::integral_constant<std::size_t, column_group>{});
  }

  // V as aggregate reads it: one panel per value pass, the pass's columns key after key, so a
  // pass reads its V in one run of memory rather than a few floats of every row (rows a whole
  // width apart: at d = 128 a 96-key block of V is 48 KiB, more than the L1, so each pass read
  // its rows from the L2; AVX2, n = 256, d = 128, 1 thread: the value phase 0.94x the time).
  // The panel of the pass at column c starts at c · n_k, its key j at j · its width.
  // Rows staged at a time, which go to the panels a pass at a time: each panel then takes a run
  // of 16 keys, whole cache lines, where a row at a time wrote a few floats into every panel in
  // turn (Zen 4, AVX-512, n = 256, d = 128, 1 thread: the packing 2.3x the time with 4 rows, 1.6%
  // of the call).
  static constexpr std::size_t pack_chunk = 16;
  // The floats pack_values() writes: the panels, then its staging rows.
  static constexpr std::size_t packed_floats(std::size_t n_k, std::size_t d_v) {
    return (n_k + pack_chunk) * value_width(d_v);
  }

  // Packs v: (n_k, d_v), rows ld apart, into panels at `to`, zeros past d_v; returns the largest
  // |v| (Spans::max_abs: NaN where a value is not finite). A few rows at a time through staging
  // rows after the panels (zeros after d_v), which the panels take a pass's columns at a time.
  static float pack_values(const float* v, std::size_t n_k, std::size_t d_v, std::size_t ld,
                           float* to) {
    const std::size_t width = value_width(d_v);
    float* const stage = to + n_k * width;
    float most = 0.0f;
    for (std::size_t j0 = 0; j0 < n_k; j0 += pack_chunk) {
      const std::size_t rows = std::min(pack_chunk, n_k - j0);
      // The next chunk's rows asked for, as max_abs asks for the row four ahead within one.
      for (std::size_t r = 0; r < 4 && j0 + pack_chunk + r < n_k; ++r)
        prefetch_row(v + (j0 + pack_chunk + r) * ld, d_v);
      const float chunk_most = S::max_abs(v + j0 * ld, rows, d_v, ld, stage, width);
      if (std::isnan(chunk_most)) return chunk_most;  // the call stops with an error
      most = std::max(most, chunk_most);
      for_each_pass(width, [&](std::size_t c, auto group) {
        for (std::size_t r = 0; r < rows; ++r)
          to_panel<group>(stage + r * width + c, to + c * n_k, j0 + r);
      });
    }
    return most;
  }

  // Key j's `group` columns from `from` into its place in the panel at `to`, just those floats
  // (a whole batch of 16 lanes would spill past the next key's place).
  template <std::size_t group>
  static void to_panel(const float* from, float* to, std::size_t j) {
    std::memcpy(to + j * group, from, group * sizeof(float));
  }

  // ot: (width, rows) = ot · diag(correction) + vᵀ · p, with p: (keys, rows) and v: keys
  // [j0, j0 + keys) of the panels pack_values() wrote for n_k keys, width = value_width(d_v).
  // The online softmax's rescale of each row is folded into the pass that loads the
  // accumulators anyway. A null correction is a query block's first key block: ot = vᵀ · p,
  // nothing to load or rescale (and no pass of a whole call rescales when all its keys fit one
  // block).
  static void aggregate(const float* p, const float* v, const float* correction, float* ot,
                        std::size_t keys, std::size_t rows, std::size_t width, std::size_t n_k,
                        std::size_t j0) {
    const auto row_passes = [&](std::size_t r, auto batches) {
      const float* f = correction ? correction + r : nullptr;
      for_each_pass(width, [&](std::size_t c, auto group) {
        columns<group, batches>(p + r, v + c * n_k + j0 * group, f, ot + c * rows + r, keys, rows);
      });
    };
    std::size_t r = 0;
    if constexpr (wide_passes)
      for (; r + 4 * lanes <= rows; r += 4 * lanes)
        row_passes(r, std::integral_constant<std::size_t, 4>{});
    for (; r < rows; r += row_group) row_passes(r, std::integral_constant<std::size_t, 2>{});
  }

  // One pass of aggregate: `group` columns of ot (rows `rows` apart) for `batches` batches of
  // rows, from those rows of p (keys, rows apart), v's panel (keys, group apart) and their
  // correction. Its loops over the group are unrolled by request: left to itself, GCC kept the
  // accumulators on the stack in some of its inlining choices (1.04x to 1.6x the time). Out of
  // line, like score_pass, so that the span's walk around it cannot change its registers.
  template <std::size_t group, std::size_t batches>
  [[gnu::noinline]] static void columns(const float* p, const float* v, const float* correction,
                                        float* ot, std::size_t keys, std::size_t rows) {
    Batch acc[group][batches] = {};
    if (correction) {
      Batch f[batches];
#pragma GCC unroll 4
      for (std::size_t b = 0; b < batches; ++b)
        f[b] = Batch::load_unaligned(correction + b * lanes);
#pragma GCC unroll 16
      for (std::size_t i = 0; i < group; ++i)
#pragma GCC unroll 4
        for (std::size_t b = 0; b < batches; ++b)
          acc[i][b] = Batch::load_unaligned(ot + i * rows + b * lanes) * f[b];
    }
    for (std::size_t j = 0; j < keys; ++j, p += rows, v += group) {
      Batch ps[batches];
#pragma GCC unroll 4
      for (std::size_t b = 0; b < batches; ++b) ps[b] = Batch::load_unaligned(p + b * lanes);
#pragma GCC unroll 16
      for (std::size_t i = 0; i < group; ++i) {
        const Batch vv(v[i]);
#pragma GCC unroll 4
        for (std::size_t b = 0; b < batches; ++b) acc[i][b] = S::fma(vv, ps[b], acc[i][b]);
      }
    }
#pragma GCC unroll 16
    for (std::size_t i = 0; i < group; ++i)
#pragma GCC unroll 4
      for (std::size_t b = 0; b < batches; ++b)
        acc[i][b].store_unaligned(ot + i * rows + b * lanes);
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
  // multiply-add: 2^x needs no two-part reduction, so the weights cost 11 vector operations instead
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
  // sums (keys j mod 4): a quarter of the rounding of one long sum. Four named sums, not an
  // array: GCC kept an array sum[j % 4] on the stack, a load and a store per key. With 16
  // registers (AVX2, SSE), the exponential's constants leave room for one sum only, and GCC kept
  // the other three on the stack all the same: there the four-key steps add into one.
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
    constexpr bool four_sums = lanes >= 16;
    Batch &t1 = four_sums ? s1 : s0, &t2 = four_sums ? s2 : s0, &t3 = four_sums ? s3 : s0;
    for (; j + 4 <= keys; j += 4) {
      s0 += weight(st + j * rows);
      t1 += weight(st + (j + 1) * rows);
      t2 += weight(st + (j + 2) * rows);
      t3 += weight(st + (j + 3) * rows);
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
};

}  // namespace attnlab::simd
