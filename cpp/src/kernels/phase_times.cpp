#include "kernels/phase_times.hpp"

#include "attnlab/flash.hpp"

namespace attnlab {

#ifdef __EMSCRIPTEN__
void start_flash_profile() {}
FlashProfile stop_flash_profile() { return {}; }
#else
std::atomic<std::uint64_t> simd::phase_nanoseconds[static_cast<int>(simd::Phase::count)];
std::atomic<bool> simd::timing_phases{false};

void start_flash_profile() {
  for (auto& phase : simd::phase_nanoseconds) phase.store(0);
  simd::timing_phases.store(true);
}

FlashProfile stop_flash_profile() {
  simd::timing_phases.store(false);
  const auto seconds = [](simd::Phase phase) {
    return static_cast<double>(simd::phase_nanoseconds[static_cast<int>(phase)].load()) * 1e-9;
  };
  using simd::Phase;
  return {seconds(Phase::transpose_in), seconds(Phase::scores), seconds(Phase::softmax),
          seconds(Phase::value), seconds(Phase::transpose_out)};
}
#endif

}  // namespace attnlab
