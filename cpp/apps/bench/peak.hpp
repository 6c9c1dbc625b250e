// The machine's measured float32 FMA throughput: the yardstick for "% of peak".
#pragma once

#include <cstddef>

namespace attnlab::bench {

// GFLOP/s of independent FMA chains on `threads` threads, with the SIMD ISA the kernels use.
double measure_fma_peak_gflops(std::size_t threads);

}  // namespace attnlab::bench
