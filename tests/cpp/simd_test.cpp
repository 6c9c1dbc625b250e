// The kernels under every instruction set this CPU runs (kernels::force_simd_arch), each
// against the float64 reference and against the others; the sets the CPU lacks are
// reported as skipped. Natively, which sets the CPU runs is checked against /proc/cpuinfo.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <numbers>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "attnlab/attention.hpp"
#include "attnlab/flash.hpp"
#include "attnlab/kernels.hpp"
#include "base/caches.hpp"
#include "reference_attention.hpp"
#include "test_support.hpp"

using namespace attnlab;
using namespace attnlab::test;

namespace {

// Restores the instruction set that was active when it was made.
class ArchGuard {
 public:
  ArchGuard() : saved_(kernels::simd_arch()) {}
  ~ArchGuard() { (void)kernels::force_simd_arch(saved_); }
  ArchGuard(const ArchGuard&) = delete;
  ArchGuard& operator=(const ArchGuard&) = delete;

 private:
  std::string saved_;
};

// Calls f(name) under each instruction set the CPU runs, made the active one in turn; the one
// active before is restored afterwards.
template <class F>
void under_each_available_arch(F&& f) {
  const ArchGuard guard;
  for (const kernels::SimdArch& arch : kernels::simd_arches()) {
    if (!arch.available) continue;
    REQUIRE_FALSE(kernels::force_simd_arch(arch.name));
    f(arch.name);
  }
}

// What one instruction set computes on the inputs below (T = float), or their float64
// reference (T = double), at sizes that leave scalar tails for every batch width (d = 19, and
// 24 per head) and take several flash query and key blocks.
template <class T>
struct Outputs {
  BasicMatrix<T> row_sums;  // (rows, 1): of `summed`
  BasicMatrix<T> weights, output;
  BasicMatrix<T> flash, naive;  // causal, two heads
  BasicMatrix<T> sampled;       // head 1's weights at a few cells
};

const Matrix summed = random_matrix(5, 53, 7, 0.1f);  // sums of magnitude 1, like weights
const Matrix q = random_matrix(37, 19, 1), k = random_matrix(53, 19, 2),
             v = random_matrix(53, 11, 3);
const Matrix long_q = random_matrix(300, 48, 4), long_k = random_matrix(300, 48, 5),
             long_v = random_matrix(300, 14, 6);
const std::vector<std::size_t> sampled_rows{0, 63, 64, 299}, sampled_cols{0, 1, 64, 298, 299};

LongAttentionOptions causal_two_heads() {
  LongAttentionOptions o;
  o.causal = true;
  o.heads = 2;
  o.threads = 2;
  return o;
}

Outputs<float> compute() {
  Outputs<float> r;
  r.row_sums = Matrix(summed.rows, 1, kernels::row_sums(summed));
  const auto plain = attention(q, k, v);
  const auto flash = flash_attention(long_q, long_k, long_v, causal_two_heads());
  const auto naive = naive_attention(long_q, long_k, long_v, causal_two_heads());
  const auto sampled =
      sampled_weights(long_q, long_k, sampled_rows, sampled_cols, 1, causal_two_heads());
  REQUIRE(plain);
  REQUIRE(flash);
  REQUIRE(naive);
  REQUIRE(sampled);
  r.weights = plain.value().weights();
  r.output = plain.value().output;
  r.flash = flash.value().output;
  r.naive = naive.value().output;
  r.sampled = sampled.value();
  return r;
}

Outputs<double> float64_outputs() {
  Outputs<double> r;
  r.row_sums = MatrixD(summed.rows, 1);
  for (std::size_t i = 0; i < summed.rows; ++i) r.row_sums(i, 0) = row_sum(summed, i);
  const ReferenceAttention plain = reference_attention(q, k, v);
  r.weights = plain.weights;
  r.output = plain.output;
  AttentionOptions causal;
  causal.causal = true;
  r.flash = reference_multi_head(long_q.cast<double>(), long_k.cast<double>(),
                                 long_v.cast<double>(), 2, causal);
  r.naive = r.flash;
  const MatrixD head_q = reference_columns(long_q.cast<double>(), 24, 24);
  const MatrixD head_k = reference_columns(long_k.cast<double>(), 24, 24);
  const MatrixD head_weights = reference_attention(head_q, head_k, head_k, causal).weights;
  r.sampled = MatrixD(sampled_rows.size(), sampled_cols.size());
  for (std::size_t i = 0; i < sampled_rows.size(); ++i)
    for (std::size_t j = 0; j < sampled_cols.size(); ++j)
      r.sampled(i, j) = head_weights(sampled_rows[i], sampled_cols[j]);
  return r;
}

// max |a - b| over every output.
template <class A, class B>
double max_diff(const Outputs<A>& a, const Outputs<B>& b) {
  return std::max({max_abs_diff(a.row_sums, b.row_sums), max_abs_diff(a.weights, b.weights),
                   max_abs_diff(a.output, b.output), max_abs_diff(a.flash, b.flash),
                   max_abs_diff(a.naive, b.naive), max_abs_diff(a.sampled, b.sampled)});
}

// The flags of the first CPU in /proc/cpuinfo; empty where there is none (wasm).
std::set<std::string> cpu_flags() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::set<std::string> flags;
  for (std::string line; std::getline(cpuinfo, line);)
    if (line.rfind("flags", 0) == 0) {
      std::istringstream words(line.substr(line.find(':') + 1));
      for (std::string flag; words >> flag;) flags.insert(flag);
      break;
    }
  return flags;
}

}  // namespace

