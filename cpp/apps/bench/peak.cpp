#include "peak.hpp"

#include <chrono>
#include <string_view>
#include <thread>
#include <vector>
#include <xsimd/xsimd.hpp>

namespace attnlab::bench {
namespace {

// Independent FMA chains: enough to cover the FMA latency on every port (2 ports x 4 cycles on
// current x86-64 cores), and few enough that they and the two operands stay in 16 registers;
// 16 chains spilled and measured 58.6 GFLOP/s where 12 reach 102 (AMD EPYC, AVX2).
constexpr int chains = 12;
constexpr long iterations = 50'000'000;  // long enough (about 0.2 s) for clocks to settle

// Runs the chains on Arch's batches; returns a value that depends on all of them, so none is
// optimised away.
template <class Arch>
float fma_chains() {
  using Batch = xsimd::batch<float, Arch>;
  Batch acc[chains];
  for (int i = 0; i < chains; ++i) acc[i] = Batch(0.001f * static_cast<float>(i));
  const Batch x(0.9999999f), y(1e-7f);
  for (long it = 0; it < iterations; ++it)
    for (int i = 0; i < chains; ++i) acc[i] = xsimd::fma(acc[i], x, y);
  Batch sum(0.0f);
  for (int i = 0; i < chains; ++i) sum += acc[i];
  return xsimd::hadd(sum);
}

template <class Arch>
double peak_with(std::size_t threads) {
  std::vector<float> sink(threads);
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> pool;
  for (std::size_t t = 0; t < threads; ++t)
    pool.emplace_back([&sink, t] { sink[t] = fma_chains<Arch>(); });
  for (auto& t : pool) t.join();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  volatile float keep = sink[0];
  (void)keep;
  const double lanes = xsimd::batch<float, Arch>::size;
  return 2.0 * chains * lanes * static_cast<double>(iterations) * threads / seconds / 1e9;
}

}  // namespace

double measure_fma_peak_gflops(std::size_t threads, std::string_view simd) {
#if XSIMD_WITH_AVX512F
  if (simd.find("avx512") != std::string_view::npos) return peak_with<xsimd::avx512f>(threads);
#endif
#if XSIMD_WITH_FMA3_AVX2
  if (simd.find("avx2") != std::string_view::npos)
    return peak_with<xsimd::fma3<xsimd::avx2>>(threads);
#endif
#if XSIMD_WITH_SSE4_2
  if (simd.find("sse") != std::string_view::npos) return peak_with<xsimd::sse4_2>(threads);
#endif
  return peak_with<xsimd::default_arch>(threads);
}

}  // namespace attnlab::bench
