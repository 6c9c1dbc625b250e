#include "attnlab/float16.hpp"

#include <cmath>
#include <cstring>
#include <limits>

namespace attnlab {
namespace {

// x's bits (std::bit_cast, which Emscripten 3.1.6's libc++ lacks).
std::uint32_t bits_of(float x) {
  std::uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return bits;
}

}  // namespace

std::uint16_t to_float16(float x) {
  const auto sign = static_cast<std::uint32_t>((bits_of(x) >> 16) & 0x8000u);
  const float a = std::fabs(x);
  if (!(a < 65520.0f)) return static_cast<std::uint16_t>(sign | 0x7bffu);  // rounds past 65504
  if (a < 6.103515625e-05f)  // below 2⁻¹⁴: a subnormal, a multiple of 2⁻²⁴ (nearbyint: to even)
    return static_cast<std::uint16_t>(sign |
                                      static_cast<std::uint32_t>(std::nearbyint(a * 16777216.0f)));
  const std::uint32_t bits = bits_of(a);
  std::uint32_t exponent = (bits >> 23) - 127 + 15;
  std::uint32_t mantissa = (bits & 0x7fffffu) >> 13;
  const std::uint32_t dropped = bits & 0x1fffu;  // the 13 bits a half has no room for
  if (dropped > 0x1000u || (dropped == 0x1000u && (mantissa & 1u))) ++mantissa;
  if (mantissa == 0x400u) {  // rounded up into the next power of two
    mantissa = 0;
    ++exponent;
  }
  return static_cast<std::uint16_t>(sign | (exponent << 10) | mantissa);
}

float from_float16(std::uint16_t h) {
  const float sign = (h & 0x8000u) ? -1.0f : 1.0f;
  const int exponent = (h >> 10) & 0x1f;
  const int mantissa = h & 0x3ff;
  if (exponent == 31)
    return mantissa ? std::numeric_limits<float>::quiet_NaN()
                    : sign * std::numeric_limits<float>::infinity();
  if (exponent == 0) return sign * std::ldexp(static_cast<float>(mantissa), -24);
  return sign * std::ldexp(static_cast<float>(mantissa + 1024), exponent - 25);
}

}  // namespace attnlab
