// The flash kernels' scratch memory: one allocation per call, kept by the calling thread
// between native calls (internal; flash.cpp).
#pragma once

#include <cstddef>
#include <memory>

namespace attnlab::simd {

// The floats a call needs besides its output, in one allocation: K and V of each head task
// gathered (see gather()), then each worker's buffers (simd::BlockBuffers). Natively the
// calling thread keeps it between calls, up to kept_floats, so repeated calls allocate (and
// fault in) nothing; a larger call gives it back when done. Wasm keeps nothing: its freed
// memory stays in the heap, cheap to reuse, and a call gives back all it took.
class Workspace {
 public:
#ifdef __EMSCRIPTEN__
  static constexpr std::size_t kept_floats = 0;
#else
  static constexpr std::size_t kept_floats = std::size_t{8} << 20;  // 32 MiB
#endif

  explicit Workspace(std::size_t floats) : arena_(thread_arena()) {
    if (arena_.size < floats)
      arena_ = {std::unique_ptr<float[]>(new float[floats]), floats};  // not zero-filled
  }
  ~Workspace() {
    if (arena_.size > kept_floats) arena_ = {};
  }
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;

  float* take(std::size_t floats) {
    float* part = arena_.floats.get() + used_;
    used_ += floats;
    return part;
  }

 private:
  struct Arena {
    std::unique_ptr<float[]> floats;
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
