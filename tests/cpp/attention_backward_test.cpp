// attention_backward() against central finite differences of the float64 loss
// L = Σ dO ⊙ O, with O from reference_attention (float64, written apart from the core):
// plain, causal, key padding, an explicit mask, temperature ≠ 1, an explicit scale, all of
// them at once, fully masked rows; and its errors. flash_attention_backward() against the
// same finite differences, and against attention_backward() across tiles, heads and sequences.
#include "attnlab/attention_backward.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>
#include <string>

#include "attnlab/limits.hpp"
#include "reference_attention.hpp"
#include "test_support.hpp"

using attnlab::AttentionOptions;
using attnlab::BoolMatrix;
using attnlab::ErrorCode;
using attnlab::Matrix;
using attnlab::test::MatrixD;

namespace {

struct Problem {
  MatrixD q, k, v, d_out;  // (n_q, d_k), (n_k, d_k), (n_k, d_v), (n_q, d_v)
};

Problem random_problem(std::size_t n_q, std::size_t n_k, std::size_t d_k, std::size_t d_v,
                       std::uint32_t seed) {
  const auto qkv = attnlab::test::random_qkv(n_q, n_k, d_k, d_v, seed);
  return {qkv.q.cast<double>(), qkv.k.cast<double>(), qkv.v.cast<double>(),
          attnlab::test::random_matrix(n_q, d_v, seed + 3).cast<double>()};
}

// L = Σ dO ⊙ O in float64, so ∂L/∂O = dO.
double loss(const Problem& p, const AttentionOptions& options) {
  const MatrixD out = attnlab::test::reference_attention(p.q, p.k, p.v, options).output;
  double sum = 0;
  for (std::size_t i = 0; i < out.data.size(); ++i) sum += p.d_out.data[i] * out.data[i];
  return sum;
}

// ∂L/∂x for every entry x of p.*which, by central differences (error O(h²) + rounding/h).
MatrixD finite_differences(Problem p, MatrixD Problem::*which, const AttentionOptions& options) {
  constexpr double h = 1e-6;
  MatrixD& m = p.*which;
  MatrixD grad(m.rows, m.cols);
  for (std::size_t i = 0; i < m.data.size(); ++i) {
    const double x = m.data[i];
    m.data[i] = x + h;
    const double up = loss(p, options);
    m.data[i] = x - h;
    const double down = loss(p, options);
    m.data[i] = x;
    grad.data[i] = (up - down) / (2 * h);
  }
  return grad;
}

// max |got − expected| / max |expected|: relative to the gradient's size, as single entries
// near zero have no meaningful relative error.
double relative_error(const Matrix& got, const MatrixD& expected) {
  double largest = 0;
  for (double x : expected.data) largest = std::max(largest, std::abs(x));
  return attnlab::test::max_abs_diff(got, expected) / std::max(largest, 1e-12);
}

attnlab::AttentionGradients backward(const Problem& p, const AttentionOptions& options) {
  const auto g = attnlab::attention_backward(p.q.cast<float>(), p.k.cast<float>(),
                                             p.v.cast<float>(), p.d_out.cast<float>(), options);
  REQUIRE(g);
  return g.value();
}

void check_gradients(const Problem& p, const AttentionOptions& options,
                     const attnlab::AttentionGradients& g) {
  CHECK(relative_error(g.dq, finite_differences(p, &Problem::q, options)) <= 1e-4);
  CHECK(relative_error(g.dk, finite_differences(p, &Problem::k, options)) <= 1e-4);
  CHECK(relative_error(g.dv, finite_differences(p, &Problem::v, options)) <= 1e-4);
}

void check_against_finite_differences(const Problem& p, const AttentionOptions& options) {
  check_gradients(p, options, backward(p, options));
}

// Query i may attend to key j when (i + 2j) % 3 != 0, or j = i so no row is fully masked.
BoolMatrix patterned_mask(std::size_t n_q, std::size_t n_k) {
  BoolMatrix mask(n_q, n_k);
  for (std::size_t i = 0; i < n_q; ++i)
    for (std::size_t j = 0; j < n_k; ++j) mask(i, j) = (i + 2 * j) % 3 != 0 || i == j;
  return mask;
}

}  // namespace

