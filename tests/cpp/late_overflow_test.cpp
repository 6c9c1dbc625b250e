// Values computed after the input checks (issue 29, item 4): finite inputs whose products,
// sums or rescalings pass float32's limit are a non-finite error naming what overflowed,
// never Infinity handed back, in attention(), every trace step and every variant.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <string>

#include "attnlab/attention.hpp"
#include "attnlab/flash.hpp"
#include "attnlab/trace.hpp"

namespace {

using attnlab::DirectQKV;
using attnlab::ErrorCode;
using attnlab::Matrix;
using attnlab::TraceInput;

constexpr float most = std::numeric_limits<float>::max();

// Every value of every step of a trace that succeeded is finite (a masked score's −∞ aside).
void all_finite(const attnlab::Trace& t) {
  for (const auto& s : t.steps)
    for (float v : s.values.data)
      CHECK((std::isfinite(v) || (s.id == "mask" && v == -std::numeric_limits<float>::infinity())));
}

}  // namespace

TEST_CASE("attention(): V at FLT_MAX over 10 keys sums past float32: non-finite, naming the output",
          "[late-overflow]") {
  const Matrix q(1, 1, 0.0f), k(10, 1, 0.0f), v(10, 1, most);
  const auto r = attnlab::attention(q, k, v);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::non_finite);
  CHECK_THAT(r.error().message, Catch::Contains("the output A·V (1×1) has Infinity at row 1, "
                                                "column 1") &&
                                    Catch::Contains("too large for float32"));
  // Below the limit the same sum is finite: 0.1 · 3e38 ten times.
  CHECK(attnlab::attention(q, k, Matrix(10, 1, 3e38f)).ok());
}

TEST_CASE("trace(): dropout's 1/(1 − p) scaling past float32 is non-finite, not Infinity",
          "[late-overflow]") {
  TraceInput in;
  in.source = DirectQKV{Matrix(1, 1, 0.0f), Matrix(1, 1, 0.0f), Matrix(1, 1, 3e38f)};
  in.dropout = 0.5f;
  bool kept = false;
  for (std::uint32_t seed = 0; seed < 8; ++seed) {
    in.dropout_seed = seed;
    const auto t = attnlab::trace(in);
    if (t.ok()) {  // the one weight was dropped: output 0
      all_finite(t.value());
      CHECK(t.value().output(0, 0) == 0.0f);
      continue;
    }
    kept = true;  // kept and doubled: 6e38
    CHECK(t.error().code == ErrorCode::non_finite);
    CHECK_THAT(t.error().message, Catch::Contains("aggregate") && Catch::Contains("Infinity") &&
                                      Catch::Contains("too large for float32"));
  }
  CHECK(kept);
}

TEST_CASE("trace(): a RoPE rotation past float32 names the rotated q, not Q", "[late-overflow]") {
  // Position 2 turns (3e38, 3e38) by 1 radian: x·sin 1 + y·cos 1 ≈ 4.1e38.
  const Matrix q(2, 2, {0.0f, 0.0f, 3e38f, 3e38f});
  TraceInput in;
  in.source = DirectQKV{q, Matrix(2, 2, 0.0f), Matrix(2, 2, 1.0f)};
  in.rope = true;
  const auto t = attnlab::trace(in);
  REQUIRE_FALSE(t.ok());
  CHECK(t.error().code == ErrorCode::non_finite);
  CHECK_THAT(t.error().message, Catch::StartsWith("the rotated q (RoPE) (2×2) has Infinity at "
                                                  "row 2, column 2"));
  in.source = DirectQKV{Matrix(2, 2, 0.0f), q, Matrix(2, 2, 1.0f)};
  const auto k = attnlab::trace(in);
  REQUIRE_FALSE(k.ok());
  CHECK_THAT(k.error().message, Catch::StartsWith("the rotated k (RoPE)"));
}

