// sparse_pattern(): BigBird's window, global tokens and random keys (per query and per block)
// and the Sparse Transformer's stride, each checked cell by cell against the rule written
// here; the same seed, the same pattern; the counts; the pattern as attention()'s mask against
// a float64 masked softmax written here; every error.
#include "attnlab/sparse_pattern.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <vector>

#include "attnlab/attention.hpp"
#include "attnlab/limits.hpp"
#include "test_support.hpp"

namespace {

using attnlab::ErrorCode;
using attnlab::SparsePattern;
using attnlab::SparsePatternOptions;
using attnlab::test::ok;

SparsePatternOptions bigbird(std::size_t n, std::size_t window, std::vector<std::size_t> globals,
                             std::size_t random, std::uint64_t seed, std::size_t block = 0) {
  SparsePatternOptions o;
  o.queries = n;
  o.window = window;
  o.global_tokens = std::move(globals);
  o.random = random;
  o.seed = seed;
  o.block_size = block;
  return o;
}

bool contains(const std::vector<std::size_t>& list, std::size_t x) {
  return std::find(list.begin(), list.end(), x) != list.end();
}

ErrorCode error_of(const SparsePatternOptions& o, const char* named) {
  const auto r = attnlab::sparse_pattern(o);
  REQUIRE_FALSE(r.ok());
  INFO(r.error().message);
  CHECK(r.error().message.find(named) != std::string::npos);
  return r.error().code;
}

}  // namespace

TEST_CASE("sparse_pattern: BigBird rows hold their window, their globals and exactly r random keys",
          "[sparse-pattern]") {
  const std::vector<std::size_t> globals{0, 17};
  const std::size_t n = 64, w = 3, r = 4;
  std::vector<attnlab::BasicMatrix<std::uint8_t>> masks;
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    const SparsePattern p = ok(attnlab::sparse_pattern(bigbird(n, w, globals, r, seed)));
    REQUIRE(p.mask.rows == n);
    REQUIRE(p.mask.cols == n);
    for (std::size_t i = 0; i < n; ++i) {
      std::size_t fixed = 0, extra = 0;
      for (std::size_t j = 0; j < n; ++j) {
        const bool rule =
            (i > j ? i - j : j - i) < w || contains(globals, i) || contains(globals, j);
        if (rule) CHECK(p.mask(i, j) == 1);  // the window and the globals, always
        fixed += rule;
        extra += !rule && p.mask(i, j);
      }
      CHECK(extra == (contains(globals, i) ? 0 : r));  // global rows already see every key
      CHECK(p.keys_per_query[i] == fixed + extra);
    }
    masks.push_back(p.mask);
  }
  CHECK(ok(attnlab::sparse_pattern(bigbird(n, w, globals, r, 2))).mask == masks[1]);
  for (std::size_t a = 0; a < masks.size(); ++a)
    for (std::size_t b = a + 1; b < masks.size(); ++b) CHECK_FALSE(masks[a] == masks[b]);
}

TEST_CASE("sparse_pattern: with blockSize, window and random count blocks", "[sparse-pattern]") {
  // 10 blocks of 8 (the last of 4 keys): the own block and its neighbours, 2 random blocks.
  const std::size_t n = 76, b = 8, r = 2;
  const SparsePattern p = ok(attnlab::sparse_pattern(bigbird(n, 2, {}, r, 9, b)));
  for (std::size_t qb = 0; qb * b < n; ++qb) {
    std::size_t random_blocks = 0;
    for (std::size_t kb = 0; kb * b < n; ++kb) {
      // Every cell of a block pair agrees: the block is in or out as a whole.
      const std::uint8_t first = p.mask(qb * b, kb * b);
      for (std::size_t i = qb * b; i < std::min(n, qb * b + b); ++i)
        for (std::size_t j = kb * b; j < std::min(n, kb * b + b); ++j) CHECK(p.mask(i, j) == first);
      const bool near = (qb > kb ? qb - kb : kb - qb) < 2;
      if (near) CHECK(first == 1);
      random_blocks += !near && first;
    }
    CHECK(random_blocks == r);
  }
}

