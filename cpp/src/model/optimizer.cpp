// The model's initialisation, learning-rate schedule and AdamW (decoupled weight decay).
#include <cmath>
#include <numbers>

#include "attnlab/model_training.hpp"
#include "attnlab/random.hpp"

namespace attnlab::model_training {

std::vector<float> initial_parameters(const ModelConfig& config, std::uint64_t seed) {
  const ModelLayout layout(config);
  std::vector<float> p(layout.total, 0.0f);
  NormalStream normal(seed);
  const float residual_scale = 1.0f / std::sqrt(2.0f * static_cast<float>(config.layers));
  for (const ModelTensor& t : layout.tensors) {
    const bool gain = t.name.ends_with(".gain");
    const bool bias =
        t.name.ends_with(".bias") || t.name.ends_with(".b_fc") || t.name.ends_with(".b_proj");
    const bool residual = t.name.ends_with(".w_o") || t.name.ends_with(".w_proj");
    for (std::size_t i = 0; i < t.rows * t.cols; ++i)
      p[t.offset + i] = gain   ? 1.0f
                        : bias ? 0.0f
                               : 0.02f * normal.next() * (residual ? residual_scale : 1.0f);
  }
  return p;
}

float learning_rate_at(const AdamWSettings& s, std::size_t step) {
  if (step < s.warmup_steps)
    return s.learning_rate * static_cast<float>(step + 1) / static_cast<float>(s.warmup_steps);
  if (step >= s.total_steps) return s.min_learning_rate;
  const double progress =
      static_cast<double>(step - s.warmup_steps) /
      static_cast<double>(std::max<std::size_t>(1, s.total_steps - s.warmup_steps));
  const double cosine = 0.5 * (1.0 + std::cos(std::numbers::pi * progress));
  return static_cast<float>(s.min_learning_rate + (s.learning_rate - s.min_learning_rate) * cosine);
}

AdamW::AdamW(const ModelConfig& config, const AdamWSettings& settings) : settings_(settings) {
  const ModelLayout layout(config);
  decay_.assign(layout.total, 0);
  for (const ModelTensor& t : layout.tensors)
    std::fill_n(decay_.begin() + static_cast<std::ptrdiff_t>(t.offset), t.rows * t.cols,
                t.decay ? 1 : 0);
  m_.assign(layout.total, 0.0f);
  v_.assign(layout.total, 0.0f);
}

float AdamW::step(std::vector<float>& parameters, std::vector<float>& gradients) {
  double squares = 0;
  for (float g : gradients) squares += static_cast<double>(g) * g;
  const float norm = static_cast<float>(std::sqrt(squares));
  if (norm > settings_.clip_norm) {
    const float shrink = settings_.clip_norm / norm;
    for (float& g : gradients) g *= shrink;
  }
  const float rate = learning_rate_at(settings_, steps_);
  ++steps_;
  const auto t = static_cast<double>(steps_);
  const float correction1 = static_cast<float>(1.0 - std::pow(settings_.beta1, t));
  const float correction2 = static_cast<float>(1.0 - std::pow(settings_.beta2, t));
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    const float g = gradients[i];
    m_[i] = settings_.beta1 * m_[i] + (1.0f - settings_.beta1) * g;
    v_[i] = settings_.beta2 * v_[i] + (1.0f - settings_.beta2) * g * g;
    const float update =
        (m_[i] / correction1) / (std::sqrt(v_[i] / correction2) + settings_.epsilon);
    const float decay = decay_[i] ? settings_.weight_decay * parameters[i] : 0.0f;
    parameters[i] -= rate * (update + decay);
  }
  return norm;
}

}  // namespace attnlab::model_training
