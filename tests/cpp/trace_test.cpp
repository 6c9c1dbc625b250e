// trace(): the order and content of the steps, multi-head attention against the float64
// reference, and permutation equivariance of self-attention.
#include "attnlab/trace.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "attnlab/attention.hpp"
#include "reference_attention.hpp"
#include "test_support.hpp"
#include "trace_names.hpp"

namespace {

using attnlab::PositionalEncoding;
using attnlab::test::random_tokens;

std::vector<std::string> ids(const Trace& t) {
  std::vector<std::string> out;
  for (const TraceStep& s : t.steps) out.push_back(s.id);
  return out;
}

std::vector<std::optional<int>> heads_of(const Trace& t) {
  std::vector<std::optional<int>> out;
  for (const TraceStep& s : t.steps) out.push_back(s.head);
  return out;
}

const std::vector<std::string> head_steps{step::scores, step::scale, step::softmax,
                                          step::aggregate};

std::vector<std::string> concatenated(std::vector<std::vector<std::string>> parts) {
  std::vector<std::string> out;
  for (const auto& part : parts) out.insert(out.end(), part.begin(), part.end());
  return out;
}

// The softmax step shows its parts: exponentials / row_sum == weights, row_max of the logits.
void check_softmax_step(const TraceStep& step, const TraceStep& logits) {
  const Matrix& weights = step.values;
  REQUIRE(step.softmax.has_value());
  const attnlab::SoftmaxParts& softmax = *step.softmax;
  REQUIRE(softmax.row_max.size() == weights.rows);
  REQUIRE(softmax.row_sum.size() == weights.rows);
  REQUIRE(softmax.exponentials.rows == weights.rows);
  REQUIRE(softmax.exponentials.cols == weights.cols);
  REQUIRE(logits.values.rows == weights.rows);
  REQUIRE(logits.values.cols == weights.cols);
  for (std::size_t i = 0; i < weights.rows; ++i) {
    CAPTURE(i);
    const float* row = logits.values.row(i);
    CHECK(softmax.row_max[i] == *std::max_element(row, row + weights.cols));
    for (std::size_t j = 0; j < weights.cols; ++j)
      CHECK(softmax.exponentials(i, j) / softmax.row_sum[i] == Approx(weights(i, j)).margin(1e-6));
  }
}

// Rows of m in the order perm: out(i) = m(perm[i]).
Matrix permute_rows(const Matrix& m, const std::vector<std::size_t>& perm) {
  Matrix out(m.rows, m.cols);
  for (std::size_t i = 0; i < m.rows; ++i) std::copy_n(m.row(perm[i]), m.cols, out.row(i));
  return out;
}

}  // namespace

TEST_CASE("trace lists its steps in order, each complete", "[trace]") {
  TraceInput input;
  std::vector<std::string> expected;
  SECTION("Q, K and V given directly, one head") {
    input = direct(3, 4, 2, 2, 11);
    expected = head_steps;
  }
  SECTION("a mask adds a step after the scale") {
    input = direct(3, 4, 2, 2, 21);
    SECTION("causal") { input.options.causal = true; }
    SECTION("key padding") { input.options.key_padding = {false, true, false, false}; }
    SECTION("boolean mask") { input.options.mask = attnlab::BoolMatrix(3, 4, 1); }
    expected = {step::scores, step::scale, step::mask, step::softmax, step::aggregate};
  }
  SECTION("projections come first") {
    input = random_tokens(5, 6, 4, 3, 31);
    expected = concatenated({{step::project_q, step::project_k, step::project_v}, head_steps});
  }
  SECTION("the sinusoidal encoding comes before the projections") {
    input = random_tokens(5, 6, 4, 3, 41);
    input.positional = PositionalEncoding::sinusoidal;
    expected = concatenated(
        {{step::encoding, step::positional, step::project_q, step::project_k, step::project_v},
         head_steps});
  }
  SECTION("one head with W_O ends with the output projection") {
    input = direct(3, 4, 2, 2, 51);
    input.w_o = random_matrix(2, 5, 54);
    expected = concatenated({head_steps, {step::output_projection}});
  }
  SECTION("two heads without W_O end with the concatenation") {
    input = direct(3, 4, 4, 6, 61);
    input.heads = 2;
    expected = concatenated({head_steps, head_steps, {step::concat}});
  }
  SECTION("two heads with W_O: both heads, the concatenation, the output projection") {
    input = direct(3, 4, 4, 6, 71);
    input.heads = 2;
    input.w_o = random_matrix(6, 5, 74);
    expected = concatenated({head_steps, head_steps, {step::concat, step::output_projection}});
  }

  const Trace t = run(input);
  CHECK(ids(t) == expected);
  REQUIRE(!t.steps.empty());
  for (std::size_t s = 0; s < t.steps.size(); ++s) {
    const TraceStep& current = t.steps[s];
    CAPTURE(s, current.id);
    CHECK_FALSE(current.title.empty());
    CHECK_FALSE(current.formula.empty());
    CHECK_FALSE(current.values.empty());
    REQUIRE(current.row_totals.size() == current.values.rows);
    for (std::size_t i = 0; i < current.values.rows; ++i) {
      CAPTURE(i);
      double total = 0;  // the documented total: masked (−∞) entries left out
      for (std::size_t c = 0; c < current.values.cols; ++c)
        if (std::isfinite(current.values(i, c))) total += current.values(i, c);
      CHECK(current.row_totals[i] == Approx(total).epsilon(1e-5).margin(1e-5));
      if (current.id == step::softmax) CHECK(current.row_totals[i] == Approx(1.0));
    }
    if (current.id == step::softmax) {
      REQUIRE(s > 0);
      check_softmax_step(current, t.steps[s - 1]);
    } else {
      CHECK_FALSE(current.softmax.has_value());
    }
  }
  CHECK(t.output == t.steps.back().values);
}

