// The tile walk against attention() (the stepper's O, ≤ 1e-6) and a float64 reference: its
// output, each tile's scores, the running max and sum after the last tile, the tiles it
// visits and skips, and its errors.
#include "attnlab/flash_walk.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstddef>
#include <limits>

#include "attnlab/attention.hpp"
#include "reference_attention.hpp"
#include "test_support.hpp"

using attnlab::AttentionOptions;
using attnlab::Matrix;
using attnlab::WalkEvent;
using attnlab::WalkOptions;
using attnlab::test::MatrixD;

namespace {

MatrixD to_double(const Matrix& m) {
  MatrixD d(m.rows, m.cols);
  for (std::size_t i = 0; i < m.data.size(); ++i) d.data[i] = m.data[i];
  return d;
}

// The float64 scaled score of query i and key j, -inf when causal hides key j.
double reference_score(const Matrix& q, const Matrix& k, std::size_t i, std::size_t j, double scale,
                       bool causal) {
  if (causal && j > i) return -std::numeric_limits<double>::infinity();
  double dot = 0;
  for (std::size_t t = 0; t < q.cols; ++t) dot += double(q(i, t)) * k(j, t);
  return dot * scale;
}

}  // namespace

TEST_CASE("the tile walk's output is the stepper's O, and its numbers the float64 reference's",
          "[flash-walk]") {
  const std::size_t n = GENERATE(8, 13, 16);
  const std::size_t br = GENERATE(2, 3, 4);
  const std::size_t bc = GENERATE(2, 4);
  const bool causal = GENERATE(false, true);
  CAPTURE(n, br, bc, causal);
  const auto qkv =
      attnlab::test::random_qkv(n, n, 3, 2, static_cast<std::uint32_t>(n * 100 + br * 10 + bc));
  WalkOptions options;
  options.causal = causal;
  options.query_rows = br;
  options.key_rows = bc;
  const auto walk = attnlab::flash_walk(qkv.q, qkv.k, qkv.v, options);
  REQUIRE(walk);

  AttentionOptions plain;
  plain.causal = causal;
  const auto stepper = attnlab::attention(qkv.q, qkv.k, qkv.v, plain);
  REQUIRE(stepper);
  CHECK(attnlab::test::max_abs_diff(walk.value().output, stepper.value().output) <= 1e-6);
  const auto reference = attnlab::test::reference_attention(to_double(qkv.q), to_double(qkv.k),
                                                            to_double(qkv.v), plain);
  CHECK(attnlab::test::max_abs_diff(walk.value().output, reference.output) <= 1e-5);

  const double scale = 1 / std::sqrt(3.0);
  const std::size_t blocks = (n + br - 1) / br, tiles = (n + bc - 1) / bc;
  std::size_t visits = 0, finishes = 0;
  for (const WalkEvent& e : walk.value().events) {
    if (e.kind == WalkEvent::Kind::finish) {
      ++finishes;
      // After its last tile a row's max and sum are those of its whole row of scores.
      for (std::size_t r = 0; r < e.queries; ++r) {
        const std::size_t i = e.first_query + r;
        double max = -std::numeric_limits<double>::infinity(), sum = 0;
        for (std::size_t j = 0; j < n; ++j)
          max = std::max(max, reference_score(qkv.q, qkv.k, i, j, scale, causal));
        for (std::size_t j = 0; j < n; ++j)
          sum += std::exp(reference_score(qkv.q, qkv.k, i, j, scale, causal) - max);
        CHECK(e.sum[r] == Approx(sum).epsilon(1e-5));
      }
      continue;
    }
    ++visits;
    for (std::size_t r = 0; r < e.queries; ++r) {
      for (std::size_t c = 0; c < e.keys; ++c) {
        const double expected =
            reference_score(qkv.q, qkv.k, e.first_query + r, e.first_key + c, scale, causal);
        if (std::isinf(expected))
          CHECK(std::isinf(e.scores(r, c)));
        else
          CHECK(e.scores(r, c) == Approx(expected).margin(1e-5));
      }
      // The rescale factor is exp(m_old − m_new): 1 when the max stays, below 1 when it rises.
      if (std::isfinite(e.old_max[r]))
        CHECK(e.rescale[r] == Approx(std::exp(double(e.old_max[r]) - e.new_max[r])));
      CHECK(e.new_max[r] >= e.old_max[r]);
    }
  }
  CHECK(finishes == blocks);
  if (!causal)
    CHECK(visits == blocks * tiles);
  else {
    // A causal block visits the tiles up to its last query only.
    std::size_t expected = 0;
    for (std::size_t b = 0; b < blocks; ++b)
      expected += std::min(tiles, (std::min(n, (b + 1) * br) - 1) / bc + 1);
    CHECK(visits == expected);
  }
  CHECK(walk.value().matrix_floats == n * n);
  CHECK(walk.value().tile_floats < walk.value().matrix_floats + 64);  // tiles, not the matrix
}

TEST_CASE("the tile walk refuses tiles out of range, sizes beyond its limits and overflow",
          "[flash-walk]") {
  const Matrix q = attnlab::test::random_matrix(8, 2, 1), k = attnlab::test::random_matrix(8, 2, 2);
  WalkOptions zero, big;
  zero.query_rows = 0;
  big.key_rows = 17;
  CHECK(attnlab::flash_walk(q, k, k, zero).error().code == attnlab::ErrorCode::invalid_argument);
  CHECK(attnlab::flash_walk(q, k, k, big).error().code == attnlab::ErrorCode::invalid_argument);
  const Matrix long_q = attnlab::test::random_matrix(65, 2, 3);
  CHECK(attnlab::flash_walk(long_q, long_q, long_q).error().code == attnlab::ErrorCode::too_large);
  const Matrix huge(2, 2, 1e20f);
  const auto overflow = attnlab::flash_walk(huge, huge, huge);
  REQUIRE_FALSE(overflow);
  CHECK(overflow.error().code == attnlab::ErrorCode::non_finite);
}
