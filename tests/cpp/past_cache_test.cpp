// A past KV cache (ONNX Attention's past_key/past_value): the new K and V rows are appended to
// the cache's, and the queries are the last of the keys (bottom-right by default). Checked in
// attention(), the trace, decode() and attention_backward() against float64 attention over the
// whole sequence written out here (the cache's rows stacked above the new ones by hand).
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <string>

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

// Rows [first, first + count) of m.
Matrix rows(const Matrix& m, std::size_t first, std::size_t count) {
  Matrix out(count, m.cols);
  for (std::size_t r = 0; r < count; ++r)
    for (std::size_t c = 0; c < m.cols; ++c) out(r, c) = m.data.at((first + r) * m.cols + c);
  return out;
}

// Float64 attention of n_q queries at positions offset + i over all n_k keys: causal keeps
// keys j <= offset + i; a window (left, right) keys offset + i − left … offset + i + right.
MatrixD offset_causal(const Matrix& q, const Matrix& k, const Matrix& v, std::size_t offset,
                      double left = 1e300, double right = 1e300) {
  MatrixD out(q.rows, v.cols);
  const double scale = 1.0 / std::sqrt(double(q.cols));
  for (std::size_t i = 0; i < q.rows; ++i) {
    const double p = double(offset + i);
    std::vector<double> s(k.rows, -std::numeric_limits<double>::infinity());
    double top = -std::numeric_limits<double>::infinity();
    for (std::size_t j = 0; j < k.rows; ++j) {
      if (double(j) > p || double(j) < p - left || double(j) > p + right) continue;
      double dot = 0.0;
      for (std::size_t c = 0; c < q.cols; ++c) dot += double(q(i, c)) * double(k(j, c));
      s[j] = dot * scale;
      top = std::max(top, s[j]);
    }
    double sum = 0.0;
    for (double& x : s) sum += (x = std::exp(x - top));
    for (std::size_t j = 0; j < k.rows; ++j)
      for (std::size_t c = 0; c < v.cols; ++c) out(i, c) += s[j] / sum * double(v(j, c));
  }
  return out;
}

std::string error_of(const Result<AttentionResult>& r) { return r ? "" : r.error().message; }

}  // namespace

TEST_CASE("attention() with a past cache: the queries are the last of the keys", "[past-cache]") {
  // 5 new queries and keys after 9 cached ones: 14 keys in all.
  const Matrix q = random_matrix(5, 6, 1), k = random_matrix(14, 6, 2), v = random_matrix(14, 4, 3);
  AttentionOptions o;
  o.causal = true;
  o.past_key = rows(k, 0, 9);
  o.past_value = rows(v, 0, 9);
  const AttentionResult r = ok(attention(q, rows(k, 9, 5), rows(v, 9, 5), o));
  CHECK(r.weights().cols == 14);
  // Bottom-right by default: query i sees keys 0 … 9 + i.
  CHECK(max_abs_diff(r.output, offset_causal(q, k, v, 9)) <= 1e-5);
  CHECK(r.weights()(0, 9) > 0.0f);
  CHECK(r.weights()(0, 10) == 0.0f);
  CHECK(blocked_by(o, 5, 14, 0, 10) == mask_rule::causal);
  CHECK(blocked_by(o, 5, 14, 0, 9) == 0);

  SECTION("top-left, asked for, puts query i at key i") {
    o.causal_alignment = CausalAlignment::top_left;
    const AttentionResult top = ok(attention(q, rows(k, 9, 5), rows(v, 9, 5), o));
    CHECK(max_abs_diff(top.output, offset_causal(q, k, v, 0)) <= 1e-5);
  }
  SECTION("a window counts from the query's place after the cache") {
    o.window = Window(3, 0);
    const AttentionResult w = ok(attention(q, rows(k, 9, 5), rows(v, 9, 5), o));
    CHECK(max_abs_diff(w.output, offset_causal(q, k, v, 9, 3, 0)) <= 1e-5);
  }
  SECTION("a global token is a position: query i is the token at 9 + i, not token i") {
    o.window = Window(1);  // each query its own key only, but for the global ones
    o.global_tokens = {0, 11};
    const AttentionResult g = ok(attention(q, rows(k, 9, 5), rows(v, 9, 5), o));
    // Query 0 (position 9) sees keys 0 and 9; query 2 (position 11, global) keys 0 … 11.
    CHECK(blocked_by(o, 5, 14, 0, 5) == mask_rule::window);
    CHECK(g.weights()(0, 5) == 0.0f);
    CHECK(g.weights()(0, 0) > 0.0f);
    CHECK(g.weights()(0, 9) > 0.0f);
    CHECK(blocked_by(o, 5, 14, 2, 5) == 0);
    CHECK(g.weights()(1, 5) == 0.0f);
  }
  SECTION("mask, key padding and bias span the cache's keys too") {
    o.causal = false;
    o.key_padding.assign(14, false);
    o.key_padding[2] = true;  // a cached key
    o.bias = random_matrix(5, 14, 4);
    (*o.bias)(1, 4) = -std::numeric_limits<float>::infinity();
    const AttentionResult b = ok(attention(q, rows(k, 9, 5), rows(v, 9, 5), o));
    AttentionOptions whole = o;  // the same over the whole sequence given as K and V
    whole.past_key.reset();
    whole.past_value.reset();
    const ReferenceAttention ref = reference_attention(q, k, v, whole);
    CHECK(max_abs_diff(b.output, ref.output) <= 1e-5);
    CHECK(b.weights()(3, 2) == 0.0f);
    CHECK(b.weights()(1, 4) == 0.0f);
  }
}

