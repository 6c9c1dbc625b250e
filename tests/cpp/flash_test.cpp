// The flash kernel (tiled, FlashAttention-style) against the float64 reference and the naive
// float32 kernel, at sizes that are not multiples of any tile.
#include "attnlab/flash.hpp"

#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>

#include "attnlab/attention.hpp"
#include "attnlab/limits.hpp"
#include "base/caches.hpp"
#include "reference_attention.hpp"
#include "test_support.hpp"

#if defined(__linux__) && !defined(__EMSCRIPTEN__)
#include <sched.h>
#include <sys/resource.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#endif

using namespace attnlab;
using namespace attnlab::test;

namespace {

LongAttentionOptions flash_options(bool causal, int heads = 1) {
  LongAttentionOptions o;
  o.causal = causal;
  o.heads = heads;
  return o;
}

AttentionOptions reference_options(bool causal) {
  AttentionOptions o;
  o.causal = causal;
  return o;
}

}  // namespace

// Sizes that are not multiples of any tile. 4,096 tokens costs minutes of float64
// reference under the sanitizers, whose point is memory errors: those builds stop at 1,000;
// the wasm build at 2,048, within the naive kernel's work limits there (limits.hpp).
#if defined(ATTNLAB_SANITIZE)
constexpr std::size_t longest = 1000;
#else
constexpr std::size_t longest = attnlab::limits::bounded_work ? 2048 : 4096;
#endif

TEST_CASE("the flash kernel matches float64 within 1e-5 and twice the naive kernel's error",
          "[flash]") {
  const auto [n, d] = GENERATE(table<std::size_t, std::size_t>(
      {{1, 64}, {7, 32}, {63, 64}, {65, 128}, {333, 32}, {1000, 64}, {777, 128}, {longest, 64}}));
  const bool causal = GENERATE(false, true);
  INFO("n = " << n << ", d = " << d << ", causal = " << causal);
  const Matrix q = random_matrix(n, d, 11), k = random_matrix(n, d, 12),
               v = random_matrix(n, d, 13);
  const auto flash = flash_attention(q, k, v, flash_options(causal));
  const auto naive = naive_attention(q, k, v, flash_options(causal));
  REQUIRE(flash);
  REQUIRE(naive);
  const MatrixD expected = reference_multi_head(q.cast<double>(), k.cast<double>(),
                                                v.cast<double>(), 1, reference_options(causal));
  const double flash_error = max_abs_diff(flash.value().output, expected);
  const double naive_error = max_abs_diff(naive.value().output, expected);
  INFO("flash error " << flash_error << ", naive error " << naive_error);
  CHECK(flash_error <= 1e-5);
  CHECK(flash_error <= 2 * naive_error + 1e-7);  // + the float32 rounding of one output value
  CHECK(flash.value().fully_masked_rows.empty());
}

TEST_CASE("the flash kernel splits heads and batches like the naive kernel", "[flash]") {
  const int heads = 3;
  LongAttentionOptions options = flash_options(true, heads);
  options.batch = 2;
  options.threads = 2;
  const Matrix q = random_matrix(2 * 70, heads * 16, 21), k = random_matrix(2 * 70, heads * 16, 22),
               v = random_matrix(2 * 70, heads * 5, 23);
  const auto flash = flash_attention(q, k, v, options);
  const auto naive = naive_attention(q, k, v, options);
  REQUIRE(flash);
  REQUIRE(naive);
  CHECK(max_abs_diff(flash.value().output, naive.value().output) <= 1e-5);
  // Each sequence is causal on its own: row 70 (the second sequence's first) sees one key.
  for (int h = 0; h < heads; ++h)
    for (std::size_t c = 0; c < 5; ++c)
      CHECK(flash.value().output(70, h * 5 + c) == Approx(v(70, h * 5 + c)).margin(1e-6));
}

