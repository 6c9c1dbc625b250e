#pragma once
// GELU in GPT-2's tanh form, GELU(u) = 0.5·u·(1 + tanh(z)) with z = √(2/π)·(u + 0.044715·u³):
// its constants and z, stated once for the inference kernel (simd_spans.hpp) and the training
// (model/ops.hpp). reference.hpp keeps its own float64 copy, as the tests' independent oracle.
namespace attnlab::gelu_form {

inline constexpr double sqrt_2_over_pi = 0.7978845608028654;  // √(2/π)
inline constexpr double cubic = 0.044715;

// z = √(2/π)·(u + 0.044715·u³) in float or double.
template <class T>
T inner(T u) {
  return static_cast<T>(sqrt_2_over_pi) * (u + static_cast<T>(cubic) * u * u * u);
}

}  // namespace attnlab::gelu_form
