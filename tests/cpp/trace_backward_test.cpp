// The trace's backward steps against central finite differences of L = Σ ∂L/∂Y ⊙ Y in
// float64, from a forward written here (reference_attention.hpp's pieces, hooks to nudge any
// intermediate): causal; key padding with an explicit mask and a fully masked row; two heads
// with W_O; projections with positions; temperature and scale. Tolerance: max |got − FD| over
// the largest |FD| entry ≤ 1e-4. Also: grad-q/k/v are attention_backward()'s per head
// (≤ 1e-6), softmax's Jacobian, the trace without d_output unchanged, check_gradient() and its
// errors, and the tiled flash backward against a float64 direct backward up to 4,096 tokens.
#include "attnlab/trace_backward.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstddef>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <variant>

#include "attnlab/attention_backward.hpp"
#include "attnlab/limits.hpp"
#include "reference_attention.hpp"
#include "test_support.hpp"
#include "trace_names.hpp"

using attnlab::DirectQKV;
using attnlab::ErrorCode;
using attnlab::Matrix;
using attnlab::TraceInput;
using attnlab::test::MatrixD;
namespace ref = attnlab::reference;

namespace {

// Which intermediate of which head the forward nudges by `delta` at (i, j).
struct Nudge {
  enum Where { none, scores, logits, weights, concat } where = none;
  std::size_t head = 0, i = 0, j = 0;
  double delta = 0;
};

// The model in float64. x, the weights and wo are empty when the trace has none.
struct Model {
  MatrixD x, wq, wk, wv, q, k, v, wo;
};

Model model_of(const TraceInput& input) {
  Model m;
  if (input.w_o) m.wo = input.w_o->cast<double>();
  if (const auto* p = std::get_if<attnlab::Projections>(&input.source)) {
    m.x = p->x.cast<double>();
    m.wq = p->w_q.cast<double>(), m.wk = p->w_k.cast<double>(), m.wv = p->w_v.cast<double>();
  }
  const auto qkv = attnlab::test::reference_qkv(input);
  m.q = qkv.q, m.k = qkv.k, m.v = qkv.v;
  return m;
}

// L = Σ dY ⊙ Y. With `project`, Q, K and V are recomputed from X (positions added) first.
double loss(Model m, const TraceInput& input, const MatrixD& d_y, const Nudge& nudge,
            bool project) {
  if (project) {
    MatrixD x = m.x;
    if (input.positional == attnlab::PositionalEncoding::sinusoidal) {
      const MatrixD pe = attnlab::test::reference_sinusoidal(x.rows, x.cols);
      for (std::size_t i = 0; i < x.data.size(); ++i) x.data[i] += pe.data[i];
    }
    m.q = ref::matmul(x, m.wq), m.k = ref::matmul(x, m.wk), m.v = ref::matmul(x, m.wv);
  }
  const auto heads = static_cast<std::size_t>(input.heads);
  const std::size_t d_k = m.q.cols / heads, d_v = m.v.cols / heads;
  const auto& o = input.options;
  const double factor =
      (o.scale ? double(*o.scale) : 1.0 / std::sqrt(double(d_k))) / double(o.temperature);
  const auto nudged = [&](Nudge::Where where, std::size_t h, MatrixD& values) {
    if (nudge.where == where && nudge.head == h) values(nudge.i, nudge.j) += nudge.delta;
  };
  MatrixD concat(m.q.rows, m.v.cols);
  for (std::size_t h = 0; h < heads; ++h) {
    MatrixD s = ref::matmul_transposed(attnlab::test::reference_columns(m.q, h * d_k, d_k),
                                       attnlab::test::reference_columns(m.k, h * d_k, d_k));
    nudged(Nudge::scores, h, s);
    ref::scale(s, factor);
    // Soft-capping, then the bias (one for every head, or head h's rows from h·n_q).
    const std::size_t bias_row = o.bias && o.bias->rows == heads * s.rows ? h * s.rows : 0;
    for (std::size_t i = 0; i < s.rows; ++i)
      for (std::size_t j = 0; j < s.cols; ++j) {
        if (o.softcap) s(i, j) = *o.softcap * std::tanh(s(i, j) / *o.softcap);
        if (o.bias) s(i, j) += (*o.bias)(bias_row + i, j);
      }
    nudged(Nudge::logits, h, s);
    for (std::size_t i = 0; i < s.rows; ++i)
      for (std::size_t j = 0; j < s.cols; ++j)
        if (!attnlab::test::reference_allows(o, s.rows, s.cols, i, j))
          s(i, j) = -std::numeric_limits<double>::infinity();
    MatrixD a = ref::softmax_rows(s).weights;
    nudged(Nudge::weights, h, a);
    const MatrixD out = ref::matmul(a, attnlab::test::reference_columns(m.v, h * d_v, d_v));
    for (std::size_t i = 0; i < out.rows; ++i)
      for (std::size_t c = 0; c < d_v; ++c) concat(i, h * d_v + c) = out(i, c);
  }
  nudged(Nudge::concat, 0, concat);
  const MatrixD y = m.wo.empty() ? concat : ref::matmul(concat, m.wo);
  double sum = 0;
  for (std::size_t i = 0; i < y.data.size(); ++i) sum += d_y.data[i] * y.data[i];
  return sum;
}

constexpr double h = 1e-6;  // central differences: error O(h²) + rounding / h

// ∂L/∂(m.*which), entry by entry.
MatrixD numeric(const TraceInput& input, const MatrixD& d_y, MatrixD Model::*which, bool project) {
  Model m = model_of(input);
  MatrixD& w = m.*which;
  MatrixD g(w.rows, w.cols);
  for (std::size_t e = 0; e < w.data.size(); ++e) {
    const double x = w.data[e];
    w.data[e] = x + h;
    const double up = loss(m, input, d_y, {}, project);
    w.data[e] = x - h;
    const double down = loss(m, input, d_y, {}, project);
    w.data[e] = x;
    g.data[e] = (up - down) / (2 * h);
  }
  return g;
}

// ∂L/∂(an intermediate of head `head`), rows x cols.
MatrixD numeric(const TraceInput& input, const MatrixD& d_y, Nudge::Where where, std::size_t head,
                std::size_t rows, std::size_t cols) {
  const Model m = model_of(input);
  MatrixD g(rows, cols);
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < cols; ++j) {
      const double up = loss(m, input, d_y, {where, head, i, j, h}, false);
      const double down = loss(m, input, d_y, {where, head, i, j, -h}, false);
      g(i, j) = (up - down) / (2 * h);
    }
  return g;
}

