#include "attnlab/random.hpp"

#include <cmath>
#include <numbers>
#include <string>

#include "attnlab/limits.hpp"
#include "base/validate.hpp"

namespace attnlab {

std::uint64_t splitmix64_mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::uint64_t NormalStream::next_bits() { return splitmix64_mix(state_ += 0x9e3779b97f4a7c15ULL); }

float NormalStream::next() {
  if (has_spare_) {
    has_spare_ = false;
    return spare_;
  }
  constexpr double unit = 1.0 / 9007199254740992.0;                       // 2⁻⁵³
  const double u1 = static_cast<double>((next_bits() >> 11) + 1) * unit;  // (0, 1]: log is finite
  const double u2 = static_cast<double>(next_bits() >> 11) * unit;        // [0, 1)
  const double radius = std::sqrt(-2.0 * std::log(u1));
  const double angle = 2.0 * std::numbers::pi * u2;
  spare_ = static_cast<float>(radius * std::sin(angle));
  has_spare_ = true;
  return static_cast<float>(radius * std::cos(angle));
}

Result<Matrix> normal_matrix(std::size_t rows, std::size_t cols, std::uint64_t seed) {
  if (auto p = validate::count_within("rows", rows, 1, limits::normal_values)) return *p;
  if (auto p = validate::count_within("cols", cols, 1, limits::normal_values)) return *p;
  if (rows > limits::normal_values / cols)
    return Error{ErrorCode::too_large, "normal matrix of " + std::to_string(rows) + "×" +
                                           std::to_string(cols) + " has more than " +
                                           std::to_string(limits::normal_values) +
                                           " values (rows·cols)"};
  Matrix m(rows, cols);
  NormalStream stream(seed);
  for (float& x : m.data) x = stream.next();
  return m;
}

}  // namespace attnlab
