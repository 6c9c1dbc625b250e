// The flash kernel's walk through one span of query blocks, for one xsimd architecture
// (internal; only simd_arch.cpp includes this): each block's rows of Q transposed in, the
// micro-kernels of flash_block.hpp over its key blocks, its output rows transposed back out.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>

#include "attnlab/key_band.hpp"
#include "kernels/flash_block.hpp"
#include "kernels/phase_times.hpp"
#include "kernels/simd_kernels.hpp"
#include "kernels/transpose.hpp"

namespace attnlab::simd {

template <class Arch>
struct FlashSpan {
  using Micro = FlashBlock<Arch>;
  using S = typename Micro::S;
  using Batch = typename Micro::Batch;
  static constexpr std::size_t lanes = Micro::lanes;

  // One query block of a span and its state between key blocks: rows [first, first + rows) of
  // the task, `padded` to whole row groups, the keys [begin, end) any of them sees, and its
  // slices of the worker's buffers (BlockBuffers).
  struct Block {
    std::size_t first, rows, padded, begin, end;
    KeyRange first_keys, last_keys;  // the first and last rows' keys
    float *qt, *ot, *m, *l;
  };

  // Kernels::query_span for this architecture. Every block of the span takes a stretch of
  // plan.stretch_blocks key blocks before the span moves on to the next stretch, so that stretch
  // of K and V is read from the L2 by all but the first block (see SpanPlan). A block walks its
  // own key blocks from its `begin`, so its results do not depend on the span.
  static void query_span(const HeadTask& p, const SpanPlan& plan, std::size_t first,
                         const BlockBuffers& w, std::uint8_t* no_weight) {
    const std::size_t block_rows = plan.tile.query_rows, key_rows = plan.tile.cpu_key_rows();
    const std::size_t padded = round_up(block_rows, Micro::row_group);
    const std::size_t width = Micro::value_width(p.d_v);
    std::array<Block, max_span_blocks> span;
    std::size_t count = 0, most_key_blocks = 0;
    for (std::size_t at = first; count < plan.blocks && at < p.n_q; ++count, at += block_rows) {
      Block& b = span[count];
      b.first = at;
      b.rows = std::min(block_rows, p.n_q - at);
      b.padded = round_up(b.rows, Micro::row_group);
      b.qt = w.qt + count * p.d * padded;
      b.ot = w.ot + count * width * padded;
      b.m = w.m + count * padded;
      b.l = w.l + count * padded;
      b.first_keys = p.band.range(at);
      b.last_keys = p.band.range(at + b.rows - 1);
      b.begin = b.first_keys.begin;
      b.end = b.last_keys.end;
      {
        const PhaseTimer timer(Phase::transpose_in);
        transpose_q(p, b.first, b.rows, b.padded, b.qt);
      }
      std::fill_n(b.m, b.padded, minus_infinity);
      std::fill_n(b.l, b.padded, 0.0f);
      // No key block: zeros (l = 0 too); otherwise the first block sets ot.
      if (b.begin >= b.end)
        std::fill_n(b.ot, width * b.padded, 0.0f);
      else
        most_key_blocks = std::max(most_key_blocks, (b.end - b.begin + key_rows - 1) / key_rows);
    }
    for (std::size_t t0 = 0; t0 < most_key_blocks; t0 += plan.stretch_blocks)
      for (std::size_t i = 0; i < count; ++i) {
        const Block& b = span[i];
        const std::size_t stop = std::min(b.end, b.begin + (t0 + plan.stretch_blocks) * key_rows);
        for (std::size_t j0 = b.begin + t0 * key_rows; j0 < stop; j0 += key_rows)
          key_block(p, key_rows, b, j0, i == 0, w, no_weight);
      }
    const PhaseTimer timer(Phase::transpose_out);
    for (std::size_t i = 0; i < count; ++i) write_output(p, span[i], no_weight);
  }

