// MimallocHeap: ExternalAllocatorHeap over mimalloc 2 (Debian's libmimalloc2.0), for
// comparison like MallocHeap: not fixed-size, the library grows its heap from the
// OS. Listed when CMake found mimalloc at build time (KITH_HAVE_MIMALLOC); `kith
// policies` notes it otherwise. Opened with dlopen when the policy is chosen
// (shared_library.h), so runs on other policies never load it.
//
// Debian's libmimalloc exports malloc/free too (it is built to override them);
// opened RTLD_LOCAL, these calls use mimalloc's prefixed API (mi_malloc, mi_free,
// mi_usable_size) and `malloc` stays glibc's.
#pragma once

#include <cstddef>

#include "heap/adapters/external_allocator_heap.h"

namespace kith::heap {

struct MimallocApi {  // mimalloc_heap.cpp
  static void load();  // throws LibraryUnavailable
  static void* allocate(std::size_t size);
  static void release(void* p);
  static std::size_t usableSize(void* p);
};

using MimallocHeap = ExternalAllocatorHeap<MimallocApi>;

}  // namespace kith::heap