TEST_CASE("per-head steps carry their head index only when there are several heads", "[trace]") {
  SECTION("one head") {
    const Trace t = run(direct(3, 3, 2, 2, 81));
    CHECK(heads_of(t) == std::vector<std::optional<int>>(4, std::nullopt));
  }
  SECTION("two heads with W_O") {
    TraceInput input = direct(3, 3, 4, 4, 91);
    input.heads = 2;
    input.w_o = random_matrix(4, 3, 94);
    const Trace t = run(input);
    const std::vector<std::optional<int>> expected{0,           0, 0, 0, 1, 1, 1, 1, std::nullopt,
                                                   std::nullopt};
    CHECK(heads_of(t) == expected);
  }
}

TEST_CASE("trace steps have the documented shapes", "[trace]") {
  const std::size_t n = 5, d_model = 6, heads = 2, d_k = 3, d_v = 4, d_out = 7;
  TraceInput input = random_tokens(n, d_model, heads * d_k, heads * d_v, 101);
  input.heads = static_cast<int>(heads);
  input.w_o = random_matrix(heads * d_v, d_out, 105);
  input.options.causal = true;
  const Trace t = run(input);

  const auto shape_of = [&](const std::string& id) {
    const auto it = std::find_if(t.steps.begin(), t.steps.end(),
                                 [&](const TraceStep& s) { return s.id == id; });
    REQUIRE(it != t.steps.end());
    return std::pair{it->values.rows, it->values.cols};
  };
  CHECK(shape_of(step::project_q) == std::pair{n, heads * d_k});
  CHECK(shape_of(step::project_k) == std::pair{n, heads * d_k});
  CHECK(shape_of(step::project_v) == std::pair{n, heads * d_v});
  for (const char* id : {step::scores, step::scale, step::mask, step::softmax})
    CHECK(shape_of(id) == std::pair{n, n});
  CHECK(shape_of(step::aggregate) == std::pair{n, d_v});
  CHECK(shape_of(step::concat) == std::pair{n, heads * d_v});
  CHECK(shape_of(step::output_projection) == std::pair{n, d_out});
  CHECK(t.output.rows == n);
  CHECK(t.output.cols == d_out);
}

TEST_CASE("a one-head trace agrees with attention()", "[trace]") {
  TraceInput input = direct(6, 8, 5, 3, 111);
  input.options.causal = GENERATE(false, true);
  input.options.temperature = 1.7f;
  const auto& qkv = std::get<DirectQKV>(input.source);
  const auto direct_result = attnlab::attention(qkv.q, qkv.k, qkv.v, input.options);
  REQUIRE(direct_result.ok());

  const Trace t = run(input);
  CHECK(t.output == direct_result.value().output);
  CHECK(t.fully_masked_rows ==
        std::vector<std::vector<std::size_t>>{direct_result.value().fully_masked_rows});
}

TEST_CASE("two heads with W_O match the float64 reference", "[trace]") {
  const std::size_t n = 7, heads = 2, d_k = 3, d_v = 4, d_out = 5;
  const bool with_options = GENERATE(false, true);  // causal, explicit scale and temperature
  CAPTURE(with_options);
  TraceInput input;
  SECTION("Q, K and V given directly") { input = direct(n, n + 2, heads * d_k, heads * d_v, 121); }
  SECTION("projections from X") {
    input = random_tokens(n, 6, heads * d_k, heads * d_v, 131);
    SECTION("without positional encoding") {}
    SECTION("with the sinusoidal encoding") { input.positional = PositionalEncoding::sinusoidal; }
  }
  input.heads = static_cast<int>(heads);
  input.w_o = random_matrix(heads * d_v, d_out, 141);
  if (with_options) {
    input.options.causal = true;
    input.options.scale = 0.3f;
    input.options.temperature = 0.8f;
  }

  const Trace t = run(input);
  const auto want = attnlab::test::reference_trace_output(input);
  CHECK(max_abs_diff(t.output, want) <= 1e-5);
  // The concatenation holds each head's aggregate side by side.
  const auto concat = std::find_if(t.steps.begin(), t.steps.end(),
                                   [](const TraceStep& s) { return s.id == step::concat; });
  REQUIRE(concat != t.steps.end());
  std::size_t head = 0;
  for (const TraceStep& s : t.steps)
    if (s.id == step::aggregate) {
      CAPTURE(head);
      CHECK(s.values == attnlab::column_slice(concat->values, head * d_v, d_v));
      ++head;
    }
  CHECK(head == heads);
}