  // Block b against keys [j0, j0 + key_rows), clipped to its end: scores, the rules and masks,
  // the online softmax and the value pass. The span's first block brings streamed keys in.
  static void key_block(const HeadTask& p, std::size_t key_rows, const Block& b, std::size_t j0,
                        [[maybe_unused]] bool leads, const BlockBuffers& w,
                        std::uint8_t* no_weight) {
    const std::size_t keys = std::min(key_rows, b.end - j0);
    // A key block that every row sees whole takes its max from the scores in registers.
    const bool whole = !p.rules && j0 >= b.last_keys.begin && j0 + keys <= b.first_keys.end;
    {
      const PhaseTimer timer(Phase::scores);  // K's and V's reads, streamed, included
#ifndef __EMSCRIPTEN__  // natively only: these reads cost the wasm core 280 B of its budget
      if (p.streamed && leads) {
        bring_in(p.k + j0 * p.ld_k, keys * p.ld_k);
        Micro::for_each_pass(Micro::value_width(p.d_v), [&](std::size_t c, auto group) {
          bring_in(p.v + c * p.n_k + j0 * group, keys * group);  // each V panel's stretch of keys
        });
      }
#endif
      if (whole) std::fill_n(w.block_max, b.padded, minus_infinity);
      Micro::scores(b.qt, p.k + j0 * p.ld_k, p.ld_k, w.st, keys, b.padded, p.d,
                    whole ? w.block_max : nullptr);
      // No key is masked with -Infinity before this, so one is a score that overflowed (a
      // partial sum past -3.4e38), not a zero weight; +Infinity and NaN leave l NaN, flagged
      // at the end.
      if (no_weight && p.may_overflow)
        flag_minus_infinity(p, w.st, keys, b.rows, b.padded, b.first, j0, no_weight);
      // Score rules beyond the band turn the scores into logits, scale included.
      if (p.rules) apply_score_rules(p, w.st, keys, b.rows, b.padded, 1, b.first, j0);
      if (!whole)
        Micro::mask_and_max(w.st, keys, b.rows, b.padded, p.band, b.first, j0, w.block_max);
    }
    {
      const PhaseTimer timer(Phase::softmax);
      Micro::softmax(w.st, keys, b.padded, p.rules ? 1.0f : p.scale, p.fused_scale && !p.rules,
                     w.block_max, b.m, b.l, w.correction);
    }
    const PhaseTimer timer(Phase::value);
    Micro::aggregate(w.st, p.v, j0 == b.begin ? nullptr : w.correction, b.ot, keys, b.padded,
                     Micro::value_width(p.d_v), p.n_k, j0);
  }

  // Reads one float of each cache line of from[0, floats), in order: a walk the hardware
  // prefetchers follow, where the micro-kernels' walks (12 key rows at once, then V by column
  // groups) left them behind once K and V came from memory (see HeadTask::streamed).
  static void bring_in(const float* from, std::size_t floats) {
    float sum = 0.0f;
    for (std::size_t i = 0; i < floats; i += floats_per_line) sum += from[i];
    volatile float kept = sum;  // so the loads stay
    (void)kept;
  }

  // qt: (d, padded) = the block's rows of Q transposed, zeros past `rows`. Tile by tile where
  // the instruction set transposes tiles, then row by row: each reads one row of Q whole (rows
  // of all heads apart, so reading down a column would touch a new cache line at every value;
  // at n = 256, d = 128 that was a fifth of the call), asking for the row four ahead meanwhile
  // (the copy waited on Q's rows: n = 4,096, d = 128, 0.98x the time).
  static void transpose_q(const HeadTask& p, std::size_t first, std::size_t rows,
                          std::size_t padded, float* qt) {
    // Q's address and stride in locals: a vector store may alias anything, so GCC would read
    // them from the task again after each one.
    const float* const q = p.q + first * p.ld_q;
    const std::size_t ld = p.ld_q;
    std::size_t tiled = 0;  // the columns the tiles copied
    if constexpr (tile_transpose_available<Batch>()) {
      tiled = p.d - p.d % lanes;
      for (std::size_t r0 = 0; tiled && r0 < padded; r0 += lanes)
        for (std::size_t c0 = 0; c0 < tiled; c0 += lanes) {
          Batch x[lanes];
          for (std::size_t i = 0; i < lanes; ++i)
            x[i] = r0 + i < rows ? Batch::load_unaligned(q + (r0 + i) * ld + c0) : Batch(0.0f);
          transpose_tile(x);
          for (std::size_t j = 0; j < lanes; ++j) x[j].store_unaligned(qt + (c0 + j) * padded + r0);
        }
    }
    for (std::size_t r = 0; tiled < p.d && r < padded; ++r) {
      const float* row = q + r * ld;
      if (r + 4 < rows) prefetch_row(row + 4 * ld + tiled, p.d - tiled);
      for (std::size_t c = tiled; c < p.d; ++c) qt[c * padded + r] = r < rows ? row[c] : 0.0f;
    }
  }

