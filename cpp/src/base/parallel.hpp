// parallel_for and parallel_for_runs: run task(item, worker) for item in [0, count) on
// `threads` workers that take items from shared counters. The workers other than the caller
// come from a pool that lives as long as the process (parallel.cpp): starting threads on every
// call cost more than a small call's work.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <span>
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

// The workers parallel_for_runs and parallel_for use for `items` items on `threads` threads:
// the count of a caller's per-worker buffers, `worker` below it.
inline std::size_t workers_for(std::size_t items, std::size_t threads) {
  return one_thread ? 1 : std::min(threads, items);
}

// Runs task(item, worker) for the items of `runs` runs, run r holding [bounds[r], bounds[r + 1]):
// worker w takes run w mod runs first, in order, then helps the other runs in turn, each from
// where it stands. The items of a run share what its first items prepare (the flash kernel's
// K/V heads, gathered into buffers): taken by one worker, that stays in one core's caches. A
// single shared counter handed the items to whichever worker was free, so the workers took each
// other's heads, and where two cores share no L3 (cores on different CCDs, as a VM's vCPUs can
// be) each call moved its heads between the caches.
template <class Task>
void parallel_for_runs(std::span<const std::size_t> bounds, std::size_t threads, Task task) {
  const std::size_t workers = workers_for(bounds.back() - bounds.front(), threads);
  if (workers <= 1) {  // the runs in order: the items in order
    for (std::size_t item = bounds.front(); item < bounds.back(); ++item) task(item, 0);
    return;
  }
  struct alignas(64) Next {  // a cache line each: every worker takes from its own run's
    std::atomic<std::size_t> item;
  };
  const std::size_t runs = bounds.size() - 1;
  std::vector<Next> next(runs);
  for (std::size_t r = 0; r < runs; ++r) next[r].item = bounds[r];
  auto work = [&](std::size_t worker) {
    for (std::size_t k = 0; k < runs; ++k) {
      const std::size_t r = (worker + k) % runs;
      for (std::size_t item = next[r].item++; item < bounds[r + 1]; item = next[r].item++)
        task(item, worker);
    }
  };
  run_workers(
      workers,
      [](void* context, std::size_t worker) { (*static_cast<decltype(work)*>(context))(worker); },
      &work);
}

// Items [0, count) as one run: the workers take them from a shared counter (cheap load
// balancing for uneven causal tiles).
template <class Task>
void parallel_for(std::size_t count, std::size_t threads, Task task) {
  const std::array<std::size_t, 2> bounds{0, count};
  parallel_for_runs(bounds, threads, task);
}

}  // namespace attnlab