// The workers take the K/V heads in runs, one run each, and help the others' once theirs is done
// (flash.cpp): uneven runs, shared K/V heads, more workers than K/V heads, and heads of several
// query blocks give the same rows as one thread.
TEST_CASE("the flash kernel gives the same result on every thread count, heads shared or not",
          "[flash]") {
  struct Shape {
    std::size_t sequences, rows, heads, d;
    std::vector<int> kv_heads;
  };
  for (const Shape& shape : {Shape{2, 70, 6, 16, {6, 3, 2, 1}}, Shape{1, 300, 2, 32, {2}}}) {
    const std::size_t rows = shape.sequences * shape.rows;
    const Matrix q = random_matrix(rows, shape.heads * shape.d, 34);
    for (const int kv_heads : shape.kv_heads)
      for (const bool causal : {false, true}) {
        const std::size_t kv_cols = static_cast<std::size_t>(kv_heads) * shape.d;
        const Matrix k = random_matrix(rows, kv_cols, 35), v = random_matrix(rows, kv_cols, 36);
        LongAttentionOptions options = flash_options(causal, static_cast<int>(shape.heads));
        options.batch = shape.sequences;
        options.kv_heads = kv_heads;
        options.threads = 1;
        const Matrix one = flash_attention(q, k, v, options).value().output;
        for (const int threads : {2, 3, 4, 5}) {
          INFO(shape.rows << " rows, kv heads " << kv_heads << ", causal " << causal << ", threads "
                          << threads);
          options.threads = threads;
          CHECK(flash_attention(q, k, v, options).value().output == one);
        }
      }
  }
}

#if defined(__linux__) && !defined(__EMSCRIPTEN__)
namespace {

// The CPUs a thread may run on: Cpus_allowed_list of its /proc status file ("0-3,6").
std::set<int> allowed_cpus(const std::filesystem::path& status) {
  std::ifstream in(status);
  std::set<int> cpus;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("Cpus_allowed_list:", 0) != 0) continue;
    std::istringstream list(line.substr(line.find(':') + 1));
    for (std::string range; std::getline(list, range, ',');) {
      const auto dash = range.find('-');
      const int first = std::stoi(range),
                last = dash == std::string::npos ? first : std::stoi(range.substr(dash + 1));
      for (int cpu = first; cpu <= last; ++cpu) cpus.insert(cpu);
    }
  }
  return cpus;
}

}  // namespace

// In a VM the scheduler could wake the pool's thread on its caller's CPU, where the two shared
// one core for milliseconds (parallel.cpp); the pool moves its threads off the caller's CPU.
TEST_CASE("the thread pool keeps its threads off the CPU of the call that woke them", "[flash]") {
  if (allowed_cpus("/proc/thread-self/status").size() < 2) return;  // one CPU: nowhere else
  const Matrix q = random_matrix(512, 64, 41), k = random_matrix(512, 64, 42),
               v = random_matrix(512, 64, 43);
  LongAttentionOptions options = flash_options(false);
  options.threads = 2;
  const auto me = std::filesystem::canonical("/proc/thread-self").filename();
  bool kept_off = false;
  // The caller can move between CPUs during a call; one call that stays put settles it.
  for (int call = 0; call < 20 && !kept_off; ++call) {
    const int caller = sched_getcpu();
    REQUIRE(flash_attention(q, k, v, options));
    if (sched_getcpu() != caller) continue;
    for (const auto& task : std::filesystem::directory_iterator("/proc/self/task"))
      if (task.path().filename() != me && !allowed_cpus(task.path() / "status").count(caller))
        kept_off = true;
  }
  CHECK(kept_off);
}

// Where Linux lists an L3 as cpu0's last cache, its size is the one the flash kernel sizes its
// streaming by (base/caches.hpp), not glibc's sysconf (a whole package's L3 in a VM).
TEST_CASE("the cache sizes are the L2 and L3 that /sys lists for cpu0", "[flash]") {
  const auto listed = [](int index, int want_level) -> std::size_t {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index);
    std::ifstream level(dir + "/level"), size(dir + "/size");
    int found = 0;
    std::string text;
    if (!(level >> found) || found != want_level || !(size >> text) || text.back() != 'K') return 0;
    return std::stoull(text) * 1024;  // "32768K"
  };
  // x86's usual listing: L1d, L1i, L2, L3 and nothing beyond
  if (std::filesystem::exists("/sys/devices/system/cpu/cpu0/cache/index4")) return;
  if (const std::size_t l2 = listed(2, 2)) CHECK(core_cache_bytes() == l2);
  if (const std::size_t l3 = listed(3, 3)) CHECK(shared_cache_bytes() == l3);
}
#endif

TEST_CASE("the flash kernel supports cross-attention shapes and a given scale", "[flash]") {
  const Matrix q = random_matrix(50, 8, 41), k = random_matrix(130, 8, 42),
               v = random_matrix(130, 3, 43);
  LongAttentionOptions options;
  options.scale = 0.3f;
  AttentionOptions reference;
  reference.scale = 0.3f;
  const auto flash = flash_attention(q, k, v, options);
  REQUIRE(flash);
  CHECK(max_abs_diff(flash.value().output, reference_attention(q, k, v, reference).output) <= 1e-5);
}

