// IEEE 754 binary16 (half precision): how the model's weights are shipped (half the bytes of
// float32; the model's held-out loss moves in the fifth digit, see the training log).
#pragma once

#include <cstdint>

namespace attnlab {

// x rounded to the nearest half (ties to even), subnormals included; finite values beyond
// ±65504, the largest half, saturate to it (the trainer's weights are checked finite first).
std::uint16_t to_float16(float x);

// The half's value (exponent 31: ±infinity, or NaN, as the standard says).
float from_float16(std::uint16_t h);

}  // namespace attnlab
