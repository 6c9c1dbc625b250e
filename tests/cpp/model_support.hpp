// A small random language model for the model tests: the trainer's initial weights moved by
// N(0, 0.2²), so every head attends somewhere in particular.
#pragma once

#include <cstdint>

#include "attnlab/model_training.hpp"
#include "attnlab/random.hpp"

namespace attnlab::test {

inline Model random_model(const ModelConfig& c, std::uint64_t seed) {
  auto p = model_training::initial_parameters(c, seed);
  NormalStream normal(seed + 1);
  for (float& x : p) x += 0.2f * normal.next();
  return Model::create(c, std::move(p)).value();
}

inline ModelConfig small_model_config() {
  return ModelConfig{.vocab = 40, .context_length = 16, .d_model = 16, .layers = 2, .heads = 4};
}

}  // namespace attnlab::test
