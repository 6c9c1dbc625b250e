// The flash and naive kernels with every option a real model's attention sets: grouped K/V
// heads, bottom-right causal, an asymmetric window, key padding, softcap, an additive bias
// (−∞ blocking) and ALiBi, against a float64 reference written here from the frameworks'
// definitions (ONNX Attention, PyTorch SDPA, Gemma 2, ALiBi), and against attention() and the
// trace on the same inputs.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <random>
#include <string>

#include "attnlab/attention.hpp"
#include "attnlab/flash.hpp"
#include "attnlab/limits.hpp"
#include "attnlab/trace.hpp"
#include "attnlab/variants.hpp"
#include "test_support.hpp"

using namespace attnlab;
using namespace attnlab::test;

namespace {

constexpr double minus_inf = -std::numeric_limits<double>::infinity();

// The weights of row i of query head h in float64, as the frameworks define them: the query at
// key position i (+ n_k − n_q bottom-right); a key is allowed when not after it (causal), inside
// the window, not padding and not −∞ in the bias (head h's rows of a bias given per head); the
// logit is c·tanh(q·k·scale / c) − m_h·|p − j| + bias. Empty when no key is allowed.
std::vector<double> reference_weights(const Matrix& q, const Matrix& k,
                                      const LongAttentionOptions& o, std::size_t h, std::size_t i) {
  const auto heads = static_cast<std::size_t>(o.heads);
  const std::size_t kv = o.kv_heads ? static_cast<std::size_t>(o.kv_heads) : heads;
  const std::size_t g = h / (heads / kv), d = q.cols / heads;
  const double p =
      double(i) +
      (o.causal_alignment == CausalAlignment::bottom_right ? double(k.rows) - double(q.rows) : 0.0);
  const double scale = 1.0 / std::sqrt(double(d));
  const double slope = o.alibi ? std::pow(2.0, -8.0 * double(h + 1) / double(heads)) : 0.0;
  const std::size_t bias_row = o.bias && o.bias->rows != q.rows ? h * q.rows + i : i;
  std::vector<double> logits(k.rows, minus_inf);
  double top = minus_inf;
  for (std::size_t j = 0; j < k.rows; ++j) {
    const double dj = double(j);
    if (o.causal && dj > p) continue;
    if (o.window.left != Window::unbounded && dj < p - double(o.window.left)) continue;
    if (o.window.right != Window::unbounded && dj > p + double(o.window.right)) continue;
    if (!o.key_padding.empty() && o.key_padding[j]) continue;
    const double b = o.bias ? double((*o.bias)(bias_row, j)) : 0.0;
    if (b == minus_inf) continue;
    double s = 0.0;
    for (std::size_t c = 0; c < d; ++c) s += double(q(i, h * d + c)) * double(k(j, g * d + c));
    s *= scale;
    if (o.softcap) s = double(*o.softcap) * std::tanh(s / double(*o.softcap));
    logits[j] = s - slope * std::abs(p - dj) + b;
    top = std::max(top, logits[j]);
  }
  if (top == minus_inf) return {};
  double sum = 0.0;
  for (double& x : logits) sum += (x = std::exp(x - top));
  for (double& x : logits) x /= sum;
  return logits;
}

// Row i of query head h's output in float64 (reference_weights times V); empty without keys.
std::vector<double> reference_row(const Matrix& q, const Matrix& k, const Matrix& v,
                                  const LongAttentionOptions& o, std::size_t h, std::size_t i) {
  const std::vector<double> weights = reference_weights(q, k, o, h, i);
  if (weights.empty()) return {};
  const auto heads = static_cast<std::size_t>(o.heads);
  const std::size_t kv = o.kv_heads ? static_cast<std::size_t>(o.kv_heads) : heads;
  const std::size_t g = h / (heads / kv), d_v = v.cols / kv;
  std::vector<double> out(d_v, 0.0);
  for (std::size_t j = 0; j < k.rows; ++j)
    for (std::size_t c = 0; c < d_v; ++c) out[c] += weights[j] * double(v(j, g * d_v + c));
  return out;
}

// The largest difference from the reference over the chosen rows and every head; a head the
// reference leaves without keys must be zeros, and a row so in every head listed as fully masked.
double worst_error(const LongAttentionResult& r, const Matrix& q, const Matrix& k, const Matrix& v,
                   const LongAttentionOptions& o, const std::vector<std::size_t>& rows) {
  const auto heads = static_cast<std::size_t>(o.heads);
  const std::size_t d_v = r.output.cols / heads;
  double worst = 0.0;
  for (std::size_t i : rows) {
    std::size_t blind = 0;
    for (std::size_t h = 0; h < heads; ++h) {
      const std::vector<double> want = reference_row(q, k, v, o, h, i);
      blind += want.empty();
      for (std::size_t c = 0; c < d_v; ++c)
        worst = std::max(
            worst, std::abs(double(r.output(i, h * d_v + c)) - (want.empty() ? 0.0 : want[c])));
    }
    const bool listed = std::find(r.fully_masked_rows.begin(), r.fully_masked_rows.end(), i) !=
                        r.fully_masked_rows.end();
    CHECK(listed == (blind == heads));
  }
  return worst;
}

// Every option at once: 4 query heads over 2 K/V heads of width d (V's d_v), causal
// bottom-right with 64 more keys than queries, a window of 300 keys behind and 2 ahead, about
// one key in 9 padding, softcap 4, ALiBi, and a bias with −∞ cells, row 5 blocked whole.
struct Problem {
  Matrix q, k, v;
  LongAttentionOptions o;
};

Problem every_option(std::size_t n_q, std::uint32_t seed, std::size_t d = 16, std::size_t d_v = 8) {
  const std::size_t n_k = n_q + 64;
  Problem p{random_matrix(n_q, 4 * d, seed),
            random_matrix(n_k, 2 * d, seed + 1),
            random_matrix(n_k, 2 * d_v, seed + 2),
            {}};
  for (float& x : p.q.data) x *= 2.0f;  // scores a cap of 4 bends
  p.o.heads = 4;
  p.o.kv_heads = 2;
  p.o.causal = true;
  p.o.causal_alignment = CausalAlignment::bottom_right;
  p.o.window = Window(300, 2);
  std::mt19937 engine(seed + 3);
  p.o.key_padding.resize(n_k);
  for (std::size_t j = 0; j < n_k; ++j) p.o.key_padding[j] = engine() % 9 == 0;
  p.o.softcap = 4.0f;
  p.o.alibi = true;
  p.o.bias = random_matrix(n_q, n_k, seed + 4, 0.5f);
  for (std::size_t i = 0; i < n_q; ++i) (*p.o.bias)(i, (i * 7919) % n_k) = -INFINITY;
  for (std::size_t j = 0; j < n_k; ++j) (*p.o.bias)(5, j) = -INFINITY;
  return p;
}

// Every 37th row, and the first and last few.
std::vector<std::size_t> sample_rows(std::size_t n) {
  std::vector<std::size_t> rows;
  for (std::size_t i = 0; i < n; ++i)
    if (i % 37 == 0 || i < 8 || i + 4 >= n) rows.push_back(i);
  return rows;
}

}  // namespace

