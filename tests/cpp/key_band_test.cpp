// The causal alignment, asymmetric windows and grouped-query K/V in every path that takes them:
// attention() and the trace's mask step, the flash and naive kernels, the sampled weights and
// the flash backward pass, each against the float64 reference (reference_attention.hpp),
// whose rule is written out there, not taken from key_band.hpp.
#include "attnlab/key_band.hpp"

#include <catch2/catch.hpp>

#include "attnlab/attention.hpp"
#include "attnlab/attention_backward.hpp"
#include "attnlab/flash.hpp"
#include "attnlab/limits.hpp"
#include "reference_attention.hpp"
#include "test_support.hpp"

using namespace attnlab;
using namespace attnlab::test;

namespace {

struct BandCase {
  const char* name;
  bool causal;
  CausalAlignment alignment;
  Window window;
};

const BandCase band_cases[] = {
    {"causal, top-left", true, CausalAlignment::top_left, {}},
    {"causal, bottom-right", true, CausalAlignment::bottom_right, {}},
    {"window 5 (symmetric)", false, CausalAlignment::top_left, Window(5)},
    {"window left 70, right 3", false, CausalAlignment::top_left, Window(70, 3)},
    {"window left 0, right 40, bottom-right", false, CausalAlignment::bottom_right, Window(0, 40)},
    {"causal, window left 100 (Mistral), bottom-right", true, CausalAlignment::bottom_right,
     Window(100, Window::unbounded)},
    {"causal, query 0 at key 1 (ONNX's n_past)", true, CausalAlignment::at_key(1), {}},
    {"window left 2, right 1, query 0 at key -1", false, CausalAlignment::at_key(-1), Window(2, 1)},
};

AttentionOptions attention_options(const BandCase& c) {
  AttentionOptions o;
  o.causal = c.causal;
  o.causal_alignment = c.alignment;
  o.window = c.window;
  return o;
}

LongAttentionOptions flash_options(const BandCase& c, int heads = 1, int kv_heads = 0) {
  LongAttentionOptions o;
  o.causal = c.causal;
  o.causal_alignment = c.alignment;
  o.window = c.window;
  o.heads = heads;
  o.kv_heads = kv_heads;
  return o;
}

// Head h's float64 reference with K/V head h / (heads / kv_heads): (n_q, d_v), and its
// fully masked rows.
ReferenceAttention reference_head(const Matrix& q, const Matrix& k, const Matrix& v, int heads,
                                  int kv_heads, std::size_t h, const AttentionOptions& o) {
  const auto group = static_cast<std::size_t>(heads / kv_heads);
  const std::size_t d = q.cols / static_cast<std::size_t>(heads);
  const std::size_t d_v = v.cols / static_cast<std::size_t>(kv_heads);
  return reference_attention(reference_columns(q.cast<double>(), h * d, d),
                             reference_columns(k.cast<double>(), h / group * d, d),
                             reference_columns(v.cast<double>(), h / group * d_v, d_v), o);
}

}  // namespace

TEST_CASE("the key band: a number is the symmetric window, rows move right, ranges clip",
          "[key-band]") {
  CHECK(Window(3) == Window(2, 2));
  CHECK_FALSE(Window(0).active());
  CHECK_FALSE(Window().active());
  // 3 queries over 5 keys, bottom-right: query 0 sits at key 2.
  const KeyBand causal(true, CausalAlignment::bottom_right, {}, 3, 5);
  CHECK(causal.range(0).begin == 0);
  CHECK(causal.range(0).end == 3);
  CHECK(causal.range(2).end == 5);
  // 5 queries over 3 keys, bottom-right: queries 0 and 1 sit before the first key.
  const KeyBand early(true, CausalAlignment::bottom_right, {}, 5, 3);
  CHECK(early.range(0).empty());
  CHECK(early.range(1).empty());
  CHECK(early.range(2).end == 1);
  // A window past the last key: empty, and both ends never move back.
  const KeyBand past(false, CausalAlignment::top_left, Window(1, 1), 9, 4);
  CHECK(past.range(6).empty());
  CHECK(past.range(6).begin >= past.range(3).begin);
  CHECK(past.range(6).end >= past.range(3).end);
}

