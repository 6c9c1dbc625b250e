#include "kernels/input_scan.hpp"

#include <algorithm>
#include <atomic>

#include "base/parallel.hpp"
#include "kernels/head_tasks.hpp"
#include "kernels/simd_kernels.hpp"

namespace attnlab {

flash_tasks::InputScan flash_tasks::scan_inputs(const Matrix& q, const Matrix* k,
                                                const LongAttentionOptions& o,
                                                std::size_t threads) {
  const auto heads = static_cast<std::size_t>(o.heads);
  const std::size_t kv_heads = heads / group_size(o), d = q.cols / heads;
  InputScan scan{true, std::vector<float>(o.batch * heads, 0.0f),
                 std::vector<float>(o.batch * kv_heads, 0.0f)};
  const simd::Kernels& kernels = simd::active();
  std::vector<float> maxima;  // (chunks, cols): each chunk's columns' max |value|
  for (const Matrix* m : {&q, k}) {
    if (!m) break;
    // Each sequence in chunks of up to 2^16 values for the workers (one chunk on one thread).
    const std::size_t per_sequence = m->rows / o.batch, cols = m->cols;
    const std::size_t step =
        std::max<std::size_t>(1, one_thread ? per_sequence : (std::size_t{1} << 16) / (cols + 1));
    const std::size_t chunks = (per_sequence + step - 1) / step;
    float* most = m == &q ? scan.q_max.data() : scan.k_max.data();
    for (std::size_t b = 0; b < o.batch; ++b) {
      maxima.assign(chunks * cols, 0.0f);
      std::atomic<bool> finite{true};
      parallel_for(chunks, threads, [&](std::size_t c, std::size_t) {
        const std::size_t rows = std::min(step, per_sequence - c * step);
        if (!kernels.column_max_abs(m->row(b * per_sequence + c * step), rows, cols,
                                    &maxima[c * cols]))
          finite.store(false, std::memory_order_relaxed);
      });
      scan.finite = scan.finite && finite.load();
      const std::size_t heads_here = cols / d;
      for (std::size_t c = 0; c < chunks; ++c)
        for (std::size_t h = 0; h < heads_here; ++h) {
          const float* column = &maxima[c * cols + h * d];
          float& head = most[b * heads_here + h];
          head = std::max(head, *std::max_element(column, column + d));
        }
    }
  }
  return scan;
}

}  // namespace attnlab
