// The model's row-wise pieces, shared by the inference forward (forward.cpp) and the training
// loss (gradients.cpp), templated so the gradient check runs them in float64.
#pragma once

#include <cmath>
#include <cstddef>

#include "kernels/gelu_form.hpp"

namespace attnlab::model_ops {

inline constexpr double layer_norm_epsilon = 1e-5;

// y = gain ⊙ (x − mean) / √(var + ε) + bias over one row of d values; keeps x̂ and 1/σ
// (either may be null) for the backward pass.
template <class T>
void layer_norm_row(const T* x, const T* gain, const T* bias, std::size_t d, T* y, T* x_hat,
                    T* inverse_std) {
  T mean = 0;
  for (std::size_t j = 0; j < d; ++j) mean += x[j];
  mean /= static_cast<T>(d);
  T variance = 0;
  for (std::size_t j = 0; j < d; ++j) variance += (x[j] - mean) * (x[j] - mean);
  variance /= static_cast<T>(d);
  const T r = T(1) / std::sqrt(variance + static_cast<T>(layer_norm_epsilon));
  for (std::size_t j = 0; j < d; ++j) {
    const T h = (x[j] - mean) * r;
    if (x_hat) x_hat[j] = h;
    y[j] = h * gain[j] + bias[j];
  }
  if (inverse_std) *inverse_std = r;
}

// GELU (kernels/gelu_form.hpp) as the training computes it (the inference forward runs
// kernels::gelu). The training keeps the tanh of the forward for the derivative, since tanh is a
// quarter of its time.
template <class T>
T gelu_tanh(T u) {
  return std::tanh(gelu_form::inner(u));
}
template <class T>
T gelu_from_tanh(T u, T t) {
  return T(0.5) * u * (T(1) + t);
}
// d GELU / du at u, given t = gelu_tanh(u).
template <class T>
T gelu_derivative_from_tanh(T u, T t) {
  return T(0.5) * (T(1) + t) + T(0.5) * u * (T(1) - t * t) *
                                   static_cast<T>(gelu_form::sqrt_2_over_pi) *
                                   (T(1) + static_cast<T>(3 * gelu_form::cubic) * u * u);
}

}  // namespace attnlab::model_ops
