// trace(): each step's operands (names, symbols, heads, shapes, the steps they come from), the
// scale and mask steps' fields, the groups and the step ids, and the encoding steps.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "attnlab/trace.hpp"
#include "reference_attention.hpp"
#include "test_support.hpp"
#include "trace_names.hpp"

using attnlab::PositionalEncoding;
using attnlab::test::random_tokens;

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
