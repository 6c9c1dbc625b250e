#include "parallel.hpp"

#if !(defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__))
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <vector>

namespace attnlab {
namespace {

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

  // Workers 1 … workers - 1 run work(context, w) on the pool's threads, worker 0 on the
  // caller's; returns when every one has returned. The caller holds `busy`.
  void run(std::size_t workers, void (*work)(void*, std::size_t), void* context) {
    {
      std::lock_guard lock(mutex_);
      while (threads_.size() + 1 < workers)
        threads_.emplace_back([this, index = threads_.size() + 1] { serve(index); });
      work_ = work;
      context_ = context;
      workers_ = workers;
      pending_ = workers - 1;
      ++generation_;
    }
    start_.notify_all();
    work(context, 0);
    std::unique_lock lock(mutex_);
    done_.wait(lock, [this] { return pending_ == 0; });
  }

 private:
  // Thread `index` (1, 2, …) runs each job that has a worker of that index.
  void serve(std::size_t index) {
    std::uint64_t seen = 0;
    std::unique_lock lock(mutex_);
    for (;;) {
      start_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
      if (index >= workers_) continue;
      const auto work = work_;
      void* const context = context_;
      lock.unlock();
      work(context, index);
      lock.lock();
      if (--pending_ == 0) done_.notify_one();
    }
  }

  std::mutex mutex_;  // guards everything below
  std::condition_variable start_, done_;
  std::vector<std::thread> threads_;
  void (*work_)(void*, std::size_t) = nullptr;
  void* context_ = nullptr;
  std::size_t workers_ = 0, pending_ = 0;
  std::uint64_t generation_ = 0;
  bool stopping_ = false;
};

Pool& pool() {
  static Pool shared;
  return shared;
}

}  // namespace

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

void run_workers(std::size_t workers, void (*work)(void*, std::size_t), void* context) {
  for (std::size_t w = 0; w < workers; ++w) work(context, w);  // never more than 1 here
}

}  // namespace attnlab

#endif
