#include "kernels/phase_times.hpp"

#include <atomic>
#include <cstdint>

#include "attnlab/flash.hpp"

namespace attnlab {

#ifdef __EMSCRIPTEN__
void start_flash_profile() {}
FlashProfile stop_flash_profile() { return {}; }
#else
namespace {

using simd::Phase;

// Nanoseconds per phase, summed over the workers; whether they are being added.
std::atomic<std::uint64_t> phase_nanoseconds[static_cast<int>(Phase::count)];
std::atomic<bool> timing_phases{false};

}  // namespace

simd::PhaseTimer::PhaseTimer(Phase phase)
    : phase_(phase), on_(timing_phases.load(std::memory_order_relaxed)) {
  if (on_) start_ = std::chrono::steady_clock::now();
}

simd::PhaseTimer::~PhaseTimer() {
  if (!on_) return;
  const auto spent = std::chrono::steady_clock::now() - start_;
  phase_nanoseconds[static_cast<int>(phase_)].fetch_add(
      static_cast<std::uint64_t>(std::chrono::nanoseconds(spent).count()),
      std::memory_order_relaxed);
}

void start_flash_profile() {
  for (auto& phase : phase_nanoseconds) phase.store(0);
  timing_phases.store(true);
}

FlashProfile stop_flash_profile() {
  timing_phases.store(false);
  const auto seconds = [](Phase phase) {
    return static_cast<double>(phase_nanoseconds[static_cast<int>(phase)].load()) * 1e-9;
  };
  return {seconds(Phase::transpose_in), seconds(Phase::scores), seconds(Phase::softmax),
          seconds(Phase::value), seconds(Phase::transpose_out)};
}
#endif

}  // namespace attnlab
