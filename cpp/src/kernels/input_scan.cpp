#include "kernels/input_scan.hpp"

#include <algorithm>
#include <atomic>

#include "base/parallel.hpp"
#include "kernels/head_tasks.hpp"
#include "kernels/simd_kernels.hpp"

namespace attnlab {

flash_tasks::InputScan flash_tasks::scan_inputs(const Matrix& q, const Matrix& k, const Matrix& v,
                                                const LongAttentionOptions& o,
                                                std::size_t threads) {
  // A chunk: `rows` rows of one sequence of one matrix; Q's and K's take each column's max
  // |value| into a row of `maxima`, V's are only checked.
  struct Chunk {
    const Matrix* m;
    std::size_t batch, first, rows, maxima_at;
  };
  constexpr std::size_t chunk_floats = std::size_t{1} << 16;
  constexpr std::size_t no_maxima = ~std::size_t{0};
  std::vector<Chunk> chunks;
  std::size_t maxima_floats = 0;
  for (const Matrix* m : {&q, &k, &v}) {
    const std::size_t per_sequence = m->rows / o.batch;
    const std::size_t step =
        std::max<std::size_t>(1, chunk_floats / std::max<std::size_t>(1, m->cols));
    for (std::size_t b = 0; b < o.batch; ++b)
      for (std::size_t r = 0; r < per_sequence; r += step) {
        const bool bounded = m != &v;
        chunks.push_back({m, b, b * per_sequence + r, std::min(step, per_sequence - r),
                          bounded ? maxima_floats : no_maxima});
        if (bounded) maxima_floats += m->cols;
      }
  }
  std::vector<float> maxima(maxima_floats, 0.0f);
  std::atomic<bool> finite{true};
  const simd::Kernels& kernels = simd::active();
  parallel_for(chunks.size(), threads, [&](std::size_t i, std::size_t) {
    const Chunk& c = chunks[i];
    const float* rows = c.m->data.data() + c.first * c.m->cols;
    const bool ok = c.maxima_at == no_maxima
                        ? kernels.all_finite(rows, c.rows * c.m->cols)
                        : kernels.column_max_abs(rows, c.rows, c.m->cols, &maxima[c.maxima_at]);
    if (!ok) finite.store(false, std::memory_order_relaxed);
  });

  const auto heads = static_cast<std::size_t>(o.heads);
  const std::size_t kv_heads = heads / group_size(o), d = q.cols / heads;
  InputScan scan{finite.load(), std::vector<float>(o.batch * heads, 0.0f),
                 std::vector<float>(o.batch * kv_heads, 0.0f)};
  for (const Chunk& c : chunks) {
    if (c.maxima_at == no_maxima) continue;
    const bool is_q = c.m == &q;
    const std::size_t count = is_q ? heads : kv_heads;
    float* into = (is_q ? scan.q_max : scan.k_max).data() + c.batch * count;
    for (std::size_t h = 0; h < count; ++h) {
      const float* column = &maxima[c.maxima_at + h * d];
      into[h] = std::max(into[h], *std::max_element(column, column + d));
    }
  }
  return scan;
}

}  // namespace attnlab
