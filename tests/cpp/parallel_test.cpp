// parallel_for_runs: every item once, whatever the runs and the threads; one thread takes the
// runs in order. The oracle is a count per item, kept apart from the counters under test.
#include "base/parallel.hpp"

#include <atomic>
#include <catch2/catch.hpp>
#include <cstddef>
#include <vector>

using namespace attnlab;

TEST_CASE("parallel_for_runs runs every item of every run once", "[parallel]") {
  const std::vector<std::vector<std::size_t>> cases = {
      {0, 5, 9, 12}, {0, 1}, {3, 3, 8}, {0, 0, 0}, {0, 40, 41, 90, 90, 100}};
  for (const auto& bounds : cases)
    for (const std::size_t threads : {1, 2, 3, 8}) {
      INFO("runs " << bounds.size() - 1 << ", " << threads << " threads");
      std::vector<std::atomic<int>> seen(bounds.back());
      std::atomic<std::size_t> most_worker{0};
      parallel_for_runs(bounds, threads, [&](std::size_t item, std::size_t worker) {
        ++seen[item];
        std::size_t was = most_worker.load();
        while (worker > was && !most_worker.compare_exchange_weak(was, worker)) {
        }
      });
      for (std::size_t item = 0; item < bounds.back(); ++item)
        CHECK(seen[item].load() == (item >= bounds.front() ? 1 : 0));
      CHECK(most_worker.load() < threads);
    }
}

TEST_CASE("parallel_for_runs on one thread takes the items in order", "[parallel]") {
  const std::vector<std::size_t> bounds = {2, 6, 7, 11};
  std::vector<std::size_t> order;
  parallel_for_runs(bounds, 1, [&](std::size_t item, std::size_t worker) {
    CHECK(worker == 0);
    order.push_back(item);
  });
  std::vector<std::size_t> expected;
  for (std::size_t item = 2; item < 11; ++item) expected.push_back(item);
  CHECK(order == expected);
}

TEST_CASE("parallel_for with more threads than items runs each item once", "[parallel]") {
  for (const std::size_t count : {0, 1, 3, 64}) {
    std::vector<std::atomic<int>> seen(count);
    parallel_for(count, 8, [&](std::size_t item, std::size_t) { ++seen[item]; });
    for (std::size_t item = 0; item < count; ++item) CHECK(seen[item].load() == 1);
  }
}