TEST_CASE(
    "flash with kvHeads, bottom-right causal, a window, padding, softcap, ALiBi and a bias "
    "matches float64 at n = 4,096",
    "[flash-options]") {
  // Wasm's work limits (limits.hpp) stop the flash kernel at 2^24 scores per call.
  const std::size_t n = limits::bounded_work ? 1024 : 4096;
  const Problem p = every_option(n, 41);
  const LongAttentionResult r = flash_attention(p.q, p.k, p.v, p.o).value();
  CHECK(worst_error(r, p.q, p.k, p.v, p.o, sample_rows(n)) <= 1e-5);
  REQUIRE(!r.fully_masked_rows.empty());
  CHECK(r.fully_masked_rows.front() == 5);
  for (float x : std::vector<float>(r.output.row(5), r.output.row(5) + r.output.cols))
    CHECK(x == 0.0f);
  LongAttentionOptions threads = p.o;
  threads.threads = 3;
  CHECK(max_abs_diff(flash_attention(p.q, p.k, p.v, threads).value().output, r.output) == 0.0);
}

// Where a head's K and V fill more than half a core's L2 (here 1,088 or 2,112 keys of width
// 64 + 64: over 512 KiB), each worker takes spans of query blocks through stretches of keys
// (flash.cpp's cpu_plan): one thread takes spans of 16 blocks, three take spans of 4, and a
// block's result does not depend on its span.
TEST_CASE("flash's spans of query blocks match float64 and smaller spans on every option",
          "[flash-options]") {
  const std::size_t n = limits::bounded_work ? 1024 : 2048;
  const Problem p = every_option(n, 43, 64, 64);
  LongAttentionOptions one = p.o;
  one.threads = 1;
  const LongAttentionResult r = flash_attention(p.q, p.k, p.v, one).value();
  CHECK(worst_error(r, p.q, p.k, p.v, p.o, sample_rows(n)) <= 1e-5);
  LongAttentionOptions threads = p.o;
  threads.threads = 3;
  CHECK(max_abs_diff(flash_attention(p.q, p.k, p.v, threads).value().output, r.output) == 0.0);
}

