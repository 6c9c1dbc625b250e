// trace(): the order and content of the steps, multi-head attention against the float64
// reference, and permutation equivariance of self-attention.
#include "attnlab/trace.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstddef>
#include <limits>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "attnlab/attention.hpp"
#include "reference_attention.hpp"
#include "test_support.hpp"
#include "trace_names.hpp"

namespace {

using attnlab::PositionalEncoding;
using attnlab::test::random_tokens;

Trace run(const TraceInput& input) { return ok(attnlab::trace(input)); }

// Q (n_q, heads·d_k), K (n_k, heads·d_k), V (n_k, heads·d_v), from seeds base, base+1, base+2.
TraceInput direct(std::size_t n_q, std::size_t n_k, std::size_t qk_width, std::size_t v_width,
                  std::uint32_t seed) {
  TraceInput input;
  input.source = attnlab::test::random_qkv(n_q, n_k, qk_width, v_width, seed);
  return input;
}

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

namespace {

// A trace input with every step: projections (positions optional), heads, causal, W_O.
TraceInput full_input(std::size_t heads, bool positions, std::uint32_t seed) {
  const std::size_t n = 5, d_k = 3, d_v = 2;
  TraceInput input = random_tokens(n, 6, heads * d_k, heads * d_v, seed);
  input.heads = static_cast<int>(heads);
  input.positional = positions ? PositionalEncoding::sinusoidal : PositionalEncoding::none;
  input.options.causal = true;
  input.w_o = random_matrix(heads * d_v, 4, seed + 7);
  return input;
}

struct OperandView {
  std::string name, symbol;
  std::optional<int> head;
  std::size_t rows, cols;
  bool operator==(const OperandView&) const = default;
};

std::vector<OperandView> operands_of(const Trace& t, const TraceStep& s) {
  std::vector<OperandView> out;
  for (const attnlab::Operand& o : s.operands) {
    const Matrix& m = attnlab::operand_values(t, o);
    out.push_back({o.name, o.symbol, o.head, m.rows, m.cols});
  }
  return out;
}

std::optional<int> head_field(std::size_t heads, std::size_t h) {
  return heads > 1 ? std::optional<int>(static_cast<int>(h)) : std::nullopt;
}

// max |a - b| between a float32 matrix and a float64 one of the same shape.
double diff(const Matrix& a, const attnlab::test::MatrixD& b) { return max_abs_diff(a, b); }

}  // namespace

TEST_CASE("titles carry no head suffix: the head is a field", "[trace]") {
  const Trace t = run(full_input(3, true, 201));
  for (const TraceStep& s : t.steps) {
    CAPTURE(s.id, s.title);
    CHECK(s.title.find("(head") == std::string::npos);
    CHECK(s.title.back() != ')');
  }
  // Every head's entry of a step has the same title.
  for (const TraceStep& a : t.steps)
    for (const TraceStep& b : t.steps)
      if (a.id == b.id) CHECK(a.title == b.title);
}

TEST_CASE("each step lists its operands by name, symbol, head and shape", "[trace]") {
  const std::size_t heads = GENERATE(1, 2);
  const bool positions = GENERATE(false, true);
  CAPTURE(heads, positions);
  const std::size_t n = 5, d_model = 6, d_k = 3, d_v = 2, d_out = 4;
  const Trace t = run(full_input(heads, positions, 211));

  using V = std::vector<OperandView>;
  const OperandView x = positions ? OperandView{"positional", "X + PE", {}, n, d_model}
                                  : OperandView{"X", "X", {}, n, d_model};
  std::size_t head = 0;
  for (const TraceStep& s : t.steps) {
    CAPTURE(s.id, s.head);
    const std::optional<int> h = s.head;
    if (s.id == step::encoding) CHECK(operands_of(t, s).empty());
    if (s.id == step::positional)
      CHECK(operands_of(t, s) == V{{"X", "X", {}, n, d_model}, {"encoding", "PE", {}, n, d_model}});
    if (s.id == step::project_q)
      CHECK(operands_of(t, s) == V{x, {"Wq", "W_Q", {}, d_model, heads * d_k}});
    if (s.id == step::project_k)
      CHECK(operands_of(t, s) == V{x, {"Wk", "W_K", {}, d_model, heads * d_k}});
    if (s.id == step::project_v)
      CHECK(operands_of(t, s) == V{x, {"Wv", "W_V", {}, d_model, heads * d_v}});
    if (s.id == step::scores) {
      CHECK(h == head_field(heads, head));
      CHECK(operands_of(t, s) == V{{"project-q", "Q", h, n, d_k}, {"project-k", "K", h, n, d_k}});
    }
    if (s.id == step::scale) CHECK(operands_of(t, s) == V{{"scores", "S", h, n, n}});
    if (s.id == step::mask) CHECK(operands_of(t, s) == V{{"scale", "S̃", h, n, n}});
    if (s.id == step::softmax) CHECK(operands_of(t, s) == V{{"mask", "S̃", h, n, n}});
    if (s.id == step::aggregate) {
      CHECK(operands_of(t, s) == V{{"softmax", "A", h, n, n}, {"project-v", "V", h, n, d_v}});
      ++head;
    }
    if (s.id == step::concat) {
      V want;
      for (std::size_t i = 0; i < heads; ++i)
        want.push_back({"aggregate", "O", head_field(heads, i), n, d_v});
      CHECK(operands_of(t, s) == want);
    }
    if (s.id == step::output_projection)
      CHECK(operands_of(t, s) == V{heads > 1 ? OperandView{"concat", "C", {}, n, heads * d_v}
                                             : OperandView{"aggregate", "O", {}, n, d_v},
                                   {"Wo", "W_O", {}, heads * d_v, d_out}});
  }
  CHECK(head == heads);
}

TEST_CASE("without a mask the softmax reads the scale step; direct inputs are named Q, K, V",
          "[trace]") {
  const std::size_t heads = GENERATE(1, 2);
  TraceInput input = direct(3, 4, heads * 2, heads * 3, 221);
  input.heads = static_cast<int>(heads);
  const Trace t = run(input);
  for (const TraceStep& s : t.steps) {
    CAPTURE(s.id, s.head);
    REQUIRE_FALSE(s.operands.empty());
    if (s.id == step::softmax) CHECK(s.operands[0].name == step::scale);
    if (s.id == step::scores) {
      CHECK(s.operands[0].name == "Q");
      CHECK(s.operands[1].name == "K");
    }
    if (s.id == step::aggregate) CHECK(s.operands[1].name == "V");
  }
}

TEST_CASE("operands that are step results refer to an earlier step of that id and head",
          "[trace]") {
  const std::size_t heads = GENERATE(1, 3);
  const Trace t = run(full_input(heads, true, 231));
  for (std::size_t i = 0; i < t.steps.size(); ++i)
    for (const attnlab::Operand& o : t.steps[i].operands) {
      CAPTURE(t.steps[i].id, o.name);
      CHECK(o.step.has_value() != o.values.has_value());  // one or the other
      if (!o.step) continue;
      REQUIRE(*o.step < i);
      CHECK(t.steps[*o.step].id == o.name);
      CHECK(t.steps[*o.step].head == o.head);
    }
}

TEST_CASE("the scores' operands are the column slices of Q and K for their head", "[trace]") {
  const std::size_t heads = GENERATE(1, 2, 3);
  const bool projected = GENERATE(false, true);
  CAPTURE(heads, projected);
  const std::size_t d_k = 2, d_v = 3;
  TraceInput input = projected ? random_tokens(4, 5, heads * d_k, heads * d_v, 241)
                               : direct(4, 6, heads * d_k, heads * d_v, 241);
  input.heads = static_cast<int>(heads);
  if (projected) input.positional = PositionalEncoding::sinusoidal;
  const Trace t = run(input);
  const attnlab::test::ReferenceQkv want = attnlab::test::reference_qkv(input);
  using attnlab::test::reference_columns;

  std::size_t h = 0;
  for (const TraceStep& s : t.steps) {
    if (s.id == step::scores) {
      CAPTURE(h);
      REQUIRE(s.operands.size() == 2);
      CHECK(diff(attnlab::operand_values(t, s.operands[0]),
                 reference_columns(want.q, h * d_k, d_k)) <= 1e-5);
      CHECK(diff(attnlab::operand_values(t, s.operands[1]),
                 reference_columns(want.k, h * d_k, d_k)) <= 1e-5);
    }
    if (s.id == step::aggregate) {
      REQUIRE(s.operands.size() == 2);
      CHECK(diff(attnlab::operand_values(t, s.operands[1]),
                 reference_columns(want.v, h * d_v, d_v)) <= 1e-5);
      ++h;
    }
  }
  CHECK(h == heads);
}

TEST_CASE("the scale step reports the scale, the temperature and the factor apart", "[trace]") {
  const std::size_t d_k = 4;
  TraceInput input = direct(3, 3, 2 * d_k, 2, 251);
  input.heads = 2;
  float want_scale = 0.5f;  // 1/√4
  bool default_scale = true;
  SECTION("the default scale at temperature 1") {}
  SECTION("the default scale with a temperature") { input.options.temperature = 2.0f; }
  SECTION("an explicit scale with a temperature") {
    input.options.scale = want_scale = 0.3f;
    input.options.temperature = 0.6f;
    default_scale = false;
  }
  SECTION("an explicit scale equal to the default is still explicit") {
    input.options.scale = 0.5f;
    default_scale = false;
  }
  const float temperature = input.options.temperature;
  const Trace t = run(input);
  int scale_steps = 0;
  for (std::size_t i = 0; i < t.steps.size(); ++i) {
    const TraceStep& s = t.steps[i];
    CAPTURE(s.id, s.head);
    if (s.id != step::scale) {
      CHECK_FALSE(s.scaling.has_value());
      continue;
    }
    ++scale_steps;
    REQUIRE(s.scaling.has_value());
    CHECK(s.scaling->scale == want_scale);
    CHECK(s.scaling->temperature == temperature);
    CHECK(s.scaling->factor == Approx(double(want_scale) / temperature).epsilon(1e-6));
    CHECK(s.scaling->dk == d_k);
    CHECK(s.scaling->default_scale == default_scale);
    // The factor is what multiplied the scores of the previous step.
    const Matrix& scores = t.steps[i - 1].values;
    for (std::size_t j = 0; j < scores.data.size(); ++j)
      CHECK(s.values.data[j] ==
            Approx(double(scores.data[j]) * want_scale / temperature).epsilon(1e-5).margin(1e-6));
  }
  CHECK(scale_steps == 2);
}

TEST_CASE("the mask step's allowed and blocked_by follow the mask rules", "[trace]") {
  const std::size_t n_q = 4, n_k = 5;
  TraceInput input = direct(n_q, n_k, 2, 2, 261);
  const bool causal = GENERATE(false, true);
  const bool padding = GENERATE(false, true);
  const bool explicit_mask = GENERATE(false, true);
  if (!causal && !padding && !explicit_mask) return;  // no mask step
  CAPTURE(causal, padding, explicit_mask);
  input.options.causal = causal;
  if (padding) input.options.key_padding = {false, false, true, false, true};
  if (explicit_mask) {
    attnlab::BoolMatrix m(n_q, n_k, 1);
    m(0, 1) = m(1, 0) = m(2, 2) = m(3, 4) = m(3, 3) = 0;
    input.options.mask = m;
  }
  const Trace t = run(input);
  const auto it = std::find_if(t.steps.begin(), t.steps.end(),
                               [](const TraceStep& s) { return s.id == step::mask; });
  REQUIRE(it != t.steps.end());
  REQUIRE(it->mask.has_value());
  const attnlab::MaskCells& cells = *it->mask;
  REQUIRE(cells.allowed.rows == n_q);
  REQUIRE(cells.allowed.cols == n_k);
  REQUIRE(cells.blocked_by.rows == n_q);
  REQUIRE(cells.blocked_by.cols == n_k);
  for (std::size_t i = 0; i < n_q; ++i)
    for (std::size_t j = 0; j < n_k; ++j) {
      CAPTURE(i, j);
      int bits = 0;
      if (causal && j > i) bits |= 1;
      if (padding && input.options.key_padding[j]) bits |= 2;
      if (explicit_mask && (*input.options.mask)(i, j) == 0) bits |= 4;
      CHECK(int(cells.blocked_by(i, j)) == bits);
      CHECK(bool(cells.allowed(i, j)) ==
            attnlab::test::reference_allows(input.options, n_q, n_k, i, j));
      CHECK(bool(cells.allowed(i, j)) == (bits == 0));
      // and the logits agree: -inf exactly where blocked
      CHECK(std::isinf(it->values(i, j)) == (bits != 0));
    }
  for (const TraceStep& s : t.steps)
    if (s.id != step::mask) CHECK_FALSE(s.mask.has_value());
}

TEST_CASE("groups: one per step id, in order, holding each head's entry", "[trace]") {
  const std::size_t heads = GENERATE(1, 3);
  const Trace t = run(full_input(heads, true, 271));
  const std::vector<std::string> want_ids{
      step::encoding, step::positional, step::project_q, step::project_k, step::project_v,
      step::scores,   step::scale,      step::mask,      step::softmax,   step::aggregate};
  std::vector<std::string> got_ids;
  for (const attnlab::TraceGroup& g : t.groups) got_ids.push_back(g.id);
  std::vector<std::string> expected = want_ids;
  if (heads > 1) expected.push_back(step::concat);
  expected.push_back(step::output_projection);
  CHECK(got_ids == expected);

  std::vector<int> seen(t.steps.size(), 0);
  for (const attnlab::TraceGroup& g : t.groups) {
    CAPTURE(g.id);
    const bool per_head = g.id == step::scores || g.id == step::scale || g.id == step::mask ||
                          g.id == step::softmax || g.id == step::aggregate;
    REQUIRE(g.steps.size() == (per_head ? heads : 1));
    for (std::size_t h = 0; h < g.steps.size(); ++h) {
      const TraceStep& s = t.steps.at(g.steps[h]);
      CHECK(s.id == g.id);
      CHECK(s.title == g.title);
      CHECK(s.head == (per_head ? head_field(heads, h) : std::nullopt));
      ++seen[g.steps[h]];
    }
  }
  CHECK(std::all_of(seen.begin(), seen.end(), [](int c) { return c == 1; }));  // each step once
}

TEST_CASE("step_ids lists every id the trace emits, in trace order", "[trace]") {
  const std::vector<std::string> all(attnlab::step_ids.begin(), attnlab::step_ids.end());
  CHECK(std::set<std::string>(all.begin(), all.end()).size() == all.size());
  std::set<std::string> emitted;
  const auto position = [&](const std::string& id) {
    return std::find(all.begin(), all.end(), id) - all.begin();
  };
  std::vector<TraceInput> inputs{full_input(1, true, 281), full_input(2, false, 282),
                                 direct(3, 3, 2, 2, 283)};
  inputs.back().options.key_padding = {false, true, false};
  // Every variant's step: RoPE (even d_k), softcap, ALiBi, dropout, with the projections and
  // W_O.
  TraceInput variants = random_tokens(4, 6, 4, 4, 284);
  variants.heads = 2;
  variants.rope = variants.options.alibi = true;
  variants.options.softcap = 5.0f;
  variants.dropout = 0.25f;
  variants.w_o = random_matrix(4, 3, 285);
  for (TraceInput& input : inputs) {  // with the backward steps too (which refuse the variants)
    const Matrix output = run(input).output;
    input.d_output = Matrix(output.rows, output.cols, 0.5f);
  }
  inputs.push_back(variants);
  // The families' steps (trace_families_test.cpp): linear attention, retention.
  TraceInput linear = direct(3, 3, 2, 2, 286), retention = linear;
  linear.family = attnlab::TraceFamily::linear;
  retention.family = attnlab::TraceFamily::retention;
  retention.decay = 0.5f;
  inputs.push_back(linear);
  inputs.push_back(retention);
  for (const TraceInput& input : inputs) {
    const Trace t = run(input);
    std::ptrdiff_t previous = -1;
    for (const attnlab::TraceGroup& g : t.groups) {
      CAPTURE(g.id);
      const std::ptrdiff_t at = position(g.id);
      CHECK(at < std::ptrdiff_t(all.size()));  // listed
      CHECK(at > previous);                    // in trace order
      previous = at;
      emitted.insert(g.id);
    }
  }
  CHECK(emitted == std::set<std::string>(all.begin(), all.end()));  // and no id is unused
}

TEST_CASE("the encoding step is PE itself, and the positional step adds it to X", "[trace]") {
  const Trace t = run(full_input(2, true, 281));
  const auto find = [&t](const char* id) {
    return std::find_if(t.steps.begin(), t.steps.end(),
                        [id](const TraceStep& s) { return s.id == id; });
  };
  const auto encoding = find(step::encoding);
  const auto positional = find(step::positional);
  REQUIRE(encoding != t.steps.end());
  REQUIRE(positional != t.steps.end());
  CHECK(encoding + 1 == positional);
  const Matrix& pe = encoding->values;
  const Matrix& x = operand_values(t, positional->operands[0]);
  REQUIRE(pe.rows == x.rows);
  REQUIRE(pe.cols == x.cols);
  for (std::size_t p = 0; p < pe.rows; ++p)
    for (std::size_t c = 0; c < pe.cols; ++c) {
      CAPTURE(p, c);
      // Written from the formula in float64: sin for even features, cos for odd ones.
      const double angle =
          static_cast<double>(p) /
          std::pow(10000.0, static_cast<double>(c - c % 2) / static_cast<double>(pe.cols));
      CHECK(pe(p, c) == Approx(c % 2 == 0 ? std::sin(angle) : std::cos(angle)).margin(1e-6));
      CHECK(positional->values(p, c) == Approx(x(p, c) + pe(p, c)).margin(1e-6));
    }
  CHECK(&operand_values(t, positional->operands[1]) == &pe);
}
