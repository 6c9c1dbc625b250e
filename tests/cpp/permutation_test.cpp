// permutation_check(): without positions, reordering the tokens only reorders the output rows
// (up to float rounding); sinusoidal positions and a causal mask break that; every bad input
// gets its error. Outputs are compared with the float64 reference trace.
#include "attnlab/permutation.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstddef>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "reference_attention.hpp"
#include "test_support.hpp"

namespace attnlab::test {
namespace {

using Order = std::vector<std::size_t>;

// Without positions the two outputs differ only by the order of float sums: the core's own
// bound, permutation_tolerance · max(1, max |output|), and this absolute one for unit-scale
// random inputs.
constexpr double float_tolerance = 1e-5;
// Against the float64 reference trace.
constexpr double reference_tolerance = 1e-5;

// The error permutation_check reports; fails the test when it reports none.
attnlab::Error error_of(const TraceInput& input, const Order& order) {
  const auto r = attnlab::permutation_check(input, order);
  REQUIRE_FALSE(r);
  return r.error();
}

Order identity(std::size_t n) {
  Order order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  return order;
}

// A uniformly random permutation of 0…n−1 that is not the identity (n ≥ 2).
Order shuffled(std::size_t n, std::uint32_t seed) {
  std::mt19937 engine(seed);
  Order order = identity(n);
  do std::shuffle(order.begin(), order.end(), engine);
  while (order == identity(n));
  return order;
}

// out row i = m row order[i], written independently of the core.
Matrix reordered(const Matrix& m, const Order& order) {
  Matrix out(m.rows, m.cols);
  for (std::size_t i = 0; i < m.rows; ++i)
    for (std::size_t c = 0; c < m.cols; ++c) out(i, c) = m(order.at(i), c);
  return out;
}

PermutationCheck check_of(const TraceInput& input, const Order& order) {
  auto result = attnlab::permutation_check(input, order);
  if (!result) FAIL(attnlab::to_string(result.error().code) << ": " << result.error().message);
  return std::move(result).value();
}

// The parts agree with each other and with the float64 reference of both traces.
void check_consistent(const TraceInput& input, const Order& order, const PermutationCheck& c) {
  CHECK(max_abs_diff(c.original, attnlab::test::reference_trace_output(input)) <=
        reference_tolerance);
  TraceInput moved = input;
  auto& x = std::get<Projections>(moved.source).x;
  x = reordered(x, order);
  CHECK(max_abs_diff(c.permuted, attnlab::test::reference_trace_output(moved)) <=
        reference_tolerance);
  CHECK(c.predicted == reordered(c.original, order));
  CHECK(c.max_difference == max_abs_diff(c.permuted, c.predicted));
  const double largest =
      std::max(1.0, max_abs_diff(c.original, Matrix(c.original.rows, c.original.cols)));
  CHECK(c.tolerance == Approx(attnlab::permutation_tolerance * largest));
  CHECK(c.reordered_only == (c.max_difference <= c.tolerance));
}

}  // namespace

TEST_CASE("without positions, reordering the tokens only reorders the output rows",
          "[permutation]") {
  const int heads = GENERATE(1, 2);
  const bool with_w_o = GENERATE(false, true);
  const std::uint32_t seed = GENERATE(range(1u, 9u));
  const std::size_t n = 2 + seed % 7;  // 3 … 8 tokens
  CAPTURE(heads, with_w_o, seed, n);
  TraceInput input = random_tokens(n, 8, 4, 6, 100 * seed);
  input.heads = heads;
  if (with_w_o) input.w_o = random_matrix(6, 5, 100 * seed + 7, 0.5f);
  const Order order = shuffled(n, seed);
  CAPTURE(order);

  const PermutationCheck c = check_of(input, order);
  check_consistent(input, order, c);
  CHECK(c.max_difference <= float_tolerance);
  CHECK(c.reordered_only);
}

TEST_CASE("with sinusoidal positions, a reordering changes the outputs", "[permutation]") {
  const std::uint32_t seed = GENERATE(range(1u, 9u));
  const std::size_t n = 2 + seed % 7;
  CAPTURE(seed, n);
  TraceInput input = random_tokens(n, 8, 4, 6, 200 * seed);
  input.positional = PositionalEncoding::sinusoidal;
  // A random shuffle, and the smallest change: swapping the first two tokens.
  Order swap = identity(n);
  std::swap(swap[0], swap[1]);
  const Order order = GENERATE_COPY(shuffled(n, seed), swap);
  CAPTURE(order);

  const PermutationCheck c = check_of(input, order);
  check_consistent(input, order, c);
  // 1000 times the float tolerance: a real change, not rounding.
  CHECK(c.max_difference > 1000 * float_tolerance);
  CHECK_FALSE(c.reordered_only);
}

TEST_CASE("the identity permutation gives a difference of exactly 0", "[permutation]") {
  const auto positional = GENERATE(PositionalEncoding::none, PositionalEncoding::sinusoidal);
  const bool causal = GENERATE(false, true);
  CAPTURE(positional == PositionalEncoding::sinusoidal, causal);
  TraceInput input = random_tokens(5, 6, 4, 4, 31);
  input.positional = positional;
  input.options.causal = causal;
  const PermutationCheck c = check_of(input, identity(5));
  CHECK(c.max_difference == 0.0);
  CHECK(c.reordered_only);
  CHECK(c.permuted == c.original);
  CHECK(c.predicted == c.original);
}

TEST_CASE("a causal mask also breaks equivariance: the mask belongs to positions",
          "[permutation]") {
  TraceInput input = random_tokens(6, 8, 4, 6, 41);
  input.options.causal = true;
  const Order order{5, 4, 3, 2, 1, 0};  // reversed: the first token now sees everything
  const PermutationCheck c = check_of(input, order);
  check_consistent(input, order, c);
  CHECK(c.max_difference > 1000 * float_tolerance);
  CHECK_FALSE(c.reordered_only);
}

TEST_CASE("one token: the only permutation changes nothing", "[permutation]") {
  TraceInput input = random_tokens(1, 4, 2, 2, 51);
  input.positional = PositionalEncoding::sinusoidal;
  const PermutationCheck c = check_of(input, {0});
  CHECK(c.max_difference == 0.0);
  CHECK(c.original.rows == 1);
}

TEST_CASE("every error names what is wrong: length, duplicates, range, the source",
          "[permutation]") {
  struct Case {
    const char* name;
    Order order;
    const char* needle;  // part of the message
  };
  const TraceInput four = random_tokens(4, 6, 4, 4, 61);
  const Case cases[] = {
      {"too short", {0, 1, 2}, "order has 3 entries but X (4 tokens)"},
      {"too long", {0, 1, 2, 3, 0}, "order has 5 entries"},
      {"empty", {}, "order has 0 entries"},
      {"duplicate", {0, 2, 2, 1}, "order lists token 2 twice (order[1] and order[2])"},
      {"out of range", {0, 1, 4, 2}, "order[2] = 4 is out of range: tokens are numbered 0 to 3"},
      {"huge", {0, 1, 2, std::size_t(-1)}, "is out of range"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    const attnlab::Error e = error_of(four, c.order);
    CHECK(e.code == ErrorCode::invalid_argument);
    CHECK_THAT(e.message, Catch::Contains(c.needle));
  }

  SECTION("Q, K and V given directly: there are no tokens to reorder") {
    TraceInput direct;
    direct.source = attnlab::test::random_qkv(3, 3, 2, 2, 1);
    const attnlab::Error e = error_of(direct, identity(3));
    CHECK(e.code == ErrorCode::invalid_argument);
    CHECK_THAT(e.message, Catch::Contains("needs X with Wq, Wk and Wv"));
  }
  SECTION("a bad trace input gets trace()'s own error") {
    TraceInput bad = four;
    std::get<Projections>(bad.source).w_k = random_matrix(5, 4, 9);  // 5 rows, X has 6 columns
    const attnlab::Error e = error_of(bad, identity(4));
    CHECK(e.code == ErrorCode::shape_mismatch);
    CHECK_THAT(e.message, Catch::Contains("Wk"));
  }
  SECTION("an empty X is reported as empty, not as a wrong order") {
    TraceInput empty = four;
    std::get<Projections>(empty.source).x = Matrix(0, 6);
    CHECK(error_of(empty, {}).code == ErrorCode::empty);
  }
}

}  // namespace attnlab::test