// The micro-kernels compute scores for whole groups of keys, past a causal block's last
// allowed key; a future key whose score dwarfs the allowed ones must not become a row's shift
// (its exponentials would all underflow to 0 and the row would look overflowed). One query
// against 12 keys, and 70 queries where key 65 lies past the first query block's keys.
TEST_CASE("a causal row's future keys never shift its softmax, however large their scores",
          "[flash]") {
  const auto [n_q, n_k, loud] =
      GENERATE(table<std::size_t, std::size_t, std::size_t>({{1, 12, 3}, {70, 70, 65}}));
  INFO("n_q = " << n_q << ", n_k = " << n_k << ", key " << loud << " scores 500");
  Matrix q(n_q, 4), k(n_k, 4);
  for (std::size_t i = 0; i < n_q; ++i) q(i, 0) = 1.0f;
  k(loud, 0) = 1000.0f;  // its score is 500 after the scale 1/2, every other one 0
  const Matrix v = random_matrix(n_k, 3, 51);
  LongAttentionOptions options;
  options.causal = true;
  const auto flash = flash_attention(q, k, v, options);
  REQUIRE(flash);
  const MatrixD expected = reference_multi_head(q.cast<double>(), k.cast<double>(),
                                                v.cast<double>(), 1, reference_options(true));
  CHECK(max_abs_diff(flash.value().output, expected) <= 1e-6);
}

// Scores near 1e30 (well inside float32): the row max must come out as exp(0) = 1 exactly, not
// half an ulp of 1e30 away from it (which underflows every weight to 0). Found by libFuzzer.
TEST_CASE("scores far beyond 2^24 keep their row max at weight 1", "[flash]") {
  const float big = 1e15f;
  Matrix q(1, 2), k(3, 2);
  q(0, 0) = big;
  k(0, 0) = big;  // score 1e30 / √2
  k(2, 0) = -big;
  const Matrix v = random_matrix(3, 4, 61);
  for (const bool causal : {false, true}) {
    LongAttentionOptions options;
    options.causal = causal;  // causal: query 0 sees key 0 alone
    const auto flash = flash_attention(q, k, v, options);
    REQUIRE(flash);
    for (std::size_t c = 0; c < v.cols; ++c) CHECK(flash.value().output(0, c) == v(0, c));
  }
}

// The same with tiny queries and a huge scale: the bound on the scores that picks the exp's
// argument must not underflow (a squared norm of 1e-30 did). Found by libFuzzer.
TEST_CASE("tiny queries times a huge scale keep their row max at weight 1", "[flash]") {
  Matrix q(1, 2), k(2, 2);
  q(0, 0) = 1e-30f;
  k(0, 0) = 1e10f;  // score 1e-20, scaled 1e10; key 1 scores 0
  const Matrix v = random_matrix(2, 3, 62);
  LongAttentionOptions options;
  options.scale = 1e30f;
  const auto flash = flash_attention(q, k, v, options);
  REQUIRE(flash);
  for (std::size_t c = 0; c < v.cols; ++c) CHECK(flash.value().output(0, c) == v(0, c));
}

// The softmax runs in base 2 with log2(e) folded into the scale only while that product is a
// normal float: a scale of 3e38 times log2(e) overflows (every weight NaN), and a subnormal one
// loses its bits. Either way the scores here are 0 or vanish, so the weights are uniform and
// each output is the mean of V's column, in float64. Found by libFuzzer.
TEST_CASE("a scale whose product with log2(e) leaves float32's normal range", "[flash]") {
  const Matrix q = random_matrix(5, 4, 63), v = random_matrix(7, 3, 64);
  for (const bool zero_keys : {true, false}) {
    const Matrix k = zero_keys ? Matrix(7, 4) : random_matrix(7, 4, 65);
    LongAttentionOptions options;
    options.scale = zero_keys ? 3e38f : 1e-44f;
    const auto flash = flash_attention(q, k, v, options);
    REQUIRE(flash);
    for (std::size_t c = 0; c < v.cols; ++c) {
      double mean = 0;
      for (std::size_t j = 0; j < v.rows; ++j) mean += v(j, c) / double(v.rows);
      for (std::size_t i = 0; i < q.rows; ++i)
        CHECK(std::fabs(flash.value().output(i, c) - mean) < 1e-6);
    }
  }
}