TEST_CASE("backward gradients match finite differences of L = sum dO * O", "[backward]") {
  const Problem p = random_problem(5, 6, 4, 3, 17);
  AttentionOptions options;
  SECTION("plain") {}
  SECTION("causal") { options.causal = true; }
  SECTION("key padding") { options.key_padding = {false, true, false, false, true, false}; }
  SECTION("explicit mask") { options.mask = patterned_mask(5, 6); }
  SECTION("temperature 0.5") { options.temperature = 0.5f; }
  SECTION("temperature 2") { options.temperature = 2.0f; }
  SECTION("explicit scale") { options.scale = 0.8f; }
  SECTION("everything at once") {
    options.causal = true;
    options.key_padding = {false, false, true, false, false, false};
    options.mask = patterned_mask(5, 6);
    options.scale = 0.7f;
    options.temperature = 1.5f;
  }
  check_against_finite_differences(p, options);
}

TEST_CASE("backward with more queries than keys and wide values", "[backward]") {
  AttentionOptions options;
  options.causal = GENERATE(false, true);
  check_against_finite_differences(random_problem(7, 3, 2, 5, 29), options);
}

TEST_CASE("padding keys get zero dK and dV rows", "[backward]") {
  const Problem p = random_problem(4, 5, 3, 2, 41);
  AttentionOptions options;
  options.key_padding = {false, false, true, false, false};
  const auto g = backward(p, options);
  for (std::size_t c = 0; c < g.dk.cols; ++c) CHECK(g.dk(2, c) == 0.0f);
  for (std::size_t c = 0; c < g.dv.cols; ++c) CHECK(g.dv(2, c) == 0.0f);
}

TEST_CASE("a fully masked row (zero output) has zero gradient", "[backward]") {
  const Problem p = random_problem(4, 5, 3, 2, 53);
  AttentionOptions options;
  SECTION("by the mask") {
    BoolMatrix mask(4, 5, 1);
    for (std::size_t j = 0; j < 5; ++j) mask(2, j) = 0;
    options.mask = mask;
    const auto g = backward(p, options);
    for (std::size_t c = 0; c < g.dq.cols; ++c) CHECK(g.dq(2, c) == 0.0f);
    check_against_finite_differences(p, options);
  }
  SECTION("by causality and padding: query 0 sees only key 0, a padding key") {
    options.causal = true;
    options.key_padding = {true, false, false, false, false};
    const auto g = backward(p, options);
    for (std::size_t c = 0; c < g.dq.cols; ++c) CHECK(g.dq(0, c) == 0.0f);
    check_against_finite_differences(p, options);
  }
  SECTION("every row") {
    options.mask = BoolMatrix(4, 5, 0);
    const auto g = backward(p, options);
    for (const Matrix* m : {&g.dq, &g.dk, &g.dv})
      CHECK(std::all_of(m->data.begin(), m->data.end(), [](float x) { return x == 0.0f; }));
  }
}

TEST_CASE("backward errors name the offending input", "[backward]") {
  const auto qkv = attnlab::test::random_qkv(3, 4, 2, 5, 7);
  const Matrix d_out = attnlab::test::random_matrix(3, 5, 8);
  const auto error_of = [&](const Matrix& q, const Matrix& k, const Matrix& v, const Matrix& dO,
                            const AttentionOptions& options = {}) {
    const auto g = attnlab::attention_backward(q, k, v, dO, options);
    REQUIRE_FALSE(g);
    return g.error();
  };

  auto e = error_of(qkv.q, qkv.k, qkv.v, Matrix(4, 5, 0.0f));
  CHECK(e.code == ErrorCode::shape_mismatch);
  CHECK_THAT(e.message, Catch::Contains("dO (4×5)") && Catch::Contains("Q (3×2)"));

  e = error_of(qkv.q, qkv.k, qkv.v, Matrix(3, 2, 0.0f));
  CHECK(e.code == ErrorCode::shape_mismatch);
  CHECK_THAT(e.message, Catch::Contains("dO (3×2)") && Catch::Contains("V (4×5)"));

  Matrix nan_d_out = d_out;
  nan_d_out(1, 3) = std::numeric_limits<float>::quiet_NaN();
  e = error_of(qkv.q, qkv.k, qkv.v, nan_d_out);
  CHECK(e.code == ErrorCode::non_finite);
  CHECK_THAT(e.message, Catch::Contains("dO (3×5) has NaN at row 2, column 4"));

  e = error_of(qkv.q, qkv.v, qkv.v, d_out);
  CHECK(e.code == ErrorCode::shape_mismatch);
  CHECK_THAT(e.message, Catch::Contains("Q (3×2)") && Catch::Contains("K (4×5)"));

  AttentionOptions cold;
  cold.temperature = 0.0f;
  CHECK(error_of(qkv.q, qkv.k, qkv.v, d_out, cold).code == ErrorCode::invalid_argument);

  const std::size_t too_many = attnlab::limits::attention_tokens + 1;
  e = error_of(Matrix(too_many, 2, 0.0f), qkv.k, qkv.v, Matrix(too_many, 5, 0.0f));
  CHECK(e.code == ErrorCode::too_large);

  // Finite but near float32's largest: the products of the backward overflow.
  e = error_of(qkv.q, qkv.k, Matrix(4, 5, 1e30f), Matrix(3, 5, 1e30f));
  CHECK(e.code == ErrorCode::non_finite);
  CHECK_THAT(e.message, Catch::Contains("too large for float32"));
}

