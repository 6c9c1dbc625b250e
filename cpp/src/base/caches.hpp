// The size of the cache a core shares with its neighbours (the L3 on x86), which decides when
// the flash kernel treats K and V as streamed from memory, and of a core's own L2, which sizes
// its spans of query blocks (kernels/flash.cpp). Read once, from Linux's /sys; where nothing
// says (another system, or wasm, which cannot ask), those of the AMD EPYC the kernels were
// measured on: 32 MiB and 1 MiB.
#pragma once

#include <cstddef>

namespace attnlab {

inline constexpr std::size_t measured_shared_cache_bytes = std::size_t{32} << 20;
inline constexpr std::size_t measured_core_cache_bytes = std::size_t{1} << 20;

#if defined(__linux__) && !defined(__EMSCRIPTEN__)
std::size_t shared_cache_bytes();
std::size_t core_cache_bytes();
#else
inline std::size_t shared_cache_bytes() { return measured_shared_cache_bytes; }
inline std::size_t core_cache_bytes() { return measured_core_cache_bytes; }
#endif

}  // namespace attnlab
