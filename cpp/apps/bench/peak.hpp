// The machine's measured float32 FMA throughput: the yardstick for "% of peak".
#pragma once

#include <cstddef>
#include <string_view>

namespace attnlab::bench {

// GFLOP/s of independent FMA chains on `threads` threads, with the instruction set named
// `simd` (kernels::simd_arch()'s names: "avx512bw", "fma3+avx2", "sse4.2"), so "% of peak" is
// measured against the lanes the kernels ran with. On SSE the FMA is a multiply and an add.
double measure_fma_peak_gflops(std::size_t threads, std::string_view simd);

}  // namespace attnlab::bench
