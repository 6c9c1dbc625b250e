// The model's inference forward: its attention is the stepper's, and its loss is the
// training loss (two forwards written apart: the core's kernels here, plain loops there).
#include <catch2/catch.hpp>
#include <cmath>

#include "attnlab/head_scores.hpp"
#include "attnlab/model_training.hpp"
#include "attnlab/random.hpp"
#include "attnlab/trace.hpp"

using namespace attnlab;

namespace {

Model random_model(const ModelConfig& c, std::uint64_t seed) {
  auto p = model_training::initial_parameters(c, seed);
  NormalStream normal(seed + 1);
  for (float& x : p) x += 0.2f * normal.next();  // away from the tiny initial weights
  return Model::create(c, std::move(p)).value();
}

ModelConfig small_config() {
  return ModelConfig{.vocab = 40, .context_length = 16, .d_model = 16, .layers = 2, .heads = 4};
}

}  // namespace

TEST_CASE("each block's attention is the stepper's for its LayerNorm output", "[model-forward]") {
  const ModelConfig c = small_config();
  const Model m = random_model(c, 21);
  const std::vector<int> tokens{5, 9, 2, 33, 9, 2, 17, 0, 39, 5, 9, 2};
  const auto f = forward(m, tokens);
  REQUIRE(f.ok());
  const ModelLayout layout(c);
  for (std::size_t l = 0; l < 2; ++l) {
    const ModelBlockForward& b = f.value().blocks[l];
    const auto& w = layout.layers[l];
    const std::size_t d = c.d_model;
    TraceInput input;
    input.source = Projections{b.norm1, m.tensor(w.w_q, d, d), m.tensor(w.w_k, d, d),
                               m.tensor(w.w_v, d, d), std::nullopt};
    input.w_o = m.tensor(w.w_o, d, d);
    input.heads = c.heads;
    input.options.causal = true;
    const auto t = forward_trace(input);
    REQUIRE(t.ok());
    std::size_t head = 0;
    for (const TraceStep& s : t.value().steps)
      if (s.id == step::softmax) CHECK(s.values == b.attention[head++]);  // bit for bit
    CHECK(head == 4);
    CHECK(t.value().output == b.attention_output);
  }
}

TEST_CASE("head_weights: one head's columns, its attention the block's for that head alone",
          "[model-forward]") {
  const ModelConfig c = small_config();
  const Model m = random_model(c, 8);
  const std::vector<int> tokens{3, 1, 4, 1, 5, 9, 2, 6, 5, 3};
  const auto f = forward(m, tokens);
  REQUIRE(f.ok());
  const ModelLayout layout(c);
  const std::size_t d = c.d_model, dh = c.d_head();
  for (int l = 0; l < c.layers; ++l)
    for (int h = 0; h < c.heads; ++h) {
      const auto w = head_weights(m, l, h);
      REQUIRE(w.ok());
      const Matrix whole = m.tensor(layout.layers[static_cast<std::size_t>(l)].w_k, d, d);
      REQUIRE(w.value().w_k.rows == d);
      REQUIRE(w.value().w_k.cols == dh);
      for (std::size_t r = 0; r < d; ++r)
        for (std::size_t j = 0; j < dh; ++j)
          CHECK(w.value().w_k(r, j) == whole(r, static_cast<std::size_t>(h) * dh + j));
      TraceInput input;
      input.source = Projections{f.value().blocks[static_cast<std::size_t>(l)].norm1, w.value().w_q,
                                 w.value().w_k, w.value().w_v, std::nullopt};
      input.heads = 1;
      input.options.causal = true;
      const auto t = forward_trace(input);
      REQUIRE(t.ok());
      // The same sums over d_model as the block's (a product of fewer columns may group its
      // SIMD lanes differently, so to float32 rounding rather than bit for bit).
      const Matrix& want =
          f.value().blocks[static_cast<std::size_t>(l)].attention[static_cast<std::size_t>(h)];
      for (const TraceStep& s : t.value().steps)
        if (s.id == step::softmax)
          for (std::size_t i = 0; i < want.data.size(); ++i)
            CHECK(s.values.data[i] == Approx(want.data[i]).margin(1e-6));
    }
  CHECK(head_weights(m, 2, 0).error().message ==
        "layer 2, head 0 is not in the model: layers run from 0 to 1 and heads from 0 to 3");
  CHECK(head_weights(m, 0, -1).error().code == ErrorCode::invalid_argument);
}

TEST_CASE("the forward's loss is the training loss", "[model-forward]") {
  const ModelConfig c = small_config();
  const Model m = random_model(c, 4);
  std::vector<int> tokens(16);
  for (std::size_t i = 0; i < 16; ++i) tokens[i] = static_cast<int>((i * 7 + 3) % 40);
  const auto f = forward(m, tokens);
  REQUIRE(f.ok());
  const double loss = next_token_loss(f.value().logits, tokens);
  std::vector<int> targets(tokens.begin() + 1, tokens.end());
  targets.push_back(-1);
  const double training = model_training::sequence_loss<float>(c, m.parameters, tokens.data(),
                                                               targets.data(), 16, 0, nullptr) /
                          15;
  CHECK(std::abs(loss - training) <= 1e-5 * loss);
  CHECK(loss > 0.5);  // a random model predicts badly: the comparison is not of two zeros
}

TEST_CASE("the forward refuses bad tokens and bad parameters", "[model-forward]") {
  const ModelConfig c = small_config();
  const Model m = random_model(c, 4);
  auto e = forward(m, {1, 40});
  REQUIRE(!e.ok());
  CHECK(e.error().message == "token 1 is 40: token ids run from 0 to 39");
  CHECK(forward(m, std::vector<int>(17, 1)).error().code == ErrorCode::too_large);
  CHECK(forward(m, std::vector<int>(17, 1)).error().message ==
        "17 tokens are more than the model's context length of 16");
  CHECK(forward(m, {}).error().code == ErrorCode::invalid_argument);
  // A model put together by hand, without Model::create's checks.
  const Model short_of_one{c, std::vector<float>(m.parameters.begin(), m.parameters.end() - 1)};
  CHECK(forward(short_of_one, {1, 2}).error().code == ErrorCode::shape_mismatch);
  CHECK(ModelDecoder(short_of_one).append({1}).error().code == ErrorCode::shape_mismatch);
  auto p = m.parameters;
  p[3] = NAN;
  CHECK(Model::create(c, p).error().code == ErrorCode::non_finite);
  p.pop_back();
  CHECK(Model::create(c, p).error().code == ErrorCode::shape_mismatch);
  ModelConfig bad = c;
  bad.heads = 3;
  CHECK(Model::create(bad, m.parameters).error().message ==
        "3 heads do not divide d_model = 16: each head needs an equal slice");
}

TEST_CASE("model head scores read every layer and head", "[model-forward]") {
  const ModelConfig c = small_config();
  const Model m = random_model(c, 8);
  const auto probe = repeated_random_tokens(c.vocab, 6, 3);
  const auto s = model_head_scores(m, probe, 6);
  REQUIRE(s.ok());
  REQUIRE(s.value().size() == 2);
  const auto f = forward(m, probe).value();
  for (std::size_t l = 0; l < 2; ++l) {
    REQUIRE(s.value()[l].size() == 4);
    for (std::size_t h = 0; h < 4; ++h) {
      const Matrix& a = f.blocks[l].attention[h];
      double previous = 0;
      for (std::size_t i = 1; i < 12; ++i) previous += a(i, i - 1);
      CHECK(s.value()[l][h].previous_token == Approx(previous / 11));
      CHECK(s.value()[l][h].induction.has_value());
    }
  }
}
