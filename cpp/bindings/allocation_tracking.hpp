// Bytes the wasm core holds through operator new, now and at the peak since the last reset:
// the live memory measurement behind the cost view (the naive kernel's n×n matrices show
// up here, the flash kernel's O(n·d) tiles too). Single-threaded, as the wasm build is.
#pragma once

#include <cstddef>

namespace attnlab::bindings {

std::size_t allocated_bytes();
std::size_t peak_allocated_bytes();
// Starts a new peak from what is allocated now.
void reset_peak_allocated_bytes();

}  // namespace attnlab::bindings
