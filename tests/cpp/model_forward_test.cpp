// The model's inference forward: its attention is the stepper's, and its loss is the
// training loss (two forwards written apart: the core's kernels here, plain loops there).
#include <catch2/catch.hpp>
#include <cmath>
#include <numeric>

#include "attnlab/head_scores.hpp"
#include "attnlab/model_training.hpp"
#include "attnlab/random.hpp"
#include "attnlab/trace.hpp"
#include "model_support.hpp"

using namespace attnlab;

namespace {

using test::random_model;

}  // namespace

TEST_CASE("each block's attention is the stepper's for its LayerNorm output", "[model-forward]") {
  const ModelConfig c = test::small_model_config();
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
  const ModelConfig c = test::small_model_config();
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
  const ModelConfig c = test::small_model_config();
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
  const ModelConfig c = test::small_model_config();
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
  const ModelConfig c = test::small_model_config();
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

// Issue 38's interventions: ablated heads, each next token's loss, attention rollout.
namespace {

const std::vector<int> intervention_tokens{5, 9, 2, 33, 9, 2, 17, 0, 39, 5, 9, 2, 17, 8};

bool same_forward(const ModelForward& a, const ModelForward& b) {
  if (!(a.logits == b.logits) || a.blocks.size() != b.blocks.size()) return false;
  for (std::size_t l = 0; l < a.blocks.size(); ++l)
    if (!(a.blocks[l].attention == b.blocks[l].attention) ||
        !(a.blocks[l].output == b.blocks[l].output))
      return false;
  return true;
}

}  // namespace

TEST_CASE("ablating no head is the forward pass, bit for bit", "[model-forward]") {
  const Model m = random_model(test::small_model_config(), 21);
  const auto plain = forward(m, intervention_tokens).value();
  for (Ablation how : {Ablation::zero, Ablation::mean})
    CHECK(same_forward(forward(m, intervention_tokens, AblationOptions{{}, how}).value(), plain));
}

TEST_CASE("zero ablation is the head's rows of W_O set to zero", "[model-forward]") {
  const ModelConfig c = test::small_model_config();
  const Model m = random_model(c, 21);
  const ModelLayout layout(c);
  const std::size_t d = c.d_model, dh = c.d_head();
  // Heads 1 of layer 0 and 3 of layer 1: the oracle zeroes their slices of W_O by hand (the
  // head's output columns of the concatenation meet W_O's rows h·d_head … (h + 1)·d_head − 1).
  auto p = m.parameters;
  for (auto [layer, head] : {std::pair{0, 1}, std::pair{1, 3}})
    for (std::size_t r = 0; r < dh; ++r)
      for (std::size_t j = 0; j < d; ++j)
        p[layout.layers[layer].w_o + (static_cast<std::size_t>(head) * dh + r) * d + j] = 0;
  const auto oracle = forward(Model::create(c, p).value(), intervention_tokens).value();
  const auto ablated =
      forward(m, intervention_tokens, AblationOptions{{{0, 1}, {1, 3}, {0, 1}}, Ablation::zero});
  REQUIRE(ablated.ok());
  CHECK(same_forward(ablated.value(), oracle));
  CHECK(!(ablated.value().logits == forward(m, intervention_tokens).value().logits));
}

TEST_CASE("mean ablation writes the head's mean output over the text, float64 oracle",
          "[model-forward]") {
  const ModelConfig c = test::small_model_config();
  const Model m = random_model(c, 5);
  const ModelLayout layout(c);
  const std::size_t d = c.d_model, dh = c.d_head(), n = intervention_tokens.size(), h = 2;
  const auto plain = forward(m, intervention_tokens).value();
  const auto ablated =
      forward(m, intervention_tokens, AblationOptions{{{1, 2}}, Ablation::mean}).value();
  // The last layer's input is the same; its attention output changes by (mean − z_h)·W_O[h]:
  // z_h = A_h · norm1 · W_V[:, h], computed here in float64 from the plain pass.
  const ModelBlockForward& b = plain.blocks[1];
  const Matrix w_v = m.tensor(layout.layers[1].w_v, d, d),
               w_o = m.tensor(layout.layers[1].w_o, d, d);
  std::vector<double> v(n * dh, 0.0), z(n * dh, 0.0), mean(dh, 0.0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < dh; ++j)
      for (std::size_t k = 0; k < d; ++k)
        v[i * dh + j] += double(b.norm1(i, k)) * w_v(k, h * dh + j);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < dh; ++j) {
      for (std::size_t k = 0; k <= i; ++k)
        z[i * dh + j] += double(b.attention[h](i, k)) * v[k * dh + j];
      mean[j] += z[i * dh + j] / double(n);
    }
  CHECK(ablated.blocks[1].attention == b.attention);  // the weights are still the head's own
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < d; ++j) {
      double expected = b.attention_output(i, j);
      for (std::size_t r = 0; r < dh; ++r)
        expected += (mean[r] - z[i * dh + r]) * w_o(h * dh + r, j);
      CHECK(ablated.blocks[1].attention_output(i, j) == Approx(expected).margin(1e-5));
    }
  CHECK(same_forward(ablated, forward(m, intervention_tokens, {{{1, 2}}, Ablation::mean}).value()));
}

