#include "attnlab/flash.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>
#include <xsimd/xsimd.hpp>

#include "attnlab/kernels.hpp"
#include "attnlab/limits.hpp"
#include "attnlab/tiling.hpp"
#include "parallel.hpp"
#include "simd_spans.hpp"
#include "validate.hpp"

namespace attnlab {
namespace {

using simd::Batch;
using simd::lanes;
using simd::minus_infinity;

// Query rows per micro-kernel pass: 8 rows x 2 batches = 16 accumulators fit AVX-512's 32
// registers; narrower ISAs (16 registers) take 4 rows.
constexpr std::size_t row_group = lanes >= 16 ? 8 : 4;
constexpr std::size_t col_group = 2 * lanes;  // two batches of columns per pass

constexpr std::size_t round_up(std::size_t n, std::size_t m) { return (n + m - 1) / m * m; }

// One head of one sequence: a (batch, head) pair, as strided views into Q, K, V and output.
struct HeadTask {
  const float* q;         // (n_q, d), row stride ld_q
  const float* k;         // (n_k, d), row stride ld_k
  const float* v;         // (n_k, d_v), row stride ld_v
  float* out;             // (n_q, d_v), row stride ld_out
  std::size_t first_row;  // of this sequence in the output, for fully_masked_rows
  std::size_t ld_q, ld_k, ld_v, ld_out;
  std::size_t n_q, n_k, d, d_v;
  float scale;
  bool causal;
};

// A worker's buffers for one query block against one key macro block, padded so the
// micro-kernels run on whole batches and need no scalar tails.
struct Scratch {
  std::size_t rows, keys, width_v;  // padded Br, macro-tile keys, d_v
  std::vector<float> q;             // (rows, d): the query block, pre-multiplied by the scale
  std::vector<float> s;             // (rows, keys): scores, then unnormalised probabilities
  std::vector<float> acc;           // (rows, width_v): the output accumulator
  std::vector<float> m, l;          // (rows): running max and running sum of each row