double relative_error(const Matrix& got, const MatrixD& expected) {
  double largest = 0;
  for (double x : expected.data) largest = std::max(largest, std::abs(x));
  return attnlab::test::max_abs_diff(got, expected) / std::max(largest, 1e-12);
}

// Every backward step of trace(input) against its finite differences; returns the ids seen.
std::vector<std::string> check_backward(const TraceInput& input) {
  const attnlab::Trace t = run(input);
  const MatrixD d_y = input.d_output->cast<double>();
  const bool projected = std::holds_alternative<attnlab::Projections>(input.source);
  const Model m = model_of(input);
  const auto heads = static_cast<std::size_t>(input.heads);
  const std::size_t d_k = m.q.cols / heads, d_v = m.v.cols / heads;
  const auto column = [&](const MatrixD& g, std::size_t h, std::size_t width) {
    return attnlab::test::reference_columns(g, h * width, width);
  };
  const MatrixD dq = numeric(input, d_y, &Model::q, false);
  const MatrixD dk = numeric(input, d_y, &Model::k, false);
  const MatrixD dv = numeric(input, d_y, &Model::v, false);
  std::vector<std::string> ids;
  for (const auto& step : t.steps) {
    if (step.id.rfind("grad-", 0) != 0) continue;
    const std::size_t head = step.head ? static_cast<std::size_t>(*step.head) : 0;
    const std::size_t n_q = m.q.rows, n_k = m.k.rows;
    std::map<std::string, std::function<MatrixD()>> oracle{
        {"grad-output", [&] { return d_y; }},
        {"grad-wo", [&] { return numeric(input, d_y, &Model::wo, false); }},
        {"grad-concat", [&] { return numeric(input, d_y, Nudge::concat, 0, n_q, m.v.cols); }},
        {"grad-v", [&] { return column(dv, head, d_v); }},
        {"grad-weights", [&] { return numeric(input, d_y, Nudge::weights, head, n_q, n_k); }},
        {"grad-softmax", [&] { return numeric(input, d_y, Nudge::logits, head, n_q, n_k); }},
        {"grad-scores", [&] { return numeric(input, d_y, Nudge::scores, head, n_q, n_k); }},
        {"grad-q", [&] { return column(dq, head, d_k); }},
        {"grad-k", [&] { return column(dk, head, d_k); }},
        {"grad-wq", [&] { return numeric(input, d_y, &Model::wq, true); }},
        {"grad-wk", [&] { return numeric(input, d_y, &Model::wk, true); }},
        {"grad-wv", [&] { return numeric(input, d_y, &Model::wv, true); }},
        {"grad-x", [&] { return numeric(input, d_y, &Model::x, true); }},
    };
    CAPTURE(step.id, head);
    REQUIRE(oracle.count(step.id) == 1);
    CHECK(relative_error(step.values, oracle.at(step.id)()) <= 1e-4);
    if (std::find(ids.begin(), ids.end(), step.id) == ids.end()) ids.push_back(step.id);
  }
  CHECK(projected == (std::find(ids.begin(), ids.end(), "grad-x") != ids.end()));
  return ids;
}

