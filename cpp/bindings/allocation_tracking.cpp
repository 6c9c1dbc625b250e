// Replaces the global operator new and delete (every form) with versions that count bytes.
// std::vector (every Matrix) allocates through these, so the counts cover the core's working
// memory.
#include "allocation_tracking.hpp"

#include <malloc.h>

#include <algorithm>
#include <cstdlib>
#include <new>

namespace attnlab::bindings {
namespace {

std::size_t current = 0;
std::size_t peak = 0;

// Counts a block that malloc or posix_memalign gave (null passes through).
void* counted(void* p) noexcept {
  if (!p) return nullptr;
  current += malloc_usable_size(p);
  peak = std::max(peak, current);
  return p;
}

void* try_allocate(std::size_t size) noexcept { return counted(std::malloc(size == 0 ? 1 : size)); }

void* try_allocate(std::size_t size, std::align_val_t alignment) noexcept {
  // posix_memalign takes any size (aligned_alloc wants a multiple of the alignment) and at
  // least pointer alignment; its blocks are freed with free() like malloc's.
  const std::size_t align = std::max(static_cast<std::size_t>(alignment), sizeof(void*));
  void* p = nullptr;
  if (posix_memalign(&p, align, size == 0 ? 1 : size) != 0) return nullptr;
  return counted(p);
}

template <class... Alignment>
void* tracked_allocate(std::size_t size, Alignment... alignment) {
  void* p = try_allocate(size, alignment...);
  if (!p) throw std::bad_alloc();
  return p;
}

void tracked_free(void* p) noexcept {
  if (!p) return;
  current -= malloc_usable_size(p);
  std::free(p);
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
