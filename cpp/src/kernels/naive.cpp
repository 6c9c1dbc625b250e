// The naive kernel: the same request as the flash kernel, computed the plain way (whole score
// matrices, one head at a time), the reference the flash kernel is checked and timed against.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "attnlab/flash.hpp"
#include "attnlab/kernels.hpp"
#include "attnlab/limits.hpp"
#include "base/parallel.hpp"
#include "kernels/head_tasks.hpp"
#include "kernels/simd_kernels.hpp"

namespace attnlab {

using simd::HeadTask;
using simd::minus_infinity;

using flash_tasks::head_tasks;
using flash_tasks::output_cols;

namespace {

bool finite(float x) { return std::isfinite(x); }

}  // namespace

Result<LongAttentionResult> naive_attention(const Matrix& q, const Matrix& k, const Matrix& v,
                                            const LongAttentionOptions& options) {
  if (auto e = check_flash_attention(q, k, v, options)) return *e;
  if (auto e = flash_tasks::check_work("the naive kernel", q, k, v, options, limits::naive_scores,
                                       limits::naive_multiply_adds))
    return *e;
  LongAttentionResult result{Matrix(q.rows, output_cols(v, options)), {}};
  const std::vector<HeadTask> list = head_tasks(q, k, v, options, &result.output);
  const auto heads = static_cast<std::size_t>(options.heads);
  std::vector<std::uint8_t> no_weight(heads * q.rows, 0);  // (heads, rows), as in flash
  const auto slice = [](const float* data, std::size_t ld, std::size_t rows, std::size_t cols) {
    Matrix m(rows, cols);
    for (std::size_t r = 0; r < rows; ++r) std::copy_n(data + r * ld, cols, m.row(r));
    return m;
  };
  parallel_for(list.size(), resolve_threads(options.threads), [&](std::size_t item, std::size_t) {
    const HeadTask& p = list[item];
    Matrix scores = kernels::matmul_transposed(slice(p.q, p.ld_q, p.n_q, p.d),
                                               slice(p.k, p.ld_k, p.n_k, p.d));  // (n_q, n_k)
    kernels::scale(scores, p.scale);
    for (std::size_t i = 0; i < p.n_q; ++i) {
      const KeyRange seen = p.band.range(i);
      if (!std::all_of(scores.row(i) + seen.begin, scores.row(i) + seen.end, finite))
        no_weight[item % heads * q.rows + p.first_row + i] = 1;  // see overflow()
    }
    if (p.rules) {  // on the scaled scores
      HeadTask scaled = p;
      scaled.scale = 1.0f;
      simd::apply_score_rules(scaled, scores.data.data(), p.n_k, p.n_q, 1, p.n_k, 0, 0);
    }
    for (std::size_t i = 0; i < p.n_q; ++i) {
      const KeyRange seen = p.band.range(i);
      std::fill(scores.row(i), scores.row(i) + seen.begin, minus_infinity);
      std::fill(scores.row(i) + seen.end, scores.row(i) + p.n_k, minus_infinity);
    }
    const kernels::Softmax softmax = kernels::softmax_rows(scores);
    const Matrix out = kernels::matmul(softmax.weights, slice(p.v, p.ld_v, p.n_k, p.d_v));
    for (std::size_t i = 0; i < p.n_q; ++i) {
      std::copy_n(out.row(i), p.d_v, p.out + i * p.ld_out);
      if (!(softmax.row_sum[i] > 0.0f) && !p.band.range(i).empty())
        no_weight[item % heads * q.rows + p.first_row + i] = 1;
    }
  });
  if (auto e = flash_tasks::overflow("the naive kernel", q, k, v, result.output, no_weight, list,
                                     result.fully_masked_rows, false))
    return *e;
  return result;
}

}  // namespace attnlab
