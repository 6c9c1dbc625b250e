// The model's hand-written backward against central finite differences in float64, for
// every tensor of every parameter kind.
#include <catch2/catch.hpp>
#include <cmath>
#include <random>

#include "attnlab/model_training.hpp"

using namespace attnlab;

namespace {

ModelConfig tiny_config() {
  return ModelConfig{.vocab = 11, .context_length = 6, .d_model = 8, .layers = 2, .heads = 2};
}

// The seeded initialisation moved away from it (gains off 1, biases off 0, weights larger),
// so every term of the backward carries weight.
std::vector<double> perturbed_parameters(const ModelConfig& c) {
  const auto initial = model_training::initial_parameters(c, 3);
  std::vector<double> w(initial.begin(), initial.end());
  std::mt19937 engine(5);
  std::normal_distribution<double> normal(0.0, 0.3);
  for (double& x : w) x += normal(engine);
  return w;
}

// The largest gap between computed and expected values, and the largest expected value.
struct Gap {
  double worst = 0, largest = 0;
  void add(double got, double want) {
    worst = std::max(worst, std::abs(got - want));
    largest = std::max(largest, std::abs(want));
  }
};

}  // namespace

TEST_CASE("model gradients match central finite differences in float64, every tensor",
          "[model-gradients]") {
  // max |g − fd| / max |fd| per tensor ≤ 1e-5: with h = 1e-5 in float64 the differences'
  // truncation (O(h²)) and rounding (≈1e-16/h) errors are near 1e-10.
  const ModelConfig c = tiny_config();
  std::vector<double> w = perturbed_parameters(c);
  const std::vector<int> tokens{3, 1, 4, 1, 5, 9};
  const std::vector<int> targets{1, 4, -1, 5, 9, 2};  // position 2 has no target
  std::vector<double> g(w.size(), 0.0);
  const double weight = 1.0 / 5;
  const double loss =
      model_training::sequence_loss(c, w, tokens.data(), targets.data(), 6, weight, g.data());
  REQUIRE(std::isfinite(loss));
  const auto objective = [&] {
    return weight * model_training::sequence_loss<double>(c, w, tokens.data(), targets.data(), 6, 0,
                                                          nullptr);
  };
  constexpr double h = 1e-5;
  const ModelLayout layout(c);
  REQUIRE(layout.tensors.size() == 2 + 12 * 2 + 3);
  const auto central_difference = [&](std::size_t i) {
    const double x = w[i];
    w[i] = x + h;
    const double up = objective();
    w[i] = x - h;
    const double down = objective();
    w[i] = x;
    return (up - down) / (2 * h);
  };
  for (const ModelTensor& t : layout.tensors) {
    Gap gap;
    for (std::size_t i = t.offset; i < t.offset + t.rows * t.cols; ++i)
      gap.add(g[i], central_difference(i));
    INFO(t.name << ": max |g - fd| " << gap.worst << ", max |fd| " << gap.largest);
    CHECK(gap.largest > 1e-6);  // the tensor takes part: a zero gradient would prove nothing
    CHECK(gap.worst / gap.largest <= 1e-5);
  }
}

TEST_CASE("model gradients in float match float64 within float rounding", "[model-gradients]") {
  const ModelConfig c = tiny_config();
  const std::vector<double> w = perturbed_parameters(c);
  const std::vector<float> wf(w.begin(), w.end());
  const std::vector<int> tokens{2, 7, 1, 8, 2, 8}, targets{7, 1, 8, 2, 8, 1};
  std::vector<double> g(w.size(), 0.0);
  std::vector<float> gf(w.size(), 0.0f);
  const double loss =
      model_training::sequence_loss(c, w, tokens.data(), targets.data(), 6, 1.0, g.data());
  const float loss_f =
      model_training::sequence_loss(c, wf, tokens.data(), targets.data(), 6, 1.0f, gf.data());
  CHECK(std::abs(loss_f - loss) <= 1e-5 * loss);
  Gap gap;
  for (std::size_t i = 0; i < g.size(); ++i) gap.add(gf[i], g[i]);
  CHECK(gap.worst / gap.largest <= 1e-4);
}

TEST_CASE("AdamW clips the gradient to its norm and follows the cosine schedule",
          "[model-gradients]") {
  model_training::AdamWSettings s;
  s.learning_rate = 1e-2f;
  s.min_learning_rate = 1e-3f;
  s.warmup_steps = 10;
  s.total_steps = 110;
  CHECK(model_training::learning_rate_at(s, 0) == Approx(1e-3));
  CHECK(model_training::learning_rate_at(s, 9) == Approx(1e-2));
  CHECK(model_training::learning_rate_at(s, 60) == Approx(5.5e-3));  // halfway down the cosine
  CHECK(model_training::learning_rate_at(s, 110) == Approx(1e-3));

  const ModelConfig c = tiny_config();
  std::vector<float> w = model_training::initial_parameters(c, 1), before = w;
  std::vector<float> g(w.size(), 0.0f);
  g[0] = 3.0f;
  g[1] = 4.0f;  // norm 5, clipped to 1: (0.6, 0.8)
  model_training::AdamW adam(c, s);
  CHECK(adam.step(w, g) == Approx(5.0f));
  CHECK(g[0] == Approx(0.6f));
  CHECK(g[1] == Approx(0.8f));
  // The first step moves each parameter with a gradient by the rate (Adam's m̂/√v̂ = ±1),
  // plus the decay on the embedding (a matrix); a position (no decay, no gradient) stays.
  const float rate = model_training::learning_rate_at(s, 0);
  CHECK(w[0] == Approx(before[0] - rate * (1.0f + 0.1f * before[0])));
  const ModelLayout layout(c);
  CHECK(w[layout.positions] == before[layout.positions]);
}
