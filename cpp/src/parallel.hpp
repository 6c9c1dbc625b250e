// parallel_for: runs task(item, worker) for item in [0, count) on `threads` workers that
// take items from a shared counter (cheap load balancing for uneven causal tiles).
#pragma once

#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace attnlab {

// A wasm build without pthreads has one thread (and leaves std::thread out of its download).
inline constexpr bool one_thread =
#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
    true;
#else
    false;
#endif

inline std::size_t resolve_threads(std::size_t requested) {
  if (one_thread) return 1;
  if (requested > 0) return requested;
  const unsigned hardware = std::thread::hardware_concurrency();
  return hardware > 0 ? hardware : 1;
}

template <class Task>
void parallel_for(std::size_t count, std::size_t threads, Task task) {
  std::atomic<std::size_t> next{0};
  const auto work = [&](std::size_t worker) {
    for (std::size_t item = next++; item < count; item = next++) task(item, worker);
  };
  if constexpr (one_thread) {
    work(0);
  } else {
    const std::size_t workers = std::min(threads, count);
    if (workers <= 1) return work(0);
    std::vector<std::thread> pool;
    pool.reserve(workers - 1);
    for (std::size_t w = 1; w < workers; ++w) pool.emplace_back(work, w);
    work(0);
    for (auto& t : pool) t.join();
  }
}

}  // namespace attnlab
