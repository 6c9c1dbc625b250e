// Errors are values: every public entry that takes user input returns Result<T> (a check
// alone, such as check_flash_attention, a std::optional<Error>) and never throws on bad
// input. The codes are a public contract shared with the JavaScript package (ERROR_CODES).
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace attnlab {

enum class ErrorCode {
  shape_mismatch,    // "shape-mismatch": two inputs disagree on a dimension
  non_finite,        // "non-finite": NaN or Infinity in an input (or an overflow in a step)
  empty,             // "empty": a matrix with no rows or no columns
  too_large,         // "too-large": beyond the documented limits (limits.hpp)
  invalid_argument,  // "invalid-argument": heads, scale, temperature and other options
  out_of_memory,     // "out-of-memory": an allocation failed (the wasm heap could not grow)
};

// Every code, in the order above: the list the JavaScript package's ERROR_CODES mirrors.
inline constexpr std::array<ErrorCode, 6> error_codes{
    ErrorCode::shape_mismatch, ErrorCode::non_finite,       ErrorCode::empty,
    ErrorCode::too_large,      ErrorCode::invalid_argument, ErrorCode::out_of_memory};

// The stable spelling used in messages and in JavaScript, e.g. "shape-mismatch".
std::string_view to_string(ErrorCode code);

struct Error {
  ErrorCode code;
  std::string message;  // names the offending matrices and their shapes
};

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}
  Result(Error error) : state_(std::move(error)) {}

  bool ok() const { return std::holds_alternative<T>(state_); }
  explicit operator bool() const { return ok(); }

  const T& value() const& { return std::get<T>(state_); }
  T& value() & { return std::get<T>(state_); }
  T&& value() && { return std::get<T>(std::move(state_)); }
  const Error& error() const { return std::get<Error>(state_); }

 private:
  std::variant<T, Error> state_;
};

}  // namespace attnlab
