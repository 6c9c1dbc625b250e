// The flash kernel's phase timers behind start_flash_profile() (attnlab/flash.hpp; internal):
// a PhaseTimer adds the time from its construction to its end to its phase, while profiling
// is on. Wasm builds time nothing and keep no code for it.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace attnlab::simd {

enum class Phase { transpose_in, scores, softmax, value, transpose_out, count };

#ifdef __EMSCRIPTEN__
class PhaseTimer {
 public:
  explicit PhaseTimer(Phase) {}
};
#else
// Nanoseconds per phase, summed over the workers; whether they are being added.
extern std::atomic<std::uint64_t> phase_nanoseconds[static_cast<int>(Phase::count)];
extern std::atomic<bool> timing_phases;

class PhaseTimer {
 public:
  explicit PhaseTimer(Phase phase)
      : phase_(phase), on_(timing_phases.load(std::memory_order_relaxed)) {
    if (on_) start_ = std::chrono::steady_clock::now();
  }
  ~PhaseTimer() {
    if (!on_) return;
    const auto spent = std::chrono::steady_clock::now() - start_;
    phase_nanoseconds[static_cast<int>(phase_)].fetch_add(
        static_cast<std::uint64_t>(std::chrono::nanoseconds(spent).count()),
        std::memory_order_relaxed);
  }
  PhaseTimer(const PhaseTimer&) = delete;
  PhaseTimer& operator=(const PhaseTimer&) = delete;

 private:
  Phase phase_;
  bool on_;
  std::chrono::steady_clock::time_point start_;
};
#endif

}  // namespace attnlab::simd
