// The sinusoidal positional encoding of "Attention Is All You Need" (Vaswani et al., 2017).
#pragma once

#include <cstddef>

#include "attnlab/error.hpp"
#include "attnlab/matrix.hpp"

namespace attnlab {

// pe: (positions, width), pe(p, 2i) = sin(p / 10000^(2i/width)), pe(p, 2i+1) = cos(same angle).
// Errors: invalid_argument (positions or width 0), too_large (above limits::sinusoidal_max).
Result<Matrix> sinusoidal_encoding(std::size_t positions, std::size_t width);

}  // namespace attnlab
