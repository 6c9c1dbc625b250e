// The trace's backward pass, checked: with TraceInput::d_output = ∂L/∂Y, trace() appends the
// gradient steps (step::grad_output … step::grad_x, trace.hpp) for the loss L = Σ ∂L/∂Y ⊙ Y.
// check_gradient() compares one entry of a gradient with central finite differences of that
// L, computed by a float64 forward of its own.
#pragma once

#include <cstddef>
#include <string_view>

#include "attnlab/error.hpp"
#include "attnlab/trace.hpp"

namespace attnlab {

struct GradientCheck {
  double analytic;        // the trace's gradient entry (float32)
  double numeric;         // (L(θ + ε) − L(θ − ε)) / 2ε, in float64
  double relative_error;  // |analytic − numeric| / the gradient's size (see check_gradient)
  double epsilon;         // ε: 1e-6 · max(1, |θ|)
};

// The parameters check_gradient() takes: the inputs, and Q, K, V (the projections' results
// when X is given). X and W_Q, W_K, W_V need X; W_O needs W_O.
inline constexpr std::string_view gradient_parameters[] = {"X",  "Q",  "K",  "V",
                                                           "Wq", "Wk", "Wv", "Wo"};

// ∂L/∂parameter(row, col). input needs d_output. The relative error divides by the largest
// of |analytic|, |numeric| and the largest |entry| of the analytic ∂L/∂parameter: an entry
// near zero has no meaningful relative error of its own.
Result<GradientCheck> check_gradient(const TraceInput& input, std::string_view parameter,
                                     std::size_t row, std::size_t col);

}  // namespace attnlab
