// Soft-capping and an additive bias, as the frameworks define them (Gemma 2's softcap·tanh(s/c)
// on the scaled scores; ONNX's and PyTorch's float attn_mask added to them, −∞ blocking): in
// attention(), the trace (one bias for all heads or one per head), decode() and the backward
// pass, each against float64 (reference_attention.hpp) or finite differences of it.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "attnlab/attention.hpp"
#include "attnlab/attention_backward.hpp"
#include "attnlab/trace.hpp"
#include "attnlab/trace_backward.hpp"
#include "attnlab/variants.hpp"
#include "reference_attention.hpp"
#include "test_support.hpp"

using namespace attnlab;
using namespace attnlab::test;

namespace {

constexpr float minus_infinity = -std::numeric_limits<float>::infinity();

// Scores large enough that a cap of 2 bends them: Q and K scaled up.
DirectQKV large_scores(std::size_t n_q, std::size_t n_k, std::uint32_t seed) {
  DirectQKV d = random_qkv(n_q, n_k, 6, 4, seed);
  for (float& x : d.q.data) x *= 3.0f;
  return d;
}

Matrix bias_matrix(std::size_t rows, std::size_t cols, std::uint32_t seed) {
  Matrix b = random_matrix(rows, cols, seed);
  b(0, 1) = minus_infinity;  // blocks key 1 for query 0
  return b;
}

}  // namespace

TEST_CASE("attention() soft-caps and adds a bias as float64 does", "[softcap-bias]") {
  const DirectQKV d = large_scores(5, 7, 71);
  AttentionOptions o;
  o.softcap = 2.0f;
  o.bias = bias_matrix(5, 7, 72);
  const auto r = attention(d.q, d.k, d.v, o);
  REQUIRE(r);
  const ReferenceAttention ref = reference_attention(d.q, d.k, d.v, o);
  CHECK(max_abs_diff(r.value().weights(), ref.weights) <= 1e-6);
  CHECK(max_abs_diff(r.value().output, ref.output) <= 1e-5);
  for (float c : r.value().capped.data) CHECK(std::abs(c) <= 2.0f);
  CHECK(r.value().weights()(0, 1) == 0.0f);
  CHECK(blocked_by(o, 5, 7, 0, 1) == mask_rule::bias);
  CHECK(blocked_by(o, 5, 7, 1, 1) == 0);
}

TEST_CASE("softcap's limits: a huge cap changes nothing, a tiny one flattens the row",
          "[softcap-bias]") {
  const DirectQKV d = large_scores(4, 6, 73);
  const auto plain = attention(d.q, d.k, d.v);
  AttentionOptions wide;
  wide.softcap = 1e6f;
  const auto loose = attention(d.q, d.k, d.v, wide);
  AttentionOptions narrow;
  narrow.softcap = 1e-3f;
  const auto tight = attention(d.q, d.k, d.v, narrow);
  REQUIRE(plain);
  REQUIRE(loose);
  REQUIRE(tight);
  CHECK(max_abs_diff(loose.value().weights(), plain.value().weights()) <= 1e-5);
  for (float w : tight.value().weights().data) CHECK(std::abs(w - 1.0f / 6.0f) <= 1e-3);
}

TEST_CASE("a bias row of −∞ leaves a fully masked row of zeros", "[softcap-bias]") {
  const DirectQKV d = random_qkv(3, 4, 6, 4, 74);
  AttentionOptions o;
  o.bias = Matrix(3, 4);
  for (std::size_t j = 0; j < 4; ++j) (*o.bias)(2, j) = minus_infinity;
  const auto r = attention(d.q, d.k, d.v, o);
  REQUIRE(r);
  CHECK(r.value().fully_masked_rows == std::vector<std::size_t>{2});
  for (std::size_t c = 0; c < 4; ++c) CHECK(r.value().output(2, c) == 0.0f);
}

