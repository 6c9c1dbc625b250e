// Generation: the KV-cache decoder against the whole-text forward pass, and the sampler on
// distributions worked out by hand.
#include <catch2/catch.hpp>
#include <cmath>

#include "attnlab/model_training.hpp"
#include "attnlab/random.hpp"
#include "model_support.hpp"

using namespace attnlab;

namespace {

Model random_model(std::uint64_t seed) {
  return test::random_model(
      ModelConfig{.vocab = 30, .context_length = 12, .d_model = 16, .layers = 2, .heads = 4}, seed);
}

}  // namespace

TEST_CASE("the KV-cache decoder's logits are the forward pass's, token by token",
          "[model-decoder]") {
  const Model m = random_model(2);
  const std::vector<int> tokens{4, 29, 0, 7, 7, 13, 2, 21, 4, 29, 0, 5};
  const Matrix full = forward(m, tokens).value().logits;
  ModelDecoder one_by_one(m);
  for (std::size_t t = 0; t < tokens.size(); ++t) {
    const auto logits = one_by_one.append({tokens[t]});
    REQUIRE(logits.ok());
    double worst = 0;
    for (std::size_t j = 0; j < 30; ++j)
      worst = std::max(worst, std::abs(double(logits.value()[j]) - full(t, j)));
    INFO("position " << t);
    CHECK(worst <= 1e-5);
  }
  ModelDecoder at_once(m);
  const auto last = at_once.append(tokens);
  REQUIRE(last.ok());
  CHECK(at_once.length() == 12);
  const auto again = ModelDecoder(m).append(std::vector<int>(tokens.begin(), tokens.end()));
  CHECK(again.value() == last.value());
  CHECK(at_once.append({1}).error().code == ErrorCode::too_large);
  CHECK(ModelDecoder(m).append({30}).error().message ==
        "token 0 is 30: token ids run from 0 to 29");
}

TEST_CASE("sample_token draws from softmax(logits / temperature) over the top k",
          "[model-decoder]") {
  const std::vector<float> logits{0.0f, std::log(3.0f), -1.0f};
  // Temperature 1: token 1 has 3/(4 + e⁻¹) ≈ 0.6868, then token 0 1/(4 + e⁻¹) ≈ 0.2289 (to
  // 0.9158), token 2 e⁻¹/(4 + e⁻¹) ≈ 0.0842.
  CHECK(sample_token(logits, 1.0f, 0, 0.68).value() == 1);
  CHECK(sample_token(logits, 1.0f, 0, 0.69).value() == 0);
  CHECK(sample_token(logits, 1.0f, 0, 0.91).value() == 0);
  CHECK(sample_token(logits, 1.0f, 0, 0.92).value() == 2);
  // Top 2: token 1 has 3/4.
  CHECK(sample_token(logits, 1.0f, 2, 0.74).value() == 1);
  CHECK(sample_token(logits, 1.0f, 2, 0.76).value() == 0);
  CHECK(sample_token(logits, 1.0f, 2, 0.9999).value() == 0);
  // Temperature 2 over the top 2: √3/(1 + √3) ≈ 0.634.
  CHECK(sample_token(logits, 2.0f, 2, 0.63).value() == 1);
  CHECK(sample_token(logits, 2.0f, 2, 0.64).value() == 0);
  // Temperature 0 and top 1 take the largest; ties go to the smaller id.
  CHECK(sample_token(logits, 0.0f, 0, 0.99).value() == 1);
  CHECK(sample_token({2.0f, 5.0f, 5.0f}, 1.0f, 1, 0.99).value() == 1);
  CHECK(sample_token(logits, -1.0f, 0, 0.5).error().code == ErrorCode::invalid_argument);
  CHECK(sample_token(logits, NAN, 0, 0.5).error().code == ErrorCode::invalid_argument);
  CHECK(sample_token({}, 1.0f, 0, 0.5).error().code == ErrorCode::invalid_argument);
}

