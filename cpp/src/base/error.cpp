#include "attnlab/error.hpp"

namespace attnlab {

std::string_view to_string(ErrorCode code) {
  switch (code) {
    case ErrorCode::shape_mismatch:
      return "shape-mismatch";
    case ErrorCode::non_finite:
      return "non-finite";
    case ErrorCode::empty:
      return "empty";
    case ErrorCode::too_large:
      return "too-large";
    case ErrorCode::invalid_argument:
      return "invalid-argument";
    case ErrorCode::out_of_memory:
      return "out-of-memory";
  }
  return "invalid-argument";
}

}  // namespace attnlab