TEST_CASE("attention() and the trace's mask take the alignment and both window sides",
          "[key-band]") {
  const std::size_t n_q = 9, n_k = 14;
  const DirectQKV d = random_qkv(n_q, n_k, 8, 5, 31);
  for (const BandCase& c : band_cases) {
    INFO(c.name);
    const AttentionOptions o = attention_options(c);
    const auto r = attention(d.q, d.k, d.v, o);
    REQUIRE(r);
    const ReferenceAttention ref = reference_attention(d.q, d.k, d.v, o);
    CHECK(max_abs_diff(r.value().weights(), ref.weights) <= 1e-6);
    CHECK(max_abs_diff(r.value().output, ref.output) <= 1e-5);
    CHECK(r.value().fully_masked_rows == ref.fully_masked_rows);
    for (std::size_t i = 0; i < n_q; ++i)
      for (std::size_t j = 0; j < n_k; ++j)
        CHECK((blocked_by(o, n_q, n_k, i, j) == 0) == reference_allows(o, n_q, n_k, i, j));
  }
}

TEST_CASE("bottom-right causal is the last rows of the full causal attention (a cache)",
          "[key-band]") {
  // 30 tokens; the last 7 queries over all 30 keys, as a model generating with a cache.
  const DirectQKV d = random_qkv(30, 30, 8, 6, 32);
  AttentionOptions full;
  full.causal = true;
  const auto whole = attention(d.q, d.k, d.v, full);
  Matrix last(7, d.q.cols);
  for (std::size_t i = 0; i < 7; ++i) std::copy_n(d.q.row(23 + i), d.q.cols, last.row(i));
  AttentionOptions cached = full;
  cached.causal_alignment = CausalAlignment::bottom_right;
  const auto tail = attention(last, d.k, d.v, cached);
  REQUIRE(whole);
  REQUIRE(tail);
  for (std::size_t i = 0; i < 7; ++i)
    for (std::size_t c = 0; c < d.v.cols; ++c)
      CHECK(tail.value().output(i, c) == whole.value().output(23 + i, c));
  // Top-left on the same call would let query 0 see key 0 only.
  const auto top_left = attention(last, d.k, d.v, full);
  REQUIRE(top_left);
  CHECK(top_left.value().weights()(0, 1) == 0.0f);
  CHECK(tail.value().weights()(0, 1) > 0.0f);
}

TEST_CASE("flash, naive and sampled weights take the band and grouped K/V", "[key-band]") {
  const auto [n_q, n_k] = GENERATE(
      table<std::size_t, std::size_t>({{1, 1}, {7, 200}, {333, 517}, {517, 333}, {300, 300}}));
  const auto [heads, kv_heads] = GENERATE(table<int, int>({{1, 1}, {4, 2}, {3, 1}}));
  const std::size_t d = 16, d_v = 12;
  const Matrix q = random_matrix(2 * n_q, static_cast<std::size_t>(heads) * d, 41);
  const Matrix k = random_matrix(2 * n_k, static_cast<std::size_t>(kv_heads) * d, 42);
  const Matrix v = random_matrix(2 * n_k, static_cast<std::size_t>(kv_heads) * d_v, 43);
  for (const BandCase& c : band_cases) {
    INFO(c.name << ", n_q = " << n_q << ", n_k = " << n_k << ", heads " << heads << "/"
                << kv_heads);
    LongAttentionOptions o = flash_options(c, heads, kv_heads);
    o.batch = 2;
    o.threads = 2;
    const auto flash = flash_attention(q, k, v, o);
    const auto naive = naive_attention(q, k, v, o);
    REQUIRE(flash);
    REQUIRE(naive);
    REQUIRE(flash.value().output.cols == static_cast<std::size_t>(heads) * d_v);
    const AttentionOptions ref_options = attention_options(c);
    std::vector<std::size_t> masked;
    for (std::size_t b = 0; b < 2; ++b) {
      Matrix qb(n_q, q.cols), kb(n_k, k.cols), vb(n_k, v.cols);
      std::copy_n(q.row(b * n_q), qb.data.size(), qb.data.begin());
      std::copy_n(k.row(b * n_k), kb.data.size(), kb.data.begin());
      std::copy_n(v.row(b * n_k), vb.data.size(), vb.data.begin());
      for (std::size_t h = 0; h < static_cast<std::size_t>(heads); ++h) {
        const ReferenceAttention ref = reference_head(qb, kb, vb, heads, kv_heads, h, ref_options);
        double flash_error = 0, naive_error = 0;
        for (std::size_t i = 0; i < n_q; ++i)
          for (std::size_t col = 0; col < d_v; ++col) {
            const double want = ref.output(i, col);
            flash_error = std::max(
                flash_error, std::abs(flash.value().output(b * n_q + i, h * d_v + col) - want));
            naive_error = std::max(
                naive_error, std::abs(naive.value().output(b * n_q + i, h * d_v + col) - want));
          }
        CHECK(flash_error <= 1e-5);
        CHECK(naive_error <= 1e-5);
        if (h == 0)
          for (std::size_t i : ref.fully_masked_rows) masked.push_back(b * n_q + i);
        if (b == 0) {  // the sampled weights of sequence 0
          const std::vector<std::size_t> rows{0, n_q / 2, n_q - 1}, cols{0, n_k / 3, n_k - 1};
          LongAttentionOptions one = o;
          one.batch = 1;
          const auto sampled = sampled_weights(qb, kb, rows, cols, static_cast<int>(h), one);
          REQUIRE(sampled);
          for (std::size_t r = 0; r < rows.size(); ++r)
            for (std::size_t col = 0; col < cols.size(); ++col)
              CHECK(std::abs(sampled.value()(r, col) - ref.weights(rows[r], cols[col])) <= 1e-6);
        }
      }
    }
    CHECK(flash.value().fully_masked_rows == masked);
    CHECK(naive.value().fully_masked_rows == masked);
  }
}