TEST_CASE("the flash kernel rejects bad input with the core's error codes", "[flash]") {
  const Matrix ok = random_matrix(4, 4, 51);
  const auto code = [](const Result<LongAttentionResult>& r) {
    return std::string(to_string(r.error().code));
  };
  CHECK(code(flash_attention(ok, random_matrix(4, 3, 52), ok)) == "shape-mismatch");
  CHECK(code(flash_attention(ok, ok, random_matrix(5, 4, 53))) == "shape-mismatch");
  CHECK(code(flash_attention(Matrix(0, 4), ok, ok)) == "empty");
  Matrix nan = ok;
  nan(1, 2) = std::numeric_limits<float>::quiet_NaN();
  CHECK(code(flash_attention(ok, nan, ok)) == "non-finite");
  CHECK(code(flash_attention(ok, ok, ok, flash_options(false, 3))) == "invalid-argument");
  CHECK(code(flash_attention(ok, ok, ok, flash_options(false, 0))) == "invalid-argument");
  LongAttentionOptions batch;
  batch.batch = 3;
  CHECK(code(flash_attention(ok, ok, ok, batch)) == "invalid-argument");
  LongAttentionOptions scale;
  scale.scale = -1.0f;
  CHECK(code(flash_attention(ok, ok, ok, scale)) == "invalid-argument");
  const Matrix wide = random_matrix(2, 1024, 54);
  CHECK(code(flash_attention(wide, wide, wide)) == "too-large");  // head width above 512
}

// The call scans K and V as it gathers each K/V head, after the work has begun: a value that is
// not finite anywhere in them, under any head, batch or thread count, still gets the check's
// error, naming the matrix and the first such value as validate does (row and column, 1-based).
TEST_CASE("the flash kernel names a non-finite K or V value wherever it lies", "[flash]") {
  const std::size_t rows = 2 * 40, cols = 4 * 8;  // 2 sequences of 40, 4 heads of 8
  LongAttentionOptions options = flash_options(false, 4);
  options.batch = 2;
  const Matrix q = random_matrix(rows, cols, 55);
  for (const float bad :
       {std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::infinity()})
    for (const int kv_heads : {4, 2, 1})
      for (const int threads : {1, 2})
        for (const bool in_v : {false, true})
          for (const auto [r, c] : {std::pair{0, 0}, {39, 31}, {40, 5}, {79, 16}, {63, 31}}) {
            options.kv_heads = kv_heads;
            options.threads = threads;
            const std::size_t kv_cols = 8 * static_cast<std::size_t>(kv_heads);
            Matrix k = random_matrix(rows, kv_cols, 56), v = random_matrix(rows, kv_cols, 57);
            const std::size_t col = static_cast<std::size_t>(c) % kv_cols;
            (in_v ? v : k)(static_cast<std::size_t>(r), col) = bad;
            const auto result = flash_attention(q, k, v, options);
            INFO("kv heads " << kv_heads << ", threads " << threads << ", " << (in_v ? "V" : "K")
                             << " row " << r << " column " << col);
            REQUIRE_FALSE(result);
            CHECK(result.error().code == ErrorCode::non_finite);
            const std::string where = std::string(in_v ? "V" : "K") + " ";
            CHECK(result.error().message.rfind(where, 0) == 0);
            CHECK(result.error().message.find("at row " + std::to_string(r + 1) + ", column " +
                                              std::to_string(col + 1)) != std::string::npos);
          }
}

#if defined(__linux__) && !defined(__EMSCRIPTEN__)
// Hidden from the default run (too slow under sanitizers); CTest runs it for the native
// Release build only. Naive attention would need 16 GiB for one 65,536² score matrix.
TEST_CASE("65,536 tokens, d = 64, one head: memory stays O(n·d)", "[.][flash-memory]") {
  const std::size_t n = 65536, d = 64;
  const Matrix q = random_matrix(n, d, 61), k = random_matrix(n, d, 62),
               v = random_matrix(n, d, 63);
  const auto r = flash_attention(q, k, v);
  REQUIRE(r);
  CHECK(all_finite(r.value().output));
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const double peak_mb = double(usage.ru_maxrss) / 1024.0;
  std::printf("flash attention, n = 65536, d = 64: peak RSS %.1f MB\n", peak_mb);
  // Q, K, V, the output and the packed K and V: 6 · 65,536 · 64 · 4 bytes = 96 MiB.
  CHECK(peak_mb < 400.0);
}
#endif

