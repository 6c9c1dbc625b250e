// The kernels that depend on the instruction set, as one table per xsimd architecture
// (internal). simd_arch.cpp writes them once against xsimd::batch<float, Arch>; the build
// compiles it once per instruction set (on x86-64: SSE2, SSE4.2, AVX2 + FMA and AVX-512, see
// cpp/CMakeLists.txt) or once for the target (wasm), and simd_dispatch.cpp picks the table
// at run time. The tables take raw spans: the callers own every allocation (see simd_arch.cpp
// for why).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>

#include "attnlab/key_band.hpp"
#include "attnlab/score_rules.hpp"
#include "attnlab/tiling.hpp"

namespace attnlab::simd {

inline constexpr float minus_infinity = -std::numeric_limits<float>::infinity();

constexpr std::size_t round_up(std::size_t n, std::size_t m) { return (n + m - 1) / m * m; }

// The floats in one cache line of the machines this runs on (64 bytes): the stride of every
// prefetch and of every read that only brings lines in.
inline constexpr std::size_t floats_per_line = 64 / sizeof(float);

// Asks the caches for floats [0, floats) of `row`, a line at a time, ahead of a copy that walks
// rows lying a page or more apart (the hardware prefetchers stop at a page's end).
inline void prefetch_row(const float* row, std::size_t floats) {
  for (std::size_t c = 0; c < floats; c += floats_per_line) __builtin_prefetch(row + c);
}

// One head of one sequence of a flash call: a (batch, head) pair, as strided views into
// Q, K, V and the output.
struct HeadTask {
  const float* q;         // (n_q, d), row stride ld_q
  const float* k;         // (n_k, d), row stride ld_k
  const float* v;         // (n_k, d_v), row stride ld_v; once gathered, V's panels
  float* out;             // (n_q, d_v), row stride ld_out
  std::size_t first_row;  // of this sequence in the output, for the no-weight flags
  std::size_t ld_q, ld_k, ld_v, ld_out;
  std::size_t n_q, n_k, d, d_v;
  float scale;
  KeyBand band;              // the keys each query sees (causal rule, window)
  bool may_overflow = true;  // some score could pass ±3.4e38 (see flash.cpp), so check them
  bool fused_scale = false;  // a softmax in base 2, scores scaled unrounded (see flash.cpp)
  bool streamed = false;     // K and V come from memory, not a cache: read each block in order
  // The head's rules (ScoreRules::head) when a rule beyond the band applies
  // (ScoreRules::has_cell_rules), else none: the scale and the band alone.
  std::optional<HeadRules> rules = std::nullopt;
};

// The logits of a tile of task's scores s, in place: entry (key j0 + j, query first + r) at
// s[j·key_stride + r·row_stride] scaled, then HeadRules::logit (soft-capped, plus ALiBi's and the
// given bias, -Infinity where padding, the mask or the bias blocks it) (flash.cpp). One plain pass
// for every architecture, none per template.
void apply_score_rules(const HeadTask& task, float* s, std::size_t keys, std::size_t rows,
                       std::size_t key_stride, std::size_t row_stride, std::size_t first,
                       std::size_t j0);

// How a worker takes one item of the flash kernel (flash.cpp's cpu_plan): a span of `blocks`
// query blocks of tile.query_rows rows, walked through the keys a stretch of `stretch_blocks`
// key blocks (tile.cpu_key_rows() keys each) at a time, every block of the span taking the
// stretch before the next: that stretch of K and V stays in the core's L2 meanwhile, where a
// block at a time would read all of a head's K and V from further out once per block.
struct SpanPlan {
  tiling::TilePlan tile;
  std::size_t blocks;          // query blocks per span, 1 to max_span_blocks
  std::size_t stretch_blocks;  // key blocks per stretch
};

inline constexpr std::size_t max_span_blocks = 16;

// A worker's buffers for one span, in the transposed layout of the flash micro-kernels (query
// rows along the lanes, see flash_block.hpp): each query block's state, one block after the
// other, and the buffers of one block against one key block. `padded` is the plan's query rows
// rounded up to whole row groups; keys and d_v are rounded up to whole key and column groups.
struct BlockBuffers {
  float* qt;          // (blocks, d, padded): the query blocks, transposed
  float* ot;          // (blocks, d_v, padded): their output accumulators, transposed
  float* m;           // (blocks, padded): the running max of each row
  float* l;           // (blocks, padded): the running sum of each row
  float* st;          // (keys, padded): scores, then unnormalised probabilities
  float* block_max;   // (padded): each row's max over a key block
  float* correction;  // (padded): exp(m_old - m_new) of each row in a key block
};

struct Kernels {
  const char* name;       // xsimd's name of the instruction set, e.g. "fma3+avx2"
  std::size_t row_group;  // query rows per flash micro-kernel pass (two batches)
  std::size_t key_group;  // keys per flash scores pass
  // the columns of V and the flash output accumulator for a head width d_v: whole value passes
  std::size_t (*value_width)(std::size_t d_v);
  // V of a head, (n_k, d_v) with rows ld apart, packed into the panels the flash value pass
  // reads (FlashBlock::pack_values), in packed_floats(n_k, d_v) floats at `to`; returns the
  // largest |v|, NaN where one is not finite
  std::size_t (*packed_floats)(std::size_t n_k, std::size_t d_v);
  float (*pack_values)(const float* v, std::size_t n_k, std::size_t d_v, std::size_t ld, float* to);