TEST_CASE("flash, naive, attention() and the trace agree on every option", "[flash-options]") {
  const Problem p = every_option(200, 51);
  const LongAttentionResult flash = flash_attention(p.q, p.k, p.v, p.o).value();
  const LongAttentionResult naive = naive_attention(p.q, p.k, p.v, p.o).value();
  CHECK(worst_error(naive, p.q, p.k, p.v, p.o, sample_rows(200)) <= 1e-5);
  CHECK(max_abs_diff(flash.output, naive.output) <= 1e-5);
  CHECK(flash.fully_masked_rows == naive.fully_masked_rows);

  SECTION("attention(), one head at a time") {
    AttentionOptions a;
    a.causal = true;
    a.causal_alignment = CausalAlignment::bottom_right;
    a.window = p.o.window;
    a.key_padding = p.o.key_padding;
    a.softcap = p.o.softcap;
    a.bias = p.o.bias;
    LongAttentionOptions no_alibi = p.o;
    no_alibi.alibi = false;
    const LongAttentionResult f = flash_attention(p.q, p.k, p.v, no_alibi).value();
    for (std::size_t h = 0; h < 4; ++h) {
      const auto r = attention(column_slice(p.q, h * 16, 16), column_slice(p.k, h / 2 * 16, 16),
                               column_slice(p.v, h / 2 * 8, 8), a);
      REQUIRE(r);
      CHECK(max_abs_diff(r.value().output, column_slice(f.output, h * 8, 8)) <= 1e-5);
    }
  }
  SECTION("the trace, ALiBi included (top-left, as many queries as keys)") {
    LongAttentionOptions square = p.o;
    square.causal_alignment = CausalAlignment::top_left;
    const auto first_rows = [](const Matrix& m) {
      return Matrix(200, m.cols, std::vector<float>(m.data.begin(), m.data.begin() + 200 * m.cols));
    };
    const Matrix k200 = first_rows(p.k), v200 = first_rows(p.v);
    square.key_padding.resize(200);
    Matrix bias(200, 200);
    for (std::size_t i = 0; i < 200; ++i)
      for (std::size_t j = 0; j < 200; ++j) bias(i, j) = (*p.o.bias)(i, j);
    square.bias = bias;
    TraceInput t;
    t.source = DirectQKV{p.q, k200, v200};
    t.heads = 4;
    t.kv_heads = 2;
    t.options.alibi = true;
    t.options.causal = true;
    t.options.window = square.window;
    t.options.key_padding = square.key_padding;
    t.options.softcap = square.softcap;
    t.options.bias = bias;
    const Trace trace = attnlab::trace(t).value();
    const LongAttentionResult f = flash_attention(p.q, k200, v200, square).value();
    CHECK(max_abs_diff(trace.output, f.output) <= 1e-5);
    CHECK(worst_error(f, p.q, k200, v200, square, sample_rows(200)) <= 1e-5);
  }
}

