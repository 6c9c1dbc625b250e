// The flash kernels' scratch memory: one allocation per call, kept by the calling thread
// between native calls (internal; flash.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

namespace attnlab::simd {

// The floats a call needs besides its output, in one allocation: K and V of each head task
// gathered (see gather()), then each worker's buffers (simd::BlockBuffers). Natively the
// calling thread keeps it between calls, up to kept_floats, so repeated calls allocate (and
// fault in) nothing; a larger call gives it back when done. 64 MiB keeps n = 4,096 at
// d = 128 with 8 heads (32 MiB of K and V), where faulting it in again took 6% of each call. Wasm
// keeps nothing: its freed memory stays in the heap, cheap to reuse, and a call gives back all it
// took.
class Workspace {
 public:
#ifdef __EMSCRIPTEN__
  static constexpr std::size_t kept_floats = 0;
#else
  static constexpr std::size_t kept_floats = std::size_t{16} << 20;  // 64 MiB
#endif

  explicit Workspace(std::size_t floats) : arena_(thread_arena()) {
    if (arena_.size < floats) {  // storage not zero-filled, with room to start on a line
      arena_ = {std::unique_ptr<float[]>(new float[floats + line_floats]), nullptr, floats};
      const auto address = reinterpret_cast<std::uintptr_t>(arena_.storage.get());
      arena_.floats =
          arena_.storage.get() + (alignment - address % alignment) % alignment / sizeof(float);
    }
  }
  ~Workspace() {
    if (arena_.size > kept_floats) arena_ = {};
  }
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;

  // The floats take() uses for a part of `floats`: whole cache lines, so that every part
  // starts on a line and no load of a whole AVX-512 batch there straddles two (1-2% of a call).
  static constexpr std::size_t rounded(std::size_t floats) {
    return (floats + line_floats - 1) / line_floats * line_floats;
  }

  float* take(std::size_t floats) {
    float* part = arena_.floats + used_;
    used_ += rounded(floats);
    return part;
  }

 private:
  static constexpr std::size_t alignment = 64;  // a cache line
  static constexpr std::size_t line_floats = alignment / sizeof(float);
  struct Arena {
    std::unique_ptr<float[]> storage;
    float* floats = nullptr;  // the first cache line of storage
    std::size_t size = 0;
  };
  static Arena& thread_arena() {
    thread_local Arena arena;
    return arena;
  }
  Arena& arena_;
  std::size_t used_ = 0;
};

}  // namespace attnlab::simd
