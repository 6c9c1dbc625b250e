// The Trainer of training.hpp: its checks, Adam steps over the seeded batches, the held-out
// evaluation and the head scores. Compiled, as training.cpp, without fused multiply-adds, so
// the same seed gives the same loss curve natively and in wasm.
#include <algorithm>
#include <cmath>

#include "attnlab/limits.hpp"
#include "attnlab/training.hpp"
#include "base/validate.hpp"
#include "training_network.hpp"

namespace attnlab {

namespace {

constexpr std::size_t evaluation_sequences = 64, probe_sequences = 8;

validate::Problem check(const TrainingConfig& c) {
  using validate::count_within;
  const auto task = static_cast<int>(c.task);
  if (task < 0 || task > static_cast<int>(TrainingTask::induction_anywhere))
    return validate::formatted(
        ErrorCode::invalid_argument,
        "task must be previous-token, copy-first, reverse, induction or induction-anywhere");
  if (auto p =
          count_within("layers", c.layers, 1, limits::train_layers, ErrorCode::invalid_argument))
    return p;
  if (auto p = count_within("heads", c.heads, 1, limits::train_heads, ErrorCode::invalid_argument))
    return p;
  if (auto p = count_within("dModel", c.d_model, 1, limits::train_d_model)) return p;
  if (c.d_model % static_cast<std::size_t>(c.heads) != 0)
    return validate::formatted(ErrorCode::invalid_argument,
                               "heads must divide dModel (%zu) into equal head widths, got %d",
                               c.d_model, c.heads);
  if (auto p = count_within("contextLength", c.context_length, 4, limits::train_context)) return p;
  if (auto p = count_within("vocab", c.vocab, 2, limits::train_vocab)) return p;
  if (auto p = count_within("batch", c.batch, 1, limits::train_batch)) return p;
  if (auto p = validate::positive_finite("learningRate", c.learning_rate)) return p;
  if (c.learning_rate > 1.0f)
    return validate::formatted(ErrorCode::invalid_argument,
                               "learningRate must be above 0 and at most 1, got %s",
                               validate::number_text(c.learning_rate).c_str());
  return std::nullopt;
}

}  // namespace

Trainer::Trainer(const TrainingConfig& config)
    : config_(config),
      parameters_(training::initial_parameters(config)),
      m_(parameters_.size(), 0.0f),
      v_(parameters_.size(), 0.0f),
      evaluation_(
          training::make_batch(config, evaluation_sequences, training::stream(config.seed, 1))),
      sample_(training::make_batch(config, 1, training::stream(config.seed, 2))),
      probe_(training::make_probe(config, probe_sequences, training::stream(config.seed, ~0ULL))) {}

Result<Trainer> Trainer::create(const TrainingConfig& config) {
  if (auto p = check(config)) return *p;
  return Trainer(config);
}

Result<TrainingProgress> Trainer::step(std::size_t count) {
  if (auto p = validate::count_within("count", count, 1, limits::train_steps)) return *p;
  constexpr float beta1 = 0.9f, beta2 = 0.999f, epsilon = 1e-8f;
  std::vector<float> g;
  float loss = 0;
  for (std::size_t s = 0; s < count; ++s, ++steps_) {
    const auto batch =
        training::make_batch(config_, config_.batch, training::stream(config_.seed, 3 + steps_));
    loss = training::loss_and_gradients(config_, parameters_, batch, &g);
    beta1_power_ *= beta1;
    beta2_power_ *= beta2;
    for (std::size_t i = 0; i < g.size(); ++i) {
      m_[i] = beta1 * m_[i] + (1 - beta1) * g[i];
      v_[i] = beta2 * v_[i] + (1 - beta2) * g[i] * g[i];
      const float m_hat = m_[i] / (1 - beta1_power_), v_hat = v_[i] / (1 - beta2_power_);
      parameters_[i] -= config_.learning_rate * m_hat / (std::sqrt(v_hat) + epsilon);
    }
  }
  // The evaluation batch's cross-entropy, and its accuracy: the argmax logit against the target.
  const training::Layout s(config_);
  training::Activations<float> act;
  std::vector<float> probabilities(s.vocab);
  std::size_t right = 0;
  double held_out = 0;
  for (std::size_t b = 0; b < evaluation_.count; ++b) {
    training::forward(s, parameters_, &evaluation_.tokens[b * s.n], act);
    for (std::size_t i = 0; i < s.n; ++i) {
      const int target = evaluation_.targets[b * s.n + i];
      if (target < 0) continue;
      const float* row = &act.logits[i * s.vocab];
      held_out += training::cross_entropy(row, s.vocab, target, probabilities.data());
      if (std::max_element(row, row + s.vocab) - row == target) ++right;
    }
  }
  const auto targets = static_cast<double>(training::target_count(evaluation_));
  TrainingProgress progress{steps_,
                            loss,
                            static_cast<float>(held_out / targets),
                            static_cast<float>(right) / static_cast<float>(targets),
                            {},
                            {}};
  training::score_heads(config_, parameters_, probe_, progress);
  return progress;
}

TrainingAttention Trainer::attention() const {
  const training::Layout s(config_);
  training::Activations<float> act;
  training::forward(s, parameters_, sample_.tokens.data(), act);
  TrainingAttention out{sample_.tokens, {}};
  for (std::size_t l = 0; l < s.layers; ++l) {
    out.weights.emplace_back();
    for (std::size_t h = 0; h < s.heads; ++h) {
      const auto first = act.a.begin() + static_cast<std::ptrdiff_t>((l * s.heads + h) * s.n * s.n);
      out.weights.back().emplace_back(s.n, s.n, std::vector<float>(first, first + s.n * s.n));
    }
  }
  return out;
}

Result<TrainedLayer> Trainer::model(int layer) const {
  if (auto p =
          validate::count_within("layer", layer, 0, static_cast<std::size_t>(config_.layers) - 1,
                                 ErrorCode::invalid_argument))
    return *p;
  const training::Layout s(config_);
  const auto l = static_cast<std::size_t>(layer);
  training::Activations<float> act;
  training::forward(s, parameters_, sample_.tokens.data(), act);
  const auto entering = act.x.begin() + static_cast<std::ptrdiff_t>(l * s.n * s.d);
  const auto weight = [&](std::size_t which) {
    const auto first = parameters_.begin() + static_cast<std::ptrdiff_t>(s.w(l, which));
    return Matrix(s.d, s.d, std::vector<float>(first, first + s.d * s.d));
  };
  return TrainedLayer{Matrix(s.n, s.d, std::vector<float>(entering, entering + s.n * s.d)),
                      weight(0),
                      weight(1),
                      weight(2),
                      weight(3),
                      config_.heads,
                      sample_.tokens};
}

}  // namespace attnlab
