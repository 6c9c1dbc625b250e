// normal_matrix(): the bits against splitmix64's published reference outputs, the numbers
// against Box–Muller written out here, pinned values, statistics and every error.
#include "attnlab/random.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <vector>

#include "attnlab/limits.hpp"

namespace {

using attnlab::ErrorCode;
using attnlab::Matrix;

Matrix normal(std::size_t rows, std::size_t cols, std::uint64_t seed) {
  auto r = attnlab::normal_matrix(rows, cols, seed);
  REQUIRE(r.ok());
  return std::move(r).value();
}

ErrorCode error_code(std::size_t rows, std::size_t cols) {
  const auto r = attnlab::normal_matrix(rows, cols, 1);
  REQUIRE_FALSE(r.ok());
  return r.error().code;
}

constexpr std::uint64_t golden_gamma = 0x9e3779b97f4a7c15ULL;

}  // namespace

TEST_CASE("the bits are splitmix64's reference sequence", "[random]") {
  // The first outputs of Vigna's splitmix64.c seeded with 1234567.
  const std::uint64_t expected[] = {6457827717110365317ULL, 3203168211198807973ULL,
                                    9817491932198370423ULL, 4593380528125082431ULL,
                                    16408922859458223821ULL};
  std::uint64_t state = 1234567;
  for (std::uint64_t want : expected) CHECK(attnlab::splitmix64_mix(state += golden_gamma) == want);
}

TEST_CASE("each pair of values is Box–Muller of two 53-bit uniforms", "[random]") {
  const std::uint64_t seed = 99;
  const Matrix m = normal(2, 3, seed);
  std::uint64_t state = seed;
  for (std::size_t i = 0; i < m.data.size(); i += 2) {
    const double u1 =
        static_cast<double>((attnlab::splitmix64_mix(state += golden_gamma) >> 11) + 1) /
        9007199254740992.0;
    const double u2 = static_cast<double>(attnlab::splitmix64_mix(state += golden_gamma) >> 11) /
                      9007199254740992.0;
    const double r = std::sqrt(-2.0 * std::log(u1));
    const double pi = 3.14159265358979323846;
    CHECK(m.data[i] == Approx(r * std::cos(2 * pi * u2)).epsilon(1e-6));
    CHECK(m.data[i + 1] == Approx(r * std::sin(2 * pi * u2)).epsilon(1e-6));
  }
}

TEST_CASE("normal_matrix is deterministic, seed-dependent and close to N(0, 1)", "[random]") {
  CHECK(normal(3, 5, 42) == normal(3, 5, 42));
  CHECK(normal(3, 5, 42) != normal(3, 5, 43));
  const Matrix shape = normal(3, 5, 42);
  CHECK(shape.rows == 3);
  CHECK(shape.cols == 5);
  // Row-major from one stream: a longer matrix starts with the shorter one.
  const Matrix longer = normal(4, 5, 7);
  const Matrix shorter = normal(3, 5, 7);
  CHECK(std::equal(shorter.data.begin(), shorter.data.end(), longer.data.begin()));

  // 200,000 draws: the standard error of the mean is 0.0022 and of the variance 0.0032,
  // so 0.01 and 0.015 are about 4.5 standard errors.
  const Matrix m = normal(1000, 200, 3);
  double mean = 0, squares = 0;
  for (float x : m.data) mean += x / 200000.0;
  for (float x : m.data) squares += (x - mean) * (x - mean) / 200000.0;
  CHECK(std::abs(mean) < 0.01);
  CHECK(std::abs(squares - 1) < 0.015);
}

TEST_CASE("normal_matrix draws the same numbers in every build", "[random]") {
  // Pinned from the native build; the wasm build runs this same test. Box–Muller runs in
  // double and rounds to float, so libm's last-bit differences do not reach these values.
  const Matrix m = normal(1, 4, 1);
  const std::vector<float> pinned{-0.0282497462f, -1.06561768f, -0.227919519f, 0.0830941722f};
  for (std::size_t i = 0; i < pinned.size(); ++i)
    CHECK(m.data[i] == Approx(pinned[i]).epsilon(1e-7));
}

TEST_CASE("normal_matrix rejects empty and oversized shapes", "[random]") {
  CHECK(error_code(0, 3) == ErrorCode::invalid_argument);
  CHECK(error_code(3, 0) == ErrorCode::invalid_argument);
  const std::size_t n = attnlab::limits::normal_values;
  CHECK(error_code(n + 1, 1) == ErrorCode::too_large);
  CHECK(error_code(1, n + 1) == ErrorCode::too_large);
  CHECK(error_code(2, n / 2 + 1) == ErrorCode::too_large);
  CHECK(error_code(n, n) == ErrorCode::too_large);  // the product would overflow 32 bits
  const auto message = attnlab::normal_matrix(2, n / 2 + 1, 1).error().message;
  CHECK(message.find("rows·cols") != std::string::npos);
  CHECK(attnlab::normal_matrix(2, n / 2, 1).ok());  // exactly at the limit
}