TEST_CASE("sparse_pattern: the Sparse Transformer's stride, and n_q ≠ n_k", "[sparse-pattern]") {
  SparsePatternOptions o;
  o.queries = 12;
  o.keys = 20;
  o.stride = 4;
  o.window = 4;  // the local half of the factorised pattern
  o.head_width = 32;
  const SparsePattern p = ok(attnlab::sparse_pattern(o));
  REQUIRE(p.mask.rows == 12);
  REQUIRE(p.mask.cols == 20);
  std::size_t nonzeros = 0;
  for (std::size_t i = 0; i < 12; ++i)
    for (std::size_t j = 0; j < 20; ++j) {
      const std::size_t gap = i > j ? i - j : j - i;
      CHECK(p.mask(i, j) == (gap < 4 || gap % 4 == 0));
      nonzeros += p.mask(i, j);
    }
  CHECK(p.nonzeros == nonzeros);
  CHECK(p.density == Approx(double(nonzeros) / 240));
  CHECK(p.flops == 4.0 * 32 * nonzeros);  // 2·d for q·k, 2·d for w·v, per allowed cell
  CHECK(p.dense_flops == 4.0 * 32 * 240);
}

TEST_CASE("sparse_pattern as attention()'s mask: masked softmax in float64, and against dense",
          "[sparse-pattern]") {
  const std::size_t n = 48;
  const auto qkv = attnlab::test::random_qkv(n, n, 16, 8, 77);
  const SparsePattern p = ok(attnlab::sparse_pattern(bigbird(n, 4, {0}, 3, 5)));
  attnlab::AttentionOptions masked;
  masked.mask = p.mask;  // true = may attend: no conversion
  const auto sparse = ok(attnlab::attention(qkv.q, qkv.k, qkv.v, masked));
  const auto dense = ok(attnlab::attention(qkv.q, qkv.k, qkv.v));
  double worst = 0, worst_dense = 0;
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<double> e(n, 0.0);
    double sum = 0;
    for (std::size_t j = 0; j < n; ++j) {
      if (!p.mask(i, j)) continue;
      double dot = 0;
      for (std::size_t a = 0; a < 16; ++a) dot += double{qkv.q(i, a)} * qkv.k(j, a);
      sum += e[j] = std::exp(dot / 4);
    }
    for (std::size_t c = 0; c < 8; ++c) {
      double out = 0;
      for (std::size_t j = 0; j < n; ++j) out += e[j] / sum * qkv.v(j, c);
      worst = std::max(worst, std::abs(sparse.output(i, c) - out));
      worst_dense =
          std::max(worst_dense, double{std::abs(sparse.output(i, c) - dense.output(i, c))});
    }
  }
  CHECK(worst <= 1e-5);
  std::printf(
      "sparse_pattern as a mask: output vs float64 %.3g; vs dense max |Δ| %.3g at density "
      "%.3f\n",
      worst, worst_dense, p.density);
}

TEST_CASE("sparse_pattern rejects bad options with their codes", "[sparse-pattern]") {
  CHECK(error_of(bigbird(0, 2, {}, 0, 1), "queries") == ErrorCode::invalid_argument);
  CHECK(error_of(bigbird(attnlab::limits::sparse_tokens + 1, 2, {}, 0, 1), "queries") ==
        ErrorCode::too_large);
  SparsePatternOptions wide = bigbird(4096, 2, {}, 0, 1);
  wide.keys = 4096;
  CHECK(error_of(wide, "cells") == ErrorCode::too_large);
  CHECK(error_of(bigbird(8, 0, {}, 0, 1), "window") == ErrorCode::invalid_argument);
  CHECK(error_of(bigbird(8, 1, {8}, 0, 1), "globalTokens") == ErrorCode::invalid_argument);
  CHECK(error_of(bigbird(8, 1, {}, 9, 1), "random") == ErrorCode::invalid_argument);
  CHECK(error_of(bigbird(8, 1, {}, 3, 1, 4), "random") == ErrorCode::invalid_argument);
  SparsePatternOptions flat = bigbird(8, 1, {}, 0, 1);
  flat.head_width = 0;
  CHECK(error_of(flat, "headWidth") == ErrorCode::invalid_argument);
  // A query with fewer free keys than r takes them all.
  const SparsePattern all = ok(attnlab::sparse_pattern(bigbird(5, 2, {}, 5, 1)));
  CHECK(all.nonzeros == 25);
}
