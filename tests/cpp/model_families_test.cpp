// Heads of the little model replaced by a cheaper attention (issue 37): the replaced head's
// weights are its family's for that head's own Q, K and V (formed here in float64 from the
// block's LayerNorm output and the head's columns), its output reaches W_O, and the families
// that can equal softmax give the model back.
#include <catch2/catch.hpp>

#include "attnlab/model.hpp"
#include "model_support.hpp"
#include "test_support.hpp"

using namespace attnlab;
using test::ok;

namespace {

const std::vector<int> text{5, 9, 2, 33, 9, 2, 17, 0, 39, 5, 9, 2, 17, 8};

// x (n, d) · w (d, d_head), summed in float64, rounded once.
Matrix times(const Matrix& x, const Matrix& w) {
  Matrix out(x.rows, w.cols);
  for (std::size_t i = 0; i < x.rows; ++i)
    for (std::size_t j = 0; j < w.cols; ++j) {
      double s = 0;
      for (std::size_t k = 0; k < x.cols; ++k) s += double(x(i, k)) * w(k, j);
      out(i, j) = static_cast<float>(s);
    }
  return out;
}

HeadReplacement one_head(HeadFamily family, int layer, int head) {
  HeadReplacement r;
  r.family = family;
  r.heads = {{layer, head}};
  r.linear.feature_map = FeatureMap::elu;
  r.retention.decay = 0.9f;
  r.low_rank.rank = 3;
  r.sparse.window = 2;
  r.sparse.global_tokens = {0};
  return r;
}

// The family's own entry on one head's Q, K, V: its weights, causal as the model is.
Matrix family_weights(const HeadReplacement& r, const Matrix& q, const Matrix& k, const Matrix& v) {
  switch (r.family) {
    case HeadFamily::linear: {
      auto o = r.linear;
      o.causal = true;
      return *ok(linear_attention(q, k, v, o)).weights;
    }
    case HeadFamily::retention:
      return *ok(retention(q, k, v, r.retention)).weights;
    case HeadFamily::low_rank: {
      auto o = r.low_rank;
      o.causal = true;
      return *ok(low_rank_attention(q, k, v, o)).weights;
    }
    default: {  // sparse: attention() under the pattern and the causal rule
      auto o = r.sparse;
      o.queries = q.rows;
      AttentionOptions masked;
      masked.causal = true;
      masked.mask = ok(sparse_pattern(o)).mask;
      return ok(attention(q, k, v, masked)).softmax.weights;
    }
  }
}

}  // namespace

TEST_CASE("a replaced head's weights are its family's for the head's own Q, K and V",
          "[model-families]") {
  const ModelConfig c = test::small_model_config();
  const Model m = test::random_model(c, 21);
  const auto plain = ok(forward(m, text));
  const int layer = 1, head = 2;
  const auto w = ok(head_weights(m, layer, head));
  const ModelBlockForward& b = plain.blocks[layer];
  const Matrix q = times(b.norm1, w.w_q), k = times(b.norm1, w.w_k), v = times(b.norm1, w.w_v);
  for (HeadFamily family :
       {HeadFamily::linear, HeadFamily::retention, HeadFamily::low_rank, HeadFamily::sparse}) {
    INFO("family " << head_family_names[static_cast<int>(family)]);
    AblationOptions o;
    o.replace = one_head(family, layer, head);
    const auto replaced = ok(forward(m, text, o));
    CHECK(replaced.blocks[0].output == plain.blocks[0].output);  // the layer before: untouched
    const ModelBlockForward& r = replaced.blocks[layer];
    for (int h = 0; h < c.heads; ++h)
      if (h != head) CHECK(r.attention[h] == b.attention[h]);
    const Matrix expected = family_weights(o.replace, q, k, v);
    CHECK(test::max_abs_diff(r.attention[head], expected) <= 1e-5);
    CHECK(test::max_abs_diff(r.attention[head], b.attention[head]) > 1e-3);
    // Its output reaches W_O: the attention output moves by (z_new − z_old)·W_O[head rows].
    CHECK(!(r.attention_output == b.attention_output));
    CHECK(!(replaced.logits == plain.logits));
  }
}

TEST_CASE("families that can equal softmax give the model back", "[model-families]") {
  const Model m = test::random_model(test::small_model_config(), 7);
  const auto plain = ok(forward(m, text));
  AblationOptions full_rank;
  full_rank.replace = one_head(HeadFamily::low_rank, 0, 1);
  full_rank.replace.all = true;
  full_rank.replace.low_rank.rank = text.size();  // A_n = A (Eckart–Young with nothing left)
  CHECK(test::max_abs_diff(ok(forward(m, text, full_rank)).logits, plain.logits) <= 1e-4);
  AblationOptions everything;  // a window as wide as the text hides no key
  everything.replace = one_head(HeadFamily::sparse, 1, 3);
  everything.replace.sparse.window = text.size();
  CHECK(test::max_abs_diff(ok(forward(m, text, everything)).logits, plain.logits) <= 1e-6);
  AblationOptions softmax;  // "replaced" by softmax: the same bits
  softmax.replace.heads = {{0, 0}, {1, 1}};
  softmax.replace.all = true;
  CHECK(ok(forward(m, text, softmax)).logits == plain.logits);
}

TEST_CASE("every head replaced, and the losses under it", "[model-families]") {
  const Model m = test::random_model(test::small_model_config(), 3);
  AblationOptions o;
  o.replace = one_head(HeadFamily::linear, 0, 0);
  o.replace.heads.clear();
  o.replace.all = true;
  const auto f = ok(forward(m, text, o));
  for (const auto& block : f.blocks)
    for (const Matrix& a : block.attention)
      for (std::size_t i = 0; i < a.rows; ++i) {
        double row = 0;
        for (std::size_t j = 0; j < a.cols; ++j) {
          if (j > i) CHECK(a(i, j) == 0.0f);
          row += a(i, j);
        }
        CHECK(row == Approx(1.0).margin(1e-5));
      }
  const auto losses = ok(token_losses(m, text, o));
  CHECK(losses.size() == text.size() - 1);
  CHECK(losses != ok(token_losses(m, text)));
}

TEST_CASE("a replacement's errors name what is wrong", "[model-families]") {
  const Model m = test::random_model(test::small_model_config(), 3);
  AblationOptions o;
  o.replace = one_head(HeadFamily::linear, 2, 0);
  auto r = forward(m, text, o);
  REQUIRE(!r);
  CHECK(r.error().message.find("replace.heads[0].layer is 2") != std::string::npos);
  o.replace = one_head(HeadFamily::retention, 0, 0);
  o.replace.retention.decay.reset();
  CHECK(forward(m, text, o).error().code == ErrorCode::invalid_argument);
  o.replace = one_head(HeadFamily::low_rank, 0, 0);
  o.replace.low_rank.method = LowRankMethod::linformer;
  CHECK(forward(m, text, o).error().code == ErrorCode::invalid_argument);
}
