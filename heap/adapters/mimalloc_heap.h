// MimallocHeap: a top heap over mimalloc 2 (Debian's libmimalloc), for comparison
// like MallocHeap: not fixed-size, the library grows its heap from the OS. Present
// when CMake found mimalloc at build time (KITH_HAVE_MIMALLOC); `kith policies`
// notes it otherwise.
//
// Debian's libmimalloc exports malloc/free too (it is built to override them), so,
// as for jemalloc (jemalloc_heap.h), only the small shared library kith_mimalloc
// (mimalloc_heap.cpp) links it: it loads after libc, `malloc` stays glibc's, and
// these calls use mimalloc's prefixed API (mi_malloc, mi_free, mi_usable_size).
#pragma once

#include <cstddef>
#include <cstdint>

#include "heap/layer.h"

namespace kith::heap {

namespace mimalloc_api {  // mimalloc_heap.cpp, in libkith_mimalloc
void* allocate(std::size_t size);
void release(void* p);
std::size_t usableSize(void* p);
}  // namespace mimalloc_api

class MimallocHeap {
 public:
  MimallocHeap() = default;
  explicit MimallocHeap(std::size_t /*ignored: mimalloc grows*/) {}

  void* malloc(std::size_t sz) {
    // mimalloc has 8-byte-granular small bins (a 24-byte block is only 8-aligned);
    // a request rounded up to a multiple of 16 lands in a bin of 16-aligned blocks
    // without mi_malloc_aligned's slower path. 0 becomes one minimum block.
    if (sz > static_cast<std::size_t>(PTRDIFF_MAX)) return nullptr;
    return mimalloc_api::allocate(alignUp(sz < kMinBlock ? kMinBlock : sz));
  }
  void free(void* p) {
    if (p) mimalloc_api::release(p);
  }
  std::size_t getSize(void* p) { return mimalloc_api::usableSize(p); }
};

}  // namespace kith::heap
