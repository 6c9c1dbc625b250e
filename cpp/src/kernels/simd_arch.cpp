// The kernel table for one instruction set: the build compiles this file once per set, each
// time with that set's flags, and xsimd::default_arch is then the set those flags enable.
//
// Everything defined here is templated on the architecture or local to this file. An inline
// function shared with the rest of the library (a std::vector member, a Matrix constructor)
// would be compiled here with this file's instructions, and the linker may keep this copy for
// the whole program: an AVX-512 instruction would then run on every CPU. So the tables work on
// raw spans and their callers allocate; the core.simd-isolation test checks the objects.
#include <array>
#include <utility>
#include <xsimd/xsimd.hpp>

#include "kernels/flash_block.hpp"
#include "kernels/flash_span.hpp"
#include "kernels/simd_kernels.hpp"
#include "kernels/simd_spans.hpp"

namespace attnlab::simd {
namespace {

// The register block: rows × vectors accumulators of `out`. Wasm takes 2 × 4: V8 keeps at most
// 15 vectors in registers and loads a step's broadcasts before its products, so 6 × 2's 12
// accumulators spilled to the stack on every step; 2 × 4 fits, and keeps a single row (the
// decoder's) fast too. 4 × 2 elsewhere.
#ifdef __EMSCRIPTEN__
constexpr std::size_t matmul_rows = 2, matmul_vectors = 4;
#else
constexpr std::size_t matmul_rows = 4, matmul_vectors = 2;
#endif

// `rows` rows by matmul_vectors vectors of `out` (from column j on) stay in registers across the
// whole of k (the long linear kernels' chunk products: one axpy per (i, l) reloaded and stored
// `out` for every multiply-add); each entry gets the same fused products in the same order as
// the axpy, so the same bits.
template <class Arch, std::size_t rows>
void matmul_block(const float* a, const float* b, float* out, std::size_t k, std::size_t n,
                  std::size_t j) {
  using S = Spans<Arch>;
  using Batch = typename S::Batch;
  constexpr std::size_t vectors = matmul_vectors;
  Batch acc[rows][vectors];
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t h = 0; h < vectors; ++h)
      acc[r][h] = Batch::load_unaligned(out + r * n + j + h * S::lanes);
  // Pointers stepped rather than indices multiplied: Emscripten turns off LLVM's loop strength
  // reduction, so `b + l * n` cost a multiply and a reload of n on every step of k in wasm.
  const float* b_row = b + j;
  for (const float* a_col = a; a_col != a + k; ++a_col, b_row += n) {
    Batch bl[vectors];
    for (std::size_t h = 0; h < vectors; ++h) bl[h] = Batch::load_unaligned(b_row + h * S::lanes);
    for (std::size_t r = 0; r < rows; ++r) {
      const Batch x(a_col[r * k]);
      for (std::size_t h = 0; h < vectors; ++h) acc[r][h] = S::fma(x, bl[h], acc[r][h]);
    }
  }
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t h = 0; h < vectors; ++h)
      acc[r][h].store_unaligned(out + r * n + j + h * S::lanes);
}

// The last m % matmul_rows rows in one smaller register block, not an axpy per entry (which
// took a few percent of the little model's forward).
template <class Arch, std::size_t... sizes>
constexpr std::array<void (*)(const float*, const float*, float*, std::size_t, std::size_t,
                              std::size_t),
                     sizeof...(sizes)>
block_table(std::index_sequence<sizes...>) {
  return {&matmul_block<Arch, sizes + 1>...};
}

// The column blocks run outermost: one block's k × matmul_vectors vectors of b stay in cache
// while every row block reads them (row blocks outermost streamed all of b from L2 or beyond
// once per row block).
template <class Arch>
void matmul(const float* a, const float* b, float* out, std::size_t m, std::size_t k,
            std::size_t n) {
  using S = Spans<Arch>;
  constexpr std::size_t rows = matmul_rows, width = matmul_vectors * S::lanes;
  constexpr auto remainder_blocks = block_table<Arch>(std::make_index_sequence<rows - 1>());
  const std::size_t full_rows = m - m % rows, full_cols = n - n % width;
  for (std::size_t j = 0; j < full_cols; j += width) {
    for (std::size_t i = 0; i < full_rows; i += rows)
      matmul_block<Arch, rows>(a + i * k, b, out + i * n, k, n, j);
    if (full_rows < m)
      remainder_blocks[m - full_rows - 1](a + full_rows * k, b, out + full_rows * n, k, n, j);
  }
  if (full_cols < n)
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t l = 0; l < k; ++l)
        S::axpy(a[i * k + l], b + l * n + full_cols, out + i * n + full_cols, n - full_cols);
}

template <class Arch>
void dots(const float* q, const float* k, std::size_t ld_k, std::size_t keys, std::size_t d,
          float* out) {
  for (std::size_t j = 0; j < keys; ++j) out[j] = Spans<Arch>::dot(q, k + j * ld_k, d);
}

}  // namespace

// Constant data, so that no code of this file runs before the dispatch has checked the CPU:
// a table built at run time here could be filled with this set's wide stores (it was, with
// AVX-512, and every CPU without it stopped at start-up).
template <class Arch>
constexpr Kernels table{Arch::name(),
                        FlashBlock<Arch>::row_group,
                        FlashBlock<Arch>::key_group,
                        &FlashBlock<Arch>::value_width,
                        &FlashBlock<Arch>::packed_floats,
                        &FlashBlock<Arch>::pack_values,
                        &matmul<Arch>,
                        &dots<Arch>,
                        &Spans<Arch>::dot,
                        &Spans<Arch>::axpy,
                        &Spans<Arch>::sum,
                        &Spans<Arch>::scale,
                        &Spans<Arch>::max_of,
                        &Spans<Arch>::all_finite,
                        &Spans<Arch>::max_abs,
                        &Spans<Arch>::exp_shifted,
                        &Spans<Arch>::gelu,
                        &FlashSpan<Arch>::query_span};

template <class Arch>
const Kernels& kernels_for(Arch) {
  return table<Arch>;
}

template const Kernels& kernels_for(xsimd::default_arch);

}  // namespace attnlab::simd