TEST_CASE("flash: softcap's limit, −∞ in the bias, and the options' errors", "[flash-options]") {
  const Matrix q = random_matrix(70, 8, 61), k = random_matrix(90, 8, 62),
               v = random_matrix(90, 4, 63);
  LongAttentionOptions plain;
  plain.causal = true;
  LongAttentionOptions huge = plain;
  huge.softcap = 1e30f;  // softcap → ∞ is no softcap (Gemma 2's c·tanh(s / c) → s)
  CHECK(max_abs_diff(flash_attention(q, k, v, huge).value().output,
                     flash_attention(q, k, v, plain).value().output) <= 1e-6);
  // A −∞ bias entry is the same as masking that key out: here, padding it.
  LongAttentionOptions biased = plain, padded = plain;
  biased.bias = Matrix(70, 90);
  for (std::size_t i = 0; i < 70; ++i) (*biased.bias)(i, 3) = -INFINITY;
  padded.key_padding.assign(90, false);
  padded.key_padding[3] = true;
  CHECK(max_abs_diff(flash_attention(q, k, v, biased).value().output,
                     flash_attention(q, k, v, padded).value().output) <= 1e-6);

  const auto error = [&](const LongAttentionOptions& o) {
    const auto r = flash_attention(q, k, v, o);
    return r ? std::string() : r.error().message;
  };
  LongAttentionOptions bad = plain;
  bad.bias = Matrix(70, 89);
  CHECK(error(bad).find("bias (70×89) must be 70×90") != std::string::npos);
  bad.bias = Matrix(70, 90);
  (*bad.bias)(2, 4) = NAN;
  CHECK(error(bad).find("row 3, column 5") != std::string::npos);
  bad = plain;
  bad.key_padding.assign(89, false);
  CHECK(error(bad).find("key padding has 89 flags") != std::string::npos);
  bad = plain;
  bad.softcap = 0.0f;
  CHECK(error(bad).find("softcap") != std::string::npos);
  bad = plain;
  bad.heads = 2;
  bad.bias = Matrix(3 * 70, 90);  // neither one for all heads nor one per head
  CHECK(error(bad).find("bias (210×90) must be 70×90 or, one per head, 140×90") !=
        std::string::npos);
}

TEST_CASE("flash and naive take a bias per head: heads blocked on their own give zeros",
          "[flash-options]") {
  Problem p = every_option(300, 71);
  Matrix per_head = random_matrix(4 * 300, 364, 75, 0.5f);
  for (std::size_t h = 0; h < 4; ++h)
    for (std::size_t j = 0; j < 364; ++j) {
      per_head(h * 300 + 5, j) = -INFINITY;              // row 5: blocked in every head
      if (h == 1) per_head(h * 300 + 9, j) = -INFINITY;  // row 9: in head 1 only
    }
  p.o.bias = per_head;
  for (const auto& kernel : {flash_attention, naive_attention}) {
    const LongAttentionResult r = kernel(p.q, p.k, p.v, p.o).value();
    CHECK(worst_error(r, p.q, p.k, p.v, p.o, sample_rows(300)) <= 1e-5);
    CHECK(std::count(r.fully_masked_rows.begin(), r.fully_masked_rows.end(), 5) == 1);
    CHECK(std::count(r.fully_masked_rows.begin(), r.fully_masked_rows.end(), 9) == 0);
    for (std::size_t c = 8; c < 16; ++c) CHECK(r.output(9, c) == 0.0f);  // head 1 of row 9
    CHECK(std::abs(r.output(9, 0)) + std::abs(r.output(9, 16)) > 0.0f);
  }
}

TEST_CASE("sampled weights take every option: against the float64 weights", "[flash-options]") {
  Problem p = every_option(150, 81);
  const std::vector<std::size_t> rows{0, 5, 7, 64, 149}, cols{0, 3, 60, 63, 64, 70, 150, 213};
  for (const bool per_head : {false, true}) {
    if (per_head) p.o.bias = random_matrix(4 * 150, 214, 85, 0.5f);
    for (int h = 0; h < 4; ++h) {
      const Matrix w = sampled_weights(p.q, p.k, rows, cols, h, p.o).value();
      const SampledMask mask = sampled_mask(150, 214, rows, cols, h, p.o).value();
      for (std::size_t r = 0; r < rows.size(); ++r) {
        const std::vector<double> want =
            reference_weights(p.q, p.k, p.o, static_cast<std::size_t>(h), rows[r]);
        CHECK(mask.visible_keys[r] ==
              std::size_t(std::count_if(want.begin(), want.end(), [](double x) { return x > 0; })));
        for (std::size_t c = 0; c < cols.size(); ++c) {
          const double expected = want.empty() ? 0.0 : want[cols[c]];
          CHECK(std::abs(double(w(r, c)) - expected) <= 1e-6);
          CHECK(bool(mask.hidden(r, c)) == (expected == 0.0));
        }
      }
    }
  }
}

