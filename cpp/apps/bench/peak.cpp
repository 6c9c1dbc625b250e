#include "peak.hpp"

#include <chrono>
#include <thread>
#include <vector>
#include <xsimd/xsimd.hpp>

namespace attnlab::bench {
namespace {

using Batch = xsimd::batch<float>;
// Independent FMA chains: enough to cover the FMA latency on every port (2 ports x 4 cycles on
// current x86-64 cores), and few enough that they and the two operands stay in 16 registers;
// 16 chains spilled and measured 58.6 GFLOP/s where 12 reach 102 (AMD EPYC, AVX2).
constexpr int chains = 12;
constexpr long iterations = 50'000'000;  // long enough (about 0.2 s) for clocks to settle

// Runs the chains; returns a value that depends on all of them, so none is optimised away.
float fma_chains() {
  Batch acc[chains];
  for (int i = 0; i < chains; ++i) acc[i] = Batch(0.001f * static_cast<float>(i));
  const Batch x(0.9999999f), y(1e-7f);
  for (long it = 0; it < iterations; ++it)
    for (int i = 0; i < chains; ++i) acc[i] = xsimd::fma(acc[i], x, y);
  Batch sum(0.0f);
  for (int i = 0; i < chains; ++i) sum += acc[i];
  return xsimd::hadd(sum);
}

}  // namespace

double measure_fma_peak_gflops(std::size_t threads) {
  std::vector<float> sink(threads);
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> pool;
  for (std::size_t t = 0; t < threads; ++t)
    pool.emplace_back([&sink, t] { sink[t] = fma_chains(); });
  for (auto& t : pool) t.join();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  volatile float keep = sink[0];
  (void)keep;
  const double flops = 2.0 * chains * Batch::size * static_cast<double>(iterations) * threads;
  return flops / seconds / 1e9;
}

}  // namespace attnlab::bench