TEST_CASE("the multi-head reference splits the columns into equal slices", "[trace]") {
  // With W_Q = [A | B] and both heads seeing the same A = B, the two heads compute the same
  // weights, so a two-head trace with W_V = [C | C] gives the same output in both halves.
  const Matrix x = random_matrix(4, 3, 151);
  const Matrix a = random_matrix(3, 2, 152), c = random_matrix(3, 2, 153);
  const auto doubled = [](const Matrix& m) {
    Matrix out(m.rows, 2 * m.cols);
    for (std::size_t r = 0; r < m.rows; ++r)
      for (std::size_t k = 0; k < m.cols; ++k) out(r, k) = out(r, k + m.cols) = m(r, k);
    return out;
  };
  TraceInput input;
  input.source = Projections{x, doubled(a), doubled(a), doubled(c)};
  input.heads = 2;
  const Trace t = run(input);
  REQUIRE(t.output.cols == 4);
  CHECK(max_abs_diff(attnlab::column_slice(t.output, 0, 2),
                     attnlab::column_slice(t.output, 2, 2)) <= 1e-6);
  CHECK(max_abs_diff(t.output, attnlab::test::reference_trace_output(input)) <= 1e-5);
}

TEST_CASE("self-attention is permutation-equivariant without positional encoding", "[trace]") {
  const int heads = GENERATE(1, 2);
  CAPTURE(heads);
  TraceInput input = random_tokens(6, 8, 4, 6, 161);
  input.heads = heads;
  const Matrix x = std::get<Projections>(input.source).x;
  const std::vector<std::size_t> perm{3, 0, 5, 1, 4, 2};
  TraceInput permuted = input;
  std::get<Projections>(permuted.source).x = permute_rows(x, perm);

  SECTION("no positional encoding: the output rows follow the permutation") {
    const Trace plain = run(input);
    const Trace shuffled = run(permuted);
    CHECK(max_abs_diff(shuffled.output, permute_rows(plain.output, perm)) <= 1e-5);
  }
  SECTION("the sinusoidal encoding breaks the symmetry") {
    input.positional = permuted.positional = PositionalEncoding::sinusoidal;
    const Trace plain = run(input);
    const Trace shuffled = run(permuted);
    CHECK(max_abs_diff(shuffled.output, permute_rows(plain.output, perm)) > 1e-3);
  }
}

TEST_CASE("the trace reports the fully masked rows", "[trace]") {
  TraceInput input = direct(4, 4, 4, 4, 171);
  input.heads = 2;
  input.options.causal = true;
  input.options.key_padding = {true, false, false, false};
  const Trace t = run(input);

  CHECK(t.fully_masked_rows == std::vector<std::vector<std::size_t>>{{0}, {0}});
  for (std::size_t c = 0; c < t.output.cols; ++c) CHECK(t.output(0, c) == 0.0f);
  // The softmax title says what such a row is, rather than that every row sums to 1.
  for (const TraceStep& s : t.steps)
    if (s.id == step::softmax) CHECK_THAT(s.title, Catch::Contains("every key masked"));
  CHECK(max_abs_diff(t.output, attnlab::test::reference_trace_output(input)) <= 1e-5);
}

TEST_CASE("the fully masked rows are listed per head", "[trace]") {
  // A bias per head (heads·n_q rows) that blocks every key of query 2 in head 1 only.
  TraceInput input = direct(4, 4, 4, 4, 173);
  input.heads = 2;
  Matrix bias(8, 4);
  for (std::size_t j = 0; j < 4; ++j) bias(4 + 2, j) = -std::numeric_limits<float>::infinity();
  input.options.bias = bias;
  const Trace t = run(input);

  CHECK(t.fully_masked_rows == std::vector<std::vector<std::size_t>>{{}, {2}});
  CHECK(t.output(2, 0) != 0.0f);  // head 0's columns (d_v = 2 each): query 2 sees every key
  CHECK(t.output(2, 2) == 0.0f);
  CHECK(t.output(2, 3) == 0.0f);
}