TEST_CASE("every instruction set the CPU runs matches float64 and the others", "[simd]") {
  const ArchGuard guard;
  const Outputs<double> expected = float64_outputs();
  std::vector<std::pair<std::string, Outputs<float>>> tested;
  for (const kernels::SimdArch& arch : kernels::simd_arches()) {
    if (!arch.available) {
      WARN("skipped " << arch.name << ": this CPU lacks it");
      continue;
    }
    REQUIRE_FALSE(kernels::force_simd_arch(arch.name));
    REQUIRE(kernels::simd_arch() == arch.name);
    const Outputs<float> got = compute();
    INFO(arch.name);
    // float32 rounding over d ≤ 24 products and 300 keys, as in the flash and attention tests.
    CHECK(max_diff(got, expected) <= 1e-5);
    for (const auto& [name, other] : tested) {
      INFO("against " << name);
      // Sets differ in batch width (summation order) and FMA: a few float32 ulps.
      CHECK(max_diff(got, other) <= 2e-6);
    }
    tested.emplace_back(arch.name, got);
  }
  CHECK_FALSE(tested.empty());
}

TEST_CASE("the kernels run with the best instruction set the CPU has", "[simd]") {
  const std::vector<kernels::SimdArch> arches = kernels::simd_arches();
  REQUIRE_FALSE(arches.empty());
  const std::set<std::string> flags = cpu_flags();
  if (arches.size() > 1) {  // the x86-64 build, which dispatches
    REQUIRE_FALSE(flags.empty());
    // Each set's CPUID features, as Linux names them.
    const auto has = [&](std::initializer_list<const char*> names) {
      for (const char* name : names)
        if (!flags.count(name)) return false;
      return true;
    };
    for (const kernels::SimdArch& arch : arches) {
      INFO(arch.name);
      if (arch.name == "avx512bw")
        CHECK(arch.available == has({"avx512f", "avx512cd", "avx512dq", "avx512bw"}));
      else if (arch.name == "fma3+avx2")
        CHECK(arch.available == has({"avx2", "fma"}));
      else if (arch.name == "sse4.2")
        CHECK(arch.available == has({"sse4_2"}));
      else
        CHECK((arch.name == "sse2" && arch.available == has({"sse2"})));
    }
  }
  const char* forced = std::getenv("ATTNLAB_SIMD_ARCH");
  if (forced && *forced) {
    WARN("default not checked: ATTNLAB_SIMD_ARCH=" << forced);
    return;
  }
  std::string best;
  for (const kernels::SimdArch& arch : arches)
    if (arch.available && best.empty()) best = arch.name;
  CHECK(kernels::simd_arch() == best);
}

