#include "attnlab/flash_walk.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "attnlab/limits.hpp"
#include "base/validate.hpp"

namespace attnlab {
namespace {

constexpr float minus_infinity = -std::numeric_limits<float>::infinity();

std::optional<Error> check(const Matrix& q, const Matrix& k, const Matrix& v,
                           const WalkOptions& o) {
  if (auto e = validate::attention_shapes(q, k, v, limits::walk_tokens, limits::walk_features,
                                          "the tile walk"))
    return e;
  if (auto e = validate::count_within("Br (queries per block)", o.query_rows, 1, limits::walk_tile,
                                      ErrorCode::invalid_argument))
    return e;
  if (auto e = validate::count_within("Bc (keys per tile)", o.key_rows, 1, limits::walk_tile,
                                      ErrorCode::invalid_argument))
    return e;
  if (o.scale)
    if (auto e = validate::positive_finite("scale", *o.scale)) return e;
  return validate::finite_qkv(q, k, v);
}

// The visit of query rows [first_query, +queries) to key tile [first_key, +keys): the
// flash kernel's online-softmax update, one number at a time. `m`, `l` and `acc` carry
// the block's running max, sum and unnormalised output from tile to tile.
std::optional<Error> visit(const Matrix& q, const Matrix& k, const Matrix& v, float scale,
                           bool causal, WalkEvent& e, std::vector<float>& m, std::vector<float>& l,
                           Matrix& acc) {
  e.scores = Matrix(e.queries, e.keys, minus_infinity);
  e.old_max = m;
  for (std::size_t r = 0; r < e.queries; ++r) {
    const std::size_t i = e.first_query + r;
    for (std::size_t c = 0; c < e.keys; ++c) {
      const std::size_t j = e.first_key + c;
      if (causal && j > i) continue;  // masked: stays -inf
      float dot = 0.0f;
      for (std::size_t t = 0; t < q.cols; ++t) dot += q(i, t) * k(j, t);
      e.scores(r, c) = dot * scale;
      if (!std::isfinite(e.scores(r, c)))
        return Error{ErrorCode::non_finite,
                     "the tile walk's score of query " + std::to_string(i) + " and key " +
                         std::to_string(j) + " is beyond float32: Q (" + shape_string(q) +
                         ") and K (" + shape_string(k) + ") hold values too large"};
    }
    const float* row = e.scores.row(r);
    m[r] = std::max(m[r], *std::max_element(row, row + e.keys));
  }
  e.new_max = m;
  e.rescale.assign(e.queries, 1.0f);
  for (std::size_t r = 0; r < e.queries; ++r) {
    // Nothing seen yet (both maxima -inf): nothing to shrink.
    if (e.old_max[r] != minus_infinity) e.rescale[r] = std::exp(e.old_max[r] - e.new_max[r]);
    l[r] *= e.rescale[r];
    for (std::size_t c = 0; c < v.cols; ++c) acc(r, c) *= e.rescale[r];
    for (std::size_t c = 0; c < e.keys; ++c) {
      if (e.scores(r, c) == minus_infinity) continue;
      const float p = std::exp(e.scores(r, c) - m[r]);
      l[r] += p;
      for (std::size_t t = 0; t < v.cols; ++t) acc(r, t) += p * v(e.first_key + c, t);
    }
  }
  e.sum = l;
  e.acc = acc;
  return std::nullopt;
}

}  // namespace

Result<FlashWalk> flash_walk(const Matrix& q, const Matrix& k, const Matrix& v,
                             const WalkOptions& options) {
  if (auto e = check(q, k, v, options)) return *e;
  const std::size_t br = options.query_rows, bc = options.key_rows;
  const float scale = options.scale.value_or(1.0f / std::sqrt(static_cast<float>(q.cols)));
  FlashWalk walk;
  walk.output = Matrix(q.rows, v.cols);
  walk.tile_floats = br * q.cols + bc * k.cols + bc * v.cols + br * bc + br * (v.cols + 2);
  walk.matrix_floats = q.rows * k.rows;
  for (std::size_t first_query = 0; first_query < q.rows; first_query += br) {
    const std::size_t queries = std::min(br, q.rows - first_query);
    std::vector<float> m(queries, minus_infinity), l(queries, 0.0f);
    Matrix acc(queries, v.cols);
    for (std::size_t first_key = 0; first_key < k.rows; first_key += bc) {
      // A causal tile wholly after the block's last query is skipped, as the kernel does.
      if (options.causal && first_key > first_query + queries - 1) break;
      WalkEvent e;
      e.query_block = first_query / br;
      e.key_block = first_key / bc;
      e.first_query = first_query;
      e.first_key = first_key;
      e.queries = queries;
      e.keys = std::min(bc, k.rows - first_key);
      if (auto error = visit(q, k, v, scale, options.causal, e, m, l, acc)) return *error;
      walk.events.push_back(std::move(e));
    }
    WalkEvent done;
    done.kind = WalkEvent::Kind::finish;
    done.query_block = first_query / br;
    done.first_query = first_query;
    done.queries = queries;
    done.sum = l;
    done.acc = acc;
    done.output = Matrix(queries, v.cols);
    for (std::size_t r = 0; r < queries; ++r)  // every query sees key 0, so l > 0
      for (std::size_t c = 0; c < v.cols; ++c) {
        done.output(r, c) = acc(r, c) / l[r];
        walk.output(first_query + r, c) = done.output(r, c);
      }
    walk.events.push_back(std::move(done));
  }
  return walk;
}

}  // namespace attnlab
