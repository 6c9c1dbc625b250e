// Head scores on constructed attention patterns whose scores are known.
#include <catch2/catch.hpp>

#include "attnlab/head_scores.hpp"

using namespace attnlab;

namespace {

// Each query i attends fully to key pick(i) (query 0 to itself).
template <class Pick>
Matrix one_hot_pattern(std::size_t n, Pick pick) {
  Matrix a(n, n);
  a(0, 0) = 1;
  for (std::size_t i = 1; i < n; ++i) a(i, pick(i)) = 1;
  return a;
}

}  // namespace

TEST_CASE("head scores of constructed patterns", "[model-head-scores]") {
  const std::size_t n = 8, period = 4;
  SECTION("previous-token head") {
    const auto s = head_scores(one_hot_pattern(n, [](std::size_t i) { return i - 1; }), period);
    REQUIRE(s.ok());
    CHECK(s.value().previous_token == 1.0);
    CHECK(s.value().first_token == Approx(1.0 / 7));  // query 1's previous token is token 0
    CHECK(*s.value().duplicate_token == 0.0);
    CHECK(*s.value().induction == 0.0);
  }
  SECTION("induction head: the token after the earlier copy") {
    const auto s = head_scores(
        one_hot_pattern(n, [&](std::size_t i) { return i >= period ? i - period + 1 : 0; }),
        period);
    REQUIRE(s.ok());
    CHECK(*s.value().induction == 1.0);
    CHECK(*s.value().duplicate_token == 0.0);
    CHECK(s.value().first_token == Approx(3.0 / 7));  // queries 1, 2, 3
  }
  SECTION("duplicate-token head, half its weight on the sink") {
    Matrix a(n, n);
    a(0, 0) = 1;
    for (std::size_t i = 1; i < n; ++i) {
      a(i, 0) += 0.5f;
      a(i, i >= period ? i - period : i) += 0.5f;
    }
    const auto s = head_scores(a, period);
    REQUIRE(s.ok());
    CHECK(*s.value().duplicate_token == Approx(0.5 + 0.5 / 4));  // query 4's copy is token 0
    CHECK(s.value().first_token == Approx((0.5 * 6 + 1.0) / 7));
  }
  SECTION("uniform causal weights") {
    Matrix a(4, 4);
    for (std::size_t i = 0; i < 4; ++i)
      for (std::size_t j = 0; j <= i; ++j) a(i, j) = 1.0f / static_cast<float>(i + 1);
    const auto s = head_scores(a, 0);
    REQUIRE(s.ok());
    CHECK(s.value().previous_token == Approx((1.0 / 2 + 1.0 / 3 + 1.0 / 4) / 3));
    CHECK(!s.value().induction.has_value());
    CHECK(!s.value().duplicate_token.has_value());
  }
}

TEST_CASE("a head's role: the score furthest above uniform attention's, if twice it",
          "[model-head-scores]") {
  const std::size_t n = 8, period = 4;
  // Uniform causal attention's previous-token score on queries 1 … 7, written out.
  const double uniform_all =
      (1.0 / 2 + 1.0 / 3 + 1.0 / 4 + 1.0 / 5 + 1.0 / 6 + 1.0 / 7 + 1.0 / 8) / 7;
  const auto role = [&](const Matrix& a, std::size_t p) {
    const auto s = head_scores(a, p);
    REQUIRE(s.ok());
    return std::pair{s.value().role, s.value().role_score};
  };
  CHECK(role(one_hot_pattern(n, [](std::size_t i) { return i - 1; }), period) ==
        std::pair{std::string("previous-token"), 1.0});
  CHECK(role(one_hot_pattern(n, [](std::size_t) { return std::size_t{0}; }), 0) ==
        std::pair{std::string("first-token"), 1.0});
  CHECK(role(one_hot_pattern(n, [&](std::size_t i) { return i >= period ? i - period + 1 : 0; }),
             period) == std::pair{std::string("induction"), 1.0});
  CHECK(
      role(one_hot_pattern(n, [&](std::size_t i) { return i >= period ? i - period : i; }), period)
          .first == "duplicate-token");
  SECTION("uniform weights are spread") {
    Matrix a(n, n);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j <= i; ++j) a(i, j) = 1.0f / static_cast<float>(i + 1);
    CHECK(role(a, period).first == "spread");
  }
  SECTION("a previous-token weight of 1.9 times uniform's is spread, 2.1 times is a role") {
    for (const double factor : {1.9, 2.1}) {
      // Each query i gives w_i to its previous token and the rest evenly to the others, so
      // the previous-token score is factor · uniform_all; the first token gets less.
      Matrix a(n, n);
      a(0, 0) = 1;
      const double target = factor * uniform_all;
      for (std::size_t i = 1; i < n; ++i) {
        const double w = target;
        a(i, i - 1) = static_cast<float>(w);
        for (std::size_t j = 0; j <= i; ++j)
          if (j != i - 1) a(i, j) = static_cast<float>((1 - w) / static_cast<double>(i));
      }
      const auto [name, score] = role(a, 0);
      CHECK(score == Approx(target));
      CHECK(name == (factor > 2 ? "previous-token" : "spread"));
    }
  }
}

TEST_CASE("head scores refuse what they cannot score", "[model-head-scores]") {
  CHECK(head_scores(Matrix(3, 4), 0).error().code == ErrorCode::shape_mismatch);
  CHECK(head_scores(Matrix(1, 1), 0).error().code == ErrorCode::invalid_argument);
  const auto e = head_scores(Matrix(6, 6), 4);
  REQUIRE(!e.ok());
  CHECK(e.error().message == "a period of 4 tokens repeats past the 6 tokens of the weights");
}

TEST_CASE("the induction probe repeats its random tokens", "[model-head-scores]") {
  const auto t = repeated_random_tokens(512, 20, 9);
  REQUIRE(t.size() == 40);
  for (std::size_t i = 0; i < 20; ++i) {
    CHECK(t[i] == t[i + 20]);
    CHECK(((t[i] >= 32 && t[i] < 127) || (t[i] >= 256 && t[i] < 512)));
  }
  CHECK(t != repeated_random_tokens(512, 20, 10));
}
