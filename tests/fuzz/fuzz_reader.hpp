// The fuzz targets' decoder: reads the fuzz bytes front to back as small counts and raw
// float32 values (so NaN, infinities, subnormals and huge values all occur).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "attnlab/matrix.hpp"

namespace attnlab::fuzz {

// Past the end every read gives zeros.
class Reader {
 public:
  Reader(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}

  std::uint8_t byte() { return at_ < size_ ? data_[at_++] : 0; }

  float number() {
    std::uint8_t bytes[4] = {byte(), byte(), byte(), byte()};
    float value;
    std::memcpy(&value, bytes, sizeof value);
    return value;
  }

  // A dimension in 0 … max: small shapes, sometimes empty.
  std::size_t dimension(std::size_t max) { return byte() % (max + 1); }

  Matrix matrix(std::size_t rows, std::size_t cols) {
    Matrix m(rows, cols);
    for (float& v : m.data) v = number();
    return m;
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t at_ = 0;
};

}  // namespace attnlab::fuzz
