// The float32 SIMD kernels against their scalar twins in attnlab::reference.
#include "attnlab/kernels.hpp"

#include <array>
#include <catch2/catch.hpp>
#include <cfloat>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

#include "attnlab/reference.hpp"
#include "test_support.hpp"

namespace {

using attnlab::Matrix;
using attnlab::test::max_abs_diff;
using attnlab::test::random_matrix;
using attnlab::test::row_sum;
namespace kernels = attnlab::kernels;
namespace reference = attnlab::reference;

constexpr float minus_infinity = -std::numeric_limits<float>::infinity();

// Widths around the SIMD lane counts (4, 8 or 16 floats): the odd ones exercise scalar tails.
constexpr std::array<std::size_t, 10> widths{1, 2, 3, 7, 8, 15, 16, 17, 33, 64};

Matrix absolute(Matrix m) {
  for (float& x : m.data) x = std::abs(x);
  return m;
}

// Rounding-error bound for two float32 sums of `terms` products each: both results lie within
// terms·(ε/2)·(|a|·|b|) of the exact value, so they differ by at most terms·ε·max(|a|·|b|).
double product_tolerance(const Matrix& abs_products, std::size_t terms) {
  double largest = 0.0;
  for (float x : abs_products.data) largest = std::max(largest, static_cast<double>(x));
  return static_cast<double>(terms) * FLT_EPSILON * largest + 1e-30;
}

// The kernel's softmax agrees with the scalar twin entry by entry.
void check_softmax_matches_reference(const Matrix& logits) {
  const kernels::Softmax got = kernels::softmax_rows(logits);
  const reference::Softmax<float> want = reference::softmax_rows(logits);
  CHECK(max_abs_diff(got.exponentials, want.exponentials) <= 1e-6);
  CHECK(max_abs_diff(got.weights, want.weights) <= 1e-6);
  CHECK(got.row_max == want.row_max);
  REQUIRE(got.row_sum.size() == want.row_sum.size());
  for (std::size_t i = 0; i < want.row_sum.size(); ++i)
    CHECK(got.row_sum[i] == Approx(want.row_sum[i]).epsilon(1e-6).margin(1e-6));
}

}  // namespace

TEST_CASE("matmul and matmul_transposed match the scalar reference for every width", "[kernels]") {
  const std::size_t inner = GENERATE(from_range(widths));
  const std::size_t width = GENERATE(from_range(widths));
  const bool transposed = GENERATE(false, true);  // b: (inner, width), or (width, inner) read as bᵀ
  // Rows: fewer than, as many as and more than a register block (4 natively, 6 in wasm).
  const std::size_t rows = GENERATE(1, 5, 6, 7, 13);
  CAPTURE(inner, width, transposed, rows);
  const auto seed = [&](std::uint32_t base, std::size_t size) {
    return base + (transposed ? 20u : 0u) + static_cast<std::uint32_t>(size);
  };
  const Matrix a = random_matrix(rows, inner, seed(11, inner + rows));
  const Matrix b = transposed ? random_matrix(width, inner, seed(27, width))
                              : random_matrix(inner, width, seed(23, width));
  const auto want = [&](const auto& x, const auto& y) {
    return transposed ? reference::matmul_transposed(x, y) : reference::matmul(x, y);
  };

  const Matrix got = transposed ? kernels::matmul_transposed(a, b) : kernels::matmul(a, b);
  REQUIRE(got.rows == rows);
  REQUIRE(got.cols == width);
  const double tolerance = product_tolerance(want(absolute(a), absolute(b)), inner);
  CHECK(max_abs_diff(got, want(a, b)) <= tolerance);
}

TEST_CASE("matmul_transposed equals matmul with the transpose", "[kernels]") {
  const std::size_t inner = GENERATE(from_range(widths));
  CAPTURE(inner);
  const Matrix a = random_matrix(4, inner, 5);
  const Matrix b = random_matrix(6, inner, 6);
  Matrix b_transposed(inner, 6);
  for (std::size_t r = 0; r < b.rows; ++r)
    for (std::size_t c = 0; c < b.cols; ++c) b_transposed(c, r) = b(r, c);

  const double tolerance =
      product_tolerance(reference::matmul_transposed(absolute(a), absolute(b)), inner);
  CHECK(max_abs_diff(kernels::matmul_transposed(a, b), kernels::matmul(a, b_transposed)) <=
        tolerance);
}

TEST_CASE("row_sums matches the scalar reference for every width", "[kernels]") {
  const std::size_t width = GENERATE(from_range(widths));
  CAPTURE(width);
  const Matrix x = random_matrix(5, width, 67 + static_cast<std::uint32_t>(width));

  const std::vector<float> got = kernels::row_sums(x);
  const std::vector<float> want = reference::row_sums(x);
  REQUIRE(got.size() == x.rows);
  REQUIRE(want.size() == x.rows);
  const std::vector<float> abs_sums = reference::row_sums(absolute(x));
  for (std::size_t i = 0; i < x.rows; ++i) {
    CAPTURE(i);
    CHECK(std::abs(got[i] - want[i]) <= width * FLT_EPSILON * abs_sums[i]);
  }
}

TEST_CASE("scale multiplies every entry exactly like the scalar reference", "[kernels]") {
  const std::size_t width = GENERATE(from_range(widths));
  const std::size_t rows = GENERATE(1, 3);
  const float factor = GENERATE(0.37f, -2.5f, 1.0f / 3.0f);
  CAPTURE(width, rows, factor);
  const Matrix original = random_matrix(rows, width, 101);

  Matrix got = original;
  kernels::scale(got, factor);
  Matrix want = original;
  reference::scale(want, factor);
  // One correctly rounded multiplication per entry on both sides: bit-identical results.
  CHECK(got == want);
  CHECK(max_abs_diff(got, original) > 0.0);
}