namespace {

// Rows [row, row + rows) and columns [col, col + cols) of m: one (sequence, head) slice.
Matrix block(const Matrix& m, std::size_t row, std::size_t rows, std::size_t col,
             std::size_t cols) {
  Matrix out(rows, cols);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c) out(r, c) = m(row + r, col + c);
  return out;
}

}  // namespace

TEST_CASE("the flash backward matches finite differences of L = sum dO * O", "[backward]") {
  const Problem p = random_problem(5, 6, 4, 3, 61);
  attnlab::LongAttentionOptions flash;
  flash.causal = GENERATE(false, true);
  flash.scale = GENERATE(std::optional<float>{}, std::optional<float>{0.8f});
  AttentionOptions options;
  options.causal = flash.causal;
  options.scale = flash.scale;
  const auto g = attnlab::flash_attention_backward(p.q.cast<float>(), p.k.cast<float>(),
                                                   p.v.cast<float>(), p.d_out.cast<float>(), flash);
  REQUIRE(g);
  check_gradients(p, options, g.value());
}

TEST_CASE("the flash backward is the direct backward across tiles, heads and sequences",
          "[backward]") {
  // 150 queries and 130 keys cross the tiles at uneven places: Br x Bc is 64 x 64 for d = 8
  // and 64 x 16 for d = 128 (tiling.hpp), so some tiles straddle the causal diagonal.
  const std::size_t d = GENERATE(8, 128);
  const std::size_t n_q = 150, n_k = 130, d_v = 4;
  attnlab::LongAttentionOptions flash;
  flash.causal = GENERATE(false, true);
  flash.heads = GENERATE(1, 2);
  flash.batch = GENERATE(1, 2);
  CAPTURE(d, flash.causal, flash.heads, flash.batch);
  const auto heads = static_cast<std::size_t>(flash.heads);
  const auto qkv =
      attnlab::test::random_qkv(flash.batch * n_q, flash.batch * n_k, heads * d, heads * d_v, 71);
  const Matrix d_out = attnlab::test::random_matrix(flash.batch * n_q, heads * d_v, 74);
  const auto g = attnlab::flash_attention_backward(qkv.q, qkv.k, qkv.v, d_out, flash);
  REQUIRE(g);

  AttentionOptions options;
  options.causal = flash.causal;
  for (std::size_t b = 0; b < flash.batch; ++b)
    for (std::size_t h = 0; h < heads; ++h) {
      const auto direct = attnlab::attention_backward(
          block(qkv.q, b * n_q, n_q, h * d, d), block(qkv.k, b * n_k, n_k, h * d, d),
          block(qkv.v, b * n_k, n_k, h * d_v, d_v), block(d_out, b * n_q, n_q, h * d_v, d_v),
          options);
      REQUIRE(direct);
      CAPTURE(b, h);
      CHECK(relative_error(block(g.value().dq, b * n_q, n_q, h * d, d),
                           direct.value().dq.cast<double>()) <= 1e-5);
      CHECK(relative_error(block(g.value().dk, b * n_k, n_k, h * d, d),
                           direct.value().dk.cast<double>()) <= 1e-5);
      CHECK(relative_error(block(g.value().dv, b * n_k, n_k, h * d_v, d_v),
                           direct.value().dv.cast<double>()) <= 1e-5);
    }
}

TEST_CASE("flash backward errors name the offending input", "[backward]") {
  const auto qkv = attnlab::test::random_qkv(4, 4, 4, 2, 81);
  auto g = attnlab::flash_attention_backward(qkv.q, qkv.k, qkv.v, Matrix(4, 3, 0.0f));
  REQUIRE_FALSE(g);
  CHECK(g.error().code == ErrorCode::shape_mismatch);
  CHECK_THAT(g.error().message, Catch::Contains("dO (4×3)") && Catch::Contains("V (4×2)"));

  attnlab::LongAttentionOptions three_heads;
  three_heads.heads = 3;
  g = attnlab::flash_attention_backward(qkv.q, qkv.k, qkv.v, Matrix(4, 2, 0.0f), three_heads);
  REQUIRE_FALSE(g);
  CHECK(g.error().code == ErrorCode::invalid_argument);
}
