// The attention variants (variants.hpp and the trace's rope, alibi, kv_heads, dropout,
// context, window and global tokens) against a float64 reference written here, plus the RoPE
// relative-position property, the KV-cache equality of decode() and kv_cache_bytes.
#include "attnlab/variants.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "attnlab/attention.hpp"
#include "attnlab/attention_backward.hpp"
#include "attnlab/flash.hpp"
#include "attnlab/limits.hpp"
#include "attnlab/trace.hpp"
#include "test_support.hpp"
#include "trace_names.hpp"

namespace {

using attnlab::BoolMatrix;
using MatrixD = attnlab::BasicMatrix<double>;

constexpr double inf = std::numeric_limits<double>::infinity();

template <class T>
attnlab::Error refused(const attnlab::Result<T>& result) {
  REQUIRE_FALSE(result.ok());
  return result.error();
}

// ---- The float64 reference ----------------------------------------------------------------

MatrixD columns(const Matrix& m, std::size_t first, std::size_t count) {
  MatrixD out(m.rows, count);
  for (std::size_t r = 0; r < m.rows; ++r)
    for (std::size_t c = 0; c < count; ++c) out(r, c) = m(r, first + c);
  return out;
}

MatrixD product(const MatrixD& a, const MatrixD& b) {  // a·b
  MatrixD out(a.rows, b.cols);
  for (std::size_t i = 0; i < a.rows; ++i)
    for (std::size_t j = 0; j < b.cols; ++j)
      for (std::size_t l = 0; l < a.cols; ++l) out(i, j) += a(i, l) * b(l, j);
  return out;
}

// Pair (2i, 2i+1) of row p (position p + offset) rotated by (p + offset)·base^(−2i/d).
MatrixD rope(const MatrixD& m, double base, std::size_t offset = 0) {
  MatrixD out = m;
  for (std::size_t p = 0; p < m.rows; ++p)
    for (std::size_t i = 0; 2 * i < m.cols; ++i) {
      const double a = double(p + offset) * std::pow(base, -2.0 * double(i) / double(m.cols));
      out(p, 2 * i) = m(p, 2 * i) * std::cos(a) - m(p, 2 * i + 1) * std::sin(a);
      out(p, 2 * i + 1) = m(p, 2 * i) * std::sin(a) + m(p, 2 * i + 1) * std::cos(a);
    }
  return out;
}

bool in(const std::vector<std::size_t>& list, std::size_t x) {
  for (std::size_t y : list)
    if (y == x) return true;
  return false;
}

struct RefHead {
  MatrixD q, k, logits, weights, output;
};

// One head: softmax(QKᵀ/√d − m|i−j| masked) with dropout, written from the definitions.
RefHead ref_head(MatrixD q, MatrixD k, const MatrixD& v, const TraceInput& in_, std::size_t h,
                 const BoolMatrix* keep) {
  const attnlab::AttentionOptions& o = in_.options;
  if (in_.rope) q = rope(q, in_.rope_base), k = rope(k, in_.rope_base);
  const double factor = 1.0 / std::sqrt(double(q.cols));
  const double slope = std::pow(2.0, -8.0 * double(h + 1) / double(in_.heads));
  RefHead r{q, k, MatrixD(q.rows, k.rows), MatrixD(q.rows, k.rows), {}};
  for (std::size_t i = 0; i < q.rows; ++i) {
    double max = -inf;
    for (std::size_t j = 0; j < k.rows; ++j) {
      double s = 0;
      for (std::size_t c = 0; c < q.cols; ++c) s += q(i, c) * k(j, c);
      s *= factor;
      // The query's key position, ALiBi's distance from it, the window's sides and the causal
      // rule, written out here.
      double p = double(i);
      if (o.causal_alignment == attnlab::CausalAlignment::bottom_right)
        p += double(k.rows) - double(q.rows);
      else if (o.causal_alignment &&
               o.causal_alignment->kind == attnlab::CausalAlignment::Kind::at_key)
        p += double(o.causal_alignment->first_key);
      if (in_.options.alibi) s -= slope * std::abs(p - double(j));
      const double left = o.window.left == attnlab::Window::unbounded ? inf : double(o.window.left);
      const double right =
          o.window.right == attnlab::Window::unbounded ? inf : double(o.window.right);
      const bool far = (double(j) < p - left || double(j) > p + right) && !in(o.global_tokens, i) &&
                       !in(o.global_tokens, j);
      if ((o.causal && double(j) > p) || far) s = -inf;
      r.logits(i, j) = s;
      max = std::max(max, s);
    }
    double sum = 0;
    for (std::size_t j = 0; j < k.rows; ++j) sum += std::exp(r.logits(i, j) - max);
    for (std::size_t j = 0; j < k.rows; ++j) {
      const double w = std::exp(r.logits(i, j) - max) / sum;
      r.weights(i, j) = keep ? ((*keep)(i, j) ? w / (1.0 - in_.dropout) : 0.0) : w;
    }
  }
  r.output = product(r.weights, v);
  return r;
}

// The trace's output in float64 from Q, K, V (any K/V heads), head outputs side by side.
MatrixD ref_output(const Matrix& q, const Matrix& k, const Matrix& v, const TraceInput& input) {
  const std::size_t heads = input.heads, kv = input.kv_heads ? input.kv_heads : heads;
  const std::size_t d_k = q.cols / heads, d_v = v.cols / kv;
  MatrixD out(q.rows, heads * d_v);
  for (std::size_t h = 0; h < heads; ++h) {
    const std::size_t g = h / (heads / kv);
    std::optional<BoolMatrix> keep;
    if (input.dropout > 0)
      keep = attnlab::dropout_keep(input.dropout_seed, int(h), q.rows, k.rows, input.dropout);
    const RefHead r = ref_head(columns(q, h * d_k, d_k), columns(k, g * d_k, d_k),
                               columns(v, g * d_v, d_v), input, h, keep ? &*keep : nullptr);
    for (std::size_t i = 0; i < q.rows; ++i)
      for (std::size_t c = 0; c < d_v; ++c) out(i, h * d_v + c) = r.output(i, c);
  }
  return out;
}

MatrixD ref_output(const TraceInput& input) {
  const auto& d = std::get<DirectQKV>(input.source);
  return ref_output(d.q, d.k, d.v, input);
}

std::vector<const TraceStep*> steps_of(const Trace& t, const std::string& id) {
  std::vector<const TraceStep*> out;
  for (const TraceStep& s : t.steps)
    if (s.id == id) out.push_back(&s);
  return out;
}

// ---- Sliding window and global tokens ---------------------------------------------------------

TEST_CASE("a sliding window with global tokens masks |i - j| >= w except to and from globals",
          "[variants]") {
  const DirectQKV d = attnlab::test::random_qkv(7, 7, 4, 3, 11);
  attnlab::AttentionOptions options;
  options.window = 2;
  options.global_tokens = {0, 4};
  const auto r = ok(attnlab::attention(d.q, d.k, d.v, options));
  TraceInput input;
  input.options = options;
  const RefHead ref =
      ref_head(d.q.cast<double>(), d.k.cast<double>(), d.v.cast<double>(), input, 0, nullptr);
  CHECK(max_abs_diff(r.weights(), ref.weights) <= 1e-6);
  CHECK(max_abs_diff(r.output, ref.output) <= 1e-5);
  CHECK(attnlab::blocked_by(options, 7, 7, 1, 3) == attnlab::mask_rule::window);  // |1−3| = 2
  CHECK(attnlab::blocked_by(options, 7, 7, 1, 2) == 0);                           // |1−2| = 1
  CHECK(attnlab::blocked_by(options, 7, 7, 6, 0) == 0);                           // key 0 is global
  CHECK(attnlab::blocked_by(options, 7, 7, 4, 1) == 0);  // query 4 is global
  options.causal = true;
  CHECK(attnlab::blocked_by(options, 7, 7, 2, 6) ==
        (attnlab::mask_rule::window | attnlab::mask_rule::causal));

  SECTION("the trace's mask step shows the window's cells") {
    input.source = d;
    const Trace t = ok(attnlab::trace(input));
    const TraceStep& mask = *steps_of(t, step::mask).at(0);
    CHECK(mask.mask->blocked_by(1, 3) == attnlab::mask_rule::window);
    CHECK(mask.formula.find("|i - j| \\ge 2") != std::string::npos);
    CHECK(max_abs_diff(t.output, ref.output) <= 1e-5);
  }
  SECTION("the backward pass equals the backward pass of the same explicit mask") {
    const Matrix d_out = random_matrix(7, 3, 12);
    BoolMatrix allowed(7, 7);
    for (std::size_t i = 0; i < 7; ++i)
      for (std::size_t j = 0; j < 7; ++j)
        allowed(i, j) = attnlab::blocked_by(options, 7, 7, i, j) == 0;
    attnlab::AttentionOptions explicit_mask;
    explicit_mask.mask = allowed;
    const auto a = ok(attnlab::attention_backward(d.q, d.k, d.v, d_out, options));
    const auto b = ok(attnlab::attention_backward(d.q, d.k, d.v, d_out, explicit_mask));
    CHECK(max_abs_diff(a.dq, b.dq) == 0.0);
    CHECK(max_abs_diff(a.dk, b.dk) == 0.0);
    CHECK(max_abs_diff(a.dv, b.dv) == 0.0);
  }
  SECTION("a global token that is not a position is refused") {
    options.global_tokens = {7};
    const auto e = refused(attnlab::attention(d.q, d.k, d.v, options));
    CHECK(e.code == attnlab::ErrorCode::invalid_argument);
    CHECK_THAT(e.message, Catch::Contains("global token 7"));
  }
}

// ---- RoPE -----------------------------------------------------------------------------------

TEST_CASE("RoPE rotates each head's q and k rows in pairs by position", "[variants]") {
  TraceInput input = direct(5, 5, 8, 6, 21);
  input.heads = 2;
  input.rope = true;
  input.rope_base = 100.0f;
  input.options.causal = true;
  const Trace t = ok(attnlab::trace(input));
  const auto& d = std::get<DirectQKV>(input.source);
  const auto rq = steps_of(t, step::rotate_q), rk = steps_of(t, step::rotate_k);
  REQUIRE(rq.size() == 2);
  REQUIRE(rk.size() == 2);
  for (std::size_t h = 0; h < 2; ++h) {
    CAPTURE(h);
    CHECK(max_abs_diff(rq[h]->values, rope(columns(d.q, h * 4, 4), 100.0)) <= 1e-5);
    CHECK(max_abs_diff(rk[h]->values, rope(columns(d.k, h * 4, 4), 100.0)) <= 1e-5);
    // angle(p = 3, i = 1) = 3 · 100^(−2/4) = 0.3
    CHECK(rq[h]->rotation->angles(3, 1) == Approx(0.3).epsilon(1e-6));
    CHECK(rq[h]->rotation->frequencies.at(1) == Approx(0.1).epsilon(1e-6));
  }
  // rotate-q and rotate-k come right after the projections, before the scores.
  CHECK(t.steps.at(0).id == step::rotate_q);
  CHECK(t.steps.at(1).id == step::rotate_k);
  CHECK(t.steps.at(2).id == step::scores);
  CHECK(max_abs_diff(t.output, ref_output(input)) <= 1e-5);

  SECTION("an odd head width is refused") {
    input.heads = 1;
    input.source = attnlab::test::random_qkv(3, 3, 3, 2, 1);
    const auto e = refused(attnlab::trace(input));
    CHECK(e.code == attnlab::ErrorCode::invalid_argument);
    CHECK_THAT(e.message, Catch::Contains("d_k must be even, got d_k = 3"));
  }
  SECTION("a base that is not a finite number above 0 is refused") {
    input.rope_base = std::numeric_limits<float>::quiet_NaN();
    CHECK_THAT(refused(attnlab::trace(input)).message, Catch::Contains("RoPE base"));
  }
}

TEST_CASE("RoPE scores depend only on the offset between positions", "[variants]") {
  const Matrix q = random_matrix(6, 16, 31), k = random_matrix(6, 16, 32);
  const auto scores_at = [&](std::size_t offset) {
    // Rows rotated as positions offset … offset + 5.
    const Matrix angles = attnlab::rope_angles(offset + 6, 16, 10000.0f);
    const Matrix shifted(6, 8, {angles.row(offset), angles.row(offset) + 6 * 8});
    const Matrix rq = attnlab::rotate_pairs(q, shifted), rk = attnlab::rotate_pairs(k, shifted);
    MatrixD s(6, 6);
    for (std::size_t i = 0; i < 6; ++i)
      for (std::size_t j = 0; j < 6; ++j)
        for (std::size_t c = 0; c < 16; ++c) s(i, j) += double(rq(i, c)) * rk(j, c);
    return s;
  };
  const MatrixD base = scores_at(0);
  for (std::size_t offset : {1, 5, 37}) {
    CAPTURE(offset);
    CHECK(max_abs_diff(scores_at(offset), base) <= 1e-5);
  }
  // The rotation does change the scores (position i against j ≠ i), so the check above is
  // not trivially true.
  double moved = 0;
  for (std::size_t i = 0; i < 6; ++i)
    for (std::size_t j = 0; j < 6; ++j) {
      double raw = 0;
      for (std::size_t c = 0; c < 16; ++c) raw += double(q(i, c)) * k(j, c);
      moved = std::max(moved, std::abs(raw - base(i, j)));
    }
  CHECK(moved > 0.1);
}

// ---- ALiBi ----------------------------------------------------------------------------------

TEST_CASE("ALiBi adds -m_h |i - j| to head h's scaled scores", "[variants]") {
  TraceInput input = direct(4, 6, 8, 8, 41);
  input.heads = 4;
  input.options.alibi = true;
  const Trace t = ok(attnlab::trace(input));
  const auto bias = steps_of(t, step::bias);
  REQUIRE(bias.size() == 4);
  const auto scale = steps_of(t, step::scale);
  for (std::size_t h = 0; h < 4; ++h) {
    CAPTURE(h);
    // m_h = 2^(−8(h+1)/4): 0.25, 0.0625, 0.015625, 0.00390625.
    const double slope = 1.0 / std::pow(4.0, double(h + 1));
    CHECK(*bias[h]->slope == Approx(slope).epsilon(1e-7));
    CHECK(attnlab::alibi_slope(int(h), 4) == Approx(slope).epsilon(1e-7));
    for (std::size_t i = 0; i < 4; ++i)
      for (std::size_t j = 0; j < 6; ++j) {
        const double expected = scale[h]->values(i, j) - slope * std::abs(double(i) - double(j));
        CHECK(bias[h]->values(i, j) == Approx(expected).margin(1e-6));
        CHECK(bias[h]->operands.at(1).values->operator()(i, j) ==
              Approx(-slope * std::abs(double(i) - double(j))).margin(1e-7));
      }
  }
  CHECK(max_abs_diff(t.output, ref_output(input)) <= 1e-5);
}

TEST_CASE("ALiBi's distances start where the alignment places the queries, as flash's do",
          "[variants]") {
  // 1 query over 4 keys with zero scores: only ALiBi tells the keys apart. Bottom-right puts the
  // query at key 3, so the nearest key, 3, weighs most; top-left puts it at key 0.
  TraceInput input = direct(1, 4, 2, 2, 43);
  auto& qkv = std::get<DirectQKV>(input.source);
  std::fill(qkv.q.data.begin(), qkv.q.data.end(), 0.0f);
  input.options.alibi = true;
  input.options.causal_alignment = attnlab::CausalAlignment::bottom_right;
  const Trace right = ok(attnlab::trace(input));
  const auto& weights = steps_of(right, step::softmax).at(0)->values;
  CHECK(weights(0, 3) > weights(0, 2));
  CHECK(weights(0, 2) > weights(0, 0));
  input.options.causal_alignment = attnlab::CausalAlignment::top_left;
  const Trace left = ok(attnlab::trace(input));
  CHECK(steps_of(left, step::softmax).at(0)->values(0, 0) >
        steps_of(left, step::softmax).at(0)->values(0, 3));
  // The bias step's formula is the rule computed: bottom-right puts query i at key i + 3.
  CHECK(steps_of(right, step::bias).at(0)->formula.find("m\\,|i + 3 - j|") != std::string::npos);
  CHECK(steps_of(left, step::bias).at(0)->formula.find("m\\,|i - j|") != std::string::npos);

  // Every alignment, with a cache of 3 rows before 2 new keys and 3 queries: the trace against
  // flash over the same 5 keys, and against the float64 reference.
  const attnlab::CausalAlignment alignments[] = {
      attnlab::CausalAlignment::top_left, attnlab::CausalAlignment::bottom_right,
      attnlab::CausalAlignment::at_key(3), attnlab::CausalAlignment::at_key(1)};
  for (const auto& alignment : alignments) {
    CAPTURE(alignment.offset(3, 5));
    TraceInput cached = direct(3, 2, 4, 4, 44);
    cached.heads = 2;
    cached.options.alibi = true;
    cached.options.causal = true;
    cached.options.causal_alignment = alignment;
    cached.options.past_key = random_matrix(3, 4, 45);
    cached.options.past_value = random_matrix(3, 4, 46);
    const Trace t = ok(attnlab::trace(cached));
    const auto& d = std::get<DirectQKV>(cached.source);
    Matrix keys = *cached.options.past_key, values = *cached.options.past_value;
    keys.rows += d.k.rows, values.rows += d.v.rows;
    keys.data.insert(keys.data.end(), d.k.data.begin(), d.k.data.end());
    values.data.insert(values.data.end(), d.v.data.begin(), d.v.data.end());
    attnlab::LongAttentionOptions f;
    f.heads = 2;
    f.alibi = true;
    f.causal = true;
    f.causal_alignment = alignment;
    const auto flash = attnlab::flash_attention(d.q, keys, values, f);
    REQUIRE(flash);
    CHECK(max_abs_diff(t.output, flash.value().output) <= 1e-6);
    TraceInput whole = cached;
    whole.options.past_key.reset(), whole.options.past_value.reset();
    std::get<DirectQKV>(whole.source) = DirectQKV{d.q, keys, values};
    CHECK(max_abs_diff(t.output, ref_output(d.q, keys, values, whole)) <= 1e-5);
  }
}

// ---- Grouped-query and multi-query attention ------------------------------------------------

// K or V with each of its kv head slices repeated for the heads of its group.
Matrix repeated(const Matrix& m, std::size_t kv, std::size_t group) {
  const std::size_t d = m.cols / kv;
  Matrix out(m.rows, m.cols * group);
  for (std::size_t r = 0; r < m.rows; ++r)
    for (std::size_t h = 0; h < kv * group; ++h)
      for (std::size_t c = 0; c < d; ++c) out(r, h * d + c) = m(r, (h / group) * d + c);
  return out;
}

TEST_CASE("grouped- and multi-query attention equal MHA with K and V repeated", "[variants]") {
  for (int kv : {1, 2}) {
    CAPTURE(kv);
    TraceInput gqa;
    gqa.source = DirectQKV{random_matrix(5, 16, 51), random_matrix(5, 4 * kv, 52),
                           random_matrix(5, 2 * kv, 53)};
    gqa.heads = 4;
    gqa.kv_heads = kv;
    gqa.rope = true;
    gqa.options.alibi = true;
    const Trace t = ok(attnlab::trace(gqa));
    const auto& d = std::get<DirectQKV>(gqa.source);
    TraceInput mha = gqa;
    mha.kv_heads = 0;
    mha.source = DirectQKV{d.q, repeated(d.k, kv, 4 / kv), repeated(d.v, kv, 4 / kv)};
    CHECK(max_abs_diff(t.output, ok(attnlab::trace(mha)).output) <= 1e-6);
    CHECK(max_abs_diff(t.output, ref_output(gqa)) <= 1e-5);
  }
  SECTION("with projections: W_K and W_V have kv_heads·d columns") {
    TraceInput input = attnlab::test::random_tokens(4, 6, 8, 4, 61);
    auto& p = std::get<Projections>(input.source);
    p.w_k = random_matrix(6, 4, 62, 0.5f);  // 2 KV heads of d_k = 2
    p.w_v = random_matrix(6, 2, 63, 0.5f);  // 2 KV heads of d_v = 1
    input.heads = 4;
    input.kv_heads = 2;
    const Trace t = ok(attnlab::trace(input));
    const MatrixD x = p.x.cast<double>();
    const MatrixD q = product(x, p.w_q.cast<double>()), k = product(x, p.w_k.cast<double>()),
                  v = product(x, p.w_v.cast<double>());
    CHECK(max_abs_diff(t.output, ref_output(q.cast<float>(), k.cast<float>(), v.cast<float>(),
                                            input)) <= 1e-5);
  }
  SECTION("KV heads that do not divide the heads are refused") {
    TraceInput input = direct(3, 3, 6, 6, 1);
    input.heads = 3;
    input.kv_heads = 2;
    CHECK_THAT(refused(attnlab::trace(input)).message,
               Catch::Contains("2 KV heads do not divide the 3 heads"));
    input.kv_heads = 4;
    CHECK_THAT(refused(attnlab::trace(input)).message, Catch::Contains("KV heads must be"));
  }
}

// ---- Dropout --------------------------------------------------------------------------------

TEST_CASE("dropout keeps each weight with probability 1 - p and scales it by 1/(1 - p)",
          "[variants]") {
  TraceInput input = direct(6, 6, 4, 6, 71);
  input.heads = 2;
  input.options.causal = true;
  SECTION("p = 0 is the identity: no dropout step, the same output") {
    input.dropout = 0.0f;
    const Trace t = ok(attnlab::trace(input));
    CHECK(steps_of(t, step::dropout).empty());
    CHECK(max_abs_diff(t.output, ref_output(input)) <= 1e-5);
  }
  SECTION("p = 0.5: the dropped weights, their row sums and the output") {
    input.dropout = 0.5f;
    input.dropout_seed = 7;
    const Trace t = ok(attnlab::trace(input));
    const auto dropped = steps_of(t, step::dropout);
    const auto softmax = steps_of(t, step::softmax);
    REQUIRE(dropped.size() == 2);
    bool a_sum_moved = false;
    for (std::size_t h = 0; h < 2; ++h) {
      const attnlab::DropoutCells& cells = *dropped[h]->dropout;
      CHECK(cells.keep == attnlab::dropout_keep(7, int(h), 6, 6, 0.5f));
      CHECK(cells.keep_scale == 2.0f);
      for (std::size_t i = 0; i < 6; ++i) {
        double total = 0;
        for (std::size_t j = 0; j < 6; ++j) {
          const double expected = cells.keep(i, j) ? 2.0 * softmax[h]->values(i, j) : 0.0;
          CHECK(dropped[h]->values(i, j) == Approx(expected).margin(1e-7));
          total += expected;
        }
        CHECK(dropped[h]->row_totals[i] == Approx(total).margin(1e-6));
        a_sum_moved |= std::abs(total - 1.0) > 1e-3;
      }
    }
    CHECK(a_sum_moved);  // rows no longer sum to 1
    CHECK(max_abs_diff(t.output, ref_output(input)) <= 1e-5);
  }
  SECTION("the same seed gives the same mask; another seed another") {
    const BoolMatrix a = attnlab::dropout_keep(3, 0, 16, 16, 0.5f);
    CHECK(a == attnlab::dropout_keep(3, 0, 16, 16, 0.5f));
    CHECK_FALSE(a == attnlab::dropout_keep(4, 0, 16, 16, 0.5f));
    CHECK_FALSE(a == attnlab::dropout_keep(3, 1, 16, 16, 0.5f));  // each head its own
  }
  SECTION("the kept fraction is near 1 - p over a large matrix") {
    for (float p : {0.1f, 0.3f, 0.9f}) {
      const BoolMatrix keep = attnlab::dropout_keep(1, 0, 512, 512, p);
      double kept = 0;
      for (auto x : keep.data) kept += x;
      // 262,144 draws: the standard deviation of the fraction is at most 0.001.
      CHECK(kept / keep.data.size() == Approx(1.0 - p).margin(0.005));
    }
  }
  SECTION("p outside [0, 1) and NaN are refused") {
    for (float p : {1.0f, 1.5f, -0.1f, std::numeric_limits<float>::quiet_NaN()}) {
      input.dropout = p;
      const auto e = refused(attnlab::trace(input));
      CHECK(e.code == attnlab::ErrorCode::invalid_argument);
      CHECK_THAT(e.message, Catch::Contains("dropout must be a probability from 0"));
    }
  }
}

// ---- Cross-attention from a context ----------------------------------------------------------

TEST_CASE("cross-attention: Q from X, K and V from a context of another length", "[variants]") {
  TraceInput input = attnlab::test::random_tokens(3, 4, 4, 6, 81);
  auto& p = std::get<Projections>(input.source);
  p.context = random_matrix(5, 4, 85);
  input.heads = 2;
  input.positional = attnlab::PositionalEncoding::sinusoidal;
  const Trace t = ok(attnlab::trace(input));
  // Each sequence gets the encoding of its own positions 0, 1, 2 …
  const auto encode = [](MatrixD m) {
    for (std::size_t r = 0; r < m.rows; ++r)
      for (std::size_t c = 0; c < m.cols; ++c) {
        const double a = double(r) / std::pow(10000.0, double(c - c % 2) / double(m.cols));
        m(r, c) += c % 2 ? std::cos(a) : std::sin(a);
      }
    return m;
  };
  const MatrixD x = encode(p.x.cast<double>()), c = encode(p.context->cast<double>());
  const MatrixD q = product(x, p.w_q.cast<double>()), k = product(c, p.w_k.cast<double>()),
                v = product(c, p.w_v.cast<double>());
  REQUIRE(t.output.rows == 3);
  CHECK(max_abs_diff(t.output,
                     ref_output(q.cast<float>(), k.cast<float>(), v.cast<float>(), input)) <= 1e-5);
  CHECK(steps_of(t, step::scores).at(0)->values.cols == 5);

  SECTION("a context of another width is refused") {
    p.context = random_matrix(5, 3, 1);
    CHECK(refused(attnlab::trace(input)).code == attnlab::ErrorCode::shape_mismatch);
  }
}

// ---- The KV cache ---------------------------------------------------------------------------

TEST_CASE("decode() token by token equals the trace's causal attention", "[variants]") {
  struct Case {
    const char* name;
    int heads, kv_heads;
    bool rope, alibi;
    std::size_t window;
  };
  for (const Case& c : {Case{"plain", 1, 0, false, false, 0}, Case{"GQA", 4, 2, false, false, 0},
                        Case{"MQA, RoPE, ALiBi", 4, 1, true, true, 0},
                        Case{"GQA, RoPE, ALiBi, window", 4, 2, true, true, 3}}) {
    CAPTURE(c.name);
    TraceInput input = attnlab::test::random_tokens(7, 8, 8, 4 * c.heads, 91);
    auto& p = std::get<Projections>(input.source);
    const std::size_t kv = c.kv_heads ? c.kv_heads : c.heads;
    p.w_k = random_matrix(8, 8 / c.heads * kv, 92, 0.5f);
    p.w_v = random_matrix(8, 4 * kv, 93, 0.5f);
    input.w_o = random_matrix(4 * c.heads, 5, 94, 0.5f);
    input.heads = c.heads;
    input.kv_heads = c.kv_heads;
    input.rope = c.rope;
    input.options.alibi = c.alibi;
    input.options.window = c.window;
    input.options.causal = true;
    const Trace full = ok(attnlab::trace(input));
    const attnlab::DecodeTrace d = ok(attnlab::decode(input));
    REQUIRE(d.steps.size() == 7);
    CHECK(max_abs_diff(d.output, full.output) <= 1e-6);
    for (std::size_t t = 0; t < 7; ++t) {
      const attnlab::DecodeStep& s = d.steps[t];
      CHECK(s.position == t);
      REQUIRE(s.heads.size() == std::size_t(c.heads));
      for (const attnlab::DecodeHead& h : s.heads) {
        CHECK(h.keys.rows == t + 1);  // the cache grows by one row per token
        CHECK(h.values.rows == t + 1);
        CHECK(h.weights.cols == t + 1);
        CHECK(attnlab::test::row_sum(h.weights, 0) == Approx(1.0).margin(1e-6));
        // The newest cached row is this step's new k.
        CHECK(max_abs_diff(Matrix(1, h.keys.cols, {h.keys.row(t), h.keys.row(t) + h.keys.cols}),
                           h.k) == 0.0);
      }
      CHECK(max_abs_diff(s.output, Matrix(1, 5, {full.output.row(t), full.output.row(t) + 5})) <=
            1e-6);
    }
  }
  SECTION("a context and dropout are refused") {
    TraceInput input = attnlab::test::random_tokens(3, 4, 4, 4, 1);
    input.dropout = 0.1f;
    CHECK_THAT(refused(attnlab::decode(input)).message, Catch::Contains("without dropout"));
    input.dropout = 0;
    std::get<Projections>(input.source).context = random_matrix(2, 4, 2);
    CHECK_THAT(refused(attnlab::decode(input)).message, Catch::Contains("context"));
  }
  SECTION("more tokens than the cache view keeps are refused") {
    TraceInput input = attnlab::test::random_tokens(attnlab::limits::decode_tokens + 1, 2, 2, 2, 1);
    CHECK(refused(attnlab::decode(input)).code == attnlab::ErrorCode::too_large);
  }
}

TEST_CASE("kv_cache_bytes: K and V of every layer, per token", "[variants]") {
  // Llama 2 70B: 80 layers, 8 KV heads (grouped-query), head width 128, fp16 (2 bytes):
  // 2 (K and V) · 80 · 8 · 128 · 2 = 327,680 bytes per token.
  const attnlab::KvCacheShape llama{80, 8, 128, 2};
  CHECK_FALSE(attnlab::check_kv_cache_shape(llama).has_value());
  CHECK(attnlab::kv_cache_bytes(llama) == 2u * 80 * 8 * 128 * 2);
  CHECK(attnlab::kv_cache_bytes(llama) == 327680u);
  // The same model with 64 KV heads (no grouping) would keep 8 times as much.
  CHECK(attnlab::kv_cache_bytes({80, 64, 128, 2}) == 8 * attnlab::kv_cache_bytes(llama));
  const auto e = attnlab::check_kv_cache_shape({0, 8, 128, 2});
  REQUIRE(e.has_value());
  CHECK_THAT(e->message, Catch::Contains("layers must be a whole number from 1 to 256, got 0"));
  CHECK(attnlab::check_kv_cache_shape({80, 8, 128, 9}).has_value());
}

TEST_CASE("a default trace has none of the variants' steps", "[variants]") {
  const Trace t = ok(attnlab::trace(direct(3, 3, 4, 4, 1)));
  for (const char* id : {step::rotate_q, step::rotate_k, step::bias, step::dropout})
    CHECK(steps_of(t, id).empty());
}

}  // namespace