TEST_CASE("the trace: a softcap step, a bias step, one bias per head", "[softcap-bias]") {
  const std::size_t n = 5, heads = 2;
  const DirectQKV d = random_qkv(n, n, 2 * 4, 2 * 3, 75);
  TraceInput input;
  input.source = d;
  input.heads = static_cast<int>(heads);
  input.options.softcap = 1.5f;
  input.options.bias = random_matrix(heads * n, n, 76);  // head h's rows from h·n
  (*input.options.bias)(n + 3, 0) = minus_infinity;      // head 2 blocks key 0 for query 3
  const auto t = trace(input);
  REQUIRE(t);
  std::size_t softcaps = 0, biases = 0;
  for (const TraceStep& s : t.value().steps) {
    if (s.id == std::string(step::softcap)) {
      ++softcaps;
      REQUIRE(s.softcap);
      CHECK(*s.softcap == 1.5f);
    }
    if (s.id == std::string(step::bias)) ++biases;
    if (s.id == std::string(step::mask) && s.head == 1) CHECK(s.mask->blocked_by(3, 0) == 16);
  }
  CHECK(softcaps == heads);
  CHECK(biases == heads);
  for (std::size_t h = 0; h < heads; ++h) {
    AttentionOptions own;
    own.softcap = 1.5f;
    own.bias = Matrix(n, n);
    std::copy_n(input.options.bias->row(h * n), n * n, own.bias->data.begin());
    const ReferenceAttention ref =
        reference_attention(reference_columns(d.q.cast<double>(), h * 4, 4),
                            reference_columns(d.k.cast<double>(), h * 4, 4),
                            reference_columns(d.v.cast<double>(), h * 3, 3), own);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t c = 0; c < 3; ++c)
        CHECK(std::abs(t.value().output(i, h * 3 + c) - ref.output(i, c)) <= 1e-5);
  }
  SECTION("decode() equals the causal trace, token by token") {
    input.options.causal = true;
    const auto whole = trace(input);
    const auto steps = decode(input);
    REQUIRE(whole);
    REQUIRE(steps);
    CHECK(max_abs_diff(steps.value().output, whole.value().output) <= 1e-6);
  }
  SECTION("the backward steps go through the cap: grad-scores reads the softcap step") {
    // Their values are checked against central differences in trace_backward_test.cpp.
    input.d_output = random_matrix(n, heads * 3, 77);
    const auto traced = trace(input);
    REQUIRE(traced);
    for (int h = 0; h < static_cast<int>(heads); ++h) {
      const auto& steps = traced.value().steps;
      const auto grad_scores = std::find_if(steps.begin(), steps.end(), [&](const auto& s) {
        return s.id == "grad-scores" && s.head == h;
      });
      REQUIRE(grad_scores != steps.end());
      CHECK(grad_scores->operands.size() == 2);  // ∂S̃ and the capped scores
    }
  }
}

TEST_CASE("attention_backward differentiates through softcap and bias (finite differences)",
          "[softcap-bias]") {
  const DirectQKV d = large_scores(4, 5, 78);
  AttentionOptions o;
  o.softcap = 2.0f;
  o.bias = bias_matrix(4, 5, 79);
  const Matrix d_out = random_matrix(4, 4, 80);
  const auto g = attention_backward(d.q, d.k, d.v, d_out, o);
  REQUIRE(g);
  // L = Σ dO ⊙ O in float64; ∂L/∂x by central differences of the reference.
  const auto loss = [&](const MatrixD& q, const MatrixD& k, const MatrixD& v) {
    const ReferenceAttention r = reference_attention(q, k, v, o);
    double sum = 0;
    for (std::size_t i = 0; i < r.output.data.size(); ++i) sum += r.output.data[i] * d_out.data[i];
    return sum;
  };
  const MatrixD q = d.q.cast<double>(), k = d.k.cast<double>(), v = d.v.cast<double>();
  const double h = 1e-6;
  for (const auto& [name, which, grad] :
       {std::tuple{"Q", 0, &g.value().dq}, {"K", 1, &g.value().dk}, {"V", 2, &g.value().dv}}) {
    INFO(name);
    for (std::size_t i = 0; i < grad->data.size(); ++i) {
      MatrixD plus[3] = {q, k, v}, minus[3] = {q, k, v};
      plus[which].data[i] += h;
      minus[which].data[i] -= h;
      const double numeric =
          (loss(plus[0], plus[1], plus[2]) - loss(minus[0], minus[1], minus[2])) / (2 * h);
      CHECK(std::abs(grad->data[i] - numeric) <= 1e-4 * std::max(1.0, std::abs(numeric)));
    }
  }
}

TEST_CASE("bad softcaps and biases are named", "[softcap-bias]") {
  const DirectQKV d = random_qkv(3, 4, 6, 4, 81);
  const auto message = [&](const AttentionOptions& o) {
    const auto r = attention(d.q, d.k, d.v, o);
    REQUIRE_FALSE(r);
    return r.error().message;
  };
  for (float cap : {0.0f, -1.0f, std::numeric_limits<float>::quiet_NaN()}) {
    AttentionOptions o;
    o.softcap = cap;
    CHECK(message(o).find("softcap") != std::string::npos);
  }
  AttentionOptions shape;
  shape.bias = Matrix(4, 3);
  CHECK(message(shape).find("bias (4×3) must be 3×4") != std::string::npos);
  AttentionOptions positive;
  positive.bias = Matrix(3, 4);
  (*positive.bias)(1, 2) = std::numeric_limits<float>::infinity();
  CHECK(message(positive).find("at row 2, column 3") != std::string::npos);
}