TEST_CASE("token_losses: each next token's cross-entropy, ablated or not", "[model-forward]") {
  const Model m = random_model(test::small_model_config(), 4);
  const auto& t = intervention_tokens;
  const auto losses = token_losses(m, t).value();
  REQUIRE(losses.size() == t.size() - 1);
  AblationOptions logits_only;  // token_losses' own pass: the logits alone
  logits_only.blocks = false;
  const Matrix logits = forward(m, t, logits_only).value().logits;
  double total = 0;
  for (std::size_t i = 0; i + 1 < t.size(); ++i) {
    double z = 0;
    for (std::size_t j = 0; j < logits.cols; ++j) z += std::exp(double(logits(i, j)));
    CHECK(losses[i] == Approx(std::log(z) - logits(i, t[i + 1])).epsilon(1e-9));
    total += losses[i];
  }
  CHECK(total / double(losses.size()) == Approx(next_token_loss(logits, t)).epsilon(1e-12));
  const AblationOptions off{{{0, 0}, {0, 1}, {0, 2}, {0, 3}}, Ablation::zero};
  const auto ablated = token_losses(m, t, off).value();
  const Matrix ablated_logits = forward(m, t, off).value().logits;
  CHECK(ablated[3] != losses[3]);
  CHECK(next_token_loss(ablated_logits, t) ==
        Approx(std::accumulate(ablated.begin(), ablated.end(), 0.0) / double(ablated.size())));
}

TEST_CASE("without blocks: the logits alone, the full pass's within float rounding",
          "[model-forward]") {
  // The full pass runs each head through attention(), the lean one every head through the flash
  // kernel: two implementations, which differ only in the order of their float sums.
  const Model m = random_model(test::small_model_config(), 8);
  HeadReplacement retention;
  retention.family = HeadFamily::retention;
  retention.heads = {{0, 2}};
  retention.retention.decay = 0.9f;
  for (const AblationOptions& with :
       {AblationOptions{}, AblationOptions{{{0, 1}, {1, 3}}, Ablation::zero},
        AblationOptions{{{1, 2}}, Ablation::mean},
        AblationOptions{{{0, 2}}, Ablation::mean, retention}}) {
    AblationOptions without = with;
    without.blocks = false;
    const auto full = forward(m, intervention_tokens, with).value();
    const auto lean = forward(m, intervention_tokens, without).value();
    CHECK(lean.blocks.empty());
    REQUIRE(lean.logits.rows == full.logits.rows);
    REQUIRE(lean.logits.cols == full.logits.cols);
    for (std::size_t i = 0; i < full.logits.data.size(); ++i)
      CHECK(lean.logits.data[i] == Approx(full.logits.data[i]).margin(1e-5));
  }
}

TEST_CASE("attention rollout: 0.5·A + 0.5·I per layer, multiplied through", "[model-forward]") {
  const ModelConfig c = test::small_model_config();
  const Model m = random_model(c, 9);
  const auto& t = intervention_tokens;
  const std::size_t n = t.size();
  const auto rollout = attention_rollout(m, t);
  REQUIRE(rollout.ok());
  REQUIRE(rollout.value().size() == 2);
  const auto f = forward(m, t).value();
  // The oracle: Â per layer in float64, the product written as a sum over the middle token.
  const auto mixed = [&](std::size_t l, std::size_t i, std::size_t j) {
    double a = 0;
    for (const Matrix& head : f.blocks[l].attention) a += head(i, j);
    return 0.5 * a / c.heads + (i == j ? 0.5 : 0.0);  // rows of A sum to 1: Â's rows do too
  };
  for (std::size_t i = 0; i < n; ++i) {
    double sum0 = 0, sum1 = 0;
    for (std::size_t j = 0; j < n; ++j) {
      double product = 0;
      for (std::size_t k = 0; k < n; ++k) product += mixed(1, i, k) * mixed(0, k, j);
      CHECK(rollout.value()[0](i, j) == Approx(mixed(0, i, j)).margin(1e-6));
      CHECK(rollout.value()[1](i, j) == Approx(product).margin(1e-6));
      if (j > i) CHECK(rollout.value()[1](i, j) == 0);  // causal: nothing from later tokens
      sum0 += rollout.value()[0](i, j);
      sum1 += rollout.value()[1](i, j);
    }
    CHECK(std::abs(sum0 - 1) <= 1e-5);
    CHECK(std::abs(sum1 - 1) <= 1e-5);
  }
  CHECK(rollout.value()[0](0, 0) == 1);  // the first token reaches only itself
}

TEST_CASE("ablations, losses and rollout refuse what they cannot do", "[model-forward]") {
  const Model m = random_model(test::small_model_config(), 4);
  const auto& t = intervention_tokens;
  CHECK(forward(m, t, {{{0, 0}, {2, 0}}, Ablation::zero}).error().message ==
        "ablate[1].layer is 2: the layers run from 0 to 1");
  CHECK(forward(m, t, {{{1, -1}}, Ablation::mean}).error().message ==
        "ablate[0].head is -1: the heads run from 0 to 3");
  CHECK(token_losses(m, {7}).error().code == ErrorCode::invalid_argument);
  CHECK(token_losses(m, {}).error().code == ErrorCode::invalid_argument);
  CHECK(token_losses(m, {1, 40}).error().message == "token 1 is 40: token ids run from 0 to 39");
  CHECK(attention_rollout(m, std::vector<int>(17, 1)).error().code == ErrorCode::too_large);
}