TEST_CASE("flash_plan(): the rules a pass run elsewhere applies", "[flash-options]") {
  const Problem p = every_option(120, 91);
  const FlashPlan plan = flash_plan(p.q, p.k, p.v, p.o).value();
  REQUIRE(plan.key_bands.size() == 2 * 120);
  for (std::size_t i = 0; i < 120; ++i) {  // at key p = i + 64: keys p − 300 … p (causal)
    CHECK(plan.key_bands[2 * i] == i + 64 - std::min<std::size_t>(i + 64, 300));
    CHECK(plan.key_bands[2 * i + 1] == i + 65);
  }
  CHECK(plan.position_offset == 64);
  REQUIRE(plan.slopes.size() == 4);
  for (std::size_t h = 0; h < 4; ++h)
    CHECK(plan.slopes[h] == Approx(std::pow(2.0, -8.0 * double(h + 1) / 4.0)));
  CHECK_FALSE(plan.bias_per_head);
  CHECK(plan.fully_masked_rows == flash_attention(p.q, p.k, p.v, p.o).value().fully_masked_rows);
  CHECK(plan.fully_masked_rows == std::vector<std::size_t>{5});
}

// One description of the rules (ScoreRules, score_rules.hpp): the option structs embed it, so
// the flash kernels take the temperature as attention() does, flash_plan() gives each head's
// factor, attention() takes ALiBi (one head: slope 2^−8), and the rules the long-sequence
// kernels cannot apply are refused rather than ignored.
TEST_CASE("every path takes its rules from ScoreRules", "[flash-options][score-rules]") {
  const Problem p = every_option(120, 92);
  LongAttentionOptions warm = p.o;
  warm.temperature = 2.5f;
  LongAttentionOptions scaled = p.o;  // the same factor as a scale
  scaled.scale = 1.0f / std::sqrt(static_cast<float>(p.q.cols / 4)) / 2.5f;
  const Matrix out = flash_attention(p.q, p.k, p.v, warm).value().output;
  CHECK(max_abs_diff(out, flash_attention(p.q, p.k, p.v, scaled).value().output) <= 1e-6);
  CHECK(max_abs_diff(out, naive_attention(p.q, p.k, p.v, warm).value().output) <= 1e-5);
  const FlashPlan plan = flash_plan(p.q, p.k, p.v, warm).value();
  REQUIRE(plan.factors.size() == 4);
  for (float f : plan.factors) CHECK(f == Approx(plan.scale / 2.5f));

  // attention() with ALiBi: head 0 of 1, at the positions the alignment gives.
  const DirectQKV d = random_qkv(3, 5, 4, 4, 93);
  AttentionOptions alibi;
  alibi.alibi = true;
  alibi.causal_alignment = CausalAlignment::bottom_right;
  AttentionOptions biased;
  biased.bias = alibi_bias(alibi_slope(0, 1), 3, 5, 2);
  const auto with_alibi = attention(d.q, d.k, d.v, alibi).value();
  CHECK(max_abs_diff(with_alibi.output, attention(d.q, d.k, d.v, biased).value().output) <= 1e-6);
  LongAttentionOptions flash;
  flash.alibi = true;
  flash.causal_alignment = CausalAlignment::bottom_right;
  CHECK(max_abs_diff(with_alibi.output, flash_attention(d.q, d.k, d.v, flash).value().output) <=
        1e-6);

  // The rules the long-sequence kernels do not take are named, not ignored.
  LongAttentionOptions masked;
  masked.mask = BoolMatrix(3, 5, std::vector<std::uint8_t>(15, 1));
  const auto refused = flash_attention(d.q, d.k, d.v, masked);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message.find("mask") != std::string::npos);
  LongAttentionOptions global;
  global.global_tokens = {0};
  CHECK_FALSE(naive_attention(d.q, d.k, d.v, global));
  LongAttentionOptions cold;
  cold.temperature = 0.0f;
  CHECK(flash_attention(d.q, d.k, d.v, cold).error().code == ErrorCode::invalid_argument);
}
