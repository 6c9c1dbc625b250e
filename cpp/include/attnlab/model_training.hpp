// Training the model of model.hpp: the loss and its gradient (a plain forward and a
// hand-written backward, templated so the gradient check runs it in float64), the seeded
// initialisation, AdamW with gradient clipping and a cosine schedule.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "attnlab/model.hpp"

namespace attnlab::model_training {

// GPT-2's initialisation from NormalStream(seed): weights N(0, 0.02²), W_O and W_proj scaled
// by 1/√(2·layers) (each adds to the residual stream), gains 1, biases 0.
std::vector<float> initial_parameters(const ModelConfig& config, std::uint64_t seed);

// One sequence: tokens (n ≤ context) and targets (n; −1 = no target). Returns the sum of the
// cross-entropies at the target positions and, given gradients (the parameters' size), adds
// `weight` times their gradient to it. Its sums run in one fixed order whatever the
// instruction set (axpy-form products, no reassociation), so a seed gives the same numbers on
// any x86-64 machine.
template <class T>
T sequence_loss(const ModelConfig& config, const std::vector<T>& parameters, const int* tokens,
                const int* targets, std::size_t n, T weight, T* gradients);

struct AdamWSettings {
  float learning_rate = 1e-3f;  // the peak; the schedule scales it
  float min_learning_rate = 1e-4f;
  std::size_t warmup_steps = 100;
  std::size_t total_steps = 1000;
  float beta1 = 0.9f, beta2 = 0.95f, epsilon = 1e-8f;
  float weight_decay = 0.1f;  // decoupled, on ModelTensor::decay tensors only
  float clip_norm = 1.0f;     // the gradient's global L2 norm is scaled down to at most this
};

// Linear warmup to the peak, then a cosine down to min_learning_rate at total_steps.
float learning_rate_at(const AdamWSettings& settings, std::size_t step);

class AdamW {
 public:
  AdamW(const ModelConfig& config, const AdamWSettings& settings);
  // One step on gradients (clipped in place); returns the norm before clipping.
  float step(std::vector<float>& parameters, std::vector<float>& gradients);
  std::size_t steps() const { return steps_; }

 private:
  AdamWSettings settings_;
  std::vector<std::uint8_t> decay_;  // per parameter: 1 where weight decay applies
  std::vector<float> m_, v_;
  std::size_t steps_ = 0;
};

}  // namespace attnlab::model_training