void with_d_output(TraceInput& input, std::uint32_t seed) {
  const Matrix y = run(input).output;
  input.d_output = attnlab::test::random_matrix(y.rows, y.cols, seed);
}

}  // namespace

TEST_CASE("every backward step matches finite differences of L = sum dY * Y", "[trace-backward]") {
  TraceInput input;
  std::vector<std::string> expected;
  // The backward steps of one or more heads, without and with W_O.
  const std::vector<std::string> head_steps{"grad-output", "grad-v", "grad-weights", "grad-softmax",
                                            "grad-scores", "grad-q", "grad-k"};
  const std::vector<std::string> with_w_o{"grad-output", "grad-wo",      "grad-concat",
                                          "grad-v",      "grad-weights", "grad-softmax",
                                          "grad-scores", "grad-q",       "grad-k"};
  SECTION("causal") {
    input = direct(5, 5, 4, 4, 3);
    input.options.causal = true;
    expected = head_steps;
  }
  SECTION("key padding and an explicit mask, one query with every key masked") {
    input = direct(4, 5, 3, 3, 13);
    input.options.key_padding = {false, true, false, false, false};
    attnlab::BoolMatrix mask(4, 5, 1);
    mask(1, 0) = mask(2, 3) = 0;
    for (std::size_t j = 0; j < 5; ++j) mask(3, j) = 0;  // query 3 sees nothing
    input.options.mask = mask;
    expected = head_steps;
  }
  SECTION("two heads with W_O") {
    input = direct(4, 6, 6, 6, 23);
    input.heads = 2;
    input.w_o = attnlab::test::random_matrix(6, 3, 27);
    expected = with_w_o;
  }
  SECTION("projections, positions, causal, two heads and W_O") {
    input = attnlab::test::random_tokens(5, 4, 4, 6, 33);
    input.heads = 2;
    input.positional = attnlab::PositionalEncoding::sinusoidal;
    input.options.causal = true;
    input.w_o = attnlab::test::random_matrix(6, 4, 37, 0.5f);
    expected = {"grad-output",  "grad-wo",     "grad-concat", "grad-v", "grad-weights",
                "grad-softmax", "grad-scores", "grad-q",      "grad-k", "grad-wq",
                "grad-wk",      "grad-wv",     "grad-x"};
  }
  SECTION("soft-capping and a bias per head, two heads, causal") {
    input = direct(4, 4, 6, 6, 61);
    input.heads = 2;
    input.options.causal = true;
    input.options.softcap = 0.7f;  // small enough that the cap bends every score
    input.options.bias = attnlab::test::random_matrix(8, 4, 63);
    expected = head_steps;
  }
  SECTION("a shared bias with a −∞ entry and W_O") {
    input = direct(3, 5, 4, 4, 71);
    input.heads = 2;
    input.w_o = attnlab::test::random_matrix(4, 3, 73);
    Matrix bias = attnlab::test::random_matrix(3, 5, 75);
    bias(1, 2) = -std::numeric_limits<float>::infinity();
    input.options.bias = bias;
    expected = with_w_o;
  }
  SECTION("projections with temperature and scale, one head, no W_O") {
    input = attnlab::test::random_tokens(4, 3, 4, 2, 43);
    input.options.temperature = GENERATE(0.5f, 2.0f);
    input.options.scale = GENERATE(std::optional<float>{}, std::optional<float>{0.8f});
    expected = {"grad-output", "grad-v",  "grad-weights", "grad-softmax", "grad-scores", "grad-q",
                "grad-k",      "grad-wq", "grad-wk",      "grad-wv",      "grad-x"};
  }
  with_d_output(input, 51);
  CHECK(check_backward(input) == expected);
  // The group order is step_ids' order.
  const attnlab::Trace t = run(input);
  auto id = attnlab::step_ids.begin();
  for (const auto& group : t.groups) {
    id = std::find(id, attnlab::step_ids.end(), group.id);
    CHECK(id != attnlab::step_ids.end());
  }
}

