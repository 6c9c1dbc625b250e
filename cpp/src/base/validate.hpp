// Input checks shared by the core's entries (attention, trace, the flash kernel, the
// encoding, the generator, the teaching views). Each returns the first problem found, if
// any: a Problem is an Error whose message names the input (and a matrix's shape), or none.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "attnlab/error.hpp"
#include "attnlab/matrix.hpp"

namespace attnlab::validate {

using Problem = std::optional<Error>;

// A matrix's values are rows × cols long: a C++ caller may build one whose data is not, and no
// entry reads past it. not_empty and within check it first; masks and other element types
// call the size form.
Problem well_formed(std::string_view name, std::size_t rows, std::size_t cols, std::size_t size);
template <class T>
Problem well_formed(std::string_view name, const BasicMatrix<T>& m) {
  return well_formed(name, m.rows, m.cols, m.data.size());
}

Problem not_empty(std::string_view name, const Matrix& m);
Problem finite(std::string_view name, const Matrix& m);
// The one rule for a value computed after the checks (a product, a sum, a rescaling): finite
// inputs can still overflow float32 there, and that is a non_finite error naming what
// overflowed and where, never Infinity or NaN handed back.
Problem overflowed(std::string_view what, const Matrix& m);

// NaN or Infinity in a list of `entry` values, named by its index ("score 1 is NaN: ...").
Problem finite(std::string_view entry, std::span<const float> values);
Problem within(std::string_view name, const Matrix& m, std::size_t max_rows, std::size_t max_cols,
               std::string_view what);
// a and b must agree: a's `a_side` ("rows" or "columns") against b's `b_side`.
Problem same_extent(std::string_view a_name, const Matrix& a, bool a_rows, std::string_view b_name,
                    const Matrix& b, bool b_rows, std::string_view reason);
Problem positive_finite(std::string_view name, float value);

// A float as a message quotes it: the shortest decimal that reads back as the same float,
// so 0.1 is "0.1" (as the caller wrote it) and not "0.100000"; NaN and Infinity by name.
std::string number_text(float value);

// A whole number from lo to hi: "<name> must be a whole number from lo to hi, got value".
// Below lo is invalid_argument; above hi is `above` (too_large for a size, invalid_argument
// for a choice such as the number of heads).
Problem count_within(std::string_view name, std::size_t value, std::size_t lo, std::size_t hi,
                     ErrorCode above = ErrorCode::too_large);
// The same for an int, where a negative value is below any lo.
Problem count_within(std::string_view name, int value, std::size_t lo, std::size_t hi,
                     ErrorCode above = ErrorCode::too_large);

// An error whose message is printf's `format` with the arguments: one call, where a chain
// of std::string concatenations costs the wasm download more.
[[gnu::format(printf, 2, 3)]] Error formatted(ErrorCode code, const char* format, ...);

// Q, K and V can meet in attention: none empty, each within max_rows x max_cols (`what`
// names the entry in the message), Q and K of one width (unless !same_width: grouped K/V
// heads), K and V of one length. Finiteness is left to the caller, which checks its options
// first.
Problem attention_shapes(const Matrix& q, const Matrix& k, const Matrix& v, std::size_t max_rows,
                         std::size_t max_cols, std::string_view what, bool same_width = true);

// NaN or Infinity in any of Q, K, V.
Problem finite_qkv(const Matrix& q, const Matrix& k, const Matrix& v);

}  // namespace attnlab::validate