TEST_CASE("flash at 4,096 tokens with kvHeads, a window and bottom-right causal", "[key-band]") {
  const std::size_t n_k = attnlab::limits::bounded_work ? 2048 : 4096, n_q = n_k - 100;
  const BandCase c{"", true, CausalAlignment::bottom_right, Window(300, Window::unbounded)};
  const Matrix q = random_matrix(n_q, 4 * 16, 51), k = random_matrix(n_k, 2 * 16, 52),
               v = random_matrix(n_k, 2 * 16, 53);
  const auto flash = flash_attention(q, k, v, flash_options(c, 4, 2));
  REQUIRE(flash);
  // Every 97th query of each head against the float64 reference of its own row.
  for (std::size_t h = 0; h < 4; ++h) {
    const ReferenceAttention ref = reference_head(q, k, v, 4, 2, h, attention_options(c));
    double error = 0;
    for (std::size_t i = 0; i < n_q; i += 97)
      for (std::size_t col = 0; col < 16; ++col)
        error =
            std::max(error, std::abs(flash.value().output(i, h * 16 + col) - ref.output(i, col)));
    CHECK(error <= 1e-5);
  }
}

TEST_CASE("the flash backward pass takes the band, against the explicit-mask backward",
          "[key-band]") {
  const std::size_t n_q = 70, n_k = 90;
  const DirectQKV d = random_qkv(n_q, n_k, 8, 6, 61);
  const Matrix d_out = random_matrix(n_q, 6, 62);
  for (const BandCase& c : band_cases) {
    INFO(c.name);
    const auto flash = flash_attention_backward(d.q, d.k, d.v, d_out, flash_options(c));
    // The same rule as an explicit boolean mask: the general backward pass.
    AttentionOptions masked;
    masked.mask = BoolMatrix(n_q, n_k);
    for (std::size_t i = 0; i < n_q; ++i)
      for (std::size_t j = 0; j < n_k; ++j)
        (*masked.mask)(i, j) = reference_allows(attention_options(c), n_q, n_k, i, j);
    const auto general = attention_backward(d.q, d.k, d.v, d_out, masked);
    REQUIRE(flash);
    REQUIRE(general);
    CHECK(max_abs_diff(flash.value().dq, general.value().dq) <= 1e-5);
    CHECK(max_abs_diff(flash.value().dk, general.value().dk) <= 1e-5);
    CHECK(max_abs_diff(flash.value().dv, general.value().dv) <= 1e-5);
  }
  LongAttentionOptions grouped;
  grouped.heads = 2;
  grouped.kv_heads = 1;
  const Matrix q2 = random_matrix(n_q, 16, 63);
  const auto refused = flash_attention_backward(q2, d.k, d.v, random_matrix(n_q, 12, 64), grouped);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message.find("kvHeads") != std::string::npos);
}