TEST_CASE("a fully masked query passes no gradient", "[trace-backward]") {
  TraceInput input = direct(3, 3, 2, 2, 61);
  input.options.key_padding = {true, false, false};
  input.options.causal = true;  // query 0 may see only key 0, which is padding
  with_d_output(input, 63);
  const attnlab::Trace t = run(input);
  for (const char* id : {"grad-softmax", "grad-scores", "grad-q"})
    for (const auto& step : t.steps)
      if (step.id == id)
        for (std::size_t c = 0; c < step.values.cols; ++c) CHECK(step.values(0, c) == 0.0f);
  for (const auto& step : t.steps)
    if (step.id == "grad-k" || step.id == "grad-v")  // key 0 is padding: nothing reaches it
      for (std::size_t c = 0; c < step.values.cols; ++c) CHECK(step.values(0, c) == 0.0f);
}

TEST_CASE("grad-q, grad-k and grad-v are attention_backward() per head", "[trace-backward]") {
  TraceInput input = direct(5, 7, 8, 8, 71);
  input.heads = 2;
  input.w_o = attnlab::test::random_matrix(8, 3, 73);
  input.options.causal = true;
  input.options.temperature = 1.5f;
  with_d_output(input, 75);
  const attnlab::Trace t = run(input);
  const auto& qkv = std::get<attnlab::DirectQKV>(input.source);
  const auto step = [&](const char* id, int head) {
    return *std::find_if(t.steps.begin(), t.steps.end(),
                         [&](const auto& s) { return s.id == id && s.head == head; });
  };
  const Matrix concat = std::find_if(t.steps.begin(), t.steps.end(), [](const auto& s) {
                          return s.id == "grad-concat";
                        })->values;
  for (int h = 0; h < 2; ++h) {
    const auto cols = [&](const Matrix& m) { return attnlab::column_slice(m, h * 4, 4); };
    const auto g = attnlab::attention_backward(cols(qkv.q), cols(qkv.k), cols(qkv.v), cols(concat),
                                               input.options);
    REQUIRE(g);
    CAPTURE(h);
    CHECK(attnlab::test::max_abs_diff(step("grad-q", h).values, g.value().dq) <= 1e-6);
    CHECK(attnlab::test::max_abs_diff(step("grad-k", h).values, g.value().dk) <= 1e-6);
    CHECK(attnlab::test::max_abs_diff(step("grad-v", h).values, g.value().dv) <= 1e-6);
  }
}