  Scratch(const tiling::TilePlan& plan, std::size_t d_v)
      : rows(round_up(plan.query_rows, row_group)),
        keys(round_up(plan.cpu_key_rows(), col_group)),
        width_v(round_up(d_v, col_group)),
        q(rows * plan.head_width),
        s(rows * keys),
        acc(rows * width_v),
        m(rows),
        l(rows) {}
};

// K and V of one head task, laid out once for the micro-kernels, padded with zero keys to
// whole column groups. K is transposed into panels of col_group keys, (d, col_group) each
// and contiguous, so scores vectorise over keys and a panel stays in L1 while every query
// row group of a block passes over it. V keeps its rows, padded to width_v.
struct Packed {
  std::size_t keys;       // n_k rounded up to a whole number of column groups
  std::size_t width_v;    // d_v rounded up likewise
  std::vector<float> kt;  // (keys / col_group, d, col_group)
  std::vector<float> v;   // (keys, width_v)
};

Packed pack(const HeadTask& p) {
  Packed k{round_up(p.n_k, col_group), round_up(p.d_v, col_group), {}, {}};
  k.kt.assign(p.d * k.keys, 0.0f);
  k.v.assign(k.keys * k.width_v, 0.0f);
  for (std::size_t j = 0; j < p.n_k; ++j) {
    float* panel = k.kt.data() + (j / col_group) * p.d * col_group + j % col_group;
    for (std::size_t c = 0; c < p.d; ++c) panel[c * col_group] = p.k[j * p.ld_k + c];
    std::copy_n(p.v + j * p.ld_v, p.d_v, k.v.data() + j * k.width_v);
  }
  return k;
}

// s: (rows, cols) = q: (rows, d) · kᵀ, with kᵀ as packed panels (see Packed); rows a multiple
// of 4, cols of col_group.
void block_scores(const float* q, const float* kt, float* s, std::size_t rows, std::size_t cols,
                  std::size_t d, std::size_t ld_s) {
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
void block_aggregate(const float* p, const float* v, float* acc, std::size_t rows, std::size_t keys,
                     std::size_t width, std::size_t ld_p) {
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
void online_softmax_row(float* s, std::size_t allowed, std::size_t cols, float& m, float& l,
                        float* acc_row, std::size_t width) {
  if (allowed == 0) {
    std::fill_n(s, cols, 0.0f);
    return;
  }
  const float m_new = std::max(m, simd::max_of(s, allowed));
  const float correction = std::exp(m - m_new);  // 0 on the first block (m = -inf)
  const float sum = simd::exp_shifted(s, m_new, s, allowed);
  std::fill(s + allowed, s + cols, 0.0f);
  if (correction != 1.0f) simd::scale_span(acc_row, width, correction);
  l = l * correction + sum;
  m = m_new;
}

// Queries [first, first + Br) of one head task against all its (unmasked) keys.
void query_block(const HeadTask& p, const Packed& kv, const tiling::TilePlan& plan,
                 std::size_t first, Scratch& w, std::vector<std::uint8_t>* masked_rows) {
  const std::size_t rows = std::min(plan.query_rows, p.n_q - first);
  const std::size_t rows_padded = round_up(rows, row_group);
  std::fill(w.q.begin(), w.q.end(), 0.0f);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < p.d; ++c)
      w.q[r * p.d + c] = p.q[(first + r) * p.ld_q + c] * p.scale;
  std::fill(w.acc.begin(), w.acc.end(), 0.0f);
  std::fill(w.m.begin(), w.m.end(), minus_infinity);
  std::fill(w.l.begin(), w.l.end(), 0.0f);

  const std::size_t last_query = first + rows - 1;
  const std::size_t key_step = plan.cpu_key_rows();
  for (std::size_t j0 = 0; j0 < p.n_k; j0 += key_step) {
    if (p.causal && j0 > last_query) break;  // this and later key blocks are all in the future
    const std::size_t keys = std::min(key_step, p.n_k - j0);
    const std::size_t cols = round_up(keys, col_group);
    block_scores(w.q.data(), kv.kt.data() + j0 * p.d, w.s.data(), rows_padded, cols, p.d, w.keys);
    for (std::size_t r = 0; r < rows_padded; ++r) {
      const std::size_t query = first + r;
      // Causal: keys j0 … query are allowed, a prefix of the block (the diagonal tile).
      std::size_t allowed = r < rows ? keys : 0;
      if (p.causal && r < rows) allowed = query < j0 ? 0 : std::min(keys, query - j0 + 1);
      online_softmax_row(w.s.data() + r * w.keys, allowed, cols, w.m[r], w.l[r],
                         w.acc.data() + r * w.width_v, w.width_v);
    }
    block_aggregate(w.s.data(), kv.v.data() + j0 * kv.width_v, w.acc.data(), rows_padded, keys,
                    w.width_v, w.keys);
  }

  for (std::size_t r = 0; r < rows; ++r) {
    float* out = p.out + (first + r) * p.ld_out;
    const float* acc = w.acc.data() + r * w.width_v;
    const float inverse = w.l[r] > 0.0f ? 1.0f / w.l[r] : 0.0f;  // no key: zeros, not NaN
    for (std::size_t c = 0; c < p.d_v; ++c) out[c] = acc[c] * inverse;
    if (masked_rows && w.l[r] == 0.0f) (*masked_rows)[p.first_row + first + r] = 1;
  }
}

// The (batch, head) tasks of a call, with the output they write.
std::vector<HeadTask> head_tasks(const Matrix& q, const Matrix& k, const Matrix& v,
                                 const FlashOptions& o, Matrix& out) {
  const auto heads = static_cast<std::size_t>(o.heads);
  const std::size_t d = q.cols / heads, d_v = v.cols / heads;
  const std::size_t n_q = q.rows / o.batch, n_k = k.rows / o.batch;
  const float scale = o.scale.value_or(1.0f / std::sqrt(static_cast<float>(d)));
  std::vector<HeadTask> list;
  for (std::size_t b = 0; b < o.batch; ++b)
    for (std::size_t h = 0; h < heads; ++h)
      list.push_back(HeadTask{q.row(b * n_q) + h * d, k.row(b * n_k) + h * d,
                              v.row(b * n_k) + h * d_v, out.row(b * n_q) + h * d_v, b * n_q, q.cols,
                              k.cols, v.cols, out.cols, n_q, n_k, d, d_v, scale, o.causal});
  return list;
}

std::vector<std::size_t> flagged(const std::vector<std::uint8_t>& flags) {
  std::vector<std::size_t> rows;
  for (std::size_t i = 0; i < flags.size(); ++i)
    if (flags[i]) rows.push_back(i);
  return rows;
}

}  // namespace

std::optional<Error> check_flash_attention(const Matrix& q, const Matrix& k, const Matrix& v,
                                           const FlashOptions& o) {
  if (auto e = validate::attention_shapes(q, k, v, limits::flash_tokens, limits::flash_features,
                                          "the flash kernel"))
    return e;
  if (o.heads < 1 || q.cols % static_cast<std::size_t>(o.heads) != 0 ||
      v.cols % static_cast<std::size_t>(o.heads) != 0)
    return Error{ErrorCode::invalid_argument,
                 "heads (" + std::to_string(o.heads) +
                     ") must be at least 1 and divide the widths of Q (" + shape_string(q) +
                     ") and V (" + shape_string(v) + ")"};
  if (q.cols / static_cast<std::size_t>(o.heads) > tiling::max_head_width)
    return Error{ErrorCode::too_large, "the head width of Q (" + shape_string(q) + ") over " +
                                           std::to_string(o.heads) + " heads is above " +
                                           std::to_string(tiling::max_head_width)};
  if (o.batch < 1 || q.rows % o.batch != 0 || k.rows % o.batch != 0)
    return Error{ErrorCode::invalid_argument,
                 "batch (" + std::to_string(o.batch) +
                     ") must be at least 1 and divide the rows of Q (" + shape_string(q) +
                     ") and K (" + shape_string(k) + ")"};
  if (o.scale)
    if (auto e = validate::positive_finite("scale", *o.scale)) return e;
  return validate::finite_qkv(q, k, v);
}

Result<FlashResult> flash_attention(const Matrix& q, const Matrix& k, const Matrix& v,
                                    const FlashOptions& options) {
  if (auto e = check_flash_attention(q, k, v, options)) return *e;
  FlashResult result{Matrix(q.rows, v.cols), {}};
  const std::vector<HeadTask> list = head_tasks(q, k, v, options, result.output);
  const tiling::TilePlan plan = *tiling::plan_for(list.front().d);
  const std::size_t blocks = (list.front().n_q + plan.query_rows - 1) / plan.query_rows;
  const std::size_t threads = resolve_threads(options.threads);
  std::vector<std::uint8_t> masked(q.rows, 0);

  std::vector<Packed> packed(list.size());
  parallel_for(list.size(), threads,
               [&](std::size_t item, std::size_t) { packed[item] = pack(list[item]); });
  std::vector<Scratch> scratch;
  for (std::size_t w = 0; w < std::min(threads, list.size() * blocks); ++w)
    scratch.emplace_back(plan, list.front().d_v);
  // Items run causal-heavy blocks (the last query blocks) first for better balance.
  parallel_for(list.size() * blocks, threads, [&](std::size_t item, std::size_t worker) {
    const std::size_t block = blocks - 1 - item % blocks;
    const std::size_t task = item / blocks;
    // Fully masked rows are the same in every head: head 0's blocks record them.
    const bool records = task % static_cast<std::size_t>(options.heads) == 0;
    query_block(list[task], packed[task], plan, block * plan.query_rows, scratch[worker],
                records ? &masked : nullptr);
  });
  result.fully_masked_rows = flagged(masked);
  return result;
}

Result<Matrix> sampled_weights(const Matrix& q, const Matrix& k,
                               const std::vector<std::size_t>& rows,
                               const std::vector<std::size_t>& cols, int head,
                               const FlashOptions& options) {
  if (auto e = check_flash_attention(q, k, k, options)) return *e;
  if (options.batch != 1)
    return Error{ErrorCode::invalid_argument, "sampled weights take one sequence (batch 1)"};
  if (head < 0 || head >= options.heads)
    return Error{ErrorCode::invalid_argument, "head " + std::to_string(head) +
                                                  " is not one of the " +
                                                  std::to_string(options.heads) + " heads"};
  for (const auto& [name, indices, limit] :
       {std::tuple{"row", &rows, q.rows}, std::tuple{"column", &cols, k.rows}})
    for (std::size_t index : *indices)
      if (index >= limit)
        return Error{ErrorCode::invalid_argument, std::string(name) + " " + std::to_string(index) +
                                                      " is outside 0 … " +
                                                      std::to_string(limit - 1)};
  const std::size_t d = q.cols / static_cast<std::size_t>(options.heads);
  const std::size_t offset = static_cast<std::size_t>(head) * d;
  const float scale = options.scale.value_or(1.0f / std::sqrt(static_cast<float>(d)));
  Matrix weights(rows.size(), cols.size());  // (rows, cols)
  std::vector<float> scores(k.rows);         // one row's scores over all keys
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const std::size_t i = rows[r];
    const std::size_t keys = options.causal ? std::min(i + 1, k.rows) : k.rows;
    for (std::size_t j = 0; j < keys; ++j)
      scores[j] = simd::dot(q.row(i) + offset, k.row(j) + offset, d) * scale;
    const float max = simd::max_of(scores.data(), keys);
    const float sum = simd::exp_shifted(scores.data(), max, scores.data(), keys);
    for (std::size_t c = 0; c < cols.size(); ++c)
      weights(r, c) = cols[c] < keys ? scores[cols[c]] / sum : 0.0f;
  }
  return weights;
}

Result<FlashResult> naive_attention(const Matrix& q, const Matrix& k, const Matrix& v,
                                    const FlashOptions& options) {
  if (auto e = check_flash_attention(q, k, v, options)) return *e;
  FlashResult result{Matrix(q.rows, v.cols), {}};
  const std::vector<HeadTask> list = head_tasks(q, k, v, options, result.output);
  std::vector<std::uint8_t> masked(q.rows, 0);
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
    if (p.causal)
      for (std::size_t i = 0; i < p.n_q; ++i)
        std::fill(scores.row(i) + std::min(i + 1, p.n_k), scores.row(i) + p.n_k, minus_infinity);
    const kernels::Softmax softmax = kernels::softmax_rows(scores);
    const Matrix out = kernels::matmul(softmax.weights, slice(p.v, p.ld_v, p.n_k, p.d_v));
    for (std::size_t i = 0; i < p.n_q; ++i) {
      std::copy_n(out.row(i), p.d_v, p.out + i * p.ld_out);
      if (item % static_cast<std::size_t>(options.heads) == 0 && softmax.row_sum[i] == 0.0f)
        masked[p.first_row + i] = 1;
    }
  });
  result.fully_masked_rows = flagged(masked);
  return result;
}

}  // namespace attnlab
