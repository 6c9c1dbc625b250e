// Seeded N(0, 1) numbers, the same in every build: the scaling study's draws and the random
// inputs of the page, the scripts and the tests all come from this one generator.
#pragma once

#include <cstddef>
#include <cstdint>

#include "attnlab/error.hpp"
#include "attnlab/matrix.hpp"

namespace attnlab {

// splitmix64's output function: a bijection that scatters nearby inputs (seeds 1, 2, 3 …).
std::uint64_t splitmix64_mix(std::uint64_t z);

// A deterministic N(0, 1) stream: splitmix64 for the bits, Box–Muller (in double, rounded
// to float) for the shape. Written here rather than std::normal_distribution, whose output
// differs between standard libraries, so the native and the wasm core draw the same numbers.
class NormalStream {
 public:
  explicit NormalStream(std::uint64_t seed) : state_(seed) {}
  float next();

 private:
  std::uint64_t next_bits();  // splitmix64
  std::uint64_t state_;
  float spare_ = 0.0f;  // Box–Muller makes two numbers at a time
  bool has_spare_ = false;
};

// (rows, cols) filled row by row from NormalStream(seed): a longer matrix starts with the
// values of a shorter one of the same width and seed.
// Errors: invalid_argument (rows or cols 0), too_large (rows·cols above
// limits::normal_values).
Result<Matrix> normal_matrix(std::size_t rows, std::size_t cols, std::uint64_t seed);

}  // namespace attnlab