  // The block's output rows, O = Oᵀ transposed with each row over its sum l (zeros where no key
  // gave it weight), and their flags in no_weight (see finish_row). Tile by tile where the
  // instruction set transposes tiles: a row's flag then comes from the tiles' probes, lane by
  // lane (a lane is a row before the transpose).
  static void write_output(const HeadTask& p, const Block& b, std::uint8_t* no_weight) {
    const std::size_t first = b.first, rows = b.rows, padded = b.padded;
    float* const out = p.out + first * p.ld_out;  // in locals, as in transpose_q
    const std::size_t ld = p.ld_out;
    std::size_t r0 = 0;
    if constexpr (tile_transpose_available<Batch>()) {
      const std::size_t tiled = p.d_v - p.d_v % lanes;
      for (; tiled && r0 + lanes <= rows; r0 += lanes) {
        const Batch l = Batch::load_unaligned(b.l + r0);
        const Batch inverse = xsimd::select(l > Batch(0.0f), Batch(1.0f) / l, Batch(0.0f));
        Batch probes(0.0f);
        for (std::size_t c0 = 0; c0 < tiled; c0 += lanes) {
          Batch x[lanes];
          for (std::size_t j = 0; j < lanes; ++j) {
            x[j] = Batch::load_unaligned(b.ot + (c0 + j) * padded + r0) * inverse;
            probes += Batch(0.0f) * x[j];
          }
          transpose_tile(x);
          for (std::size_t i = 0; i < lanes; ++i) x[i].store_unaligned(out + (r0 + i) * ld + c0);
        }
        float probe[lanes];
        probes.store_unaligned(probe);
        for (std::size_t i = 0; i < lanes; ++i)
          finish_row(p, b, r0 + i, tiled, probe[i], no_weight);
      }
    }
    for (std::size_t r = r0; r < rows; ++r) finish_row(p, b, r, 0, 0.0f, no_weight);
  }

  // Row r of the block's output from column `from` on, and its flag, given `probe` of the
  // columns before: the probe stays ±0 while every output is finite (0 · ±Infinity is NaN).
  static void finish_row(const HeadTask& p, const Block& b, std::size_t r, std::size_t from,
                         float probe, std::uint8_t* no_weight) {
    float* out = p.out + (b.first + r) * p.ld_out;
    const float inverse = b.l[r] > 0.0f ? 1.0f / b.l[r] : 0.0f;  // no key: zeros, not NaN
    for (std::size_t c = from; c < p.d_v; ++c) {
      out[c] = b.ot[c * b.padded + r] * inverse;
      probe += 0.0f * out[c];
    }
    // No weight on a row that sees keys: its scores overflowed (a row that sees none is fully
    // masked, its zeros expected): flag 1. An output beyond float32, flag 2, is never expected,
    // not even in a fully masked row (a score that overflowed before a rule blocked it leaves
    // NaN there); flagged as the row is written (reading it back at once waited on its
    // stores), it spares the call a pass over the whole output.
    if (!no_weight) return;
    if (probe != 0.0f)
      no_weight[p.first_row + b.first + r] = 2;
    else if (!(b.l[r] > 0.0f) && !p.band.range(b.first + r).empty())
      no_weight[p.first_row + b.first + r] = 1;
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