TEST_CASE("forcing an unknown or missing instruction set fails and changes nothing", "[simd]") {
  const ArchGuard guard;
  const std::string before = kernels::simd_arch();
  const auto unknown = kernels::force_simd_arch("avx1024");
  REQUIRE(unknown);
  CHECK(to_string(unknown->code) == "invalid-argument");
  CHECK_THAT(unknown->message, Catch::Contains("avx1024") && Catch::Contains(before));
  CHECK(kernels::simd_arch() == before);
  for (const kernels::SimdArch& arch : kernels::simd_arches())
    if (!arch.available) {
      const auto missing = kernels::force_simd_arch(arch.name);
      REQUIRE(missing);
      CHECK(to_string(missing->code) == "invalid-argument");
      CHECK_THAT(missing->message, Catch::Contains("this CPU lacks " + arch.name));
      CHECK(kernels::simd_arch() == before);
    }
}

// From a quarter of the shared cache of K and V a head (base/caches.hpp; 8 MiB on the
// measured machine) the flash kernel reads them as a stream (flash.cpp's streamed(): 256-row
// query blocks, each key block read in order first, natively); the same answer either way. 300
// queries take a whole and a part block; the keys pass the threshold by 16.
TEST_CASE("K and V read as a stream match float64 under every instruction set", "[simd]") {
  const std::size_t keys = shared_cache_bytes() / 4 / ((64 + 64) * sizeof(float)) + 16;
  if (keys > 65536) {
    WARN("skipped: " << keys << " keys to pass a quarter of a " << shared_cache_bytes()
                     << "-byte cache would take the float64 reference too long");
    return;
  }
  const Matrix sq = random_matrix(300, 64, 21), sk = random_matrix(keys, 64, 22),
               sv = random_matrix(keys, 64, 23);
  const MatrixD expected =
      reference_multi_head(sq.cast<double>(), sk.cast<double>(), sv.cast<double>(), 1, {});
  LongAttentionOptions two_threads;
  two_threads.threads = 2;
  under_each_available_arch([&](const std::string& arch) {
    const auto flash = flash_attention(sq, sk, sv, two_threads);
    REQUIRE(flash);
    const double error = max_abs_diff(flash.value().output, expected);
    INFO(arch << ": max |error| " << error);
    CHECK(error <= 1e-5);
  });
}

// The flash kernel gathers K and V into buffers that the K/V heads take in turn (flash.cpp's
// buffer_turns: one for one worker, else two for each worker's run of heads), and at d = 128 the
// instruction sets with 16 registers take query blocks of 32 rows (cpu_plan). 8 heads of d = 128
// and 300 queries on 1, 2 and 3 workers (buffers: 1, 4 and 6 for 8 K/V heads; 4 K/V heads shared by
// pairs of query heads take 4 of their own) match float64, which reads the shared heads repeated.
TEST_CASE("flash's gather buffers taken in turn, at d = 128, match float64 under every set",
          "[simd]") {
  const std::size_t n = 300, d = 128;
  const Matrix q = random_matrix(n, 8 * d, 31), k = random_matrix(n, 8 * d, 32),
               v = random_matrix(n, 8 * d, 33), k4 = random_matrix(n, 4 * d, 34),
               v4 = random_matrix(n, 4 * d, 35);
  const auto repeated = [&](const Matrix& m) {  // K/V head h / 2 for query head h
    MatrixD r(n, 8 * d);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t c = 0; c < 8 * d; ++c) r(i, c) = m(i, c / d / 2 * d + c % d);
    return r;
  };
  const MatrixD expected =
      reference_multi_head(q.cast<double>(), k.cast<double>(), v.cast<double>(), 8, {});
  const MatrixD expected_shared =
      reference_multi_head(q.cast<double>(), repeated(k4), repeated(v4), 8, {});
  under_each_available_arch([&](const std::string& arch) {
    for (const std::size_t threads : {1, 2, 3}) {
      LongAttentionOptions o;
      o.heads = 8;
      o.threads = threads;
      INFO(arch << ", " << threads << " threads");
      CHECK(max_abs_diff(flash_attention(q, k, v, o).value().output, expected) <= 1e-5);
      o.kv_heads = 4;
      CHECK(max_abs_diff(flash_attention(q, k4, v4, o).value().output, expected_shared) <= 1e-5);
    }
  });
}