TEST_CASE("grad-softmax carries each row's Jacobian diag(a) - aa^T, which maps dA to dS~",
          "[trace-backward]") {
  TraceInput input = direct(4, 5, 3, 3, 81);
  input.options.causal = true;
  with_d_output(input, 83);
  SECTION("every row by default") {}
  SECTION("a chosen row") { input.jacobian_row = 2; }
  const attnlab::Trace t = run(input);
  const auto find = [&](const char* id) {
    return *std::find_if(t.steps.begin(), t.steps.end(), [&](const auto& s) { return s.id == id; });
  };
  const auto& softmax = find("grad-softmax");
  const Matrix& a = find("softmax").values;
  const Matrix& d_a = find("grad-weights").values;
  REQUIRE(softmax.jacobian);
  const auto& rows = softmax.jacobian->jacobian_rows;
  CHECK(rows.size() == (input.jacobian_row ? 1u : 4u));
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const std::size_t i = rows[r];
    const Matrix& jac = softmax.jacobian->jacobians[r];
    CAPTURE(i);
    for (std::size_t j = 0; j < a.cols; ++j) {
      double through = 0;  // (J·∂a)_j, J symmetric
      for (std::size_t k = 0; k < a.cols; ++k) {
        const double expected = (j == k ? double(a(i, j)) : 0.0) - double(a(i, j)) * a(i, k);
        CHECK(std::abs(jac(j, k) - expected) <= 1e-7);
        through += double(jac(j, k)) * d_a(i, k);
      }
      CHECK(std::abs(softmax.values(i, j) - through) <= 1e-6);
    }
  }
}

TEST_CASE("without d_output the trace is the forward trace, unchanged", "[trace-backward]") {
  TraceInput input = attnlab::test::random_tokens(4, 4, 4, 4, 91);
  input.heads = 2;
  input.w_o = attnlab::test::random_matrix(4, 4, 93);
  const attnlab::Trace forward = run(input);
  with_d_output(input, 95);
  const attnlab::Trace both = run(input);
  REQUIRE(both.steps.size() > forward.steps.size());
  for (std::size_t i = 0; i < both.steps.size(); ++i) {
    CAPTURE(i);
    const bool backward = both.steps[i].id.rfind("grad-", 0) == 0;
    CHECK(backward == (i >= forward.steps.size()));
    if (backward) continue;
    CHECK(both.steps[i].id == forward.steps[i].id);
    CHECK(both.steps[i].values == forward.steps[i].values);
    CHECK(both.steps[i].formula == forward.steps[i].formula);
  }
  CHECK(both.output == forward.output);
  for (std::size_t g = 0; g < forward.groups.size(); ++g)
    CHECK(both.groups[g].steps == forward.groups[g].steps);
}

TEST_CASE("check_gradient compares the trace with central differences in float64",
          "[trace-backward]") {
  TraceInput input = attnlab::test::random_tokens(5, 4, 4, 6, 101);
  input.heads = 2;
  input.positional = attnlab::PositionalEncoding::sinusoidal;
  input.options.causal = true;
  input.w_o = attnlab::test::random_matrix(6, 3, 103, 0.5f);
  with_d_output(input, 105);
  const attnlab::Trace t = run(input);
  for (const std::string_view parameter : attnlab::gradient_parameters) {
    const auto c = attnlab::check_gradient(input, parameter, 1, 2);
    INFO(std::string(parameter) + (c ? "" : ": " + c.error().message));
    REQUIRE(c);
    CHECK(c.value().relative_error <= 1e-4);
    CHECK(c.value().epsilon > 0);
    CHECK(std::abs(c.value().analytic - c.value().numeric) <=
          1e-4 * std::max(1.0, std::abs(c.value().numeric)));
  }
  // The analytic value is the trace's own entry: head 1's grad-q, column 1, for Q's column 3.
  const auto c = attnlab::check_gradient(input, "Q", 3, 3);
  REQUIRE(c);
  const auto& grad_q1 = *std::find_if(t.steps.begin(), t.steps.end(), [](const auto& s) {
    return s.id == "grad-q" && s.head == 1;
  });
  CHECK(c.value().analytic == grad_q1.values(3, 1));
}