TEST_CASE("next_token_distribution: the probabilities sample_token draws with, worked by hand",
          "[model-decoder]") {
  const std::vector<float> logits{0.0f, std::log(3.0f), -1.0f};
  const double z = 4 + std::exp(-1.0);
  const auto all = next_token_distribution(logits, 1.0f, 0);
  REQUIRE(all.ok());
  CHECK(all.value().token_ids == std::vector<int>{1, 0, 2});
  CHECK(all.value().probabilities[0] == Approx(3 / z).epsilon(1e-6));
  CHECK(all.value().probabilities[1] == Approx(1 / z).epsilon(1e-6));
  CHECK(all.value().probabilities[2] == Approx(std::exp(-1.0) / z).epsilon(1e-6));
  // Temperature 2 over the top 2: √3/(1 + √3) and 1/(1 + √3).
  const auto two = next_token_distribution(logits, 2.0f, 2);
  REQUIRE(two.ok());
  CHECK(two.value().token_ids == std::vector<int>{1, 0});
  CHECK(two.value().probabilities[0] ==
        Approx(std::sqrt(3.0) / (1 + std::sqrt(3.0))).epsilon(1e-6));
  CHECK(two.value().probabilities[1] == Approx(1 / (1 + std::sqrt(3.0))).epsilon(1e-6));
  // Temperature 0: the likeliest alone (ties to the smaller id).
  const auto greedy = next_token_distribution({2.0f, 5.0f, 5.0f}, 0.0f, 0);
  REQUIRE(greedy.ok());
  CHECK(greedy.value().token_ids == std::vector<int>{1});
  CHECK(greedy.value().probabilities == std::vector<double>{1.0});
  // sample_token's boundaries are the cumulative probabilities: just below and above each.
  double cumulative = 0;
  for (std::size_t i = 0; i + 1 < all.value().token_ids.size(); ++i) {
    cumulative += all.value().probabilities[i];
    CHECK(sample_token(logits, 1.0f, 0, cumulative - 1e-6).value() == all.value().token_ids[i]);
    CHECK(sample_token(logits, 1.0f, 0, cumulative + 1e-6).value() == all.value().token_ids[i + 1]);
  }
  CHECK(next_token_distribution(logits, -1.0f, 0).error().code == ErrorCode::invalid_argument);
  CHECK(next_token_distribution({}, 1.0f, 0).error().code == ErrorCode::invalid_argument);
}

TEST_CASE("generate samples through the cache as the forward pass would", "[model-decoder]") {
  const Model m = random_model(6);
  const std::vector<int> prompt{3, 1, 4};
  const SampleOptions options{.temperature = 1.0f, .top_k = 10, .seed = 42};
  const auto tokens = generate(m, prompt, 9, options);
  REQUIRE(tokens.ok());
  REQUIRE(tokens.value().size() == 9);
  // Replayed with the whole-text forward pass and the same draws.
  std::vector<int> text = prompt;
  for (std::size_t i = 0; i < 9; ++i) {
    const Matrix logits = forward(m, text).value().logits;
    const std::vector<float> last(logits.row(text.size() - 1),
                                  logits.row(text.size() - 1) + logits.cols);
    const std::uint64_t bits = splitmix64_mix(42 + (i + 1) * 0x9e3779b97f4a7c15ULL);
    text.push_back(sample_token(last, 1.0f, 10, double(bits >> 11) * 0x1p-53).value());
  }
  CHECK(std::vector<int>(text.begin() + 3, text.end()) == tokens.value());
  CHECK(generate(m, prompt, 9, options).value() == tokens.value());
  CHECK(generate(m, prompt, 9, {.temperature = 1.0f, .top_k = 10, .seed = 43}).value() !=
        tokens.value());
  CHECK(generate(m, prompt, 10, options).error().code == ErrorCode::too_large);
  CHECK(generate(m, {}, 3, options).error().code == ErrorCode::invalid_argument);
}

TEST_CASE("sampling refuses logits that are not finite (once NaN probabilities)",
          "[model-decoder]") {
  for (const float bad : {NAN, INFINITY, -INFINITY}) {
    const std::vector<float> logits{0.5f, bad, -1.0f};
    const auto distribution = next_token_distribution(logits, 1.0f, 0);
    REQUIRE_FALSE(distribution.ok());
    CHECK(distribution.error().code == ErrorCode::non_finite);
    CHECK(distribution.error().message.rfind("logit 2 is ", 0) == 0);
    CHECK(sample_token(logits, 1.0f, 0, 0.5).error().code == ErrorCode::non_finite);
    CHECK(sample_token(logits, 0.0f, 0, 0.5).error().code == ErrorCode::non_finite);
  }
}
