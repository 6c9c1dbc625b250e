#include "base/parallel.hpp"

#include "attnlab/kernels.hpp"

#if !(defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__))
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <vector>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif
#ifdef __linux__
#include <sched.h>
#endif

namespace attnlab {
namespace {

// Polls `ready` for a while before the caller sleeps: waking a thread that sleeps in the kernel
// took 0.1 ms or more on the test VM (see Placement), as long as a small call itself.
template <class Ready>
bool spin_until(Ready ready, std::chrono::microseconds patience = std::chrono::microseconds(100)) {
  const auto until = std::chrono::steady_clock::now() + patience;
  for (unsigned polls = 1;; ++polls) {
    if (ready()) return true;
#if defined(__x86_64__) || defined(__i386__)
    _mm_pause();
#endif
    if (polls % 64 == 0 && std::chrono::steady_clock::now() > until) return false;
  }
}

// The CPU the calling thread runs on, or -1 where that is unknown.
int current_cpu() {
#ifdef __linux__
  return sched_getcpu();
#else
  return -1;
#endif
}

// Where a pool thread may run: the CPUs it started with (the process's), less the one its
// caller last ran on. In a VM the guest scheduler can see an idle vCPU as preempted and wake a
// thread on its waker's CPU instead: on the test VM 59 of 60 wakes after 50 ms idle landed
// there, and the two threads shared one core until the load balancer parted them 2-3 ms later
// (a 2-thread call at n = 256 took longer than a 1-thread one). Kept off the caller's CPU, the
// wake took 86 µs. The mask changes only when the caller's CPU does.
class Placement {
 public:
  Placement() {
#ifdef __linux__
    usable_ = sched_getaffinity(0, sizeof started_, &started_) == 0;
#endif
  }

  void keep_off(int cpu) {
#ifdef __linux__
    if (!usable_ || cpu < 0 || cpu == avoided_ || !CPU_ISSET(cpu, &started_)) return;
    cpu_set_t others = started_;
    CPU_CLR(cpu, &others);
    if (CPU_COUNT(&others) > 0) sched_setaffinity(0, sizeof others, &others);
    avoided_ = cpu;
#else
    (void)cpu;
#endif
  }

 private:
#ifdef __linux__
  cpu_set_t started_;
  bool usable_ = false;
#endif
  int avoided_ = -1;
};

// Threads that wait for jobs. One job at a time: run() holds `busy` while its job runs.
class Pool {
 public:
  ~Pool() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    start_.notify_all();
    for (auto& t : threads_) t.join();
  }

  std::mutex busy;

  // Wakes the sleeping threads, which then poll for a job for up to 2 ms: a call does this
  // before its checks, so its workers are awake when its job comes.
  void wake() {
    caller_cpu_.store(current_cpu(), std::memory_order_relaxed);
    {
      std::lock_guard lock(mutex_);
      ++wakes_;
    }
    start_.notify_all();
  }

  // Workers 1 … workers - 1 run work(context, w) on the pool's threads, worker 0 on the
  // caller's; returns when every worker that started has returned. Once the caller's own share
  // returns (parallel_for's: no item left), the job closes, and a thread that wakes after that
  // skips it: a small call never waits out a sleeping thread's wake-up for no work. The caller
  // holds `busy`.
  void run(std::size_t workers, void (*work)(void*, std::size_t), void* context) {
    caller_cpu_.store(current_cpu(), std::memory_order_relaxed);
    {
      std::lock_guard lock(mutex_);
      while (threads_.size() + 1 < workers)
        threads_.emplace_back([this, index = threads_.size() + 1] { serve(index); });
      work_ = work;
      context_ = context;
      workers_ = workers;
      active_ = 0;
      ++generation_;
    }
    start_.notify_all();
    work(context, 0);
    active_.fetch_or(closed);
    const auto finished = [this] { return (active_ & ~closed) == 0; };
    if (spin_until(finished)) return;
    std::unique_lock lock(mutex_);
    done_.wait(lock, finished);
  }

 private:
  // Thread `index` (1, 2, …) runs each job that has a worker of that index.
  void serve(std::size_t index) {
    std::uint64_t seen = 0, woken = 0;
    Placement placement;
    for (;;) {
      const auto posted = [&] { return stopping_ || generation_ != seen; };
      std::unique_lock lock(mutex_, std::defer_lock);
      if (!spin_until(posted)) {
        lock.lock();
        start_.wait(lock, [&] { return posted() || wakes_ != woken; });
        woken = wakes_;
        lock.unlock();
        placement.keep_off(caller_cpu_.load(std::memory_order_relaxed));  // before it polls
        if (!posted() && !spin_until(posted, std::chrono::microseconds(2000))) continue;
      } else {
        placement.keep_off(caller_cpu_.load(std::memory_order_relaxed));
      }
      lock.lock();
      if (stopping_) return;
      seen = generation_;
      if (index >= workers_) continue;
      // Joins the job under the lock, so it cannot be another job's by then; a closed job is
      // left alone (its context may be gone).
      if (active_.fetch_add(1) & closed) {
        active_.fetch_sub(1);
        continue;
      }
      const auto work = work_;
      void* const context = context_;
      lock.unlock();
      work(context, index);
      if ((active_.fetch_sub(1) - 1) == closed) {
        std::lock_guard done_lock(mutex_);  // so run() cannot miss the notification
        done_.notify_one();
      }
    }
  }

  std::mutex mutex_;  // guards the job and threads_; the atomics are also read without it
  std::condition_variable start_, done_;
  std::vector<std::thread> threads_;
  void (*work_)(void*, std::size_t) = nullptr;
  void* context_ = nullptr;
  std::size_t workers_ = 0;
  std::uint64_t wakes_ = 0;
  std::atomic<int> caller_cpu_{-1};  // where the last wake() or run() ran
  // The pool threads inside the current job, and `closed` once its caller's share returned.
  static constexpr std::uint32_t closed = 1u << 31;
  std::atomic<std::uint32_t> active_{0};
  std::atomic<std::uint64_t> generation_{0};
  std::atomic<bool> stopping_{false};
};

Pool& pool() {
  static Pool shared;
  return shared;
}

}  // namespace

void wake_workers() { pool().wake(); }

void run_workers(std::size_t workers, void (*work)(void*, std::size_t), void* context) {
  Pool& shared = pool();
  if (std::unique_lock busy(shared.busy, std::try_to_lock); busy)
    return shared.run(workers, work, context);
  std::vector<std::thread> own;
  for (std::size_t w = 1; w < workers; ++w) own.emplace_back(work, context, w);
  work(context, 0);
  for (auto& t : own) t.join();
}

}  // namespace attnlab

#else

namespace attnlab {

void wake_workers() {}

void run_workers(std::size_t workers, void (*work)(void*, std::size_t), void* context) {
  for (std::size_t w = 0; w < workers; ++w) work(context, w);  // never more than 1 here
}

}  // namespace attnlab

#endif

std::size_t attnlab::kernels::max_threads() { return attnlab::resolve_threads(0); }