TEST_CASE("gelu matches the float64 tanh form for every width and into its tails", "[kernels]") {
  const std::size_t width = GENERATE(from_range(widths));
  const float spread = GENERATE(1.0f, 6.0f);  // 6: |x| up to 6, where tanh saturates
  CAPTURE(width, spread);
  const Matrix x = random_matrix(4, width, 401 + static_cast<std::uint32_t>(width), spread);
  Matrix got = x;
  kernels::gelu(got);
  attnlab::BasicMatrix<double> want(x.rows, x.cols);
  for (std::size_t i = 0; i < x.data.size(); ++i) want.data[i] = x.data[i];
  reference::gelu(want);
  for (std::size_t i = 0; i < x.data.size(); ++i) {
    CAPTURE(x.data[i]);
    // tanh within 2.4e-7 absolute, halved by 0.5·u, plus a few float32 roundings of the result
    const double u = std::abs(static_cast<double>(x.data[i]));
    CHECK(std::abs(got.data[i] - want.data[i]) <=
          1.2e-7 * u + 4 * FLT_EPSILON * std::abs(want.data[i]) + 1e-30);
  }
}

TEST_CASE("softmax_rows matches the scalar reference for every width", "[kernels]") {
  const std::size_t width = GENERATE(from_range(widths));
  const float spread = GENERATE(1.0f, 4.0f);
  CAPTURE(width, spread);
  const Matrix logits = random_matrix(6, width, 211 + static_cast<std::uint32_t>(width), spread);

  check_softmax_matches_reference(logits);
  const kernels::Softmax got = kernels::softmax_rows(logits);
  for (std::size_t i = 0; i < logits.rows; ++i) CHECK(row_sum(got.weights, i) == Approx(1.0));
}

TEST_CASE("softmax_rows subtracts the row max, so large logits do not overflow", "[kernels]") {
  const std::size_t width = GENERATE(from_range(widths));
  CAPTURE(width);
  Matrix logits = random_matrix(3, width, 307);
  for (float& x : logits.data) x += 1000.0f;  // exp(1000) overflows float32

  check_softmax_matches_reference(logits);
  const kernels::Softmax got = kernels::softmax_rows(logits);
  CHECK(attnlab::test::all_finite(got.weights));
  for (std::size_t i = 0; i < logits.rows; ++i) CHECK(row_sum(got.weights, i) == Approx(1.0));
}

TEST_CASE("softmax_rows gives -inf entries a weight of exactly 0", "[kernels]") {
  const std::size_t width = GENERATE(from_range(widths));
  CAPTURE(width);
  Matrix logits = random_matrix(4, width, 401);
  for (std::size_t r = 0; r < logits.rows; ++r)
    for (std::size_t c = 1; c < width; c += 3) logits(r, c) = minus_infinity;

  check_softmax_matches_reference(logits);
  const kernels::Softmax got = kernels::softmax_rows(logits);
  for (std::size_t r = 0; r < logits.rows; ++r) {
    for (std::size_t c = 0; c < width; ++c) {
      CAPTURE(r, c);
      if (logits(r, c) == minus_infinity) {
        CHECK(got.weights(r, c) == 0.0f);
        CHECK(got.exponentials(r, c) == 0.0f);
      } else {
        CHECK(got.weights(r, c) > 0.0f);
      }
    }
    CHECK(row_sum(got.weights, r) == Approx(1.0));
  }
}

TEST_CASE("softmax_rows turns a row of only -inf into zeros, max -inf and sum 0", "[kernels]") {
  const std::size_t width = GENERATE(from_range(widths));
  CAPTURE(width);
  Matrix logits = random_matrix(3, width, 503);
  for (std::size_t c = 0; c < width; ++c) logits(1, c) = minus_infinity;

  const kernels::Softmax got = kernels::softmax_rows(logits);
  CHECK(got.row_max[1] == minus_infinity);
  CHECK(got.row_sum[1] == 0.0f);
  for (std::size_t c = 0; c < width; ++c) {
    CAPTURE(c);
    CHECK(got.weights(1, c) == 0.0f);
    CHECK(got.exponentials(1, c) == 0.0f);
  }
  // The neighbouring rows are untouched by the masked one.
  CHECK(row_sum(got.weights, 0) == Approx(1.0));
  CHECK(row_sum(got.weights, 2) == Approx(1.0));
  check_softmax_matches_reference(logits);
}

TEST_CASE("softmax_rows keeps the documented shapes", "[kernels]") {
  const Matrix logits = random_matrix(3, 17, 601);
  const kernels::Softmax got = kernels::softmax_rows(logits);
  CHECK(got.weights.rows == 3);
  CHECK(got.weights.cols == 17);
  CHECK(got.exponentials.rows == 3);
  CHECK(got.exponentials.cols == 17);
  CHECK(got.row_max.size() == 3);
  CHECK(got.row_sum.size() == 3);
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < 17; ++j)
      CHECK(got.weights(i, j) == Approx(got.exponentials(i, j) / got.row_sum[i]).margin(1e-7));
}

TEST_CASE("simd_arch names an instruction set", "[kernels]") {
  const std::string arch = kernels::simd_arch();
  CHECK_FALSE(arch.empty());
}
