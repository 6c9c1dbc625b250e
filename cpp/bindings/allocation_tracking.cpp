// Replaces the global operator new and delete (every form) with versions that count bytes.
// std::vector (every Matrix) allocates through these, so the counts cover the core's working
// memory.
#include "allocation_tracking.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

namespace attnlab::bindings {
namespace {

std::size_t current = 0;
std::size_t peak = 0;

// Each block carries, just before what new returns, the bytes it holds and where it starts:
// the counts give back exactly what they took. Asking malloc instead (malloc_usable_size)
// would not: emmalloc may grow a live block by the alignment padding of the one it places
// next.
struct Header {
  std::size_t held;    // bytes taken from malloc
  std::size_t offset;  // from the malloc block's start to what new returns
};

void* counted(void* block, std::size_t size, std::size_t offset) noexcept {
  if (!block) return nullptr;
  auto* p = static_cast<unsigned char*>(block) + offset;
  const Header h{size + offset, offset};
  std::memcpy(p - sizeof h, &h, sizeof h);
  current += h.held;
  peak = std::max(peak, current);
  return p;
}

// malloc's 8-byte alignment is kept: the header is 8 bytes in wasm32.
void* try_allocate(std::size_t size) noexcept {
  if (size > SIZE_MAX - sizeof(Header)) return nullptr;
  return counted(std::malloc(size + sizeof(Header)), size, sizeof(Header));
}

void* try_allocate(std::size_t size, std::align_val_t alignment) noexcept {
  // posix_memalign takes any size (aligned_alloc wants a multiple of the alignment) and at
  // least pointer alignment; its blocks are freed with free() like malloc's. The header sits
  // in one alignment's worth of bytes before the block new returns.
  const std::size_t align = std::max(static_cast<std::size_t>(alignment), sizeof(Header));
  void* p = nullptr;
  if (size > SIZE_MAX - align || posix_memalign(&p, align, size + align) != 0) return nullptr;
  return counted(p, size, align);
}

template <class... Alignment>
void* tracked_allocate(std::size_t size, Alignment... alignment) {
  void* p = try_allocate(size, alignment...);
  if (!p) throw std::bad_alloc();
  return p;
}

void tracked_free(void* p) noexcept {
  if (!p) return;
  Header h;
  std::memcpy(&h, static_cast<unsigned char*>(p) - sizeof h, sizeof h);
  current -= h.held;
  std::free(static_cast<unsigned char*>(p) - h.offset);
}

}  // namespace

std::size_t allocated_bytes() { return current; }
std::size_t peak_allocated_bytes() { return peak; }
void reset_peak_allocated_bytes() { peak = current; }

}  // namespace attnlab::bindings

// Every replaceable form: plain, aligned (std::align_val_t) and nothrow, single and array,
// with and without a size on delete, so every allocation is counted.
using attnlab::bindings::tracked_allocate;
using attnlab::bindings::tracked_free;
using attnlab::bindings::try_allocate;

void* operator new(std::size_t size) { return tracked_allocate(size); }
void* operator new[](std::size_t size) { return tracked_allocate(size); }
void* operator new(std::size_t size, std::align_val_t a) { return tracked_allocate(size, a); }
void* operator new[](std::size_t size, std::align_val_t a) { return tracked_allocate(size, a); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept { return try_allocate(size); }
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  return try_allocate(size);
}
void* operator new(std::size_t size, std::align_val_t a, const std::nothrow_t&) noexcept {
  return try_allocate(size, a);
}
void* operator new[](std::size_t size, std::align_val_t a, const std::nothrow_t&) noexcept {
  return try_allocate(size, a);
}

void operator delete(void* p) noexcept { tracked_free(p); }
void operator delete[](void* p) noexcept { tracked_free(p); }
void operator delete(void* p, std::size_t) noexcept { tracked_free(p); }
void operator delete[](void* p, std::size_t) noexcept { tracked_free(p); }
void operator delete(void* p, std::align_val_t) noexcept { tracked_free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { tracked_free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { tracked_free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { tracked_free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { tracked_free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { tracked_free(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { tracked_free(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept {
  tracked_free(p);
}