TEST_CASE("sampled weights equal the full softmax weights at the chosen rows and columns",
          "[flash]") {
  const bool causal = GENERATE(false, true);
  const int heads = 2;
  const Matrix q = random_matrix(90, heads * 8, 71), k = random_matrix(90, heads * 8, 72);
  const std::vector<std::size_t> rows{0, 5, 44, 89}, cols{0, 1, 44, 60, 89};
  LongAttentionOptions options = flash_options(causal, heads);
  for (int head = 0; head < heads; ++head) {
    const auto sampled = sampled_weights(q, k, rows, cols, head, options);
    REQUIRE(sampled);
    AttentionOptions full;
    full.causal = causal;
    const auto attention_result =
        attention(column_slice(q, head * 8, 8), column_slice(k, head * 8, 8),
                  column_slice(k, head * 8, 8), full);
    REQUIRE(attention_result);
    for (std::size_t r = 0; r < rows.size(); ++r)
      for (std::size_t c = 0; c < cols.size(); ++c)
        CHECK(sampled.value()(r, c) ==
              Approx(attention_result.value().weights()(rows[r], cols[c])).margin(1e-6));
  }
  CHECK(to_string(sampled_weights(q, k, {90}, cols, 0, options).error().code) ==
        "invalid-argument");
  CHECK(to_string(sampled_weights(q, k, rows, cols, 2, options).error().code) ==
        "invalid-argument");
}

TEST_CASE("flash_plan(): the head width, the scale and the kernel's own overflow bound",
          "[flash]") {
  LongAttentionOptions o = flash_options(false, 3);
  const Matrix q(5, 12, 0.5f), v(5, 6, 1.0f);
  const auto plan = flash_plan(q, q, v, o);
  REQUIRE(plan);
  CHECK(plan.value().head_width == 4);
  CHECK(plan.value().value_width == 2);
  CHECK(plan.value().scale == Approx(0.5));
  CHECK_FALSE(plan.value().may_overflow);
  // d · max|q| · max|k| = 4 · 1e19 · 1e19 passes half of float32's largest; 4e36 does not.
  CHECK(flash_plan(Matrix(2, 4, 1e19f), Matrix(2, 4, 1e19f), Matrix(2, 4, 1.0f), {})
            .value()
            .may_overflow);
  CHECK_FALSE(flash_plan(Matrix(2, 4, 1e18f), Matrix(2, 4, 1e18f), Matrix(2, 4, 1.0f), {})
                  .value()
                  .may_overflow);
  o.heads = 5;
  CHECK(to_string(flash_plan(q, q, v, o).error().code) == std::string("invalid-argument"));
}

TEST_CASE(
    "sampled_mask(): the cells the causal rule and the window hide, and the keys each row sees",
    "[flash]") {
  LongAttentionOptions o = flash_options(true);
  o.window = Window(3);
  const std::vector<std::size_t> rows{0, 4, 9}, cols{0, 2, 4, 7};
  const SampledMask mask = sampled_mask(10, 10, rows, cols, 0, o).value();
  for (std::size_t r = 0; r < rows.size(); ++r) {
    std::size_t seen = 0;
    for (std::size_t j = 0; j < 10; ++j) seen += j <= rows[r] && rows[r] - j < 3;
    CHECK(mask.visible_keys[r] == seen);
    for (std::size_t c = 0; c < cols.size(); ++c)
      CHECK(mask.hidden(r, c) == !(cols[c] <= rows[r] && rows[r] - cols[c] < 3));
  }
}

#ifndef __EMSCRIPTEN__
// start_flash_profile(): each phase of the calls made while it runs gets its time, summed over
// the workers (no more than the calls' wall time times their threads), and nothing after it
// stops.
TEST_CASE("the flash kernel's profile splits its calls' time into phases", "[flash]") {
  const Matrix q = random_matrix(700, 128, 61), k = random_matrix(700, 128, 62),
               v = random_matrix(700, 128, 63);
  LongAttentionOptions o = flash_options(true, 2);
  o.threads = 2;
  start_flash_profile();
  const auto start = std::chrono::steady_clock::now();
  REQUIRE(flash_attention(q, k, v, o));
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const FlashProfile p = stop_flash_profile();
  for (double phase : {p.transpose_in, p.scores, p.softmax, p.value, p.transpose_out})
    CHECK(phase > 0.0);
  CHECK(p.transpose_in + p.scores + p.softmax + p.value + p.transpose_out <= 2.0 * wall);
  CHECK(p.scores > p.transpose_in);  // 700 keys of multiply-adds against a copy of the rows
  REQUIRE(flash_attention(q, k, v, o));
  start_flash_profile();
  const FlashProfile idle = stop_flash_profile();
  CHECK(idle.scores == 0.0);
  CHECK(idle.value == 0.0);
}
#endif
