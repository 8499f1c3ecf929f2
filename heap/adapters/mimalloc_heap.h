// MimallocHeap: ExternalAllocatorHeap over mimalloc 2 (Debian's libmimalloc), for comparison
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

#include "heap/adapters/external_allocator_heap.h"

namespace kith::heap {

struct MimallocApi {  // mimalloc_heap.cpp, in libkith_mimalloc
  static void* allocate(std::size_t size);
  static void release(void* p);
  static std::size_t usableSize(void* p);
};

using MimallocHeap = ExternalAllocatorHeap<MimallocApi>;

}  // namespace kith::heap