TEST_CASE("backward and check_gradient errors name the field", "[trace-backward]") {
  TraceInput input = direct(3, 4, 2, 2, 111);
  with_d_output(input, 113);
  const auto refused = [](const auto& r, attnlab::ErrorCode code, const char* text) {
    REQUIRE_FALSE(r);
    CHECK(r.error().code == code);
    CHECK_THAT(r.error().message, Catch::Contains(text));
  };
  using attnlab::ErrorCode;
  refused(attnlab::check_gradient(input, "W", 0, 0), ErrorCode::invalid_argument,
          "parameter must be one of X, Q, K, V, Wq, Wk, Wv, Wo, got \"W\"");
  refused(attnlab::check_gradient(input, "Q", 3, 0), ErrorCode::invalid_argument,
          "row must be a whole number from 0 to 2 (Q is 3×2), got 3");
  refused(attnlab::check_gradient(input, "K", 0, 2), ErrorCode::invalid_argument,
          "col must be a whole number from 0 to 1 (K is 4×2), got 2");
  refused(attnlab::check_gradient(input, "Wo", 0, 0), ErrorCode::invalid_argument, "no Wo");
  refused(attnlab::check_gradient(input, "X", 0, 0), ErrorCode::invalid_argument, "no X");
  TraceInput jac = input;
  jac.jacobian_row = 3;
  refused(attnlab::trace(jac), ErrorCode::invalid_argument,
          "jacobianRow must be a whole number from 0 to 2 (a query row), got 3");
  TraceInput wrong = input;
  wrong.d_output = Matrix(3, 3, 0.0f);
  refused(attnlab::trace(wrong), ErrorCode::shape_mismatch, "dOutput (3×3)");
  wrong.d_output = Matrix(3, 2, std::numeric_limits<float>::quiet_NaN());
  refused(attnlab::trace(wrong), ErrorCode::non_finite, "dOutput");
  wrong.d_output = Matrix(3, 2, 3e38f);
  refused(attnlab::trace(wrong), ErrorCode::non_finite, "too large for float32");
  wrong.d_output.reset();
  refused(attnlab::check_gradient(wrong, "Q", 0, 0), ErrorCode::invalid_argument,
          "dOutput is missing");
}

namespace {

struct GradientsD {
  MatrixD dq, dk, dv;
};

// The direct backward in float64, one query row at a time (O(n·d) memory), for sizes beyond
// attention_backward()'s 512 tokens.
GradientsD direct_backward(const Matrix& q, const Matrix& k, const Matrix& v, const Matrix& d_o,
                           bool causal) {
  const std::size_t n_q = q.rows, n_k = k.rows, d = q.cols, d_v = v.cols;
  const double f = 1.0 / std::sqrt(double(d));
  GradientsD g{MatrixD(n_q, d), MatrixD(n_k, d), MatrixD(n_k, d_v)};
  std::vector<double> p(n_k), dp(n_k);
  for (std::size_t i = 0; i < n_q; ++i) {
    const std::size_t seen = causal ? std::min(i + 1, n_k) : n_k;
    double max = -std::numeric_limits<double>::infinity(), sum = 0, dot = 0;
    for (std::size_t j = 0; j < seen; ++j) {
      p[j] = 0;
      for (std::size_t c = 0; c < d; ++c) p[j] += double(q(i, c)) * k(j, c);
      p[j] *= f;
      max = std::max(max, p[j]);
    }
    for (std::size_t j = 0; j < seen; ++j) sum += (p[j] = std::exp(p[j] - max));
    for (std::size_t j = 0; j < seen; ++j) {
      p[j] /= sum;
      dp[j] = 0;
      for (std::size_t c = 0; c < d_v; ++c) dp[j] += double(d_o(i, c)) * v(j, c);
      dot += p[j] * dp[j];
    }
    for (std::size_t j = 0; j < seen; ++j) {
      const double ds = f * p[j] * (dp[j] - dot);
      for (std::size_t c = 0; c < d_v; ++c) g.dv(j, c) += p[j] * d_o(i, c);
      for (std::size_t c = 0; c < d; ++c) {
        g.dq(i, c) += ds * k(j, c);
        g.dk(j, c) += ds * q(i, c);
      }
    }
  }
  return g;
}

}  // namespace

