#include "attnlab/error.hpp"

#include <iterator>

namespace attnlab {

std::string_view to_string(ErrorCode code) {
  // Each code's spelling, in the order of error_codes (error.hpp).
  constexpr std::string_view names[] = {"shape-mismatch", "non-finite",       "empty",
                                        "too-large",      "invalid-argument", "out-of-memory"};
  static_assert(std::size(names) == error_codes.size());
  const auto i = static_cast<std::size_t>(code);
  return i < std::size(names) ? names[i] : "invalid-argument";
}

}  // namespace attnlab
