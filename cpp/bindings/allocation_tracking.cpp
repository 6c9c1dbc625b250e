// Replaces the global operator new and delete with versions that count bytes. std::vector
// (every Matrix) allocates through these, so the counts cover the core's working memory.
#include "allocation_tracking.hpp"

#include <malloc.h>

#include <algorithm>
#include <cstdlib>
#include <new>

namespace attnlab::bindings {
namespace {

std::size_t current = 0;
std::size_t peak = 0;

void* tracked_allocate(std::size_t size) {
  void* p = std::malloc(size == 0 ? 1 : size);
  if (!p) throw std::bad_alloc();
  current += malloc_usable_size(p);
  peak = std::max(peak, current);
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

void* operator new(std::size_t size) { return attnlab::bindings::tracked_allocate(size); }
void* operator new[](std::size_t size) { return attnlab::bindings::tracked_allocate(size); }
void operator delete(void* p) noexcept { attnlab::bindings::tracked_free(p); }
void operator delete[](void* p) noexcept { attnlab::bindings::tracked_free(p); }
void operator delete(void* p, std::size_t) noexcept { attnlab::bindings::tracked_free(p); }
void operator delete[](void* p, std::size_t) noexcept { attnlab::bindings::tracked_free(p); }
