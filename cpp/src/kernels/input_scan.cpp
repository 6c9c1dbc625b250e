#include "kernels/input_scan.hpp"

#include <algorithm>
#include <cmath>

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
  std::vector<float> maxima;  // (chunks, heads): each chunk's max |value| of each head
  for (const Matrix* m : {&q, k}) {
    if (!m) break;
    // Each sequence in chunks of up to 2^16 values for the workers, a head at a time: a chunk's
    // rows stay in the L2 while its heads are scanned.
    const std::size_t per_sequence = m->rows / o.batch, cols = m->cols, heads_here = cols / d;
    const std::size_t step = std::max<std::size_t>(1, (std::size_t{1} << 16) / (cols + 1));
    const std::size_t chunks = (per_sequence + step - 1) / step;
    float* most = m == &q ? scan.q_max.data() : scan.k_max.data();
    for (std::size_t b = 0; b < o.batch; ++b) {
      maxima.assign(chunks * heads_here, 0.0f);
      parallel_for(chunks, threads, [&](std::size_t c, std::size_t) {
        const std::size_t rows = std::min(step, per_sequence - c * step);
        const float* first = m->row(b * per_sequence + c * step);
        for (std::size_t h = 0; h < heads_here; ++h)
          maxima[c * heads_here + h] = kernels.max_abs(first + h * d, rows, d, cols, nullptr, 0);
      });
      for (std::size_t c = 0; c < chunks; ++c)
        for (std::size_t h = 0; h < heads_here; ++h) {
          const float chunk = maxima[c * heads_here + h];
          scan.finite = scan.finite && !std::isnan(chunk);
          most[b * heads_here + h] = std::max(most[b * heads_here + h], chunk);
        }
    }
  }
  return scan;
}

}  // namespace attnlab
