// A C++ caller can build a Matrix whose data is not rows × cols long. Every entry refuses it
// before reading (shape-mismatch, naming the input) instead of reading past the data: under
// AddressSanitizer (the native-asan preset) a missed check is a heap-buffer-overflow here.
// Also the sampled weights' own checks: cells out of range, and a bias that overflows float32.
#include <catch2/catch.hpp>
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include "attnlab/attention.hpp"
#include "attnlab/attention_backward.hpp"
#include "attnlab/error.hpp"
#include "attnlab/flash.hpp"
#include "attnlab/trace.hpp"
#include "test_support.hpp"

namespace {

using attnlab::AttentionOptions;
using attnlab::BoolMatrix;
using attnlab::ErrorCode;
using attnlab::LongAttentionOptions;
using attnlab::Matrix;
using attnlab::test::random_matrix;

// A (rows, cols) matrix holding only `held` values: what a careless caller might pass.
Matrix short_of(std::size_t rows, std::size_t cols, std::size_t held) {
  Matrix m = random_matrix(rows, cols, 7);
  m.data.resize(held);
  m.data.shrink_to_fit();  // so that AddressSanitizer sees the end of the data
  return m;
}

template <class R>
void refused_naming(const R& result, const std::string& name) {
  REQUIRE_FALSE(result.ok());
  CHECK(result.error().code == ErrorCode::shape_mismatch);
  CHECK_THAT(result.error().message, Catch::Contains(name));
}

}  // namespace

TEST_CASE("every entry refuses a matrix whose data is not rows x cols long", "[malformed]") {
  const Matrix q = random_matrix(6, 4, 1), k = random_matrix(6, 4, 2), v = random_matrix(6, 3, 3);
  const Matrix short_q = short_of(6, 4, 4), short_k = short_of(6, 4, 20),
               short_v = short_of(6, 3, 3);

  refused_naming(attnlab::attention(short_q, k, v), "Q");
  refused_naming(attnlab::attention(q, short_k, v), "K");
  refused_naming(attnlab::attention(q, k, short_v), "V");
  refused_naming(attnlab::attention_backward(q, k, v, short_of(6, 3, 2)), "dO");
  refused_naming(attnlab::flash_attention(short_q, k, v), "Q");
  refused_naming(attnlab::naive_attention(q, short_k, v), "K");
  refused_naming(attnlab::sampled_weights(short_q, k, {0}, {0}, 0), "Q");

  // A 100,000 × 64 Q that holds 64 floats: refused, not read.
  refused_naming(attnlab::flash_attention(short_of(100000, 64, 64), random_matrix(8, 64, 4),
                                          random_matrix(8, 64, 5)),
                 "Q");

  AttentionOptions bias;
  bias.bias = short_of(6, 6, 30);
  refused_naming(attnlab::attention(q, k, v, bias), "bias");
  LongAttentionOptions flash_bias;
  flash_bias.bias = short_of(6, 6, 30);
  refused_naming(attnlab::flash_attention(q, k, v, flash_bias), "bias");

  AttentionOptions mask;
  mask.mask = BoolMatrix(6, 6, 1);
  mask.mask->data.resize(5);
  refused_naming(attnlab::attention(q, k, v, mask), "mask");

  AttentionOptions past;
  past.past_key = short_of(2, 4, 5);
  past.past_value = random_matrix(2, 3, 6);
  refused_naming(attnlab::attention(q, k, v, past), "pastKey");
  past.past_key = random_matrix(2, 4, 5);
  past.past_value = short_of(2, 3, 1);
  refused_naming(attnlab::attention(q, k, v, past), "pastValue");

  attnlab::TraceInput traced;
  traced.source = attnlab::DirectQKV{short_q, k, v};
  refused_naming(attnlab::trace(traced), "Q");
}

TEST_CASE("sampled_mask checks its cells and rules as sampled_weights does", "[malformed]") {
  LongAttentionOptions o;
  o.causal = true;
  CHECK(attnlab::sampled_mask(4, 5, {0, 3}, {0, 4}, 0, o).ok());
  CHECK(attnlab::sampled_mask(4, 5, {4}, {0}, 0, o).error().code == ErrorCode::invalid_argument);
  CHECK(attnlab::sampled_mask(4, 5, {0}, {5}, 0, o).error().code == ErrorCode::invalid_argument);
  CHECK(attnlab::sampled_mask(4, 5, {0}, {0}, 1, o).error().code == ErrorCode::invalid_argument);
  o.bias = short_of(4, 5, 3);
  CHECK(attnlab::sampled_mask(4, 5, {0}, {0}, 0, o).error().code == ErrorCode::shape_mismatch);
  o.bias = Matrix(4, 6);
  CHECK(attnlab::sampled_mask(4, 5, {0}, {0}, 0, o).error().code == ErrorCode::shape_mismatch);
}

TEST_CASE("sampled weights refuse a bias that overflows float32, as flash does", "[malformed]") {
  // 1e19 · 1e19 = 1e38; plus a bias of 3e38 it passes float32's 3.4e38.
  const Matrix q(1, 1, 1e19f), k(2, 1, std::vector<float>{1e19f, 1.0f});
  LongAttentionOptions o;
  o.scale = 1.0f;
  o.bias = Matrix(1, 2, std::vector<float>{3e38f, 0.0f});
  const auto sampled = attnlab::sampled_weights(q, k, {0}, {0, 1}, 0, o);
  REQUIRE_FALSE(sampled.ok());
  CHECK(sampled.error().code == ErrorCode::non_finite);
  CHECK_FALSE(attnlab::flash_attention(q, k, k, o).ok());

  // Every key pushed below −3.4e38 by the bias, none blocked by a rule: refused, not zeros.
  const Matrix low(1, 1, -1e19f);
  o.bias = Matrix(1, 2, std::vector<float>{-3e38f, -3.3e38f});
  const Matrix both(2, 1, std::vector<float>{1e19f, 1e19f});
  const auto under = attnlab::sampled_weights(low, both, {0}, {0, 1}, 0, o);
  REQUIRE_FALSE(under.ok());
  CHECK(under.error().code == ErrorCode::non_finite);
  CHECK_FALSE(attnlab::flash_attention(low, both, both, o).ok());

  // A −∞ bias is a block, not an overflow: that row is zeros.
  o.bias = Matrix(1, 2, -std::numeric_limits<float>::infinity());
  const auto blocked = attnlab::sampled_weights(q, k, {0}, {0, 1}, 0, o);
  REQUIRE(blocked.ok());
  CHECK(blocked.value()(0, 0) == 0.0f);
  CHECK(blocked.value()(0, 1) == 0.0f);
}
