// A dense row-major matrix: the one data type every layer of attnlab shares.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace attnlab {

template <class T>
struct BasicMatrix {
  std::size_t rows = 0;
  std::size_t cols = 0;
  std::vector<T> data;  // rows * cols values, row after row

  BasicMatrix() = default;
  BasicMatrix(std::size_t rows_, std::size_t cols_, T fill = T{})
      : rows(rows_), cols(cols_), data(rows_ * cols_, fill) {}
  BasicMatrix(std::size_t rows_, std::size_t cols_, std::vector<T> values)
      : rows(rows_), cols(cols_), data(std::move(values)) {}

  T& operator()(std::size_t r, std::size_t c) { return data[r * cols + c]; }
  const T& operator()(std::size_t r, std::size_t c) const { return data[r * cols + c]; }
  T* row(std::size_t r) { return data.data() + r * cols; }
  const T* row(std::size_t r) const { return data.data() + r * cols; }
  bool empty() const { return rows == 0 || cols == 0; }

  // Builds a matrix from nested rows; all rows must have the same length.
  static BasicMatrix from_rows(const std::vector<std::vector<T>>& nested) {
    BasicMatrix m(nested.size(), nested.empty() ? 0 : nested.front().size());
    for (std::size_t r = 0; r < m.rows; ++r)
      for (std::size_t c = 0; c < m.cols; ++c) m(r, c) = nested[r].at(c);
    return m;
  }

  template <class U>
  BasicMatrix<U> cast() const {
    return BasicMatrix<U>(rows, cols, std::vector<U>(data.begin(), data.end()));
  }

  friend bool operator==(const BasicMatrix&, const BasicMatrix&) = default;
};

using Matrix = BasicMatrix<float>;

// Columns [first, first + count) of m, e.g. one head's slice of Q.
template <class T>
BasicMatrix<T> column_slice(const BasicMatrix<T>& m, std::size_t first, std::size_t count) {
  BasicMatrix<T> out(m.rows, count);
  for (std::size_t r = 0; r < m.rows; ++r)
    for (std::size_t c = 0; c < count; ++c) out(r, c) = m(r, first + c);
  return out;
}

// "2×3": how shapes appear in messages (rows × columns, as the learner reads them).
inline std::string shape_string(std::size_t rows, std::size_t cols) {
  return std::to_string(rows) + "×" + std::to_string(cols);
}
template <class T>
std::string shape_string(const BasicMatrix<T>& m) {
  return shape_string(m.rows, m.cols);
}

}  // namespace attnlab