// The flash kernel's scan of its inputs (flash.cpp, as it gathers each head) finds a value that is
// not finite in a batch's body or in the scalar tail of a row (width 2 · 19: no batch width divides
// it), in Q, K or V, on one thread and two, and the error names the matrix and the cell.
TEST_CASE("a value that is not finite is found wherever it lies, under every instruction set",
          "[simd]") {
  LongAttentionOptions o;
  o.heads = 2;
  o.batch = 2;
  const Matrix base = random_matrix(40, 38, 24);
  const float bad[] = {std::numeric_limits<float>::quiet_NaN(),
                       std::numeric_limits<float>::infinity(),
                       -std::numeric_limits<float>::infinity()};
  under_each_available_arch([&](const std::string& arch) {
    for (const char* name : {"Q", "K", "V"})
      for (const auto& [row, col] : {std::pair{0, 0}, {5, 3}, {25, 37}, {39, 36}})
        for (std::size_t threads : {1, 2}) {
          Matrix q = base, k = base, v = base;
          Matrix& m = name[0] == 'Q' ? q : name[0] == 'K' ? k : v;
          m(row, col) = bad[(row + col) % 3];
          o.threads = threads;
          const auto r = flash_attention(q, k, v, o);
          INFO(arch << ": " << name << "(" << row << ", " << col << "), " << threads << " threads");
          REQUIRE_FALSE(r);
          CHECK(std::string(to_string(r.error().code)) == "non-finite");
          const std::string cell =  // 1-based, as read
              "row " + std::to_string(row + 1) + ", column " + std::to_string(col + 1);
          CHECK(r.error().message.rfind(name, 0) == 0);
          CHECK(r.error().message.find(cell) != std::string::npos);
        }
  });
}

// The flash softmax's exponential (Spans::exp2_nonpositive, base 2 with log2(e) in the scale)
// within its stated bound. The scale makes scale · log2(e) exactly 1 in float32, q = e_0 and
// k_j = (x_j, 0, …) make each scaled score exactly x_j = -77j/512 (every multiple of 1/512 in
// [-1/2, 1/2] as the reduced argument, down to 2^-76.8), and V = I puts each weight in its own
// column. out_j / out_0 = 2^x_j, since key 0's weight is 2^0 = 1 and both are scaled by the
// same 1/l; the bound is the exponential's 2.1e-7 plus one rounding, against float64's exp2.
TEST_CASE("the flash softmax's exponential is within its bound under every instruction set",
          "[simd]") {
  constexpr std::size_t keys = 512, d = 8;
  LongAttentionOptions o;
  const float scale = 1.0f / std::numbers::log2e_v<float>;
  REQUIRE(scale * std::numbers::log2e_v<float> == 1.0f);
  o.scale = scale;
  Matrix q(1, d), k(keys, d), v(keys, keys);
  q(0, 0) = 1.0f;
  for (std::size_t j = 0; j < keys; ++j) {
    k(j, 0) = -static_cast<float>(77 * j) / 512.0f;
    v(j, j) = 1.0f;
  }
  under_each_available_arch([&](const std::string& arch) {
    const auto r = flash_attention(q, k, v, o);
    REQUIRE(r);
    const Matrix& out = r.value().output;
    double worst = 0.0;
    for (std::size_t j = 0; j < keys; ++j) {
      const double expected = std::exp2(static_cast<double>(k(j, 0)));
      worst = std::max(worst, std::fabs(double{out(0, j)} / out(0, 0) / expected - 1.0));
    }
    INFO(arch << ": largest relative error " << worst);
    CHECK(worst <= 2.7e-7);
  });
}