TEST_CASE("the past cache's errors name it and its shape", "[past-cache]") {
  const DirectQKV d = random_qkv(3, 3, 4, 2, 5);
  AttentionOptions o;
  o.past_key = random_matrix(6, 4, 6);
  CHECK(error_of(attention(d.q, d.k, d.v, o)).find("pastKey and pastValue go together") !=
        std::string::npos);
  o.past_value = random_matrix(6, 3, 7);  // V has 2 columns
  const std::string wrong = error_of(attention(d.q, d.k, d.v, o));
  CHECK(wrong.find("pastValue (6×3)") != std::string::npos);
  CHECK(wrong.find("6×2") != std::string::npos);
  o.past_value = random_matrix(5, 2, 7);  // one row short
  CHECK(error_of(attention(d.q, d.k, d.v, o)).find("pastKey (6×4)") != std::string::npos);
  o.past_key = random_matrix(510, 4, 8);
  o.past_value = random_matrix(510, 2, 9);
  const auto big = attention(d.q, d.k, d.v, o);
  REQUIRE(!big);
  CHECK(big.error().code == ErrorCode::too_large);
  CHECK(big.error().message.find("513 keys") != std::string::npos);
  o.past_key = random_matrix(2, 4, 8);
  o.past_value = random_matrix(2, 2, 9);
  o.past_value->data[3] = std::numeric_limits<float>::quiet_NaN();
  CHECK(error_of(attention(d.q, d.k, d.v, o)).find("pastValue") != std::string::npos);
  o.past_value->data[3] = 0.0f;
  o.mask = BoolMatrix(3, 3);  // the mask needs the cache's 2 columns too
  CHECK(error_of(attention(d.q, d.k, d.v, o)).find("must be 3×5") != std::string::npos);
}

TEST_CASE("decode() from a past cache of 100 tokens equals the last rows of the full causal trace",
          "[past-cache]") {
  struct Case {
    const char* name;
    int heads, kv_heads;
    bool alibi;
    Window window;
  };
  for (const Case& c : {Case{"2 heads", 2, 0, false, {}}, Case{"GQA, ALiBi", 4, 2, true, {}},
                        Case{"window of 20 keys behind", 2, 1, false, Window(20, 0)}}) {
    CAPTURE(c.name);
    const std::size_t past = 100, fresh = 12, n = past + fresh, d_k = 4;
    const std::size_t kv = c.kv_heads ? c.kv_heads : c.heads;
    const Matrix q = random_matrix(n, d_k * c.heads, 11), k = random_matrix(n, d_k * kv, 12),
                 v = random_matrix(n, 3 * kv, 13);
    TraceInput full;
    full.source = DirectQKV{q, k, v};
    full.heads = c.heads;
    full.kv_heads = c.kv_heads;
    full.options.alibi = c.alibi;
    full.options.causal = true;
    full.options.window = c.window;
    const Trace whole = ok(attnlab::trace(full));

    TraceInput next = full;
    next.source = DirectQKV{rows(q, past, fresh), rows(k, past, fresh), rows(v, past, fresh)};
    next.options.past_key = rows(k, 0, past);
    next.options.past_value = rows(v, 0, past);
    const DecodeTrace dec = ok(decode(next));
    REQUIRE(dec.steps.size() == fresh);
    CHECK(dec.steps[0].position == past);
    CHECK(dec.steps[0].heads[0].keys.rows == past + 1);
    CHECK(dec.steps.back().heads[0].keys.rows == n);
    CHECK(max_abs_diff(dec.output, rows(whole.output, past, fresh)) <= 1e-5);
    // The trace from the same cache: the same rows, its K and V labelled with the cache.
    const Trace cached = ok(attnlab::trace(next));
    CHECK(max_abs_diff(cached.output, rows(whole.output, past, fresh)) <= 1e-5);
    const TraceStep& scores = cached.steps.at(0);
    REQUIRE(scores.id == step::scores);
    CHECK(scores.values.cols == n);
    const Operand& keys = scores.operands.at(1);
    CHECK(keys.past_rows == past);
    CHECK(operand_values(cached, keys).rows == n);
    if (c.heads == 2 && !c.window.active()) {  // plain multi-head: against float64 per head
      for (std::size_t h = 0; h < 2; ++h) {
        const MatrixD ref =
            offset_causal(column_slice(rows(q, past, fresh), h * d_k, d_k),
                          column_slice(k, h * d_k, d_k), column_slice(v, h * 3, 3), past);
        CHECK(max_abs_diff(column_slice(dec.output, h * 3, 3), ref) <= 1e-5);
      }
    }
  }
}

