// An imported attention (attention_import.hpp): accepted and scored when it is weights over
// the tokens, refused naming the layer, head and row otherwise.
#include "attnlab/attention_import.hpp"

#include <catch2/catch.hpp>

#include "attnlab/limits.hpp"

using namespace attnlab;

namespace {

// Causal uniform weights over n tokens: row i spreads 1 over keys 0 … i.
Matrix uniform(std::size_t n) {
  Matrix a(n, n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j <= i; ++j) a(i, j) = 1.0f / static_cast<float>(i + 1);
  return a;
}

Matrix previous_token(std::size_t n) {
  Matrix a(n, n);
  a(0, 0) = 1;
  for (std::size_t i = 1; i < n; ++i) a(i, i - 1) = 1;
  return a;
}

}  // namespace

TEST_CASE("an imported attention is scored head by head", "[attention-import]") {
  const auto r =
      check_attention_import({{uniform(5), previous_token(5)}, {previous_token(5), uniform(5)}}, 5);
  REQUIRE(r.ok());
  REQUIRE(r.value().size() == 2);
  CHECK(r.value()[0][1].role == "previous-token");
  CHECK(r.value()[0][1].previous_token == 1.0);
  CHECK(r.value()[1][0].role == "previous-token");
  CHECK(r.value()[0][0].role == "spread");
}

TEST_CASE("a bad import is refused naming what is wrong", "[attention-import]") {
  const auto message = [](const std::vector<std::vector<Matrix>>& a, std::size_t n) {
    const auto r = check_attention_import(a, n);
    REQUIRE(!r.ok());
    return std::pair{r.error().code, r.error().message};
  };
  CHECK(message({{uniform(5)}}, 4) ==
        std::pair{ErrorCode::shape_mismatch,
                  std::string("layer 1, head 1 is 5×5, but there are 4 tokens: each head's weights "
                              "must be 4×4 (a row per query, a column per key)")});
  CHECK(message({{uniform(3), uniform(3)}, {uniform(3)}}, 3).second ==
        "layer 2 has 1 heads but layer 1 has 2: every layer needs the same heads");
  Matrix off = uniform(4);
  off(2, 0) = 0.25f;  // row 3 sums to 0.25 + 1/3 + 1/3
  CHECK(message({{uniform(4)}, {off}}, 4) ==
        std::pair{ErrorCode::invalid_argument,
                  std::string("layer 2, head 1, row 3 sums to 0.9167, not 1 (within 0.01): each "
                              "row must be one query's softmax weights")});
  Matrix negative = previous_token(3);
  negative(2, 0) = -0.5f;
  negative(2, 1) = 1.5f;
  CHECK(message({{negative}}, 3).second ==
        "layer 1, head 1, row 3, column 1 is -0.5: attention weights lie in 0 … 1");
  Matrix nan = uniform(3);
  nan(1, 1) = NAN;
  CHECK(message({{nan}}, 3).first == ErrorCode::non_finite);
  CHECK(message({}, 3).first == ErrorCode::empty);
  CHECK(message({{}}, 3).first == ErrorCode::empty);
  CHECK(message({{uniform(1)}}, 1).first == ErrorCode::invalid_argument);
  CHECK(message({{uniform(2)}}, limits::trace_tokens + 1).first == ErrorCode::too_large);
  // Within the tolerance: a row off by 0.005 (float16 rounding) is accepted.
  Matrix rounded = uniform(3);
  rounded(2, 2) += 0.005f;
  CHECK(check_attention_import({{rounded}}, 3).ok());
}

TEST_CASE("an import past importValues is too large", "[attention-import]") {
  // 17 layers × 1 head × 512 × 512 = 4,456,448 > 4,194,304 weights: refused before any is read.
  const std::vector<std::vector<Matrix>> layers(17, std::vector<Matrix>{Matrix(1, 1)});
  const auto r = check_attention_import(layers, 512);
  REQUIRE(!r.ok());
  CHECK(r.error().code == ErrorCode::too_large);
  CHECK(r.error().message ==
        "17 layers × 1 heads × 512 × 512 tokens are more than 4194304 weights "
        "(lab.limits().importValues)");
}
