// parallel_for: runs task(item, worker) for item in [0, count) on `threads` workers that
// take items from a shared counter (cheap load balancing for uneven causal tiles). The
// workers other than the caller come from a pool that lives as long as the process
// (parallel.cpp): starting threads on every call cost more than a small call's work.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>

namespace attnlab {

// A wasm build without pthreads has one thread (and leaves std::thread out of its download).
inline constexpr bool one_thread =
#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
    true;
#else
    false;
#endif

// The wasm build with pthreads starts its workers with the module (a worker started during a
// call could not start before the call returns), three of them (cpp/bindings/CMakeLists.txt).
inline constexpr std::size_t most_threads =
#if defined(__EMSCRIPTEN_PTHREADS__)
    4;
#else
    std::size_t(-1);
#endif

inline std::size_t resolve_threads(std::size_t requested) {
  if (one_thread) return 1;
  const unsigned hardware = std::thread::hardware_concurrency();
  const std::size_t wanted = requested > 0 ? requested : hardware > 0 ? hardware : 1;
  return std::min(wanted, most_threads);
}

// Runs work(context, w) for w = 0 on the calling thread and for each w in [1, workers) whose
// thread starts before w = 0's returns (parallel_for's work: all items taken), and returns when
// all those have returned. A call made while another is running (from another thread, or from
// inside a worker) gets threads of its own instead of waiting for the pool.
void run_workers(std::size_t workers, void (*work)(void* context, std::size_t worker),
                 void* context);

// Wakes the pool's sleeping threads ahead of a parallel_for, so that they are polling for its
// job by the time it comes.
void wake_workers();

template <class Task>
void parallel_for(std::size_t count, std::size_t threads, Task task) {
  std::atomic<std::size_t> next{0};
  auto work = [&](std::size_t worker) {
    for (std::size_t item = next++; item < count; item = next++) task(item, worker);
  };
  const std::size_t workers = one_thread ? 1 : std::min(threads, count);
  if (workers <= 1) return work(0);
  run_workers(
      workers,
      [](void* context, std::size_t worker) { (*static_cast<decltype(work)*>(context))(worker); },
      &work);
}

}  // namespace attnlab