TEST_CASE("the flash backward equals the direct backward up to 4,096 tokens",
          "[trace-backward][flash-backward-long]") {
  // 512 against attention_backward() itself (its limit); beyond, against the float64 direct
  // backward above. Tolerance 1e-5 of the largest entry.
  const std::size_t n = GENERATE(512, 1024, 4096);
  const bool causal = GENERATE(false, true);
  CAPTURE(n, causal);
  const auto qkv = attnlab::test::random_qkv(n, n, 8, 8, 121);
  const Matrix d_o = attnlab::test::random_matrix(n, 8, 123);
  attnlab::LongAttentionOptions flash;
  flash.causal = causal;
  const auto g = attnlab::flash_attention_backward(qkv.q, qkv.k, qkv.v, d_o, flash);
  REQUIRE(g);
  GradientsD expected;
  if (n <= attnlab::limits::attention_tokens) {
    attnlab::AttentionOptions options;
    options.causal = causal;
    const auto direct = attnlab::attention_backward(qkv.q, qkv.k, qkv.v, d_o, options);
    REQUIRE(direct);
    expected = {direct.value().dq.cast<double>(), direct.value().dk.cast<double>(),
                direct.value().dv.cast<double>()};
  } else {
    expected = direct_backward(qkv.q, qkv.k, qkv.v, d_o, causal);
  }
  CHECK(relative_error(g.value().dq, expected.dq) <= 1e-5);
  CHECK(relative_error(g.value().dk, expected.dk) <= 1e-5);
  CHECK(relative_error(g.value().dv, expected.dv) <= 1e-5);
}

TEST_CASE("the backward steps refuse the variants they do not differentiate, naming them",
          "[trace-backward]") {
  const auto refused = [](void (*set)(TraceInput&), const char* name) {
    TraceInput input;
    input.source = DirectQKV{Matrix(3, 4, 0.5f), Matrix(3, 4, 0.25f), Matrix(3, 4, 1.0f)};
    input.heads = 2;
    input.d_output = Matrix(3, 4, 1.0f);
    set(input);
    const auto t = attnlab::trace(input);
    REQUIRE_FALSE(t);
    CHECK(t.error().code == ErrorCode::invalid_argument);
    CHECK_THAT(t.error().message, Catch::Matchers::Contains(name));
  };
  refused([](TraceInput& i) { i.rope = true; }, "RoPE");
  refused([](TraceInput& i) { i.options.alibi = true; }, "ALiBi");
  refused([](TraceInput& i) { i.dropout = 0.5f; }, "dropout");
  refused(
      [](TraceInput& i) {
        auto& s = std::get<DirectQKV>(i.source);
        s.k = Matrix(3, 2, 0.25f);
        s.v = Matrix(3, 2, 1.0f);
        i.kv_heads = 1;
        i.d_output = Matrix(3, 2, 1.0f);
      },
      "kvHeads");
}

TEST_CASE("with dOutput, inputs beyond backward_tokens or backward_features are too-large",
          "[trace-backward]") {
  using attnlab::limits::backward_features;
  using attnlab::limits::backward_tokens;
  const auto refused = [](TraceInput input, const char* name) {
    with_d_output(input, 7);
    for (const auto& r :
         {attnlab::trace(input).error(), attnlab::check_gradient(input, "Q", 0, 0).error()}) {
      CHECK(r.code == attnlab::ErrorCode::too_large);
      CHECK_THAT(r.message, Catch::StartsWith(name) && Catch::Contains("at most 256 tokens"));
    }
  };
  refused(direct(backward_tokens + 1, 4, 2, 2, 3), "Q (257×2)");
  refused(direct(2, 3, backward_features + 2, backward_features + 2, 5), "Q (2×258)");
  // At the limits, and without dOutput beyond them, the trace runs.
  TraceInput at = direct(backward_tokens, 8, 4, 4, 9);
  with_d_output(at, 11);
  CHECK(attnlab::trace(at).ok());
  CHECK(attnlab::trace(direct(backward_tokens + 1, 4, 2, 2, 3)).ok());
}