TEST_CASE("decode() and the trace refuse what a past cache cannot follow yet", "[past-cache]") {
  TraceInput input;
  input.source = random_qkv(3, 3, 4, 4, 21);
  input.options.past_key = random_matrix(2, 4, 22);
  input.options.past_value = random_matrix(2, 4, 23);
  input.options.causal_alignment = CausalAlignment::top_left;
  const auto top = decode(input);
  REQUIRE(!top);
  CHECK(top.error().message.find("bottom-right") != std::string::npos);
  input.options.causal_alignment.reset();
  input.rope = true;
  const auto rope = attnlab::trace(input);
  REQUIRE(!rope);
  CHECK(rope.error().message.find("pastKey") != std::string::npos);
  input.rope = false;
  input.d_output = random_matrix(3, 4, 24);
  const auto backward = attnlab::trace(input);
  REQUIRE(!backward);
  CHECK(backward.error().message ==
        "dOutput: the backward steps do not follow a past cache (pastKey) yet; turn it off to see "
        "the gradients");
  input.d_output.reset();
  input.options.past_key = random_matrix(200, 4, 22);
  input.options.past_value = random_matrix(200, 4, 23);
  const auto long_cache = decode(input);
  REQUIRE(!long_cache);
  CHECK(long_cache.error().code == ErrorCode::too_large);
}

TEST_CASE("attention_backward() with a past cache: dK and dV for every key, the cache's first",
          "[past-cache]") {
  const Matrix q = random_matrix(4, 5, 31), k = random_matrix(10, 5, 32),
               v = random_matrix(10, 3, 33);
  const Matrix d_out = random_matrix(4, 3, 34);
  AttentionOptions cached;
  cached.causal = true;
  cached.past_key = rows(k, 0, 6);
  cached.past_value = rows(v, 0, 6);
  const AttentionGradients g =
      ok(attention_backward(q, rows(k, 6, 4), rows(v, 6, 4), d_out, cached));
  REQUIRE(g.dk.rows == 10);
  REQUIRE(g.dv.rows == 10);
  // Finite differences of the float64 attention over the whole sequence: L = Σ dO ⊙ O.
  const auto loss = [&](const Matrix& kk, const Matrix& vv) {
    const MatrixD o = offset_causal(q, kk, vv, 6);
    double sum = 0.0;
    for (std::size_t i = 0; i < o.data.size(); ++i) sum += o.data[i] * double(d_out.data[i]);
    return sum;
  };
  const double h = 1e-3;
  for (const std::size_t row : {0, 5, 7}) {  // two cached keys, one new
    for (std::size_t c = 0; c < 3; ++c) {
      Matrix plus = v, minus = v;
      plus(row, c) += float(h);
      minus(row, c) -= float(h);
      const double dv = double(plus(row, c)) - double(minus(row, c));  // the step float32 took
      CHECK(std::abs((loss(k, plus) - loss(k, minus)) / dv - g.dv(row, c)) <= 1e-3);
      Matrix kp = k, km = k;
      kp(row, c) += float(h);
      km(row, c) -= float(h);
      const double dk = double(kp(row, c)) - double(km(row, c));
      CHECK(std::abs((loss(kp, v) - loss(km, v)) / dk - g.dk(row, c)) <= 1e-3);
    }
  }
}
