// The flash kernel's phase timers behind start_flash_profile() (attnlab/flash.hpp; internal):
// a PhaseTimer adds the time from its construction to its end to its phase, while profiling
// is on. Wasm builds time nothing and keep no code for it.
#pragma once

#include <chrono>

namespace attnlab::simd {

enum class Phase { transpose_in, scores, softmax, value, transpose_out, count };

#ifdef __EMSCRIPTEN__
class PhaseTimer {
 public:
  explicit PhaseTimer(Phase) {}
};
#else
// Its constructor and destructor are out of line (phase_times.cpp): defined here, they would
// be compiled into every instruction set's kernels, and the linker could pick any one of those
// copies for all (core.simd-isolation checks that no kernel object shares a symbol).
class PhaseTimer {
 public:
  explicit PhaseTimer(Phase phase);
  ~PhaseTimer();
  PhaseTimer(const PhaseTimer&) = delete;
  PhaseTimer& operator=(const PhaseTimer&) = delete;

 private:
  Phase phase_;
  bool on_;
  std::chrono::steady_clock::time_point start_;
};
#endif

}  // namespace attnlab::simd
