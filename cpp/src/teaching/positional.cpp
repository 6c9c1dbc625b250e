#include "attnlab/positional.hpp"

#include <cmath>

#include "attnlab/limits.hpp"
#include "base/validate.hpp"

namespace attnlab {

Result<Matrix> sinusoidal_encoding(std::size_t positions, std::size_t width) {
  if (auto p = validate::count_within("positions", positions, 1, limits::sinusoidal_max)) return *p;
  if (auto p = validate::count_within("width", width, 1, limits::sinusoidal_max)) return *p;
  Matrix pe(positions, width);
  for (std::size_t p = 0; p < positions; ++p)
    for (std::size_t c = 0; c < width; ++c) {
      // Columns 2i and 2i+1 share the frequency 1 / 10000^(2i / width).
      const double pair_start = static_cast<double>(c - c % 2);
      // p / 10000^(2i/width), as p · exp(−2i/width · ln 10000): no pow in the core's wasm.
      const double angle =
          static_cast<double>(p) * std::exp(-pair_start / width * std::log(10000.0));
      pe(p, c) = static_cast<float>(c % 2 == 0 ? std::sin(angle) : std::cos(angle));
    }
  return pe;
}

}  // namespace attnlab
