// sinusoidal_encoding(): pe(p, 2i) = sin(p / 10000^(2i/width)), pe(p, 2i+1) = cos(same).
#include "attnlab/positional.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string>

#include "attnlab/limits.hpp"
#include "reference_attention.hpp"
#include "test_support.hpp"

namespace {

using attnlab::ErrorCode;
using attnlab::Matrix;

Matrix sinusoidal_encoding(std::size_t positions, std::size_t width) {
  auto r = attnlab::sinusoidal_encoding(positions, width);
  REQUIRE(r.ok());
  return std::move(r).value();
}

}  // namespace

TEST_CASE("sinusoidal_encoding has one row per position and one column per feature",
          "[positional]") {
  const std::size_t positions = GENERATE(1, 7, 50);
  const std::size_t width = GENERATE(1, 2, 5, 16);
  CAPTURE(positions, width);
  const Matrix pe = sinusoidal_encoding(positions, width);
  CHECK(pe.rows == positions);
  CHECK(pe.cols == width);
  CHECK(pe.data.size() == positions * width);
}

TEST_CASE("position 0 encodes as sin 0 = 0 in even columns and cos 0 = 1 in odd ones",
          "[positional]") {
  const std::size_t width = GENERATE(1, 4, 7, 64);
  CAPTURE(width);
  const Matrix pe = sinusoidal_encoding(3, width);
  for (std::size_t c = 0; c < width; ++c) {
    CAPTURE(c);
    CHECK(pe(0, c) == (c % 2 == 0 ? 0.0f : 1.0f));
  }
}

TEST_CASE("columns 0 and 1 use the frequency 1: sin(p) and cos(p)", "[positional]") {
  const std::size_t width = GENERATE(2, 4, 9, 128);
  CAPTURE(width);
  const Matrix pe = sinusoidal_encoding(40, width);
  for (std::size_t p = 0; p < 40; ++p) {
    CAPTURE(p);
    CHECK(pe(p, 0) == Approx(std::sin(double(p))).margin(1e-6));
    CHECK(pe(p, 1) == Approx(std::cos(double(p))).margin(1e-6));
  }
}

TEST_CASE("with width 4, columns 2 and 3 use the frequency 1/100", "[positional]") {
  const Matrix pe = sinusoidal_encoding(300, 4);
  for (std::size_t p : {1, 2, 50, 157, 299}) {
    CAPTURE(p);
    CHECK(pe(p, 2) == Approx(std::sin(p / 100.0)).margin(1e-6));
    CHECK(pe(p, 3) == Approx(std::cos(p / 100.0)).margin(1e-6));
  }
}

TEST_CASE("an odd width ends with a lone sine column", "[positional]") {
  const std::size_t width = GENERATE(1, 3, 5, 9);
  CAPTURE(width);
  const Matrix pe = sinusoidal_encoding(20, width);
  REQUIRE(pe.cols == width);
  const double frequency = 1.0 / std::pow(10000.0, double(width - 1) / double(width));
  for (std::size_t p = 0; p < 20; ++p) {
    CAPTURE(p);
    CHECK(pe(p, width - 1) == Approx(std::sin(p * frequency)).margin(1e-6));
  }
}

TEST_CASE("every entry matches the formula in float64", "[positional]") {
  const std::size_t width = GENERATE(1, 6, 7, 33);
  CAPTURE(width);
  const Matrix pe = sinusoidal_encoding(64, width);
  CHECK(attnlab::test::max_abs_diff(pe, attnlab::test::reference_sinusoidal(64, width)) <= 1e-6);
}

TEST_CASE("every entry lies in [-1, 1]", "[positional]") {
  const std::size_t width = GENERATE(3, 64, 511);
  CAPTURE(width);
  const Matrix pe = sinusoidal_encoding(512, width);
  REQUIRE(attnlab::test::all_finite(pe));
  const auto [lowest, highest] = std::minmax_element(pe.data.begin(), pe.data.end());
  CHECK(*lowest >= -1.0f);
  CHECK(*highest <= 1.0f);
}

TEST_CASE("different positions get different encodings", "[positional]") {
  const Matrix pe = sinusoidal_encoding(64, 16);
  double closest = std::numeric_limits<double>::infinity();
  for (std::size_t p = 0; p < pe.rows; ++p)
    for (std::size_t q = p + 1; q < pe.rows; ++q) {
      double distance = 0.0;
      for (std::size_t c = 0; c < pe.cols; ++c) distance += std::abs(pe(p, c) - pe(q, c));
      closest = std::min(closest, distance);
    }
  CHECK(closest > 1e-3);
}

TEST_CASE("sinusoidal_encoding checks its sizes and names the argument", "[positional]") {
  const std::size_t max = attnlab::limits::sinusoidal_max;
  REQUIRE(max == 2048);
  struct Bad {
    std::size_t positions, width;
    ErrorCode code;
    const char* names;
  };
  for (const Bad& bad : {Bad{0, 4, ErrorCode::invalid_argument, "positions"},
                         Bad{4, 0, ErrorCode::invalid_argument, "width"},
                         Bad{max + 1, 4, ErrorCode::too_large, "positions"},
                         Bad{4, max + 1, ErrorCode::too_large, "width"}}) {
    CAPTURE(bad.positions, bad.width);
    const auto r = attnlab::sinusoidal_encoding(bad.positions, bad.width);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == bad.code);
    CHECK(r.error().message.find(bad.names) == 0);
    CHECK(r.error().message.find("from 1 to 2048") != std::string::npos);
  }
  CHECK(attnlab::sinusoidal_encoding(max, 1).ok());
  CHECK(attnlab::sinusoidal_encoding(1, max).ok());
}