TEST_CASE("trace(): with W_O, every step of a finite result is finite; a late overflow is named",
          "[late-overflow]") {
  TraceInput in;
  in.source = DirectQKV{Matrix(2, 2, 1.0f), Matrix(3, 2, 1.0f), Matrix(3, 2, 2e38f)};
  in.w_o = Matrix(2, 2, 1.0f);  // two values of 2e38 summed per output column
  const auto t = attnlab::trace(in);
  REQUIRE_FALSE(t.ok());
  CHECK_THAT(t.error().message,
             Catch::Contains("output-projection") && Catch::Contains("too large for float32"));
  in.w_o = Matrix(2, 2, 0.25f);
  const auto fine = attnlab::trace(in);
  REQUIRE(fine.ok());
  all_finite(fine.value());
}

TEST_CASE("sampled_weights(): heads that do not divide Q are named against Q, not a V it lacks",
          "[late-overflow]") {
  attnlab::LongAttentionOptions o;
  o.heads = 3;
  const auto r = attnlab::sampled_weights(Matrix(12, 4, 0.5f), Matrix(12, 4, 0.5f), {0}, {0}, 0, o);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::invalid_argument);
  CHECK(r.error().message == "heads (3) must be at least 1 and divide the width of Q (12×4)");
  // K's width against the heads (grouped K/V: kvHeads slices) names K, never a V.
  o.heads = 2;
  const auto k = attnlab::sampled_weights(Matrix(12, 4, 0.5f), Matrix(12, 6, 0.5f), {0}, {0}, 0, o);
  REQUIRE_FALSE(k.ok());
  CHECK(k.error().message.find("K (12×6) must have 2 heads") == 0);
  CHECK(k.error().message.find("V") == std::string::npos);
}

TEST_CASE("flash_attention(): a weighted sum of V past float32 in one row names that row",
          "[late-overflow]") {
  // 2 heads of width 1, 300 keys. Head 1's keys are +1 (even) and -1 (odd), its V +big (even)
  // and -big (odd): a query of 0 weighs them alike and the sum cancels as it goes, but row 137's
  // query of 100 weighs only the even keys, and the kernel's unnormalised sum of 150 · big
  // passes float32 when big is half of its largest value (and not at a 300th of it).
  const std::size_t n = 300, rows = 200;
  Matrix q(rows, 2, 0.0f), k(n, 2, 0.0f), v(n, 2, 1.0f);
  const auto fill_v = [&](float big) {
    for (std::size_t j = 0; j < n; ++j) v(j, 1) = j % 2 == 0 ? big : -big;
  };
  for (std::size_t j = 0; j < n; ++j) k(j, 1) = j % 2 == 0 ? 1.0f : -1.0f;
  q(136, 1) = 100.0f;
  fill_v(most / 2);
  for (const std::size_t threads : {1, 2}) {
    attnlab::LongAttentionOptions o;
    o.heads = 2;
    o.threads = threads;
    const auto r = attnlab::flash_attention(q, k, v, o);
    INFO(threads << " threads");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ErrorCode::non_finite);
    CHECK_THAT(r.error().message, Catch::Contains("overflows float32 at row 137") &&
                                      Catch::Contains("weighted sum of V"));
  }
  fill_v(most / 300);
  attnlab::LongAttentionOptions o;
  o.heads = 2;
  CHECK(attnlab::flash_attention(q, k, v, o).ok());
}

TEST_CASE(
    "flash_attention(): a score past float32 that the bias then blocks is an overflow, not "
    "NaN in a fully masked row",
    "[late-overflow]") {
  // Query 1 (of 2) meets the one key with a score past float32 (1.2 · 3e38), and the bias is
  // -inf there: inf + (-inf) is NaN in its row, which sees no key, so its zeros are expected:
  // the NaN must still be reported (found by the JS options fuzzer, seed 450161915).
  Matrix q(2, 6, 0.5f), k(1, 6, 1.0f), v(1, 4, 1.0f);
  q(0, 2) = 1.2f;
  k(0, 2) = 3e38f;
  attnlab::LongAttentionOptions o;
  o.heads = 2;
  o.bias = Matrix(2, 1, 0.0f);
  (*o.bias)(0, 0) = -std::numeric_limits<float>::infinity();
  for (const std::size_t threads : {1, 2}) {
    o.threads = threads;
    const auto r = attnlab::flash_attention(q, k, v, o);
    INFO(threads << " threads");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ErrorCode::non_finite);
  }
}
