// Float16, the shipped weights' format: every half against the standard's definition, and
// rounding to nearest with ties to even at every midpoint.
#include <catch2/catch.hpp>
#include <cmath>

#include "attnlab/float16.hpp"

using namespace attnlab;

namespace {

// The definition (IEEE 754 binary16), in double: sign, 5 exponent bits (bias 15), 10 bits.
double definition(std::uint16_t h) {
  const int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  const double magnitude =
      e == 0 ? m * std::pow(2.0, -24) : (1 + m / 1024.0) * std::pow(2.0, e - 15);
  return (h & 0x8000) ? -magnitude : magnitude;
}

}  // namespace

TEST_CASE("every finite half reads as the standard defines it and rounds back to itself",
          "[model-float16]") {
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    if (((h >> 10) & 0x1f) == 31) continue;  // infinities and NaNs
    const float x = from_float16(static_cast<std::uint16_t>(h));
    REQUIRE(double(x) == definition(static_cast<std::uint16_t>(h)));
    REQUIRE(to_float16(x) == h);
  }
  CHECK(std::isinf(from_float16(0x7c00)));
  CHECK(std::isnan(from_float16(0x7e00)));
}

TEST_CASE("halfway between two halves rounds to the even one; past halfway, up",
          "[model-float16]") {
  for (std::uint16_t h = 0; h < 0x7bff; ++h) {
    const double low = definition(h), high = definition(static_cast<std::uint16_t>(h + 1));
    const auto middle = static_cast<float>((low + high) / 2);  // exact in float
    REQUIRE(double(middle) == (low + high) / 2);
    REQUIRE(to_float16(middle) == ((h & 1) ? h + 1 : h));
    REQUIRE(to_float16(std::nextafter(middle, 1e9f)) == h + 1);
    REQUIRE(to_float16(std::nextafter(middle, 0.0f)) == h);
    REQUIRE(to_float16(-middle) == (((h & 1) ? h + 1 : h) | 0x8000));
  }
}

TEST_CASE("values past the largest half saturate to it", "[model-float16]") {
  CHECK(to_float16(65504.0f) == 0x7bff);
  CHECK(to_float16(65519.0f) == 0x7bff);
  CHECK(to_float16(1e9f) == 0x7bff);
  CHECK(to_float16(-1e9f) == 0xfbff);
}