  // out: (m, n) += a: (m, k) · b: (k, n), all row-major and contiguous
  void (*matmul)(const float* a, const float* b, float* out, std::size_t m, std::size_t k,
                 std::size_t n);
  // out[j] = q · k_j for the first `keys` rows of k (row stride ld_k), each of width d
  void (*dots)(const float* q, const float* k, std::size_t ld_k, std::size_t keys, std::size_t d,
               float* out);
  float (*dot)(const float* a, const float* b, std::size_t n);
  void (*axpy)(float alpha, const float* x, float* y, std::size_t n);  // y += alpha · x
  float (*sum)(const float* x, std::size_t n);
  void (*scale)(float* x, std::size_t n, float factor);  // x *= factor
  float (*max_of)(const float* x, std::size_t n);
  bool (*all_finite)(const float* x, std::size_t n);
  // the largest |x| of the (rows, cols) block x, rows ld apart, or NaN where one is not finite;
  // given `to`, also copies the block there, rows `width` apart, zeros from cols to width
  float (*max_abs)(const float* x, std::size_t rows, std::size_t cols, std::size_t ld, float* to,
                   std::size_t width);
  // out[i] = exp(x[i] - shift) for i < n (out may be x); returns the sum of out
  float (*exp_shifted)(const float* x, float shift, float* out, std::size_t n);
  // x[i] = GELU(x[i]) (tanh form) for i < n, in place
  void (*gelu)(float* x, std::size_t n);
  // Queries [first, first + plan.blocks · plan.tile.query_rows) of one head task against all
  // their (unmasked) keys, written to task.out; flags in no_weight (when given) the rows with a
  // -Infinity score, whose weights summed to 0 or NaN, or whose output is not finite: an
  // overflow, since these kernels mask no whole row.
  void (*query_span)(const HeadTask& task, const SpanPlan& plan, std::size_t first,
                     const BlockBuffers& w, std::uint8_t* no_weight);
};

// The table for one architecture: defined in simd_arch.cpp, in the object compiled for it.
template <class Arch>
const Kernels& kernels_for(Arch);

// The table the kernels run with now (simd_dispatch.cpp): the best this CPU runs, unless
// ATTNLAB_SIMD_ARCH or kernels::force_simd_arch chose another. Take it once per call, so a
// call never mixes two tables.
const Kernels& active();

}  // namespace attnlab::simd
